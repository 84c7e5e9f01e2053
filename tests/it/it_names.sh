#!/bin/bash
# Integration: an exported function carries its file's name.
#
# Every function that an object of the build exports starts with the name
# of the source file it is defined in (pf_spool_file_create in
# pf_spool_file.c), so that a name says where to look. Two conventions
# are the exceptions: a subcommand's entry point is spoolsim_NAME in
# NAME.c (spoolsim.c's table calls it), xalloc.c's functions are
# xmalloc and its kin, and a system's platform_SYSTEM.c implements
# platform.h's platform_ calls. A control object with a misnamed function shows
# that the check fails, and names the file and the function.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

command -v nm >/dev/null || skip "nm is not installed"
command -v "${CC:-cc}" >/dev/null || skip "no C compiler for the control"

# misnamed DIR...: "FILE.c: FUNCTION" for every exported function not named for its file.
misnamed() {
    local o base src
    find "$@" -name '*.o' | sort | while read -r o; do
        base=$(basename "$o" .o)
        base=${base#*-} # automake's prefix: libspool_a-pf_queue.o
        # an object whose source is gone is a stale one of an older build
        src=$(dirname "$o")
        case $o in "$top_builddir"/*) src=$top_srcdir/$(dirname "${o#"$top_builddir"/}") ;; esac
        [ -f "$src/$base.c" ] || continue
        base=${base//-/_}
        nm -g --defined-only "$o" | awk -v b="$base" '$2 == "T" {
            s = $3
            if (s == b || index(s, b "_") == 1 || s == "main" || s == "spoolsim_" b)
                next
            if (b == "xalloc" && substr(s, 1, 1) == "x")
                next
            if (index(b, "platform_") == 1 && index(s, "platform_") == 1)
                next
            print b ".c: " s
        }'
    done
}

dirs=()
for d in common smtp-sink smtp-source spoolsim; do
    [ -d "$top_builddir/$d" ] && dirs+=("$top_builddir/$d")
done
[ -n "$(find "${dirs[@]}" -name '*.o' 2>/dev/null | head -1)" ] || skip "nothing is built"
misnamed "${dirs[@]}" >"$WORK/tree.out"
cat "$WORK/tree.out"
check "every exported function of the build is named for its file" test ! -s "$WORK/tree.out"

# The control: an object that exports one function named for another file.
mkdir -p "$WORK/control"
cat >"$WORK/control/relay_attempt.c" <<'C'
int relay_attempt_done(void) { return 0; }
int relay_qmgr_delivered(void) { return 1; }
C
cat >"$WORK/control/platform_os.c" <<'C'
int platform_cpu_ticks(void) { return 0; }
int relay_qmgr_started(void) { return 1; }
C
${CC:-cc} -c -o "$WORK/control/librelay_a-relay_attempt.o" "$WORK/control/relay_attempt.c"
${CC:-cc} -c -o "$WORK/control/libutil_a-platform_os.o" "$WORK/control/platform_os.c"
misnamed "$WORK/control" >"$WORK/control.out"
cat "$WORK/control.out"
check "a function named for another file is found, a platform file's own calls are not" \
    test "$(sort "$WORK/control.out" | tr '\n' ' ')" = "platform_os.c: relay_qmgr_started relay_attempt.c: relay_qmgr_delivered "
finish
