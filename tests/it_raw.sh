#!/bin/bash
# Integration: `spoolsim raw'. Every profile runs, reports what it did,
# and leaves nothing behind; where strace works, the system calls each
# profile makes per message are the ones of its table in
# docs/spool-profiles.md A.6 (one recipient, success path).
. "${top_srcdir:-.}/tests/lib.sh"

DIR=$WORK/dir
mkdir -p "$DIR"
for p in postfix sendmail qmail exim opensmtpd null; do
    check "$p: 300 messages, 4 workers" to "$WORK/$p.out" timeout 60 "$RELAY" raw --dir "$DIR" \
        -p "$p" -m 300 -w 4 -q --json "$WORK/$p.json"
    check "$p: 300 delivered" test "$(json_get "$WORK/$p.json" delivered)" = 300
    check "$p: the report names profile and filesystem" \
        sh -c "grep -q '^profile: *$p ' '$WORK/$p.out' && grep -q '^filesystem: ' '$WORK/$p.out'"
    check "$p: nothing left behind" test -z "$(ls -A "$DIR")"
done

check "deferrals and queue depth" to "$WORK/defer.out" timeout 60 "$RELAY" raw --dir "$DIR" \
    -p postfix -m 400 -w 4 --defer 25 --depth 20 -r 2 --size uniform:500:20000 -q \
    --json "$WORK/defer.json"
deferrals=$(json_get "$WORK/defer.json" deferrals)
check "about a quarter deferred ($deferrals of 400)" test "$deferrals" -ge 50 -a "$deferrals" -le 150
check "all delivered in the end" test "$(json_get "$WORK/defer.json" delivered)" = 400
check "--sync none: marked on every line" to "$WORK/none.out" "$RELAY" raw --dir "$DIR" -p exim \
    -m 50 -w 2 --sync none -q
check "  every line" test -z "$(grep -v '^\[sync none\] ' "$WORK/none.out")"
check "  and no sync made" grep -q "^\[sync none\] syncs: *0.0/s" "$WORK/none.out"
check "--ceiling measures and compares" to "$WORK/ceil.out" "$RELAY" raw --dir "$DIR" -m 200 \
    -w 2 --ceiling -q
check "  the fraction line" grep -q "^fraction: *the postfix profile runs at [0-9]*% of the bare spool loop" "$WORK/ceil.out"
check "unknown profile: exit 2" sh -c "'$RELAY' raw --dir '$DIR' -p smail >/dev/null 2>&1; test \$? = 2"
check "no --dir: exit 2" sh -c "'$RELAY' raw >/dev/null 2>&1; test \$? = 2"
check "missing --dir: exit 1, named" sh -c "! '$RELAY' raw --dir '$WORK/nonexistent' -m 1 2>'$WORK/e' && grep -q nonexistent '$WORK/e'"
check "--list names every profile" test "$("$RELAY" raw --list | wc -l)" = 6

# System calls per message, by strace.
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
    N=100
    for p in postfix sendmail qmail exim opensmtpd; do
        rm -f "$WORK"/trace.*
        strace -ff -qq -o "$WORK/trace" -e trace=openat,rename,renameat,renameat2,link,linkat,unlink,unlinkat,fsync,fdatasync,mkdir,rmdir \
            "$RELAY" raw --dir "$DIR" -p "$p" -m $N -w 2 -q >/dev/null 2>&1
        python3 - "$WORK/trace" "$N" >"$WORK/$p.counts" <<'PY'
import glob, re, sys
prefix, n = sys.argv[1], int(sys.argv[2])
c = dict.fromkeys(["creates", "syncs", "renames", "links", "unlinks", "mkdirs", "rmdirs"], 0)
for f in glob.glob(prefix + ".*"):
    for line in open(f):
        m = re.match(r"(\w+)\((.*)\)\s+=\s+(-?\d+)", line)
        if not m or "spoolsim-raw." not in line and m.group(1) not in ("fsync", "fdatasync"):
            continue
        call, args, ret = m.group(1), m.group(2), int(m.group(3))
        if ret < 0:
            continue
        if call == "openat" and "O_CREAT" in args:
            c["creates"] += 1
        elif call in ("fsync", "fdatasync"):
            c["syncs"] += 1
        elif call.startswith("rename"):
            c["renames"] += 1
        elif call.startswith("link"):
            c["links"] += 1
        elif call.startswith("unlink"):
            c["unlinks"] += 1
        # message directories only: the set-up, buckets and clean-up make and remove others
        elif call == "mkdir" and re.search(r'/incoming/\d+"', args):
            c["mkdirs"] += 1
        elif call == "rmdir" and re.search(r'/queue/[0-9a-f]{2}/\d+"', args):
            c["rmdirs"] += 1
# set-up and clean-up are not the messages'
print(" ".join(f"{k}={v / n:.1f}" for k, v in c.items()))
PY
        echo "$p: $(cat "$WORK/$p.counts")"
    done
    # A.6: creates, syncs (incl. directory), renames, links, successful unlinks
    check "postfix: 1 create, 1 sync, 2 renames, 1 unlink" grep -q "creates=1.0 syncs=1.0 renames=2.0 links=0.0 unlinks=1.0" "$WORK/postfix.counts"
    check "sendmail: 2 creates, 2 syncs, 0 renames, 2 unlinks" grep -q "creates=2.0 syncs=2.0 renames=0.0 links=0.0 unlinks=2.0" "$WORK/sendmail.counts"
    check "qmail: 4 creates, 4 syncs, 2 links, 6 unlinks" grep -q "creates=4.0 syncs=4.0 renames=0.0 links=2.0 unlinks=6.0" "$WORK/qmail.counts"
    check "exim: 4 creates, 5 syncs (one a directory), 1 rename, 4 unlinks" grep -q "creates=4.0 syncs=5.0 renames=1.0 links=0.0 unlinks=4.0" "$WORK/exim.counts"
    check "opensmtpd: 1 mkdir, 2 creates, 0 syncs, 2 renames, 2 unlinks, 1 rmdir" grep -q "creates=2.0 syncs=0.0 renames=2.0 links=0.0 unlinks=2.0 mkdirs=1.0 rmdirs=1.0" "$WORK/opensmtpd.counts"
else
    echo "SKIP: strace counts (strace missing or not permitted)"
fi
finish
