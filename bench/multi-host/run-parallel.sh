#!/bin/bash
# run-parallel.sh - smtp-source on several load hosts at once over SSH (GNU
# parallel), their JSON results collected here, then one merged report
# (spoolsim merge). See docs/multi-host.md.
#
# Usage: run-parallel.sh [-d SECONDS] [-o DIR] [-F SSH_CONFIG] [-i IDENTITY] [-p PORT]
#                        HOSTS_FILE TARGET [SMTP-SOURCE OPTIONS...]
#
#   HOSTS_FILE  one SSH login per line (host, user@host; blank lines and
#               lines starting with # are skipped); each runs one
#               smtp-source (on its PATH, or SMTP_SOURCE=/path/to/it)
#               and is its --id and its result's file name, so letters,
#               digits and . _ - @ : only (not - first), each login once
#   TARGET      the relay under test, as smtp-source takes it (host:port)
#   -d SECONDS  start at least that far in the future (30): time for SSH
#               to reach every host; all start together then (--start-at)
#   -o DIR      where the results go (results.TIMESTAMP): HOST.json each,
#               merged.json and merged.txt
#   -F FILE     ssh's configuration file instead of ~/.ssh/config (ssh -F):
#               per-host ports, users, keys, known hosts
#   -i FILE     the private key to log in with (ssh -i)
#   -p PORT     the hosts' SSH port (ssh -p)
# The options after TARGET go to every smtp-source (for example -m 10000
# -s 20, or --rate 500 --duration 60s): each host offers that much.
# SSH runs with BatchMode=yes: keys only, and each host's key already in
# known_hosts. The hosts' clocks must agree (NTP) to well under the run's
# length. spoolsim merge runs here (spoolsim on PATH, or SPOOLSIM=/path).
# Exit status: 0, 1 when a host's run failed (no merge then), 2 on a usage error.
set -eu -o pipefail

die() {
    echo "run-parallel.sh: $*" >&2
    exit 2
}
delay=30
dir=""
ssh_opts=(-n -o BatchMode=yes)
while getopts d:o:F:i:p: opt; do
    case $opt in
    d) delay=$OPTARG ;;
    o) dir=$OPTARG ;;
    F) ssh_opts+=(-F "$OPTARG") ;;
    i) ssh_opts+=(-i "$OPTARG") ;;
    p) ssh_opts+=(-p "$OPTARG") ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    sed -n 's/^# \{0,1\}//; 2,/^set/p' "$0" | sed '$d' >&2
    exit 2
fi
hosts_file=$1
target=$2
shift 2
command -v parallel >/dev/null || die "GNU parallel is not installed"
[ -r "$hosts_file" ] || die "cannot read $hosts_file"
case $delay in '' | *[!0-9]*) die "-d: whole seconds, got \"$delay\"" ;; esac

# The logins, checked before anything starts: each names a file here and an
# --id in the merge, which refuses the same one twice.
hosts=()
while IFS= read -r line || [ -n "$line" ]; do
    line=${line#"${line%%[![:space:]]*}"} # blanks around it (a \r too) are no part of it
    line=${line%"${line##*[![:space:]]}"}
    case $line in '' | '#'*) continue ;; esac
    # (not starting with -, which ssh would take for an option)
    [[ $line =~ ^[A-Za-z0-9:][A-Za-z0-9._@:-]*$ ]] ||
        die "$hosts_file: not a login of letters, digits and . _ - @ : only: \"$line\""
    for h in "${hosts[@]}"; do
        [ "$h" != "$line" ] || die "$hosts_file: $line is there twice"
    done
    hosts+=("$line")
done <"$hosts_file"
[ ${#hosts[@]} -gt 0 ] || die "$hosts_file: no hosts"

dir=${dir:-results.$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$dir"
# The first whole second at least -d ahead (--start-at takes whole seconds
# here: date -d "+N seconds" would drop the fraction, and give less).
now_ns=$(date +%s%N)
start_at=$(date -u -d "@$(((now_ns + delay * 1000000000 + 999999999) / 1000000000))" +%Y-%m-%dT%H:%M:%SZ)
# The command line the remote shell gets, every word quoted for it; the
# login, appended as --id, is safe as it is (checked above).
remote=$(printf '%q ' "${SMTP_SOURCE:-smtp-source}" --start-at "$start_at" --no-summary --no-progress \
    --json - "$@" "$target" --id)
echo "run-parallel.sh: ${#hosts[@]} hosts start at $start_at: $remote" >&2

# parallel's shell runs this line with {} replaced by the login: each host's
# JSON comes back on ssh's standard output into DIR/LOGIN.json, its messages
# on standard error, tagged with the login by parallel.
st=0
parallel --jobs 0 --tag --line-buffer \
    "$(printf '%q ' ssh "${ssh_opts[@]}") {} $(printf %q "$remote"){} >$(printf %q "$dir")/{}.json" \
    ::: "${hosts[@]}" || st=$?
# parallel's exit status is the number of jobs that failed, or above 100 its own error.
if [ $st -gt ${#hosts[@]} ]; then
    echo "run-parallel.sh: GNU parallel failed (exit status $st); not merged" >&2
    exit 1
elif [ $st != 0 ]; then
    echo "run-parallel.sh: $st of ${#hosts[@]} hosts failed (their messages above, tagged); not merged" >&2
    exit 1
fi
# This run's files only: DIR may hold an earlier run's.
files=()
for h in "${hosts[@]}"; do files+=("$dir/$h.json"); done
"${SPOOLSIM:-spoolsim}" merge -o "$dir/merged.json" "${files[@]}" | tee "$dir/merged.txt"
