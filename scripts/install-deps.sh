#!/bin/bash
# install-deps.sh - apt-install what spoolsim needs on Debian (12 or later).
#
#   scripts/install-deps.sh            the build: compilers, autotools,
#                                      pkg-config, libevent, OpenSSL, Check,
#                                      cairo (spoolsim plot), libfuse3
#                                      (spoolsim-recorder) and fuse3
#   scripts/install-deps.sh --test     the build, and the test tools that are
#                                      not mail systems: swaks (with the Perl
#                                      TLS modules its STARTTLS needs),
#                                      PostMark, python3, python3-yaml
#                                      (bench/multi-host/check-manifest.py),
#                                      openssl, procps
#                                      (pgrep), strace, e2fsprogs (mkfs.ext4),
#                                      iproute2 (ip, tc: bench --hop-delay),
#                                      dmsetup (crash --recorder
#                                      dm-log-writes, in the lab),
#                                      librsvg2-bin (rsvg-convert: it_plot
#                                      renders plot's SVGs with another
#                                      renderer)
#   scripts/install-deps.sh --only PACKAGE...
#                                      just those (.ci/run: mmdebstrap, clang
#                                      for make fuzz)
#
# Nothing here installs an MTA: Postfix's smtp-source, smtp-sink and postcat
# come from scripts/fetch-peer.sh, extracted into a private directory. Before
# installing, apt-get is asked what it would do; if that would remove any
# package or install one that provides mail-transport-agent, nothing is
# installed and the exit status is 1. Idempotent: it does nothing when all
# is there. Needs root or sudo only when something is missing.
set -eu

BUILD_PACKAGES="build-essential autoconf automake pkg-config libevent-dev libssl-dev check
                libcairo2-dev libfuse3-dev fuse3"
TEST_PACKAGES="swaks libnet-ssleay-perl libio-socket-ssl-perl postmark
               python3 python3-yaml openssl procps strace e2fsprogs iproute2 dmsetup
               librsvg2-bin"

usage() {
    echo "usage: $0 [--test | --only PACKAGE...]" >&2
    exit 2
}
case ${1:-} in
"") packages=$BUILD_PACKAGES ;;
--test)
    [ $# = 1 ] || usage
    packages="$BUILD_PACKAGES $TEST_PACKAGES"
    ;;
--only)
    shift
    [ $# -ge 1 ] || usage
    packages="$*"
    ;;
*) usage ;;
esac

missing=""
for pkg in $packages; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
        missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0

SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null || {
        echo "install-deps: need root (or sudo) to install:$missing" >&2
        exit 1
    }
    SUDO=sudo
fi
APT="$SUDO env DEBIAN_FRONTEND=noninteractive apt-get"
echo "install-deps: installing$missing"
$APT update -qq

# What apt would do, first: a mail host must keep its mail system.
# shellcheck disable=SC2086
plan=$($APT install -s -y --no-install-recommends $missing) || {
    echo "$plan" >&2
    echo "install-deps: apt-get cannot install:$missing" >&2
    exit 1
}
removed=$(echo "$plan" | sed -n 's/^Remv \([^ ]*\).*/\1/p' | tr '\n' ' ')
if [ -n "$removed" ]; then
    echo "install-deps: refusing: installing$missing would remove $removed" >&2
    exit 1
fi
for pkg in $(echo "$plan" | sed -n 's/^Inst \([^ ]*\).*/\1/p'); do
    if apt-cache show --no-all-versions "$pkg" 2>/dev/null | grep -q '^Provides:.*mail-transport-agent'; then
        echo "install-deps: refusing: $pkg is a mail system (provides mail-transport-agent)" >&2
        exit 1
    fi
done
# shellcheck disable=SC2086
$APT install -y -qq --no-install-recommends $missing >/dev/null
