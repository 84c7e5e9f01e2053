#!/bin/bash
# run-parallel.sh - smtp-source on several load hosts at once over SSH (GNU
# parallel), their JSON results collected here, then one merged report
# (spoolsim merge). See docs/multi-host.md.
#
# Usage: run-parallel.sh [-d SECONDS] [-o DIR] HOSTS_FILE TARGET [SMTP-SOURCE OPTIONS...]
#
#   HOSTS_FILE  one SSH login per line (host, user@host); each runs one
#               smtp-source (on its PATH, or SMTP_SOURCE=/path/to/it)
#   TARGET      the relay under test, as smtp-source takes it (host:port)
#   -d SECONDS  start that far in the future (30): time for SSH to reach
#               every host; all start together at that instant (--start-at)
#   -o DIR      where the results go (results.TIMESTAMP): HOST.json each,
#               merged.json and merged.txt
# The options after TARGET go to every smtp-source (for example -m 10000
# -s 20, or --rate 500 --duration 60s): each host offers that much.
# The hosts' clocks must agree (NTP) to well under the run's length.
set -eu -o pipefail

delay=30
dir=""
while getopts d:o: opt; do
    case $opt in
    d) delay=$OPTARG ;;
    o) dir=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ]; then
    sed -n 's/^# \{0,1\}//; 2,/^set/p' "$0" | sed '$d' >&2
    exit 2
fi
hosts=$1
target=$2
shift 2
command -v parallel >/dev/null || { echo "run-parallel.sh: GNU parallel is not installed" >&2; exit 2; }
[ -r "$hosts" ] || { echo "run-parallel.sh: cannot read $hosts" >&2; exit 2; }
case $delay in '' | *[!0-9]*) echo "run-parallel.sh: -d: whole seconds, got \"$delay\"" >&2; exit 2 ;; esac
dir=${dir:-results.$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$dir"

start_at=$(date -u -d "+$delay seconds" +%Y-%m-%dT%H:%M:%SZ)
# One quoted command line for the remote shell: the options as given.
opts=$(printf '%q ' "$@")
remote="${SMTP_SOURCE:-smtp-source} --start-at $start_at --no-summary --no-progress --json - $opts$(printf '%q' "$target")"
echo "run-parallel.sh: $(grep -c . "$hosts") hosts start at $start_at: $remote" >&2

# {} is the SSH login; it is also the host's --id and its file's name.
# Each host's JSON comes back on ssh's standard output, its messages on
# standard error (tagged by parallel).
parallel --jobs 0 --tag --line-buffer --arg-file "$hosts" \
    "ssh -o BatchMode=yes {} '$remote --id {}' >'$dir'/{}.json"
spoolsim merge -o "$dir/merged.json" "$dir"/*.json | tee "$dir/merged.txt"
