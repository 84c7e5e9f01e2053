#!/bin/bash
# Integration: every reference to a document resolves inside the source tree.
#
# A comment, test, man page or document that sends the reader elsewhere
# is only useful if the reader can follow it after a clone or from the
# tarball. So, in every source and documentation file:
#  - nothing may point outside the repository (a parent directory's
#    shared/ tree, the reference notes the project was written from);
#  - every NAME.md must exist, relative to the top of the tree or to the
#    file that names it, and the items and sections it cites after the
#    name ("docs/security.md item 6", "docs/spool-profiles.md E.1-E.2")
#    must be headings of that file;
#  - every "see FILE" must exist (a bare header or source name such as
#    "see pf_qfile.h" may be anywhere in the tree);
#  - every path under one of the tree's own top-level directories
#    ("tests/it/it_raw.sh", "common/spool/pf_qfile.c") must exist.
# Another project's file is written PROJECT:PATH (notqmail:INTERNALS.md)
# and is not looked up. A scan of a small tree made here, with one broken
# reference of each kind, shows that the check can fail.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"

scan() {
    python3 - "$1" <<'PY'
import os, re, sys

root = os.path.abspath(sys.argv[1])
SELF = os.path.join("tests", "it", "it_docs.sh")
SKIP_DIRS = {".git", "autom4te.cache", "build-aux", "m4", ".deps", "corpus", "_build", "_inst"}
SCAN_EXT = (".c", ".h", ".sh", ".py", ".md", ".1", ".am", ".ac")
GENERATED = {os.path.join("spoolsim", "model", "cost_model_postfix.c"),
             os.path.join("spoolsim", "model", "cost_model_exim.c"), os.path.join("common", "report", "version.h"),
             os.path.join("spoolsim", "programs.h"),
             os.path.join("man", "spoolsim-source.1"), os.path.join("man", "spoolsim-sink.1")}
REF_EXT = r"(?:c|h|md|sh|py|1|am|ac)"

files, basenames, scan = set(), set(), []
for d, dirs, names in os.walk(root):
    rel_d = os.path.relpath(d, root)
    dirs[:] = [x for x in dirs
               if x not in SKIP_DIRS and not (rel_d == "." and x.startswith("spoolsim-"))
               and not (x == "bin" and rel_d == os.path.join("tests", "fuzz"))]
    for n in names:
        rel = os.path.normpath(os.path.join(rel_d, n))
        files.add(rel)
        basenames.add(n)
        # Made by configure or the build (in a tarball's VPATH build, not in the source).
        generated = (n == "config.h" and rel_d == ".") or rel in GENERATED
        if (n.endswith(SCAN_EXT) or rel_d in ("scripts", "bench", ".ci")) and not generated:
            scan.append(rel)
top_dirs = sorted(x for x in os.listdir(root)
                  if os.path.isdir(os.path.join(root, x)) and x not in SKIP_DIRS
                  and not x.startswith("spoolsim-"))

# Built from pieces so that this file does not match its own pattern.
outside = re.compile(r"(?:\.\./)+" + "shar" + r"ed\b|\b" + "shar" + r"ed/(?:spec|DESIGN|seeds|hooks)\b")
md_ref = re.compile(r"(?<![\w./:~-])([\w][\w./-]*\.md)\b")
see_ref = re.compile(r"\b[Ss]ee\s+[`\"']?([\w][\w./-]*\." + REF_EXT + r")\b")
path_ref = re.compile(r"(?<![\w./:~$-])((?:" + "|".join(re.escape(t) for t in top_dirs)
                      + r")/[\w./-]*\." + REF_EXT + r")\b") if top_dirs else None
LABEL = r"(?:[A-Z]\.\d+(?:\.\d+)*|\d+(?:\.\d+)*)"
cited = re.compile(r"^\)?[,:]?\s*(?:(?:items?|sections?|§)\s*)?(" + LABEL
                   + r"(?:\s*(?:-|–|,|and)\s*" + LABEL + r")*)(?![\w.])")
heading = re.compile(r"^#{1,6}\s+(?:Item\s+)?(" + LABEL + r")(?=[.:)\s])")
leader = re.compile(r"^\s*(?:\*|#|//|\.\\\")?\s*")

def resolve(ref, where):
    for cand in (os.path.normpath(ref), os.path.normpath(os.path.join(os.path.dirname(where), ref))):
        if cand in files or cand in GENERATED:
            return cand
    return None

labels_of = {}
def labels(doc):
    if doc not in labels_of:
        found = set()
        with open(os.path.join(root, doc), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = heading.match(line)
                if m:
                    found.add(m.group(1))
        labels_of[doc] = found
    return labels_of[doc]

def expand(text):
    out = []
    for part in re.split(r"\s*(?:,|and)\s*", text.strip()):
        ends = re.split(r"\s*[-–]\s*", part)
        if len(ends) == 2:
            a, b = ends
            pa, na = a.rsplit(".", 1) if "." in a else ("", a)
            pb, nb = b.rsplit(".", 1) if "." in b else ("", b)
            if pa == pb and na.isdigit() and nb.isdigit() and int(na) <= int(nb):
                out += [(pa + "." if pa else "") + str(i) for i in range(int(na), int(nb) + 1)]
                continue
        out += [e for e in ends if e]
    return out

problems = []
for rel in sorted(scan):
    if rel == SELF:
        continue
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
        lines = fh.read().split("\n")
    for i, raw in enumerate(lines):
        line = raw.replace("\\-", "-") if rel.endswith(".1") else raw
        where = f"{rel}:{i + 1}"
        if outside.search(line):
            problems.append(f"{where}: points outside the repository: {raw.strip()}")
        for m in md_ref.finditer(line):
            doc = resolve(m.group(1), rel)
            if doc is None:
                problems.append(f"{where}: {m.group(1)} does not exist")
                continue
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            rest = line[m.end():] + " " + leader.sub("", nxt.replace("\\-", "-"))
            c = cited.match(rest)
            if c:
                for label in expand(c.group(1)):
                    if label not in labels(doc):
                        problems.append(f"{where}: {m.group(1)} has no item or section {label}")
        for m in see_ref.finditer(line):
            ref = m.group(1)
            if resolve(ref, rel) is None and ("/" in ref or ref not in basenames):
                problems.append(f"{where}: see {ref}: no such file")
        if path_ref:
            for m in path_ref.finditer(line):
                if resolve(m.group(1), ".") is None:
                    problems.append(f"{where}: {m.group(1)} does not exist")
for p in problems:
    print(p)
print(f"{len(scan)} files scanned, {len(problems)} unresolved references")
sys.exit(1 if problems else 0)
PY
}

# The control: a tree with one broken reference of each kind, and good ones.
T=$WORK/tree
mkdir -p "$T/docs" "$T/src" "$T/tests"
printf '# Notes\n\n## 1. One\n\n## A.2 Two\n\n### A.3 Three\n' >"$T/docs/notes.md"
cat >"$T/src/a.c" <<'EOF'
/* fine: docs/notes.md item 1, docs/notes.md A.2-A.3, see b.h, tests/t.sh, notqmail:INTERNALS.md */
/* bad: docs/notes.md item 4 */
/* bad: missing.md */
/* bad: see gone.h */
/* bad: tests/none.sh */
EOF
printf '/* %s */\n' "../sha""red/DESIGN.md" >"$T/src/b.h"
: >"$T/tests/t.sh"
scan "$T" >"$WORK/control.out"
control=$?
check "the control tree fails the scan" test "$control" -ne 0
check "  a missing item is named" grep -q "src/a.c:2: docs/notes.md has no item or section 4" "$WORK/control.out"
check "  a missing document is named" grep -q "src/a.c:3: missing.md does not exist" "$WORK/control.out"
check "  a missing \"see\" file is named" grep -q "src/a.c:4: see gone.h: no such file" "$WORK/control.out"
check "  a missing path is named" grep -q "src/a.c:5: tests/none.sh does not exist" "$WORK/control.out"
check "  a pointer outside the tree is named" grep -q "src/b.h:1: points outside the repository" "$WORK/control.out"
check "  and nothing else" test "$(grep -c ': ' "$WORK/control.out")" = 5

scan "$top_srcdir" >"$WORK/tree.out"
status=$?
cat "$WORK/tree.out"
check "every reference in the source tree resolves" test "$status" -eq 0
finish
