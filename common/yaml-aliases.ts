/**
 * YAML documents turned into data with the alias expansion bounded: a file of
 * a few lines whose anchors refer to anchors nine times over ("billion
 * laughs") would expand to gigabytes. The yaml library refuses that past its
 * `maxAliasCount` with a bare ReferenceError and no position; this says which
 * alias it stopped at, so the Flux reader and the config reader can name the
 * file, line and column with their own error codes.
 */
import { isAlias, isCollection, isPair, visit, type Document, type Node } from 'yaml';

/** The yaml library's own default, named so both readers use one figure: alias expansions × nested aliases allowed. */
export const MAX_ALIAS_COUNT = 100;

export interface AliasProblem {
  /** `bomb`: expanding it would pass MAX_ALIAS_COUNT; `unresolved`: no anchor of its name comes before it. */
  kind: 'bomb' | 'unresolved';
  /** Character offset of the alias in the parsed text. */
  offset: number;
}

interface AnchorUse {
  count: number;
  aliasCount: number;
}

/**
 * Which alias the library's check stops at: the same bookkeeping as yaml's Alias.resolve (how often each anchor has
 * been used × the aliases nested in it), walked in document order as toJS walks it.
 */
function locate(doc: Document): AliasProblem {
  const anchors = new Map<string, Node>();
  const uses = new Map<Node, AnchorUse>();
  const nested = (node: unknown): number => {
    if (isAlias(node)) {
      const u = uses.get(anchors.get(node.source) as Node);
      return u ? u.count * u.aliasCount : 0;
    }
    if (isCollection(node)) return Math.max(0, ...node.items.map(nested));
    if (isPair(node)) return Math.max(nested(node.key), nested(node.value));
    return 1;
  };
  let found: AliasProblem | null = null;
  let first: number | null = null;
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        const offset = node.range?.[0] ?? 0;
        first ??= offset;
        const source = anchors.get(node.source);
        if (!source) {
          found = { kind: 'unresolved', offset };
          return visit.BREAK;
        }
        const u = uses.get(source)!;
        u.count += 1;
        if (u.aliasCount === 0) u.aliasCount = nested(source);
        if (u.count * u.aliasCount > MAX_ALIAS_COUNT) {
          found = { kind: 'bomb', offset };
          return visit.BREAK;
        }
      } else if (node.anchor) {
        // yaml counts the anchored node itself as its first use.
        anchors.set(node.anchor, node);
        uses.set(node, { count: 1, aliasCount: 0 });
      }
      return undefined;
    },
  });
  // The walk and the library agree on every document tried; should they ever not, the first alias is still a place to look.
  return found ?? { kind: 'bomb', offset: first ?? 0 };
}

/** The document as plain data, or where an alias stopped it (never yaml's ReferenceError). */
export function documentToJs(doc: Document): { ok: true; value: unknown } | { ok: false; problem: AliasProblem } {
  try {
    return { ok: true, value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown };
  } catch (err) {
    if (!(err instanceof ReferenceError)) throw err;
    return { ok: false, problem: locate(doc) };
  }
}

/** In words, for an error message that has already said where. */
export function aliasProblemText(p: AliasProblem): string {
  return p.kind === 'bomb'
    ? `this alias would expand the document past ${MAX_ALIAS_COUNT} alias expansions (anchors referring to anchors: a YAML alias bomb, "billion laughs"); write the values out, or use fewer nested aliases`
    : 'this alias names no anchor defined before it (`&name` must come before `*name`)';
}
