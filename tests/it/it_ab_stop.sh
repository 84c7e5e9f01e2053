#!/bin/bash
# Integration: a stop that takes its time one level down. ab's runs are
# drivers of ours (bench, crash) that first stop their own children, each
# within 30 s, and take apart what they set up: ab must wait for that, not
# kill the run at its own 30 s and leave the run's children and work
# directory behind. Here bench's MTA (a stand-in for bench/mta-serve.sh,
# through SPOOLSIM_MTA_SCRIPT: our relay, and a stop that would take 40 s)
# is killed by bench after 30 s; ab, interrupted, waits for bench to finish
# and exits 130 with nothing left. (Root: bench --mta runs as root.)
. "${top_srcdir:-.}/tests/helpers/lib.sh"

[ "$(id -u)" = 0 ] || skip "bench --mta needs root"
command -v mkfifo >/dev/null || skip "no mkfifo"
A=$WORK/a B=$WORK/b TMP=$WORK/tmp
mkdir -p "$A" "$B" "$TMP"
chmod 0755 "$WORK" "$A" "$B"

# The stand-in MTA: bench gives it MTA DIR SPOOL SINK_PORT PORT_FILE. Its
# stop stops the relay at once, then waits 40 s in a shell builtin (no
# child of its own to leave behind when bench kills it).
cat >"$WORK/slow-mta.sh" <<EOF
#!/bin/bash
dir=\$2 spool=\$3 sink=\$4 portfile=\$5
mkdir -p "\$dir"
"$RELAY" relay --listen 127.0.0.1:0 --port-file "\$portfile" --spool "\$spool" \\
    --next-hop "127.0.0.1:\$sink" >"\$dir/relay.log" 2>&1 &
relay=\$!
mkfifo "\$dir/never"
trap 'kill \$relay; wait \$relay; exec 9<>"\$dir/never"; read -r -t 40 -u 9; exit 0' TERM
wait \$relay
EOF
chmod 0755 "$WORK/slow-mta.sh"

env TMPDIR="$TMP" SPOOLSIM_MTA_SCRIPT="$WORK/slow-mta.sh" SPOOLSIM_NO_CALIBRATE=1 \
    timeout --foreground 200 "$RELAY" ab -n 2 --warmup-runs 0 "$A" "$B" -- relay --mta postfix \
    -d 120 -s 2 >"$WORK/ab.out" 2>&1 &
ab=$!
PIDS="$PIDS $ab"
no_process_in() { ! pgrep -a -f -- "$1"; }
mta_up() { pgrep -f -- "--port-file $TMP/.*/mta.port" >/dev/null; }
if check "ab's first run has its MTA up" wait_until 60 mta_up; then
    sleep 1
    t0=$(date +%s)
    kill -INT "$ab"
    wait "$ab"
    rc=$? t=$(($(date +%s) - t0))
    sed 's/^/# /' "$WORK/ab.out" 
    check "SIGINT to ab: exit 130 (got $rc)" test "$rc" = 130
    check "... once bench had killed its MTA (30 s), not before ($t s)" test "$t" -ge 29 -a "$t" -le 60
    check "... ab killed nothing: its run stopped itself" sh -c "! grep -q 'run (PID [0-9]*) did not stop' '$WORK/ab.out'"
    check "... no process of the run left" no_process_in "$TMP/"
    check "... nor any file" test -z "$(ls -A "$TMP")"
fi
finish
