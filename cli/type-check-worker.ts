/**
 * The worker thread behind cli/type-check.ts: finds a TypeScript, builds a
 * program of the one module (and what it imports) and posts its diagnostics.
 * Loaded with `new Worker(url)`, never imported for its values.
 */
import { createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type * as TS from 'typescript';

export interface TypeCheckRequest {
  modulePath: string;
  packageRoot: string;
  /** Specifier → .d.ts file of this package. */
  sdkTypes: Record<string, string>;
}

export interface TypeDiagnostic {
  /** Relative to the working directory when below it. */
  file: string | null;
  line: number;
  column: number;
  code: number;
  message: string;
}

export interface TypeCheckResult {
  checked: boolean;
  /** Why the check was skipped, or which TypeScript ran. */
  note?: string;
  version?: string;
  diagnostics: TypeDiagnostic[];
}

/** The user's TypeScript (from the module's directory), else the one beside hstorm; null when neither exists. */
function findTypeScript(modulePath: string, packageRoot: string): string | null {
  for (const from of [modulePath, resolve(packageRoot, 'package.json')]) {
    try {
      return createRequire(from).resolve('typescript');
    } catch {
      // not installed there
    }
  }
  return null;
}

/** Node's types for a module without a tsconfig: the project's @types/node, else hstorm's, else none (then `node:` imports are errors, as tsc would say). */
function nodeTypes(req: TypeCheckRequest): TS.CompilerOptions {
  for (const from of [req.modulePath, resolve(req.packageRoot, 'package.json')]) {
    try {
      const pkg = createRequire(from).resolve('@types/node/package.json');
      return { types: ['node'], typeRoots: [dirname(dirname(pkg))] };
    } catch {
      // not installed there
    }
  }
  return { types: [] };
}

async function check(req: TypeCheckRequest): Promise<TypeCheckResult> {
  const found = findTypeScript(req.modulePath, req.packageRoot);
  if (!found) {
    return { checked: false, note: 'type check skipped: no TypeScript found beside the module (install it in your project, `npm i -D typescript`, to have hstorm local report type errors)', diagnostics: [] };
  }
  const imported = (await import(pathToFileURL(found).href)) as { default?: typeof TS } & typeof TS;
  const ts = imported.default ?? imported;
  const configFile = ts.findConfigFile(dirname(req.modulePath), ts.sys.fileExists);
  let options: TS.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    ...nodeTypes(req),
  };
  if (configFile) {
    const parsed = ts.getParsedCommandLineOfConfigFile(configFile, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (parsed) options = parsed.options;
  }
  const paths: Record<string, string[]> = { ...(options.paths ?? {}) };
  for (const [spec, file] of Object.entries(req.sdkTypes)) paths[spec] = [file];
  options = { ...options, paths, noEmit: true, declaration: false, emitDeclarationOnly: false, composite: false, incremental: false };
  const program = ts.createProgram([req.modulePath], options);
  const cwd = process.cwd();
  const diagnostics = ts.getPreEmitDiagnostics(program).map((d): TypeDiagnostic => {
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!d.file || d.start === undefined) return { file: null, line: 0, column: 0, code: d.code, message };
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    const rel = relative(cwd, d.file.fileName);
    return { file: rel.startsWith('..') ? d.file.fileName : rel, line: line + 1, column: character + 1, code: d.code, message };
  });
  return { checked: true, version: ts.version, note: `TypeScript ${ts.version} from ${found}`, diagnostics };
}

const req = workerData as TypeCheckRequest;
check(req).then(
  (r) => parentPort?.postMessage(r),
  (err: unknown) => parentPort?.postMessage({ checked: false, note: `type check skipped: ${(err as Error)?.message ?? String(err)}`, diagnostics: [] } satisfies TypeCheckResult),
);
