/**
 * The web UI at `/` of nimbus's HTTP server: one page (index.html) and its
 * script and style, built from ui/web/ into dist/ui/web/ by
 * `npm run build` (esbuild bundles Preact and vega-embed in, so the page
 * needs nothing from the internet). The page reads Storm's UI REST API.
 *
 * Its files go out with headers that keep other sites out of it: no framing
 * (X-Frame-Options and CSP frame-ancestors: no clickjacking of its buttons),
 * and a Content-Security-Policy that lets it run only its own script — no
 * inline script, no eval (the chart's expressions run in Vega's interpreter,
 * split-chart.tsx), no request to anywhere but nimbus. Inline styles stay
 * allowed: Vega's tooltip and embed styles are inserted as <style> elements.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

/** Where the built assets are: beside this module in dist/. */
export const WEB_DIR = fileURLToPath(new URL('./web/', import.meta.url));

const UI_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

const ASSETS: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/ui/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/ui/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

export function registerWebUi(app: FastifyInstance, dir = WEB_DIR): void {
  const cache = new Map<string, Buffer>();
  for (const [path, asset] of Object.entries(ASSETS)) {
    app.get(path, async (_req, reply) => {
      let body = cache.get(asset.file);
      if (!body) {
        try {
          body = await readFile(`${dir}${asset.file}`);
        } catch {
          return reply.status(503).headers(UI_SECURITY_HEADERS).header('content-type', 'text/plain; charset=utf-8').send(`the web UI is not built (${dir}${asset.file} missing): run \`npm run build\``);
        }
        cache.set(asset.file, body);
      }
      return reply.headers(UI_SECURITY_HEADERS).header('content-type', asset.type).header('cache-control', 'no-cache').send(body);
    });
  }
}
