/**
 * Cross-site requests through a real browser (Debian's chromium) against a
 * real nimbus and supervisor with no secret set (the default): a page served
 * from another origin tries everything a page can to deactivate and kill a
 * running topology — body-less and text/plain no-cors POSTs, a JSON POST
 * (which the browser must preflight), a form post, against both Storm's UI
 * routes and hstorm's own — and a page under a foreign host name mapped to
 * nimbus's address (DNS rebinding) tries same-origin JSON POSTs. Every one is
 * refused and the topology stays ACTIVE. The page also cannot frame nimbus's
 * UI (X-Frame-Options, CSP frame-ancestors). Nimbus's own web page and the
 * CLI still deactivate, activate and kill.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, type TestBrowser } from '../helpers/browser.js';
import { PACKAGE_ROOT, ProcessCluster, waitFor } from '../helpers/cluster-processes.js';
import { freePort } from '../helpers/ports.js';

const PROBE = join(PACKAGE_ROOT, 'dist', 'test', 'fixtures', 'conf-probe-topology.js');
/** A name of nobody's that the browser resolves to 127.0.0.1, as a rebinding attacker's DNS would. */
const REBOUND = 'rebound.hstorm.test';

describe('cross-site requests refused by nimbus, with no secret set (chromium, real nimbus and supervisor)', function () {
  this.timeout(240_000);
  let cluster: ProcessCluster;
  let ui: TestBrowser | null = null;
  let evil: Server | null = null;
  let evilOrigin = '';
  let nimbus = '';
  let id = '';

  before(async function () {
    this.timeout(180_000);
    cluster = await ProcessCluster.start({ supervisors: [{ id: 'sup-x', slots: 2 }] });
    nimbus = `http://127.0.0.1:${cluster.nimbusPort}`;
    const probeDir = join(cluster.dir, 'probe');
    mkdirSync(probeDir);
    id = (await cluster.submit(PROBE, 'target', { 'probe.dir': probeDir })).id;
    await waitFor('the topology running', async () => (await cluster.describe('target')).workers.some((w) => w.metrics), 120_000, 250);
    // Another site: another host name (localhost, not 127.0.0.1) and another port.
    const port = await freePort();
    evilOrigin = `http://localhost:${port}`;
    evil = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>elsewhere</title>'));
    await new Promise<void>((r) => evil!.listen(port, '127.0.0.1', r));
    ui = await launchChromium({ args: [`--host-resolver-rules=MAP ${REBOUND} 127.0.0.1`] });
  });

  after(async function () {
    this.timeout(90_000);
    await ui?.close();
    await new Promise((r) => (evil ? evil.close(r) : r(undefined)));
    await cluster?.stop();
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && cluster) process.stderr.write(`${cluster.logs(30)}\n`);
  });

  const status = async (): Promise<string> => ((await (await fetch(`${nimbus}/api/v1/topology/${id}`)).json()) as { status: string }).status;
  const newPage = async (): Promise<Page> => {
    const page = await ui!.context.newPage();
    page.on('dialog', (d) => void d.accept());
    return page;
  };

  it('refuses every deactivate and kill a page of another site sends, and lets it not frame the UI', async () => {
    assert.equal(await status(), 'ACTIVE');
    const page = await newPage();
    try {
      await page.goto(`${evilOrigin}/`);
      const targets = [
        `${nimbus}/api/v1/topology/${id}/deactivate`,
        `${nimbus}/api/v1/topology/${id}/kill/0`,
        `${nimbus}/api/v1/topologies/target/deactivate`,
        `${nimbus}/api/v1/topologies/target/kill`,
      ];
      const outcomes = await page.evaluate(async (urls) => {
        const out: string[] = [];
        const attempt = async (what: string, p: () => Promise<Response>) => {
          try {
            const r = await p();
            out.push(`${what}: answered (${r.type})`);
          } catch (e) {
            out.push(`${what}: failed (${(e as Error).message})`);
          }
        };
        for (const url of urls) {
          // What a page may send without asking: no body, or a "simple" content type, in no-cors mode.
          await attempt(`no body ${url}`, () => fetch(url, { method: 'POST', mode: 'no-cors' }));
          await attempt(`text/plain ${url}`, () => fetch(url, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"waitSecs":0}' }));
          await attempt(`form ${url}`, () => fetch(url, { method: 'POST', mode: 'no-cors', body: new URLSearchParams({ waitSecs: '0' }) }));
          // JSON: the browser must ask first (a preflight), and nimbus grants none.
          await attempt(`json ${url}`, () => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }));
        }
        return out;
      }, targets);
      // A plain HTML form, as a page without script would post it; and nimbus's page in a frame.
      const forms = targets.map((t, i) => `<iframe name="f${i}"></iframe><form method="POST" action="${t}" target="f${i}" enctype="text/plain"><input name="waitSecs" value="0"></form>`);
      await page.setContent(`<!doctype html>${forms.join('')}<iframe name="framed" src="${nimbus}/"></iframe>`);
      for (const [i, url] of targets.entries()) {
        const answered = page.waitForResponse((r) => r.url() === url && r.request().method() === 'POST', { timeout: 20_000 });
        await page.evaluate(`document.forms[${i}].submit()`);
        outcomes.push(`html form ${url}: answered ${(await answered).status()}`);
      }
      assert.equal(outcomes.length, targets.length * 5, outcomes.join('\n'));
      assert.equal(await status(), 'ACTIVE', `the topology is no longer ACTIVE after:\n${outcomes.join('\n')}`);
      assert.ok((await cluster.list()).some((t) => t.name === 'target' && t.status === 'active'));

      // Nimbus's page framed by another site: the browser refuses to show it (an error page in its place).
      const framed = await waitFor('the framed page to settle', () => {
        const f = page.frame({ name: 'framed' });
        return f && f.url() !== '' && f.url() !== 'about:blank' ? f : null;
      }, 20_000, 100);
      await framed.waitForLoadState('load', { timeout: 20_000 }).catch(() => undefined);
      assert.ok(!framed.url().startsWith(nimbus), `nimbus's page was shown in another site's frame (${framed.url()})`);
    } finally {
      await page.close();
    }
  });

  it('refuses same-origin requests under a foreign host name (DNS rebinding)', async () => {
    const page = await newPage();
    try {
      // The attacker's page, its name now resolving to 127.0.0.1: whatever it loads comes from nimbus, as its own origin.
      await page.goto(`http://${REBOUND}:${cluster.nimbusPort}/ui/app.css`);
      const answers = await page.evaluate(
        async ([topology]) => {
          const post = async (path: string) => {
            const r = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
            return { path, status: r.status, code: ((await r.json().catch(() => null)) as { error?: { code?: string } } | null)?.error?.code ?? null };
          };
          return [await post(`/api/v1/topology/${topology}/deactivate`), await post(`/api/v1/topology/${topology}/kill/0`), await post('/api/v1/topologies/target/kill')];
        },
        [id],
      );
      for (const a of answers) assert.deepEqual({ status: a.status, code: a.code }, { status: 403, code: 'HSTORM_ERR_NIMBUS_CROSS_SITE' }, a.path);
      assert.equal(await status(), 'ACTIVE');
    } finally {
      await page.close();
    }
  });

  it("still takes nimbus's own page's actions and the CLI's", async () => {
    const page = await newPage();
    try {
      await page.goto(`${nimbus}/#/topology/${encodeURIComponent(id)}`);
      await page.locator('[data-testid=topology-status]', { hasText: /^ACTIVE$/ }).waitFor({ timeout: 30_000 });
      await page.locator('[data-testid=deactivate]').click();
      await page.locator('[data-testid=topology-status]', { hasText: 'INACTIVE' }).waitFor({ timeout: 30_000 });
      await page.locator('[data-testid=activate]').click();
      await page.locator('[data-testid=topology-status]', { hasText: /^ACTIVE$/ }).waitFor({ timeout: 30_000 });
    } finally {
      await page.close();
    }
    for (const [verb, after] of [['deactivate', 'INACTIVE'], ['activate', 'ACTIVE']] as const) {
      const r = await cluster.cli([verb, 'target']);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(await status(), after);
    }
    const killed = await cluster.cli(['kill', 'target', '--wait', '0']);
    assert.equal(killed.code, 0, killed.stderr);
    await waitFor('the topology gone', async () => (await cluster.list()).length === 0, 60_000, 250);
  });
});
