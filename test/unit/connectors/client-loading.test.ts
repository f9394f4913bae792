/**
 * A topology that uses no connector does not load a connector's client: the
 * SDK, the testing API (LocalCluster, nimbus, supervisor), the worker and a
 * topology module are imported in a fresh process and none of redis, pg or
 * amqplib is among the modules loaded; importing a connector's subpath
 * loads its client and only its own (the check can fail).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { packageRoot } from '../../../common/package-root.js';

const CLIENTS = /node_modules\/(redis|@redis\/[^/]+|pg|amqplib)\//;

/** The connector clients a fresh node process has loaded after importing `specifiers` (CommonJS packages, as all three are). */
function clientsLoadedBy(specifiers: string[]): string[] {
  const script = [
    "import { createRequire } from 'node:module';",
    ...specifiers.map((s) => `await import(${JSON.stringify(s)});`),
    `const re = new RegExp(${JSON.stringify(CLIENTS.source)});`,
    'const names = new Set(Object.keys(createRequire(import.meta.url).cache).map((f) => re.exec(f)?.[1]).filter(Boolean));',
    'console.log(JSON.stringify([...names].sort()));',
  ].join('\n');
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: packageRoot(), encoding: 'utf8' });
  return JSON.parse(out.trim().split('\n').at(-1)!) as string[];
}

describe('connectors: clients load only with their connector', function () {
  this.timeout(60_000);

  it('the SDK, the runtime, the connectors\' helpers and a topology that uses no connector load none of them', () => {
    assert.deepEqual(clientsLoadedBy(['hstorm', 'hstorm/testing', 'hstorm/connectors', './dist/worker/index.js', './dist/examples/word-count/index.js']), []);
  });

  it('each connector loads its own client', () => {
    const redis = clientsLoadedBy(['hstorm/connectors/redis']);
    assert.ok(redis.includes('redis') && redis.includes('@redis/client'), `node-redis loaded: ${redis.join(', ')}`);
    assert.deepEqual(redis.filter((n) => n !== 'redis' && !n.startsWith('@redis/')), [], 'nothing but node-redis and its modules');
    assert.deepEqual(clientsLoadedBy(['hstorm/connectors/postgres']), ['pg']);
    assert.deepEqual(clientsLoadedBy(['hstorm/connectors/rabbitmq']), ['amqplib']);
  });
});
