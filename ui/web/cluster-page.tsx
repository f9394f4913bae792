/**
 * The cluster page: Storm's summary figures, nimbus, every supervisor with
 * its CPU and GPU slots (used / free), GPU models and what its node collector
 * measured, and the topologies.
 */
import { loadCluster, type ClusterData } from './api.js';
import { mb, num, pct } from './format.js';
import { usePoll, type Poll } from './use-poll.js';

type Supervisor = ClusterData['supervisors']['supervisors'][number];

function Card({ k, v, id }: { k: string; v: string | number; id?: string }) {
  return (
    <div class="card" data-testid={id}>
      <div class="v">{v}</div>
      <div class="k">{k}</div>
    </div>
  );
}

function SupervisorRow({ s }: { s: Supervisor }) {
  const h = s.hstorm;
  const node = h.node;
  return (
    <tr data-testid="supervisor-row" data-supervisor={s.id}>
      <td>{s.id}</td>
      <td>{s.host}</td>
      <td>{s.uptime}</td>
      <td class="num">
        {s.slotsUsed} / {s.slotsTotal} <span class="note">({s.slotsFree} free)</span>
      </td>
      <td class="num">{h.cpuSlotsUsed}</td>
      <td class="num">
        {h.gpuSlotsUsed} / {h.gpuSlotsTotal}
      </td>
      <td>
        {h.gpus.length === 0
          ? '–'
          : h.gpus.map((g) => (
              <div key={g.id} data-testid="gpu">
                {g.name} {g.declared && <span class="badge declared">declared</span>} <span class="note">
                  slots {g.usedSlots}/{g.slots} · util {pct(g.utilisation)} · mem {mb(g.memoryUsedMB)} / {mb(g.memoryTotalMB)}
                  {g.usageNote ? ` (${g.usageNote})` : ''}
                </span>
              </div>
            ))}
      </td>
      <td class="num">{node ? pct(node.cpu.utilisation) : '–'}</td>
      <td class="num">{node ? `${mb(node.memory.usedMB)} / ${mb(node.memory.totalMB)}` : '–'}</td>
      <td class="num">{node ? num(node.cpu.load1, 2) : '–'}</td>
      <td>
        {node && node.workers.length > 0
          ? node.workers.map((w) => (
              <div key={w.port} class="note">
                :{w.port} rss {mb(w.rssMB)} cpu {num(w.cpu, 2)}
              </div>
            ))
          : '–'}
      </td>
      <td class="num note">{node ? `${num(node.collectMs, 1)} ms` : 'no round yet'}</td>
    </tr>
  );
}

export function ClusterView({ poll }: { poll: Poll<ClusterData> }) {
  const d = poll.data;
  if (!d) return <p>{poll.error ?? 'Loading…'}</p>;
  const c = d.cluster;
  const n = d.nimbus.nimbuses[0];
  return (
    <div>
      <h2>Cluster summary</h2>
      <div class="cards">
        <Card k="version" v={c.stormVersion} />
        <Card k="supervisors" v={c.supervisors} id="supervisors-count" />
        <Card k="slots used / total" v={`${c.slotsUsed} / ${c.slotsTotal}`} />
        <Card k="GPU slots used / total" v={`${c.hstorm.gpuSlotsUsed} / ${c.hstorm.gpuSlotsTotal}`} id="gpu-slots" />
        <Card k="GPUs" v={c.hstorm.gpuModels.map((m) => `${m.count}× ${m.name}`).join(', ') || 'none'} />
        <Card k="executors" v={c.executorsTotal} />
        <Card k="topologies" v={c.topologies} />
        <Card k="scheduler" v={c.hstorm.scheduler} />
        <Card k={`nimbus ${n?.host ?? ''}:${n?.port ?? ''}`} v={n?.nimbusUpTime ?? '–'} />
      </div>
      {c.hstorm.corruptZnodes.length > 0 && <p class="failure">{c.hstorm.corruptZnodes.length} znodes could not be read: {c.hstorm.corruptZnodes.map((z) => z.path).join(', ')}</p>}

      <h2>Supervisors</h2>
      <table>
        <thead>
          <tr>
            <th>id</th>
            <th>host</th>
            <th>uptime</th>
            <th>slots used / total</th>
            <th>CPU slots used</th>
            <th>GPU slots used / total</th>
            <th>GPUs</th>
            <th>node CPU</th>
            <th>node memory</th>
            <th>load</th>
            <th>workers</th>
            <th>collector round</th>
          </tr>
        </thead>
        <tbody>
          {d.supervisors.supervisors.map((s) => (
            <SupervisorRow key={s.id} s={s} />
          ))}
        </tbody>
      </table>

      <h2>Topologies</h2>
      <table>
        <thead>
          <tr>
            <th>name</th>
            <th>id</th>
            <th>status</th>
            <th>uptime</th>
            <th>workers (GPU)</th>
            <th>executors</th>
            <th>unassigned</th>
            <th>scheduler</th>
          </tr>
        </thead>
        <tbody>
          {d.topologies.topologies.map((t) => (
            <tr key={t.id} data-testid="topology-row" data-topology={t.name}>
              <td>
                <a href={`#/topology/${encodeURIComponent(t.id)}`}>{t.name}</a>
              </td>
              <td class="note">{t.id}</td>
              <td class={`status-${t.status}`}>{t.status}</td>
              <td>{t.uptime}</td>
              <td class="num">
                {t.workersTotal} ({t.hstorm.gpuWorkers})
              </td>
              <td class="num">{t.executorsTotal}</td>
              <td class="num">{t.hstorm.unassigned}</td>
              <td>{t.hstorm.scheduler ?? '–'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {d.topologies.topologies.length === 0 && <p class="note">No topology is running.</p>}
    </div>
  );
}

export function ClusterPage({ refreshMs }: { refreshMs: number }) {
  const poll = usePoll(loadCluster, refreshMs, []);
  return <ClusterView poll={poll} />;
}
