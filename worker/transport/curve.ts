/**
 * ZeroMQ CURVE on worker links (hstorm.messaging.curve): every worker of a
 * topology holds the topology's key pair (common/security/curve-keys.ts). Its
 * slot socket is a CURVE server with the secret key; its sockets to peers are
 * CURVE clients of the same pair. A ZAP handler (ZeroMQ RFC 27) in this
 * process admits only clients presenting a public key of a topology served
 * here: a peer without the secret key cannot finish the handshake, and one
 * with another key pair is refused, so its frames never reach the receive loop.
 * Links are encrypted as a side effect.
 */
import * as zmq from 'zeromq';
import type { Logger } from '../../common/logger.js';
import type { CurveKeys } from '../../common/security/curve-keys.js';

/** Socket options of a slot (PULL) socket serving `keys`. */
export function curveServerOptions(keys: CurveKeys): Partial<zmq.SocketOptions<zmq.Pull>> {
  return { curveServer: true, curveSecretKey: keys.secretKey, curvePublicKey: keys.publicKey, zapDomain: 'hstorm' };
}

/** Socket options of a PUSH socket towards a peer serving `keys`. */
export function curveClientOptions(keys: CurveKeys): Partial<zmq.SocketOptions<zmq.Push>> {
  return { curveServerKey: keys.publicKey, curvePublicKey: keys.publicKey, curveSecretKey: keys.secretKey };
}

const ZAP_ENDPOINT = 'inproc://zeromq.zap.01';

/** One ZAP handler per process (ZeroMQ allows one per context); it admits the keys of every transport that acquired it. */
class ZapHandler {
  private readonly allowed = new Map<string, number>();
  private readonly router = new zmq.Router();
  private started: Promise<void> | null = null;
  refused = 0;

  constructor(private readonly log: Logger) {}

  async acquire(publicKeyZ85: string): Promise<() => void> {
    const hex = z85Decode(publicKeyZ85).toString('hex');
    this.allowed.set(hex, (this.allowed.get(hex) ?? 0) + 1);
    this.started ??= this.router.bind(ZAP_ENDPOINT).then(() => void this.serve());
    await this.started;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const n = (this.allowed.get(hex) ?? 1) - 1;
      if (n > 0) this.allowed.set(hex, n);
      else this.allowed.delete(hex);
    };
  }

  private async serve(): Promise<void> {
    try {
      for await (const frames of this.router) {
        // [routing id, empty, version, request id, domain, address, identity, mechanism, credentials…]
        const [id, , version, requestId, , address, , mechanism, key] = frames;
        const ok = mechanism?.toString() === 'CURVE' && key !== undefined && this.allowed.has(key.toString('hex'));
        if (!ok) {
          this.refused++;
          this.log.warn({ address: address?.toString(), mechanism: mechanism?.toString(), refused: this.refused }, 'CURVE peer refused: not a worker of this topology');
        }
        await this.router.send([id!, Buffer.alloc(0), version ?? '1.0', requestId ?? '', ok ? '200' : '400', ok ? 'OK' : 'unknown key', '', '']);
      }
    } catch (err) {
      this.log.error({ err }, 'ZAP handler stopped');
    }
  }
}

let handler: ZapHandler | null = null;

/** Lets clients holding `keys` in; returns the release function (call it when the slot socket closes). */
export function admitCurveKeys(keys: CurveKeys, log: Logger): Promise<() => void> {
  handler ??= new ZapHandler(log);
  return handler.acquire(keys.publicKey);
}

/** How many CURVE handshakes this process refused (tests, stats). */
export function refusedCurvePeers(): number {
  return handler?.refused ?? 0;
}

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';

/** Z85 (ZeroMQ RFC 32) text → bytes: every 5 characters are 4 bytes, big-endian base 85. The keys are ZeroMQ's own (nimbus makes them with curveKeyPair): bad text is an invariant broken, a plain Error. */
export function z85Decode(text: string): Buffer {
  if (text.length % 5 !== 0) throw new Error(`Z85 text must be a multiple of 5 characters long, got ${text.length}`);
  const out = Buffer.alloc((text.length / 5) * 4);
  for (let i = 0; i < text.length; i += 5) {
    let v = 0;
    for (let j = 0; j < 5; j++) {
      const d = Z85.indexOf(text[i + j]!);
      if (d < 0) throw new Error(`not a Z85 character: ${JSON.stringify(text[i + j])}`);
      v = v * 85 + d;
    }
    out.writeUInt32BE(v >>> 0, (i / 5) * 4);
  }
  return out;
}
