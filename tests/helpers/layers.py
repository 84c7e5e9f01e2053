#!/usr/bin/env python3
"""layers.py - check every #include of the tree against the layer table.

Usage: layers.py SRCDIR

The folders are the architecture (docs/design.md, "Layers"). The build
gives each folder's sources -I flags for only its own folder and the
folders below it, so an include from above does not compile; this check
says the same from the table, and also covers what -I flags cannot: the
system libraries a layer may use (common/smtp must stay usable without
libevent and OpenSSL, which pkg-config finds in /usr/include anyway),
includes that spell a path, headers named twice, and folders with C in
them that the table does not know.

Prints FILE:LINE: what is wrong, one line each, and exits 1 if anything
is; 0 and nothing printed otherwise.
"""

import os
import re
import sys

UTIL = "common/util"
REPORT = "common/report"
SMTP = "common/smtp"
NET = "common/net"
SPOOL = "common/spool"
LIBS = (SPOOL, NET, SMTP, REPORT, UTIL)

# System header families that only some folders may use. Any other system
# header (libc, POSIX, <linux/...>) is allowed everywhere.
CAIRO = ("cairo", "cairo-pdf", "cairo-svg", "fontconfig")
RESTRICTED = ("event2", "openssl", "check", "fuse") + CAIRO
EVENT_TLS = ("event2", "openssl")

# folder: (the folders it may include from, besides itself; the restricted
# system families it may include). Keep in step with the folders'
# include.am (their *_CPPFLAGS) and docs/design.md.
TABLE = {
    UTIL: ((), ()),
    REPORT: ((UTIL,), ()),
    SMTP: ((UTIL,), ()),
    NET: ((SMTP, UTIL), EVENT_TLS),
    SPOOL: ((REPORT, UTIL), ()),
    "smtp-source": ((NET, SMTP, REPORT, UTIL), EVENT_TLS),
    "smtp-sink": ((NET, SMTP, REPORT, UTIL), EVENT_TLS),
    "spoolsim": ((UTIL,), ()),
    # the cost model: no event loop, no relay; the relay, calibrate and bench use it
    "spoolsim/model": ((REPORT, UTIL), ()),
    "spoolsim/relay": (("spoolsim", "spoolsim/model") + LIBS, EVENT_TLS),
    # calibrate runs a real MTA through bench/'s scripts: the model, never the relay
    "spoolsim/calibrate": (("spoolsim", "spoolsim/model", REPORT, UTIL), ()),
    "spoolsim/raw": (("spoolsim", SPOOL, REPORT, UTIL), ()),
    "spoolsim/postmark": (("spoolsim", REPORT, UTIL), ()),
    # spoolsim/model for bench --model's figures and the harness verdict; spoolsim/relay
    # for relay_limits.h alone: the bounds of the relay options bench passes on
    "spoolsim/drive": (("spoolsim", "spoolsim/postmark", "spoolsim/model", "spoolsim/relay", SPOOL, REPORT, UTIL), ()),
    # cairo for plot_render alone: the rest of the picture is pure
    "spoolsim/plot": (("spoolsim", REPORT, UTIL), CAIRO),
    "spoolsim/merge": (("spoolsim", REPORT, UTIL), ()),
    "spoolsim/workload": (("spoolsim", REPORT, UTIL), ()),
    # spoolsim/drive for the children and the message logs; libfuse3 for spoolsim-recorder alone
    "spoolsim/crash": (("spoolsim", "spoolsim/drive", SPOOL, REPORT, UTIL), ("fuse",)),
}
# The tests see everything they test.
_EVERYTHING = tuple(TABLE)
TABLE["tests/unit"] = (_EVERYTHING, RESTRICTED)
TABLE["tests/fuzz"] = (_EVERYTHING, EVENT_TLS)
# C the tests build themselves (an LD_PRELOAD shim): the C library only
TABLE["tests/helpers"] = ((), ())
# C a benchmark builds itself (bench/json.sh's driver): the JSON module it
# measures, and jansson, which it measures it against
TABLE["bench"] = ((REPORT, UTIL), ("jansson",))

# Headers the build makes: which folder each belongs to (None: every folder's).
GENERATED = {"config.h": None, "version.h": REPORT, "programs.h": "spoolsim"}

# Folders never looked in: the build's and the peers' own trees.
SKIP = {".git", "autom4te.cache", "build-aux", "m4", "tests/peers", "tests/fuzz/bin", "tests/fuzz/corpus"}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def c_files(top):
    """(folder, name) of every .c and .h under top, folders relative to it."""
    for root, dirs, files in os.walk(top):
        rel = os.path.relpath(root, top).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        dirs[:] = sorted(d for d in dirs if (rel + "/" + d if rel else d) not in SKIP
                         and not d.startswith(("_", ".")) and not d.startswith("spoolsim-"))
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                yield rel, name


def check(top):
    problems = []
    # An in-tree build leaves the generated headers among the sources.
    files = [(f, n) for f, n in c_files(top) if n not in GENERATED]
    headers = {}  # header name -> folders that have it
    for folder, name in files:
        if name.endswith(".h"):
            headers.setdefault(name, []).append(folder)
    for name, folders in sorted(headers.items()):
        if len(folders) > 1:
            problems.append("%s: header named in %s too: a folder's -I flags would pick one"
                            % ("/".join((folders[0], name)), ", ".join(folders[1:])))
    for folder, name in files:
        path = folder + "/" + name if folder else name
        if folder not in TABLE:
            problems.append("%s:1: folder %s is not in the layer table (tests/helpers/layers.py)"
                            % (path, folder or "."))
            continue
        below, families = TABLE[folder]
        with open(os.path.join(top, path), encoding="utf-8", errors="replace") as fp:
            for lineno, line in enumerate(fp, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                kind, header = m.groups()
                where = "%s:%d" % (path, lineno)
                if kind == "<":
                    family = header.split("/")[0]
                    family = family[:-2] if family.endswith(".h") else family
                    if family in RESTRICTED and family not in families:
                        problems.append("%s: <%s>: %s may not use %s (allowed: %s)"
                                        % (where, header, folder, family,
                                           ", ".join(families) or "no restricted system headers"))
                    continue
                if "/" in header:
                    problems.append('%s: "%s": a project include names a header, not a path '
                                    "(the folder's -I flags find it)" % (where, header))
                    continue
                if header in GENERATED:
                    owners = [] if GENERATED[header] is None else [GENERATED[header]]
                else:
                    owners = headers.get(header, [])
                    if not owners:
                        problems.append('%s: "%s" is in no folder of the tree' % (where, header))
                        continue
                if not owners or folder in owners:
                    continue
                owner = owners[0]
                if owner not in below:
                    problems.append('%s: "%s" is in %s, which %s may not use (it may use: %s)'
                                    % (where, header, owner, folder, ", ".join(below) or "nothing"))
    return problems


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: layers.py SRCDIR\n")
        return 2
    if not os.path.isdir(sys.argv[1]):
        sys.stderr.write("layers.py: %s is not a directory\n" % sys.argv[1])
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
