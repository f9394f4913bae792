/** Storm's emit overloads: each form of each collector read into (stream, values, anchors, messageId), and calls that fit none refused. */
import assert from 'node:assert/strict';
import { readEmitArgs, isEmitOptions } from '../../../topology-sdk/internal/emit-args.js';
import { RuntimeTuple } from '../../../worker/executor/runtime-tuple.js';
import { Fields } from '../../../topology-sdk/fields.js';
import { EmitError } from '../../../common/errors.js';

const t1 = new RuntimeTuple(['a'], new Fields(['x']), 'src', 'default', 1, [1, 0, 2, 0]);
const t2 = new RuntimeTuple(['b'], new Fields(['x']), 'src', 'default', 1, [3, 0, 4, 0]);

function refused(pattern: RegExp) {
  return (e: unknown): boolean => {
    assert.ok(e instanceof EmitError, `not an EmitError: ${String(e)}`);
    assert.equal(e.code, 'HSTORM_ERR_TOPOLOGY_EMIT');
    assert.equal(e.component, 'c');
    assert.match(e.message, pattern);
    return true;
  };
}

describe('topology-sdk: emit overloads', () => {
  it('bolt: emit(values), emit(values, options), emit(streamId, values), emit(anchor(s), values), emit(streamId, anchor(s), values)', () => {
    assert.deepEqual(readEmitArgs('bolt', 'c', [1, 2], undefined, undefined), { stream: 'default', values: [1, 2], anchors: undefined, messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', [1], { stream: 's', anchors: t1 }, undefined), { stream: 's', values: [1], anchors: t1, messageId: undefined });
    // The case: Storm's emit('odd', values) must go on stream "odd", never emit ["odd", …] on the default stream.
    assert.deepEqual(readEmitArgs('bolt', 'c', 'odd', ['w', 1, 2], undefined), { stream: 'odd', values: ['w', 1, 2], anchors: undefined, messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', t1, [1], undefined), { stream: 'default', values: [1], anchors: t1, messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', [t1, t2], [1], undefined), { stream: 'default', values: [1], anchors: [t1, t2], messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', [], [1], undefined), { stream: 'default', values: [1], anchors: [], messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', 'odd', t1, [1]), { stream: 'odd', values: [1], anchors: t1, messageId: undefined });
    assert.deepEqual(readEmitArgs('bolt', 'c', 'odd', [t1, t2], [1]), { stream: 'odd', values: [1], anchors: [t1, t2], messageId: undefined });
    // Tuples as values (one array): values, not anchors.
    assert.deepEqual(readEmitArgs('bolt', 'c', [t1], undefined, undefined).values, [t1]);
  });

  it('basic bolt: emit(values), emit(values, { stream }), emit(streamId, values)', () => {
    assert.equal(readEmitArgs('basic', 'c', [1], { stream: 's' }, undefined).stream, 's');
    assert.deepEqual(readEmitArgs('basic', 'c', 'odd', [1], undefined), { stream: 'odd', values: [1], anchors: undefined, messageId: undefined });
    assert.throws(() => readEmitArgs('basic', 'c', t1, [1], undefined), refused(/none of its forms: emit\(values\), emit\(values, \{ stream \}\), emit\(streamId, values\)/));
    assert.throws(() => readEmitArgs('basic', 'c', [1], { anchors: t1 }, undefined), refused(/anchors are for a Bolt's collector/));
  });

  it("spout: emit(values, messageId), emit(streamId, values), emit(streamId, values, messageId) and the options form", () => {
    assert.deepEqual(readEmitArgs('spout', 'c', [1], 42, undefined), { stream: 'default', values: [1], anchors: undefined, messageId: 42 });
    assert.deepEqual(readEmitArgs('spout', 'c', [1], 'id-7', undefined).messageId, 'id-7');
    class MsgId {
      constructor(readonly offset: number) {}
    }
    const id = new MsgId(3);
    assert.equal(readEmitArgs('spout', 'c', [1], id, undefined).messageId, id);
    // A plain object with other keys is a message id; one of only option keys is the options form.
    assert.deepEqual(readEmitArgs('spout', 'c', [1], { offset: 5 }, undefined).messageId, { offset: 5 });
    assert.deepEqual(readEmitArgs('spout', 'c', [1], { stream: 's', messageId: 9 }, undefined), { stream: 's', values: [1], anchors: undefined, messageId: 9 });
    assert.deepEqual(readEmitArgs('spout', 'c', 'odd', [1], undefined), { stream: 'odd', values: [1], anchors: undefined, messageId: undefined });
    assert.deepEqual(readEmitArgs('spout', 'c', 'odd', [1], 7), { stream: 'odd', values: [1], anchors: undefined, messageId: 7 });
    assert.throws(() => readEmitArgs('spout', 'c', [1], { messageId: 1, anchors: t1 }, undefined), refused(/anchors are for a Bolt's collector \(a spout tracks with a messageId\)/));
  });

  it('refuses a call that is neither form, naming the component, what it got and the forms', () => {
    assert.throws(() => readEmitArgs('bolt', 'c', 'odd', undefined, undefined), refused(/emit from "c" was called as emit\("odd"\), which is none of its forms: emit\(values\)/));
    assert.throws(() => readEmitArgs('bolt', 'c', 42, undefined, undefined), refused(/called as emit\(number 42\)/));
    assert.throws(() => readEmitArgs('bolt', 'c', [1], 5, undefined), refused(/called as emit\(array\(1\), number 5\)/));
    assert.throws(() => readEmitArgs('bolt', 'c', ['x'], ['y'], undefined), refused(/called as emit\(array\(1\), array\(1\)\)/));
    assert.throws(() => readEmitArgs('bolt', 'c', [1], { stream: 'x' }, 3), refused(/none of its forms/));
    assert.throws(() => readEmitArgs('bolt', 'c', [1], { streamId: 'x' }, undefined), refused(/an object \(Object\)/));
    assert.throws(() => readEmitArgs('bolt', 'c', [1], { messageId: 1 }, undefined), refused(/a messageId is for a spout's collector/));
    assert.throws(() => readEmitArgs('bolt', 'c', [1], { anchors: 'x' }, undefined), refused(/options.anchors must be a tuple or an array of tuples/));
    assert.throws(() => readEmitArgs('spout', 'c', 'odd', 'x', undefined), refused(/called as emit\("odd", "x"\)/));
    const e = (() => {
      try {
        readEmitArgs('bolt', 'c', 'odd', 3, undefined);
      } catch (err) {
        return err as EmitError;
      }
      return null;
    })();
    assert.equal(e?.stream, 'odd');
  });

  it('emitDirect: the same forms after the task id, named as emitDirect', () => {
    assert.equal(readEmitArgs('bolt', 'c', 'd', t1, [1], 'emitDirect').stream, 'd');
    assert.throws(() => readEmitArgs('spout', 'c', 5, undefined, undefined, 'emitDirect'), refused(/emitDirect from "c" was called as emitDirect\(number 5\).*emitDirect\(taskId, values\)/));
  });

  it('isEmitOptions: plain objects of option keys only', () => {
    assert.equal(isEmitOptions({}), true);
    assert.equal(isEmitOptions({ stream: 's', anchors: undefined }), true);
    assert.equal(isEmitOptions(Object.assign(Object.create(null) as object, { stream: 's' })), true);
    assert.equal(isEmitOptions({ stream: 's', other: 1 }), false);
    assert.equal(isEmitOptions([]), false);
    assert.equal(isEmitOptions(new (class {})()), false);
    assert.equal(isEmitOptions(null), false);
  });
});
