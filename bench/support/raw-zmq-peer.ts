/**
 * The transport benchmark's baseline (DESIGN §11: "raw ZeroMQ + msgpackr"):
 * plain ZeroMQ PUSH/PULL between two processes, each batch of 128 small
 * tuples one msgpackr array [version, sender, [[dest, src, stream, values,
 * null], …]] — the frame of hstorm's wire version 2, which used nothing but
 * msgpackr. It does not use the worker's own codec, so that the baseline stays
 * the same yardstick whatever the worker's wire format becomes.
 *   node raw-zmq-peer.js pull <port> <seconds>   → prints {"tuples": N, "seconds": S}
 *   node raw-zmq-peer.js push <port> <batch>     (until killed)
 */
import * as zmq from 'zeromq';
import { Packr } from 'msgpackr';

type Row = [number, number, string, unknown[], null];
const packr = new Packr({ useRecords: false, int64AsType: 'bigint', moreTypes: true });

const [mode, portArg, arg] = process.argv.slice(2);
const port = Number(portArg);

if (mode === 'pull') {
  const seconds = Number(arg);
  const sock = new zmq.Pull({ receiveHighWaterMark: 64 });
  await sock.bind(`tcp://127.0.0.1:${port}`);
  process.send?.({ ready: true });
  let tuples = 0;
  let started = 0;
  const warmup = 1000;
  for await (const [frame] of sock) {
    const now = performance.now();
    if (started === 0) started = now + warmup;
    const [, , rows] = packr.unpack(frame!) as [number, number, Row[]];
    if (now >= started) tuples += rows.length;
    if (now - started >= seconds * 1000) break;
  }
  process.stdout.write(JSON.stringify({ tuples, seconds }) + '\n');
  sock.close();
  process.exit(0);
} else {
  const batchSize = Number(arg);
  const sock = new zmq.Push({ sendHighWaterMark: 64 });
  sock.connect(`tcp://127.0.0.1:${port}`);
  let i = 0;
  for (;;) {
    const tuples: Row[] = [];
    for (let k = 0; k < batchSize; k++) tuples.push([2, 1, 'default', [i++, 'payload'], null]);
    await sock.send(packr.pack([2, port, tuples]));
  }
}
