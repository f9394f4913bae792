/**
 * The order Algorithm 2 walks components in: topological order of the
 * component graph, so a component is placed after the components feeding it
 * and can be attracted to their workers. Ties go to declaration order; a cycle
 * (Storm allows them) is broken at its earliest-declared component, so the
 * order is the same on every run.
 */

export interface GraphComponent {
  id: string;
  inputs: readonly string[];
}

export function topologicalOrder(components: readonly GraphComponent[]): string[] {
  const n = components.length;
  const index = new Map<string, number>();
  components.forEach((c, i) => {
    if (!index.has(c.id)) index.set(c.id, i);
  });
  const pending = new Int32Array(n);
  const outs: number[][] = components.map(() => []);
  components.forEach((c, i) => {
    if (index.get(c.id) !== i) return; // a repeated id counts once
    for (const input of new Set(c.inputs)) {
      const from = index.get(input);
      // Unknown inputs and self-loops put no constraint on the order.
      if (from === undefined || from === i) continue;
      pending[i]!++;
      outs[from]!.push(i);
    }
  });
  const done = new Uint8Array(n);
  const order: string[] = [];
  for (let placed = 0; placed < n; placed++) {
    let pick = -1;
    for (let i = 0; i < n; i++) {
      if (!done[i] && pending[i] === 0) {
        pick = i;
        break;
      }
    }
    // Nothing ready: we are inside a cycle; break it at the earliest declared component.
    if (pick < 0) pick = done.indexOf(0);
    done[pick] = 1;
    if (index.get(components[pick]!.id) === pick) order.push(components[pick]!.id);
    for (const to of outs[pick]!) pending[to]!--;
  }
  return order;
}
