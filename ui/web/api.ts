/**
 * The page's only source: Storm's UI REST API on the same server. Types come
 * from the views nimbus builds, so the page and the API cannot drift apart.
 */
import type { ClusterSummaryView, NimbusSummaryView, SupervisorSummaryView, TopologySummaryView } from '../storm-ui/cluster-views.js';
import type { ComponentPageView, TopologyPageView } from '../storm-ui/topology-views.js';

export type { ClusterSummaryView, NimbusSummaryView, SupervisorSummaryView, TopologySummaryView, ComponentPageView, TopologyPageView };

export type Window = '600' | '10800' | '86400' | ':all-time';

const SECRET_KEY = 'hstorm.nimbus.secret';

/**
 * fetch with nimbus's shared secret (nimbus.auth.secret) when this tab has
 * one: on a 401 the page asks for it once, keeps it for the tab
 * (sessionStorage, gone when the tab closes) and tries again.
 */
async function authorizedFetch(url: string, init: RequestInit = {}): Promise<Response> {
  const send = (): Promise<Response> => {
    const secret = sessionStorage.getItem(SECRET_KEY);
    const headers = new Headers(init.headers);
    if (secret) headers.set('authorization', `Bearer ${secret}`);
    return fetch(url, { ...init, headers });
  };
  const res = await send();
  if (res.status !== 401) return res;
  const given = window.prompt(
    sessionStorage.getItem(SECRET_KEY) ? 'nimbus refused this secret; enter nimbus.auth.secret again:' : 'This nimbus needs its shared secret (nimbus.auth.secret):',
  );
  if (!given) return res;
  sessionStorage.setItem(SECRET_KEY, given.trim());
  return send();
}

async function get<T>(path: string): Promise<T> {
  const res = await authorizedFetch(`/api/v1${path}`, { headers: { accept: 'application/json' } });
  const body = (await res.json()) as T & { error?: { code: string; message: string } };
  if (!res.ok) throw new Error(body.error ? `${body.error.code}: ${body.error.message}` : `HTTP ${res.status}`);
  return body;
}

export interface ClusterData {
  cluster: ClusterSummaryView;
  nimbus: NimbusSummaryView;
  supervisors: SupervisorSummaryView;
  topologies: TopologySummaryView;
}

export async function loadCluster(): Promise<ClusterData> {
  const [cluster, nimbus, supervisors, topologies] = await Promise.all([
    get<ClusterSummaryView>('/cluster/summary'),
    get<NimbusSummaryView>('/nimbus/summary'),
    get<SupervisorSummaryView>('/supervisor/summary'),
    get<TopologySummaryView>('/topology/summary'),
  ]);
  return { cluster, nimbus, supervisors, topologies };
}

export function loadTopology(id: string, window: Window): Promise<TopologyPageView> {
  return get(`/topology/${encodeURIComponent(id)}?window=${encodeURIComponent(window)}`);
}

export function loadComponent(id: string, component: string, window: Window): Promise<ComponentPageView> {
  return get(`/topology/${encodeURIComponent(id)}/component/${encodeURIComponent(component)}?window=${encodeURIComponent(window)}&sys=1`);
}

/** Storm's POST actions; kill and rebalance with a wait of `waitSecs`. */
export async function act(id: string, action: 'activate' | 'deactivate' | 'kill' | 'rebalance', waitSecs = 0): Promise<void> {
  const path = action === 'kill' || action === 'rebalance' ? `${action}/${waitSecs}` : action;
  // JSON, as nimbus requires of every state-changing request (nimbus/http-cross-site.ts: no other site can send it).
  const res = await authorizedFetch(`/api/v1/topology/${encodeURIComponent(id)}/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  if (!res.ok) {
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    throw new Error(body?.error?.message ?? `HTTP ${res.status}`);
  }
}
