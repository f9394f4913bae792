/**
 * Batches for GPU kernels (DESIGN §7): many small items go into one launch
 * along an extra, last dimension — items of shape [x, y] make a launch of
 * [x, y, B] (the kernel finds its item at `this.thread.z`), items of shape [x]
 * a launch of [x, B] (item at `this.thread.y`). B is the fixed batch size and
 * short batches are zero-padded, so the kernel is compiled once.
 */
import type { Input } from 'gpu.js';

/** Shape of one item: [x] or [x, y] (x varies fastest, as in gpu.js). */
export type ItemShape = readonly [number] | readonly [number, number];

export function itemLength(shape: ItemShape): number {
  return shape.length === 1 ? shape[0] : shape[0] * shape[1];
}

/** The launch shape of B items of `shape`: the batch is the last dimension. */
export function launchShape(shape: ItemShape, batchSize: number): [number, number] | [number, number, number] {
  return shape.length === 1 ? [shape[0], batchSize] : [shape[0], shape[1], batchSize];
}

/** Hands `GpuBolt.toInputs` the batch size and a packer for per-item arrays. */
export class BatchInputs {
  constructor(
    /** B: the padded batch size every launch has. */
    readonly size: number,
    private readonly makeInput: (value: Float32Array, size: number[]) => Input,
  ) {}

  /**
   * One kernel argument from one array per tuple (row-major, `itemLength(shape)`
   * numbers each): item i at batch index i, the rest of the batch zeros.
   */
  pack(items: readonly ArrayLike<number>[], shape: ItemShape): Input {
    if (items.length > this.size) throw new RangeError(`a batch holds at most ${this.size} items, got ${items.length}`);
    const len = itemLength(shape);
    const flat = new Float32Array(len * this.size);
    items.forEach((item, i) => {
      if (item.length !== len) throw new RangeError(`item ${i} has ${item.length} numbers; shape [${shape.join(', ')}] needs ${len}`);
      flat.set(item, i * len);
    });
    return this.makeInput(flat, launchShape(shape, this.size));
  }
}

/** A launch's result, read per item (padding items are never exposed). */
export class BatchResult {
  constructor(
    /** What gpu.js returned: Float32Array[][] for [x, y, B], Float32Array[] for [x, B]. */
    readonly raw: unknown,
    /** Real (unpadded) items in the batch. */
    readonly count: number,
    readonly itemShape: ItemShape,
  ) {}

  /** Item i's output as one row-major Float32Array. */
  item(i: number): Float32Array {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`item ${i} is outside the batch of ${this.count}`);
    const slab = (this.raw as ArrayLike<unknown>)[i];
    if (this.itemShape.length === 1) return toFloat32(slab, this.itemShape[0]);
    const [x, y] = this.itemShape;
    const rows = slab as ArrayLike<ArrayLike<number>>;
    const out = new Float32Array(x * y);
    for (let r = 0; r < y; r++) out.set(rows[r]!, r * x);
    return out;
  }
}

function toFloat32(v: unknown, n: number): Float32Array {
  if (v instanceof Float32Array && v.length === n) return v;
  return Float32Array.from(v as ArrayLike<number>);
}
