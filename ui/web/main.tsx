/**
 * hstorm's web UI: a Preact page over Storm's UI REST API, routed by the URL
 * hash (#/, #/topology/ID, #/topology/ID/component/C), refreshed every
 * `?refresh=` ms (default 2000) without reloading.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ClusterPage } from './cluster-page.js';
import { ComponentPage } from './component-page.js';
import { TopologyPage } from './topology-page.js';

type Route = { page: 'cluster' } | { page: 'topology'; id: string } | { page: 'component'; id: string; component: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  if (parts[0] === 'topology' && parts[1]) {
    if (parts[2] === 'component' && parts[3]) return { page: 'component', id: parts[1], component: parts[3] };
    return { page: 'topology', id: parts[1] };
  }
  return { page: 'cluster' };
}

function App() {
  const [route, setRoute] = useState(parseRoute(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const refreshMs = Number(new URLSearchParams(location.search).get('refresh')) || 2000;
  return (
    <>
      <header>
        <a href="#/">hstorm</a>
        <span class="meta">Storm UI for CPU + GPU clusters · refresh {refreshMs / 1000} s · Prometheus at <a href="/metrics">/metrics</a></span>
      </header>
      <main>
        {route.page === 'cluster' && <ClusterPage refreshMs={refreshMs} />}
        {route.page === 'topology' && <TopologyPage key={route.id} id={route.id} refreshMs={refreshMs} />}
        {route.page === 'component' && <ComponentPage key={`${route.id}/${route.component}`} id={route.id} component={route.component} refreshMs={refreshMs} />}
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
