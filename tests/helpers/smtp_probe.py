#!/usr/bin/env python3
"""smtp_probe - drive our smtp-sink with hand-made SMTP, good and bad.

Each check opens its own connection to a sink started by it_protocol.sh and
asserts the replies that docs/security.md asks for: line limits, sequencing,
the SMTP smuggling endings, early talkers, pipelining, STARTTLS injection,
error limits and size limits. Usage: smtp_probe.py GROUP PORT, where GROUP
names the sink configuration the shell script started.
"""
import socket
import ssl
import sys
import time

from sockline import LineReader

PORT = 0
results = []


def check(name, cond, detail=""):
    results.append(bool(cond))
    print(("ok - " if cond else "FAIL - ") + name + ("" if cond else f": {detail}"))


class Conn(LineReader):
    def __init__(self, port=None):
        super().__init__(socket.create_connection(("127.0.0.1", port or PORT), timeout=5))
        self.greeting = self.reply()

    def send(self, data):
        self.sock.sendall(data)

    def reply(self):
        """One whole reply: (code, [lines])."""
        lines = [self.line()]
        while len(lines[-1]) > 3 and lines[-1][3] == "-":
            lines.append(self.line())
        return int(lines[0][:3]), lines

    def cmd(self, text):
        self.send(text.encode() + b"\r\n")
        return self.reply()[0]

    def nothing_within(self, seconds):
        """True if no byte arrives (and the connection stays open) for `seconds'."""
        self.sock.settimeout(seconds)
        try:
            data = self.sock.recv(1)
            return False if data else False
        except socket.timeout:
            return True
        finally:
            self.sock.settimeout(5)

    def pending_reply(self):
        return self.waiting(0)

    def closed(self):
        try:
            self.sock.settimeout(3)
            while True:
                if not self.sock.recv(4096):
                    return True
        except (ConnectionResetError, BrokenPipeError):
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


def start_transaction(c, rcpts=1):
    assert c.cmd("MAIL FROM:<a@example.org>") == 250
    for i in range(rcpts):
        assert c.cmd(f"RCPT TO:<r{i}@example.org>") == 250
    return c.cmd("DATA")


def check_addresses():
    """RFC 5321 4.1.2 paths and RFC 6531: neither server offers SMTPUTF8."""
    c = Conn()
    c.send(b"EHLO probe\r\n")
    code, lines = c.reply()
    check("EHLO does not offer SMTPUTF8", code == 250 and not any("SMTPUTF8" in l for l in lines),
          lines)
    check("quoted local part with '>' and a space -> 250", c.cmd('MAIL FROM:<"a b>c"@b>') == 250)
    check("  ... in RCPT too, with a parameter -> 250",
          c.cmd('RCPT TO:<"x y>z"@d> NOTIFY=NEVER') == 250)
    check("quoted pairs -> 250", c.cmd(r'RCPT TO:<"q\"p\\"@d>') == 250)
    check("unbalanced quote -> 501", c.cmd('RCPT TO:<"x@d>') == 501)
    check("a tab inside quotes -> 501", c.cmd('RCPT TO:<"x\ty"@d>') == 501)
    check("RSET", c.cmd("RSET") == 250)
    check("SMTPUTF8 not offered -> 555", c.cmd("MAIL FROM:<a@b> SMTPUTF8") == 555)
    c.send("MAIL FROM:<é@b>\r\n".encode())
    code, lines = c.reply()
    check("8-bit sender without SMTPUTF8 -> 553, saying why",
          code == 553 and "SMTPUTF8" in lines[0], lines)
    check("  ... then an ASCII sender -> 250", c.cmd("MAIL FROM:<a@b>") == 250)
    c.send("RCPT TO:<\"é\"@d>\r\n".encode())
    check("8-bit recipient, even quoted -> 553", c.reply()[0] == 553)
    c.send(b"RCPT TO:<r@d> ORCPT=rfc822;\xc3\xa9@d\r\n")
    check("8-bit parameter -> 501", c.reply()[0] == 501)
    check("QUIT -> 221", c.cmd("QUIT") == 221)
    c.close()


def group_default():
    check_addresses()
    c = Conn()
    check("greeting is 220", c.greeting[0] == 220, c.greeting)
    # docs/security.md 5: a 100 kB command with no LF -> 500, its tail never runs.
    c.send(b"NOOP " + b"x" * 100000 + b" QUIT\r\nNOOP\r\n")
    code, _ = c.reply()
    check("over-long command gets 500", code == 500, code)
    check("its tail is not run (next reply is NOOP's 250)", c.reply()[0] == 250)
    check("connection still open afterwards", c.cmd("NOOP") == 250)
    c.close()

    # A command split over reads, behind a whole one: the part that came
    # first is kept until its line ends (the server's input buffer, not
    # the memory one read landed in).
    c = Conn()
    c.send(b"NOOP\r\nMAIL FR")
    check("the whole command is answered at once", c.reply()[0] == 250)
    time.sleep(0.2)
    c.send(b"OM:<a@b>\r\nRS")
    check("  ... the split one once its line ends", c.reply()[0] == 250)
    time.sleep(0.2)
    c.send(b"ET\r\n")
    check("  ... and the next split one", c.reply()[0] == 250)
    check("  ... which was RSET's: RCPT now needs a new MAIL", c.cmd("RCPT TO:<x@y>") == 503)
    c.close()

    # docs/security.md 7: sequencing.
    c = Conn()
    check("RCPT before MAIL -> 503", c.cmd("RCPT TO:<x@y>") == 503)
    check("DATA before MAIL -> 503", c.cmd("DATA") == 503)
    c.cmd("EHLO probe")
    check("MAIL accepted", c.cmd("MAIL FROM:<a@b>") == 250)
    check("nested MAIL -> 503", c.cmd("MAIL FROM:<a@b>") == 503)
    check("DATA without RCPT -> 503", c.cmd("DATA") == 503)
    check("syntax error -> 501", c.cmd("RCPT TO:x@y") == 501)
    # A bare CR in an address would end the command at a hop that splits at CR.
    check("bare CR in an address -> 501", c.cmd("RCPT TO:<b\rRSET@x>") == 501)
    check("escape character in a parameter -> 501", c.cmd("RCPT TO:<b@x> NOTIFY=\x1b") == 501)
    check("unknown command -> 502", c.cmd("FROB") == 502)
    check("RSET -> 250", c.cmd("RSET") == 250)
    check("QUIT -> 221", c.cmd("QUIT") == 221)
    check("closed after QUIT", c.closed())

    # docs/security.md 6: PIPELINING advertised -> one reply per command, in order.
    c = Conn()
    code, lines = c.reply() if False else (None, None)
    c.send(b"EHLO probe\r\n")
    code, lines = c.reply()
    check("EHLO offers PIPELINING", "250-PIPELINING" in lines, lines)
    c.send(b"MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nRCPT TO:<e@f>\r\nDATA\r\n")
    codes = [c.reply()[0] for _ in range(4)]
    check("pipelined group: replies in order", codes == [250, 250, 250, 354], codes)
    c.send(b"Subject: p\r\n\r\nhello\r\n.\r\n")
    check("pipelined message accepted", c.reply()[0] == 250)
    c.close()

    # docs/security.md 6: message text before the 354 is refused and the session closed.
    c = Conn()
    c.send(b"MAIL FROM:<a@b>\r\nRCPT TO:<c@d>\r\nDATA\r\nSubject: early\r\n\r\nx\r\n.\r\n")
    codes = [c.reply()[0] for _ in range(3)]
    check("early talker: 554 instead of 354", codes == [250, 250, 554], codes)
    check("early talker: connection closed", c.closed())


SMUGGLE = [b"\n.\n", b"\r.\r", b"\r.\n", b"\n.\r", b"\n.\r\n", b"\r\n.\n", b"\r.\r\n",
           b"\r\n.\r", b"\r\n\0.\r\n"]


def smuggle_replies(ending):
    """Replies to one message carrying a smuggled second transaction."""
    c = Conn()
    if start_transaction(c) != 354:
        return None
    c.send(b"Subject: s\r\n\r\nbody" + ending +
           b"MAIL FROM:<evil@x>\r\nRCPT TO:<v@y>\r\nDATA\r\nsmuggled\r\n.\r\nQUIT\r\n")
    codes = []
    try:
        while True:
            codes.append(c.reply()[0])
    except (EOFError, socket.timeout, ConnectionResetError):
        pass
    c.close()
    return codes


def group_normalize():
    # docs/security.md 3: only CR LF . CR LF ends DATA; never two 250s for one message.
    for ending in SMUGGLE:
        codes = smuggle_replies(ending)
        check(f"normalize, ending {ending!r}: one 250, then 221", codes == [250, 221], codes)


def group_strict():
    for ending in SMUGGLE:
        codes = smuggle_replies(ending)
        want = [250, 221] if ending == b"\r\n\0.\r\n" else [550, 221]
        check(f"strict, ending {ending!r}: {want}", codes == want, codes)


def group_lenient():
    # docs/security.md 3, OpenSMTPD's reader: a line ends at LF with one CR
    # stripped, so three of the endings end DATA and the smuggled MAIL and
    # RCPT behind them are run: the mode exists to test clients against
    # such servers. Its text, sent before any 354, still meets the
    # early-talker rule (554 and close), so no second message is taken.
    ends = (b"\n.\n", b"\n.\r\n", b"\r\n.\n")
    for ending in SMUGGLE:
        codes = smuggle_replies(ending)
        want = [250, 250, 250, 554] if ending in ends else [250, 221]
        check(f"lenient, ending {ending!r}: {want}", codes == want, codes)


def group_tls():
    # docs/security.md 1: plaintext after STARTTLS is discarded, never answered in TLS.
    c = Conn()
    c.send(b"EHLO probe\r\nSTARTTLS\r\nRSET\r\n")
    code, lines = c.reply()
    check("EHLO offers STARTTLS", "250-STARTTLS" in lines or "250 STARTTLS" in lines, lines)
    check("STARTTLS -> 220", c.reply()[0] == 220)
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    c.sock = ctx.wrap_socket(c.sock)
    c.buf = b""
    check("TLS is up", c.sock.version() is not None)
    check("the injected RSET got no reply", c.nothing_within(0.5))
    # docs/security.md 2: TLS forgets the EHLO.
    check("MAIL without a new EHLO -> 503", c.cmd("MAIL FROM:<a@b>") == 503)
    c.send(b"EHLO again\r\n")
    code, lines = c.reply()
    check("EHLO after TLS no longer offers STARTTLS",
          code == 250 and not any("STARTTLS" in l for l in lines), lines)
    check("mail flows inside TLS", start_transaction(c) == 354)
    c.send(b"Subject: t\r\n\r\nsecret\r\n.\r\n")
    check("message accepted inside TLS", c.reply()[0] == 250)
    c.close()


def group_limits():
    # --error-limit 5: the fifth error gets 421 and the session ends.
    c = Conn()
    codes = [c.cmd("BOGUS") for _ in range(4)]
    c.send(b"BOGUS\r\n")
    code, _ = c.reply()
    check("errors before the limit get 502", codes == [502] * 4, codes)
    check("error limit reached -> 421", code == 421, code)
    check("closed after the error limit", c.closed())

    # --junk-limit 3: three commands that achieve nothing pass, each one more
    # is an error; an accepted message forgives them (docs/security.md item 11).
    c = Conn()
    codes = [c.cmd(v) for v in ("NOOP", "EHLO probe", "RSET", "VRFY <a@b>")]
    check("junk past --junk-limit is still answered (an error: 1 of 5)",
          codes == [250, 250, 250, 252], codes)
    check("a message after junk", start_transaction(c) == 354)
    c.send(b"Subject: junk\r\n\r\nx\r\n.\r\n")
    check("  ... is accepted", c.reply()[0] == 250)
    codes = [c.cmd("NOOP") for _ in range(6)]
    check("after an accepted message three pass again, then errors 2 to 4 of 5",
          codes == [250] * 6, codes)
    c.send(b"NOOP\r\n")
    code, _ = c.reply()
    check("junk that reaches the error limit -> 421", code == 421, code)
    check("closed after the junk", c.closed())

    # --max-size 1000: SIZE announced, MAIL SIZE= checked, oversize read to the end then 552.
    c = Conn()
    c.send(b"EHLO probe\r\n")
    code, lines = c.reply()
    check("EHLO announces SIZE 1000", "250-SIZE 1000" in lines, lines)
    check("MAIL SIZE=5000 -> 552", c.cmd("MAIL FROM:<a@b> SIZE=5000") == 552)
    check("start a transaction", start_transaction(c) == 354)
    c.send(b"Subject: big\r\n\r\n" + (b"y" * 78 + b"\r\n") * 40 + b".\r\n")
    check("oversize message -> 552 after the end of data", c.reply()[0] == 552)
    check("session goes on after 552", c.cmd("NOOP") == 250)
    c.close()

    # -t 1 counts from the last command, not from the first: a session
    # that speaks every 0.6 s goes on past 1 s ...
    c = Conn()
    replies = []
    for _ in range(4):
        time.sleep(0.6)
        replies.append(c.cmd("NOOP"))
    check("a command every 0.6 s is served past -t 1", replies == [250] * 4, replies)
    c.close()

    # ... and an idle session is closed with 421.
    c = Conn()
    time.sleep(1.5)
    try:
        code = c.reply()[0]
    except EOFError:
        code = None
    check("idle timeout -> 421", code == 421, code)
    check("closed after the timeout", c.closed())


def group_slow():
    # docs/security.md 8: --min-data-rate 100 with -t 1: a client trickling
    # a byte every 0.1 s in DATA is cut off after about 1 s.
    c = Conn()
    check("slow: start a transaction", start_transaction(c) == 354)
    start = time.monotonic()
    code = None
    try:
        for _ in range(100):
            c.send(b"x")
            time.sleep(0.1)
            if c.pending_reply():
                code = c.reply()[0]
                break
    except (BrokenPipeError, ConnectionResetError):
        pass
    elapsed = time.monotonic() - start
    check("slow DATA client gets 421", code == 421, code)
    check("cut off within the deadline (1 s + 10 bytes / 100 B/s)", 0.8 < elapsed < 3, elapsed)
    check("closed after the deadline", c.closed())

    # A client sending at a good rate is not cut off, even past the -t timeout.
    c = Conn()
    check("fast: start a transaction", start_transaction(c) == 354)
    for _ in range(15):
        c.send(b"y" * 200 + b"\r\n")
        time.sleep(0.1)
    c.send(b".\r\n")
    check("a steady client is not cut off", c.reply()[0] == 250)
    c.close()


def group_rcptcap():
    # docs/security.md 9: --max-rcpt 3: the fourth recipient gets 452 4.5.3 and the
    # message goes on with three; the next transaction may have three again.
    c = Conn()
    c.cmd("EHLO probe")
    check("rcptcap: MAIL", c.cmd("MAIL FROM:<a@example.org>") == 250)
    codes = [c.cmd(f"RCPT TO:<r{i}@example.org>") for i in range(5)]
    check("three recipients accepted, the rest 452", codes == [250] * 3 + [452] * 2, codes)
    check("DATA with the accepted three", c.cmd("DATA") == 354)
    c.send(b"Subject: cap\r\n\r\nhi\r\n.\r\n")
    check("message accepted", c.reply()[0] == 250)
    check("next transaction: MAIL", c.cmd("MAIL FROM:<a@example.org>") == 250)
    codes = [c.cmd(f"RCPT TO:<s{i}@example.org>") for i in range(4)]
    check("the cap is per transaction", codes == [250] * 3 + [452], codes)
    c.cmd("RSET")
    # docs/security.md 9: NUL bytes in DATA are content and never end the message.
    check("NUL: start a transaction", start_transaction(c) == 354)
    c.send(b"Subject: nul\r\n\r\na\0b\r\n\0.\r\n\0\r\n.\0\r\n")
    check("NUL lines do not end the message", c.nothing_within(0.5))
    c.send(b"tail\r\n.\r\n")
    codes = [c.reply()[0], c.cmd("QUIT")]
    check("one 250 for the message with NULs, then 221", codes == [250, 221], codes)
    c.close()


def group_greet():
    # docs/security.md 6: a client that talks before the greeting is refused.
    sock = socket.create_connection(("127.0.0.1", PORT), timeout=5)
    sock.sendall(b"EHLO early\r\n")
    data = b""
    try:
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            data += chunk
    except socket.timeout:
        pass
    check("early talker gets 554 and no greeting", data.startswith(b"554 "), data)
    check("  ... and is disconnected", data.endswith(b"\r\n") and b"220" not in data, data)
    sock.close()
    c = Conn()
    check("a patient client gets the greeting", c.greeting[0] == 220, c.greeting)
    check("  ... and is served", c.cmd("EHLO patient") == 250)
    c.close()


def group_lmtp():
    c = Conn()
    check("LMTP greeting", c.greeting[0] == 220 and "LMTP" in c.greeting[1][0], c.greeting)
    check("HELO refused in LMTP", c.cmd("HELO x") == 502)
    c.send(b"LHLO probe\r\n")
    check("LHLO accepted", c.reply()[0] == 250)
    check("two recipients", start_transaction(c, rcpts=2) == 354)
    c.send(b"Subject: l\r\n\r\nhi\r\n.\r\n")
    codes = [c.reply()[0] for _ in range(2)]
    check("one reply per recipient after DATA", codes == [250, 250], codes)
    c.close()


if __name__ == "__main__":
    group, PORT = sys.argv[1], int(sys.argv[2])
    globals()["group_" + group]()
    print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
    sys.exit(0 if all(results) else 1)
