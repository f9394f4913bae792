import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  buildConfig,
  checkKey,
  CONFIG_KEYS,
  defaultConfig,
  parseOverride,
  parseOverrides,
  readConfigFile,
  topologyKeys,
  validateEntries,
} from '../../../common/config/index.js';
import { UNSUPPORTED_STORM_PREFIXES } from '../../../common/config/storm-keys.js';
import { ConfigError } from '../../../common/errors.js';

/** Asserts a ConfigError whose key is `key` and whose message contains every one of `parts`. */
function configError(key: string, ...parts: (string | RegExp)[]) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof ConfigError, `not a ConfigError: ${String(e)}`);
    assert.equal(e.code, 'HSTORM_ERR_CONFIG_INVALID');
    assert.equal(e.key, key);
    for (const p of parts) {
      if (typeof p === 'string') assert.ok(e.message.includes(p), `"${e.message}" does not mention ${p}`);
      else assert.match(e.message, p);
    }
    return true;
  };
}

const cluster = { allowUserKeys: false };
const topology = { allowUserKeys: true, where: 'topology config' };

describe('common/config', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'hstorm-config-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  function yamlFile(name: string, text: string): string {
    const p = join(dir, name);
    writeFileSync(p, text);
    return p;
  }

  describe('defaults', () => {
    it('has a default for every key, and every default passes its own schema', () => {
      const d = defaultConfig();
      assert.deepEqual(Object.keys(d).sort(), Object.keys(CONFIG_KEYS).sort());
      for (const [k, v] of Object.entries(d)) assert.doesNotThrow(() => checkKey(k, v), k);
    });

    it('uses the documented defaults (Storm names where Storm has one)', () => {
      const c = buildConfig([], cluster);
      assert.equal(c['topology.workers'], 1);
      assert.equal(c['topology.message.timeout.secs'], 30);
      assert.equal(c['topology.max.spout.pending'], 1000);
      assert.equal(c['hstorm.scheduler.alpha'], 0);
      assert.equal(c['hstorm.gpu.beta'], 0.3);
      assert.equal(c['hstorm.split.gamma0'], 0.5);
      assert.equal(c['hstorm.split.theta'], 0.9);
      assert.equal(c['hstorm.split.max.window'], 20);
      assert.equal(c['hstorm.zookeeper.session.timeout.ms'], 6000);
      assert.equal(c['nimbus.task.timeout.secs'], 10);
      assert.equal(c['worker.heartbeat.frequency.secs'], 1);
    });

    it('hands out a fresh copy each time, and freezes the built config', () => {
      const a = defaultConfig();
      (a['supervisor.slots.ports'] as number[]).push(1);
      assert.deepEqual(defaultConfig()['supervisor.slots.ports'], [6700, 6701, 6702, 6703]);
      const c = buildConfig([], cluster);
      assert.ok(Object.isFrozen(c));
      assert.throws(() => {
        (c as Record<string, unknown>)['topology.workers'] = 9;
      }, TypeError);
    });
  });

  describe('layers', () => {
    it('applies defaults, then the YAML file, then -c overrides (later wins)', () => {
      const file = yamlFile(
        'hstorm.yaml',
        ['topology.workers: 3', 'nimbus.http.port: 7000', 'supervisor.slots.ports: [6800, 6801]', 'hstorm.gpu.beta: 0.5'].join('\n'),
      );
      const c = buildConfig([readConfigFile(file, true), parseOverrides(['topology.workers=5', 'hstorm.gpu.beta=1'])], cluster);
      assert.equal(c['topology.workers'], 5, '-c beats the file');
      assert.equal(c['hstorm.gpu.beta'], 1);
      assert.equal(c['nimbus.http.port'], 7000, 'the file beats the default');
      assert.deepEqual(c['supervisor.slots.ports'], [6800, 6801]);
      assert.equal(c['topology.message.timeout.secs'], 30, 'untouched keys keep their default');
    });

    it('reads a missing default file as empty, and a missing named file as an error', () => {
      assert.deepEqual(readConfigFile(join(dir, 'absent.yaml'), false), {});
      assert.throws(() => readConfigFile(join(dir, 'absent.yaml'), true), configError('--config', 'absent.yaml'));
    });

    it('reads an empty file as empty, and rejects bad YAML or a file that is not a map', () => {
      assert.deepEqual(readConfigFile(yamlFile('empty.yaml', ''), true), {});
      assert.throws(() => readConfigFile(yamlFile('bad.yaml', 'a: [1, 2\nb: }'), true), configError('--config', 'not valid YAML'));
      assert.throws(() => readConfigFile(yamlFile('list.yaml', '- 1\n- 2\n'), true), configError('--config', 'map'));
      assert.throws(() => readConfigFile(yamlFile('scalar.yaml', '42\n'), true), configError('--config', 'map'));
    });

    it('refuses a YAML alias bomb with its code, file, line and column, not a ReferenceError', () => {
      const lol = (n: string, of: string) => `${n}: &${n} [${Array(9).fill(of).join(', ')}]`;
      const file = yamlFile('bomb.yaml', [lol('a', '"lol"'), lol('b', '*a'), lol('c', '*b'), lol('d', '*c'), lol('e', '*d'), lol('f', '*e')].join('\n'));
      let err: unknown;
      try {
        readConfigFile(file, true);
      } catch (e) {
        err = e;
      }
      assert.ok(err instanceof ConfigError, String(err));
      assert.equal(err.code, 'HSTORM_ERR_CONFIG_INVALID');
      assert.match(err.message, /bomb\.yaml:4:8: config file \S*bomb\.yaml is refused: this alias would expand the document past 100 alias expansions/);
    });

    it('validates file values like any other layer', () => {
      const file = yamlFile('bad-value.yaml', 'nimbus.scheduler: fair\n');
      assert.throws(() => buildConfig([readConfigFile(file, true)], cluster), configError('nimbus.scheduler', '"fair"'));
    });
  });

  describe('parseOverride', () => {
    it('keeps the YAML type of the value', () => {
      assert.deepEqual(parseOverride('topology.workers=4'), ['topology.workers', 4]);
      assert.deepEqual(parseOverride('hstorm.gpu.beta=0.25'), ['hstorm.gpu.beta', 0.25]);
      assert.deepEqual(parseOverride('flag=true'), ['flag', true]);
      assert.deepEqual(parseOverride('flag=false'), ['flag', false]);
      assert.deepEqual(parseOverride('supervisor.slots.ports=[6700, 6701]'), ['supervisor.slots.ports', [6700, 6701]]);
      assert.deepEqual(parseOverride('hstorm.zookeeper.servers=["a:1","b:2"]'), ['hstorm.zookeeper.servers', ['a:1', 'b:2']]);
      assert.deepEqual(parseOverride('topology.max.spout.pending=null'), ['topology.max.spout.pending', null]);
      assert.deepEqual(parseOverride('name=word count'), ['name', 'word count']);
    });

    it('splits at the first "=" and trims the key', () => {
      assert.deepEqual(parseOverride(' my.key =a=b'), ['my.key', 'a=b']);
      assert.deepEqual(parseOverride('my.key='), ['my.key', '']);
    });

    it('keeps text that is not valid YAML as a string', () => {
      assert.deepEqual(parseOverride('my.key=[1, 2'), ['my.key', '[1, 2']);
    });

    it('rejects an argument that is not key=value', () => {
      assert.throws(() => parseOverride('topology.workers'), configError('topology.workers', 'key=value'));
      assert.throws(() => parseOverride('=4'), configError('=4', 'key=value'));
    });
  });

  describe('validation', () => {
    it('names an unknown key and suggests the closest one', () => {
      assert.throws(() => buildConfig([{ 'topology.worker': 2 }], topology), configError('topology.worker', '"topology.worker"', 'did you mean "topology.workers"'));
      assert.throws(() => checkKey('nimbus.sheduler', 'even'), configError('nimbus.sheduler', 'did you mean "nimbus.scheduler"'));
    });

    it('does not suggest anything for a key far from every known one', () => {
      assert.throws(
        () => checkKey('hstorm.completely.different.thing', 1),
        (e: unknown) => e instanceof ConfigError && !e.message.includes('did you mean'),
      );
    });

    it('names key, value and the allowed values of an enum', () => {
      assert.throws(() => buildConfig([{ 'nimbus.scheduler': 'fair' }], cluster), configError('nimbus.scheduler', '"fair"', '"even"', '"hetero"'));
      assert.throws(() => checkKey('topology.gpu.backend', 'cuda'), configError('topology.gpu.backend', '"cuda"', '"webgpu"', '"cpu"'));
    });

    it('names key, value and the allowed range of a number', () => {
      assert.throws(() => checkKey('topology.workers', 0), configError('topology.workers', ': 0', /allowed: .*1/));
      assert.throws(() => checkKey('topology.workers', 1.5), configError('topology.workers', '1.5', /allowed: .*int/i));
      assert.throws(() => checkKey('nimbus.http.port', 70000), configError('nimbus.http.port', '70000', /allowed: .*65535/));
      assert.throws(() => checkKey('topology.workers', '4'), configError('topology.workers', '"4"', /allowed: an integer ≥ 1/));
    });

    it('refuses an unbounded topology.max.spout.pending while acking is on, with the reason; allows it with acking off', () => {
      assert.throws(() => buildConfig([{ 'topology.max.spout.pending': null }], topology), configError('topology.max.spout.pending', 'null (unbounded)', 'acking', 'Raise the bound'));
      assert.throws(() => buildConfig([{ 'topology.max.spout.pending': null, 'topology.acker.executors': 2 }], topology), configError('topology.max.spout.pending'));
      assert.equal(buildConfig([{ 'topology.max.spout.pending': null, 'topology.acker.executors': 0 }], topology)['topology.max.spout.pending'], null);
      assert.equal(buildConfig([{ 'topology.max.spout.pending': 50_000 }], topology)['topology.max.spout.pending'], 50_000, 'the user can raise the bound');
    });

    it('says "> 0" for a key that must be positive, "≥ 0" for one that may be 0', () => {
      assert.throws(() => checkKey('topology.message.timeout.secs', 0), configError('topology.message.timeout.secs', ': 0', /allowed: a number > 0$/));
      assert.throws(() => checkKey('supervisor.collector.period.secs', -1), configError('supervisor.collector.period.secs', /allowed: a number ≥ 0$/));
      assert.equal(checkKey('supervisor.collector.period.secs', 0), 0);
    });

    for (const k of ['hstorm.scheduler.alpha', 'hstorm.gpu.beta', 'hstorm.split.theta', 'hstorm.split.gamma0']) {
      it(`keeps ${k} in [0, 1]`, () => {
        assert.equal(buildConfig([{ [k]: 0 }], topology)[k], 0);
        assert.equal(buildConfig([{ [k]: 1 }], topology)[k], 1);
        assert.throws(() => buildConfig([{ [k]: -0.1 }], topology), configError(k, '-0.1', /allowed: .*0/));
        assert.throws(() => buildConfig([{ [k]: 1.01 }], topology), configError(k, '1.01', /allowed: .*1/));
      });
    }

    it('names the path inside a structured value', () => {
      const gpu = { id: 'g0', name: 'T4', smCount: 40, clockMHz: 1590, memoryMB: 15360, computeCapability: 'seven' };
      assert.throws(() => checkKey('supervisor.gpus', [gpu]), configError('supervisor.gpus', 'computeCapability'));
      assert.throws(() => checkKey('hstorm.zookeeper.servers', ['localhost']), configError('hstorm.zookeeper.servers', 'host:port'));
    });

    it('rejects topology.gpu.workers above topology.workers, across layers', () => {
      assert.equal(buildConfig([{ 'topology.workers': 4, 'topology.gpu.workers': 4 }], topology)['topology.gpu.workers'], 4);
      assert.throws(
        () => buildConfig([{ 'topology.workers': 2 }, { 'topology.gpu.workers': 3 }], topology),
        configError('topology.gpu.workers', '3', 'topology.workers (2)'),
      );
      assert.throws(() => buildConfig([{ 'topology.gpu.workers': 1 }, { 'topology.workers': 0 }], topology), configError('topology.workers'));
    });
  });

  describe('supervisor.logviewer.port', () => {
    it('may not be one of supervisor.slots.ports (0 and null still allowed)', () => {
      const slots = { 'supervisor.slots.ports': [6700, 6701] };
      assert.equal(buildConfig([slots, { 'supervisor.logviewer.port': 8000 }], cluster)['supervisor.logviewer.port'], 8000);
      assert.equal(buildConfig([slots, { 'supervisor.logviewer.port': 0 }], cluster)['supervisor.logviewer.port'], 0);
      assert.equal(buildConfig([slots, { 'supervisor.logviewer.port': null }], cluster)['supervisor.logviewer.port'], null);
      assert.throws(() => buildConfig([slots, { 'supervisor.logviewer.port': 6701 }], cluster), configError('supervisor.logviewer.port', '6701', 'supervisor.slots.ports (6700, 6701)'));
    });
  });

  describe('load-aware grouping keys', () => {
    it('take Storm\'s locality bounds and reject a lower bound not below the higher one, naming both', () => {
      const c = buildConfig([], topology);
      assert.equal(c['topology.localityaware.higher.bound'], 0.8);
      assert.equal(c['topology.localityaware.lower.bound'], 0.2);
      assert.equal(c['topology.load.update.interval.ms'], 100);
      assert.throws(
        () => buildConfig([{ 'topology.localityaware.lower.bound': 0.9 }], topology),
        configError('topology.localityaware.lower.bound', '0.9', 'topology.localityaware.higher.bound (0.8)'),
      );
      assert.throws(() => buildConfig([{ 'topology.load.update.interval.ms': 0 }], topology), configError('topology.load.update.interval.ms'));
    });
  });

  describe('user keys', () => {
    it('are kept as given in topology config', () => {
      const c = buildConfig([{ 'wordcount.words': ['a', 'b'], 'my.rate': 5 }], topology);
      assert.deepEqual(c['wordcount.words'], ['a', 'b']);
      assert.equal(c['my.rate'], 5);
    });

    it('are rejected in cluster config, named', () => {
      assert.throws(() => buildConfig([{ 'wordcount.words': ['a'] }], cluster), configError('wordcount.words', '"wordcount.words"'));
      assert.throws(() => validateEntries({ 'my.key': 1 }, { allowUserKeys: false, where: 'hstorm.yaml' }), configError('my.key', 'hstorm.yaml'));
    });

    it('may not use a reserved prefix, even in topology config', () => {
      for (const k of ['topology.my.own', 'hstorm.foo', 'nimbus.x', 'supervisor.y', 'worker.z']) {
        assert.throws(() => validateEntries({ [k]: 1 }, topology), configError(k, 'unknown config key'));
      }
    });

    it('pass through topologyKeys, while cluster-only keys do not', () => {
      const c = buildConfig([{ 'my.key': 1, 'topology.workers': 2 }], topology);
      const t = topologyKeys(c);
      assert.equal(t['my.key'], 1);
      assert.equal(t['topology.workers'], 2);
      assert.equal(t['hstorm.gpu.beta'], 0.3);
      assert.equal('nimbus.http.port' in t, false);
      assert.equal('supervisor.slots.ports' in t, false);
    });
  });
});

describe('common/config Storm key names', () => {
  it('refuses Storm keys with the hstorm key to use, wherever user keys are allowed or not', () => {
    assert.throws(
      () => validateEntries({ 'storm.zookeeper.servers': ['zk1'] }, { allowUserKeys: true, where: '-c' }),
      (e: Error) => e.message === 'unknown config key "storm.zookeeper.servers" in -c: "storm.zookeeper.servers" is a Storm key; did you mean "hstorm.zookeeper.servers"? (hstorm.zookeeper.servers: a list of "host:port" entries (Storm\'s storm.zookeeper.port folded in))',
    );
    assert.throws(() => validateEntries({ 'nimbus.seeds': ['a'] }, { allowUserKeys: false, where: 'hstorm.yaml' }), /"nimbus\.seeds" in hstorm\.yaml: .*did you mean "nimbus\.host"\?/);
    assert.throws(() => buildConfig([{ 'storm.local.dir': '/x' }], { allowUserKeys: true }), /did you mean "hstorm\.local\.dir"\?/);
    assert.throws(() => validateEntries({ 'storm.messaging.transport': 'x' }, { allowUserKeys: true }), /Storm key with no hstorm equivalent/);
    // The author's own keys still pass.
    assert.deepEqual(validateEntries({ 'wordcount.sentences': 3 }, { allowUserKeys: true }), { 'wordcount.sentences': 3 });
  });

  it("refuses Storm keys hstorm knows but does not implement as not supported, saying what to do instead (not as unknown)", () => {
    const notSupported = (key: string, instead: RegExp) => (e: unknown): boolean => {
      assert.ok(e instanceof ConfigError, String(e));
      assert.equal(e.key, key);
      assert.match(e.message, new RegExp(`^config key "${key.replace(/\./g, '\\.')}" in topology config is not supported: `));
      assert.doesNotMatch(e.message, /unknown/);
      assert.match(e.message, instead);
      return true;
    };
    const where = { allowUserKeys: true, where: 'topology config' };
    assert.throws(() => validateEntries({ 'topology.auto.task.hooks': ['x.Hook'] }, where), notSupported('topology.auto.task.hooks', /task hooks \(ITaskHook\) are not part of hstorm/));
    assert.throws(() => validateEntries({ 'topology.eventlogger.executors': 1 }, where), notSupported('topology.eventlogger.executors', /event logger is not part of hstorm/));
    assert.throws(() => validateEntries({ 'topology.kryo.register': ['Point'] }, where), notSupported('topology.kryo.register', /registerSerialization\(Class\)/));
    assert.throws(() => validateEntries({ 'topology.tasks': 4 }, where), notSupported('topology.tasks', /setNumTasks/));
    // Whole features by their key families, Storm's daemon keys among them (they would pass as the author's own keys).
    // State values take the tuples' registrations (a Map comes back a Map, a registered class an instance of it).
    assert.throws(() => validateEntries({ 'topology.state.kryo.register': ['x.Point'] }, where), notSupported('topology.state.kryo.register', /msgpackr, not Kryo: register a class with TopologyBuilder\.registerSerialization\(Class\), the same registration as for tuples/));
    assert.throws(() => validateEntries({ 'topology.trident.batch.emit.interval.millis': 500 }, where), notSupported('topology.trident.batch.emit.interval.millis', /Trident is not part of hstorm/));
    assert.throws(() => validateEntries({ 'drpc.servers': ['h'] }, where), notSupported('drpc.servers', /DRPC is not part of hstorm/));
    assert.throws(() => validateEntries({ 'pacemaker.servers': ['h'] }, where), notSupported('pacemaker.servers', /Pacemaker/));
    assert.throws(() => validateEntries({ 'topology.ras.constraints': [] }, where), notSupported('topology.ras.constraints', /setCPULoad/));
    assert.throws(() => validateEntries({ 'topology.blobstore.map': {} }, where), notSupported('topology.blobstore.map', /resources\//));
    assert.throws(() => validateEntries({ 'topology.classpath': 'a.jar' }, where), notSupported('topology.classpath', /bundle/));
  });

  it("takes Storm's state keys, which are hstorm's, and says what to write for Storm's Java values", () => {
    const where = { allowUserKeys: true, where: 'topology config' };
    assert.deepEqual(
      validateEntries({ 'topology.state.provider': 'redis', 'topology.state.provider.config': { url: 'redis://127.0.0.1:6380/2' }, 'topology.state.checkpoint.interval.ms': 500 }, where),
      { 'topology.state.provider': 'redis', 'topology.state.provider.config': { url: 'redis://127.0.0.1:6380/2' }, 'topology.state.checkpoint.interval.ms': 500 },
    );
    const refused = (key: string, value: unknown, hint: RegExp) =>
      assert.throws(() => validateEntries({ [key]: value }, where), (e: unknown) => {
        assert.ok(e instanceof ConfigError, String(e));
        assert.equal(e.key, key);
        assert.match(e.message, new RegExp(`^invalid value for config key "${key.replace(/\./g, '\\.')}" in topology config: `));
        assert.match(e.message, hint);
        return true;
      });
    refused('topology.state.provider', 'org.apache.storm.redis.state.RedisKeyValueStateProvider', /allowed: .*memory.*redis.* Storm state provider class; hstorm names its providers \(write "redis"\)/);
    refused('topology.state.provider', 'org.apache.storm.state.InMemoryKeyValueStateProvider', /\(write "memory"\)/);
    refused('topology.state.provider.config', '{"jedisPoolConfig":{"host":"localhost","port":6379}}', /is a URL here: \{ url: "redis:/);
    refused('topology.state.checkpoint.interval.ms', 50, /allowed: /);
  });

  it("no hstorm key lies under a family of Storm keys refused as not supported", () => {
    const clash = Object.keys(CONFIG_KEYS).filter((k) => Object.keys(UNSUPPORTED_STORM_PREFIXES).some((p) => k.startsWith(p)));
    assert.deepEqual(clash, []);
  });
});
