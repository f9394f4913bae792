import assert from 'node:assert/strict';
import { Exception } from 'node-zookeeper-client';
import { ClusterStateError } from '../../../common/cluster-state.js';
import { fromZooKeeperError } from '../../../common/cluster-state/zookeeper-errors.js';

/** What the library calls when a reply header carries an error code (ConnectionManager's socket data handler). */
const create = (code: number): Exception => (Exception as unknown as { create(code: number): Exception }).create(code);

describe('common/cluster-state/zookeeper-errors', () => {
  it("turns a code the library does not know into an Exception instead of a throw in the socket's handler", () => {
    // UNKNOWNSESSION, which ZooKeeper 3.5+ sends for a request on a session it has just closed.
    const unknownSession = create(-12);
    assert.ok(unknownSession instanceof Exception);
    assert.equal(unknownSession.getCode(), Exception.SESSION_EXPIRED);
    // Any other newer code (e.g. 3.5's NEWCONFIGNOQUORUM -13, REQUESTTIMEOUT -122): outcome unknown.
    for (const code of [-13, -122, -999]) assert.equal(create(code).getCode(), Exception.SYSTEM_ERROR);
    // Known codes are untouched.
    assert.equal(create(Exception.NO_NODE).getCode(), Exception.NO_NODE);
  });

  it('reports them as kinds callers handle: the session expired, or a connection loss to retry', () => {
    const expired = fromZooKeeperError(create(-12), 'getData', '/storms/x');
    assert.ok(expired instanceof ClusterStateError);
    assert.equal(expired.kind, 'SESSION_EXPIRED');
    assert.equal(fromZooKeeperError(create(-122), 'getData', '/storms/x').kind, 'CONNECTION_LOSS');
  });
});
