#!/bin/bash
# Integration: `spoolsim bench --profile P` measures delivery up to the
# moment the relay's queue is really empty, for every profile, and its
# delivered rate agrees with the relay's own figure.
#
# The sink answers each DATA after 10 ms and the relay has 2 connections
# to it, so no run can deliver faster than 200 msgs/s: 150 messages take
# at least 0.75 s to deliver, whatever the disk. Injection is quicker, so
# the queue still holds messages when the client is done, and bench's
# drain must cover them. Tolerance of bench's delivered rate against the
# relay's (delivered over its delivery window, first message in to last out):
# bench's window also holds the client's start and a 10 ms poll, so its
# rate may be lower by up to 20 %, and higher by 5 % at most.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

N=150
MIN_DELIVERY=0.75 # N x 10 ms / 2 connections
SLOW_SINK=$WORK/slow-sink
printf '#!/bin/sh\nexec "%s" -w 0.01 "$@"\n' "$(cd "$(dirname "$SINK")" && pwd)/smtp-sink" >"$SLOW_SINK"
chmod +x "$SLOW_SINK"

for p in postfix sendmail qmail exim opensmtpd null; do
    dir=$WORK/$p && mkdir -p "$dir"
    check "$p: bench runs" to "$WORK/$p.out" env SPOOLSIM_SMTP_SINK="$SLOW_SINK" TMPDIR="$dir" timeout 120 \
        "$RELAY" bench --profile "$p" -m $N -s 10 --concurrency 2 --keep --spool "$dir" \
        --json "$WORK/$p.json"
    relay_json=$(ls -d "$dir"/spoolsim-bench.*)/relay.json
    check "$p: every message exactly once" \
        grep -q "^exactly once: yes: $N acknowledged, $N delivered, 0 lost" "$WORK/$p.out"
    check "$p: delivery took at least ${MIN_DELIVERY} s, so the drain is counted" python3 - \
        "$WORK/$p.json" $MIN_DELIVERY <<'PY'
import json, sys
b, least = json.load(open(sys.argv[1])), float(sys.argv[2])
print(f"  load {b['load_s']:.3f} s, drain {b['drain_s']:.3f} s, total {b['total_s']:.3f} s")
assert b["total_s"] >= least, b
# the queue was not empty when injection ended: the drain holds the rest
assert b["load_s"] >= least or b["drain_s"] >= least - b["load_s"] - 0.02, b
PY
    check "$p: bench's delivered rate is the relay's (-20 % .. +5 %)" python3 - \
        "$WORK/$p.json" "$relay_json" $N <<'PY'
import json, sys
b, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
ours, theirs = b["delivered_per_s"], r["messages_out_per_s"]
print(f"  bench {ours:.1f} msgs/s, relay {theirs:.1f} msgs/s over {r['out_window_s']:.3f} s")
assert r["messages_out"] == b["delivered"] == int(sys.argv[3]), (r["messages_out"], b["delivered"])
assert 0.80 * theirs <= ours <= 1.05 * theirs, (ours, theirs)
PY
done
finish
