/**
 * A topology's CURVE key pair (ZeroMQ's Z85 text form, 40 characters each).
 * Every worker of the topology holds the same pair: it serves its slot with the
 * secret key and connects to peers as a client of the same pair, and its ZAP
 * handler admits only clients presenting that public key
 * (worker/transport/curve.ts). So a peer must hold the secret key to send.
 */
import { z } from 'zod';

export const curveKeysSchema = z.object({
  publicKey: z.string().length(40),
  secretKey: z.string().length(40),
});

export type CurveKeys = z.infer<typeof curveKeysSchema>;
