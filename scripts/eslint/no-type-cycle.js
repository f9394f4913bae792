/**
 * `hstorm/no-type-cycle`: import-x/no-cycle skips type-only imports (`import
 * type`, or specifiers that are all types; see its rules/no-cycle.js, which
 * has no option to follow them), so two modules that need each other's types
 * pass it. Such a circle still ties them together — neither can be read,
 * moved or tested alone — so this rule follows every static import, export
 * `from` and `import()` (types included, as TypeScript's preProcessFile lists
 * them) and reports an import whose target leads back to the importing file.
 * Only relative specifiers are followed: a package never imports us back.
 */
import ts from 'typescript';
import { readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** How long a file's import list is trusted before its mtime is checked again (an editor's ESLint server lives long). */
const RECHECK_MS = 2000;

/** file → its resolved relative imports. */
const imports = new Map();

function isFile(p) {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** `./x.js` is `./x.ts` until compiled (the sources' NodeNext convention); a folder is its index. */
function resolveSpecifier(from, spec) {
  if (!spec.startsWith('./') && !spec.startsWith('../')) return null;
  const abs = resolve(dirname(from), spec);
  const bare = abs.replace(/\.(m?js|cjs)$/, '');
  for (const c of [`${bare}.ts`, `${bare}.tsx`, `${bare}.mts`, abs, join(abs, 'index.ts')]) if (isFile(c)) return c;
  return null;
}

function importsOf(file) {
  const now = Date.now();
  const cached = imports.get(file);
  if (cached && now - cached.checkedAt < RECHECK_MS) return cached.targets;
  let mtimeMs;
  try {
    mtimeMs = statSync(file).mtimeMs;
  } catch {
    return [];
  }
  if (cached && cached.mtimeMs === mtimeMs) {
    cached.checkedAt = now;
    return cached.targets;
  }
  const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  const targets = [...new Set(info.importedFiles.map((f) => resolveSpecifier(file, f.fileName)).filter((t) => t !== null))];
  imports.set(file, { mtimeMs, checkedAt: now, targets });
  return targets;
}

/** The shortest chain of imports from `start` back to `file` (start first), or null. */
function routeBack(start, file) {
  const via = new Map([[start, null]]);
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const f = queue[i];
    for (const t of importsOf(f)) {
      if (t === file) {
        const route = [];
        for (let p = f; p !== null; p = via.get(p)) route.unshift(p);
        return route;
      }
      if (!via.has(t)) {
        via.set(t, f);
        queue.push(t);
      }
    }
  }
  return null;
}

const rule = {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import cycles, type-only imports included (import-x/no-cycle skips those).' },
    schema: [],
    messages: { cycle: 'Import cycle (type-only imports included): {{route}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    const cwd = context.cwd;
    const check = (node, spec) => {
      if (typeof spec !== 'string') return;
      const target = resolveSpecifier(file, spec);
      if (target === null || target === file) return;
      const route = routeBack(target, file);
      if (route) context.report({ node, messageId: 'cycle', data: { route: [file, ...route, file].map((p) => relative(cwd, p)).join(' → ') } });
    };
    return {
      ImportDeclaration: (n) => check(n, n.source.value),
      ExportNamedDeclaration: (n) => n.source && check(n, n.source.value),
      ExportAllDeclaration: (n) => check(n, n.source.value),
      ImportExpression: (n) => n.source.type === 'Literal' && check(n, n.source.value),
      // `import('./x.js').T` in a type position (typescript-eslint puts the specifier in `argument` or, newer, `source`).
      TSImportType: (n) => check(n, n.source?.value ?? n.argument?.literal?.value),
    };
  },
};

export default { rules: { 'no-type-cycle': rule } };
