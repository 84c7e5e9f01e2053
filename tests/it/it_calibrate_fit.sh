#!/bin/bash
# Integration: the calibration's fit, `spoolsim calibrate --fit', and the
# relay's CPU by role, `--relay-cpu' (spoolsim/calibrate/calibrate_fit.h), which
# bench/calibrate-lib.sh runs where it once ran python3. Points made by hand
# on an exact line come back as that line, in a model the relay takes; bad
# points, or a fit the relay would refuse, fail saying why and leave no
# model; a usage error exits 2.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

HZ=$(getconf CLK_TCK)
ROLES='{"cleanup": ["cleanup"], "qmgr": ["qmgr"], "smtpd": ["loop"], "smtp": ["loop"]}'
# smtpd: 100 us + 2 us a KiB + 30 us a recipient past the first, over 100
# messages, in nanoseconds; smtp half of smtpd; the relay's loop 40 us, in
# clock ticks, which smtpd and smtp share as they share the CPU: 2 to 1.
ns() { echo $(($1 * 1000 * 100)); }
ticks() { awk -v us="$1" -v hz="$HZ" 'BEGIN { printf "%.6f", us * 100 * hz / 1e6 }'; }
{
    echo "postfix 20 1024 1 100 smtpd 0 / smtpd $(ns 102) smtp $(ns 51) trivial-rewrite 10"
    echo "postfix 20 15360 1 100 smtpd 0 / smtpd $(ns 130) smtp $(ns 65)"
    echo "postfix 5 1024 1 100 / smtpd $(ns 102) smtp $(ns 51)"
    echo "postfix 20 1024 5 100 / smtpd $(ns 222) smtp $(ns 111)"
    for _ in 1 2 3 4; do echo "relay 20 1024 1 100 loop 1 / loop $(awk -v t="$(ticks 40)" 'BEGIN { print t + 1 }')"; done
} >"$WORK/points"
"$RELAY" calibrate --machine >"$WORK/machine.json" 2>"$WORK/machine.err"
check "calibrate --machine" grep -q '"syscall_ns"' "$WORK/machine.json"

fit() { "$RELAY" calibrate --fit "$1" "$2" postfix 3.7.11 "$ROLES" "by hand" 400 "$WORK/machine.json" "${3:-}"; }
check "--fit writes the model" to "$WORK/fit.err" fit "$WORK/points" "$WORK/model.json" \
    "$top_srcdir/data/postfix-syscalls.json"
stage() { grep -A12 "\"name\": \"$1\"" "$WORK/model.json" | tr -d ' \n'; }
check "  smtpd's fit is the line the points were made on" \
    sh -c "stage_text='$(stage smtpd)'; case \$stage_text in *'\"mta\":{\"base_us\":100,\"per_kib_us\":2,\"per_rcpt_us\":30}'*) exit 0 ;; esac; exit 1"
check "  with its share of the relay's loop, 2 of 3 at every load" \
    sh -c "case '$(stage smtpd)' in *'\"relay\":{\"base_us\":26.67,'*) exit 0 ;; esac; exit 1"
check "  and smtp the third" \
    sh -c "case '$(stage smtp)' in *'\"relay\":{\"base_us\":13.33,'*) exit 0 ;; esac; exit 1"
check "  and its system calls from data/postfix-syscalls.json" sh -c "case '$(stage smtpd)' in *'\"syscalls\":{\"base\":'*) exit 0 ;; esac; exit 1"
check "  trivial-rewrite, under 1 us a message, is no stage" sh -c "! grep -q '\"name\": \"trivial-rewrite\"' '$WORK/model.json'"
check "  the machine recorded is --machine's" grep -q "\"syscall_ns\": $(grep -o '"syscall_ns": [0-9.e+-]*' "$WORK/machine.json" | cut -d' ' -f2)" "$WORK/model.json"
check "  it says where it went" grep -q "calibrate: wrote $WORK/model.json" "$WORK/fit.err"
# The relay measures this machine at its start to compare it with a model's:
# a model of a machine without costs spares a loaded machine that wait.
echo '{"cpu_model": "elsewhere", "cpus": 1, "kernel": "Linux 0"}' >"$WORK/bare-machine.json"
"$RELAY" calibrate --fit "$WORK/points" "$WORK/bare.json" postfix 3.7.11 "$ROLES" m 400 \
    "$WORK/bare-machine.json" 2>/dev/null
check "the relay takes such a model" start_relay fitted --spool "$WORK/spool" --next-hop discard \
    --model "$WORK/bare.json" --json "$WORK/relay.json"
stop "$fitted_PID"
check "--relay-cpu: the relay's CPU by role, in clock ticks" \
    sh -c "'$RELAY' calibrate --relay-cpu '$WORK/relay.json' | grep -Eq '^loop [0-9.e+-]+ cleanup [0-9.e+-]+ qmgr [0-9.e+-]+$'"
# A relay that ran a model: its own CPU is each role's less what the model
# burned there (the cleanup threads: receive, deliver, serial; qmgr's thread:
# qmgr); the model's daemon threads are no role of the bare relay.
cat >"$WORK/modelled.json" <<'EOF2'
{"model": {"mta": "postfix", "spent_cpu_s": {"receive": 3.0, "qmgr": 0.5, "deliver": 1.5,
 "serial": 0.25, "daemon": 0.75}},
 "cpu_s": {"loop": 1.0, "cleanup": 5.0, "qmgr": 0.75, "daemons": 0.8}}
EOF2
hz=$(getconf CLK_TCK)
check "--relay-cpu of a modelled relay: its own CPU, the burns taken off" test \
    "$("$RELAY" calibrate --relay-cpu "$WORK/modelled.json")" = \
    "loop $((hz * 1)) cleanup $((hz / 4)) qmgr $((hz / 4))"

sed '2s/ smtp / smtp x /' "$WORK/points" >"$WORK/bad"
fit "$WORK/bad" "$WORK/bad.json" 2>"$WORK/bad.err"
check "a bad point: exit 3" test $? = 3
check "  naming its line" grep -q "bad line 2: class smtp has no number after it" "$WORK/bad.err"
check "  and no model left" test ! -e "$WORK/bad.json"
sed 's/smtpd [0-9]*$/smtpd 0/; s/smtp [0-9]*$/smtp 0/; s/smtpd [0-9]* smtp [0-9]*/smtpd 0 smtp 0/' \
    "$WORK/points" >"$WORK/zero"
fit "$WORK/zero" "$WORK/zero.json" 2>"$WORK/zero.err"
check "no CPU at all: exit 3, less than the bare relay, no model" sh -c "test $? = 3 && grep -q 'less than the bare relay.*not all counted; no model written' '$WORK/zero.err' && test ! -e '$WORK/zero.json'"
# A fit the relay would refuse (cost_model.h's bounds) is no model to keep.
"$RELAY" calibrate --fit "$WORK/points" "$WORK/fast.json" postfix 3.7.11 "$ROLES" m 1000000 \
    "$WORK/machine.json" 2>"$WORK/fast.err"
check "a speed past the bounds: exit 3, saying why, no model" sh -c "test $? = 3 && grep -q 'no model the relay takes (reference_speed is 1e+06: .*); no model written' '$WORK/fast.err' && test ! -e '$WORK/fast.json'"
"$RELAY" calibrate --fit "$WORK/points" "$WORK/m.json" postfix >/dev/null 2>"$WORK/usage.err"
check "--fit without its arguments: exit 2" test $? = 2
"$RELAY" calibrate --fit "$WORK/points" - postfix 3.7.11 '["loop"]' m 400 "$WORK/machine.json" \
    >/dev/null 2>"$WORK/roles.err"
check "roles that are not an object: exit 2" test $? = 2
finish
