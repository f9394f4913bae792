/**
 * Config types come from the key schemas (common/config/schema.ts). These checks run when the suite compiles:
 * each `@ts-expect-error` fails the build if the line below it stops being an error, so a key whose value type
 * falls back to `unknown` (or a schema that stops driving its key's type) breaks `npm test` at `tsc`.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { buildConfig, checkKey, withDefaults, type Config, type ConfigValue, type TopologyConfigKey } from '../../../common/config/index.js';

describe('common/config types', () => {
  it('gives every key the type of its schema', () => {
    const c: Config = buildConfig([{ 'topology.workers': 3 }], { allowUserKeys: true });
    const workers: number = c['topology.workers'];
    const pending: number | null = c['topology.max.spout.pending'];
    const servers: readonly string[] = c['hstorm.zookeeper.servers'];
    const strategy: 'even' | 'hetero' | 'hdrf' = c['nimbus.scheduler'];
    // @ts-expect-error a number key is not a string
    const wrong: string = c['topology.workers'];
    // @ts-expect-error a nullable key is not a plain number
    const notNull: number = c['topology.acker.executors'];
    assert.deepEqual([workers, pending, servers.length, strategy, typeof wrong, notNull], [3, 1000, 1, 'hetero', 'number', null]);
  });

  it('types checkKey by its key, and names only topology keys as topology keys', () => {
    const gpuWorkers: ConfigValue<'topology.gpu.workers'> = checkKey('topology.gpu.workers', 2);
    const k: TopologyConfigKey = 'topology.max.spout.pending';
    // @ts-expect-error nimbus.host is a cluster key
    const cluster: TopologyConfigKey = 'nimbus.host';
    assert.deepEqual([gpuWorkers, k, cluster], [2, 'topology.max.spout.pending', 'nimbus.host']);
  });

  it('fills a stored record with the defaults it lacks', () => {
    const c = withDefaults({ 'topology.workers': 4, 'my.key': 'x' });
    assert.equal(c['topology.workers'], 4);
    assert.equal(c['topology.message.timeout.secs'], 30);
    assert.equal(c['my.key'], 'x');
    assert.ok(Object.isFrozen(c));
  });

  it('refuses a default of the wrong type at compile time', () => {
    // The same helper shape as schema.ts's key(): a default must be the schema's output type.
    const key = <S extends z.ZodType>(schema: S, def: z.output<S>) => ({ schema, def });
    // @ts-expect-error "5" is not a number
    const bad = key(z.number(), '5');
    assert.equal(bad.schema.safeParse(bad.def).success, false);
  });
});
