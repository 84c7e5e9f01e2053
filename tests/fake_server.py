#!/usr/bin/env python3
"""fake_server - a scripted SMTP server that watches how smtp-source behaves.

It serves one client connection at a time on 127.0.0.1 and checks the
client side of security.md: the client never pipelines unless PIPELINING
is offered, always waits for 354 before the message text, and after
STARTTLS ignores whatever plaintext the server sent with its 220 and
greets again inside TLS.

Usage: fake_server.py MODE PORTFILE [CERT KEY]; MODE is nopipe, pipe or
inject. It writes its port to PORTFILE, serves one message, prints
"ok"/"FAIL" lines and a closing count, and exits 0 if all checks passed.
"""
import select
import socket
import ssl
import sys

results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok - " if cond else "FAIL - ") + name + ("" if cond else f": {detail}"), flush=True)


class Peer:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def line(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise EOFError
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r").decode("latin-1")

    def pending(self, wait=0.3):
        """True if the client sent more than we have consumed, without waiting for us."""
        if self.buf:
            return True
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        return bool(select.select([self.sock], [], [], wait)[0])

    def send(self, text):
        self.sock.sendall(text.encode())


def serve(mode, peer, cert, key):
    offer_pipelining = mode == "pipe"
    peer.send("220 fake ESMTP\r\n")
    cmd = peer.line()
    check(f"{mode}: client greets with EHLO", cmd.startswith("EHLO"), cmd)
    exts = ["fake"] + (["PIPELINING"] if offer_pipelining else []) + (["STARTTLS"] if mode == "inject" else [])
    peer.send("".join(f"250{'-' if i < len(exts) - 1 else ' '}{e}\r\n" for i, e in enumerate(exts)))
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
        check("inject: first command inside TLS is EHLO", cmd.startswith("EHLO"), cmd)
        peer.send("250-fake\r\n250 8BITMIME\r\n")
    cmd = peer.line()
    check(f"{mode}: MAIL FROM", cmd.startswith("MAIL FROM:"), cmd)
    early = peer.pending()
    if offer_pipelining:
        check("pipe: RCPT and DATA came with MAIL (pipelined)", early)
    else:
        check(f"{mode}: no command before the MAIL reply (no pipelining)", not early)
    peer.send("250 2.1.0 Ok\r\n")
    cmd = peer.line()
    check(f"{mode}: RCPT TO", cmd.startswith("RCPT TO:"), cmd)
    if not offer_pipelining:
        check(f"{mode}: nothing before the RCPT reply", not peer.pending())
    peer.send("250 2.1.5 Ok\r\n")
    cmd = peer.line()
    check(f"{mode}: DATA", cmd == "DATA", cmd)
    check(f"{mode}: no message text before 354", not peer.pending())
    peer.send("354 go ahead\r\n")
    lines = 0
    while peer.line() != ".":
        lines += 1
    check(f"{mode}: message text arrived", lines > 0)
    peer.send("250 2.0.0 Ok: queued as FAKE1\r\n")
    cmd = peer.line()
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
    import os
    os.rename(portfile + ".tmp", portfile)
    conn, _ = listener.accept()
    conn.settimeout(10)
    try:
        serve(mode, Peer(conn), cert, key)
    except (EOFError, OSError) as e:
        check(f"{mode}: conversation completed", False, repr(e))
    conn.close()
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if results and all(results) else 1)


if __name__ == "__main__":
    main()
