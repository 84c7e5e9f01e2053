#!/usr/bin/env bash
# crash-table.sh - benchmark (not a test): the real Postfix's power-cut
# verdicts beside the relay's postfix profile's, cell by cell. For each
# filesystem setting, `spoolsim crash --mta postfix' (Postfix's own restart
# judges every cut) and `spoolsim crash --profile postfix' (the relay, judged
# by crash's restart rule for Postfix) run with the same load, points and
# seed; one Markdown row a cell: acknowledged, owed and lost per cut at most
# and the cuts losing, for each, and whether the verdicts agree. As root, after
# `make'; Postfix from scripts/fetch-peer.sh (SPOOLSIM_PEERS).
#
# Environment: CRASH_POINTS (40), CRASH_CELLS (the list below, "TYPE[:OPTS]"
# separated by blanks), CRASH_LOAD (the load's options, "-d 3 -s 4").
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/bench/bench-lib.sh"
POINTS=${CRASH_POINTS:-40}
CELLS=${CRASH_CELLS:-"ext4 ext4:data=writeback ext4:data=journal ext4:dirsync ext4:barrier=0 xfs ext2 btrfs"}
LOAD=${CRASH_LOAD:-"-d 3 -s 4"}
[ "$(id -u)" = 0 ] || { echo "$0: needs root (loop devices, FUSE, mounts)" >&2; exit 2; }
TMP=$(mktemp -d /var/tmp/spoolsim-crash-table.XXXXXX) && chmod 711 "$TMP" || exit 1
trap 'rm -rf "$TMP"' EXIT

echo "# $(bench_machine); $POINTS points a cell, load $LOAD, seed 1"
echo "| filesystem | real Postfix: acknowledged, owed per cut, lost per cut (cuts losing) | postfix profile: the same | verdicts |"
echo "| --- | --- | --- | --- |"
for cell in $CELLS; do
    type=${cell%%:*} opts=
    [ "$type" != "$cell" ] && opts=${cell#*:}
    rm -f "$TMP/real.json" "$TMP/profile.json"
    for who in real profile; do
        if [ $who = real ]; then what="--mta postfix"; else what="--profile postfix"; fi
        # shellcheck disable=SC2086 # the load and the MTA are lists of options
        "$ROOT/spoolsim/spoolsim" crash -q -t "$type" ${opts:+-O "$opts"} --points "$POINTS" \
            $LOAD $what --work-dir "$TMP" --json "$TMP/$who.json" >"$TMP/$who.out" 2>"$TMP/$who.err"
        echo $? >"$TMP/$who.rc"
        # a run without its report: what it said, for the reader of the table
        [ -s "$TMP/$who.json" ] || sed "s|^|# $cell $who: |" "$TMP/$who.err" >&2
    done
    python3 - "$cell" "$TMP" <<'PY'
import json, sys
cell, tmp = sys.argv[1], sys.argv[2]
def side(who):
    rc = open(f"{tmp}/{who}.rc").read().strip()
    try:
        j = json.load(open(f"{tmp}/{who}.json"))
    except Exception:
        err = open(f"{tmp}/{who}.err").read().strip().splitlines()
        return None, f"failed (exit {rc}: {err[-1] if err else 'no message'})"
    return j["max_lost"] > 0, "%s acknowledged, up to %s owed, %s (%d of %d)" % (
        format(j["acknowledged"], ","), format(j["max_owed"], ","), format(j["max_lost"], ","),
        j["points_losing"], j["points"])
real, profile = side("real"), side("profile")
agree = "?" if None in (real[0], profile[0]) else ("agree" if real[0] == profile[0] else "DISAGREE")
name = cell.replace(":", " -o ")
print(f"| {name} | {real[1]} | {profile[1]} | {agree} |", flush=True)
PY
done
