/**
 * The plan a Flux file compiles to: plain JSON, embedded in the generated
 * topology module, from which every process (the CLI, each worker) builds the
 * same topology. Everything a YAML file can get wrong statically is checked
 * before a plan exists (flux/); what is left — a module's export, a
 * constructor that throws, a method a class lacks — is found by the runtime,
 * which names the position kept here.
 */

/** Where something is written in a Flux file: its path as given, 1-based line and column. */
export interface FluxPosition {
  file: string;
  line: number;
  column: number;
}

export function formatPosition(at: FluxPosition): string {
  return `${at.file}:${at.line}:${at.column}`;
}

/** Storm classes hstorm recognises by name and runs as built-ins of its own (storm-classes.ts). */
export type BuiltinClassName =
  | 'FluxShellSpout'
  | 'FluxShellBolt'
  | 'LogInfoBolt'
  | 'TestWordCounter'
  | 'TestWordSpout'
  | 'WindowCount'
  | 'WindowDuration'
  | 'TestWindowBolt'
  | 'TestPrintBolt';

/** What a `className` names: an export of a module (by its index in the generated module's import list), or a built-in. */
export type ClassRef =
  | { kind: 'module'; module: number; export: string; spec: string }
  | { kind: 'builtin'; name: BuiltinClassName; spec: string };

/** An argument as Storm reads one: a `{ ref: id }` or `{ reflist: [ids] }` map alone at the top of an argument list is a reference. */
export type ArgPlan = { kind: 'value'; value: unknown } | { kind: 'ref'; id: string } | { kind: 'reflist'; ids: string[] };

export interface PropertyPlan {
  name: string;
  value: ArgPlan;
  at: FluxPosition;
  /** Its path in the file, `spouts[0].properties[1]`. */
  key: string;
}

export interface MethodPlan {
  name: string;
  args: ArgPlan[];
  at: FluxPosition;
  key: string;
}

/** Flux's ObjectDef: how to make one object. */
export interface ObjectPlan {
  className: ClassRef;
  constructorArgs: ArgPlan[];
  /** A static method of the class that makes the object instead of `new` (Flux's `factory`). */
  factory: string | null;
  factoryArgs: ArgPlan[];
  properties: PropertyPlan[];
  configMethods: MethodPlan[];
  /** Where its className is written. */
  at: FluxPosition;
  /** Its path in the file, `bolts[1]`, `streams[0].grouping.customClass`. */
  key: string;
}

/** An entry of `components`: an object other objects refer to by id. */
export interface ComponentPlan extends ObjectPlan {
  id: string;
}

/** A spout or a bolt, with what the builder's declarer takes. */
export interface VertexPlan extends ComponentPlan {
  parallelism: number;
  /** Flux's per-component `config` (the declarer's addConfiguration). */
  config: Record<string, unknown>;
  /** hstorm's own: `.gpu({ memoryMB })`. */
  gpu: { memoryMB: number } | null;
  cpuLoad: number | null;
  /** onHeapMemoryLoad + offHeapMemoryLoad, MB (hstorm counts one memory figure). */
  memoryLoad: number | null;
  numTasks: number | null;
}

/** Flux's grouping types, and hstorm's own two. */
export const GROUPING_TYPES = ['SHUFFLE', 'FIELDS', 'ALL', 'GLOBAL', 'NONE', 'LOCAL_OR_SHUFFLE', 'DIRECT', 'CUSTOM', 'TWO_CHOICE', 'LOAD_AWARE_SHUFFLE'] as const;
export type FluxGroupingType = (typeof GROUPING_TYPES)[number];

export interface StreamPlan {
  from: string;
  to: string;
  streamId: string;
  grouping: { type: FluxGroupingType; fields: string[]; custom: ObjectPlan | null };
  /** Where its grouping type is written, and that key's path. */
  at: FluxPosition;
  key: string;
}

/**
 * A class whose instances travel between workers: an entry of the config's `topology.kryo.register` (Storm's way of
 * registering a class in a Flux file), built into `registerSerialization(Class, serializer?)`.
 */
export interface SerializationPlan {
  className: ClassRef;
  /** Storm's `{ Class: Serializer }` form: a class made with no arguments (or an object) with write(value) and read(data); null: the instance's own fields. */
  serializer: ClassRef | null;
  /** Where the entry is written, and its path in the file. */
  at: FluxPosition;
  key: string;
}

export interface FluxPlan {
  /** The Flux file the plan came from, as given. */
  source: string;
  config: Record<string, unknown>;
  /** `topology.kryo.register`, taken out of config (where hstorm's config refuses it) into registrations. */
  serializations: SerializationPlan[];
  components: ComponentPlan[];
  spouts: VertexPlan[];
  bolts: VertexPlan[];
  streams: StreamPlan[];
}
