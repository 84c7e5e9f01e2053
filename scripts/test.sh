#!/bin/bash
# test.sh - the README's test command: install dependencies, build with
# warnings as errors, and run every unit and integration test (make check).
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
[ -x configure ] || autoreconf -fi
[ -f Makefile ] || ./configure --enable-werror
make -j2
make -j2 check || {
    cat tests/*.log >&2
    exit 1
}
