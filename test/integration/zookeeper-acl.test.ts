/**
 * ZooKeeper digest ACLs on a real server (hstorm.zookeeper.auth.payload):
 * nodes the store creates — root, parents, persistent, ephemeral, sequential —
 * carry only the digest identity; a client without the credentials (or with
 * another password) is refused NO_AUTH for every operation; an ephemeral node
 * re-created after a session expiry keeps its ACL; without credentials nodes
 * stay world-open, as before.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createClient, type ACL } from 'node-zookeeper-client';
import { isStateError } from '../../common/cluster-state.js';
import { digestId } from '../../common/cluster-state/zookeeper-acl.js';
import { connectZooKeeper, type ZooKeeperClusterState } from '../../common/cluster-state/zookeeper-store.js';
import { silentLogger } from '../../common/logger.js';
import { expireSession, startTestZooKeeper, type TestZooKeeper } from '../helpers/zookeeper.js';
import { waitFor } from '../helpers/wait-for.js';

const AUTH = 'hstorm:s3cret-pass';

describe('ZooKeeper digest ACLs', function () {
  this.timeout(60_000);
  let zk: TestZooKeeper;
  let root: string;
  const sessions: ZooKeeperClusterState[] = [];

  const connect = async (auth: string | null, sessionTimeoutMs = 10_000): Promise<ZooKeeperClusterState> => {
    const s = await connectZooKeeper({ servers: [zk.connectString], root, sessionTimeoutMs, connectTimeoutMs: 30_000, auth }, silentLogger());
    sessions.push(s);
    return s;
  };

  /** The ACL of an absolute path, read with the library's raw client (getACL needs READ_ACL: with credentials). */
  const aclOf = (absolute: string, auth: string | null): Promise<string[]> =>
    new Promise((resolve, reject) => {
      const c = createClient(zk.connectString, { sessionTimeout: 10_000 });
      if (auth) c.addAuthInfo('digest', Buffer.from(auth));
      c.once('connected', () => {
        c.getACL(absolute, (err, acls: ACL[]) => {
          c.close();
          if (err) reject(err);
          else resolve(acls.map((a) => `${a.id.scheme}:${a.id.id}:${(a as ACL & { permission?: number }).permission ?? a.perms}`)); // the library names it `permission`, its types `perms`
        });
      });
      c.connect();
    });

  before(async () => {
    zk = await startTestZooKeeper();
  });
  after(async () => {
    for (const s of sessions) await s.close().catch(() => undefined);
    await zk?.stop();
  });
  beforeEach(() => {
    root = `/acl-${randomUUID().slice(0, 8)}`;
  });

  it('gives every node it creates the digest identity only, and refuses a client without it', async () => {
    const owner = await connect(AUTH);
    await owner.create('/storms/t-1', Buffer.from('{"code":"secret"}'), { parents: true });
    await owner.create('/supervisors/s-1', Buffer.from('{}'), { mode: 'ephemeral', parents: true });
    const seq = await owner.create('/signals/n-', Buffer.from('x'), { mode: 'persistent_sequential', parents: true });
    const only = [`digest:${digestId(AUTH)}:31`]; // 31: all permissions
    for (const p of [root, `${root}/storms`, `${root}/storms/t-1`, `${root}/supervisors/s-1`, `${root}${seq}`]) {
      assert.deepEqual(await aclOf(p, AUTH), only, p);
    }

    for (const auth of [null, 'hstorm:another-password', 'someone:s3cret-pass']) {
      const other = await connect(auth);
      const ops: [string, () => Promise<unknown>][] = [
        ['get', () => other.get('/storms/t-1')],
        ['children', () => other.children('/storms')],
        ['set', () => other.set('/storms/t-1', Buffer.from('{"code":"evil"}'))],
        ['create', () => other.create('/storms/t-2', Buffer.from('{}'))],
        ['delete', () => other.delete('/supervisors/s-1')],
        ['get ephemeral', () => other.get('/supervisors/s-1')],
      ];
      for (const [name, op] of ops) {
        await assert.rejects(op(), (err: unknown) => isStateError(err, 'NO_AUTH') && (err as Error).message.includes('hstorm.zookeeper.auth.payload'), `${name} as ${auth}`);
      }
    }
    assert.equal((await owner.get('/storms/t-1')).data.toString(), '{"code":"secret"}', 'nothing was changed');

    const friend = await connect(AUTH);
    assert.deepEqual(await friend.children('/storms'), ['t-1'], 'another session with the same credentials has full access');
    await friend.set('/storms/t-1', Buffer.from('{}'));
  });

  it('keeps the ACL on an ephemeral node re-created after its session expired', async () => {
    const owner = await connect(AUTH, 4000);
    await owner.create('/supervisors/s-1', Buffer.from('{"v":1}'), { mode: 'ephemeral', parents: true });
    const states: string[] = [];
    owner.onSessionState((s) => states.push(s));
    // The takeover can race the client's own reconnect and lose; expireSession tries again until the client saw it.
    await expireSession(zk, owner);
    await waitFor('a new session with the ephemeral node back', () => states.includes('expired') && states.at(-1) === 'connected', 20_000, 50);
    const stranger = await connect(null);
    assert.ok(await stranger.exists('/supervisors/s-1'), 'exists() needs no permission: the node is back');
    await assert.rejects(stranger.get('/supervisors/s-1'), (err: unknown) => isStateError(err, 'NO_AUTH'));
    assert.deepEqual(await aclOf(`${root}/supervisors/s-1`, AUTH), [`digest:${digestId(AUTH)}:31`]);
  });

  it('leaves nodes world-open without credentials (the default)', async () => {
    const open = await connect(null);
    await open.create('/storms/t-1', Buffer.from('{}'), { parents: true });
    assert.deepEqual(await aclOf(`${root}/storms/t-1`, null), ['world:anyone:31']);
    const other = await connect(null);
    await other.set('/storms/t-1', Buffer.from('{"x":1}'));
  });
});
