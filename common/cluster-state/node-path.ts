/**
 * Path and payload rules shared by every cluster-state implementation, so that
 * the in-memory store rejects exactly what ZooKeeper would (and the ZooKeeper
 * client library, which asserts instead of erroring, never sees bad input).
 */
import { ClusterStateError } from '../cluster-state.js';

/** ZooKeeper's default jute.maxbuffer is 1 MiB for the whole packet; keep room for the header. */
export const MAX_DATA_BYTES = 1_000_000;

/** Throws BAD_ARGUMENT unless `path` is absolute, has no empty, `.` or `..` segment and no trailing slash. */
export function checkPath(path: string): void {
  if (typeof path !== 'string' || !path.startsWith('/')) throw bad(path, 'a path must start with "/"');
  if (path === '/') return;
  if (path.endsWith('/')) throw bad(path, 'a path must not end with "/"');
  if (path.includes('\u0000')) throw bad(path, 'a path must not contain NUL');
  for (const segment of path.slice(1).split('/')) {
    if (segment === '') throw bad(path, 'a path must not contain an empty segment');
    if (segment === '.' || segment === '..') throw bad(path, 'a path must not contain "." or ".." segments');
  }
}

export function checkData(path: string, data: Uint8Array): void {
  if (!(data instanceof Uint8Array)) throw bad(path, 'data must be a Uint8Array');
  if (data.byteLength > MAX_DATA_BYTES) throw bad(path, `data is ${data.byteLength} bytes, more than the ${MAX_DATA_BYTES} a node may hold`);
}

export function parentOf(path: string): string {
  const i = path.lastIndexOf('/');
  return i <= 0 ? '/' : path.slice(0, i);
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** Ancestors from the top down, without `/` and without `path` itself. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf('/', 1); i > 0; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i));
  return out;
}

export function joinPath(parent: string, name: string): string {
  return parent === '/' ? `/${name}` : `${parent}/${name}`;
}

/** ZooKeeper's sequential suffix: the parent's cversion as 10 zero-padded digits. */
export function sequenceSuffix(n: number): string {
  return String(n).padStart(10, '0');
}

function bad(path: string, why: string): ClusterStateError {
  return new ClusterStateError('BAD_ARGUMENT', String(path), `${why}: ${JSON.stringify(path)}`);
}
