/**
 * Checks a merged Flux file and turns it into the plan the runtime builds:
 * every id a stream or ref uses is declared (else the declared ones are
 * listed, with the likeliest), components do not refer to each other in a
 * circle, each className names something hstorm can load, groupings have
 * the arguments their type takes, and config keys are ones hstorm accepts.
 * Each error points at the line and column of what is wrong.
 */
import { ConfigError } from '../common/errors.js';
import { holdsSecret } from '../common/security/secret-config.js';
import { validateEntries } from '../common/config/index.js';
import { closestName } from '../common/did-you-mean.js';
import { TOPOLOGY_NAME } from '../common/storm-base.js';
import { classTarget } from './class-names.js';
import { FluxInvalidError, FluxNotYetError, FluxReferenceError } from './errors.js';
import { pathText, type YamlPath } from './flux-source.js';
import type { FluxTree, Located } from './load-includes.js';
import type { ArgPlan, ClassRef, ComponentPlan, FluxPlan, FluxPosition, ObjectPlan, SerializationPlan, StreamPlan, VertexPlan } from './runtime/plan.js';
import type { ComponentDefinition, ObjectDefinition, StreamDefinition, VertexDefinition } from './schema.js';

export interface PlannedFlux {
  plan: FluxPlan;
  /** What the plan's module refs index: absolute file paths, or package specifiers. */
  modules: string[];
  /** The `name` key, checked; null when the file has none. */
  name: string | null;
}

/** What the command reading the file allows beyond the defaults. */
export interface PlanOptions {
  /** Node built-in modules a className may name, as `node:` names (--flux-allow-builtin). */
  allowBuiltinModules?: ReadonlySet<string>;
}

/**
 * Member names no factory, property or config method may use: with them a className reaches past the class to what
 * every function has — `factory: constructor` is `Function`, which makes a function of a string.
 */
const RESERVED_MEMBERS = new Set(['constructor', '__proto__', 'prototype']);

/** Storm's config key for the classes that travel between workers; in a Flux file it becomes registerSerialization calls. */
const KRYO_REGISTER = 'topology.kryo.register';

function listed(ids: Iterable<string>): string {
  const all = [...ids];
  return all.length ? all.map((i) => `"${i}"`).join(', ') : 'none';
}

/** "did you mean" and the declared ids, for an id nothing declares. */
function unknownId(id: string, ids: Iterable<string>, kind: string): string {
  const declared = [...ids];
  const hint = closestName(id, declared);
  return `${hint ? `did you mean "${hint}"? ` : ''}declared ${kind}: ${listed(declared)}`;
}

class Planner {
  private readonly modules: string[] = [];
  private readonly boltIds: string[];
  private readonly spoutIds: string[];

  constructor(
    private readonly tree: FluxTree,
    private readonly opts: PlanOptions,
  ) {
    this.boltIds = [...tree.bolts.keys()];
    this.spoutIds = [...tree.spouts.keys()];
  }

  private at(d: Located<unknown>, ...sub: YamlPath): FluxPosition {
    return d.src.position([...d.path, ...sub]);
  }

  private classRef(d: Located<ObjectDefinition>): ClassRef {
    return this.classAt(d.value.className, { value: d.value.className, src: d.src, path: [...d.path, 'className'] });
  }

  /** The ClassRef of a className `spec` written at `d`. */
  private classAt(spec: string, d: Located<unknown>): ClassRef {
    const target = classTarget(spec, d.src.path, this.at(d), pathText(d.path), this.opts.allowBuiltinModules);
    if (target.kind === 'builtin') return { kind: 'builtin', name: target.name, spec };
    let i = this.modules.indexOf(target.specifier);
    if (i < 0) i = this.modules.push(target.specifier) - 1;
    return { kind: 'module', module: i, export: target.export, spec };
  }

  private ref(id: unknown, d: Located<unknown>, sub: YamlPath): string {
    const at = this.at(d, ...sub);
    if (typeof id !== 'string' || id === '') throw new FluxInvalidError(`${pathText([...d.path, ...sub])}: a ref is the id of an entry of components`, at, pathText([...d.path, ...sub]));
    if (!this.tree.components.has(id)) {
      const vertex = this.tree.spouts.has(id) || this.tree.bolts.has(id) ? ` ("${id}" is a spout or bolt; a ref names an entry of components)` : '';
      throw new FluxReferenceError(`${pathText([...d.path, ...sub])}: ref "${id}": no component has this id${vertex}; ${unknownId(id, this.tree.components.keys(), 'components')}`, at, pathText([...d.path, ...sub]), id);
    }
    return id;
  }

  /** Storm's rule: in an argument list, a map whose only key is `ref` or `reflist` is a reference; anything else is a value. */
  private args(list: readonly unknown[] | undefined, d: Located<unknown>, sub: YamlPath): ArgPlan[] {
    return (list ?? []).map((a, i): ArgPlan => {
      if (a !== null && typeof a === 'object' && !Array.isArray(a)) {
        const keys = Object.keys(a);
        const v = (a as Record<string, unknown>)[keys[0]!];
        if (keys.length === 1 && keys[0] === 'ref') return { kind: 'ref', id: this.ref(v, d, [...sub, i, 'ref']) };
        if (keys.length === 1 && keys[0] === 'reflist') {
          if (!Array.isArray(v)) throw new FluxInvalidError(`${pathText([...d.path, ...sub, i, 'reflist'])}: expected a list of component ids`, this.at(d, ...sub, i, 'reflist'), pathText([...d.path, ...sub, i, 'reflist']));
          return { kind: 'reflist', ids: v.map((id, j) => this.ref(id, d, [...sub, i, 'reflist', j])) };
        }
      }
      return { kind: 'value', value: a };
    });
  }

  private reserved(name: string, d: Located<unknown>, ...sub: YamlPath): void {
    if (!RESERVED_MEMBERS.has(name)) return;
    const key = pathText([...d.path, ...sub]);
    throw new FluxInvalidError(`${key}: "${name}" is not a method or field a Flux file may use (it reaches what every object and function has, not the class's own)`, this.at(d, ...sub), key);
  }

  private object(d: Located<ObjectDefinition>): ObjectPlan {
    const o = d.value;
    if (o.factory !== undefined) this.reserved(o.factory, d, 'factory');
    (o.properties ?? []).forEach((p, i) => this.reserved(p.name, d, 'properties', i, 'name'));
    (o.configMethods ?? []).forEach((m, i) => this.reserved(m.name, d, 'configMethods', i, 'name'));
    if (o.factory === undefined && o.factoryArgs !== undefined) {
      throw new FluxInvalidError(`${pathText([...d.path, 'factoryArgs'])}: factoryArgs without factory (the static method to call)`, this.at(d, 'factoryArgs'), pathText([...d.path, 'factoryArgs']));
    }
    if (o.factory !== undefined && o.constructorArgs !== undefined) {
      throw new FluxInvalidError(`${pathText([...d.path, 'constructorArgs'])}: constructorArgs with factory: a factory takes factoryArgs`, this.at(d, 'constructorArgs'), pathText([...d.path, 'constructorArgs']));
    }
    return {
      className: this.classRef(d),
      constructorArgs: this.args(o.constructorArgs, d, ['constructorArgs']),
      factory: o.factory ?? null,
      factoryArgs: this.args(o.factoryArgs, d, ['factoryArgs']),
      properties: (o.properties ?? []).map((p, i) => ({
        name: p.name,
        value: p.ref !== undefined ? { kind: 'ref' as const, id: this.ref(p.ref, d, ['properties', i, 'ref']) } : { kind: 'value' as const, value: p.value },
        at: this.at(d, 'properties', i),
        key: pathText([...d.path, 'properties', i]),
      })),
      configMethods: (o.configMethods ?? []).map((m, i) => ({
        name: m.name,
        args: this.args(m.args, d, ['configMethods', i, 'args']),
        at: this.at(d, 'configMethods', i),
        key: pathText([...d.path, 'configMethods', i]),
      })),
      at: this.at(d, 'className'),
      key: pathText(d.path),
    };
  }

  component(d: Located<ComponentDefinition>): ComponentPlan {
    return { id: d.value.id, ...this.object(d) };
  }

  /**
   * Storm's `topology.kryo.register` in the file's config: a list whose entries are a className (the class travels as
   * its fields) or a map of one className to the className of its serializer — as Storm's Config takes it, with
   * hstorm's className form (`"./rankings.js#Rankings"`).
   */
  private serializations(d: Located<unknown> | undefined): SerializationPlan[] {
    if (!d) return [];
    const list = d.value;
    const form = 'a list of classNames, or of { className: serializerClassName } maps (e.g. - "./rankings.js#Rankings")';
    if (!Array.isArray(list)) throw new FluxInvalidError(`${pathText(d.path)}: expected ${form}`, this.at(d), pathText(d.path));
    return list.map((entry: unknown, i): SerializationPlan => {
      const item: Located<unknown> = { value: entry, src: d.src, path: [...d.path, i] };
      const key = pathText(item.path);
      if (typeof entry === 'string' && entry !== '') return { className: this.classAt(entry, item), serializer: null, at: this.at(item), key };
      const pairs = entry !== null && typeof entry === 'object' && !Array.isArray(entry) ? Object.entries(entry) : [];
      const [pair] = pairs;
      if (pairs.length !== 1 || typeof pair![1] !== 'string' || pair![1] === '') throw new FluxInvalidError(`${key}: expected a className or one { className: serializerClassName } pair; ${pathText(d.path)} is ${form}`, this.at(item), key);
      const [cls, ser] = pair as [string, string];
      return {
        className: this.classAt(cls, { value: cls, src: d.src, path: item.path }),
        serializer: this.classAt(ser, { value: ser, src: d.src, path: [...item.path, cls] }),
        at: this.at(item),
        key,
      };
    });
  }

  private config(entries: Iterable<[string, Located<unknown>]>, where: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, d] of entries) {
      try {
        Object.assign(out, validateEntries({ [key]: d.value }, { allowUserKeys: true, where }));
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        throw new FluxInvalidError(`${pathText(d.path)}: ${this.configMessage(err, key, d)}`, d.src.position(d.path, { key: true }), pathText(d.path));
      }
    }
    return out;
  }

  /** The config error's message, the value left out when it holds a secret or came from a variable. */
  private configMessage(err: ConfigError, key: string, d: Located<unknown>): string {
    const instead = holdsSecret(key, d.value) ? '(the value is not shown: it holds a secret)' : d.src.written(d.path);
    if (instead === null) return err.message;
    // The message quotes the value as JSON after the key; a hint after " — " may quote it again.
    return err.message.split(JSON.stringify(d.value)).join(instead).split(' — ')[0]!;
  }

  vertex(d: Located<VertexDefinition>): VertexPlan {
    const v = d.value;
    const gpu = v.gpu === undefined || v.gpu === false ? null : v.gpu === true ? { memoryMB: 0 } : v.gpu;
    const memory = v.onHeapMemoryLoad === undefined && v.offHeapMemoryLoad === undefined ? null : (v.onHeapMemoryLoad ?? 0) + (v.offHeapMemoryLoad ?? 0);
    const config = Object.entries(v.config ?? {}).map(([k, value]): [string, Located<unknown>] => [k, { value, src: d.src, path: [...d.path, 'config', k] }]);
    return {
      id: v.id,
      ...this.object(d),
      parallelism: v.parallelism,
      config: this.config(config, `the config of ${v.id}`),
      gpu,
      cpuLoad: v.cpuLoad ?? null,
      memoryLoad: memory,
      numTasks: v.numTasks ?? null,
    };
  }

  stream(d: Located<StreamDefinition>): StreamPlan {
    const s = d.value;
    const key = (k: string) => pathText([...d.path, k]);
    if (!this.tree.spouts.has(s.from) && !this.tree.bolts.has(s.from)) {
      throw new FluxReferenceError(`${key('from')}: "${s.from}": no spout or bolt has this id; ${unknownId(s.from, [...this.spoutIds, ...this.boltIds], 'spouts and bolts')}`, this.at(d, 'from'), key('from'), s.from);
    }
    if (!this.tree.bolts.has(s.to)) {
      const why = this.tree.spouts.has(s.to) ? `"${s.to}" is a spout, and a spout takes no input; declared bolts: ${listed(this.boltIds)}` : `no bolt has this id; ${unknownId(s.to, this.boltIds, 'bolts')}`;
      throw new FluxReferenceError(`${key('to')}: "${s.to}": ${why}`, this.at(d, 'to'), key('to'), s.to);
    }
    const g = s.grouping;
    const gkey = (k: string) => pathText([...d.path, 'grouping', k]);
    if (g.type === 'FIELDS' && !g.args?.length) {
      throw new FluxInvalidError(`${pathText([...d.path, 'grouping'])}: grouping FIELDS needs args, the fields to group by (e.g. args: ["word"])`, this.at(d, 'grouping'), gkey('args'));
    }
    if (g.type !== 'FIELDS' && g.args !== undefined) {
      throw new FluxInvalidError(`${gkey('args')}: grouping ${g.type} takes no args (args are the fields of a FIELDS grouping)`, this.at(d, 'grouping', 'args'), gkey('args'));
    }
    if (g.type === 'CUSTOM' && !g.customClass) {
      throw new FluxInvalidError(`${pathText([...d.path, 'grouping'])}: grouping CUSTOM needs customClass (className, constructorArgs, …) of the grouping to use`, this.at(d, 'grouping'), gkey('customClass'));
    }
    if (g.type !== 'CUSTOM' && g.customClass) {
      throw new FluxInvalidError(`${gkey('customClass')}: customClass is for grouping CUSTOM, not ${g.type}`, this.at(d, 'grouping', 'customClass'), gkey('customClass'));
    }
    return {
      from: s.from,
      to: s.to,
      streamId: g.streamId ?? 'default',
      grouping: { type: g.type, fields: g.args ?? [], custom: g.customClass ? this.object({ value: g.customClass, src: d.src, path: [...d.path, 'grouping', 'customClass'] }) : null },
      at: this.at(d, 'grouping', 'type'),
      key: gkey('type'),
    };
  }

  /** Components whose refs lead back to themselves could never be made. */
  checkRefCycles(components: readonly ComponentPlan[]): void {
    const refs = (o: ObjectPlan): string[] =>
      [...o.constructorArgs, ...o.factoryArgs, ...o.configMethods.flatMap((m) => m.args), ...o.properties.map((p) => p.value)].flatMap((a) => (a.kind === 'ref' ? [a.id] : a.kind === 'reflist' ? a.ids : []));
    const byId = new Map(components.map((c) => [c.id, c]));
    const state = new Map<string, 'open' | 'done'>();
    const visit = (id: string, trail: string[]): void => {
      if (state.get(id) === 'done') return;
      if (state.get(id) === 'open') {
        const cycle = [...trail.slice(trail.indexOf(id)), id];
        const c = byId.get(id)!;
        throw new FluxReferenceError(`${c.key}: component "${id}" refers to itself through ${cycle.join(' → ')}: components referring to each other in a circle cannot be made`, c.at, c.key, id);
      }
      state.set(id, 'open');
      for (const r of refs(byId.get(id)!)) visit(r, [...trail, id]);
      state.set(id, 'done');
    };
    for (const c of components) visit(c.id, []);
  }

  plan(): PlannedFlux {
    const t = this.tree;
    const unsupported = t.unsupported[0];
    if (unsupported) {
      const why =
        unsupported.value === 'topologySource'
          ? 'topologySource (a class that builds the topology) is not in hstorm: a topology module does that job; run it directly (hstorm local <module>)'
          : 'workerHooks are not yet in hstorm';
      throw new FluxNotYetError(why, unsupported.src.position(unsupported.path, { key: true }), pathText(unsupported.path), unsupported.value);
    }
    const name = t.name;
    if (name && !TOPOLOGY_NAME.test(name.value)) {
      throw new FluxInvalidError(`name: ${name.src.written(name.path) ?? JSON.stringify(name.value)} is not a topology name; allowed: 1 to 100 letters, digits, "_" or "-"`, name.src.position(name.path), 'name');
    }
    if (t.spouts.size === 0) {
      throw new FluxInvalidError('spouts: a topology needs at least one spout; the spouts list is missing or empty', t.root.position(['spouts']), 'spouts');
    }
    for (const [id, d] of t.bolts) {
      if (t.spouts.has(id)) {
        throw new FluxReferenceError(`${pathText([...d.path, 'id'])}: bolt id "${id}" is also a spout's id: spouts and bolts share one set of ids`, this.at(d, 'id'), pathText([...d.path, 'id']), id);
      }
    }
    const serializations = this.serializations(t.config.get(KRYO_REGISTER));
    const config = this.config([...t.config].filter(([k]) => k !== KRYO_REGISTER), 'the topology config');
    const components = [...t.components.values()].map((d) => this.component(d));
    this.checkRefCycles(components);
    const plan: FluxPlan = {
      source: t.root.file,
      config,
      serializations,
      components,
      spouts: [...t.spouts.values()].map((d) => this.vertex(d)),
      bolts: [...t.bolts.values()].map((d) => this.vertex(d)),
      streams: t.streams.map((d) => this.stream(d)),
    };
    return { plan, modules: this.modules, name: name?.value ?? null };
  }
}

export function planFlux(tree: FluxTree, opts: PlanOptions = {}): PlannedFlux {
  return new Planner(tree, opts).plan();
}
