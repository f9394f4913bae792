/** One component: its stats per window, its executors, its errors, its GPU and user metrics. */
import { loadComponent } from './api.js';
import { num } from './format.js';
import { usePoll } from './use-poll.js';
import { UserMetricsCell } from './user-metrics-cell.js';

export function ComponentPage({ id, component, refreshMs }: { id: string; component: string; refreshMs: number }) {
  const poll = usePoll(() => loadComponent(id, component, ':all-time'), refreshMs, [id, component]);
  const c = poll.data;
  if (!c) return <p>{poll.error ?? 'Loading…'}</p>;
  const windows = 'spoutSummary' in c ? c.spoutSummary : c.boltStats;
  return (
    <div>
      <h2>
        <a href={`#/topology/${encodeURIComponent(id)}`}>{c.name}</a> / {c.id} <span class="note">{c.componentType}, {c.executors} executors</span>
      </h2>
      <table>
        <thead>
          <tr>
            <th>window</th>
            <th>emitted</th>
            <th>transferred</th>
            <th>acked</th>
            <th>failed</th>
            <th>latency (ms)</th>
          </tr>
        </thead>
        <tbody>
          {windows.map((w) => (
            <tr key={w.window}>
              <td>{w.windowPretty}</td>
              <td class="num">{num(w.emitted)}</td>
              <td class="num">{num(w.transferred)}</td>
              <td class="num">{num(w.acked)}</td>
              <td class="num">{num(w.failed)}</td>
              <td class="num">{num('completeLatency' in w ? w.completeLatency : w.executeLatency, 3)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Executors</h2>
      <table>
        <thead>
          <tr>
            <th>id</th>
            <th>host:port</th>
            <th>uptime</th>
            <th>emitted</th>
            <th>acked</th>
            <th>failed</th>
            <th>capacity now</th>
            <th>GPU backend</th>
            <th>user metrics</th>
          </tr>
        </thead>
        <tbody>
          {c.executorStats.map((e) => (
            <tr key={e.id}>
              <td>{e.id}</td>
              <td>
                {e.host}:{e.port ?? '–'}
              </td>
              <td>{e.uptime}</td>
              <td class="num">{num(e.emitted)}</td>
              <td class="num">{num(e.acked)}</td>
              <td class="num">{num(e.failed)}</td>
              <td class="num">{num(e.hstorm.currentCapacity, 3)}</td>
              <td>{e.hstorm.gpu ? `${e.hstorm.gpu.backend}${e.hstorm.gpu.fallback === true ? ' (CPU fallback)' : ''}` : '–'}</td>
              <td>
                <UserMetricsCell m={e.hstorm.userMetrics} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Errors</h2>
      {c.componentErrors.length === 0 ? (
        <p class="note">None reported.</p>
      ) : (
        <table>
          <tbody>
            {c.componentErrors.map((e) => (
              <tr key={`${e.errorTime}-${e.errorPort}`}>
                <td>{new Date(e.errorTime).toLocaleTimeString()}</td>
                <td>
                  {e.errorHost}:{e.errorPort}
                </td>
                <td class="error">{e.error}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
