#!/usr/bin/env python3
"""
A slow, lossy link for the partition trials, without netem (this kernel has
no sch_netem): iptables rules inside a host's namespace send its packets to
an NFQUEUE (netns-lab.ts `degrade`), and this process, started in the same
namespace, holds each packet for DELAY ± JITTER ms (uniform, as netem's
`delay D J`) before accepting it, and drops LOSS of them. Packets are
released by their own due times, so jitter reorders them as netem does.

    nfqueue-delayer.py QUEUE DELAY_MS JITTER_MS LOSS

Uses Debian's libnetfilter-queue1 through ctypes (no compiler, no pip).
Prints "ready" once bound, so the caller knows the rules may go in; counts
are printed on SIGTERM. The rules use --queue-bypass: if this process dies,
packets pass undelayed instead of vanishing.
"""
import ctypes
import ctypes.util
import heapq
import random
import select
import signal
import socket
import sys
import time

NF_DROP, NF_ACCEPT = 0, 1
NFQNL_COPY_META = 1


class PacketHeader(ctypes.Structure):
    _pack_ = 1
    _fields_ = [('packet_id', ctypes.c_uint32), ('hw_protocol', ctypes.c_uint16), ('hook', ctypes.c_uint8)]


def main() -> None:
    queue, delay_ms, jitter_ms, loss = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
    path = ctypes.util.find_library('netfilter_queue') or 'libnetfilter_queue.so.1'
    lib = ctypes.CDLL(path)
    lib.nfq_open.restype = ctypes.c_void_p
    lib.nfq_create_queue.restype = ctypes.c_void_p
    lib.nfq_get_msg_packet_hdr.restype = ctypes.POINTER(PacketHeader)
    for name in ('nfq_bind_pf', 'nfq_unbind_pf'):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_uint16]
    lib.nfq_set_mode.argtypes = [ctypes.c_void_p, ctypes.c_uint8, ctypes.c_uint32]
    lib.nfq_set_queue_maxlen.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.nfq_fd.argtypes = [ctypes.c_void_p]
    lib.nfq_handle_packet.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.nfq_get_msg_packet_hdr.argtypes = [ctypes.c_void_p]
    lib.nfq_set_verdict.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_char_p]
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
    lib.nfq_create_queue.argtypes = [ctypes.c_void_p, ctypes.c_uint16, callback_type, ctypes.c_void_p]

    handle = lib.nfq_open()
    if not handle:
        sys.exit('nfq_open failed (needs root and nfnetlink_queue)')
    lib.nfq_unbind_pf(handle, socket.AF_INET)
    if lib.nfq_bind_pf(handle, socket.AF_INET) < 0:
        sys.exit('nfq_bind_pf failed')

    due: list[tuple[float, int, int]] = []  # (release time, sequence, packet id)
    counts = {'delayed': 0, 'dropped': 0}
    seq = 0
    rng = random.Random()
    qh = ctypes.c_void_p()

    def on_packet(_qh, _msg, nfad, _data):
        nonlocal seq
        packet_id = socket.ntohl(lib.nfq_get_msg_packet_hdr(nfad).contents.packet_id)
        if rng.random() < loss:
            counts['dropped'] += 1
            lib.nfq_set_verdict(qh, packet_id, NF_DROP, 0, None)
            return 0
        seq += 1
        heapq.heappush(due, (time.monotonic() + (delay_ms + rng.uniform(-jitter_ms, jitter_ms)) / 1000, seq, packet_id))
        return 0

    callback = callback_type(on_packet)
    qh.value = lib.nfq_create_queue(handle, queue, callback, None)
    if not qh.value:
        sys.exit(f'nfq_create_queue {queue} failed (another process bound to it?)')
    lib.nfq_set_mode(qh, NFQNL_COPY_META, 0)
    # Room for every packet held at once: 250 ms of a busy link.
    lib.nfq_set_queue_maxlen(qh, 65536)
    fd = lib.nfq_fd(handle)
    sock = socket.socket(fileno=fd)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)

    running = True

    def stop(_sig, _frame):
        nonlocal running
        running = False

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    print('ready', flush=True)
    buf = ctypes.create_string_buffer(65536)
    while running:
        now = time.monotonic()
        while due and due[0][0] <= now:
            _, _, packet_id = heapq.heappop(due)
            lib.nfq_set_verdict(qh, packet_id, NF_ACCEPT, 0, None)
            counts['delayed'] += 1
        timeout = max(0.0, due[0][0] - now) if due else 0.5
        try:
            readable, _, _ = select.select([fd], [], [], timeout)
        except InterruptedError:
            continue
        if readable:
            try:
                n = sock.recv_into(buf)
            except OSError:
                # ENOBUFS: the kernel dropped queue messages; those packets are lost, as on a congested link.
                continue
            lib.nfq_handle_packet(handle, buf, n)
    # Whatever is still held goes out now rather than vanishing with the queue.
    for _, _, packet_id in due:
        lib.nfq_set_verdict(qh, packet_id, NF_ACCEPT, 0, None)
    print(f"delayed {counts['delayed']} dropped {counts['dropped']}", flush=True)


if __name__ == '__main__':
    main()
