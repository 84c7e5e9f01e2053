#!/usr/bin/env python3
"""pty_run.py - run a command with its standard error on a pseudo-terminal.

  pty_run.py [--sigint-after S | --sigint-on FILE] [--timeout S] [--cols N] [--term T] OUT -- COMMAND...

The command's standard error is the slave side of a new pseudo-terminal
(so isatty(2) is true, as for a person at a terminal); its standard input
and output are this script's. Everything written to the terminal is copied
byte for byte to OUT, carriage returns and escape sequences included, for
the test to look at, as it comes (a test may watch OUT for the command's
progress). With --sigint-after, SIGINT goes to the command (by PID) after
S seconds, as a ^C would; with --sigint-on, once FILE exists (the test
makes it when what it waited for has happened). --timeout (default 120 s)
kills it with SIGKILL if it runs longer. The command's TERM is --term's
(xterm by default, as a person's terminal says; an empty value unsets it),
whatever the test's own environment holds. The exit status is the
command's (128 + the signal if a signal ended it).
"""
import argparse
import fcntl
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sigint-after", type=float)
    ap.add_argument("--sigint-on")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--cols", type=int, default=120)
    ap.add_argument("--term", default="xterm")
    ap.add_argument("out")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command")

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, a.cols, 0, 0))
    pid = os.fork()
    if pid == 0:
        os.close(master)
        os.dup2(slave, 2)
        os.close(slave)
        if a.term:
            os.environ["TERM"] = a.term
        else:
            os.environ.pop("TERM", None)
        try:
            os.execvp(cmd[0], cmd)
        except OSError as e:
            os.write(2, ("pty_run.py: %s: %s\n" % (cmd[0], e)).encode())
            os._exit(127)
    os.close(slave)
    start = time.monotonic()
    sent = False
    status = None
    eof = False
    with open(a.out, "wb") as out:
        while status is None or not eof:
            now = time.monotonic() - start
            if not sent and (a.sigint_after is not None and now >= a.sigint_after or
                             a.sigint_on is not None and os.path.exists(a.sigint_on)):
                os.kill(pid, signal.SIGINT)
                sent = True
            if now >= a.timeout and status is None:
                os.kill(pid, signal.SIGKILL)
            if not eof:
                r, _, _ = select.select([master], [], [], 0.05)
                if r:
                    try:
                        data = os.read(master, 65536)
                    except OSError:  # EIO: every slave descriptor is closed
                        data = b""
                    if data:
                        out.write(data)
                        out.flush()
                        continue
                    eof = True
                elif status is not None:
                    eof = True  # gone, and nothing left to read
            else:
                time.sleep(0.05)
            if status is None:
                done, st = os.waitpid(pid, os.WNOHANG)
                if done:
                    status = st
    os.close(master)
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main())
