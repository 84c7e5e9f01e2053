#!/usr/bin/env python3
"""syscall-tax.py - run a command on "a machine whose system calls cost more".

Usage: bench/syscall-tax.py [-n INSTRUCTIONS] CMD [ARG...]

Installs seccomp filters that allow every system call after running
INSTRUCTIONS no-op BPF instructions (stacked filters of at most 4,000 each;
default 8,000), then execs CMD. Every process CMD starts inherits the
filters, so each of their system calls pays the same extra kernel time
while user-space code runs as fast as before: the same hardware with the
price of kernel entry changed, as mitigations, a hypervisor or a CPU
vendor change it. docs/fidelity.md uses it to check whether a cost model
made without the tax predicts a real Postfix with it, and whether the
relay notices that the machine changed (`spoolsim calibrate --machine`
under the tax shows the dearer system call).

No root needed (the filters are installed under no_new_privs, which also
means set-user-ID programs run without their privileges).
"""
import ctypes
import os
import struct
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
BPF_ALU_ADD_K = 0x04  # BPF_ALU | BPF_ADD | BPF_K: A += k
BPF_RET_K = 0x06  # BPF_RET | BPF_K
SECCOMP_RET_ALLOW = 0x7FFF0000
MAX_PER_FILTER = 4000  # BPF_MAXINSNS is 4096


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def install(libc, count):
    insns = [struct.pack("HBBI", BPF_ALU_ADD_K, 0, 0, 1)] * count
    insns.append(struct.pack("HBBI", BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW))
    code = ctypes.create_string_buffer(b"".join(insns))
    prog = SockFprog(len(insns), ctypes.cast(code, ctypes.c_void_p))
    if libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        sys.exit("syscall-tax: seccomp filter: %s" % os.strerror(err))


def main(argv):
    total = 8000
    if len(argv) >= 2 and argv[0] == "-n":
        if not argv[1].isdigit() or not 1 <= int(argv[1]) <= 400000:
            print("syscall-tax: -n takes 1 to 400000 instructions", file=sys.stderr)
            return 2
        total = int(argv[1])
        argv = argv[2:]
    if not argv or argv[0].startswith("-"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        sys.exit("syscall-tax: no_new_privs: %s" % os.strerror(ctypes.get_errno()))
    while total > 0:
        n = min(total, MAX_PER_FILTER)
        install(libc, n)
        total -= n
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        print("syscall-tax: %s: %s" % (argv[0], e.strerror), file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
