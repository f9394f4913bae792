/**
 * The adaptive CPU/GPU split a spout emits through (H-Storm §2.2.2, DESIGN §8).
 * Each tuple goes to exactly one of two declared streams, the GPU one for a
 * share γ of them, by walking a decision window (internal/decision-window.ts).
 *
 * Every τ (`hstorm.split.sample.ms`) each spout task folds the complete
 * latencies of the messages acked on each stream into cumulative totals, and
 * the tasks other than the controller publish them to it as a signal. Every T
 * (`hstorm.split.window.ms`) the controller — task index 0 of the spout
 * component — averages the window over all tasks, computes δ and
 * γ' = γ + θ(δ − γ) (internal/split-controller.ts) and publishes γ' as the signal
 * `split.gamma`; every task (the controller too) applies it when the signal
 * arrives, and records when, so a test can check every task followed.
 *
 * The split follows what runs: a side whose subscribers have no running task
 * (the scheduler left them unplaced, their worker is gone) is infinitely slow.
 * From the assignment a task applies on, every task stops sending to it at
 * once, and the controller publishes γ = 0 (no GPU side) or 1 (no CPU side)
 * at its next window, with the reason. When the side runs again, γ restarts
 * from `hstorm.split.gamma0` rather than from the value it had before: that
 * value described a placement that is gone (the side may come back on another
 * node, another GPU, with other tasks), and γ0 is the prior the operator set.
 * With both sides down γ stays; the runtime fails those tuples at once.
 *
 * @example
 * open(conf, ctx, collector) {
 *   this.collector = collector;
 *   this.split = new StreamSplit(ctx, conf);
 * }
 * nextTuple() { this.split.emit(this.collector, values, { messageId: id }); }
 * declareOutputFields(d) { StreamSplit.declareStreams(d, ['id', 'a', 'b']); }
 * close() { this.split.close(); }
 * // bolts: .shuffleGrouping('spout', 'cpu') and .shuffleGrouping('spout', 'gpu')
 */
import type { Conf, SpoutOutputCollector, Values } from './components.js';
import type { Signal, TopologyContext } from './context.js';
import type { OutputFieldsDeclarer } from './output-declarer.js';
import type { AppliedGamma, SplitMetrics, SplitSide } from '../common/storm-base.js';
import { CONFIG_KEYS, type ConfigValue } from '../common/config/schema.js';
import { checkKey } from '../common/config/config.js';
import { ConfigError } from '../common/errors.js';
import { decisionWindow } from './internal/decision-window.js';
import { LatencyWindow, capacityDelta, latencyDelta, stepGamma, type SplitPolicy, type TaskTotals } from './internal/split-controller.js';
import { realIntervalClock, type IntervalClock } from '../common/interval-clock.js';

export const SPLIT_GAMMA_SIGNAL = 'split.gamma';
/** Prefix of the signal a spout task publishes its totals on (suffix: its task id). */
export const SPLIT_SAMPLES_SIGNAL = 'split.samples.';
/** How many applied γ values a task remembers for its metrics. */
const APPLIED_KEPT = 32;

export interface StreamSplitOptions {
  /** Stream ids (defaults 'cpu' and 'gpu'). */
  cpuStream?: string;
  gpuStream?: string;
  /** Components subscribed to each stream; required by the `capacity` policy, which reads their load. */
  cpuComponent?: string;
  gpuComponent?: string;
  /** Override the hstorm.split.* config (validated the same way). */
  gamma0?: number;
  theta?: number;
  sampleMs?: number;
  windowMs?: number;
  maxWindow?: number;
  policy?: SplitPolicy;
  /** Where τ, T and "now" come from (default: real timers, unref'd, and Date.now); tests pass a manual clock. */
  clock?: SplitClock;
}

/** The time source of a StreamSplit: injectable so that tests step windows instead of sleeping through them. */
export type SplitClock = IntervalClock;

/** The value of a `split.gamma` signal. */
export interface GammaUpdate {
  gamma: number;
  delta: number | null;
  latCpuMs: number | null;
  latGpuMs: number | null;
  window: number;
  /** Set when γ was not learned: a side has no running task, or it came back and γ restarts from γ0. */
  reason?: string;
}

type Side = 'cpu' | 'gpu';

export class StreamSplit {
  readonly cpuStream: string;
  readonly gpuStream: string;
  readonly theta: number;
  readonly policy: SplitPolicy;
  readonly maxWindow: number;
  readonly isController: boolean;
  private gammaNow: number;
  private window: boolean[];
  private pos = 0;
  private sentCpu = 0;
  private sentGpu = 0;
  private delta: number | null = null;
  private latCpuMs: number | null = null;
  private latGpuMs: number | null = null;
  private readonly applied: AppliedGamma[] = [];
  /** Complete latencies since the last τ sample, and the totals of all samples taken. */
  private bucket: TaskTotals = emptyTotals();
  private readonly totals: TaskTotals = emptyTotals();
  private publishedTotals = -1;
  private readonly latencyWindow = new LatencyWindow();
  private windows = 0;
  /** Controller: the γ the next window starts from (the last one published or applied, whichever is newer). */
  private basis: number;
  private readonly clock: SplitClock;
  private readonly timers: (() => void)[] = [];
  private closed = false;
  private computing = false;
  private readonly gamma0: number;
  /** Each side's subscribers and whether they run, refreshed on every assignment the worker applies. */
  private readonly sides: Record<Side, SplitSide>;
  /** Controller: γ is held at 0 or 1 because a side is down; cleared, and γ restarted from γ0, when both run. */
  private forced = false;
  private readonly stopPlacement: () => void;

  constructor(
    private readonly context: TopologyContext,
    conf: Conf,
    private readonly options: StreamSplitOptions = {},
  ) {
    this.cpuStream = options.cpuStream ?? 'cpu';
    this.gpuStream = options.gpuStream ?? 'gpu';
    this.clock = options.clock ?? realIntervalClock;
    if (this.cpuStream === this.gpuStream) throw new ConfigError(`the split's CPU and GPU streams must differ (both "${this.cpuStream}")`, 'cpuStream', this.cpuStream);
    const gamma0 = setting(conf, 'hstorm.split.gamma0', options.gamma0);
    this.theta = setting(conf, 'hstorm.split.theta', options.theta);
    const sampleMs = setting(conf, 'hstorm.split.sample.ms', options.sampleMs);
    const windowMs = setting(conf, 'hstorm.split.window.ms', options.windowMs);
    this.maxWindow = setting(conf, 'hstorm.split.max.window', options.maxWindow);
    this.policy = setting(conf, 'hstorm.split.policy', options.policy);
    if (this.policy === 'capacity' && (!options.cpuComponent || !options.gpuComponent)) {
      throw new ConfigError(
        'hstorm.split.policy "capacity" needs the components behind each stream: pass { cpuComponent, gpuComponent } to StreamSplit',
        'hstorm.split.policy',
        this.policy,
      );
    }
    this.gamma0 = gamma0;
    this.gammaNow = gamma0;
    this.basis = gamma0;
    this.window = decisionWindow(gamma0, this.maxWindow);
    this.isController = context.taskIndex === 0;
    this.sides = { cpu: this.sideOf(this.cpuStream), gpu: this.sideOf(this.gpuStream) };
    this.refreshSides();
    this.stopPlacement = context.onPlacementChange(() => this.refreshSides());

    context.onTupleComplete((stream, latencyMs, acked) => this.onComplete(stream, latencyMs, acked));
    context.onSignal<GammaUpdate>(SPLIT_GAMMA_SIGNAL, (s) => this.apply(s));
    context.reportMetrics('split', () => this.metrics());
    this.every(sampleMs, () => this.sample());
    if (this.isController) {
      for (const task of context.componentTasks) {
        if (task === context.taskId) continue;
        context.onSignal<TaskTotals>(`${SPLIT_SAMPLES_SIGNAL}${task}`, (s) => {
          if (isTotals(s.value)) this.latencyWindow.observe(task, s.value);
        });
      }
      this.every(windowMs, () => void this.closeWindow());
    }
  }

  /** Declares the two streams with the same fields. */
  static declareStreams(declarer: OutputFieldsDeclarer, fields: readonly string[], streams: { cpuStream?: string; gpuStream?: string } = {}): void {
    declarer.declareStream(streams.cpuStream ?? 'cpu', fields);
    declarer.declareStream(streams.gpuStream ?? 'gpu', fields);
  }

  get gamma(): number {
    return this.gammaNow;
  }

  /** The stream the next tuple goes to (advances the decision window); all to one side while the other has no running task. */
  nextStream(): string {
    const cpuDown = this.sides.cpu.downSince !== null;
    if (cpuDown !== (this.sides.gpu.downSince !== null)) {
      if (cpuDown) this.sentGpu++;
      else this.sentCpu++;
      return cpuDown ? this.gpuStream : this.cpuStream;
    }
    const toGpu = this.window[this.pos] ?? false;
    this.pos = (this.pos + 1) % this.window.length;
    if (toGpu) this.sentGpu++;
    else this.sentCpu++;
    return toGpu ? this.gpuStream : this.cpuStream;
  }

  /** Emits `values` on the CPU or the GPU stream, as the decision window says. */
  emit(collector: SpoutOutputCollector, values: Values, options: { messageId?: unknown } = {}): { stream: string; targets: number[] } {
    const stream = this.nextStream();
    const targets = collector.emit(values, options.messageId === undefined ? { stream } : { stream, messageId: options.messageId });
    return { stream, targets };
  }

  metrics(): SplitMetrics {
    return {
      gamma: round(this.gammaNow),
      delta: this.delta === null ? null : round(this.delta),
      latCpuMs: this.latCpuMs === null ? null : round(this.latCpuMs),
      latGpuMs: this.latGpuMs === null ? null : round(this.latGpuMs),
      policy: this.policy,
      theta: this.theta,
      sentCpu: this.sentCpu,
      sentGpu: this.sentGpu,
      controller: this.isController,
      windows: this.windows,
      applied: this.applied.map((a) => ({ ...a })),
      sides: { cpu: { ...this.sides.cpu, components: [...this.sides.cpu.components] }, gpu: { ...this.sides.gpu, components: [...this.sides.gpu.components] } },
    };
  }

  /** Stops the timers (call from the spout's close). */
  close(): void {
    this.closed = true;
    this.stopPlacement();
    for (const stop of this.timers) stop();
    this.timers.length = 0;
  }

  // ── internals ─────────────────────────────────────────────────────────────

  private every(ms: number, fn: () => void): void {
    this.timers.push(this.clock.every(ms, fn));
  }

  /** A side: the components that subscribe to its stream (none: its tuples complete at once, as any unsubscribed emit). */
  private sideOf(stream: string): SplitSide {
    const me = this.context.componentId;
    const components = this.context.topologyDef.components.filter((c) => c.inputs.some((i) => i.component === me && i.stream === stream)).map((c) => c.id);
    return { components, running: 0, downSince: null, reason: null };
  }

  /** A side is down while any of its subscribers has no running task: its tuples could not complete. */
  private refreshSides(): void {
    const now = this.clock.now();
    for (const side of ['cpu', 'gpu'] as const) {
      const s = this.sides[side];
      let running = 0;
      let reason: string | null = null;
      for (const component of s.components) {
        const p = this.context.placementOf(component);
        running += p.running.length;
        if (p.running.length === 0) reason ??= `no running task of ${component}${p.reason ? `: ${p.reason}` : ''}`;
      }
      s.running = running;
      s.reason = reason;
      if (reason === null) s.downSince = null;
      else s.downSince ??= now;
    }
  }

  private onComplete(stream: string, latencyMs: number, acked: boolean): void {
    // Failed and timed-out messages carry no usable latency (DESIGN §8 samples acked tuples).
    if (!acked) return;
    const side = stream === this.gpuStream ? this.bucket.gpu : stream === this.cpuStream ? this.bucket.cpu : null;
    if (!side) return;
    side.sumMs += latencyMs;
    side.count++;
  }

  /** τ: folds the bucket into the totals; a non-controller task sends them to the controller when they moved. */
  private sample(): void {
    const b = this.bucket;
    this.bucket = emptyTotals();
    this.totals.cpu.sumMs += b.cpu.sumMs;
    this.totals.cpu.count += b.cpu.count;
    this.totals.gpu.sumMs += b.gpu.sumMs;
    this.totals.gpu.count += b.gpu.count;
    if (this.isController) return;
    const count = this.totals.cpu.count + this.totals.gpu.count;
    if (count === this.publishedTotals) return;
    this.publishedTotals = count;
    const c = this.context;
    c.sendSignal(c.componentId, `${SPLIT_SAMPLES_SIGNAL}${c.taskId}`, this.totals).catch((err: unknown) => {
      this.publishedTotals = -1; // send again at the next τ
      c.log.warn({ err }, 'publishing split samples failed; retrying at the next sample');
    });
  }

  /** T: the controller's window. */
  private async closeWindow(): Promise<void> {
    if (this.closed || this.computing) return;
    this.computing = true;
    try {
      this.latencyWindow.observe(this.context.taskId, this.totals);
      const avg = this.latencyWindow.close();
      this.windows++;
      // A side without a running task: γ goes all the way to the other side; the window's samples, from one side
      // only, say nothing about speeds. Both back: γ restarts from γ0 and learns again.
      const cpuDown = this.sides.cpu.downSince !== null;
      const gpuDown = this.sides.gpu.downSince !== null;
      if (cpuDown !== gpuDown) {
        this.forced = true;
        const down = cpuDown ? this.sides.cpu : this.sides.gpu;
        await this.publish(cpuDown ? 1 : 0, `${cpuDown ? 'CPU' : 'GPU'} side: ${down.reason ?? 'no running task'}`);
        return;
      }
      if (cpuDown) return; // both down: nothing to learn, and no side to prefer
      if (this.forced) {
        this.forced = false;
        await this.publish(this.gamma0, 'both sides run again: γ restarts from hstorm.split.gamma0');
        return;
      }
      const delta = this.policy === 'capacity' ? await this.capacityDelta() : latencyDelta(avg.latCpuMs, avg.latGpuMs);
      // A window without δ (a side without samples: idle, deactivated, or just few tuples) leaves γ as it is.
      // Keep showing the δ and latencies behind the current γ then, as the other tasks do (they get them with γ).
      if (delta === null) return;
      this.delta = delta;
      this.latCpuMs = avg.latCpuMs;
      this.latGpuMs = avg.latGpuMs;
      const next = stepGamma(this.basis, this.theta, delta);
      if (this.closed || next === this.basis) return;
      this.basis = next;
      const update: GammaUpdate = { gamma: next, delta: this.delta, latCpuMs: avg.latCpuMs, latGpuMs: avg.latGpuMs, window: this.windows };
      await this.context.sendSignal(this.context.componentId, SPLIT_GAMMA_SIGNAL, update);
    } catch (err) {
      this.context.log.warn({ err }, 'split controller window failed; γ unchanged');
    } finally {
      this.computing = false;
    }
  }

  /** Publishes a γ that was not learned (a side down, or back), with why; nothing when γ is already there. */
  private async publish(gamma: number, reason: string): Promise<void> {
    if (this.closed || gamma === this.basis) return;
    this.basis = gamma;
    this.context.log.info({ gamma, reason }, 'split: γ set, not learned');
    const update: GammaUpdate = { gamma, delta: null, latCpuMs: null, latGpuMs: null, window: this.windows, reason };
    await this.context.sendSignal(this.context.componentId, SPLIT_GAMMA_SIGNAL, update);
  }

  private async capacityDelta(): Promise<number | null> {
    const [cpu, gpu] = await Promise.all([this.context.componentLoad(this.options.cpuComponent!), this.context.componentLoad(this.options.gpuComponent!)]);
    const side = (l: typeof cpu) => (l.meanServiceMs === null ? null : { executors: l.executors, meanServiceMs: l.meanServiceMs });
    return capacityDelta(side(cpu), side(gpu));
  }

  private apply(s: Signal<GammaUpdate>): void {
    const v = s.value;
    if (!v || typeof v.gamma !== 'number' || !(v.gamma >= 0 && v.gamma <= 1)) {
      this.context.log.warn({ value: v }, 'ignored a malformed split.gamma signal');
      return;
    }
    this.gammaNow = v.gamma;
    this.basis = v.gamma;
    this.window = decisionWindow(v.gamma, this.maxWindow);
    // Walk on from where we were rather than from slot 0: a window opens with GPU sends, so restarting it at
    // every update (γ may change more often than a long window is walked) would starve the CPU side.
    this.pos %= this.window.length;
    if (!this.isController) {
      this.delta = v.delta;
      this.latCpuMs = v.latCpuMs;
      this.latGpuMs = v.latGpuMs;
    }
    this.applied.push({ gamma: v.gamma, seq: s.seq, publishedAt: s.time, appliedAt: this.clock.now() });
    if (this.applied.length > APPLIED_KEPT) this.applied.shift();
  }
}

type SplitKey = 'hstorm.split.gamma0' | 'hstorm.split.theta' | 'hstorm.split.sample.ms' | 'hstorm.split.window.ms' | 'hstorm.split.max.window' | 'hstorm.split.policy';

/** A split setting: the StreamSplit option, else the component's config, else the default; checked against the key's schema (an option is not validated elsewhere). */
function setting<K extends SplitKey>(conf: Conf, key: K, override: ConfigValue<K> | undefined): ConfigValue<K> {
  return checkKey(key, override ?? conf[key] ?? CONFIG_KEYS[key].default);
}

function emptyTotals(): TaskTotals {
  return { cpu: { sumMs: 0, count: 0 }, gpu: { sumMs: 0, count: 0 } };
}

function isTotals(v: unknown): v is TaskTotals {
  const side = (s: unknown) => typeof s === 'object' && s !== null && typeof (s as { sumMs?: unknown }).sumMs === 'number' && typeof (s as { count?: unknown }).count === 'number';
  return typeof v === 'object' && v !== null && side((v as TaskTotals).cpu) && side((v as TaskTotals).gpu);
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
