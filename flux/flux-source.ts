/**
 * One Flux file as read: parsed with the yaml library's document API (which
 * keeps every node's offset), its variables filled into the parsed values
 * (substitution.ts), and able to say where any key or value of it is written
 * — line and column in the file as the user sees it — and how a value was
 * written when it came from a variable, so that messages show the `${…}`
 * and not what it held.
 *
 * A file read as someone else's include (`included`) is not trusted to be a
 * Flux file at all — `includes: [{ file: /etc/shadow }]` is the attack — so
 * what goes wrong reading it is said without quoting it: no parser message
 * (which can quote an alias or tag name), only where.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type Node, type Pair, type Scalar } from 'yaml';
import { aliasProblemText, documentToJs } from '../common/yaml-aliases.js';
import { FluxSyntaxError } from './errors.js';
import type { FluxPosition } from './runtime/plan.js';
import { fillScalar, markVariables, type ColumnMap, type Variables } from './substitution.js';

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

export interface ReadOptions {
  /** Read for another file's `includes`: errors say where, never what the file holds. */
  included?: boolean;
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
    /** Scalars filled from variables → the scalar as written, `${…}` and all. */
    private readonly filled: ReadonlyMap<Node, string>,
  ) {}

  static read(path: string, vars: Variables, opts: ReadOptions = {}): FluxSource {
    const abs = resolve(path);
    const file = displayPath(abs);
    let text: string;
    try {
      text = readFileSync(abs, 'utf8');
    } catch (err) {
      throw new FluxSyntaxError(`cannot read Flux file ${file}: ${(err as Error).message}`, null, file);
    }
    const marked = markVariables(text, file);
    const lines = new LineCounter();
    const doc = parseDocument(marked.text, { lineCounter: lines, prettyErrors: false });
    const filled = new Map<Node, string>();
    const src = new FluxSource(abs, file, doc, lines, marked.columns, filled);
    const err = doc.errors[0];
    if (err) {
      throw new FluxSyntaxError(opts.included ? 'not valid YAML (an included file: its parser message is not shown)' : `not valid YAML: ${err.message.split('\n')[0]}`, src.at(err.pos[0]), file);
    }
    if (doc.contents !== null && !isMap(doc.contents)) {
      throw new FluxSyntaxError('a Flux file is a map of name, config, components, spouts, bolts, streams and includes', src.at(doc.contents.range?.[0] ?? 0), file);
    }
    visit(doc, {
      Scalar: (key, node: Scalar) => {
        if (typeof node.value !== 'string') return;
        // A `${…}` alone may give a number or a list only as an unquoted value, never as a key.
        const got = fillScalar(node.value, key !== 'key' && node.type === 'PLAIN', marked, vars, file);
        if (!got) return;
        node.value = got.value;
        filled.set(node, got.written);
      },
    });
    return src;
  }

  /** The file as plain data; an alias that would blow it up (or names nothing) is an error at its position. */
  data(): unknown {
    const js = documentToJs(this.doc);
    if (!js.ok) throw new FluxSyntaxError(aliasProblemText(js.problem), this.at(js.problem.offset), this.file);
    return js.value ?? {};
  }

  /** The node at `path`, or null when the file does not go that far. */
  private nodeAt(path: YamlPath): Node | null {
    let node: Node | null = this.doc.contents;
    for (const seg of path) {
      // A variable's list or map is one scalar of the file: what is inside it was written as the `${…}`.
      if (isScalar(node) && this.filled.has(node)) return node;
      if (isMap(node)) {
        const pair = (node.items as Pair<unknown, unknown>[]).find((p) => isScalar(p.key) && String(p.key.value) === String(seg));
        node = (pair?.value as Node | null | undefined) ?? null;
      } else if (isSeq(node) && typeof seg === 'number') {
        node = (node.items[seg] as Node | undefined) ?? null;
      } else {
        return null;
      }
    }
    return node;
  }

  /**
   * How the value at `path` is written when a variable filled it or anything inside it (`"${ENV-DB_PASSWORD}"`,
   * `{ url: ${ENV-URL} }`): what a message shows instead of the value. Null when no variable went into it.
   */
  written(path: YamlPath): string | null {
    const node = this.nodeAt(path);
    if (!node) return null;
    const own = this.filled.get(node);
    if (own !== undefined) return own;
    const inside: string[] = [];
    visit(node, {
      Scalar: (_k, n) => {
        const w = this.filled.get(n);
        if (w !== undefined) inside.push(w);
      },
    });
    return inside.length ? `a value written with ${inside.join(', ')}` : null;
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
