import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageFramer, ShellProtocolError, frame, parsePidMsg, parseShellMsg, stormContextJson, toJson } from '../../../topology-sdk/internal/multilang-protocol.js';
import { BUNDLED_RESOURCES, resourcesDirFor, sourceTwin } from '../../../topology-sdk/internal/multilang-resources.js';
import type { TopologyDef } from '../../../common/topology-def.js';
import { compileTsModule } from '../../../common/ts-module.js';

describe('multilang protocol (Storm JSON serializer)', () => {
  it('frames a message as JSON and a line "end", and reads multi-line messages back', () => {
    assert.equal(frame({ command: 'next', id: '' }), '{"command":"next","id":""}\nend\n');
    const f = new MessageFramer();
    assert.equal(f.push('{"command":'), null);
    assert.equal(f.push(' "sync"}\r'), null);
    assert.equal(f.push('end'), '{"command":\n "sync"}');
    assert.deepEqual(parseShellMsg('{"command":\n "sync"}'), { command: 'sync' });
  });

  it('bounds a message that never ends', () => {
    const f = new MessageFramer(20);
    f.push('0123456789');
    assert.throws(() => f.push('0123456789abc'), ShellProtocolError);
    assert.equal(f.partial, '');
  });

  it('parses emits as storm.py and storm.js write them', () => {
    const py = parseShellMsg('{"command": "emit", "anchors": ["-123"], "tuple": ["cow", 1], "stream": null}');
    assert.equal(py.command, 'emit');
    const js = parseShellMsg('{"command":"emit","tuple":["a"],"anchors":"5","need_task_ids":false}');
    assert.deepEqual(js, { command: 'emit', tuple: ['a'], anchors: '5', need_task_ids: false });
    assert.deepEqual(parseShellMsg('{"command":"ack","id":"-6955786537413359385"}'), { command: 'ack', id: '-6955786537413359385' });
    assert.equal(parsePidMsg('{"pid": 1234}'), 1234);
  });

  it('names what is wrong with garbage', () => {
    assert.throws(() => parseShellMsg('hello world'), /not JSON: "hello world"/);
    assert.throws(() => parseShellMsg('{"command":"launch"}'), /unknown command "launch" \(allowed: emit, ack, fail, sync, log, error, metrics\)/);
    assert.throws(() => parseShellMsg('{"command":"ack"}'), /id:/);
    assert.throws(() => parseShellMsg('{"command":"emit","tuple":"x"}'), /tuple:/);
    assert.throws(() => parsePidMsg('{"command":"sync"}'), /is not \{"pid": <number>\}/);
  });

  it('turns tuple values JSON has no form for into arrays and strings', () => {
    assert.equal(toJson([new Float32Array([1.5, 2]), 12345678901234567890n, new Uint8Array([7])]), '[[1.5,2],"12345678901234567890",[7]]');
  });

  it("writes the handshake context as Storm's TopologyContext.toJSONString does", () => {
    const def: TopologyDef = {
      config: {},
      components: [
        { id: 'spout', kind: 'spout', parallelism: 1, gpu: null, config: {}, inputs: [], streams: [{ id: 'default', fields: ['sentence'], direct: false }] },
        {
          id: 'split',
          kind: 'bolt',
          parallelism: 2,
          gpu: null,
          config: {},
          inputs: [{ component: 'spout', stream: 'default', grouping: { type: 'shuffle' } }],
          streams: [{ id: 'default', fields: ['word'], direct: false }],
        },
        { id: 'count', kind: 'bolt', parallelism: 1, gpu: null, config: {}, inputs: [{ component: 'split', stream: 'default', grouping: { type: 'fields', fields: ['word'] } }], streams: [] },
        { id: 'total', kind: 'bolt', parallelism: 1, gpu: null, config: {}, inputs: [{ component: 'split', stream: 'default', grouping: { type: 'global' } }], streams: [] },
      ],
    };
    const tasks: Record<string, number[]> = { spout: [1], split: [2, 3], count: [4], total: [5], __acker: [6] };
    const ctx = stormContextJson(def, 'split', 3, (c) => tasks[c] ?? []);
    assert.deepEqual(ctx, {
      'task->component': { '1': 'spout', '2': 'split', '3': 'split', '4': 'count', '5': 'total', '6': '__acker' },
      taskid: 3,
      componentid: 'split',
      streams: ['default'],
      'stream->outputfields': { default: ['word'] },
      'stream->target->grouping': { default: { count: { type: 'FIELDS', fields: ['word'] }, total: { type: 'FIELDS', fields: [] } } },
      'source->stream->grouping': { spout: { default: { type: 'SHUFFLE' } } },
      'source->stream->fields': { spout: { default: ['sentence'] } },
    });
  });
});

describe('multilang resources directory', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'hstorm-res-'))));
  afterEach(() => {
    (globalThis as Record<symbol, unknown>)[BUNDLED_RESOURCES] = undefined;
    rmSync(dir, { recursive: true, force: true });
  });

  it('maps a module compiled to dist/ to its source twin', () => {
    assert.equal(sourceTwin('/p/dist/examples/x'), '/p/examples/x');
    assert.equal(sourceTwin('/p/examples/x'), null);
    mkdirSync(join(dir, 'examples/x/resources'), { recursive: true });
    mkdirSync(join(dir, 'dist/examples/x'), { recursive: true });
    assert.equal(resourcesDirFor(join(dir, 'dist/examples/x')), join(dir, 'examples/x/resources'));
  });

  it('writes the files a bundle registered next to it, with their modes', () => {
    const code = join(dir, 'stormdist', 't-1');
    mkdirSync(code, { recursive: true });
    const registry = new Map([[pathToFileURL(join(code, 'topology.mjs')).href, { 'bolt.py': { mode: 0o755, b64: Buffer.from('print(1)\n').toString('base64') }, 'lib/x.py': { mode: 0o644, b64: '' } }]]);
    (globalThis as Record<symbol, unknown>)[BUNDLED_RESOURCES] = registry;
    const res = resourcesDirFor(code);
    assert.equal(res, join(code, 'resources'));
    assert.equal(readFileSync(join(res, 'bolt.py'), 'utf8'), 'print(1)\n');
    assert.equal(statSync(join(res, 'bolt.py')).mode & 0o777, 0o755);
    writeFileSync(join(res, 'lib/x.py'), 'changed');
    resourcesDirFor(code);
    assert.equal(readFileSync(join(res, 'lib/x.py'), 'utf8'), '', 'a changed file is rewritten from the bundle');
  });

  it('finds the resources of the source of a TypeScript module compiled for a local run into a temporary directory', async () => {
    const src = join(dir, 'mytopo');
    mkdirSync(join(src, 'resources'), { recursive: true });
    writeFileSync(join(src, 'index.ts'), 'export default (): number => 1;\n');
    const compiled = await compileTsModule(join(src, 'index.ts'));
    assert.notEqual(dirname(compiled), src);
    await import(pathToFileURL(compiled).href);
    assert.equal(resourcesDirFor(dirname(compiled)), join(src, 'resources'));
  });

  it('refuses a bundled path that leaves the directory', () => {
    const code = join(dir, 'c');
    mkdirSync(code);
    (globalThis as Record<symbol, unknown>)[BUNDLED_RESOURCES] = new Map([[pathToFileURL(join(code, 'topology.mjs')).href, { '../evil.py': { mode: 0o644, b64: '' } }]]);
    assert.throws(() => resourcesDirFor(code), /points outside/);
  });
});

describe('examples/cupy-matmul config', () => {
  it('names matmul.multilang.backend and its allowed values when the value is wrong', async () => {
    const { matmulTopology } = await import('../../../examples/matmul/matmul-topology.js');
    assert.throws(() => matmulTopology({ 'matmul.multilang.backend': 'cuda' }, 'cupy'), /matmul.multilang.backend must be one of auto, cupy, numpy, python \(got "cuda"\)/);
    assert.equal(matmulTopology({ 'matmul.multilang.backend': 'numpy' }, 'cupy').def.components.find((c) => c.id === 'dealer')?.gpu, null);
  });
});
