/** Storm's `new Values(…)`: an array of exactly the values given, taken wherever values are, and carried as an array. */
import assert from 'node:assert/strict';
import { Values } from 'hstorm';
import { CapturingOutputCollector, CapturingSpoutOutputCollector, testTuple } from 'hstorm/testing';
import { readEmitArgs } from '../../../topology-sdk/internal/emit-args.js';
import { inspectValues, NO_VALUE_TYPES, toWireForm } from '../../../worker/index.js';

describe("topology-sdk: Storm's Values", () => {
  it('holds exactly the values given, one number included (new Array(3) would be three holes)', () => {
    assert.deepEqual([...new Values(3)], [3]);
    assert.deepEqual([...new Values('nathan', 1, null)], ['nathan', 1, null]);
    assert.equal(new Values().length, 0);
    const v = new Values(1, 2);
    assert.ok(Array.isArray(v));
    assert.ok(v instanceof Values);
  });

  it('gives plain arrays when mapped, filtered or sliced', () => {
    const v = new Values(1, 2, 3);
    for (const derived of [v.map((x) => x), v.filter(() => true), v.slice(1), v.concat([4])]) {
      assert.equal(Object.getPrototypeOf(derived), Array.prototype);
    }
    assert.deepEqual(v.map((x) => (x as number) * 2), [2, 4, 6]);
  });

  it("is read as values by every emit form, Storm's habits: emit(new Values(…)), emit(anchor, new Values(…)), emit(new Values(…), messageId)", () => {
    const t = testTuple(['w']);
    assert.deepEqual([...readEmitArgs('bolt', 'c', new Values('a', 1), undefined, undefined).values], ['a', 1]);
    const anchored = readEmitArgs('bolt', 'c', t, new Values('a'), undefined);
    assert.equal(anchored.anchors, t);
    assert.deepEqual([...anchored.values], ['a']);
    assert.deepEqual(readEmitArgs('bolt', 'c', 'odd', [t], new Values(1)).anchors, [t]);
    const tracked = readEmitArgs('spout', 'c', new Values('a'), 7, undefined);
    assert.equal(tracked.messageId, 7);
    assert.deepEqual(readEmitArgs('spout', 'c', 'odd', new Values('a'), 'id').stream, 'odd');
    const bolt = new CapturingOutputCollector();
    bolt.emit(t, new Values('x!!!'));
    assert.deepEqual(bolt.valuesOn('default').map((v) => [...v]), [['x!!!']]);
    const spout = new CapturingSpoutOutputCollector();
    spout.emit(new Values('w'), 'm1');
    assert.deepEqual(spout.valuesOn('default').map((v) => [...v]), [['w']]);
  });

  it('travels as an array (the value check and the wire form take it as one)', () => {
    assert.equal(inspectValues(new Values('a', 1), NO_VALUE_TYPES), false);
    assert.equal(inspectValues([new Values(new Map([[1, 2]]))], NO_VALUE_TYPES), true);
    assert.deepEqual(toWireForm(new Values('a', 1), NO_VALUE_TYPES), ['a', 1]);
  });
});
