#!/usr/bin/env python3
"""smtp_flood - pipeline commands at an SMTP server without reading its replies.

Usage: smtp_flood.py MODE PORT PID [--tls] [--most-mb N] [--bound-kib N] [--count N] [--idle S]

MODE is what the client sends over and over: "ehlo" (EHLO x), "noop"
(NOOP), or "rcpt" (MAIL, 10,000 RCPT, RSET). With --count N it sends
exactly N of them, else as much as the server takes, up to --most-mb
megabytes. With --tls it says STARTTLS first (the TLS runs through memory
BIOs, so that one thread both holds back and reads).

Phase 1 sends without reading a byte until it has sent its all, the
server has taken nothing for a second (it stopped reading), or the
server's resident memory (VmRSS of PID) has passed --bound-kib (then the
flood is cut short: the server buffers without limit). With --idle S the
client then waits S seconds more, still reading nothing. Phase 2 sends the
rest and QUIT while it reads every reply, until the server closes. What the
test checks is printed, one "key value" a line:

  sent B       bytes sent in phase 1        stalled 0|1   phase 1 ended by a stall
  over 0|1     VmRSS passed the bound       rss_max K     the most VmRSS seen, KiB
  hwm K        the server's VmHWM after phase 1, KiB
  idle_cpu_ms  the server's CPU time in the second after phase 1 (0 unless it spins)
  commands C   command lines sent in all    replies R     replies read (the greeting aside)
  last CODE    the last reply's code        closed 0|1    the server closed the connection
"""
import argparse
import os
import select
import socket
import ssl
import sys
import time

STALL = 1.0  # seconds without progress that mean the server stopped reading
PHASE_SECONDS = 90  # each phase's bound


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def cpu_ms(pid):
    """The process's user and system time, in milliseconds (/proc/PID/stat)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) * 1000 // os.sysconf("SC_CLK_TCK")
    except OSError:
        return 0


def payload(mode):
    if mode == "ehlo":
        return b"EHLO x\r\n"
    if mode == "noop":
        return b"NOOP\r\n"
    return (b"MAIL FROM:<a@example.org>\r\n" + b"RCPT TO:<b@example.org>\r\n" * 10000
            + b"RSET\r\n")


class Link:
    """A non-blocking socket, plain or TLS through memory BIOs: bytes in, lines out."""

    def __init__(self, sock):
        self.sock, self.tls = sock, None
        self.raw_out = b""  # bytes for the socket (TLS records, or plain text)
        self.text_in = b""

    def start_tls(self):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
        self.bio_in, self.bio_out = ssl.MemoryBIO(), ssl.MemoryBIO()
        self.tls = ctx.wrap_bio(self.bio_in, self.bio_out, server_side=False)
        end = time.monotonic() + 20
        while True:
            try:
                self.tls.do_handshake()
                break
            except ssl.SSLWantReadError:
                pass
            self.raw_out += self.bio_out.read()
            if not self.pump(True, end):
                raise EOFError("closed in the TLS handshake")
        self.raw_out += self.bio_out.read()

    def room(self):
        return len(self.raw_out) < 65536

    def put(self, data):
        if self.tls:
            self.tls.write(data)
            self.raw_out += self.bio_out.read()
        else:
            self.raw_out += data

    def pump(self, read, until, wait=0.2):
        """Send what waits and, if `read', take what came; False once the peer has closed."""
        r, w, _ = select.select([self.sock] if read else [], [self.sock] if self.raw_out else [],
                                [], max(0, min(wait, until - time.monotonic())))
        if w:
            try:
                n = self.sock.send(self.raw_out)
                self.raw_out = self.raw_out[n:]
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                return False
        if r:
            try:
                data = self.sock.recv(1 << 20)
            except ConnectionResetError:
                data = b""
            if not data:
                return False
            if self.tls:
                self.bio_in.write(data)
                try:
                    while True:
                        got = self.tls.read(1 << 20)
                        if not got:
                            break
                        self.text_in += got
                except (ssl.SSLWantReadError, ssl.SSLZeroReturnError):
                    pass
            else:
                self.text_in += data
        return True

    def reply(self, until):
        """One whole reply's code, blocking up to `until'."""
        while True:
            while b"\n" in self.text_in:
                line, self.text_in = self.text_in.split(b"\n", 1)
                if line[3:4] != b"-":
                    return int(line[:3])
            if time.monotonic() > until or not self.pump(True, until):
                raise EOFError("no reply")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["ehlo", "noop", "rcpt"])
    ap.add_argument("port", type=int)
    ap.add_argument("pid", type=int)
    ap.add_argument("--tls", action="store_true")
    ap.add_argument("--most-mb", type=float, default=200)
    ap.add_argument("--bound-kib", type=int, default=64 * 1024)
    ap.add_argument("--count", type=int, default=0)
    ap.add_argument("--idle", type=float, default=0)
    a = ap.parse_args()

    sock = socket.socket()
    # Small client buffers: the server's replies fill them, and its socket, soon.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 65536)
    sock.settimeout(10)
    sock.connect(("127.0.0.1", a.port))
    sock.setblocking(False)
    link = Link(sock)
    end = time.monotonic() + 20
    if link.reply(end) != 220:
        sys.exit("no greeting")
    if a.tls:
        link.put(b"EHLO x\r\n")
        if link.reply(end) != 250:
            sys.exit("EHLO refused")
        link.put(b"STARTTLS\r\n")
        if link.reply(end) != 220:
            sys.exit("STARTTLS refused")
        link.start_tls()
    unit = payload(a.mode)
    if a.mode == "rcpt":
        link.put(b"EHLO x\r\n")
        commands = 1
    else:
        commands = 0
    total = a.count * len(unit) if a.count else int(a.most_mb * 1e6)
    block = unit * max(1, 65536 // len(unit))
    sent, queued, over, rss_max = 0, 0, 0, 0
    last_progress = time.monotonic()
    end = last_progress + PHASE_SECONDS
    next_look = 0
    stalled = 0
    while queued < total and time.monotonic() < end:
        if link.room():
            take = block[:min(len(block), total - queued)]
            link.put(take)
            queued += len(take)
            commands += take.count(b"\n")
        before = len(link.raw_out)
        if not link.pump(False, end, 0.05):
            break  # the server closed, or reset: phase 2 says so
        if len(link.raw_out) < before:
            sent += before - len(link.raw_out)
            last_progress = time.monotonic()
        elif time.monotonic() - last_progress > STALL:
            stalled = 1
            break
        if sent >= next_look or time.monotonic() - last_progress > 0.1:
            next_look = sent + (1 << 20)
            rss = status_kib(a.pid, "VmRSS")
            rss_max = max(rss_max, rss)
            if rss > a.bound_kib:
                over = 1
                break
    rss_max = max(rss_max, status_kib(a.pid, "VmRSS"))
    print("sent", sent)
    print("stalled", stalled)
    print("over", over)
    print("rss_max", rss_max)
    print("hwm", status_kib(a.pid, "VmHWM"))
    sys.stdout.flush()
    if over:
        return  # reading gigabytes of replies would prove nothing more
    before = cpu_ms(a.pid)
    time.sleep(1)
    print("idle_cpu_ms", cpu_ms(a.pid) - before)
    time.sleep(a.idle)
    # Phase 2: the rest of the last block's commands, QUIT, and every reply.
    rest = total - queued if a.count else 0
    replies, last, closed = 0, 0, 0
    end = time.monotonic() + PHASE_SECONDS
    pending = b""
    quit_sent = False
    while time.monotonic() < end:
        if link.room():
            if rest > 0:
                take = block[:min(len(block), rest)]
                link.put(take)
                rest -= len(take)
                commands += take.count(b"\n")
            elif not quit_sent:
                link.put(b"QUIT\r\n")
                commands += 1
                quit_sent = True
        alive = link.pump(True, end)
        data, link.text_in = link.text_in, b""
        if data:
            cut = data.rfind(b"\n")
            if cut < 0:
                pending += data
            else:
                whole = b"\n" + pending + data[:cut + 1]
                pending = data[cut + 1:]
                # a reply's last line: three digits and a space, at a line's start
                for code in (b"250", b"221", b"421", b"452", b"502", b"503", b"500"):
                    n = whole.count(b"\n" + code + b" ")
                    if n:
                        replies += n
                        last_at = whole.rfind(b"\n" + code + b" ")
                        if last_at >= 0 and whole.find(b"\n", last_at + 1) == len(whole) - 1:
                            last = int(code)
        if not alive:
            closed = 1
            break
    print("commands", commands)
    print("replies", replies)
    print("last", last)
    print("closed", closed)


if __name__ == "__main__":
    main()
