/**
 * Live refresh without reloading the page: load now, then every `everyMs`,
 * keeping the last good data on screen while a refresh fails. `reload()`
 * refreshes at once (after an action).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Poll<T> {
  data: T | null;
  error: string | null;
  reload: () => void;
  /** Epoch ms of the last successful load. */
  at: number | null;
}

export function usePoll<T>(load: () => Promise<T>, everyMs: number, deps: unknown[]): Poll<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [at, setAt] = useState<number | null>(null);
  const seq = useRef(0);
  const run = useCallback(() => {
    const mine = ++seq.current;
    load().then(
      (d) => {
        if (mine !== seq.current) return;
        setData(d);
        setError(null);
        setAt(Date.now());
      },
      (err: unknown) => {
        if (mine === seq.current) setError(err instanceof Error ? err.message : String(err));
      },
    );
  }, deps);
  useEffect(() => {
    setData(null);
    run();
    const timer = setInterval(run, everyMs);
    return () => clearInterval(timer);
  }, [run, everyMs]);
  return { data, error, reload: run, at };
}
