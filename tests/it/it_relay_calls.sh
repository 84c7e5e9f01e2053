#!/bin/bash
# Integration: the relay's modules call each other in no circle of three or more.
#
# docs/design.md draws who calls whom among spoolsim/relay's files: a
# module that must answer one above it does so through a table it was
# given (the session's waiter, the loops' session server, the counters'
# depth source), never by name, so the only circles are pairs (a module
# and the helper that answers it). The graph is read from the build's
# objects: an arrow A -> B when A's object needs a symbol B's defines. A
# control graph with a circle of three shows that the check fails and
# names the circle.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v nm >/dev/null || skip "nm is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"

# "A B" for every call from relay object A to relay object B.
edges() {
    local o
    for o in "$top_builddir"/spoolsim/relay/librelay_a-*.o; do
        nm -g --defined-only "$o" | awk -v f="$(basename "$o" .o)" '$2 == "T" { print "def", f, $3 }'
        nm -u "$o" | awk -v f="$(basename "$o" .o)" '{ print "use", f, $2 }'
    done | awk '$1 == "def" { def[$3] = $2; next }
                { use[NR] = $2 " " $3 }
                END { for (i in use) { split(use[i], u, " "); if (u[2] in def && def[u[2]] != u[1]) print u[1], def[u[2]] } }' |
        sed 's/librelay_a-//g' | sort -u
}

# circles: from "A B" lines, every simple circle of three or more files, one a line.
circles() {
    python3 -c '
import sys
g = {}
for line in sys.stdin:
    a, b = line.split()
    g.setdefault(a, set()).add(b)
found = set()
def walk(start, node, path):
    for nxt in g.get(node, ()):
        if nxt == start and len(path) >= 3:
            k = min(range(len(path)), key=lambda i: path[i])
            found.add(" -> ".join(path[k:] + path[:k]))
        elif nxt not in path and nxt > start:
            walk(start, nxt, path + [nxt])
for n in sorted(g):
    walk(n, n, [n])
for c in sorted(found):
    print(c)
'
}

ls "$top_builddir"/spoolsim/relay/librelay_a-relay_qmgr.o >/dev/null 2>&1 || skip "no relay objects: build first"
edges >"$WORK/edges"
check "the relay's objects give a graph" test "$(wc -l <"$WORK/edges")" -gt 10
check "  ... in which the queue manager calls cleanup" grep -qx "relay_qmgr relay_cleanup" "$WORK/edges"
circles <"$WORK/edges" >"$WORK/circles"
check "no circle of three or more relay files" test ! -s "$WORK/circles"
sed 's/^/#   /' "$WORK/circles"
printf 'a b\nb c\nc a\nc d\nd c\n' | circles >"$WORK/control"
check "a control circle a -> b -> c is found" grep -qx "a -> b -> c" "$WORK/control"
check "  ... and the pair c, d is not" test "$(wc -l <"$WORK/control")" = 1
finish
