#!/bin/bash
# package.sh - CI's package step (.ci/run runs it as root in its fresh
# Debian 12 root, after the README's two commands): build the Debian
# source and binary packages from a clone of the current commit (only
# committed files count), with the build's dependencies from debian/control
# (apt-get build-dep); lintian, which must find no error or warning; no
# file that Debian's postfix package ships; then install the .deb with apt
# (its dependencies resolved by apt, nothing by hand), run spoolsim bench
# and spoolsim raw, the entry points and the completion from the installed
# files (zsh's and fish's installed too), the documents and the licence
# (README, docs/, copyright: BSD-2-clause), and spoolsim calibrate: the machine's figures, then Postfix's
# cost model measured by the installed scripts (Postfix fetched into the
# run's cache; -m 300, the shortest calibration; CI_PACKAGE_CALIBRATE=0
# skips it), purge it, and check that nothing it installed is left. Prints the
# time of each part and of the whole.
#
# It installs and purges a package: run it on a throwaway system (it
# refuses where spoolsim is installed already). SPOOLSIM_PEERS (default:
# this tree's tests/peers) is where the build's unit tests find Postfix's
# postcat, as in make check; without it, that check skips, as on any
# machine that builds the package (SPOOLSIM_REQUIRE_PEERS is not passed on:
# it is for scripts/test.sh, which runs before).
set -eu
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive LC_ALL=C
export SPOOLSIM_PEERS=${SPOOLSIM_PEERS:-$PWD/tests/peers}
unset SPOOLSIM_REQUIRE_PEERS
[ "$(id -u)" = 0 ] || { echo "package.sh: must run as root (apt-get)" >&2; exit 2; }
if dpkg-query -W -f='${Status}' spoolsim 2>/dev/null | grep -q "install ok installed"; then
    echo "package.sh: spoolsim is installed here already; this step would purge it" >&2
    exit 1
fi
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/var/tmp}/spoolsim-package.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() {
    echo "package.sh: $*" >&2
    exit 1
}
# phase NAME: the time since the last phase, for the closing line.
times=""
t0=$SECONDS
phase() {
    times="$times, $1 $((SECONDS - t0)) s"
    t0=$SECONDS
}

git clone -q --no-checkout "$PWD" "$work/spoolsim"
git -C "$work/spoolsim" checkout -q --detach "$(git rev-parse HEAD)"
cd "$work/spoolsim"
apt-get update -qq
apt-get build-dep -y -qq ./ >"$work/build-dep.log" 2>&1 || { cat "$work/build-dep.log"; fail "apt-get build-dep failed"; }
phase "build-dep"
dpkg-buildpackage -us -uc >"$work/build.log" 2>&1 || { tail -50 "$work/build.log"; fail "dpkg-buildpackage failed"; }
version=$(dpkg-parsechangelog -S Version)
arch=$(dpkg --print-architecture)
deb="$work/spoolsim_${version}_${arch}.deb"
cd "$work"
{ [ -f "$deb" ] && [ -f "spoolsim_${version}.dsc" ]; } || fail "no $deb or spoolsim_${version}.dsc"
phase "dpkg-buildpackage (source and binary)"

apt-get install -y -qq --no-install-recommends lintian >"$work/lintian-install.log" 2>&1 ||
    { cat "$work/lintian-install.log"; fail "cannot install lintian"; }
lintian_ok=1
lintian --fail-on error,warning "spoolsim_${version}_${arch}.changes" >lintian.out 2>&1 || lintian_ok=0
echo "   lintian: $(grep -vc '^running with root privileges' lintian.out) tags"
grep -v '^running with root privileges' lintian.out | sed 's/^/   /' || true
[ $lintian_ok = 1 ] || fail "lintian found an error or a warning"
phase "lintian"

# Not one file of Postfix's package (its smtp-source, smtp-sink and their pages).
apt-get download -qq postfix >/dev/null 2>&1 || fail "cannot download postfix's package to compare"
dpkg-deb -c postfix_*.deb | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >postfix.files
dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }' | sort >spoolsim.files
clash=$(comm -12 postfix.files spoolsim.files)
[ -z "$clash" ] || fail "files Postfix's package ships too: $clash"
clash=$(grep -E '/(s?bin)/smtp-(source|sink)$|/smtp-(source|sink)\.[0-9]' spoolsim.files || true)
[ -z "$clash" ] || fail "Postfix's names in PATH or man: $clash"
phase "Postfix's files"

apt-get install -y -qq "$deb" >"$work/install.log" 2>&1 || { cat "$work/install.log"; fail "apt-get install $deb failed"; }
dpkg -L spoolsim >"$work/installed"
phase "apt-get install"

# From the installed files only: a clean environment, away from any tree.
mkdir "$work/run"
cd "$work/run"
run() {
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work/run" LANG=C.UTF-8 TMPDIR="$work/run" "$@"
}
[ "$(run sh -c 'command -v spoolsim')" = /usr/bin/spoolsim ] || fail "spoolsim is not /usr/bin/spoolsim"
run sh -c '! command -v smtp-source && ! command -v smtp-sink' >/dev/null || fail "smtp-source or smtp-sink in PATH"
run spoolsim --version | grep -qxF "spoolsim ${version%%-*} (package $version)" ||
    fail "spoolsim --version does not name the package's version: $(run spoolsim --version)"
run spoolsim source --version | grep -q '^smtp-source (spoolsim) ' || fail "spoolsim source does not run smtp-source"
run spoolsim sink --version | grep -q '^smtp-sink (spoolsim) ' || fail "spoolsim sink does not run smtp-sink"
run timeout 300 spoolsim bench -d 2 -q >bench.out 2>&1 || { cat bench.out; fail "spoolsim bench -d 2 failed"; }
grep -q '^exactly once: yes' bench.out || { cat bench.out; fail "spoolsim bench: not exactly once"; }
mkdir raw
run timeout 300 spoolsim raw --spool "$work/run/raw" -m 200 -q >raw.out 2>&1 || { cat raw.out; fail "spoolsim raw -m 200 failed"; }
grep -q '^messages: *200 delivered' raw.out || { cat raw.out; fail "spoolsim raw: not 200 delivered"; }
grep -hE '^(exactly once|messages):' bench.out raw.out | sed 's/^/   /'
offered=$(run bash -c '. /usr/share/bash-completion/completions/spoolsim
    COMP_WORDS=(spoolsim bench --hop-d); COMP_CWORD=2; _spoolsim; echo "${COMPREPLY[*]}"')
[ "$offered" = --hop-delay ] || fail "the installed completion offers \"$offered\" for spoolsim bench --hop-d"
for f in /usr/share/zsh/vendor-completions/_spoolsim /usr/share/fish/vendor_completions.d/spoolsim.fish; do
    grep -qxF "$f" "$work/installed" || fail "no $f (the zsh and fish completions)"
done
# The README and docs/ beside the licence Debian's way (copyright), not a second copy.
doc=/usr/share/doc/spoolsim
grep -qE "^$doc/README\.md(\.gz)?\$" "$work/installed" || fail "no README in $doc"
grep -qE "^$doc/docs/json\.md(\.gz)?\$" "$work/installed" || fail "no docs/json.md in $doc"
! grep -q "^$doc/LICENSE" "$work/installed" || fail "$doc/LICENSE beside $doc/copyright"
grep -qx 'License: BSD-2-clause' "$doc/copyright" || fail "$doc/copyright does not say BSD-2-clause"
cd "$work"
phase "runs"

cd "$work/run"
run spoolsim calibrate --machine >machine.json 2>calibrate.err || { cat calibrate.err; fail "spoolsim calibrate --machine failed"; }
grep -q '"syscall_ns": ' machine.json || { cat machine.json; fail "spoolsim calibrate --machine: no system call cost"; }
if [ "${CI_PACKAGE_CALIBRATE:-1}" != 0 ]; then
    run timeout 1200 spoolsim calibrate postfix -m 300 -o "$work/run/model.json" >calibrate.out 2>&1 ||
        { cat calibrate.out; fail "spoolsim calibrate postfix failed"; }
    grep -q '"name": "smtpd"' model.json || { cat calibrate.out model.json; fail "spoolsim calibrate postfix: no smtpd stage"; }
    run timeout 300 spoolsim bench -d 1 -q --model "$work/run/model.json" >bench-model.out 2>&1 ||
        { cat bench-model.out; fail "spoolsim bench --model (the calibrated one) failed"; }
    echo "   calibrate postfix -m 300: $(grep -c '"name": ' model.json) stages"
fi
cd "$work"
phase "calibrate"

apt-get purge -y -qq spoolsim >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "apt-get purge failed"; }
left=""
while IFS= read -r f; do
    [ "$f" != /. ] || continue
    [ -e "$f" ] || [ -L "$f" ] || continue
    # A directory another package owns too (/usr/bin) stays, rightly.
    [ -d "$f" ] && [ ! -L "$f" ] && dpkg-query -S "$f" >/dev/null 2>&1 && continue
    left="$left $f"
done <"$work/installed"
[ -z "$left" ] || fail "left after apt-get purge:$left"
phase "purge"

echo "== package step passed in $((SECONDS - start)) s (${times#, }): $(wc -l <"$work/installed") paths installed and removed"
