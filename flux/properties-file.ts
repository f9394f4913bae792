/**
 * Java's .properties format, which Flux's `--filter` reads (Storm loads it
 * with java.util.Properties): `key=value`, `key: value` or `key value`, `#`
 * and `!` comments, a trailing backslash continuing a line, and the escapes
 * \t \n \r \f \\ \uXXXX. Values are strings, as in Java.
 */
const ESCAPES: Readonly<Record<string, string>> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) => (e.length === 5 ? String.fromCharCode(parseInt(e.slice(1), 16)) : (ESCAPES[e] ?? e)));
}

/** Logical lines: physical lines joined where one ends in an odd number of backslashes (leading blanks of the next dropped). */
function logicalLines(text: string): string[] {
  const out: string[] = [];
  let acc: string | null = null;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line: string = acc === null ? raw.replace(/^[ \t\f]+/, '') : acc + raw.replace(/^[ \t\f]+/, '');
    const trailing = /\\+$/.exec(line)?.[0].length ?? 0;
    if (trailing % 2 === 1) acc = line.slice(0, -1);
    else {
      out.push(line);
      acc = null;
    }
  }
  if (acc !== null) out.push(acc);
  return out;
}

export function parseProperties(text: string): Map<string, string> {
  const props = new Map<string, string>();
  for (const line of logicalLines(text)) {
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    // The key ends at the first unescaped '=', ':' or blank; blanks around the separator are not part of the value.
    const m = /^((?:\\.|[^=:\s\\])*)\s*[=:]?\s*(.*)$/.exec(line);
    if (!m) continue;
    props.set(unescape(m[1]!), unescape(m[2]!));
  }
  return props;
}
