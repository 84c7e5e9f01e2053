#!/bin/bash
# demo.sh - the main job: an end-to-end benchmark with no configuration.
# It installs what the build needs (scripts/install-deps.sh: compilers,
# autotools, pkg-config, libevent, OpenSSL, Check; never a mail system),
# builds spoolsim if needed, and runs
# `spoolsim bench`: smtp-source -> spoolsim relay -> smtp-sink on loopback,
# the relay's Postfix-style spool in a temporary directory (fsync'ed
# creates, renames, unlinks), for 10 seconds, then until the queue is
# empty. It prints injected and delivered messages/s, end-to-end latency,
# fsyncs/s, the filesystem and its mount options, and whether every
# message arrived exactly once; then it removes everything it made.
# As root bench first has Postfix's cost model measured on this machine, once
# (its default as root: Postfix's package unpacked into a private directory,
# never installed; about a minute, then kept in the cache): a model measured
# on another machine can be 2 to 5 times off (docs/fidelity.md), and the
# headline figure is the rate a real Postfix would show here. Without root the report warns instead.
# Arguments are passed to `spoolsim bench` (e.g. --spool /var/spool/test -d 30);
# SPOOLSIM_DEMO_CALIBRATE=0 skips the calibration.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# Two demos started at once in a fresh clone would both configure and build
# the one tree, and both fail: the second waits for the first's build.
exec 9>.build.lock
flock -n 9 || { echo "demo.sh: waiting for another build of this tree to end" >&2; flock 9; }
if [ ! -x spoolsim/spoolsim ] || [ ! -x smtp-sink/smtp-sink ] || [ ! -x smtp-source/smtp-source ]; then
    [ -x configure ] || autoreconf -fi
    [ -f Makefile ] || ./configure
    make -j2 >/dev/null
fi
exec 9>&-
[ "${SPOOLSIM_DEMO_CALIBRATE:-1}" != 0 ] || export SPOOLSIM_NO_CALIBRATE=1
exec spoolsim/spoolsim bench "$@"
