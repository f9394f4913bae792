/**
 * Makes the objects a Flux plan describes, as Storm's FluxBuilder does: a
 * class from a module (or a built-in), `new` with the constructor arguments
 * or a static `factory` with its arguments, then `properties` (a setter
 * `setName` when there is one, else the field) and `configMethods` in order.
 * References resolve to `components`, each made once per Instantiator — one
 * Instantiator per task, so a task's spout or bolt and what it refers to are
 * its own, as Storm gives each task its own deserialized copy.
 */
import { FluxClassError } from './errors.js';
import { BUILTINS } from './storm-classes.js';
import type { ArgPlan, ClassRef, FluxPlan, FluxPosition, ObjectPlan } from './plan.js';

/** A module's namespace object, as `import * as m` gives it. */
export type ModuleNamespace = Readonly<Record<string, unknown>>;

type Callable = (...args: unknown[]) => unknown;
type Constructible = new (...args: unknown[]) => unknown;

function isConstructor(f: unknown): f is Constructible {
  if (typeof f !== 'function') return false;
  try {
    // Constructs nothing: only asks whether `f` may be a new.target (arrow functions and methods may not).
    Reflect.construct(String, [], f);
    return true;
  } catch {
    return false;
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The member `name` of `obj` from its own prototype chain, stopping short of Object.prototype and Function.prototype:
 * what every object and function has (`constructor`, `call`, `apply`, `bind`, `__proto__`) is not a method of the
 * class, and through it a Flux file made and ran functions from strings (`factory: constructor`, then `call`).
 */
function member(obj: unknown, name: string): { value: unknown } | null {
  if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) return null;
  for (let p: object | null = obj; p && p !== Object.prototype && p !== Function.prototype; p = Object.getPrototypeOf(p) as object | null) {
    if (Object.getOwnPropertyDescriptor(p, name)) return { value: (obj as Record<string, unknown>)[name] };
  }
  return null;
}

/** Names of the functions an object has, own and inherited, for "it has: …" in messages. */
function methodNames(obj: object): string[] {
  const names = new Set<string>();
  for (let p: object | null = obj; p && p !== Object.prototype && p !== Function.prototype; p = Object.getPrototypeOf(p) as object | null) {
    for (const n of Object.getOwnPropertyNames(p)) {
      if (n === 'constructor' || n.startsWith('_')) continue;
      const d = Object.getOwnPropertyDescriptor(p, n);
      if (d && typeof d.value === 'function') names.add(n);
    }
  }
  return [...names].sort();
}

export function resolveClass(ref: ClassRef, modules: readonly ModuleNamespace[], at: FluxPosition, key: string): unknown {
  if (ref.kind === 'builtin') return BUILTINS[ref.name];
  const ns = modules[ref.module];
  if (!ns) throw new Error(`invariant: module #${ref.module} of "${ref.spec}" is imported by the generated module`);
  if (!Object.hasOwn(ns, ref.export) || ns[ref.export] === undefined) {
    const exported = Object.keys(ns).filter((k) => ns[k] !== undefined);
    throw new FluxClassError(
      `"${ref.spec}": the module has no export "${ref.export}"; it exports ${exported.length ? exported.map((e) => `"${e}"`).join(', ') : 'nothing'}`,
      at,
      key,
      ref.spec,
    );
  }
  return ns[ref.export];
}

export class Instantiator {
  private readonly made = new Map<string, unknown>();

  constructor(
    private readonly plan: FluxPlan,
    private readonly modules: readonly ModuleNamespace[],
  ) {}

  /** The component with this id, made on first use. References were checked (existence, no cycle) when the file was compiled. */
  component(id: string): unknown {
    if (this.made.has(id)) return this.made.get(id);
    const def = this.plan.components.find((c) => c.id === id);
    if (!def) throw new Error(`invariant: component "${id}" was checked to exist when the Flux file was compiled`);
    const obj = this.make(def, `component "${id}"`);
    this.made.set(id, obj);
    return obj;
  }

  private arg(a: ArgPlan): unknown {
    if (a.kind === 'value') return structuredClone(a.value);
    if (a.kind === 'ref') return this.component(a.id);
    return a.ids.map((id) => this.component(id));
  }

  /** Makes one object: class, constructor or factory, properties, config methods. `what` names it in messages. */
  make(def: ObjectPlan, what: string): unknown {
    const spec = def.className.spec;
    const cls = resolveClass(def.className, this.modules, def.at, `${def.key}.className`);
    let obj: unknown;
    if (def.factory !== null) {
      const f = member(cls, def.factory)?.value;
      if (typeof f !== 'function') {
        const statics = cls && (typeof cls === 'function' || typeof cls === 'object') ? methodNames(cls) : [];
        throw new FluxClassError(
          `${what}: factory "${def.factory}" is not a static method of ${spec}${statics.length ? `; it has ${statics.join(', ')}` : ''}`,
          def.at,
          `${def.key}.factory`,
          spec,
        );
      }
      const args = def.factoryArgs.map((a) => this.arg(a));
      obj = this.call(() => (f as Callable).apply(cls, args), `${what}: ${spec}.${def.factory}(…) threw`, def.at, `${def.key}.factory`, spec);
    } else {
      if (!isConstructor(cls)) {
        throw new FluxClassError(
          `${what}: ${spec} is not a class (${typeof cls}); name a class, or give \`factory:\` to call a static method that makes the object`,
          def.at,
          `${def.key}.className`,
          spec,
        );
      }
      const args = def.constructorArgs.map((a) => this.arg(a));
      obj = this.call(() => new cls(...args), `${what}: new ${spec}(…) threw`, def.at, `${def.key}.className`, spec);
    }
    if (obj === null || (typeof obj !== 'object' && typeof obj !== 'function')) {
      throw new FluxClassError(`${what}: ${spec} made ${String(obj)}, not an object`, def.at, `${def.key}.factory`, spec);
    }
    const target = obj as Record<string, unknown>;
    for (const p of def.properties) {
      const value = this.arg(p.value);
      const setter = `set${p.name.charAt(0).toUpperCase()}${p.name.slice(1)}`;
      if (typeof member(target, setter)?.value === 'function') {
        this.call(() => (target[setter] as Callable).call(target, value), `${what}: property "${p.name}": ${setter}(…) threw`, p.at, p.key, spec);
      } else if (member(target, p.name)) {
        target[p.name] = value;
      } else {
        const fields = Object.keys(target).filter((k) => typeof target[k] !== 'function');
        throw new FluxClassError(
          `${what}: property "${p.name}": ${spec} has neither a field "${p.name}" nor a method ${setter}; its fields: ${fields.join(', ') || 'none'}`,
          p.at,
          p.key,
          spec,
        );
      }
    }
    for (const m of def.configMethods) {
      const fn = member(target, m.name)?.value;
      if (typeof fn !== 'function') {
        throw new FluxClassError(`${what}: config method "${m.name}" is not a method of ${spec}; its methods: ${methodNames(target).join(', ') || 'none'}`, m.at, m.key, spec);
      }
      const args = m.args.map((a) => this.arg(a));
      this.call(() => (fn as Callable).apply(target, args), `${what}: ${m.name}(…) threw`, m.at, m.key, spec);
    }
    return obj;
  }

  private call<T>(fn: () => T, context: string, at: FluxPosition, key: string, spec: string): T {
    try {
      return fn();
    } catch (err) {
      if (err instanceof FluxClassError) throw err;
      throw new FluxClassError(`${context}: ${message(err)}`, at, key, spec, { cause: err });
    }
  }
}
