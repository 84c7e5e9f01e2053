#!/bin/bash
# Integration: the profiles have one home (common/spool/profile.c's table),
# and every command that takes --profile says and takes exactly its names.
# `spoolsim raw --list' prints the table; the --help of raw, relay, bench
# and crash must list its names in its order ("postfix, ..., opensmtpd or
# null", however the lines wrap), and each command, sweep's relay options
# after -- too, must take every one of them in a --dry-run and refuse
# another with exit 2, naming the same list. A list written by hand in a
# --help falls behind the table (the relay's lost exim-4.98).
. "${top_srcdir:-.}/tests/helpers/lib.sh"

"$RELAY" raw --list | awk '{ print $1 }' >"$WORK/names"
check "raw --list names profiles, postfix first and null among them" \
    sh -c "test \"\$(head -1 '$WORK/names')\" = postfix && grep -qx null '$WORK/names'"
# The names as a --help says them: "a, b, c or d".
list=$(awk 'NR > 1 { printf "%s", (prev_sep ? ", " : "") prev; prev_sep = 1 }
    { prev = $0 } END { printf "%s%s\n", (NR > 1 ? " or " : ""), prev }' "$WORK/names")
echo "the table's profiles: $list"

raw_dir=--spool
SPOOL=$WORK/spool
mkdir -p "$SPOOL"

for cmd in raw relay bench crash; do
    "$RELAY" $cmd --help >"$WORK/$cmd.help" 2>&1
    check "$cmd --help lists exactly the table's profiles" \
        sh -c "tr -s ' \n' '  ' <'$WORK/$cmd.help' | grep -q -F -- ' $list '"
done

# accepts PROFILE CMD...: the command's dry run takes --profile PROFILE.
accepts() {
    local p=$1
    shift
    timeout 30 "$@" >"$WORK/out" 2>&1 || {
        cat "$WORK/out"
        return 1
    }
}
while read -r p; do
    check "raw --profile $p" accepts "$p" "$RELAY" raw "$raw_dir" "$SPOOL" --profile "$p" --dry-run
    check "relay --profile $p" accepts "$p" "$RELAY" relay --spool "$SPOOL" --profile "$p" --dry-run
    check "bench --profile $p" accepts "$p" "$RELAY" bench --profile "$p" --dry-run
    [ "$(id -u)" = 0 ] && check "crash --profile $p" accepts "$p" "$RELAY" crash --profile "$p" --dry-run
    check "sweep -- --profile $p" accepts "$p" "$RELAY" sweep --dry-run -- --profile "$p"
done <"$WORK/names"
[ "$(id -u)" = 0 ] || skip_part "crash's dry runs: spoolsim crash checks its options as root only"
check "the dry runs made nothing in the spool directory" test -z "$(ls -A "$SPOOL")"

# refuses CMD...: exit 2, and the message lists the table's profiles.
refuses() {
    timeout 30 "$@" >/dev/null 2>"$WORK/err"
    local status=$?
    cat "$WORK/err"
    test "$status" -eq 2 && grep -q -F -- "$list" "$WORK/err"
}
check "raw refuses another, naming the profiles" refuses "$RELAY" raw "$raw_dir" "$SPOOL" --profile smail --dry-run
check "relay refuses another, naming the profiles" refuses "$RELAY" relay --spool "$SPOOL" --profile smail --dry-run
check "bench refuses another, naming the profiles" refuses "$RELAY" bench --profile smail --dry-run
[ "$(id -u)" = 0 ] && check "crash refuses another, naming the profiles" refuses "$RELAY" crash --profile smail --dry-run
check "sweep refuses another, naming the profiles" refuses "$RELAY" sweep --dry-run -- --profile smail
finish
