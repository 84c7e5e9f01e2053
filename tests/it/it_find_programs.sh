#!/bin/bash
# Integration: how `spoolsim bench` finds smtp-sink and smtp-source when it
# is not run from the build tree: next to itself, then in PATH, where only
# a program that says it is spoolsim's counts (Postfix installs an
# smtp-sink and an smtp-source of its own, with other options).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

TMP=$WORK/tmp
mkdir -p "$TMP" "$WORK/alone" "$WORK/together" "$WORK/ours" "$WORK/foreign"
cp "$RELAY" "$WORK/alone/spoolsim"
cp "$RELAY" "$SINK" "$SOURCE" "$WORK/together/"
ln -s "$(cd "$(dirname "$SINK")" && pwd)/smtp-sink" "$WORK/ours/smtp-sink"
ln -s "$(cd "$(dirname "$SOURCE")" && pwd)/smtp-source" "$WORK/ours/smtp-source"
# Another package's smtp-sink: it notes how it was called, and is no sink.
for p in smtp-sink smtp-source; do
    printf '#!/bin/sh\necho "$*" >>"%s/foreign.calls"\necho "usage: %s [-options] host:port backlog" >&2\nexit 1\n' \
        "$WORK" "$p" >"$WORK/foreign/$p"
    chmod +x "$WORK/foreign/$p"
done
BASE_PATH=/usr/bin:/bin
unset SPOOLSIM_SMTP_SINK SPOOLSIM_SMTP_SOURCE

check "installed together: found next to spoolsim" to "$WORK/together.out" env PATH="$BASE_PATH" \
    TMPDIR="$TMP" timeout 120 "$WORK/together/spoolsim" bench -m 20 -s 2 -q
check "and the run is whole" grep -q "^exactly once: yes: 20 acknowledged, 20 delivered" "$WORK/together.out"

check "alone, with nothing in PATH: exit 3" sh -c "PATH='$BASE_PATH' TMPDIR='$TMP' timeout 60 '$WORK/alone/spoolsim' bench -m 10 >/dev/null 2>'$WORK/alone.err'; test \$? = 3"
check "saying where it looked and what to set" grep -q "cannot find smtp-sink next to $WORK/alone/spoolsim, in its build tree, in /.* or in PATH (set SPOOLSIM_SMTP_SINK to its path)" "$WORK/alone.err"
check "before it made anything" test -z "$(ls -A "$TMP")"

check "another package's smtp-sink in PATH is not taken" sh -c "PATH='$WORK/foreign:$BASE_PATH' TMPDIR='$TMP' timeout 60 '$WORK/alone/spoolsim' bench -m 10 >/dev/null 2>'$WORK/foreign.err'; test \$? = 3"
check "it was only asked its --version" test "$(sort -u "$WORK/foreign.calls")" = "--version"

rm -f "$WORK/foreign.calls"
check "ours later in PATH: found" to "$WORK/path.out" env PATH="$WORK/foreign:$WORK/ours:$BASE_PATH" \
    TMPDIR="$TMP" timeout 120 "$WORK/alone/spoolsim" bench -m 20 -s 2 -q
check "and the run is whole" grep -q "^exactly once: yes: 20 acknowledged, 20 delivered" "$WORK/path.out"
check "the foreign one was not run as a sink" test "$(sort -u "$WORK/foreign.calls")" = "--version"
check "the work directories are removed" test -z "$(ls -A "$TMP")"

# spoolsim source and spoolsim sink: a package keeps the two out of PATH.
check "spoolsim source runs the smtp-source found next to it" sh -c "PATH='$WORK/foreign:$BASE_PATH' '$WORK/together/spoolsim' source --version | grep -q '^smtp-source (spoolsim) '"
check "spoolsim sink runs the one in PATH that is ours" sh -c "PATH='$WORK/foreign:$WORK/ours:$BASE_PATH' '$WORK/alone/spoolsim' sink --version | grep -q '^smtp-sink (spoolsim) '"
check "with its arguments, and its exit status" sh -c "PATH='$BASE_PATH' '$WORK/together/spoolsim' source --no-such-option 2>'$WORK/src.err'; test \$? = 2 && grep -q 'no-such-option' '$WORK/src.err'"
check "spoolsim help sink is smtp-sink's --help" sh -c "'$WORK/together/spoolsim' help sink | grep -q '^Usage: smtp-sink '"
check "alone, spoolsim sink says what is missing: exit 3" sh -c "PATH='$BASE_PATH' '$WORK/alone/spoolsim' sink --version 2>'$WORK/sink.err'; test \$? = 3 && grep -q 'cannot find smtp-sink' '$WORK/sink.err'"

check "calibrate, not in its build tree: a clear error" sh -c "! '$WORK/alone/spoolsim' calibrate postfix 2>'$WORK/cal.err' && grep -q 'or where it is installed (set SPOOLSIM_CALIBRATE_SCRIPT' '$WORK/cal.err'"
finish
