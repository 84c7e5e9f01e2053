#!/usr/bin/env python3
"""fake_server - a scripted SMTP server that watches how smtp-source behaves.

It serves one client connection on 127.0.0.1 and checks the client side of
docs/security.md: the client speaks only after the greeting, waits for every
reply it needs (EHLO, each command unless PIPELINING is offered, 354, the
end-of-data reply), never sends message text without a 354, forgets after
STARTTLS whatever plaintext the server sent with its 220 and the EHLO
reply from before TLS, and gives up on an over-long reply line.

Usage: fake_server.py MODE PORTFILE [CERT KEY]. MODE is one of
  nopipe     PIPELINING not offered (only look-alikes of it are)
  pipe       PIPELINING offered
  reject     PIPELINING offered, every RCPT gets 550 and DATA 554
  inject     STARTTLS (and PIPELINING, before TLS only); the 220 to
             STARTTLS comes with an extra "250" line in the same write
  longreply  the EHLO reply has a 100 kB line, then a good last line
  split      PIPELINING not offered; every reply comes in two writes
             50 ms apart, cut inside a line
It writes its port to PORTFILE, serves as many transactions as the client
sends until QUIT, prints "ok"/"FAIL" lines and a closing count, and exits
0 if all checks passed.
"""
import os
import socket
import ssl
import sys
import time

from sockline import LineReader

results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok - " if cond else "FAIL - ") + name + ("" if cond else f": {detail}"), flush=True)


class Peer(LineReader):
    def __init__(self, sock, split=False):
        super().__init__(sock)
        self.split = split

    def pending(self, wait=0.3):
        """True if the client sent more than we have consumed, without waiting for us."""
        return self.waiting(wait)

    def rest(self):
        """Everything the client still sends until it closes (or 10 s pass)."""
        data = self.buf
        self.buf = b""
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except (OSError, socket.timeout):
            pass
        return data

    def send(self, text):
        data = text.encode()
        if self.split and len(data) > 1:
            # The client gets the start of a line in one read and its end in the next.
            cut = max(1, len(data) - 4)
            self.sock.sendall(data[:cut])
            time.sleep(0.05)
            data = data[cut:]
        self.sock.sendall(data)


def ehlo_reply(exts):
    return "".join(f"250{'-' if i < len(exts) - 1 else ' '}{e}\r\n" for i, e in enumerate(exts))


def transactions(mode, peer, pipelining, cmd):
    """Serve MAIL transactions (and RSETs) from `cmd' on; return the command after them."""
    n = 0
    while cmd.startswith("MAIL FROM:") or cmd == "RSET":
        if cmd == "RSET":
            peer.send("250 2.0.0 Ok\r\n")
            cmd = peer.line()
            continue
        n += 1
        t = f"{mode} #{n}"
        early = peer.pending()
        if pipelining:
            check(f"{t}: RCPT and DATA came with MAIL (pipelined)", early)
        else:
            check(f"{t}: no command before the MAIL reply (no pipelining)", not early)
        peer.send("250 2.1.0 Ok\r\n")
        rcpts = 0
        cmd = peer.line()
        while cmd.startswith("RCPT TO:"):
            rcpts += 1
            if not pipelining:
                check(f"{t}: nothing before the reply to RCPT {rcpts}", not peer.pending())
            peer.send("550 5.1.1 No such user\r\n" if mode == "reject" else "250 2.1.5 Ok\r\n")
            cmd = peer.line()
        check(f"{t}: {rcpts} RCPT, then DATA", rcpts > 0 and cmd == "DATA", cmd)
        check(f"{t}: no message text before the DATA reply", not peer.pending())
        if mode == "reject":
            peer.send("554 5.5.1 Error: no valid recipients\r\n")
            cmd = peer.line()
            check(f"{t}: after 554 to DATA, RSET or QUIT and no message text",
                  cmd in ("RSET", "QUIT"), cmd)
            continue
        peer.send("354 go ahead\r\n")
        lines = 0
        while peer.line() != ".":
            lines += 1
        check(f"{t}: message text arrived", lines > 0)
        check(f"{t}: nothing before the end-of-data reply", not peer.pending())
        peer.send(f"250 2.0.0 Ok: queued as FAKE{n}\r\n")
        cmd = peer.line()
    check(f"{mode}: at least one transaction", n > 0)
    return cmd


def serve(mode, peer, cert, key):
    # docs/security.md 6: a client speaks only after the greeting and the EHLO reply.
    check(f"{mode}: nothing sent before the greeting", not peer.pending())
    peer.send("220 fake ESMTP\r\n")
    cmd = peer.line()
    check(f"{mode}: client greets with EHLO", cmd.startswith("EHLO"), cmd)
    check(f"{mode}: nothing after EHLO before its reply", not peer.pending())
    if mode == "longreply":
        # docs/security.md 5: a reply line far over 512 octets. The client must
        # give up on it (no command but QUIT) with bounded memory, and never
        # read the good line behind it as the end of the EHLO reply.
        try:
            peer.send("250-fake\r\n250-" + "x" * 100000 + "\r\n250 8BITMIME\r\n")
        except OSError:
            pass
        rest = peer.rest()
        check("longreply: no command but QUIT after a 100 kB reply line",
              rest in (b"", b"QUIT\r\n"), rest[:80])
        return
    if mode == "split":
        exts = ["fake", "8BITMIME"]
    elif mode == "nopipe":
        # Only look-alikes: PIPELINING in the greeting text and in another keyword.
        exts = ["fake PIPELINING", "X-PIPELINING", "8BITMIME"]
    else:
        exts = ["fake", "PIPELINING", "8BITMIME"] + (["STARTTLS"] if mode == "inject" else [])
    peer.send(ehlo_reply(exts))
    pipelining = mode in ("pipe", "reject")
    if mode == "inject":
        cmd = peer.line()
        check("inject: client sends STARTTLS", cmd == "STARTTLS", cmd)
        # CVE-2011-0411 from the other side: an extra reply rides along with the 220.
        peer.send("220 2.0.0 Ready\r\n250 injected before TLS\r\n")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(cert, key)
        peer.sock = ctx.wrap_socket(peer.sock, server_side=True)
        peer.buf = b""
        cmd = peer.line()
        # docs/security.md 2: EHLO again; docs/security.md 1: the injected 250 is not its reply.
        check("inject: first command inside TLS is EHLO", cmd.startswith("EHLO"), cmd)
        check("inject: nothing after EHLO in TLS before its reply (injected 250 ignored)",
              not peer.pending())
        # PIPELINING was offered before TLS only: the client must forget it.
        peer.send(ehlo_reply(["fake", "8BITMIME"]))
        pipelining = False
    cmd = transactions(mode, peer, pipelining, peer.line())
    check(f"{mode}: QUIT at the end", cmd == "QUIT", cmd)
    peer.send("221 bye\r\n")


def main():
    mode, portfile = sys.argv[1], sys.argv[2]
    cert, key = (sys.argv[3], sys.argv[4]) if len(sys.argv) > 4 else (None, None)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    listener.settimeout(20)
    with open(portfile + ".tmp", "w") as f:
        f.write(f"{listener.getsockname()[1]}\n")
    os.rename(portfile + ".tmp", portfile)
    conn, _ = listener.accept()
    conn.settimeout(10)
    try:
        serve(mode, Peer(conn, split=mode == "split"), cert, key)
    except (EOFError, OSError) as e:
        check(f"{mode}: conversation completed", False, repr(e))
    conn.close()
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
