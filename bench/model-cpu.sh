#!/bin/bash
# model-cpu.sh - the relay's CPU per message under a cost model, on tmpfs,
# optionally on a host whose system calls are made dearer.
#
# Usage: bench/model-cpu.sh MODEL [TAX]
#   MODEL  what `spoolsim relay --model' takes (postfix, none or a file)
#   TAX    bench/syscall-tax.py's -n (0 or absent: none)
# Prints "CPU-us-per-message system-calls-made-per-message": the relay's
# threads' own CPU (its JSON's cpu_s), the difference of a 2,300- and a
# 300-message run of 20 sessions of 1 KiB relayed to smtp-sink, so that
# starting and stopping cancel out. To compare with what a real Postfix
# spends there: the sum of its classes in `spoolsim calibrate postfix -o
# FILE` run the same way (docs/fidelity.md, "Postfix's system calls, made
# for real"). After `make`; no root needed.
set -eu
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
    echo "usage: $0 MODEL [TAX]" >&2
    exit 2
fi
ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODEL=$1 TAX=${2:-0}
[[ $TAX =~ ^[0-9]+$ ]] || { echo "$0: TAX is a count of instructions" >&2; exit 2; }
W=$(mktemp -d "${TMPDIR:-/tmp}/model-cpu.XXXXXX")
SP=
trap '[ -n "$SP" ] && kill "$SP" 2>/dev/null; umount "$W" 2>/dev/null; rm -rf "$W"' EXIT
pre=()
[ "$TAX" != 0 ] && pre=(python3 "$ROOT/bench/syscall-tax.py" -n "$TAX")
mount -t tmpfs tmpfs "$W" 2>/dev/null || true # as root: the spool on tmpfs, as calibrate's
"$ROOT/smtp-sink/smtp-sink" --port-file "$W/sink.port" 127.0.0.1:0 200 >/dev/null 2>&1 &
SP=$!
for _ in $(seq 50); do [ -s "$W/sink.port" ] && break; sleep 0.1; done
run() { # N: prints "cpu_s syscalls_made"
    local n=$1 d=$W/r$1 rp
    mkdir "$d"
    "${pre[@]}" "$ROOT/spoolsim/spoolsim" relay --listen 127.0.0.1:0 --port-file "$d/port" \
        --spool "$d/spool" --model "$MODEL" --next-hop "127.0.0.1:$(cat "$W/sink.port")" \
        --json "$d/r.json" 2>"$d/err" &
    rp=$!
    for _ in $(seq 300); do [ -s "$d/port" ] && break; sleep 0.1; done
    "${pre[@]}" "$ROOT/smtp-source/smtp-source" -s 20 -m "$n" -l 1024 "127.0.0.1:$(cat "$d/port")" >/dev/null 2>&1
    for _ in $(seq 300); do
        [ -z "$(ls "$d/spool/incoming" "$d/spool/active" "$d/spool/deferred" 2>/dev/null)" ] && break
        sleep 0.1
    done
    kill "$rp"
    wait "$rp" || true
    python3 - "$d/r.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c, m = d["cpu_s"], d["model"]
print(c["loop"] + c["cleanup"] + c["qmgr"] + c.get("daemons", 0), m.get("syscalls_made", 0) if isinstance(m, dict) else 0)
PY
}
read -r a sa <<<"$(run 300)"
read -r b sb <<<"$(run 2300)"
python3 -c "print(round(($b - $a) / 2000 * 1e6), round(($sb - $sa) / 2000))"
