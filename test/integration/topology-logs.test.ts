/**
 * `hstorm logs` on a real cluster (ZooKeeper, nimbus, two supervisors and
 * their workers as processes) with nimbus's secret set: the bolt's known line
 * comes back through the supervisors' log servers, prefixed with host:port and
 * component[task]; the component filter keeps the other component's lines
 * out; `--follow` prints a line written after it started and stops on Ctrl-C;
 * a request to a log server without the secret is refused; an unknown
 * component is named with the known ones; and a supervisor that does not
 * answer is named while the other's worker is still printed.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { stringify as toYaml } from 'yaml';
import { PACKAGE_ROOT, ProcessCluster, waitFor } from '../helpers/cluster-processes.js';

const FIXTURE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'logging-topology.js');
const BIN = join(PACKAGE_ROOT, 'bin', 'hstorm.js');
const SECRET = 'logs-test-secret-0123456789abcdef';
const BOLT_LINE = 'logs-fixture bolt saw tick';
const SPOUT_LINE = 'logs-fixture spout opened';

describe('hstorm logs (cluster processes)', function () {
  this.timeout(120_000);
  let cluster: ProcessCluster;
  const writeClientConfig = (): void =>
    writeFileSync(cluster.clientConfig, toYaml({ 'nimbus.host': '127.0.0.1', 'nimbus.http.port': cluster.nimbusPort, 'nimbus.auth.secret': SECRET }));

  before(async function () {
    this.timeout(120_000);
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'logs-a', slots: 1 }, { id: 'logs-b', slots: 1 }], config: { 'nimbus.auth.secret': SECRET } });
    writeClientConfig();
    await cluster.submit(FIXTURE, 'logs', {});
  });

  after(async function () {
    this.timeout(90_000);
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs()}\n`);
  });

  it("prints the bolt's line through the supervisors, and filters by component", async () => {
    let out = '';
    await waitFor(
      "the bolt's line in hstorm logs",
      async () => {
        const r = await cluster.cli(['logs', 'logs', 'shout']);
        out = r.stdout;
        return r.code === 0 && out.includes(BOLT_LINE);
      },
      60_000,
      1000,
    );
    const boltLine = out.split('\n').find((l) => l.includes(BOLT_LINE))!;
    assert.match(boltLine, /^127\.0\.0\.1:\d+ shout\[\d+\] \S+ INFO logs-fixture bolt saw tick \{"tick":\d+\}$/);
    assert.ok(!out.includes(SPOUT_LINE), "the spout's line leaked into the bolt's logs");

    const spout = await cluster.cli(['logs', 'logs', 'ticks']);
    assert.equal(spout.code, 0, spout.stderr);
    assert.match(spout.stdout, /^127\.0\.0\.1:\d+ ticks\[\d+\] \S+ INFO logs-fixture spout opened$/m);
    assert.ok(!spout.stdout.includes(BOLT_LINE), "the bolt's line leaked into the spout's logs");

    const tail = await cluster.cli(['logs', 'logs', 'shout', '--lines', '2', '--json']);
    assert.equal(tail.code, 0, tail.stderr);
    const records = tail.stdout.trim().split('\n').map((l) => JSON.parse(l) as { component: string | null; port: number; line: string });
    assert.equal(records.length, 2);
    for (const r of records) assert.ok(r.component === 'shout' || r.component === null, JSON.stringify(r));
  });

  it('names an unknown component with the known ones, and an unknown topology', async () => {
    const r = await cluster.cli(['logs', 'logs', 'shuot', '--json']);
    assert.equal(r.code, 2);
    const err = JSON.parse(r.stdout) as { code: string; message: string };
    assert.equal(err.code, 'HSTORM_ERR_CLI_LOGS_UNKNOWN_COMPONENT');
    assert.match(err.message, /no component "shuot"; its components: .*shout, ticks/);
    const t = await cluster.cli(['logs', 'nosuch', '--json']);
    assert.equal(t.code, 2);
    assert.equal((JSON.parse(t.stdout) as { code: string }).code, 'HSTORM_ERR_NIMBUS_TOPOLOGY_NOT_FOUND');
  });

  it('--follow prints a line written after it started, until Ctrl-C', async () => {
    const child = spawn(process.execPath, [BIN, 'logs', 'logs', 'shout', '--follow', '--lines', '1', '--config', cluster.clientConfig], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<number | null>((res) => child.once('close', (code) => res(code)));
    try {
      const ticks = (): number[] => [...out.matchAll(/saw tick \{"tick":(\d+)\}/g)].map((m) => Number(m[1]));
      await waitFor('the first line', () => ticks().length > 0, 30_000, 100);
      const first = ticks()[0]!;
      await waitFor(`a tick after ${first}`, () => ticks().some((t) => t > first), 30_000, 100);
    } catch (e) {
      child.kill('SIGKILL');
      throw new Error(`${(e as Error).message}\nstdout: ${out}\nstderr: ${err}`);
    }
    child.kill('SIGINT');
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const code = await exited;
    clearTimeout(timer);
    assert.equal(code, 0, `hstorm logs --follow exited ${code} on SIGINT; stderr: ${err}`);
  });

  it("refuses a log server request without nimbus's secret", async () => {
    const sups = await cluster.supervisorList();
    const detail = await cluster.describe('logs');
    const w = detail.workers[0]!;
    const ls = sups.find((s) => s.id === w.supervisor)?.logServer;
    assert.ok(ls, `supervisor ${w.supervisor} advertises no log server: ${JSON.stringify(sups)}`);
    const url = `http://${ls.host}:${ls.port}/api/v1/logs/${detail.id}/${w.port}?lines=5`;
    const bare = await fetch(url);
    assert.equal(bare.status, 401);
    const body = (await bare.json()) as { error: { code: string }; text?: string };
    assert.equal(body.error.code, 'HSTORM_ERR_SUPERVISOR_LOG_UNAUTHENTICATED');
    assert.equal(body.text, undefined);
    const authed = await fetch(url, { headers: { authorization: `Bearer ${SECRET}` } });
    assert.equal(authed.status, 200);
    // Without the secret in its config, the CLI is refused by every supervisor.
    writeFileSync(cluster.clientConfig, toYaml({ 'nimbus.host': '127.0.0.1', 'nimbus.http.port': cluster.nimbusPort }));
    const r = await cluster.cli(['logs', 'logs', '--json']).finally(() => writeClientConfig());
    assert.equal(r.code, 2);
    assert.equal((JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { code: string }).code, 'HSTORM_ERR_SUPERVISOR_LOG_UNAUTHENTICATED');
  });

  it('names a supervisor that does not answer and prints the other workers', async () => {
    const detail = await cluster.describe('logs');
    assert.deepEqual(detail.workers.map((w) => w.supervisor).sort(), ['logs-a', 'logs-b']);
    await cluster.kill9SupervisorOnly('logs-b');
    const r = await cluster.cli(['logs', 'logs']);
    assert.equal(r.code, 2, `stdout: ${r.stdout}\nstderr: ${r.stderr}`);
    assert.match(r.stderr, /supervisor logs-b .*; skipping worker 127\.0\.0\.1:\d+ \[HSTORM_ERR_CLI_LOGS_(UNREACHABLE|NO_LOG_SERVER)\]/);
    const portA = detail.workers.find((w) => w.supervisor === 'logs-a')!.port;
    assert.match(r.stdout, new RegExp(`^127\\.0\\.0\\.1:${portA} `, 'm'));
  });
});
