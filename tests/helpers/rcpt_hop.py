#!/usr/bin/env python3
"""rcpt_hop - a next hop whose answer to RCPT depends on the address.

Listens on 127.0.0.1 (port written to PORTFILE) and serves every
connection until it is killed. RCPT TO an address whose local part starts
with "reject" gets

    550 5.1.1 <ADDR>: Recipient address rejected: User unknown

one starting with "defer" gets "450 4.2.0 <ADDR>: try again later", and
every other address is accepted. PIPELINING is offered. Each message
taken is written to DIR as one file, "msg.N": the envelope as
"MAIL FROM:<s>" and "RCPT TO:<r>" lines, an empty line, then the text as
received (dot-unstuffed, CR LF kept).

Usage: rcpt_hop.py PORTFILE DIR
"""
import os
import socket
import sys
import threading

lock = threading.Lock()
counter = [0]


def serve(sock, outdir):
    f = sock.makefile("rb")

    def say(text):
        sock.sendall(text.encode() + b"\r\n")

    say("220 rcpt_hop ESMTP")
    sender, rcpts = None, []
    try:
        while True:
            line = f.readline()
            if not line:
                return
            cmd = line.rstrip(b"\r\n").decode("latin-1")
            verb = cmd[:4].upper()
            if verb in ("EHLO", "HELO"):
                say("250-rcpt_hop\r\n250-PIPELINING\r\n250-ENHANCEDSTATUSCODES\r\n250 8BITMIME")
            elif verb == "MAIL":
                sender, rcpts = cmd[10:].strip(), []
                say("250 2.1.0 Ok")
            elif verb == "RCPT":
                addr = cmd[8:].strip()
                local = addr.strip("<>").lower()
                if local.startswith("reject"):
                    say(f"550 5.1.1 {addr}: Recipient address rejected: User unknown")
                elif local.startswith("defer"):
                    say(f"450 4.2.0 {addr}: try again later")
                else:
                    rcpts.append(addr)
                    say("250 2.1.5 Ok")
            elif verb == "DATA":
                if not rcpts:
                    say("554 5.5.1 Error: no valid recipients")
                    continue
                say("354 End data with <CR><LF>.<CR><LF>")
                body = b""
                while True:
                    data = f.readline()
                    if not data:
                        return
                    if data in (b".\r\n", b".\n"):
                        break
                    body += data[1:] if data.startswith(b".") else data
                with lock:
                    counter[0] += 1
                    n = counter[0]
                head = f"MAIL FROM:{sender}\r\n" + "".join(f"RCPT TO:{r}\r\n" for r in rcpts)
                path = os.path.join(outdir, f"msg.{n}")
                with open(path + ".tmp", "wb") as out:
                    out.write(head.encode() + b"\r\n" + body)
                os.rename(path + ".tmp", path)
                say("250 2.0.0 Ok: queued")
            elif verb == "RSET":
                sender, rcpts = None, []
                say("250 2.0.0 Ok")
            elif verb == "QUIT":
                say("221 2.0.0 Bye")
                return
            else:
                say("502 5.5.2 Error: command not recognized")
    except OSError:
        pass
    finally:
        sock.close()


def main():
    portfile, outdir = sys.argv[1], sys.argv[2]
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 0))
    srv.listen(50)
    with open(portfile + ".tmp", "w") as pf:
        pf.write(str(srv.getsockname()[1]))
    os.rename(portfile + ".tmp", portfile)
    while True:
        conn, _ = srv.accept()
        threading.Thread(target=serve, args=(conn, outdir), daemon=True).start()


if __name__ == "__main__":
    main()
