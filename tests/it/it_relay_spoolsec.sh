#!/bin/bash
# Integration: the spool is no way into the host (issue 12, item 2). The
# relay checks its spool and every queue directory at start as Postfix has
# its queue: real directories, not symbolic links, owned by the user it
# runs as, not writable by group or others; it refuses anything else with
# exit status 1 and a message naming the path and the fault, and touches
# nothing. With -u USER it runs as USER once it is listening, and the spool
# it makes belongs to USER.
#
# The symbolic-link cases run as any user; the cases of other users' spools
# and of -u need root and are skipped, with a line saying so, without it.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

# make_spool DIR ARGS...: a spool made by the relay itself, then stopped.
make_spool() {
    local dir=$1 name
    shift
    name=mk$((++MADE))
    start_relay "$name" --spool "$dir" "$@" || return 1
    stop "$(eval echo \$${name}_PID)"
}
MADE=0

# refused NAME ARGS...: the relay, run on ARGS, stops at once with status 1
# (a start-up failure); its standard error goes to $WORK/NAME.err.
refused() {
    local name=$1 status
    shift
    timeout 10 "$RELAY" relay --listen 127.0.0.1:0 "$@" >/dev/null 2>"$WORK/$name.err"
    status=$?
    [ "$status" = 3 ] || { echo "$name: exit status $status, not 3:" >&2; cat "$WORK/$name.err" >&2; return 1; }
}

# says NAME TEXT...: the refusal in $WORK/NAME.err names each TEXT.
says() {
    local name=$1 text
    shift
    for text in "$@"; do
        grep -qF -- "$text" "$WORK/$name.err" || { echo "$name: no \"$text\" in:" >&2; cat "$WORK/$name.err" >&2; return 1; }
    done
}

# 1. A symbolic link in place of pid/relay.pid: refused, the target untouched.
SP=$WORK/spool-pidfile
make_spool "$SP" || exit 1
echo precious >"$WORK/victim-file"
rm -f "$SP/pid/relay.pid"
ln -s "$WORK/victim-file" "$SP/pid/relay.pid"
check "pid/relay.pid a symbolic link: refused" refused pidlink --spool "$SP"
check "the refusal names the pid file and the link" says pidlink "$SP/pid/relay.pid" "symbolic link"
check "the link's target is untouched" test "$(cat "$WORK/victim-file")" = precious

# 2. A symbolic link in place of a queue directory: refused, its target untouched.
for q in incoming active deferred defer bounce corrupt pid; do
    SP=$WORK/spool-$q
    make_spool "$SP" || exit 1
    mkdir "$WORK/victim-$q"
    echo a >"$WORK/victim-$q/notes.txt"
    echo b >"$WORK/victim-$q/ABCDEF12"
    rm -rf "${SP:?}/$q"
    ln -s "$WORK/victim-$q" "$SP/$q"
    check "$q/ a symbolic link: refused" refused "link-$q" --spool "$SP"
    check "$q/: the refusal names it and the link" says "link-$q" "$SP/$q" "symbolic link"
    check "$q/: the files it points to are untouched" \
        test "$(cat "$WORK/victim-$q/notes.txt" "$WORK/victim-$q/ABCDEF12")" = "$(printf 'a\nb')"
done

# The spool itself a symbolic link: refused too.
make_spool "$WORK/spool-real" || exit 1
ln -s "$WORK/spool-real" "$WORK/spool-link"
check "the spool a symbolic link: refused" refused spoollink --spool "$WORK/spool-link"
check "the refusal names it" says spoollink "$WORK/spool-link" "symbolic link"

# A spool writable by its group or by others: refused.
SP=$WORK/spool-gw
make_spool "$SP" || exit 1
chmod 0770 "$SP/deferred"
check "a group-writable queue: refused" refused gw --spool "$SP"
check "the refusal names it and its mode" says gw "$SP/deferred" "0770" "writable"
check "and touched nothing (mode kept)" test "$(stat -c %a "$SP/deferred")" = 770

if [ "$(id -u)" != 0 ]; then
    skip_part "the other users' spools and -u need root (running as uid $(id -u))"
    finish
fi
command -v setpriv >/dev/null || { skip_part "acting as nobody needs setpriv (util-linux)"; finish; }
NOBODY=$(id -u nobody 2>/dev/null) || { skip_part "acting as nobody needs a user nobody"; finish; }
NOGROUP=$(id -g nobody)
# nobody must reach the spools below: only $WORK/pub is open to it.
chmod 0711 "$WORK"
mkdir -m 0755 "$WORK/pub"
as_nobody() { setpriv --reuid="$NOBODY" --regid="$NOGROUP" --clear-groups -- "$@"; }

# 3. A spool of another user: refused, whole or one queue of it.
SP=$WORK/spool-other
make_spool "$SP" || exit 1
chown -R nobody "$SP"
check "a spool owned by nobody, relay as root: refused" refused other --spool "$SP"
check "the refusal names the spool and both users" says other "$SP" "owned by nobody" "root"
chown root "$SP"
check "one queue owned by nobody: refused" refused other-q --spool "$SP"
check "the refusal names the queue" says other-q "$SP/incoming" "owned by nobody"

# 4. The attack: a mode 0777 spool, nobody swaps pid/ and incoming/ for its
#    own, with links to a root-owned file and a root-owned directory.
SP=$WORK/pub/spool-777
make_spool "$SP" || exit 1
chmod 0777 "$SP"
echo "root's file" >"$WORK/pub/root-file"
mkdir -m 0755 "$WORK/pub/root-dir"
echo one >"$WORK/pub/root-dir/one"
echo two >"$WORK/pub/root-dir/ABCDEF12"
as_nobody sh -c "mv '$SP/pid' '$SP/pid.old' && mkdir '$SP/pid' && ln -s '$WORK/pub/root-file' '$SP/pid/relay.pid' &&
    mv '$SP/incoming' '$SP/incoming.old' && ln -s '$WORK/pub/root-dir' '$SP/incoming'"
check "nobody planted its links" test -L "$SP/pid/relay.pid" -a -L "$SP/incoming"
check "a mode 0777 spool: refused" refused s777 --spool "$SP"
check "the refusal names the spool and its mode" says s777 "$SP" "0777" "writable"
check "the root-owned file is untouched" test "$(cat "$WORK/pub/root-file")" = "root's file"
check "the root-owned directory is untouched" test "$(ls "$WORK/pub/root-dir" | tr '\n' ' ')" = "ABCDEF12 one "

# 5. -u nobody: the relay makes its spool for nobody, runs as nobody, delivers.
SP=$WORK/pub/spool-u
start_dead_hop deadhop || exit 1
dead=$deadhop_PORT
start_relay ru1 -u nobody --spool "$SP" --next-hop "127.0.0.1:$dead" --min-backoff 1h --max-backoff 1h || exit 1
real=$(pgrep -P "$ru1_PID" spoolsim || echo "$ru1_PID")
ids() { awk -v k="$1" '$1 == k { print $2, $3, $4, $5 }' "/proc/$real/status"; }
check "-u nobody: it runs as nobody (real, effective, saved, fs uid)" \
    test "$(ids Uid:)" = "$NOBODY $NOBODY $NOBODY $NOBODY"
check "-u nobody: and in nobody's group alone" \
    test "$(ids Gid:) / $(awk '$1 == "Groups:" { $1 = ""; print }' "/proc/$real/status")" = \
    "$NOGROUP $NOGROUP $NOGROUP $NOGROUP /  $NOGROUP"
check "-u nobody: 5 messages accepted" to "$WORK/ru-src1.out" timeout 60 "$SOURCE" -m 5 \
    --msg-log "$WORK/ru-src1.log" "127.0.0.1:$ru1_PORT"
five_deferred() { [ "$(find "$SP/deferred" -type f | wc -l)" = 5 ]; }
check "-u nobody: the 5 deferred as nobody" wait_until 10 five_deferred
stop "$ru1_PID"
wrong=$(find "$SP" \( ! -user nobody -o ! -group "$NOGROUP" \) -printf '%p %u:%g\n')
check "-u nobody: everything in the spool is nobody's: ${wrong:-yes}" test -z "$wrong"
wrong=$(find "$SP" -type d ! -perm 0700 -printf '%p %m\n')
check "-u nobody: every directory mode 0700: ${wrong:-yes}" test -z "$wrong"
check "-u nobody: the hash directories are there too" test -d "$(dirname "$(find "$SP/defer" -type f | head -1)")"
start_sink sink --msg-log "$WORK/ru-sink.log" 127.0.0.1:0 100 || exit 1
start_relay ru2 -u nobody --spool "$SP" --next-hop "127.0.0.1:$sink_PORT" --min-backoff 100ms \
    --max-backoff 500ms || exit 1
check "-u nobody: 5 more messages accepted" to "$WORK/ru-src2.out" timeout 60 "$SOURCE" -m 5 \
    --msg-log "$WORK/ru-src2.log" "127.0.0.1:$ru2_PORT"
check "-u nobody: the spool drains" wait_spool_empty "$SP" 30
stop "$ru2_PID"
stop "$sink_PID"
cat "$WORK/ru-src1.log" "$WORK/ru-src2.log" >"$WORK/ru-src.log"
exactly_once "-u nobody: exactly once" 10 "$WORK/ru-src.log" "$WORK/ru-sink.log"

# -u with a Maildir next hop: the Maildir it makes is nobody's too.
start_relay ru3 -u nobody --spool "$WORK/pub/spool-um" --next-hop "maildir:$WORK/pub/Maildir" || exit 1
check "-u nobody, maildir: 3 messages accepted" to "$WORK/ru-src3.out" timeout 60 "$SOURCE" -m 3 \
    "127.0.0.1:$ru3_PORT"
check "-u nobody, maildir: the spool drains" wait_spool_empty "$WORK/pub/spool-um" 30
stop "$ru3_PID"
check "-u nobody, maildir: 3 deliveries" test "$(find "$WORK/pub/Maildir/new" -type f | wc -l)" = 3
wrong=$(find "$WORK/pub/Maildir" ! -user nobody -printf '%p %u\n')
check "-u nobody, maildir: all of it nobody's: ${wrong:-yes}" test -z "$wrong"

# -u on a spool of root's: refused (it would not be the spool of the user it runs as).
make_spool "$WORK/pub/spool-root" || exit 1
check "-u nobody on a root-owned spool: refused" refused uroot -u nobody --spool "$WORK/pub/spool-root"
check "the refusal names the spool and both users" says uroot "$WORK/pub/spool-root" "owned by root" "nobody"
usage() {
    "$@" >/dev/null 2>"$WORK/usage.err"
    [ $? = 2 ] || { cat "$WORK/usage.err" >&2; return 1; }
}
# A wrong -u is a usage error whatever the port: said before the relay listens.
# On an address no host has (TEST-NET-1) listening fails (exit 1), so only a
# check made before it gives exit 2; a busy default port once turned these
# into "cannot listen".
nowhere=192.0.2.1:25
timeout 10 "$RELAY" relay --listen "$nowhere" --spool "$WORK/pub/x" >/dev/null 2>"$WORK/nowhere.err"
check "--listen $nowhere: cannot listen there (exit 3)" test $? = 3
check "-u nosuchuser: a usage error (exit 2)" usage timeout 10 "$RELAY" relay --listen "$nowhere" -u nosuchuser-spoolsim --spool "$WORK/pub/x"
check "and it names the user" grep -q nosuchuser-spoolsim "$WORK/usage.err"
check "-u root: a usage error, a privileged user" usage timeout 10 "$RELAY" relay --listen "$nowhere" -u root --spool "$WORK/pub/x"
check "-u by a user who is not root: a usage error" usage as_nobody timeout 10 "$RELAY" relay --listen "$nowhere" -u daemon --spool "$WORK/pub/x"
check "and none of these made a spool" test ! -e "$WORK/pub/x"
finish
