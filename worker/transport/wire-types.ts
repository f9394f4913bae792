/**
 * A frame's tuples as rows, the shape tools and tests write and read
 * (wire-codec.ts encodeBatch / decodeBatch, ZmqTransport.send): one array per
 * tuple, anchors as 64-bit ids (bigint, Storm's longs) in (root, edge) pairs.
 * The wire itself carries columns (frame-layout.ts); the worker's own path
 * never builds these rows.
 */
export type WireTuple = [destTask: number, srcTask: number, stream: string, values: unknown[], anchors: bigint[] | null];

export interface WireBatch {
  senderPort: number;
  tuples: WireTuple[];
}
