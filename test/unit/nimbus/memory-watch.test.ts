import assert from 'node:assert/strict';
import { constants, type PerformanceEntry } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemoryWatch } from '../../../nimbus/memory-watch.js';
import { waitFor } from '../../helpers/wait-for.js';

const gc = (kind: number): PerformanceEntry => ({ name: 'gc', entryType: 'gc', startTime: 0, duration: 1, detail: { kind } }) as unknown as PerformanceEntry;

describe('nimbus memory watch', () => {
  it('takes the heap after major collections only', () => {
    let heap = 100;
    const w = new MemoryWatch(() => heap);
    assert.equal(w.usage().heapAfterMajorGcBytes, null);
    w.onEntries([gc(constants.NODE_PERFORMANCE_GC_MINOR)]);
    assert.equal(w.usage().heapAfterMajorGcBytes, null);
    w.onEntries([gc(constants.NODE_PERFORMANCE_GC_MAJOR)]);
    heap = 80;
    w.onEntries([gc(constants.NODE_PERFORMANCE_GC_INCREMENTAL), gc(constants.NODE_PERFORMANCE_GC_MAJOR)]);
    const u = w.usage();
    assert.equal(u.heapAfterMajorGcBytes, 80);
    assert.equal(u.majorGcs, 2);
    for (const k of ['rssBytes', 'heapUsedBytes', 'heapTotalBytes', 'externalBytes', 'arrayBuffersBytes'] as const) assert.ok(u[k] > 0, k);
  });

  it('sees a real major collection', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const w = new MemoryWatch().start();
    try {
      collect();
      const u = await waitFor('a major collection seen', () => {
        const m = w.usage();
        return m.majorGcs > 0 && m.heapAfterMajorGcBytes !== null ? m : null;
      });
      assert.ok(u.heapAfterMajorGcBytes! > 0 && u.heapAfterMajorGcBytes! <= u.heapTotalBytes);
    } finally {
      w.stop();
    }
  });
});
