#!/usr/bin/env python3
"""data_hold - SMTP clients that leave their message unfinished, for the relay's memory tests.

Usage:
  data_hold.py hold PORT N BYTES
      Opens N sessions, takes each through EHLO, MAIL, RCPT and DATA, sends
      BYTES bytes of message text on each (round robin, never the end of
      data), waits until the relay's kernel has taken every byte (the send
      queues are empty, 60 s at most), prints "holding N unsent U", then
      waits for a line on standard input and drops all the connections.
  data_hold.py steps PORT SPOOL BIG
      One session through the moments Postfix creates and removes the
      queue file, printing "STEP files=K modes=M" for the files in
      SPOOL/incoming at each: after MAIL, after the first RCPT, after a
      second RCPT, after RSET, after DATA and some text, after a message of
      BIG bytes (over the relay's --max-size: 552), after a whole message
      (250), and after a dropped connection in the middle of DATA. A step
      that expects the file gone waits for it up to 10 s.
"""
import fcntl
import os
import struct
import sys
import time

from smtp_probe import Conn  # the same hand-made SMTP client as the protocol tests

TIOCOUTQ = 0x5411  # Linux: bytes in a socket's send queue not yet acknowledged
LINE = b"x" * 78 + b"\r\n"


def connect(port):
    c = Conn(port)
    c.sock.settimeout(60)  # a relay writing its file reads nothing meanwhile
    return c


def open_data(c):
    for cmd, want in (("EHLO client.example", 250), ("MAIL FROM:<a@example.org>", 250),
                      ("RCPT TO:<b@example.org>", 250), ("DATA", 354)):
        code = c.cmd(cmd)
        if code != want:
            raise RuntimeError(f"{cmd}: {code}")


def text(n):
    return (LINE * (n // len(LINE) + 1))[:n]


def unsent(sock):
    return struct.unpack("i", fcntl.ioctl(sock.fileno(), TIOCOUTQ, b"\0\0\0\0"))[0]


def hold(port, n, size):
    conns = [connect(port) for _ in range(n)]
    for c in conns:
        open_data(c)
    piece = text(65536)
    sent = 0
    while sent < size:
        take = min(len(piece), size - sent)
        for c in conns:
            c.sock.sendall(piece[:take])
        sent += take
    deadline = time.time() + 60
    while time.time() < deadline and sum(unsent(c.sock) for c in conns) > 0:
        time.sleep(0.05)
    print(f"holding {n} unsent {sum(unsent(c.sock) for c in conns)}", flush=True)
    sys.stdin.readline()
    for c in conns:
        c.sock.close()


def files(spool):
    d = os.path.join(spool, "incoming")
    found = []
    for name in os.listdir(d):
        try:
            found.append(os.lstat(os.path.join(d, name)).st_mode & 0o777)
        except FileNotFoundError:
            pass
    return found


def say(step, spool, wait_gone=False):
    deadline = time.time() + 10
    found = files(spool)
    while wait_gone and found and time.time() < deadline:
        time.sleep(0.05)
        found = files(spool)
    modes = ",".join(sorted(f"{m:o}" for m in found)) or "-"
    print(f"{step} files={len(found)} modes={modes}", flush=True)


def steps(port, spool, big):
    c = connect(port)
    c.cmd("EHLO client.example")
    c.cmd("MAIL FROM:<a@example.org>")
    say("mail", spool)
    print(f"rcpt-reply {c.cmd('RCPT TO:<b@example.org>')}")
    say("rcpt", spool)
    c.cmd("RCPT TO:<c@example.org>")
    say("rcpt2", spool)
    print(f"rset-reply {c.cmd('RSET')}")
    say("rset", spool, wait_gone=True)

    c.cmd("MAIL FROM:<a@example.org>")
    c.cmd("RCPT TO:<b@example.org>")
    c.cmd("DATA")
    c.sock.sendall(text(20000))
    time.sleep(0.3)
    say("data", spool)
    c.sock.sendall(text(big) + b"\r\n.\r\n")
    print(f"big-reply {c.reply()[0]}")
    say("big", spool, wait_gone=True)

    c.cmd("MAIL FROM:<a@example.org>")
    c.cmd("RCPT TO:<b@example.org>")
    c.cmd("DATA")
    c.sock.sendall(text(5000) + b"\r\n.\r\n")
    print(f"whole-reply {c.reply()[0]}")

    c.cmd("MAIL FROM:<a@example.org>")
    c.cmd("RCPT TO:<b@example.org>")
    c.cmd("DATA")
    c.sock.sendall(text(30000))
    time.sleep(0.3)
    say("data2", spool)
    c.sock.close()
    say("drop", spool, wait_gone=True)


def main():
    if sys.argv[1] == "hold":
        hold(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        steps(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))


if __name__ == "__main__":
    main()
