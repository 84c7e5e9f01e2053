#!/bin/bash
# Integration: a workload drives a load (issue 38, item 2). A Postfix log of
# 600 messages of known sizes and recipients over four minutes becomes a
# workload; smtp-source --workload against smtp-sink sends messages whose
# sizes, as the sink saw them, have the workload's median and 90th
# percentile within 3 %, and the workload's recipients per message; its
# JSON names the file and its SHA-256. --replay follows the log's minutes
# (compressed 60 times: four seconds). bench --workload passes it on and
# names the file too, as does ab -- relay; so does sweep --workload, whose knee is also said as a
# multiple of the log's busiest minute, and plot draws that minute as a
# line. Then the refusals: a missing file, not JSON, another
# program's JSON, and the options a workload replaces.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"
command -v sha256sum >/dev/null || skip "sha256sum is not installed"

# 600 arrivals, each delivered, with the lines that name the mail's people,
# hosts and subjects (smtpd's connect, cleanup's header warning, the
# delivery's relay): minutes 0, 1 and 3 hold 100, 400 and 100 (the peak is minute 1);
# sizes 20,000 to 40,366 bytes in steps of 34 (median about 30,200), a
# third of the messages with 3 recipients.
python3 - "$WORK/mail.log" <<'EOF'
import sys
minutes = [0] * 100 + [1] * 400 + [3] * 100
with open(sys.argv[1], "w") as f:
    for i, m in enumerate(minutes):
        size = 20000 + 34 * ((i * 7919) % 600)
        rcpts = 3 if i % 3 == 0 else 1
        sec = (i * 13) % 60
        if i % 50 == 0:
            f.write("Dec  6 08:%02d:%02d mx1 postfix/smtpd[20]: connect from "
                    "client%d.example.com[192.0.2.%d]\n" % (m, sec, i, i % 250))
            f.write("Dec  6 08:%02d:%02d mx1 postfix/cleanup[11]: 4R%08dQ: warning: header "
                    "Subject: Board minutes %d from client%d.example.com[192.0.2.%d]; "
                    "from=<u%d@example.org> to=<v%d@example.net> proto=ESMTP "
                    "helo=<client%d.example.com>\n" % (m, sec, i, i, i, i % 250, i, i, i))
        f.write("Dec  6 08:%02d:%02d mx1 postfix/qmgr[10]: 4R%08dQ: from=<u%d@example.org>, "
                "size=%d, nrcpt=%d (queue active)\n" % (m, sec, i, i, size, rcpts))
        f.write("Dec  6 08:%02d:%02d mx1 postfix/smtp[30]: 4R%08dQ: to=<v%d@example.net>, "
                "relay=mx%d.example.net[198.51.100.%d]:25, delay=1, delays=0.1/0/0.4/0.5, "
                "dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 9Z%08d)\n"
                % (m, sec, i, i, i % 7, i % 250, i))
EOF
check "a workload made of the log" to "$WORK/w.out" "$S" workload --from-maillog --year 2026 \
    "$WORK/mail.log" -o "$WORK/w.json"
W="$WORK/w.json"
# issue 38 item 4: the workload holds none of the log's addresses, host
# names, queue IDs or subjects (its own header names this machine only)
check "the workload holds no address, host, queue ID or subject of the log" \
    sh -c "test -s '$W' && ! grep -E -q 'example|192\\.0\\.2|198\\.51|4R0000|9Z0000|Board minutes|mx1|client[0-9]' '$W'"
check "  ... though the log holds each of them" \
    sh -c "for w in example.org example.net 192.0.2. 198.51. 4R0000 9Z0000 'Board minutes' mx1 client5; do grep -q \"\$w\" '$WORK/mail.log' || exit 1; done"
json_expect "$W" "j['messages'], j['arrivals_per_minute']['peak'], j['arrivals_per_minute']['profile']" \
    "600 400 [[0, 100], [1, 400], [3, 100]]"
digest=$(sha256sum "$W" | cut -d' ' -f1)
echo '{"program": "smtp-source", "messages": 3}' >"$WORK/other.json"

# sizes [sorted] of a message log's size= fields, and a percentile of them
sizes() { sed -n 's/.* size=\([0-9]*\) .*/\1/p' "$1" | sort -n; }
pct() { sizes "$1" | awk -v p="$2" '{ v[NR] = $1 } END { print v[int(NR * p / 100) + 1] }'; }
within() { python3 -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(abs(a - b) > t * b)" "$@"; }

start_sink sink --msg-log "$WORK/sink.log" --json "$WORK/sink.json" 127.0.0.1:0 100 || exit 1
check "smtp-source --workload: exit 0" to "$WORK/src.out" timeout 60 "$SOURCE" --workload "$W" \
    --scale 60 -m 2000 -s 20 --seed 3 --json "$WORK/src.json" "127.0.0.1:$sink_PORT"
stop "$sink_PID"
check "  ... the sink got 2000 messages" test "$(sizes "$WORK/sink.log" | wc -l)" = 2000
jv() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }
want_med=$(jv "$W" "['size_bytes']['median']")
want_p90=$(jv "$W" "['size_bytes']['p90']")
got_med=$(pct "$WORK/sink.log" 50)
got_p90=$(pct "$WORK/sink.log" 90)
echo "# sizes: median $got_med (workload $want_med), p90 $got_p90 (workload $want_p90)"
check "  ... their median within 3 % of the workload's" within "$got_med" "$want_med" 0.03
check "  ... their p90 within 3 % of the workload's" within "$got_p90" "$want_p90" 0.03
rcpt_mean=$(python3 -c "import json,sys; j=json.load(open(sys.argv[1])); print(j['recipients']/j['messages'])" "$WORK/sink.json")
echo "# recipients per message: $rcpt_mean (workload 1.667)"
check "  ... recipients per message within 5 % of the workload's" within "$rcpt_mean" 1.667 0.05
json_expect "$WORK/src.json" "j['workload']['file'], j['workload']['sha256'], j['size']" \
    "$W $digest workload"
# the mean minute is 150 arrivals (600 over minutes 0 to 3): 2.5/s, times 60
json_expect "$WORK/src.json" "j['rate'], j['arrivals']" "150 fixed"
# --peak: the busiest minute's rate, 400 a minute (no server: the rate is all it checks)
to "$WORK/peak.out" timeout 60 "$SOURCE" --workload "$W" --peak -m 1 -C 0 --json "$WORK/peak.json" \
    "127.0.0.1:1"
json_expect "$WORK/peak.json" "round(j['rate'], 3)" "6.667"

# --replay=60: the log's four minutes in four seconds, its 600 arrivals.
start_sink rsink --msg-log "$WORK/rsink.log" 127.0.0.1:0 100 || exit 1
check "smtp-source --replay=60: exit 0" to "$WORK/replay.out" timeout 60 "$SOURCE" --workload "$W" \
    --replay=60 -s 20 --json "$WORK/replay.json" "127.0.0.1:$rsink_PORT"
stop "$rsink_PID"
json_expect "$WORK/replay.json" "j['delivered'], j['workload']['replay']" "600 60"
check "  ... in about four seconds (3.9 to 10)" \
    python3 -c "import json,sys; e=json.load(open(sys.argv[1]))['elapsed_s']; sys.exit(not 3.9 <= e <= 10)" \
    "$WORK/replay.json"

# bench passes the workload on; its result names it.
check "bench --workload: exit 0" to "$WORK/bench.out" timeout 120 "$S" bench --workload "$W" \
    --scale 20 -m 200 -s 4 --json "$WORK/bench.json"
json_expect "$WORK/bench.json" "j['workload']['file'], j['workload']['sha256']" "$W $digest"

# ab -- relay --workload: bench's runs draw from it, and ab's result names it.
mkdir -p "$WORK/a" "$WORK/b"
check "ab -- relay --workload: exit 0" to "$WORK/ab.out" timeout 180 "$S" ab -n 2 --warmup-runs 0 \
    --json "$WORK/ab.json" "$WORK/a" "$WORK/b" -- relay --workload "$W" --scale 20 -m 60 -s 4
json_expect "$WORK/ab.json" "j['workload']['file'], j['workload']['sha256']" "$W $digest"
refused ab_other "not a workload" "$S" ab -n 2 "$WORK/a" "$WORK/b" -- relay --workload "$WORK/other.json"

# sweep --workload: each step's rate a multiple of the log's mean; the knee
# said as a multiple of its busiest minute (400 a minute: 6.667/s) too.
check "sweep --workload: exit 0" to "$WORK/sweep.out" timeout 120 "$S" sweep -q --workload "$W" \
    --rates 20,40 --warmup 0.5s --window 1.5s --json "$WORK/sweep.json" -- --model none
json_expect "$WORK/sweep.json" "j['workload']['file'], j['workload']['sha256'], j['size']" \
    "$W $digest workload"
json_expect "$WORK/sweep.json" "round(j['workload_peak_per_s'], 3), round(j['workload_mean_per_s'], 3)" \
    "6.667 2.5"
json_expect "$WORK/sweep.json" \
    "j['knee_per_s'] is None or abs(j['knee_peak_multiple'] - j['knee_per_s'] / (400 / 60)) < 1e-9" "True"
if [ "$(jv "$WORK/sweep.json" "['knee_per_s']")" != None ]; then
    check "  ... the text says the knee's multiple of the busiest minute" \
        grep -q "the knee carries [0-9.]*x its busiest minute" "$WORK/sweep.out"
else
    skip_part "no sweep step held on this machine: the multiple's text line not seen"
fi

# plot draws the log's busiest minute as a line in the sweep's picture.
# Its shapes from tests/unit/plot_shapes (it_plot.sh): a PNG keeps no names.
check "plot of the sweep: exit 0" to "$WORK/plot.out" "$S" plot --kind sweep "$WORK/sweep.json" \
    -o "$WORK/sweep.png"
check "  ... its shapes" to "$WORK/sweep.shapes" "$top_builddir/tests/unit/plot_shapes" --kind sweep \
    "$WORK/sweep.json"
check "  ... the busiest minute's line in it" grep -q '"cls": "workload-peak"' "$WORK/sweep.shapes"
check "  ... and in its legend" grep -q '"text": "the log'"'"'s busiest minute"' "$WORK/sweep.shapes"

# Refusals: exit 2 and a message, for smtp-source and bench alike.
echo 'Dec  6 08:00:00 mx1 postfix/qmgr[10]: not json' >"$WORK/notjson.json"
T=127.0.0.1:1
refused missing "cannot read" "$SOURCE" --workload "$WORK/gone.json" "$T"
refused notjson "not JSON" "$SOURCE" --workload "$WORK/notjson.json" "$T"
refused other "not a workload" "$SOURCE" --workload "$WORK/other.json" "$T"
refused size "not with -l, --size" "$SOURCE" --workload "$W" --size 1k "$T"
refused rcpts "not with -r" "$SOURCE" --workload "$W" -r 2 "$T"
refused rate "not with --rate" "$SOURCE" --workload "$W" --rate 10 "$T"
refused peakreplay "cannot be combined" "$SOURCE" --workload "$W" --peak --replay "$T"
refused scale "give --workload" "$SOURCE" --scale 2 "$T"
refused badscale "not a factor" "$SOURCE" --workload "$W" --scale 0 "$T"
refused bench_other "not a workload" "$S" bench --workload "$WORK/other.json" -m 10
refused bench_size "not with --size" "$S" bench --workload "$W" --size 1k -m 10
refused bench_rate "not with --rate" "$S" bench --workload "$W" --rate 10 -m 10
refused bench_scale "give --workload" "$S" bench --scale 2 -m 10
refused sweep_missing "cannot read" "$S" sweep --workload "$WORK/gone.json"
refused sweep_replay "unknown option" "$S" sweep --workload "$W" --replay
finish
