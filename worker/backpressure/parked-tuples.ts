/**
 * Tuples from the network that reached a task whose queue was full: kept as
 * the frames they came in, not as tuples, until the queue has room (the
 * receiving half of per-task backpressure, batch-receiver.ts). What a peer
 * sent before it heard the task is overloaded can be tens of thousands of
 * tuples (its transfer buffer, ZeroMQ's high-water marks and the kernel's
 * socket buffers); held as tuples they lived long enough for V8 to copy them
 * through its young generation, and the collector took a third of the
 * receiving worker's time (docs/benchmarks.md, "Acking, fifth round"). A
 * frame parked whole keeps its values as bytes (frame-reader.ts
 * `deferValues`); one entry per frame and task, in arrival order, so a
 * task's tuples still reach it in the order they were sent.
 */
import type { Frame } from '../transport/frame-reader.js';

/** Where a parked frame's tuples for one task resume: the next tuple to look at and its first anchor-id word. */
interface ParkedFrame {
  frame: Frame;
  next: number;
  word: number;
}

export class ParkedTuples {
  private readonly frames: ParkedFrame[] = [];
  private head = 0;
  /** Tuples parked now. */
  tuples = 0;

  get isEmpty(): boolean {
    return this.tuples === 0;
  }

  /** Parks `frame`'s tuples for this task from tuple `next` on (its anchor ids from word `word`); the receiver counts them in `tuples`. */
  park(frame: Frame, next: number, word: number): void {
    this.frames.push({ frame, next, word });
  }

  /** The frame parked last, or null when none is. */
  lastFrame(): Frame | null {
    return this.head < this.frames.length ? this.frames[this.frames.length - 1]!.frame : null;
  }

  /** The oldest parked frame, or null when none is. */
  peek(): ParkedFrame | null {
    return this.head < this.frames.length ? this.frames[this.head]! : null;
  }

  /** The oldest frame's tuples were all taken (`taken` of them since it was parked or last resumed). */
  finished(taken: number): void {
    this.frames[this.head] = undefined as unknown as ParkedFrame;
    this.head++;
    this.tuples -= taken;
    if (this.head === this.frames.length) {
      this.frames.length = 0;
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.frames.length) {
      this.frames.splice(0, this.head);
      this.head = 0;
    }
  }

  /** `taken` of the oldest frame's tuples were taken, the rest wait from tuple `next` (anchor word `word`). */
  stopped(next: number, word: number, taken: number): void {
    const p = this.frames[this.head]!;
    p.next = next;
    p.word = word;
    this.tuples -= taken;
  }

  /** Forgets everything parked (the task is gone). */
  clear(): void {
    this.frames.length = 0;
    this.head = 0;
    this.tuples = 0;
  }
}
