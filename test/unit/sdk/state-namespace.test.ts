/**
 * A task's state namespace with the store's key prefix in front names one
 * (prefix, topology, component, task, suffix) only: the collision —
 * prefix `hstorm:state:s` on topology `t1` against the default prefix on
 * topology `st1` — and every combination of a small set chosen to collide
 * (names that are tails of others, prefixes ending in their heads, braces). (The same case against a real Redis: redis-state-store.test.ts.)
 */
import assert from 'node:assert/strict';
import { stateNamespace } from '../../../topology-sdk/internal/state-namespace.js';

/** What the Redis store's keys start with: its prefix, then the namespace (redis-state-store.ts, `key()`). */
const key = (prefix: string, topologyName: string, componentId: string, taskIndex: number, suffix?: string) => prefix + stateNamespace({ topologyName, componentId, taskIndex }, suffix);

describe('sdk: state namespaces', () => {
  it("keeps prefix hstorm:state:s on t1 apart from hstorm:state: on st1 (the issue's case)", () => {
    assert.notEqual(key('hstorm:state:s', 't1', 'count', 0), key('hstorm:state:', 'st1', 'count', 0));
    assert.equal(key('hstorm:state:', 'st1', 'count', 0), 'hstorm:state:{st1:count:0}');
    assert.equal(key('hstorm:state:', 'st1', 'win', 2, 'window'), 'hstorm:state:{st1:win:2}:window');
  });

  it('gives every (prefix, topology, component, task, suffix) of an exhaustive small set its own keys, braces and % included', () => {
    // Prefixes ending in what a name may start with, names that are tails of others, components with ':' and braces.
    const prefixes = ['', 's', 'x:', 'x:s', 'x:st', 'x:st1', 'x:{', 'x:{s', 'x:{st1:c:0}', '%7B', 'x:}'];
    const names = ['s', 't', '1', 't1', 'st1', 'st1:c', 'c', '{t1', 't1}', '%7Bt1', '%', '_-'];
    const keys = new Map<string, string>();
    let count = 0;
    for (const prefix of prefixes)
      for (const topology of names)
        for (const component of names)
          for (const task of [0, 1, 10])
            for (const suffix of [undefined, 'window'])
              // Every key the Redis store makes of a namespace: the hash itself, and its $prepare and $txid twins.
              for (const tail of ['', '$prepare', '$txid']) {
                const k = key(prefix, topology, component, task, suffix) + tail;
                const who = JSON.stringify([prefix, topology, component, task, suffix, tail]);
                assert.equal(keys.get(k), undefined, `${who} and ${keys.get(k)} share the key ${k}`);
                keys.set(k, who);
                count++;
              }
    assert.equal(keys.size, count);
  });
});
