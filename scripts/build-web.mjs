// Builds the web UI (ui/web/) into dist/ui/web/: esbuild bundles the
// Preact app with Preact, vega-embed, Vega and Vega-Lite into one script, so
// nimbus serves everything the page needs itself (no internet). Type-checked
// separately by `tsc -p ui/web/tsconfig.json` (DOM types), run in `npm run lint`.
import { build } from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'ui', 'web');
const out = join(root, 'dist', 'ui', 'web');
await mkdir(out, { recursive: true });
await build({
  entryPoints: [join(src, 'main.tsx')],
  outfile: join(out, 'app.js'),
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: 'es2022',
  minify: true,
  sourcemap: false,
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: join(src, 'tsconfig.json'),
  logLevel: 'warning',
  legalComments: 'linked',
});
for (const f of ['index.html', 'app.css']) await copyFile(join(src, f), join(out, f));
