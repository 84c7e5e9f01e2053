#!/usr/bin/env python3
"""conn_hold - hold many idle SMTP connections open, for resource tests.

Usage: conn_hold.py PORT N [SECONDS]
Opens N connections to 127.0.0.1:PORT (non-blocking), reads each one's
first reply for up to SECONDS (120), prints "greeted G refused R waiting W"
(R: closed or not a 220; W: no reply yet, e.g. still in the listen
backlog), then waits for a line on standard input and closes them.
"""
import selectors
import socket
import sys
import time


def main():
    port, n = int(sys.argv[1]), int(sys.argv[2])
    limit = float(sys.argv[3]) if len(sys.argv) > 3 else 120
    sel = selectors.DefaultSelector()
    socks = []
    greeted = refused = 0
    deadline = time.time() + limit
    for i in range(n):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        socks.append(s)
        sel.register(s, selectors.EVENT_READ)
    pending = n
    while pending and time.time() < deadline:
        for key, _ in sel.select(timeout=1):
            s = key.fileobj
            try:
                data = s.recv(512)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            sel.unregister(s)
            pending -= 1
            if data.startswith(b"220"):
                greeted += 1
            else:
                refused += 1
    print(f"greeted {greeted} refused {refused} waiting {pending}", flush=True)
    sys.stdin.readline()
    for s in socks:
        s.close()


if __name__ == "__main__":
    main()
