#!/bin/bash
# Integration: the folders are the layers, and no file includes from above.
#
# tests/helpers/layers.py reads every #include of every .c and .h against
# the layer table (docs/design.md, "Layers"): a project header must be in
# the file's own folder or one it may use, a system header of a
# restricted family (libevent, OpenSSL, Check) only where the table allows
# it. The build's per-folder -I flags refuse the same includes at compile
# time; this check also covers the system headers, which no -I flag keeps
# out. A copy of the tree with one violation of each kind shows that the
# check fails, and names each file:line.
#
# No program's .c file is over 800 lines (CONTRIBUTING.md: one module, one
# job): every .c file of common/, smtp-source/, smtp-sink/ and spoolsim/.
# Exempt are the tests' own files (tests/unit/, tests/fuzz/: a case list
# grows with its module) and generated files, those whose first line says
# "/* Generated" (the built-in cost models, data compiled in). A file of
# 801 lines in the copy shows that this check fails and names it; one of
# 800 lines, and a long generated one, that it does not.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v python3 >/dev/null || skip "python3 is not installed"
LAYERS="$top_srcdir/tests/helpers/layers.py"

python3 "$LAYERS" "$top_srcdir" >"$WORK/tree.out" 2>&1
status=$?
cat "$WORK/tree.out"
check "every #include of the source tree keeps to the layer table" test "$status" -eq 0

# too_long DIR: "FILE: N lines" for each program .c file under DIR over 800 lines.
too_long() {
    (cd "$1" && find common smtp-source smtp-sink spoolsim -name '*.c' 2>/dev/null | sort |
        while read -r f; do
            head -1 "$f" | grep -q '^/\* Generated' && continue
            n=$(wc -l <"$f")
            [ "$n" -gt 800 ] && echo "$f: $n lines"
        done)
}
too_long "$top_srcdir" >"$WORK/long.out"
sed 's/^/   over 800 lines: /' "$WORK/long.out"
check "no program .c file is over 800 lines" test ! -s "$WORK/long.out"

# The control: a copy of the C folders, then one violation of each kind.
T=$WORK/tree
mkdir -p "$T"
(cd "$top_srcdir" && tar cf - common smtp-source smtp-sink spoolsim tests/unit tests/fuzz/*.[ch]) | (cd "$T" && tar xf -)
rm -f "$T/common/report/version.h" "$T/spoolsim/model/cost_model_postfix.c" "$T/spoolsim/model/cost_model_exim.c"
python3 "$LAYERS" "$T" >"$WORK/copy.out" 2>&1
check "the copy passes before anything is added" test $? -eq 0

# add FILE LINE: append LINE to FILE and print where it went (FILE:N).
add() {
    mkdir -p "$(dirname "$T/$1")"
    printf '%s\n' "$2" >>"$T/$1"
    echo "$1:$(wc -l <"$T/$1")"
}
at_event=$(add common/smtp/smtp_line.c '#include <event2/buffer.h>')
at_openssl=$(add common/report/json.c '#include <openssl/ssl.h>')
at_check=$(add common/util/clock.c '#include <check.h>')
at_up=$(add common/util/msg.c '#include "json.h"')
at_net=$(add common/spool/pf_queue.c '#include "endpoint.h"')
at_sibling=$(add spoolsim/raw/raw.c '#include "relay_private.h"')
at_model=$(add spoolsim/model/cost_model.c '#include "relay_private.h"')
at_model_event=$(add spoolsim/model/relay_model.c '#include <event2/event.h>')
at_path=$(add common/net/tls.c '#include "common/util/msg.h"')
at_none=$(add common/smtp/smtp_cmd.c '#include "nosuch.h"')
at_folder=$(add extra/extra.c '#include "msg.h"')
: >"$T/spoolsim/raw/xalloc.h"
python3 "$LAYERS" "$T" >"$WORK/control.out" 2>&1
control=$?
cat "$WORK/control.out"
check "the copy with violations fails the check" test "$control" -eq 1
named() { grep -q -F "$1" "$WORK/control.out"; }
check "  <event2/...> in common/smtp" named "$at_event: <event2/buffer.h>: common/smtp may not use event2"
check "  <openssl/...> in common/report" named "$at_openssl: <openssl/ssl.h>: common/report may not use openssl"
check "  <check.h> in common/util" named "$at_check: <check.h>: common/util may not use check"
check "  common/util including common/report" named "$at_up: \"json.h\" is in common/report, which common/util may not use"
check "  common/spool including common/net" named "$at_net: \"endpoint.h\" is in common/net, which common/spool may not use"
check "  raw including relay" named "$at_sibling: \"relay_private.h\" is in spoolsim/relay, which spoolsim/raw may not use"
check "  the model including the relay's inside" named "$at_model: \"relay_private.h\" is in spoolsim/relay, which spoolsim/model may not use"
check "  <event2/...> in the model" named "$at_model_event: <event2/event.h>: spoolsim/model may not use event2"
check "  a path instead of a name" named "$at_path: \"common/util/msg.h\": a project include names a header, not a path"
check "  a header that is nowhere" named "$at_none: \"nosuch.h\" is in no folder of the tree"
check "  a folder the table does not know" named "${at_folder%:*}:1: folder extra is not in the layer table"
check "  a header name in two folders" named "common/util/xalloc.h: header named in spoolsim/raw too"
check "  and nothing else" test "$(wc -l <"$WORK/control.out")" -eq 12

# The control of the size check, in the same copy.
seq 801 | sed 's,^,/* ,; s,$, */,' >"$T/spoolsim/raw/raw_long.c"
seq 800 | sed 's,^,/* ,; s,$, */,' >"$T/spoolsim/raw/raw_edge.c"
{ echo '/* Generated from data/x.json by the Makefile: do not edit. */'; seq 900; } >"$T/spoolsim/raw/raw_made.c"
too_long "$T" >"$WORK/long-control.out"
cat "$WORK/long-control.out"
long=raw_long # a variable: it_docs would take the path for a reference to the tree
check "a .c file of 801 lines is named, one of 800 and a generated one are not" \
    test "$(cat "$WORK/long-control.out")" = "spoolsim/raw/$long.c: 801 lines"

# Usage errors.
python3 "$LAYERS" >"$WORK/usage.out" 2>&1
check "no directory: exit 2" test $? -eq 2
python3 "$LAYERS" "$WORK/none" >"$WORK/usage.out" 2>&1
check "a missing directory: exit 2, named" sh -c "test $? -eq 2 && grep -q '$WORK/none is not a directory' '$WORK/usage.out'"
finish
