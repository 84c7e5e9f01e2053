#!/usr/bin/env bash
# maillog.sh - benchmark (not a test) of `spoolsim workload --from-maillog':
# how fast a mail log is read into a workload.
#
# It writes a synthetic Postfix log of N lines (the mix a relay's log has:
# smtpd's connect, client= and disconnect, cleanup's message-id, qmgr's
# from= and removed, smtp's status=sent, some deferred, a few NOQUEUE
# rejects and lines of other programs; sizes and recipients drawn by awk
# from a fixed seed) and an Exim main log of the same length, then times
# the read of each, plain and gzip'd, BENCH_REPS times, and prints the
# median lines/s. The logs are generated once into DIR (a temporary
# directory, removed after, by default).
#
# Env: BENCH_LINES (2000000) BENCH_REPS (3) BENCH_TIMEOUT (600 s per run)
# Usage: bench/maillog.sh [DIR]   (build first: make -j2)
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SPOOLSIM=${SPOOLSIM:-$ROOT/spoolsim/spoolsim}
N=${BENCH_LINES:-2000000} R=${BENCH_REPS:-3} T=${BENCH_TIMEOUT:-600}
[ -x "$SPOOLSIM" ] || { echo "maillog.sh: $SPOOLSIM is not built (make -j2)" >&2; exit 2; }
if [ $# -ge 1 ]; then
    DIR=$1 KEEP=1
    mkdir -p "$DIR" || exit 2
else
    DIR=$(mktemp -d /tmp/maillog-bench.XXXXXX) KEEP=0
fi
trap '[ "$KEEP" = 1 ] || rm -rf "$DIR"' EXIT

# postfix_log N: about N lines, ten a message, over a day from Dec 1 00:00.
postfix_log() {
    awk -v n="$1" 'BEGIN {
        srand(38); split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", mon, " ")
        t = 0; lines = 0; id = 0
        while (lines < n) {
            t += -log(1 - rand()) * 86400 * 10 / n
            s = int(t); hh = int(s / 3600) % 24; mm = int(s / 60) % 60; ss = s % 60
            d = 1 + int(s / 86400)
            st = sprintf("Dec %2d %02d:%02d:%02d mx1", d, hh, mm, ss)
            q = sprintf("4R%07X%06d", id, id % 999983); id++
            size = int(exp(log(8000) + 1.2 * sqrt(-2 * log(1 - rand())) * cos(6.2831853 * rand())))
            nr = 1 + int(-log(1 - rand()) * 1.5)
            pid = 2000 + id % 50
            print st " postfix/smtpd[" pid "]: connect from mail" id % 97 ".example.org[192.0.2." id % 250 "]"
            print st " postfix/smtpd[" pid "]: " q ": client=mail" id % 97 ".example.org[192.0.2." id % 250 "]"
            print st " postfix/cleanup[3001]: " q ": message-id=<" id ".20261201@example.org>"
            print st " postfix/qmgr[1023]: " q ": from=<user" id % 1000 "@example.org>, size=" size ", nrcpt=" nr " (queue active)"
            print st " postfix/smtpd[" pid "]: disconnect from mail" id % 97 ".example.org[192.0.2." id % 250 "] ehlo=1 mail=1 rcpt=" nr " data=1 quit=1 commands=" 4 + nr
            lines += 5
            for (r = 0; r < nr; r++) {
                if (rand() < 0.05)
                    print st " postfix/smtp[4000]: " q ": to=<rcpt" r "@example.net>, relay=none, delay=30, delays=0.01/0/30/0, dsn=4.4.1, status=deferred (connect to example.net[203.0.113.5]:25: Connection timed out)"
                else
                    print st " postfix/smtp[4000]: " q ": to=<rcpt" r "@example.net>, relay=mx.example.net[198.51.100.7]:25, delay=0.42, delays=0.05/0.01/0.16/0.2, dsn=2.0.0, status=sent (250 2.0.0 Ok: queued as 9F1E2C0)"
                lines++
            }
            print st " postfix/qmgr[1023]: " q ": removed"
            lines++
            if (rand() < 0.1) { print st " postfix/smtpd[" pid "]: NOQUEUE: reject: RCPT from unknown[203.0.113.9]: 554 5.7.1 <x@example.org>: Relay access denied; from=<s@example.biz> to=<x@example.org> proto=ESMTP helo=<spam>"; lines++ }
            if (rand() < 0.1) { print st " CRON[999]: (root) CMD (run-parts /etc/cron.hourly)"; lines++ }
        }
    }'
}

# exim_log N: about N lines, four a message.
exim_log() {
    awk -v n="$1" 'BEGIN {
        srand(38); t = 0; lines = 0; id = 0
        while (lines < n) {
            t += -log(1 - rand()) * 86400 * 4 / n
            s = int(t)
            st = sprintf("2026-12-%02d %02d:%02d:%02d", 1 + int(s / 86400), int(s / 3600) % 24, int(s / 60) % 60, s % 60)
            q = sprintf("1t%04X-%06X-%02X", id % 65536, id, id % 256); id++
            size = int(exp(log(8000) + 1.2 * sqrt(-2 * log(1 - rand())) * cos(6.2831853 * rand())))
            print st " " q " <= user" id % 1000 "@example.org H=mail.example.org [192.0.2.10] P=esmtps X=TLS1.3:TLS_AES_256_GCM_SHA384:256 CV=no S=" size " id=" id "@example.org"
            print st " " q " => rcpt@example.net R=dnslookup T=remote_smtp H=mx.example.net [198.51.100.7] X=TLS1.3:TLS_AES_256_GCM_SHA384:256 CV=yes C=\"250 2.0.0 Ok: queued as 9F1E2C0\""
            print st " " q " -> rcpt2@example.net R=dnslookup T=remote_smtp H=mx.example.net [198.51.100.7]"
            print st " " q " Completed"
            lines += 4
        }
    }'
}

now_ns() { date +%s%N; }

# run LOG: the seconds one read of LOG took (the workload's JSON to /dev/null).
run() {
    local t0 t1
    t0=$(now_ns)
    timeout "$T" "$SPOOLSIM" workload --from-maillog "$1" --year 2026 --no-summary -o /dev/null ||
        { echo "maillog.sh: spoolsim workload failed on $1" >&2; exit 1; }
    t1=$(now_ns)
    awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.6f\n", (b - a) / 1e9 }'
}

echo "maillog.sh: generating $N lines of Postfix's log and of Exim's in $DIR"
postfix_log "$N" >"$DIR/postfix.log"
exim_log "$N" >"$DIR/exim.log"
gzip -c "$DIR/postfix.log" >"$DIR/postfix.log.gz"
gzip -c "$DIR/exim.log" >"$DIR/exim.log.gz"
printf '%-16s %10s %8s %12s\n' log lines "median s" "lines/s"
for log in postfix.log postfix.log.gz exim.log exim.log.gz; do
    lines=$(case $log in *.gz) gzip -dc "$DIR/$log" | wc -l ;; *) wc -l <"$DIR/$log" ;; esac)
    times=()
    for _ in $(seq "$R"); do
        times+=("$(run "$DIR/$log")")
    done
    med=$(printf '%s\n' "${times[@]}" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
    printf '%-16s %10d %8.3f %12.0f\n' "$log" "$lines" "$med" "$(awk -v l="$lines" -v m="$med" 'BEGIN { print l / m }')"
done
