/**
 * The open batch towards one peer worker: tuples in the order they were
 * sent, except that an ack-protocol tuple (values a flat list of fixed-arity
 * messages, acking/system-streams.ts) joins the batch's open tuple of the
 * same destination, source and stream — a bolt's 128 acks to one acker travel
 * as one tuple of 256 ids instead of 128 five-element tuples with a stream
 * name each (less to encode, decode and allocate). The transport seals it by
 * size or time and frames it (zmq-transport.ts).
 */
import type { WireTuple } from './wire-codec.js';

export class BatchBuilder {
  tuples: WireTuple[] = [];
  /** Tuples in the batch, counting each message of a merged ack-protocol tuple. */
  count = 0;
  /** Ack-protocol tuples of the open batch by stream, then (dest, src), to merge into. */
  private readonly bundles = new Map<string, Map<number, WireTuple>>();

  /** Adds a tuple (`merge`: an ack-protocol tuple); returns the count after it. */
  add(tuple: WireTuple, merge: boolean): number {
    if (merge) {
      let ofStream = this.bundles.get(tuple[2]);
      if (ofStream === undefined) this.bundles.set(tuple[2], (ofStream = new Map()));
      const route = tuple[0] * 1_048_576 + tuple[1]; // dest, src: task ids are far below 2^20
      const open = ofStream.get(route);
      if (open !== undefined) {
        const into = open[3];
        for (const v of tuple[3]) into.push(v);
      } else {
        // A copy of the values: later messages are pushed into it, and the caller's array is theirs.
        const own: WireTuple = [tuple[0], tuple[1], tuple[2], [...tuple[3]], tuple[4]];
        ofStream.set(route, own);
        this.tuples.push(own);
      }
    } else {
      this.tuples.push(tuple);
    }
    return ++this.count;
  }

  /** Hands over the batch's tuples and starts an empty batch. */
  take(): WireTuple[] {
    const tuples = this.tuples;
    this.tuples = [];
    this.count = 0;
    this.bundles.clear();
    return tuples;
  }
}
