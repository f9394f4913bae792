/**
 * Unique free TCP ports for tests: asks the OS for an ephemeral port and never
 * hands the same one out twice in this process, so servers started by one test
 * file cannot collide with each other.
 */
import { createServer } from 'node:net';

const handedOut = new Set<number>();

export async function freePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = await new Promise<number>((resolve, reject) => {
      const srv = createServer();
      srv.once('error', reject);
      srv.listen(0, host, () => {
        const addr = srv.address();
        const p = typeof addr === 'object' && addr ? addr.port : 0;
        srv.close(() => resolve(p));
      });
    });
    if (port > 0 && !handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('could not find a free TCP port in 50 attempts');
}
