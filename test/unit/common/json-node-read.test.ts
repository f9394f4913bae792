/**
 * How daemons read a znode that may be absent (common/cluster-state/json-node.ts readJsonIfPresent): validated with the
 * schemas nimbus and the supervisor use, a malformed node raises CORRUPT (the
 * worker counts and skips it) and the watch set before the read still fires on
 * the node's next version, so a repaired node is picked up without polling.
 */
import assert from 'node:assert/strict';
import { isStateError } from '../../../common/cluster-state.js';
import { InMemoryClusterStore } from '../../../common/cluster-state/index.js';
import { assignmentSchema } from '../../../common/record-schemas.js';
import { ZkPaths } from '../../../common/zk-paths.js';
import { readJsonIfPresent } from '../../../common/cluster-state/json-node.js';

const good = { topologyId: 't', epoch: 2, workers: [], unassigned: [], scheduler: 'even', createdAt: 0 };

describe('worker znode reads', () => {
  it('returns a valid record, null for a missing node', async () => {
    const store = new InMemoryClusterStore().session();
    const path = ZkPaths.assignment('t');
    assert.equal(await readJsonIfPresent(store, path, assignmentSchema), null);
    await store.create(path, Buffer.from(JSON.stringify(good)), { parents: true });
    assert.equal((await readJsonIfPresent(store, path, assignmentSchema))?.epoch, 2);
  });

  for (const [what, bytes] of [
    ['not JSON', '{ not json'],
    ['the wrong shape', JSON.stringify({ topologyId: 't', epoch: 'two', workers: 'many' })],
  ] as const) {
    it(`raises CORRUPT for ${what}, and the watch fires when the node is repaired`, async () => {
      const store = new InMemoryClusterStore().session();
      const path = ZkPaths.assignment('t');
      await store.create(path, Buffer.from(bytes), { parents: true });
      let fired = 0;
      await assert.rejects(
        readJsonIfPresent(store, path, assignmentSchema, () => fired++),
        (e: unknown) => isStateError(e, 'CORRUPT') && (e as Error).message.includes(path),
      );
      await store.set(path, Buffer.from(JSON.stringify(good)));
      assert.equal(fired, 1);
      assert.equal((await readJsonIfPresent(store, path, assignmentSchema))?.epoch, 2);
    });
  }
});
