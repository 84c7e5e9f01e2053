#!/bin/bash
# Integration: spoolsim workload --from-maillog. A small Postfix log (plain,
# with the odd lines a real one has: a NOQUEUE reject, a warning, another
# program, a broken qmgr line, a NUL, a line over 64 KiB, bytes that are
# not UTF-8, an RFC 3339 stamp, a last line cut short) and an Exim main log
# (gzip'd, found by its magic bytes, not its name) read together: the
# JSON's counts exactly, what was skipped and why, the arrivals per minute,
# and nothing of the log's addresses, hosts or queue IDs in it. Then the
# errors: exit 2 and a message for a usage error, a missing log (nothing
# written), -o naming a log; a damaged gzip file read as far as it goes,
# exit 1, the input not complete.
. "${top_srcdir:-.}/tests/helpers/lib.sh"
S="$top_builddir/spoolsim/spoolsim"
command -v gzip >/dev/null || skip "gzip is not installed"

P="Dec  6 08:0"
{
    echo "${P}0:01 mx1 postfix/smtpd[21]: connect from a.example.org[192.0.2.1]"
    echo "${P}0:01 mx1 postfix/qmgr[10]: 4R1111AAAA: from=<alice@example.org>, size=1000, nrcpt=2 (queue active)"
    echo "${P}0:02 mx1 postfix/qmgr[10]: 4R2222BBBB: from=<alice@example.org>, size=20000, nrcpt=1 (queue active)"
    echo "${P}0:03 mx1 postfix/smtpd[21]: disconnect from a.example.org[192.0.2.1] ehlo=1 mail=2 rcpt=3 data=2 quit=1 commands=9"
    echo "${P}0:04 mx1 postfix/smtp[30]: 4R1111AAAA: to=<bob@example.net>, relay=mx.example.net[198.51.100.1]:25, delay=3, delays=1/0/1/1, dsn=2.0.0, status=sent (250 ok)"
    echo "${P}0:34 mx1 postfix/smtp[30]: 4R1111AAAA: to=<carol@example.net>, relay=none, delay=33, delays=1/0/32/0, dsn=4.4.1, status=deferred (timed out)"
    echo "${P}2:05 mx1 postfix/qmgr[10]: 4R1111AAAA: from=<alice@example.org>, size=1000, nrcpt=1 (queue active)"
    echo "${P}2:06 mx1 postfix/smtp[30]: 4R1111AAAA: to=<carol@example.net>, relay=mx.example.net[198.51.100.1]:25, delay=125, delays=124/0/0.5/0.5, dsn=2.0.0, status=sent (250 ok)"
    echo "${P}2:06 mx1 postfix/qmgr[10]: 4R1111AAAA: removed"
    echo "${P}2:07 mx1 postfix/smtp[30]: 4R2222BBBB: to=<dave@example.net>, relay=mx.example.net[198.51.100.1]:25, delay=125, delays=0.1/0/0.5/0.5, dsn=5.1.1, status=bounced (550 unknown)"
    echo "${P}2:07 mx1 postfix/qmgr[10]: 4R2222BBBB: removed"
    echo "${P}2:08 mx1 postfix/smtpd[21]: NOQUEUE: reject: RCPT from unknown[203.0.113.9]: 554 5.7.1 <x@example.org>: Relay access denied; from=<s@example.biz> to=<x@example.org> proto=ESMTP helo=<spam>"
    echo "${P}2:08 mx1 postfix/smtpd[21]: warning: hostname unknown does not resolve to address 203.0.113.9"
    echo "${P}2:09 mx1 CRON[999]: (root) CMD (run-parts /etc/cron.hourly)"
    echo "${P}2:10 mx1 postfix/qmgr[10]: 4R3333CCCC: from=<alice@example.org>, size=, nrcpt=1 (queue active)"
    printf '%s\0%s\n' "${P}2:11 mx1 postfix/qmgr[10]: 4R3333CCCC:" " removed"
    printf '%s' "${P}2:12 mx1 postfix/smtpd[21]: warning: "
    head -c 70000 /dev/zero | tr '\0' x
    echo
    printf '%s\n' "2026-12-06T09:03:00+01:00 mx1 postfix/qmgr[10]: 4R4444DDDD: from=<\xff\xfe@ex\x80ample.org>, size=500, nrcpt=3 (queue active)"
    printf '%s' "${P}5:00 mx1 postfix/qmgr[10]: 4R5555EEEE: from=<alice@example.org>, size=12"
} >"$WORK/mail.log"
{
    echo "2026-12-06 08:00:30 1tJqAB-000Abc-2X <= erin@example.org H=b.example.org [192.0.2.2] P=esmtps S=3000 id=1@example.org"
    echo "2026-12-06 08:00:31 1tJqAB-000Abc-2X => frank@example.net R=dnslookup T=remote_smtp H=mx.example.net [198.51.100.1]"
    echo "2026-12-06 08:00:31 1tJqAB-000Abc-2X -> grace@example.net R=dnslookup T=remote_smtp H=mx.example.net [198.51.100.1]"
    echo "2026-12-06 08:00:32 1tJqAB-000Abc-2X Completed"
    echo "2026-12-06 08:04:09 SMTP connection from [192.0.2.2]:41234 (TCP/IP connection count = 1)"
    echo "2026-12-06 08:04:10 1tJqAC-000Abd-3Y <= erin@example.org H=b.example.org [192.0.2.2] P=esmtp S=700"
    echo "2026-12-06 08:04:11 1tJqAC-000Abd-3Y == heidi@example.com R=dnslookup T=remote_smtp defer (-44): 451 later"
    echo "2026-12-06 08:04:12 H=(spam) [203.0.113.9] F=<s@example.biz> rejected RCPT <x@example.org>: relay not permitted"
} | gzip -c >"$WORK/mainlog.1"

to "$WORK/run.out" "$S" workload --from-maillog "$WORK/mail.log" "$WORK/mainlog.1" --year 2026 -o "$WORK/w.json"
check "two logs read: exit 0" test $? = 0
check "  ... the JSON is whole" json_complete "$WORK/w.json"
check "  ... a summary on standard output" grep -q "^messages: 5," "$WORK/run.out"

expect() { json_expect "$WORK/w.json" "$@"; }
expect "j['inputs'][0]['gzip'], j['inputs'][1]['gzip']" "False True"
expect "j['inputs'][0]['lines'], j['inputs'][1]['lines']" "19 8"
expect "j['lines']['read'], j['lines']['used'], j['lines']['postfix'], j['lines']['exim']" "27 19 16 8"
expect "' '.join(str(v) for v in j['lines']['skipped'].values())" "1 3 2 1 1"
expect "list(j['lines']['skipped'])" "['other_programs', 'ignored', 'unparsed', 'too_long', 'binary']"
expect "j['messages'], j['requeued'], j['bytes']" "5 1 25200"
expect "j['size_bytes']['count'], j['size_bytes']['min'], j['size_bytes']['max']" "5 500 20000"
expect "abs(j['size_bytes']['median'] - 1000) <= 4" "True"
expect "len(j['size_bytes']['quantiles']), j['size_bytes']['quantiles'][-1]" "104 [100, 20000]"
expect "j['recipients']['count'], j['recipients']['counts']" "4 [[1, 1], [2, 2], [3, 1]]"
expect "j['connections']['opened'], j['connections']['messages_per_connection']['counts']" "2 [[2, 1]]"
expect "[j['outcomes'][k] for k in ('sent', 'deferred', 'bounced', 'expired')]" "[4, 2, 1, 0]"
expect "[j['outcomes'][k] for k in ('messages_tracked', 'messages_deferred', 'messages_bounced')]" "[5, 2, 1]"
expect "j['outcomes']['messages_deferred_share']" "0.4"
# arrivals: 08:00 three (two Postfix, one Exim), 08:03 one (09:03+01:00), 08:04 one
expect "[j['arrivals_per_minute'][k] for k in ('minutes', 'peak', 'mean', 'peak_to_mean')]" "[5, 3, 1, 3]"
expect "j['arrivals_per_minute']['peak_time']" "1796544000.0"
expect "j['first_time'], j['last_time']" "1796544001.0 1796544300.0"
check "no address, host name or queue ID of the logs in the workload" \
    sh -c "! grep -E -q 'example|192\\.0\\.2|4R1111|1tJqAB' '$WORK/w.json'"

# Usage errors: exit 2 and a message; nothing written.
to "$WORK/nosrc.out" "$S" workload "$WORK/mail.log" -o "$WORK/u1.json"
check "no --from-maillog: exit 2" test $? = 2
check "  ... saying so" grep -q "give --from-maillog" "$WORK/nosrc.out"
to "$WORK/nofile.out" "$S" workload --from-maillog
check "no log: exit 2" test $? = 2
to "$WORK/badopt.out" "$S" workload --from-maillog --nonesuch "$WORK/mail.log"
check "an unknown option: exit 2" test $? = 2
to "$WORK/year.out" "$S" workload --from-maillog --year 20x "$WORK/mail.log"
check "--year 20x: exit 2" test $? = 2
to "$WORK/missing.out" "$S" workload --from-maillog "$WORK/mail.log" "$WORK/gone.log" -o "$WORK/u2.json"
check "a missing log: exit 2" test $? = 2
check "  ... naming it" grep -q "gone.log: cannot open: No such file or directory" "$WORK/missing.out"
check "  ... and nothing written" test ! -e "$WORK/u2.json"
to "$WORK/dir.out" "$S" workload --from-maillog "$WORK"
check "a directory for a log: exit 2" test $? = 2
check "  ... naming it" grep -q "cannot open: Is a directory" "$WORK/dir.out"
mkfifo "$WORK/fifo"
cat "$WORK/mail.log" >"$WORK/fifo" &
PIDS="$PIDS $!"
to "$WORK/fifo.out" timeout 30 "$S" workload --from-maillog --year 2026 "$WORK/fifo"
check "a named pipe read as it comes: exit 0" test $? = 0
check "  ... its messages" grep -q "^messages: 3," "$WORK/fifo.out"
to "$WORK/self.out" "$S" workload --from-maillog "$WORK/mail.log" -o "$WORK/mail.log"
check "-o a log: exit 2" test $? = 2
check "  ... the log untouched" test "$(wc -l <"$WORK/mail.log")" = 18

# A gzip file cut in half: what it held so far counts; exit 1, not complete.
head -c 200 "$WORK/mainlog.1" >"$WORK/cut.gz"
to "$WORK/cut.out" "$S" workload --from-maillog "$WORK/cut.gz" -o "$WORK/cut.json"
check "a cut gzip file: exit 3" test $? = 3
check "  ... saying it is damaged" grep -q "damaged or cut short" "$WORK/cut.out"
check "  ... the JSON written, the input not complete" \
    test "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['inputs'][0]['complete'])" "$WORK/cut.json")" = False

# Standard input, and the JSON there.
"$S" workload --from-maillog --year 2026 -o - - <"$WORK/mail.log" >"$WORK/stdin.json" 2>"$WORK/stdin.err"
check "standard input read: exit 0" test $? = 0
check "  ... its JSON alone on standard output" \
    test "$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['messages'])" "$WORK/stdin.json")" = 3
finish
