#!/bin/bash
# Integration: a full spool file system, with every profile the relay runs
# (postfix, sendmail, qmail, exim, exim-4.98, opensmtpd). On a 1 MiB tmpfs
# mounted by the test (root only), with the next hop down so that nothing
# leaves, the relay answers 452 once space runs out. A message so refused
# must leave no file of its own behind. Then a file takes what room is
# left, so that the deferrals of the messages acknowledged fail too (a
# Sendmail tf file, an Exim -J journal cannot be written), and the
# deliveries once the next hop is back (Exim's journal again): that may
# hold no message up, nor leave a file that fails the next try. Once the
# next hop is back, every acknowledged message must be delivered, none
# lost, and once the filler is gone and the relay stopped the spool must
# hold exactly what it held before the first message (the profile's
# directories, lock files and hints databases), with no message file and
# no message directory.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

MNT=$WORK/full
small_tmpfs "$MNT" 1m

# contents SPOOL: every file, and every directory named by a message ID
# (a profile's IDs are long numbers; Postfix's hash directories are one
# character and made when first needed), one path a line, sorted.
contents() {
    (
        cd "$1" && find . -type f
        find . -mindepth 1 -type d -regex '.*[0-9]\{10\}.*'
    ) | sort
}

# fill_up: the filler takes whatever room is left on the mount.
fill_up() { dd if=/dev/zero bs=4k >>"$MNT/filler" 2>/dev/null; true; }

# full_and_refused: filled up again, and a deferral has failed for want of room.
full_and_refused() {
    fill_up
    grep -q "cannot defer: No space left on device" "$WORK/relay.err"
}

# delivered N: the sink has logged N messages or more.
delivered() { [ -f "$WORK/sink.log" ] && [ "$(wc -l <"$WORK/sink.log")" -ge "$1" ]; }

for profile in postfix sendmail qmail exim exim-4.98 opensmtpd; do
    SPOOL=$MNT/$profile
    free_port port || exit 1
    rm -f "$WORK/src.log" "$WORK/sink.log" "$WORK/src.json"
    start_relay relay --profile "$profile" --spool "$SPOOL" --next-hop "127.0.0.1:$port" \
        --min-backoff 200ms --max-backoff 500ms --json "$WORK/relay.json" || exit 1
    contents "$SPOOL" >"$WORK/before"
    fill_to_refusal "$profile" "$relay_PORT" "$relay_PID"
    accepted=$ACCEPTED refused=$REFUSED

    # What room is left goes too: the next deferrals fail for want of it.
    fill_up
    # Those whose deferral writes (a Postfix deferral is a rename, qmail's none at all).
    # The filler grows again at each look: a deferral that replaced a file
    # (write a new one, rename it over the old) between two looks may have
    # freed a page, which would let every later deferral fit.
    case $profile in sendmail | exim* | opensmtpd)
        check "$profile: deferrals fail on the full disk" \
            wait_until 20 full_and_refused
        ;;
    esac

    # The next hop comes back: what was acknowledged leaves, and space with it.
    start_sink sink --msg-log "$WORK/sink.log" "127.0.0.1:$port" 100 || exit 1
    check "$profile: every acknowledged message reaches the next hop" \
        wait_until 60 delivered "$accepted"
    exactly_once "$profile: none lost or duplicated" "$accepted" "$WORK/src.log" "$WORK/sink.log"
    rm -f "$MNT/filler"
    # Deliveries end with the profile's deliver phase (its unlinks) after the
    # next hop's 250: a clean stop waits for them.
    stop "$relay_PID"
    stop "$sink_PID"
    contents "$SPOOL" >"$WORK/after"
    check "$profile: the refused messages left no file behind" diff "$WORK/before" "$WORK/after"
    check "$profile: the relay counted the refusals" \
        test "$(json_get "$WORK/relay.json" refused_storage)" = "$refused"
    rm -rf "$SPOOL"
    mv "$WORK/relay.err" "$WORK/relay-$profile.err"
done
finish
