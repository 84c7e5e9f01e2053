#!/bin/bash
# install-deps.sh - install what spoolsim's build, tests and benchmarks need
# on Debian (12 or later): compilers, autotools, libevent, OpenSSL, Check,
# and the real peers the tests compare against (Postfix's smtp-source,
# smtp-sink and postcat; swaks; PostMark). Idempotent: it does nothing when all is there.
set -eu

PACKAGES="build-essential autoconf automake pkg-config libevent-dev libssl-dev check
          postfix swaks postmark python3 openssl procps strace clang"

missing=""
for pkg in $PACKAGES; do
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
echo "install-deps: installing$missing"
# Postfix is wanted for its test tools only: no mail system gets configured.
echo "postfix postfix/main_mailer_type select No configuration" | $SUDO debconf-set-selections
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
