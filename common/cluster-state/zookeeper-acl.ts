/**
 * ZooKeeper digest ACLs (hstorm.zookeeper.auth.payload = `user:password`):
 * every session adds the credentials, and every znode hstorm creates carries
 * one ACL entry — that digest identity, all permissions — so a client without
 * the credentials can neither read nor write hstorm's nodes. Without
 * credentials, nodes are world-open as before.
 */
import { createHash } from 'node:crypto';
import { ACL, Id, Permission, type Client } from 'node-zookeeper-client';

/** ZooKeeper's digest identity of `user:password`: `user:base64(sha1(user:password))`. */
export function digestId(payload: string): string {
  const user = payload.slice(0, payload.indexOf(':'));
  return `${user}:${createHash('sha1').update(payload).digest('base64')}`;
}

/** The ACL list for nodes created under `payload`; world-open (ZooKeeper's OPEN_ACL_UNSAFE) without one. */
export function aclFor(payload: string | null | undefined): ACL[] {
  if (!payload) return [new ACL(Permission.ALL, new Id('world', 'anyone'))];
  return [new ACL(Permission.ALL, new Id('digest', digestId(payload)))];
}

/** Adds the digest credentials to a client (sent again on every reconnect by the library). */
export function addDigestAuth(client: Client, payload: string | null | undefined): void {
  if (payload) client.addAuthInfo('digest', Buffer.from(payload));
}
