/**
 * `Promise.all(items.map(fn))` with at most `limit` calls in flight, results
 * in input order. Daemons read many znodes at once this way: one after
 * another, each read waits a round trip (nimbus at 4 000 workers spent its
 * whole monitor period waiting); all at once, a large cluster would put
 * thousands of requests on one connection in a burst.
 */
export async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, lane));
  return out;
}
