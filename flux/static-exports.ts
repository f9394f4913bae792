/**
 * What a dry run can tell of the modules a Flux file names without running
 * any of them: whether each className's export is there. esbuild reads the
 * modules (and what they import from files) and lists the exports of each as
 * a bundle would have them — parsing only, no module's code runs. Where that
 * list cannot be complete — a CommonJS module (its exports are whatever its
 * code assigns) or one that re-exports a package with `export *` — nothing is
 * claimed and the export is checked when the topology is built.
 */
import type { Metafile } from 'esbuild';
import { TopologyLoadError } from '../common/errors.js';
import { FluxClassError } from './errors.js';
import type { ClassRef, FluxPlan, FluxPosition, ObjectPlan } from './runtime/plan.js';

/** A module's exports, or null when they cannot be known without running it. */
type Exports = readonly string[] | null;

async function exportsOf(files: readonly string[], source: string): Promise<Map<string, Exports>> {
  const out = new Map<string, Exports>();
  if (files.length === 0) return out;
  // esbuild is loaded only here: a worker never needs it.
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [...files],
    bundle: true,
    // Packages are not read: `hstorm` is the runtime's own, and what a package exports is its business.
    packages: 'external',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    write: false,
    metafile: true,
    absWorkingDir: '/',
    outdir: '/hstorm-dry-run', // never written (write: false); esbuild wants one for several entries
    outbase: '/',
    logLevel: 'silent',
  }).catch((err: unknown) => {
    throw new TopologyLoadError(`cannot read the modules the Flux file ${source} names: ${(err as Error).message}`, source, { cause: err });
  });
  const meta: Metafile = result.metafile;
  const texts = new Map(result.outputFiles.map((f) => [f.path, f.text]));
  // With absWorkingDir '/', the metafile names files by their absolute path less the leading '/'.
  const byEntry = new Map(Object.entries(meta.outputs).flatMap(([path, o]) => (o.entryPoint ? [[o.entryPoint, { exports: o.exports, text: texts.get(`/${path}`) ?? '' }] as const] : [])));
  for (const file of files) {
    const o = byEntry.get(file.slice(1));
    // A dynamic re-export (`export * from 'pkg'`, or from a CommonJS file) leaves names only the running module knows.
    out.set(file, o && meta.inputs[file.slice(1)]?.format === 'esm' && !o.text.includes('__reExport(') ? o.exports : null);
  }
  return out;
}

function checkRef(ref: ClassRef, modules: readonly string[], exports: ReadonlyMap<string, Exports>, at: FluxPosition, key: string): void {
  if (ref.kind !== 'module') return;
  const known = exports.get(modules[ref.module]!);
  if (!known || known.includes(ref.export)) return;
  // The runtime's message for the same mistake (instantiate.ts), found before anything runs.
  throw new FluxClassError(`"${ref.spec}": the module has no export "${ref.export}"; it exports ${known.length ? known.map((e) => `"${e}"`).join(', ') : 'nothing'}`, at, key, ref.spec);
}

/** Checks, without running any module, that each className's export is in its module (as far as can be known so). */
export async function checkExportsStatically(plan: FluxPlan, modules: readonly string[]): Promise<void> {
  const files = modules.filter((m) => m.startsWith('/'));
  const exports = await exportsOf(files, plan.source);
  const objects: ObjectPlan[] = [...plan.components, ...plan.spouts, ...plan.bolts, ...plan.streams.flatMap((s) => (s.grouping.custom ? [s.grouping.custom] : []))];
  for (const o of objects) checkRef(o.className, modules, exports, o.at, `${o.key}.className`);
  for (const s of plan.serializations) {
    checkRef(s.className, modules, exports, s.at, s.key);
    if (s.serializer) checkRef(s.serializer, modules, exports, s.at, s.key);
  }
}
