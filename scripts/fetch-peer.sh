#!/bin/bash
# fetch-peer.sh - a Debian package's programs for the tests and benchmarks,
# without installing the package: `apt-get download' its .deb and `dpkg -x'
# it into a private directory. Made for the real MTAs the tests compare
# against (postfix; later exim4-daemon-light, opensmtpd, sendmail-bin), and
# for openssh-server, openssh-client and parallel (tests/it/it_multi_host_ssh.sh)
# and python3-kubernetes (its API schema, tests/it/it_multi_host_k8s.sh): a
# mail host keeps its own mail system, and nothing outside the private
# directory changes: the shared libraries the programs need that the host
# lacks (Postfix: libicu72, libdb5.3, libsasl2-2, ...) are downloaded and
# unpacked beside the package, and its wrappers find them through
# LD_LIBRARY_PATH. So `scripts/demo.sh' can measure Postfix's cost model on
# a fresh machine and still install only what the build needs.
#
# Usage: scripts/fetch-peer.sh [--refresh] PACKAGE...
#
# The peers directory is $SPOOLSIM_PEERS, by default tests/peers in the
# source tree (ignored by git). For each PACKAGE:
#   PACKAGE/root/     the package's files, as dpkg -x left them
#   PACKAGE/bin/NAME  a wrapper per program of its bin and sbin directories:
#                     sets LD_LIBRARY_PATH to the package's own libraries
#                     (their RUNPATH names the host's /usr/lib/PACKAGE) and
#                     what else the package needs (Postfix: MAIL_CONFIG),
#                     then runs root/.../NAME
#   PACKAGE/version   the package's version; present only when complete
#   postfix/conf/     Postfix's private config directory (main.cf,
#                     master.cf): every directory in the extracted tree or
#                     below postfix/, loopback only, mail_owner nobody
# scripts/peers.sh, which tests/helpers/lib.sh and bench/*.sh source, names the
# wrappers (POSTFIX_SMTP_SOURCE, POSTFIX_SMTP_SINK, POSTCAT, ...).
# Idempotent: a complete peer whose programs find their libraries is kept
# (--refresh fetches it again). Remove the peers with rm -rf tests/peers.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
PEERS=${SPOOLSIM_PEERS:-$(dirname "$here")/tests/peers}

usage() {
    echo "usage: $0 [--refresh] PACKAGE..." >&2
    exit 2
}
refresh=
[ "${1:-}" = --refresh ] && { refresh=1; shift; }
[ $# -ge 1 ] || usage
for pkg; do
    [[ $pkg =~ ^[a-z0-9][a-z0-9+.-]+$ ]] || { echo "fetch-peer: not a package name: $pkg" >&2; exit 2; }
done
for c in apt-get dpkg-deb ldd; do
    command -v "$c" >/dev/null || { echo "fetch-peer: $c is needed (Debian)" >&2; exit 1; }
done

# program_dirs ROOT: the package's directories of programs.
program_dirs() {
    local d
    for d in usr/sbin usr/bin sbin bin; do
        [ -d "$1/$d" ] && echo "$1/$d"
    done
    return 0
}
# lib_path ROOT [AS]: the package's own shared-library directories,
# colon-separated, with ROOT's path written as AS (where it will be).
lib_path() {
    local d
    find "$1" \( -name '*.so' -o -name '*.so.*' \) -type f -printf '%h\n' | sort -u | while IFS= read -r d; do
        echo "${2:-$1}${d#"$1"}"
    done | paste -sd:
}
# unresolved ROOT: "FILE: LIBRARY" for each library an ELF file of the package
# cannot find with its own libraries on LD_LIBRARY_PATH.
unresolved() {
    local f out
    while IFS= read -r f; do
        head -c 4 "$f" 2>/dev/null | grep -q ELF || continue
        out=$(LD_LIBRARY_PATH=$(lib_path "$1") ldd "$f" 2>/dev/null) || continue
        echo "$out" | sed -n "s|^[[:space:]]*\([^ ]*\) => not found|${f#"$1"/}: \1|p"
    done < <(find "$1" -type f \( -perm -u+x -o -name '*.so' -o -name '*.so.*' \))
}
# usable DIR: a complete peer whose programs find their libraries.
usable() {
    [ -s "$1/version" ] && [ -d "$1/bin" ] && [ -z "$(unresolved "$1/root")" ]
}

# lib_depends DEB: the shared-library packages among its Depends and
# Recommends (the first of each group of alternatives; the rest are not ours
# to install). Recommends too: a program's loadable modules may need them
# (zsh's pcre module, libpcre3), and a fresh root has none of them.
lib_depends() {
    { dpkg-deb -f "$1" Depends; echo ,; dpkg-deb -f "$1" Recommends; } | tr ',' '\n' |
        sed -e 's/|.*//' -e 's/(.*)//' -e 's/:any//' -e 's/[[:space:]]//g' | grep -E '^lib' || true
}

# installed PACKAGE: whether the host has it.
installed() {
    [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# private_libs TMP ROOT PACKAGE...: unpack into ROOT every shared-library
# package the host lacks among these, and theirs in turn.
private_libs() {
    local tmp=$1 root=$2 deb lib
    shift 2
    local todo=("$@") seen=" "
    while [ ${#todo[@]} -gt 0 ]; do
        lib=${todo[0]}
        todo=("${todo[@]:1}")
        case $seen in *" $lib "*) continue ;; esac
        seen="$seen$lib "
        installed "$lib" && continue
        mkdir "$tmp/lib.$lib"
        deb=$(download "$lib" "$tmp/lib.$lib") || return 1
        dpkg-deb -x "$deb" "$root"
        # shellcheck disable=SC2207 # one package a word
        todo+=($(lib_depends "$deb"))
        rm -rf "$tmp/lib.$lib"
        echo "fetch-peer: $lib unpacked beside it (the host does not have it)"
    done
}

# download PACKAGE DIR: its .deb into DIR; prints the file name.
download() {
    local opt=()
    # As root, apt fetches as _apt, which may not write to DIR: no sandbox then.
    [ "$(id -u)" = 0 ] && opt=(-o APT::Sandbox::User=root)
    if ! (cd "$2" && apt-get "${opt[@]}" download -q "$1" >"$2/download.log" 2>&1); then
        # A fresh machine may have no package lists yet.
        local sudo=
        [ "$(id -u)" = 0 ] || sudo=sudo
        if [ -z "$sudo" ] || command -v sudo >/dev/null; then
            $sudo apt-get update -qq >>"$2/download.log" 2>&1 || true
        fi
        (cd "$2" && apt-get "${opt[@]}" download -q "$1" >>"$2/download.log" 2>&1) || {
            cat "$2/download.log" >&2
            return 1
        }
    fi
    ls "$2"/*.deb
}

# postfix_setup TMPDIR FINALDIR: Postfix's private config directory. Every
# path points into the extracted tree or below FINALDIR; nothing is read from
# or written to /etc/postfix or /var/spool/postfix. mail_owner is nobody (no
# postfix account need exist); Postfix wants default_privs and setgid_group
# to be other IDs, so daemon and a group of a third ID (no setgid file is
# made: the private queue's maildrop is never used).
postfix_setup() {
    local tmp=$1 dir=$2 root=$2/root group="" g gid
    local nogid daemongid
    nogid=$(id -g nobody) daemongid=$(id -g daemon)
    for g in postdrop mail adm; do
        gid=$(getent group "$g" | cut -d: -f3)
        [ -n "$gid" ] && [ "$gid" != "$nogid" ] && [ "$gid" != "$daemongid" ] && [ "$gid" != 0 ] && { group=$g; break; }
    done
    [ -n "$group" ] || { echo "fetch-peer: no group for Postfix's setgid_group (postdrop, mail, adm)" >&2; return 1; }
    # What Debian's postinst makes in /etc/postfix, made in the tree instead.
    local meta=$tmp/root/etc/postfix share=$tmp/root/usr/share/postfix
    mkdir -p "$meta"
    cp "$share/master.cf.dist" "$meta/master.cf.proto"
    cp "$share/main.cf.dist" "$meta/main.cf.proto"
    grep '^#' "$share/dynamicmaps.cf" >"$meta/dynamicmaps.cf"
    mkdir -p "$tmp/conf" "$tmp/data" "$tmp/queue"
    cp "$share/master.cf.dist" "$tmp/conf/master.cf"
    cat >"$tmp/conf/main.cf" <<EOF
# Postfix's private configuration for spoolsim's tests, from scripts/fetch-peer.sh.
# bench/relay.sh copies these lines into its own instance's main.cf.
compatibility_level = 3.6
command_directory = $root/usr/sbin
daemon_directory = $root/usr/lib/postfix/sbin
meta_directory = $root/etc/postfix
shlib_directory = $root/usr/lib/postfix
manpage_directory = $root/usr/share/man
sample_directory = $root/etc/postfix
html_directory = no
readme_directory = no
sendmail_path = $root/usr/sbin/sendmail
newaliases_path = $root/usr/bin/newaliases
mailq_path = $root/usr/bin/mailq
queue_directory = $dir/queue
data_directory = $dir/data
mail_owner = nobody
default_privs = daemon
setgid_group = $group
inet_interfaces = loopback-only
mydestination =
alias_maps =
alias_database =
# postfix(1) cleans its environment: its daemons need the private libraries too.
import_environment = MAIL_CONFIG MAIL_DEBUG MAIL_LOGTAG TZ LANG=C LD_LIBRARY_PATH=$(lib_path "$tmp/root" "$root")
EOF
    # Every wrapper runs with this configuration unless given -c.
    echo "MAIL_CONFIG=$(printf %q "$dir/conf"); export MAIL_CONFIG" >"$tmp/wrapper.env"
}

# fetch PACKAGE: into $PEERS/PACKAGE, replacing an earlier copy only when complete.
fetch() {
    local pkg=$1 dir=$PEERS/$1 tmp deb version libs d f name libpath bad
    if [ -z "$refresh" ] && usable "$dir"; then
        echo "fetch-peer: $pkg $(cat "$dir/version") is in $dir"
        return 0
    fi
    mkdir -p "$PEERS"
    tmp=$(mktemp -d "$PEERS/.fetch-$pkg.XXXXXX")
    # shellcheck disable=SC2064 # expand now: the trap must name this directory
    trap "rm -rf '$tmp'" EXIT
    chmod 755 "$tmp"
    deb=$(download "$pkg" "$tmp") || { echo "fetch-peer: cannot download $pkg" >&2; return 1; }
    version=$(dpkg-deb -f "$deb" Version)
    dpkg-deb -x "$deb" "$tmp/root"
    libs=$(lib_depends "$deb")
    rm -f "$deb" "$tmp/download.log"
    # shellcheck disable=SC2086 # one package a word
    private_libs "$tmp" "$tmp/root" $libs || { echo "fetch-peer: cannot fetch $pkg's libraries" >&2; return 1; }
    : >"$tmp/wrapper.env"
    case $pkg in
    postfix) postfix_setup "$tmp" "$dir" ;;
    esac
    bad=$(unresolved "$tmp/root")
    if [ -n "$bad" ]; then
        echo "fetch-peer: $pkg's programs miss shared libraries:" >&2
        printf "  %s\n" "$bad" >&2
        return 1
    fi
    libpath=$(lib_path "$tmp/root" "$dir/root")
    mkdir "$tmp/bin"
    while IFS= read -r d; do
        for f in "$d"/*; do
            if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
            name=${f##*/}
            {
                echo "#!/bin/sh"
                echo "# $pkg $version's $name, extracted by scripts/fetch-peer.sh"
                [ -n "$libpath" ] && echo "LD_LIBRARY_PATH=$(printf %q "$libpath")\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}; export LD_LIBRARY_PATH"
                cat "$tmp/wrapper.env"
                echo "exec $(printf %q "$dir${f#"$tmp"}") \"\$@\""
            } >"$tmp/bin/$name"
            chmod 755 "$tmp/bin/$name"
        done
    done < <(program_dirs "$tmp/root")
    rm -f "$tmp/wrapper.env"
    echo "$version" >"$tmp/version"
    rm -rf "$dir"
    mv "$tmp" "$dir"
    trap - EXIT
    echo "fetch-peer: $pkg $version extracted into $dir"
}

for pkg; do
    fetch "$pkg"
done
