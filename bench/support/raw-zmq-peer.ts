/**
 * The transport benchmark's baseline: plain ZeroMQ PUSH/PULL between two
 * processes with msgpackr batches of the same tuple shape and batch size the
 * runtime uses — the physical limit of this machine for our wire format.
 *   node raw-zmq-peer.js pull <port> <seconds>   → prints {"tuples": N, "seconds": S}
 *   node raw-zmq-peer.js push <port> <batch>     (until killed)
 */
import * as zmq from 'zeromq';
// The codec alone, not worker/index.js: the baseline process loads nothing else of the worker.
import { encodeBatch, decodeBatch, type WireTuple } from '../../worker/transport/wire-codec.js';

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
    const batch = decodeBatch(frame!);
    if (now >= started) tuples += batch.tuples.length;
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
    const tuples: WireTuple[] = [];
    for (let k = 0; k < batchSize; k++) tuples.push([2, 1, 'default', [i++, 'payload'], null]);
    await sock.send(encodeBatch(port, tuples));
  }
}
