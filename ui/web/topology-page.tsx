/**
 * A topology: Storm's figures over the chosen window, its spouts and bolts
 * (emitted, executed, acked, failed, latency, capacity; GPU backend and
 * adapter; user metrics), its workers (host:port, CPU or GPU slot, GPU model,
 * the scheduler's reason), the errors its tasks reported, and γ, δ and the
 * two latencies over time. Activate, deactivate, rebalance and kill call
 * Storm's POST actions.
 */
import { useState } from 'preact/hooks';
import { act, loadTopology, type TopologyPageView, type Window } from './api.js';
import { mb, num } from './format.js';
import { SplitChart } from './split-chart.js';
import { usePoll } from './use-poll.js';
import { UserMetricsCell } from './user-metrics-cell.js';

type Spout = TopologyPageView['spouts'][number];
type Bolt = TopologyPageView['bolts'][number];
type Worker = TopologyPageView['workers'][number];

const WINDOWS: { w: Window; label: string }[] = [
  { w: '600', label: '10 min' },
  { w: '10800', label: '3 h' },
  { w: '86400', label: '1 day' },
  { w: ':all-time', label: 'all time' },
];

function GpuCell({ gpu }: { gpu: Spout['hstorm']['gpu'] }) {
  if (!gpu) return <span>–</span>;
  return (
    <span data-testid="gpu-backend">
      {gpu.ran.join(', ') || 'no launch yet'}{' '}
      {gpu.onGpu && !gpu.onHardwareGpu && (
        <span class="badge fallback" title="a software WebGPU adapter is a CPU behind the WebGPU API">
          software adapter, not a GPU
        </span>
      )}{' '}
      {gpu.fallback && (
        <span class="badge fallback" title={gpu.fallbackReasons.join('\n')}>
          CPU fallback
        </span>
      )}
      {gpu.launches > 0 && (
        <div class="note">
          kernel {num(gpu.kernelMs.p50, 2)} ms p50, p99 {num(gpu.kernelMs.p99, 2)} ms per launch · in flight p99 {num(gpu.inFlightMs.p99, 2)} ms per tuple · {gpu.launches} launches
          {gpu.devicesLost + gpu.deviceErrors > 0 && ` · ${gpu.devicesLost} device(s) lost, ${gpu.deviceErrors} error(s)`}
        </div>
      )}
      {gpu.adapters
        .filter((a) => !a.identityVerified)
        .map((a) => (
          <div class="note">GPU identity not verified: {a.identity}</div>
        ))}
    </span>
  );
}

/** Tables show an error's first line; the whole one is in the tooltip and in the errors table. */
function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

function componentLink(topology: string, id: string) {
  return <a href={`#/topology/${encodeURIComponent(topology)}/component/${encodeURIComponent(id)}`}>{id}</a>;
}

function WorkerRow({ w }: { w: Worker }) {
  const h = w.hstorm;
  return (
    <tr class={h.slot} data-testid="worker-row" data-slot={h.slot}>
      <td>
        {w.host}:{w.port}
      </td>
      <td>{w.supervisorId}</td>
      <td>
        <span class={`badge ${h.slot}`} data-testid="worker-slot">
          {h.slot.toUpperCase()}
        </span>
      </td>
      <td data-testid="worker-gpu">
        {h.gpu ? (
          <span>
            {h.gpu.name} <span class="note">({h.gpu.gpuId})</span> {h.gpu.declared && <span class="badge declared">declared</span>}
          </span>
        ) : (
          '–'
        )}
      </td>
      <td>
        {Object.entries(w.componentNumTasks)
          .map(([c, n]) => `${c} ×${n}`)
          .join(', ')}
      </td>
      <td>
        {h.liveness}{' '}
        {h.spoutsPaused && (
          <span class="badge paused" title="no ZooKeeper for nimbus.task.timeout.secs: its spouts emit nothing until it reads its assignment again" data-testid="worker-spouts-paused">
            spouts paused
          </span>
        )}
      </td>
      <td>{w.uptime}</td>
      <td class="num">{mb(h.rssMB)}</td>
      <td class="num">{num(h.cpu, 2)}</td>
      <td class="num" data-testid="worker-stale">
        {num(h.staleFrames)} / {num(h.staleTuples)}
      </td>
      <td class="reason" data-testid="worker-reason">
        {h.reason}
      </td>
    </tr>
  );
}

function Actions({ t, reload }: { t: TopologyPageView; reload: () => void }) {
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const run = (action: 'activate' | 'deactivate' | 'kill' | 'rebalance') => {
    if (action === 'kill' && !window.confirm(`Kill ${t.name}?`)) return;
    setBusy(true);
    setFailure(null);
    act(t.id, action, action === 'kill' ? 5 : 0)
      .catch((err: unknown) => setFailure(err instanceof Error ? err.message : String(err)))
      .finally(() => {
        setBusy(false);
        reload();
      });
  };
  return (
    <div class="actions">
      <button data-testid="activate" disabled={busy || t.status === 'ACTIVE'} onClick={() => run('activate')}>
        Activate
      </button>
      <button data-testid="deactivate" disabled={busy || t.status !== 'ACTIVE'} onClick={() => run('deactivate')}>
        Deactivate
      </button>
      <button data-testid="rebalance" disabled={busy || t.status === 'KILLED'} onClick={() => run('rebalance')}>
        Rebalance
      </button>
      <button data-testid="kill" disabled={busy || t.status === 'KILLED'} onClick={() => run('kill')}>
        Kill
      </button>
      {failure && <span class="failure">{failure}</span>}
    </div>
  );
}

function SpoutRow({ topology, s }: { topology: string; s: Spout }) {
  return (
    <tr data-testid="spout-row">
      <td>{componentLink(topology, s.spoutId)}</td>
      <td class="num">{s.executors}</td>
      <td class="num">{num(s.emitted)}</td>
      <td class="num">{num(s.transferred)}</td>
      <td class="num">{num(s.completeLatency, 3)}</td>
      <td class="num">{num(s.acked)}</td>
      <td class="num">{num(s.failed)}</td>
      <td class="num">{s.hstorm.split ? num(s.hstorm.split.gamma as number, 3) : '–'}</td>
      <td>
        <UserMetricsCell m={s.hstorm.userMetrics} />
      </td>
      <td class="error" title={s.lastError}>
        {firstLine(s.lastError)}
      </td>
    </tr>
  );
}

function BoltRow({ topology, b }: { topology: string; b: Bolt }) {
  return (
    <tr data-testid="bolt-row" class={b.hstorm.gpuComponent ? 'gpu' : ''}>
      <td>
        {componentLink(topology, b.boltId)} {b.hstorm.gpuComponent && <span class="badge gpu">GPU</span>}
      </td>
      <td class="num">{b.executors}</td>
      <td class="num">{num(b.emitted)}</td>
      <td class="num">{num(b.executed)}</td>
      <td class="num">{num(b.executeLatency, 3)}</td>
      <td class="num">{num(b.capacity, 3)}</td>
      <td class="num">{num(b.acked)}</td>
      <td class="num">{num(b.failed)}</td>
      <td class="num">{num(b.hstorm.staleTuples)}</td>
      <td>
        <GpuCell gpu={b.hstorm.gpu} />
      </td>
      <td>
        <UserMetricsCell m={b.hstorm.userMetrics} />
      </td>
      <td class="error" title={b.lastError}>
        {firstLine(b.lastError)}
      </td>
    </tr>
  );
}

/** Windowed bolts (issue 23): the window, windows evaluated, tuples per window, late tuples and the watermark's lag. */
function WindowedBolts({ topology, bolts }: { topology: string; bolts: Bolt[] }) {
  const windowed = bolts.filter((b) => b.hstorm.window);
  if (windowed.length === 0) return null;
  return (
    <>
      <h2>Windowed bolts</h2>
      <table data-testid="windowed-bolts">
        <thead>
          <tr>
            <th>bolt</th>
            <th>window</th>
            <th>windows evaluated</th>
            <th>failed</th>
            <th>tuples per window (mean / max)</th>
            <th>held</th>
            <th>late dropped</th>
            <th>late routed</th>
            <th>watermark lag (ms)</th>
          </tr>
        </thead>
        <tbody>
          {windowed.map((b) => {
            const w = b.hstorm.window!;
            return (
              <tr key={b.boltId} data-testid="windowed-bolt-row">
                <td>{componentLink(topology, b.boltId)}</td>
                <td>{w.spec}</td>
                <td class="num">{num(w.windows)}</td>
                <td class="num">{num(w.failedWindows)}</td>
                <td class="num">
                  {num(w.meanWindowTuples, 1)} / {num(w.maxWindowTuples)}
                </td>
                <td class="num">{num(w.held)}</td>
                <td class="num">{w.eventTime ? num(w.lateDropped) : '–'}</td>
                <td class="num">{w.eventTime ? num(w.lateRouted) : '–'}</td>
                <td class="num">{w.eventTime ? num(w.watermarkLagMs) : '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

/** Stateful bolts and the checkpoint spout (issue 24): transactions, checkpoint time, state size, recoveries. */
function StatefulComponents({ topology, components }: { topology: string; components: { id: string; state: Bolt['hstorm']['state'] }[] }) {
  const stateful = components.filter((c) => c.state);
  if (stateful.length === 0) return null;
  const cp = stateful.find((c) => c.state!.role === 'checkpoint')?.state;
  return (
    <>
      <h2>State</h2>
      <p data-testid="state-summary">
        provider {stateful.find((c) => c.state!.provider)?.state!.provider ?? '–'}
        {cp?.phase ? `; checkpoint ${cp.phase}` : ''}. Checkpoint time: a bolt's own prepare and commit; the checkpoint spout's, the whole checkpoint.
      </p>
      <table data-testid="stateful-components">
        <thead>
          <tr>
            <th>component</th>
            <th>last committed</th>
            <th>commits</th>
            <th>checkpoint p50 / p99 (ms)</th>
            <th>keys</th>
            <th>acks held</th>
            <th>recoveries</th>
            <th>failures</th>
            <th>corrupt entries</th>
          </tr>
        </thead>
        <tbody>
          {stateful.map(({ id, state }) => {
            const s = state!;
            return (
              <tr key={id} data-testid="stateful-row">
                <td>{componentLink(topology, id)}</td>
                <td class="num">{s.lastCommittedTxid === null ? '–' : num(s.lastCommittedTxid)}</td>
                <td class="num">{num(s.commits)}</td>
                <td class="num">
                  {s.checkpointMs ? `${num(s.checkpointMs.p50, 2)} / ${num(s.checkpointMs.p99, 2)}` : '–'}
                </td>
                <td class="num">{s.keys === null ? '–' : num(s.keys)}</td>
                <td class="num">{s.role === 'bolt' ? num(s.heldAcks) : '–'}</td>
                <td class="num">{num(s.recoveries)}</td>
                <td class="num">{num(s.failures)}</td>
                <td class="num">{s.role === 'bolt' ? num(s.corruptEntries) : '–'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

export function TopologyPage({ id, refreshMs }: { id: string; refreshMs: number }) {
  const [window_, setWindow] = useState<Window>(':all-time');
  const poll = usePoll(() => loadTopology(id, window_), refreshMs, [id, window_]);
  const t = poll.data;
  if (!t) return <p>{poll.error ?? 'Loading…'}</p>;
  return (
    <div>
      {poll.error && <p class="failure">refresh failed: {poll.error}</p>}
      <h2>
        Topology {t.name} <span class="note">{t.id}</span>
      </h2>
      <div class="cards">
        <div class="card">
          <div class={`v status-${t.status}`} data-testid="topology-status">
            {t.status}
          </div>
          <div class="k">status</div>
        </div>
        <div class="card">
          <div class="v">{t.uptime}</div>
          <div class="k">uptime</div>
        </div>
        <div class="card">
          <div class="v">
            {t.workersTotal} ({t.hstorm.gpuWorkers} GPU)
          </div>
          <div class="k">workers</div>
        </div>
        <div class="card">
          <div class="v">{t.executorsTotal}</div>
          <div class="k">executors</div>
        </div>
        <div class="card">
          <div class="v">{t.hstorm.scheduler ?? '–'}</div>
          <div class="k">scheduler (epoch {t.hstorm.epoch ?? '–'})</div>
        </div>
      </div>
      <p>
        <Actions t={t} reload={poll.reload} />
      </p>

      <h2>Topology stats</h2>
      <table>
        <thead>
          <tr>
            <th>window</th>
            <th>emitted</th>
            <th>transferred</th>
            <th>complete latency (ms)</th>
            <th>acked</th>
            <th>failed</th>
            <th>observed</th>
          </tr>
        </thead>
        <tbody>
          {t.topologyStats.map((s) => (
            <tr key={s.window}>
              <td>{s.windowPretty}</td>
              <td class="num">{num(s.emitted)}</td>
              <td class="num">{num(s.transferred)}</td>
              <td class="num">{num(s.completeLatency, 3)}</td>
              <td class="num">{num(s.acked)}</td>
              <td class="num">{num(s.failed)}</td>
              <td class="note">{s.hstorm.observedSecs === null ? 'since nimbus started' : `${s.hstorm.observedSecs} s seen`}</td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>
        Components{' '}
        <select data-testid="window" value={window_} onChange={(e) => setWindow((e.currentTarget as HTMLSelectElement).value as Window)}>
          {WINDOWS.map((w) => (
            <option key={w.w} value={w.w}>
              {w.label}
            </option>
          ))}
        </select>
      </h2>
      <table>
        <thead>
          <tr>
            <th>spout</th>
            <th>executors</th>
            <th>emitted</th>
            <th>transferred</th>
            <th>complete latency (ms)</th>
            <th>acked</th>
            <th>failed</th>
            <th>γ</th>
            <th>user metrics</th>
            <th>last error</th>
          </tr>
        </thead>
        <tbody>
          {t.spouts.map((s) => (
            <SpoutRow key={s.spoutId} topology={t.id} s={s} />
          ))}
        </tbody>
      </table>
      <br />
      <table>
        <thead>
          <tr>
            <th>bolt</th>
            <th>executors</th>
            <th>emitted</th>
            <th>executed</th>
            <th>execute latency (ms)</th>
            <th>capacity</th>
            <th>acked</th>
            <th>failed</th>
            <th title="tracked tuples dropped unexecuted: their trees had timed out at the spouts, which replay them">stale dropped</th>
            <th>GPU backend</th>
            <th>user metrics</th>
            <th>last error</th>
          </tr>
        </thead>
        <tbody>
          {t.bolts.map((b) => (
            <BoltRow key={b.boltId} topology={t.id} b={b} />
          ))}
        </tbody>
      </table>
      <WindowedBolts topology={t.id} bolts={t.bolts} />
      <StatefulComponents topology={t.id} components={[...t.spouts.map((x) => ({ id: x.spoutId, state: x.hstorm.state })), ...t.bolts.map((b) => ({ id: b.boltId, state: b.hstorm.state }))]} />

      <h2>Workers</h2>
      <table>
        <thead>
          <tr>
            <th>host:port</th>
            <th>supervisor</th>
            <th>slot</th>
            <th>GPU</th>
            <th>executors</th>
            <th>liveness</th>
            <th>uptime</th>
            <th>RSS</th>
            <th>CPU</th>
            <th title="frames fenced from workers stranded on an older assignment / tracked tuples dropped because their trees had timed out at the spouts (docs/faults.md)">stale frames / tuples</th>
            <th>scheduler's reason</th>
          </tr>
        </thead>
        <tbody>
          {t.workers.map((w) => (
            <WorkerRow key={`${w.supervisorId}:${w.port}`} w={w} />
          ))}
        </tbody>
      </table>
      {t.hstorm.unassignedExecutors.length > 0 && (
        <>
          <h2>Unassigned executors</h2>
          <table>
            <tbody>
              {t.hstorm.unassignedExecutors.map((u) => (
                <tr key={u.task}>
                  <td>
                    {u.component} [{u.task}]
                  </td>
                  <td class="reason">{u.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Adaptive split: γ, δ and latencies</h2>
      {t.spouts.flatMap((s) => downSides(s)).map((line) => (
        <p class="note warn" data-testid="split-side-down">
          {line}
        </p>
      ))}
      {t.hstorm.splitSeries.length === 0 ? <p class="note">No split spout has reported yet.</p> : <SplitChart points={t.hstorm.splitSeries} />}
      {unplacedRows(t).length > 0 && (
        <>
          <h2>Tuples failed at once: their target has no running task</h2>
          <table data-testid="unplaced-targets">
            <thead>
              <tr>
                <th>From</th>
                <th>Stream</th>
                <th>To</th>
                <th class="num">Tuples</th>
                <th>Why not placed</th>
              </tr>
            </thead>
            <tbody>
              {unplacedRows(t).map((u) => (
                <tr>
                  <td>{u.from}</td>
                  <td>{u.stream}</td>
                  <td>{u.component}</td>
                  <td class="num">{num(u.tuples)}</td>
                  <td class="reason">{u.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}

      <h2>Errors</h2>
      {t.hstorm.errors.length === 0 ? (
        <p class="note" data-testid="no-errors">
          No task reported an error.
        </p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>time</th>
              <th>component</th>
              <th>task</th>
              <th>worker</th>
              <th>error</th>
            </tr>
          </thead>
          <tbody>
            {t.hstorm.errors.slice(0, 30).map((e) => (
              <tr key={`${e.task}-${e.time}`} data-testid="error-row">
                <td>{new Date(e.time).toLocaleTimeString()}</td>
                <td>{e.component}</td>
                <td class="num">{e.task}</td>
                <td>
                  {e.host}:{e.port}
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

/** "GPU side of reader: no running task since … (why)" for each split side that has none. */
function downSides(s: Spout): string[] {
  const sides = s.hstorm.split?.sides as Record<string, { downSince: number | null; reason: string | null } | undefined> | undefined;
  if (!sides) return [];
  return (['cpu', 'gpu'] as const).flatMap((side) => {
    const d = sides[side];
    if (!d || d.downSince === null) return [];
    return [`${side.toUpperCase()} side of ${s.spoutId}: no running task since ${new Date(d.downSince).toLocaleTimeString()} (${d.reason ?? 'unknown'}); it gets no tuples`];
  });
}

/** Every component's tuples failed at once towards an unplaced target. */
function unplacedRows(t: TopologyPageView): { from: string; component: string; stream: string; tuples: number; reason: string }[] {
  return [
    ...t.spouts.flatMap((s) => s.hstorm.unplacedTargets.map((u) => ({ from: s.spoutId, ...u }))),
    ...t.bolts.flatMap((b) => b.hstorm.unplacedTargets.map((u) => ({ from: b.boltId, ...u }))),
  ];
}
