"""sockline - the lines a peer sends on a socket, for the tests' scripted
servers and probes (fake_server.py, hostile_hop.py, smtp_probe.py)."""
import select
import ssl


class LineReader:
    """Lines from a socket, with what is buffered behind them visible."""

    def __init__(self, sock):
        self.sock, self.buf = sock, b""

    def raw_line(self):
        """The next line with its newline, or None once the peer has closed."""
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                return None
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return line + b"\n"

    def line(self):
        """The next line as text, without its CR LF; EOFError once the peer has closed."""
        raw = self.raw_line()
        if raw is None:
            raise EOFError("connection closed")
        return raw[:-1].rstrip(b"\r").decode("latin-1")

    def waiting(self, wait):
        """True if the peer has sent what is not taken yet, or does within `wait' seconds."""
        if self.buf:
            return True
        if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
            return True
        return bool(select.select([self.sock], [], [], wait)[0])
