/**
 * A real browser for UI tests: Debian's `chromium` (scripts/test.sh installs
 * it when missing) driven by playwright-core, headless, with a fresh profile
 * and without the background traffic chromium starts on its own (this
 * machine has no internet; without these flags it retries endlessly).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const CHROMIUM = process.env.HSTORM_CHROMIUM ?? '/usr/bin/chromium';

export interface TestBrowser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** `args`: extra chromium flags (a test mapping a foreign host name to 127.0.0.1 passes `--host-resolver-rules=…`). */
export async function launchChromium(opts: { args?: readonly string[] } = {}): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`no chromium at ${CHROMIUM}: run 'apt-get install chromium' (npm test installs it when run as root), or set HSTORM_CHROMIUM`);
  }
  const profile = await mkdtemp(join(tmpdir(), 'hstorm-chromium-'));
  // A fresh --user-data-dir per run; Playwright takes it as the persistent context's directory.
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    viewport: { width: 1400, height: 1000 },
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...(opts.args ?? []),
    ],
  });
  return {
    context,
    close: async () => {
      await context.close().catch(() => undefined);
      await rm(profile, { recursive: true, force: true });
    },
  };
}
