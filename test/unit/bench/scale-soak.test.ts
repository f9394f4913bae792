import assert from 'node:assert/strict';
import { FLAT_HEAP_MB_PER_HOUR, memoryFloors, memoryVerdict, slope, type MemorySample } from '../../../bench/support/scale-soak.js';

/** A sample every 10 s for `minutes`, heap after GC = base + growth per hour, with a sawtooth on top of heap used. */
function samples(minutes: number, baseMb: number, growthMbPerHour: number): MemorySample[] {
  const out: MemorySample[] = [];
  for (let s = 10; s <= minutes * 60; s += 10) {
    const floor = baseMb + (growthMbPerHour * s) / 3600;
    out.push({
      atSecs: s,
      rssMb: 3 * floor + (s % 60),
      heapUsedMb: floor + (s % 120),
      heapTotalMb: 2 * floor,
      externalMb: 5,
      arrayBuffersMb: 1,
      heapAfterGcMb: floor + ((s * 7) % 13),
      majorGcs: Math.floor(s / 60),
    });
  }
  return out;
}

describe('scale soak: memory floors and their fit', () => {
  it('takes one floor per 5 minutes, the lowest post-GC heap and RSS of the span', () => {
    const floors = memoryFloors(samples(15, 100, 0));
    assert.deepEqual(
      floors.map((f) => f.minute),
      [5, 10, 15],
    );
    for (const f of floors) {
      assert.ok(f.heapAfterGcMb >= 100 && f.heapAfterGcMb < 101, `floor ${f.heapAfterGcMb}`);
      assert.ok(f.rssMb >= 300 && f.rssMb < 301);
    }
  });

  it('falls back to the lowest heap used in a span without a major collection', () => {
    const s = samples(5, 100, 0).map((x) => ({ ...x, heapAfterGcMb: null }));
    assert.equal(memoryFloors(s)[0]!.heapAfterGcMb, Math.min(...s.map((x) => x.heapUsedMb)));
  });

  it('fits a straight line exactly', () => {
    assert.equal(slope([1, 2, 3, 4].map((x) => ({ x, y: 2 * x + 7 }))), 2);
    assert.equal(slope([{ x: 1, y: 5 }]), 0);
  });

  it('calls a heap that survives collection flat despite the sawtooth, and a steady leak growing', () => {
    const flat = memoryVerdict(memoryFloors(samples(60, 150, 0)));
    assert.equal(flat.flat, true, flat.text);
    assert.ok(Math.abs(flat.heapAfterGcMbPerHour) <= FLAT_HEAP_MB_PER_HOUR, flat.text);
    const leak = memoryVerdict(memoryFloors(samples(60, 150, 40)));
    assert.equal(leak.flat, false, leak.text);
    assert.ok(leak.heapAfterGcMbPerHour > 30 && leak.heapAfterGcMbPerHour < 50, leak.text);
    assert.ok(leak.rssFloorMbPerHour > 90, leak.text);
    assert.match(leak.text, /GROWING/);
  });

  it('does not judge fewer than three floors', () => {
    const v = memoryVerdict(memoryFloors(samples(10, 150, 0)));
    assert.equal(v.flat, false);
    assert.match(v.text, /too short/);
  });

  it('fits RSS only after the first heap snapshot when told its minute', () => {
    // RSS steps up by 80 MB at minute 10 (the snapshot) and is flat otherwise; the heap does not move.
    const s = samples(30, 150, 0).map((x) => ({ ...x, rssMb: 450 + (x.atSecs > 600 ? 80 : 0) }));
    assert.ok(memoryVerdict(memoryFloors(s)).rssFloorMbPerHour > 100);
    const v = memoryVerdict(memoryFloors(s), 10);
    assert.equal(v.rssFloorMbPerHour, 0, v.text);
    assert.match(v.text, /from minute 10/);
  });
});
