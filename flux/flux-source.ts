/**
 * One Flux file as read: its variables filled, parsed with the yaml
 * library's document API (which keeps every node's offset), and able to say
 * where any key or value of it is written — line and column in the file as
 * the user sees it.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node, type Pair } from 'yaml';
import { FluxSyntaxError } from './errors.js';
import type { FluxPosition } from './runtime/plan.js';
import { substitute, type ColumnMap, type Variables } from './substitution.js';

/** A path into the YAML: map keys and list indexes. */
export type YamlPath = readonly (string | number)[];

/** `bolts[1].grouping.type` */
export function pathText(path: YamlPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('') || '(top level)';
}

/** How a file is named in messages: relative to the working directory when it lies below it. */
export function displayPath(abs: string): string {
  const rel = relative(process.cwd(), abs);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : abs;
}

export class FluxSource {
  private constructor(
    /** Absolute path. */
    readonly path: string,
    /** As shown in messages. */
    readonly file: string,
    readonly doc: Document.Parsed,
    private readonly lines: LineCounter,
    private readonly columns: ColumnMap,
  ) {}

  static read(path: string, vars: Variables): FluxSource {
    const abs = resolve(path);
    const file = displayPath(abs);
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch (err) {
      throw new FluxSyntaxError(`cannot read Flux file ${file}: ${(err as Error).message}`, null, file);
    }
    const filled = substitute(text, vars, file);
    const lines = new LineCounter();
    const doc = parseDocument(filled.text, { lineCounter: lines, prettyErrors: false });
    const src = new FluxSource(abs, file, doc, lines, filled.columns);
    const err = doc.errors[0];
    if (err) {
      throw new FluxSyntaxError(`not valid YAML: ${err.message.split('\n')[0]}`, src.at(err.pos[0]), file);
    }
    if (doc.contents !== null && !isMap(doc.contents)) {
      throw new FluxSyntaxError('a Flux file is a map of name, config, components, spouts, bolts, streams and includes', src.at(doc.contents.range?.[0] ?? 0), file);
    }
    return src;
  }

  /** The file as plain data. */
  data(): unknown {
    return this.doc.toJS() ?? {};
  }

  /** Position of a character offset of the parsed text. */
  at(offset: number): FluxPosition {
    const { line, col } = this.lines.linePos(offset);
    return { file: this.file, line, column: this.columns.original(line, col) };
  }

  /**
   * Where `path` is written: the value's node, or with `key` the key itself
   * (for "unknown key"). A path that goes further than the file (a missing
   * key) points at the deepest map or list that is there.
   */
  position(path: YamlPath, opts: { key?: boolean } = {}): FluxPosition {
    let node: Node | null = this.doc.contents;
    let offset = node?.range?.[0] ?? 0;
    for (let i = 0; i < path.length && node; i++) {
      const seg = path[i]!;
      let next: Node | null = null;
      if (isMap(node)) {
        const pair = (node.items as Pair<unknown, unknown>[]).find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        if (!pair) break;
        if (opts.key && i === path.length - 1 && isScalar(pair.key) && pair.key.range) return this.at(pair.key.range[0]);
        next = (pair.value as Node | null) ?? null;
        if (!next && isScalar(pair.key) && pair.key.range) offset = pair.key.range[0];
      } else if (isSeq(node) && typeof seg === 'number') {
        next = (node.items[seg] as Node | undefined) ?? null;
      }
      if (!next) break;
      node = next;
      if (node.range) offset = node.range[0];
    }
    return this.at(offset);
  }
}
