#!/usr/bin/env python3
"""hostile_hop - a next hop that misbehaves, then behaves.

Listens on 127.0.0.1 (port written to PORTFILE). The first connections
each get one misbehaviour from MODES, in order; every later connection
is passed through to a real SMTP server at 127.0.0.1:SINKPORT, so what
the relay finally delivers can be counted there.

Modes:
  longline  the greeting is a 10,000-byte line
  endless   the EHLO reply has continuation lines without end
  early     a second reply arrives before any command
  stall     greets, then never answers EHLO
  dropmail  answers MAIL with half a line and closes
  dropdot   takes the whole message, then closes without a reply
  garbage   answers EHLO with bytes that are no reply at all
  mixed     answers EHLO with a reply whose lines have different codes
  stoptext  reads the first 64 KiB of the text, then nothing more

Liars, who say 250 to an end of data they never saw, then close:
  ack354    sends its 250 in the same write as the 354
  ackpart   reads the first 64 KiB of the text, then says 250 (for
            messages well over 64 KiB: a shorter one is all in the hop's
            socket buffer, dot included, whatever the hop reads)
  ackburst  answers the pipelined MAIL, RCPT and DATA, and the dot not
            yet sent, in one write

Proxies to the real server that behave, slowly or oddly:
  slow      reads the relay's side 16 KiB every 50 ms (about 320 KiB/s),
            with a small receive buffer: a long text takes many seconds
  split     passes each of the server's replies on one byte per write
  dotclose  closes the connection as soon as the server's 250 to the
            first end of data is passed on, before any QUIT
  dottwice  passes the server's 250 to the first end of data on twice
  dotstray  passes it on with a stray "550 5.7.1 stray" behind it

Hops that leave a connection unfit for another message as soon as it
has one: the relay finds it idle (nothing owed) with something waiting.
What follows the server's 250 to the first end of data goes in the same
segment, so that it has arrived whenever the relay reads the 250; and
the 250 is held until the file GATE exists, so that the test can have
more messages waiting for this connection by then:
  idle421   a "421" behind it, and the end of the connection (the FIN in
            the same segment)
  idleclose nothing behind it but the end of the connection
  idlejunk  bytes that are no reply behind it; the connection stays open

With the single mode `sync', every connection instead goes to the real
server through a strict proxy that takes PIPELINING out of the EHLO
reply and checks the client's synchronization as Exim's
smtp_enforce_sync does: a command (or text after the dot) that arrives
before the reply to the one before gets `554 SMTP synchronization error',
the connection is closed, and "VIOLATION" is printed on standard error.

Usage: hostile_hop.py PORTFILE SINKPORT MODE[,MODE...] [GATE]
"""
import os
import select
import socket
import sys
import threading
import time

from sockline import LineReader


def lines(sock):
    reader = LineReader(sock)
    while (line := reader.raw_line()) is not None:
        yield line[:-1].rstrip(b"\r")


def read_part(reader, limit):
    """Take about `limit' bytes of text, stopping short of the dot."""
    taken = 0
    for text in reader:
        if text == b".":
            print("ackpart: the whole message was read", file=sys.stderr, flush=True)
            return
        taken += len(text) + 2
        if taken >= limit:
            return


def misbehave(sock, mode):
    try:
        if mode == "longline":
            sock.sendall(b"220 " + b"x" * 10000 + b"\r\n")
            time.sleep(5)
            return
        sock.sendall(b"220 hostile ESMTP\r\n")
        if mode == "early":
            sock.sendall(b"250 nobody asked\r\n")
        reader = lines(sock)
        for line in reader:
            verb = line[:4].upper()
            if verb == b"EHLO":
                if mode == "endless":
                    while True:
                        sock.sendall(b"250-more\r\n" * 100)
                if mode == "stall":
                    time.sleep(30)
                    return
                if mode == "mixed":
                    sock.sendall(b"250-hostile\r\n554 PIPELINING\r\n")
                    time.sleep(5)
                    return
                if mode == "garbage":
                    sock.sendall(b"\x00\x01 hello?\r\n")
                    time.sleep(5)
                    return
                sock.sendall(b"250-hostile\r\n250 PIPELINING\r\n")
            elif verb == b"MAIL" and mode == "ackburst":
                # The group behind MAIL is already on its way: answer it all.
                sock.sendall(b"250 ok\r\n250 ok\r\n354 go\r\n250 ok: queued as LIE\r\n")
                return
            elif verb == b"MAIL":
                if mode == "dropmail":
                    sock.sendall(b"25")
                    return
                sock.sendall(b"250 ok\r\n")
            elif verb == b"RCPT":
                sock.sendall(b"250 ok\r\n")
            elif verb == b"DATA" and mode == "ack354":
                sock.sendall(b"354 go\r\n250 ok: queued as LIE\r\n")
                return
            elif verb == b"DATA" and mode == "stoptext":
                sock.sendall(b"354 go\r\n")
                read_part(reader, 65536)
                time.sleep(30)
                return
            elif verb == b"DATA" and mode == "ackpart":
                sock.sendall(b"354 go\r\n")
                read_part(reader, 65536)
                sock.sendall(b"250 ok: queued as LIE\r\n")
                return
            elif verb == b"DATA":
                sock.sendall(b"354 go\r\n")
                for text in reader:
                    if text == b".":
                        break
                return  # dropdot: no reply to the dot
            else:
                sock.sendall(b"250 ok\r\n")
    except OSError:
        pass
    finally:
        sock.close()


def pump(src, dst, mode=None):
    try:
        while True:
            data = src.recv(16384 if mode == "slow" else 65536)
            if not data:
                break
            if mode == "split":
                for i in range(len(data)):
                    dst.sendall(data[i:i + 1])
                    time.sleep(0.001)
            else:
                dst.sendall(data)
            if mode == "slow":
                time.sleep(0.05)
    except OSError:
        pass
    finally:
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def proxy(sock, sink_port, mode=None):
    try:
        up = socket.create_connection(("127.0.0.1", sink_port))
    except OSError:
        sock.close()
        return
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    threading.Thread(target=pump, args=(up, sock, mode == "split" and mode), daemon=True).start()
    pump(sock, up, mode == "slow" and mode)


def upstream_reply(up):
    lines = []
    while True:
        line = up.raw_line()
        if line is None:
            return None
        lines.append(line)
        if len(line) < 4 or line[3:4] != b"-":
            return lines


def sync_proxy(sock, sink_port):
    try:
        upsock = socket.create_connection(("127.0.0.1", sink_port))
    except OSError:
        sock.close()
        return
    client, up = LineReader(sock), LineReader(upsock)

    def violation(what):
        print(f"VIOLATION: {what}", file=sys.stderr, flush=True)
        sock.sendall(b"554 5.5.0 SMTP synchronization error\r\n")

    try:
        greeting = upstream_reply(up)
        if client.waiting(0.05):
            return violation("talked before the greeting")
        sock.sendall(b"".join(greeting))
        while True:
            cmd = client.raw_line()
            if cmd is None:
                return
            upsock.sendall(cmd)
            reply = upstream_reply(up)
            if reply is None:
                return
            if cmd[:4].upper() == b"EHLO":
                reply = [l for l in reply if b"PIPELINING" not in l.upper()]
                reply = [l[:3] + b"-" + l[4:] for l in reply[:-1]] + [reply[-1][:3] + b" " + reply[-1][4:]]
            if client.waiting(0.05):
                return violation(f"a command behind {cmd.strip()!r} before its reply")
            sock.sendall(b"".join(reply))
            if reply[-1][:3] == b"354":
                while True:  # the message text, to the dot
                    text = client.raw_line()
                    if text is None:
                        return
                    upsock.sendall(text)
                    if text.rstrip(b"\r\n") == b".":
                        break
                reply = upstream_reply(up)
                if reply is None:
                    return
                if client.waiting(0.05):
                    return violation("a command behind the dot before its reply")
                sock.sendall(b"".join(reply))
            if cmd[:4].upper() == b"QUIT":
                return
    except OSError:
        pass
    finally:
        for s_ in (sock, upsock):
            s_.close()


IDLE_MODES = {
    "idle421": b"421 4.3.2 hostile: closing this connection\r\n",
    "idleclose": b"",
    "idlejunk": b"\x00\x7f junk out of turn",
}


def wait_gate(gate):
    """Until the file `gate' exists (at most 60 s); none: at once."""
    for _ in range(3000):
        if gate is None or os.path.exists(gate):
            return
        time.sleep(0.02)


def idle_misbehave(sock, data, mode, gate):
    """The 250 to the end of data, then `mode': False when the connection ends here."""
    wait_gate(gate)
    if mode == "idlejunk":
        sock.sendall(data + IDLE_MODES[mode])
        return True
    # Held back (MSG_MORE) until the FIN goes with it, in one segment.
    sock.sendall(data + IDLE_MODES[mode], socket.MSG_MORE)
    sock.shutdown(socket.SHUT_WR)
    return False


def dot_proxy(sock, sink_port, mode, gate=None):
    try:
        up = socket.create_connection(("127.0.0.1", sink_port))
    except OSError:
        sock.close()
        return
    tail, dot = b"", False
    try:
        while True:
            ready = select.select([sock, up], [], [], 30)[0]
            if not ready:
                return
            if sock in ready:
                data = sock.recv(65536)
                if not data:
                    return
                up.sendall(data)
                tail = (tail + data)[-5:]
                dot = dot or tail == b"\r\n.\r\n"
            if up in ready:
                data = up.recv(65536)
                if not data:
                    return
                if not (dot and data.startswith(b"250")):
                    sock.sendall(data)
                    continue
                # the first end of data's reply: what goes behind it, in the same write
                if mode in IDLE_MODES:
                    if not idle_misbehave(sock, data, mode, gate):
                        return
                    dot = False
                    continue
                if mode == "dotclose":
                    sock.sendall(data)
                    return
                sock.sendall(data + (data if mode == "dottwice" else b"550 5.7.1 stray\r\n"))
                dot = False
    except OSError:
        pass
    finally:
        sock.close()
        up.close()


def main():
    portfile, sink_port, modes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
    gate = sys.argv[4] if len(sys.argv) > 4 else None
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if "slow" in modes:  # accepted sockets inherit it: the relay's writes fill it soon
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(128)
    with open(portfile, "w") as f:
        f.write(f"{lsock.getsockname()[1]}\n")
    served = 0
    while True:
        sock, _ = lsock.accept()
        if modes == ["sync"]:
            target, args = sync_proxy, (sock, sink_port)
        elif served < len(modes) and modes[served] in ("dotclose", "dottwice", "dotstray"):
            target, args = dot_proxy, (sock, sink_port, modes[served])
        elif served < len(modes) and modes[served] in IDLE_MODES:
            target, args = dot_proxy, (sock, sink_port, modes[served], gate)
        elif served < len(modes) and modes[served] in ("slow", "split"):
            target, args = proxy, (sock, sink_port, modes[served])
        elif served < len(modes):
            target, args = misbehave, (sock, modes[served])
        else:
            target, args = proxy, (sock, sink_port)
        served += 1
        threading.Thread(target=target, args=args, daemon=True).start()


if __name__ == "__main__":
    main()
