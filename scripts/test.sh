#!/bin/bash
# test.sh - the README's test command: install the build's and the tests'
# dependencies (scripts/install-deps.sh --test: no mail system), extract
# Postfix's smtp-source, smtp-sink and postcat into tests/peers without
# installing Postfix (scripts/fetch-peer.sh postfix), Debian's Exim daemon
# (exim4-daemon-light, for the tests that run the real Exim), and OpenSSH's sshd and
# ssh, GNU parallel and python3-kubernetes's API schema beside them (the
# multi-host tests), zsh and fish (the completion's test), build
# with warnings as errors, and run every unit and integration test (make check).
# Where Postfix's tools cannot be fetched, the tests that need them skip and
# say so; SPOOLSIM_REQUIRE_PEERS=1 (CI) makes a missing peer a failure.
# --no-check stops after the build: CI's second pass on its own machine,
# where make distcheck and the sanitizer build run every test anyway.
set -eu
cd "$(dirname "$0")/.."
run_check=1
case "${1:-}" in
--no-check) run_check=0 ;;
"") ;;
*)
    echo "usage: scripts/test.sh [--no-check]" >&2
    exit 2
    ;;
esac
scripts/install-deps.sh --test
scripts/fetch-peer.sh postfix ||
    echo "test.sh: Postfix's tools could not be fetched: the tests that compare against them will skip" >&2
scripts/fetch-peer.sh exim4-daemon-light ||
    echo "test.sh: Exim could not be fetched: the tests that run the real Exim will skip" >&2
scripts/fetch-peer.sh openssh-server openssh-client parallel ||
    echo "test.sh: OpenSSH or GNU parallel could not be fetched: it_multi_host_ssh will skip" >&2
scripts/fetch-peer.sh zsh zsh-common fish ||
    echo "test.sh: zsh or fish could not be fetched: it_completion will skip their part" >&2
scripts/fetch-peer.sh python3-kubernetes ||
    echo "test.sh: python3-kubernetes could not be fetched: it_multi_host_k8s will skip" >&2
# one build of the tree at a time (scripts/demo.sh takes the same lock)
exec 9>.build.lock
flock -n 9 || { echo "test.sh: waiting for another build of this tree to end" >&2; flock 9; }
[ -x configure ] || autoreconf -fi
# A tree configured without -Werror (by scripts/demo.sh, say) is configured again.
if [ ! -f Makefile ] || ! ./config.status --config | grep -q -- --enable-werror; then
    ./configure --enable-werror >/dev/null
fi
make -j2
exec 9>&-
[ "$run_check" = 1 ] || exit 0
make -j2 check || {
    scripts/failed-logs.sh >&2
    exit 1
}
