/**
 * Every error code in the source has a row in docs/errors.md and every row is
 * a code the source still uses (fastify keeps lib/errors.js and its docs in
 * step the same way).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE_DIRS = ['common', 'topology-sdk', 'connectors', 'worker', 'flux', 'nimbus', 'supervisor', 'cli', 'examples', 'bench'];
const CODE = /HSTORM_ERR_[A-Z0-9_]*/g;

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'common'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the repository root above the test');
    dir = up;
  }
  return dir;
}

function sourceFiles(root: string): string[] {
  const out: string[] = [];
  for (const d of SOURCE_DIRS) {
    const abs = join(root, d);
    if (!existsSync(abs)) continue;
    for (const f of readdirSync(abs, { recursive: true, encoding: 'utf8' })) {
      if (/\.(ts|js|mjs)$/.test(f) && !f.endsWith('.d.ts')) out.push(join(abs, f));
    }
  }
  return out;
}

/** ClusterStateError builds `HSTORM_ERR_STATE_<KIND>` from the kinds of its union type. */
function clusterStateKinds(root: string): string[] {
  const text = readFileSync(join(root, 'common/cluster-state.ts'), 'utf8');
  const m = /export type ClusterStateErrorKind\s*=([^;]*);/.exec(text);
  assert.ok(m, 'common/cluster-state.ts no longer declares ClusterStateErrorKind: update this test');
  return [...m[1]!.replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '').matchAll(/'([A-Z0-9_]+)'/g)].map((k) => k[1]!);
}

/** Codes built at run time from a prefix, with the suffixes they can take. */
function templates(root: string): Map<string, string[]> {
  return new Map([['HSTORM_ERR_STATE_', clusterStateKinds(root)]]);
}

/** code → files that mention it. */
function codesInSource(root: string): Map<string, Set<string>> {
  const prefixes = templates(root);
  const codes = new Map<string, Set<string>>();
  const add = (code: string, file: string): void => {
    if (!codes.has(code)) codes.set(code, new Set());
    codes.get(code)!.add(relative(root, file));
  };
  for (const file of sourceFiles(root)) {
    for (const [code] of readFileSync(file, 'utf8').matchAll(CODE)) {
      if (code === 'HSTORM_ERR_') continue; // the pattern itself, in comments (HSTORM_ERR_<AREA>_<WHAT>)
      if (code.endsWith('_')) {
        const suffixes = prefixes.get(code);
        assert.ok(suffixes, `${relative(root, file)} builds codes from the prefix ${code}: teach test/unit/common/error-codes.test.ts its suffixes`);
        for (const s of suffixes) add(code + s, file);
      } else {
        add(code, file);
      }
    }
  }
  return codes;
}

/** Codes in the first column of the tables of docs/errors.md. */
function codesInDocs(root: string): string[] {
  const rows: string[] = [];
  for (const line of readFileSync(join(root, 'docs/errors.md'), 'utf8').split('\n')) {
    const m = /^\|\s*`(HSTORM_ERR_[A-Z0-9_]+)`\s*\|/.exec(line);
    if (m) rows.push(m[1]!);
  }
  return rows;
}

describe('error codes and docs/errors.md', () => {
  const root = repoRoot();
  const source = codesInSource(root);
  const docs = codesInDocs(root);

  it('finds the codes (sanity)', () => {
    assert.ok(source.has('HSTORM_ERR_CONFIG_INVALID'));
    assert.ok(source.has('HSTORM_ERR_STATE_NO_NODE'), 'codes built by ClusterStateError are expanded');
    assert.ok(docs.length > 10);
  });

  it('documents every code the source uses', () => {
    const missing = [...source.keys()].filter((c) => !docs.includes(c)).map((c) => `${c} (${[...source.get(c)!].join(', ')})`);
    assert.deepEqual(missing, [], `add a row to docs/errors.md for: ${missing.join('; ')}`);
  });

  it('documents no code the source no longer uses', () => {
    const stale = docs.filter((c) => !source.has(c));
    assert.deepEqual(stale, [], `remove from docs/errors.md (or use again): ${stale.join(', ')}`);
  });

  it('has one row per code', () => {
    const dups = docs.filter((c, i) => docs.indexOf(c) !== i);
    assert.deepEqual(dups, []);
  });

  it('gives every row a meaning and a fix', () => {
    for (const line of readFileSync(join(root, 'docs/errors.md'), 'utf8').split('\n')) {
      if (!/^\|\s*`HSTORM_ERR_/.test(line)) continue;
      const cells = line.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim());
      assert.equal(cells.length, 3, `expected | code | meaning | fix | in: ${line}`);
      assert.ok(cells[1]!.length > 10 && cells[2]!.length > 10, `empty meaning or fix in: ${line}`);
    }
  });
});
