/**
 * Every znode path hstorm uses, built in one place. Paths are relative to the
 * store's root: the ZooKeeper store prefixes `hstorm.zookeeper.root` itself,
 * so several clusters can share one ensemble.
 *
 *   /nimbus                                 ephemeral: { host, port } of the running nimbus
 *   /supervisors/<supervisor-id>            ephemeral: SupervisorInfo
 *   /storms/<topology-id>                   StormBase (definition, config, status, code)
 *   /assignments/<topology-id>              Assignment
 *   /workerbeats/<topology-id>/<sup>-<port> WorkerHeartbeat
 *   /signals/<topology-id>/<component>/<n>  Signal (γ and other component signals)
 */
const SEGMENT = /^[A-Za-z0-9._:-]+$/;

function seg(s: string, what: string): string {
  if (!SEGMENT.test(s)) throw new Error(`invalid ${what} for a znode name: ${JSON.stringify(s)}`);
  return s;
}

export const ZkPaths = {
  nimbus: '/nimbus',
  supervisors: '/supervisors',
  supervisor: (id: string) => `/supervisors/${seg(id, 'supervisor id')}`,
  storms: '/storms',
  storm: (topologyId: string) => `/storms/${seg(topologyId, 'topology id')}`,
  assignments: '/assignments',
  assignment: (topologyId: string) => `/assignments/${seg(topologyId, 'topology id')}`,
  workerbeats: '/workerbeats',
  workerbeatsOf: (topologyId: string) => `/workerbeats/${seg(topologyId, 'topology id')}`,
  workerbeat: (topologyId: string, supervisorId: string, port: number) =>
    `/workerbeats/${seg(topologyId, 'topology id')}/${seg(supervisorId, 'supervisor id')}-${port}`,
  signals: '/signals',
  signalsOf: (topologyId: string) => `/signals/${seg(topologyId, 'topology id')}`,
  signal: (topologyId: string, component: string, name: string) =>
    `/signals/${seg(topologyId, 'topology id')}/${seg(component, 'component id')}/${seg(name, 'signal name')}`,
  /**
   * A child of a directory node, by the name the store listed: not checked like the ids above, since a name that is
   * already in the tree (a stray or garbage node) must still be readable, reportable and removable.
   */
  childOf: (dir: string, name: string) => `${dir}/${name}`,
  /** Top-level nodes every daemon makes sure exist. */
  roots: () => ['/supervisors', '/storms', '/assignments', '/workerbeats', '/signals'],
} as const;

/** `<sup>-<port>` → { supervisorId, port } (supervisor ids may contain '-'). */
export function parseWorkerbeatName(name: string): { supervisorId: string; port: number } | null {
  const i = name.lastIndexOf('-');
  if (i <= 0) return null;
  const port = Number(name.slice(i + 1));
  if (!Number.isInteger(port)) return null;
  return { supervisorId: name.slice(0, i), port };
}
