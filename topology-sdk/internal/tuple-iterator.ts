/**
 * The iterators `TupleWindow.getIter()` hands out (tuple-window.ts TupleIterator): Storm's `hasNext()`/`next()`
 * over a window's tuples in memory, which also iterates with `for…of` and `for await…of` — one object, because
 * Storm's `next()` returns the tuple where a JavaScript iterator's returns `{ value, done }`: the object's own
 * `next` is Storm's, and the language's loops get iterators of their own from the Symbol methods.
 */
import type { Tuple } from '../tuple.js';
import type { TupleIterator } from '../tuple-window.js';

/** Over tuples in memory: every form works. */
export function arrayTupleIterator(tuples: readonly Tuple[]): TupleIterator {
  let at = 0;
  return {
    hasNext: () => at < tuples.length,
    next: () => {
      if (at >= tuples.length) throw new RangeError(`the window's iterator has no more tuples (it gave all ${tuples.length}): check hasNext() before next()`);
      return tuples[at++]!;
    },
    forEachRemaining: (action) => {
      while (at < tuples.length) action(tuples[at++]!);
    },
    remove: readOnly,
    [Symbol.iterator]: () => tuples[Symbol.iterator](),
    [Symbol.asyncIterator]: async function* () {
      yield* tuples;
    },
  };
}

/**
 * Over tuples read from a store as it goes: only `for await` works; the synchronous forms throw `unreadable`'s
 * message, naming the loop that works.
 */
export function asyncOnlyTupleIterator(read: () => AsyncIterableIterator<Tuple>, unreadable: string): TupleIterator {
  const refuse = (): never => {
    throw new RangeError(unreadable);
  };
  return {
    hasNext: refuse,
    next: refuse,
    forEachRemaining: refuse,
    remove: readOnly,
    [Symbol.iterator]: refuse,
    [Symbol.asyncIterator]: read,
  };
}

function readOnly(): never {
  throw new TypeError("a window's tuples cannot be removed through its iterator (the window is read-only, as in Storm)");
}
