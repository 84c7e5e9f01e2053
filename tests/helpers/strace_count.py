#!/usr/bin/env python3
"""strace_count.py - a spool's file operations, per message, from strace output.

Usage: strace_count.py --spool DIR [--spool DIR]... [--messages N]
                       [--since T] [--until T] [--events] TRACE...

TRACE is the output of `strace -f -y' (one file, lines "PID call(...)"),
or of `strace -ff -y' (one file per process, no PID column; the PID is
taken from the file name's suffix); -ttt or -tt timestamps are allowed and
--since/--until (seconds since the epoch, for -ttt) keep only the calls in
that window, so that a daemon's start-up and shut-down are not counted.

A call counts when the file it names is inside a --spool directory: a
path argument resolved against its directory descriptor as strace -y
shows it (and against the process's root after a chroot, which children
inherit), or a descriptor as -y shows it. Libraries, configuration and
logs elsewhere are never counted.

Prints one line per kind, "KIND VALUE", VALUE the count divided by
--messages (two decimals), every kind listed even when 0; with --events,
each counted call instead ("PID KIND PATH", message IDs left as they are).

Kinds: create (open with O_CREAT, no O_APPEND), append (open with
O_CREAT|O_APPEND), open (an existing file, without O_CREAT), opendir
(O_DIRECTORY), write (write, writev, pwrite and pwritev), fsync, fdatasync
(on files), fsync_dir (either, on a directory), fchmod, chmod, lock (flock
or fcntl lock taken), rename (done), rename_fail, link, unlink (done),
probe (unlink that found nothing: ENOENT), mkdir, rmdir, stat (stat,
lstat, newfstatat, statx or access by path, found or not), utime, close,
fstat (by descriptor), read; other (a failure not listed above).
"""
import argparse
import os
import re
import sys

KINDS = ["create", "append", "open", "opendir", "write", "fsync", "fdatasync", "fsync_dir",
         "fchmod", "chmod", "chown", "lock", "rename", "rename_fail", "link", "unlink", "probe", "mkdir",
         "rmdir", "stat", "utime", "close", "fstat", "read", "other"]

LINE = re.compile(r"^(?:(\d+) +)?(?:(\d+(?:\.\d+)?|\d\d:\d\d:\d\d(?:\.\d+)?) +)?(.*)$")
CALL = re.compile(r"^([a-z_0-9]+)\((.*)$")
RESUMED = re.compile(r"^<\.\.\. ([a-z_0-9]+) resumed>(.*)$")
RESULT = re.compile(r"^(.*)\) += (-?\d+|\?|0x[0-9a-f]+)(?:<(.*?)>)?(?: (E[A-Z0-9]+))?")
FD = re.compile(r'^(-?\d+|AT_FDCWD)<(.*?)>(?:\(deleted\))?$')


def split_args(s):
    """Top-level comma-separated arguments of a system call, strings kept whole."""
    out, depth, cur, quote, esc = [], 0, "", False, False
    for ch in s:
        if quote:
            cur += ch
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                quote = False
            continue
        if ch == '"':
            quote = True
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def unquote(a):
    if len(a) >= 2 and a[0] == '"':
        end = a.rfind('"')
        return a[1:end].encode().decode("unicode_escape")
    return None


def fd_path(a):
    m = FD.match(a)
    return m.group(2) if m else None


class Counter:
    def __init__(self, spools, since, until):
        self.spools = [os.path.normpath(s) for s in spools]
        self.since, self.until = since, until
        self.root = {}      # pid -> its root after chroot
        self.cwd = {}       # pid -> its working directory, as strace sees it
        self.pending = {}   # pid -> the first half of an unfinished call
        self.count = dict.fromkeys(KINDS, 0)
        self.events = []

    def in_spool(self, path):
        if not path:
            return False
        p = os.path.normpath(path)
        return any(p == s or p.startswith(s + "/") for s in self.spools)

    def resolve(self, pid, dirarg, patharg):
        """The absolute path a (dirfd, path) pair names, as strace -y shows dirfd."""
        path = unquote(patharg) if patharg is not None else None
        if path is None:
            return None
        if path.startswith("/"):
            root = self.root.get(pid, "/")
            return os.path.normpath(root + "/" + path) if root != "/" else os.path.normpath(path)
        base = fd_path(dirarg) if dirarg else None
        if base == "":  # AT_FDCWD of a call strace does not annotate
            base = self.cwd.get(pid)
        if base is None:
            return None  # a relative path with no -y annotation: unknown
        return os.path.normpath(base + "/" + path)

    def add(self, pid, kind, path):
        if not self.in_spool(path):
            return
        self.count[kind] += 1
        self.events.append((pid, kind, path))

    def line(self, pid, stamp, text):
        m = RESUMED.match(text)
        if m:
            name, rest = m.groups()
            first = self.pending.pop((pid, name), None)
            if first is None:
                return
            stamp, head = first
            text = name + "(" + head + rest
        else:
            m = CALL.match(text)
            if not m:
                return
            if text.endswith("<unfinished ...>"):
                name = m.group(1)
                self.pending[(pid, name)] = (stamp, m.group(2)[: -len("<unfinished ...>")].rstrip())
                return
        if stamp is not None and ":" not in stamp:
            t = float(stamp)
            if (self.since is not None and t < self.since) or (self.until is not None and t > self.until):
                # a fork or chroot outside the window still shapes what follows
                self.call(pid, text, count=False)
                return
        self.call(pid, text, count=True)

    def call(self, pid, text, count):
        m = CALL.match(text)
        name, rest = m.group(1), m.group(2)
        r = RESULT.match(rest)
        if not r:
            return
        args, ret, retpath, err = split_args(r.group(1)), r.group(2), r.group(3), r.group(4)
        ok = not ret.startswith("-") and ret != "?"
        if name in ("clone", "clone3", "fork", "vfork") and ok:
            self.root[ret] = self.root.get(pid, "/")
            if pid in self.cwd:
                self.cwd[ret] = self.cwd[pid]
            return
        if name == "chroot" and ok:
            self.root[pid] = self.resolve(pid, "AT_FDCWD<>", args[0])
            return
        if name == "chdir" and ok:
            self.cwd[pid] = self.resolve(pid, "AT_FDCWD<>", args[0])
            return
        if name == "fchdir" and ok:
            self.cwd[pid] = fd_path(args[0])
            return
        m = re.search(r"AT_FDCWD<(/[^<>]*)>", text)
        if m:
            self.cwd[pid] = m.group(1)
        if not count:
            return
        self.classify(pid, name, args, ok, retpath, err)

    def classify(self, pid, name, args, ok, retpath, err):
        a = args + [""] * 4
        if name in ("open", "creat"):
            path, flags = self.resolve(pid, "AT_FDCWD<>", a[0]), a[1]
        elif name in ("openat", "openat2"):
            path, flags = self.resolve(pid, a[0], a[1]), a[2]
        else:
            path = flags = None
        if path is not None:
            if name == "creat":
                flags = "O_CREAT"
            if not ok:
                # looking for a file by opening it costs what a stat costs
                self.add(pid, "stat" if err == "ENOENT" else "other", path)
            elif "O_DIRECTORY" in flags or os.path.normpath(path) in self.dirs:
                self.add(pid, "opendir", path)
            elif "O_EXCL" in flags:
                self.add(pid, "create", path)
            elif "O_CREAT" in flags:
                self.add(pid, "append", path)
            else:
                self.add(pid, "open", path)
            return
        fdp = fd_path(a[0])
        if name in ("write", "writev", "pwrite64", "pwritev", "pwritev2"):
            self.add(pid, "write", fdp)
        elif name in ("read", "readv", "pread64", "preadv"):
            self.add(pid, "read", fdp)
        elif name in ("fsync", "fdatasync"):
            if fdp is not None and fdp in self.dirs:
                self.add(pid, "fsync_dir", fdp)
            else:
                self.add(pid, name, fdp)
        elif name == "fchmod":
            self.add(pid, "fchmod", fdp)
        elif name == "fchown":
            self.add(pid, "chown", fdp)
        elif name in ("chown", "lchown", "fchownat"):
            p = self.resolve(pid, a[0], a[1]) if name == "fchownat" else self.resolve(pid, "AT_FDCWD<>", a[0])
            self.add(pid, "chown" if ok else "other", p)
        elif name in ("chmod", "fchmodat"):
            p = self.resolve(pid, "AT_FDCWD<>", a[0]) if name == "chmod" else self.resolve(pid, a[0], a[1])
            self.add(pid, "chmod" if ok else "other", p)
        elif name == "flock":
            if ok and "LOCK_UN" not in a[1]:
                self.add(pid, "lock", fdp)
        elif name in ("fcntl", "fcntl64"):
            if ok and re.search(r"F_(OFD_)?SETLKW?\b", a[1]) and "F_UNLCK" not in a[2]:
                self.add(pid, "lock", fdp)
        elif name in ("rename", "renameat", "renameat2"):
            p = self.resolve(pid, "AT_FDCWD<>", a[0]) if name == "rename" else self.resolve(pid, a[0], a[1])
            self.add(pid, "rename" if ok else "rename_fail", p)
        elif name in ("link", "linkat"):
            p = self.resolve(pid, "AT_FDCWD<>", a[0]) if name == "link" else self.resolve(pid, a[0], a[1])
            self.add(pid, "link" if ok else "other", p)
        elif name in ("unlink", "unlinkat", "rmdir"):
            p = self.resolve(pid, "AT_FDCWD<>", a[0]) if name != "unlinkat" else self.resolve(pid, a[0], a[1])
            kind = "rmdir" if name == "rmdir" or "AT_REMOVEDIR" in a[2] else "unlink"
            self.add(pid, kind if ok else "probe" if err == "ENOENT" and kind == "unlink" else "other", p)
        elif name in ("mkdir", "mkdirat"):
            p = self.resolve(pid, "AT_FDCWD<>", a[0]) if name == "mkdir" else self.resolve(pid, a[0], a[1])
            self.add(pid, "mkdir" if ok else "other", p)
        elif name in ("stat", "lstat", "stat64", "lstat64", "access"):
            self.add(pid, "stat", self.resolve(pid, "AT_FDCWD<>", a[0]))
        elif name in ("newfstatat", "fstatat64", "statx", "faccessat", "faccessat2"):
            if unquote(a[1]) == "":
                self.add(pid, "fstat", fd_path(a[0]))
            else:
                self.add(pid, "stat", self.resolve(pid, a[0], a[1]))
        elif name in ("fstat", "fstat64"):
            self.add(pid, "fstat", fdp)
        elif name in ("utime", "utimes", "utimensat", "futimesat"):
            if name == "utimensat" and a[1] == "NULL":
                self.add(pid, "utime", fdp)
            elif name in ("utimensat", "futimesat"):
                self.add(pid, "utime", self.resolve(pid, a[0], a[1]))
            else:
                self.add(pid, "utime", self.resolve(pid, "AT_FDCWD<>", a[0]))
        elif name == "close":
            self.add(pid, "close", fdp)


def directories(files):
    """Paths that are directories: opened with O_DIRECTORY, made, or a parent of another."""
    dirs = set()
    pat = re.compile(r'<(/[^<>]*)>')
    for f in files:
        with open(f, errors="replace") as fh:
            for line in fh:
                for p in pat.findall(line):
                    p = os.path.normpath(p)
                    while p != "/":
                        p = os.path.dirname(p)
                        dirs.add(p)
                if "O_DIRECTORY" in line:
                    m = re.search(r"\) += \d+<(/[^<>]*)>", line)
                    if m:
                        dirs.add(os.path.normpath(m.group(1)))
    return dirs


def main():
    ap = argparse.ArgumentParser(description="a spool's file operations per message, from strace -f -y")
    ap.add_argument("--spool", action="append", required=True)
    ap.add_argument("--messages", type=int, default=1)
    ap.add_argument("--since", type=float)
    ap.add_argument("--until", type=float)
    ap.add_argument("--events", action="store_true")
    ap.add_argument("trace", nargs="+")
    o = ap.parse_args()
    if o.messages < 1:
        ap.error("--messages must be at least 1")
    c = Counter(o.spool, o.since, o.until)
    c.dirs = directories(o.trace)
    for f in o.trace:
        m = re.search(r"\.(\d+)$", f)
        filepid = m.group(1) if m else "0"
        with open(f, errors="replace") as fh:
            for raw in fh:
                lm = LINE.match(raw.rstrip("\n"))
                pid, stamp, text = lm.group(1), lm.group(2), lm.group(3)
                c.line(pid or filepid, stamp, text)
    if o.events:
        for pid, kind, path in c.events:
            print(pid, kind, path)
        return 0
    for k in KINDS:
        print(f"{k} {c.count[k] / o.messages:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
