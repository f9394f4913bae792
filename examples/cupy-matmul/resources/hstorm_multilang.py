"""A small client of Apache Storm's multilang protocol (JSON serializer), enough
for a bolt: handshake, tuples in, emit / ack / fail / log / error / metrics out,
heartbeats answered. Written for hstorm's example; Storm's own storm.py works
the same way and can be used instead.

Every message is one JSON value followed by a line "end". Emits ask for no
task ids ("need_task_ids": false), so nothing but tuples and heartbeats comes in.
"""
import json
import os
import sys
import traceback


def read_message():
    lines = []
    while True:
        line = sys.stdin.readline()
        if not line:
            raise EOFError('stdin closed: the worker is gone')
        line = line.rstrip('\n')
        if line == 'end':
            return json.loads('\n'.join(lines))
        lines.append(line)


def send(message):
    # stdout carries the protocol only: anything else printed there is garbage to the worker.
    sys.stdout.write(json.dumps(message))
    sys.stdout.write('\nend\n')
    sys.stdout.flush()


def log(msg, level=2):
    """Levels as storm.py: 0 trace, 1 debug, 2 info, 3 warn, 4 error."""
    send({'command': 'log', 'msg': msg, 'level': level})


def metric(name, value=1):
    """Adds `value` to the task's counter `name` (shown with the component's metrics)."""
    send({'command': 'metrics', 'name': name, 'params': value})


class Bolt(object):
    """Subclass, implement process(tup) returning the values to emit (or None);
    the emit is anchored to the input, which is then acked (failed on an exception)."""

    def initialize(self, conf, context):
        pass

    def process(self, tup):
        raise NotImplementedError

    def run(self):
        setup = read_message()
        pid = os.getpid()
        open(os.path.join(setup['pidDir'], str(pid)), 'w').close()
        send({'pid': pid})
        self.initialize(setup['conf'], setup['context'])
        while True:
            tup = read_message()
            if isinstance(tup, list):
                continue  # task ids of an emit; not asked for, but harmless
            if tup.get('stream') == '__heartbeat' and tup.get('task') == -1:
                send({'command': 'sync'})
                continue
            try:
                values = self.process(tup)
                if values is not None:
                    send({'command': 'emit', 'anchors': [tup['id']], 'tuple': values, 'need_task_ids': False})
                send({'command': 'ack', 'id': tup['id']})
            except Exception:
                send({'command': 'error', 'msg': traceback.format_exc()})
                send({'command': 'fail', 'id': tup['id']})
