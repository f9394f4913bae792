/**
 * How a worker link notices a dead peer and redials (issue 28). Without these
 * options a link whose packets are silently dropped (a partition, a host
 * whose cable was pulled) stays "connected" until TCP's backed-off
 * retransmit timer fires: after a 30 s cut that timer stood at 26 s, so acks
 * crawled for ~24 s after the network healed. With them:
 *   - every connection sends a ZMTP PING each `heartbeatInterval`; a
 *     connection that hears nothing back within `heartbeatTimeout` is closed
 *     and, on the connecting side, redialled — a cut link is given up ~3 s
 *     after its last traffic, and a healed one is used again within about
 *     a second (docs/faults.md, "Network partitions");
 *   - `heartbeatTimeToLive` tells the peer to drop the connection on its side
 *     too when the pings stop, so the receiving end does not keep a dead
 *     connection;
 *   - a redial whose SYN is dropped gives up after `connectTimeout` and tries
 *     again every `reconnectInterval`, no backoff: a dial that starts while
 *     the cut lasts never waits out TCP's SYN retransmits (1, 3, 7, 15 s …);
 *   - `tcpMaxRetransmitTimeout` (TCP_USER_TIMEOUT) bounds how long data may
 *     sit unacknowledged before the kernel itself closes the connection, a
 *     second line behind the heartbeat.
 * The pings run on ZeroMQ's I/O thread, not Node's event loop, so a worker busy
 * in a long execute does not miss them. 3 s of silence before giving up keeps
 * a slow or lossy link (200 ms ± 50 ms, 5 % loss: docs/faults.md) connected.
 */
export interface LinkLiveness {
  heartbeatInterval: number;
  heartbeatTimeout: number;
  heartbeatTimeToLive: number;
  connectTimeout: number;
  reconnectInterval: number;
  reconnectMaxInterval: number;
  tcpMaxRetransmitTimeout: number;
}

export const LINK_LIVENESS: Readonly<LinkLiveness> = Object.freeze({
  heartbeatInterval: 1000,
  heartbeatTimeout: 3000,
  heartbeatTimeToLive: 3000,
  connectTimeout: 1000,
  reconnectInterval: 100,
  reconnectMaxInterval: 0,
  tcpMaxRetransmitTimeout: 10_000,
});

/**
 * ZeroMQ's own defaults (no heartbeat, the OS's connect and retransmit timeouts, 100 ms reconnect): what links used
 * before issue 28, kept to measure the difference (test/faults/link-heal.test.ts).
 */
export const ZMQ_DEFAULT_LIVENESS: Readonly<LinkLiveness> = Object.freeze({
  heartbeatInterval: 0,
  heartbeatTimeout: 0,
  heartbeatTimeToLive: 0,
  connectTimeout: 0,
  reconnectInterval: 100,
  reconnectMaxInterval: 0,
  tcpMaxRetransmitTimeout: 0,
});
