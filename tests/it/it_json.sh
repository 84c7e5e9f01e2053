#!/bin/bash
# Integration: one JSON vocabulary (docs/json.md). Every program's result
# begins with the same header (schema_version, program, version,
# command_line as given, date, host), names its spool the same way, and
# keeps the conventions: a rate is its count's key + _per_s next to that
# count, a latency has the same eight keys, no key of the old vocabulary
# is left.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

D=$WORK/d && mkdir -p "$D/a" "$D/b" "$D/pm"
start_sink sink --json "$WORK/sink.json" 127.0.0.1:0 100 || { finish; }
# the target first and the options after it: getopt reorders argv, the command line must not be
check "smtp-source" to "$WORK/source.out" timeout 30 "$SOURCE" "127.0.0.1:$sink_PORT" -m 3 \
    --json "$WORK/source.json"
start_relay relay --threads 2 --spool "$D/spool" --next-hop "127.0.0.1:$sink_PORT" --json "$WORK/relay.json"
check "through the relay" to "$WORK/source2.out" timeout 30 "$SOURCE" -m 3 "127.0.0.1:$relay_PORT"
wait_spool_empty "$D/spool" 20
stop "$relay_PID"
stop "$sink_PID"
check "bench" to "$WORK/bench.out" env TMPDIR="$D" timeout 60 "$RELAY" bench -m 20 -s 2 \
    --json "$WORK/bench.json"
check "raw" to "$WORK/raw.out" timeout 60 "$RELAY" raw --spool "$D" -m 20 -w 2 --json "$WORK/raw.json"
printf 'set location %s\nset number 20\nset transactions 40\nset json %s\nrun\nquit\n' \
    "$D/pm" "$WORK/postmark.json" >"$WORK/pm.cmd"
check "postmark" to "$WORK/pm.out" timeout 60 "$RELAY" postmark -q "$WORK/pm.cmd"
check "ab" to "$WORK/ab.out" env TMPDIR="$D" timeout 120 "$RELAY" ab -q -n 2 --warmup-runs 0 \
    --json "$WORK/ab.json" "$D/a" "$D/b" -- raw -m 10 -w 1
check "bench -n" to "$WORK/bench-n.out" env TMPDIR="$D" timeout 120 "$RELAY" bench -n 1 -m 10 -s 2 \
    --json "$WORK/bench-n.json"
check "compare" to "$WORK/compare.out" "$RELAY" compare "$WORK/raw.json" "$WORK/ab.json" \
    "$WORK/bench-n.json" --json "$WORK/compare.json"

expected_version() {
    if [ -e "$top_srcdir/.git" ] && command -v git >/dev/null; then
        git -C "$top_srcdir" describe --tags --dirty 2>/dev/null ||
            echo "$(sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac")-g$(git -C "$top_srcdir" describe --always --dirty)"
    else
        sed -n 's/^AC_INIT(\[[^]]*\], \[\([^]]*\)\].*/\1/p' "$top_srcdir/configure.ac"
    fi
}
VERSION=$(expected_version)

vocabulary() { # file program with-spool command-line-words...
    python3 - "$VERSION" "$(hostname)" "$(getconf _NPROCESSORS_ONLN)" "$(uname -s)" "$@" <<'PY'
import datetime, json, re, sys
version, hostname, cpus, sysname, path, program, spool = sys.argv[1:8]
words = sys.argv[8:]
d = json.load(open(path))
errors = []
def want(cond, what):
    if not cond:
        errors.append(what)
keys = list(d)
want(keys[:6] == ["schema_version", "program", "version", "command_line", "date", "host"],
     f"header keys first, in order: {keys[:6]}")
want(d.get("schema_version") == 1, "schema_version 1")
want(d.get("program") == program, f"program {d.get('program')!r}")
want(d.get("version") == version, f"version {d.get('version')!r}, built from {version!r}")
cl = d.get("command_line")
want(isinstance(cl, list) and all(isinstance(w, str) for w in cl), "command_line a list of strings")
want(cl is not None and cl[-len(words):] == words if words else True,
     f"command_line as given: {cl} ends {words}")
date = d.get("date", "")
want(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", date or "") is not None, f"date {date!r}")
if date:
    when = datetime.datetime.strptime(date, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)
    age = (datetime.datetime.now(datetime.timezone.utc) - when).total_seconds()
    want(-5 < age < 600, f"date {date} is now ({age:.0f} s ago)")
h = d.get("host", {})
want(h.get("name") == hostname, f"host.name {h.get('name')!r}")
want((h.get("kernel") or "").startswith(sysname + " "), f"host.kernel {h.get('kernel')!r}")
want(h.get("cpus") == int(cpus), f"host.cpus {h.get('cpus')}")
want(isinstance(h.get("memory_bytes"), int) and h["memory_bytes"] > 2**20, "host.memory_bytes")
want("cpu_model" in h and "machine" in h, "host.cpu_model and host.machine")
def spool_ok(s, where):
    want(isinstance(s, dict) and set(s) == {"path", "device", "filesystem", "mount_point", "mount_options"},
         f"{where}: the spool object {s}")
    if isinstance(s, dict) and s.get("mount_options"):
        opts = s["mount_options"].split(",")
        want(len(opts) == len(set(opts)), f"{where}: each mount option once: {s['mount_options']}")
        want(s["filesystem"] and s["path"].startswith(s["mount_point"]), f"{where}: {s}")
if spool == "spool":
    spool_ok(d.get("spool"), "spool")
elif spool == "sides":
    for side in ("A", "B"):
        spool_ok(d.get("sides", {}).get(side, {}).get("spool"), f"sides.{side}.spool")
OLD = {"tool", "msgs_per_s", "msgs_per_s_in", "msgs_per_s_out", "end_to_end_ms", "filesystem_type",
       "dir", "fstype", "options"}
NO_COUNT = {"fsync_ceiling_per_s", "spool_loop_ceiling_per_s"}  # ceilings: rates of nothing counted
LATENCY = ["count", "min_ms", "mean_ms", "p50_ms", "p90_ms", "p99_ms", "p99_9_ms", "max_ms",
           "buckets"]
BUCKETS = ["unit", "scheme", "sub_bucket_bits", "count", "min", "max", "sum", "counts"]
def buckets_ok(lat, where):
    b = lat["buckets"]
    want(list(b) == BUCKETS, f"{where}.buckets: {list(b)}")
    want(b["unit"] == "ns" and b["scheme"] == "log-linear", f"{where}.buckets: {b['unit']} {b['scheme']}")
    lows = [c[0] for c in b["counts"]]
    want(lows == sorted(set(lows)), f"{where}.buckets: lower bounds not ascending")
    want(sum(c[1] for c in b["counts"]) == b["count"] == lat["count"], f"{where}.buckets: counts")
    want(b["count"] == 0 or abs(b["max"] / 1e6 - lat["max_ms"]) <= 1e-6 * max(1, lat["max_ms"]),
         f"{where}.buckets: max {b['max']} vs max_ms {lat['max_ms']}")
def walk(o, where):
    if isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, f"{where}.{i}")
        return
    if not isinstance(o, dict):
        return
    for k, v in o.items():
        want(k not in OLD, f"old key {where}.{k}")
        want(k == "" or re.fullmatch(r"[a-z0-9_@ A-Za-z]+", k) is not None, f"key {where}.{k!r}")
        if k.endswith("_per_s") and k not in NO_COUNT:
            want(k[:-len("_per_s")] in o, f"{where}.{k} without its count {k[:-6]}")
        if k == "latency":
            for stage, lat in v.items():
                want(list(lat) == LATENCY, f"{where}.latency.{stage}: {list(lat)}")
                if "buckets" in lat:
                    buckets_ok(lat, f"{where}.latency.{stage}")
        if where == "" and k == "filesystem":
            errors.append("a top-level filesystem object (it is spool.filesystem now)")
        walk(v, f"{where}.{k}" if where else k)
walk(d, "")
if errors:
    print("\n".join("  " + e for e in errors))
    sys.exit(1)
PY
}
check "smtp-source: the vocabulary" vocabulary "$WORK/source.json" smtp-source none \
    "127.0.0.1:$sink_PORT" -m 3 --json "$WORK/source.json"
check "smtp-sink: the vocabulary" vocabulary "$WORK/sink.json" smtp-sink none \
    --json "$WORK/sink.json" 127.0.0.1:0 100
check "relay: the vocabulary" vocabulary "$WORK/relay.json" "spoolsim relay" spool \
    spoolsim relay --listen 127.0.0.1:0 --port-file "$WORK/relay.port" --model none --threads 2 --spool "$D/spool" \
    --next-hop "127.0.0.1:$sink_PORT" --json "$WORK/relay.json"
check "bench: the vocabulary" vocabulary "$WORK/bench.json" "spoolsim bench" spool \
    spoolsim bench -m 20 -s 2 --json "$WORK/bench.json"
check "raw: the vocabulary" vocabulary "$WORK/raw.json" "spoolsim raw" spool \
    spoolsim raw --spool "$D" -m 20 -w 2 --json "$WORK/raw.json"
check "postmark: the vocabulary" vocabulary "$WORK/postmark.json" "spoolsim postmark" spool \
    spoolsim postmark -q "$WORK/pm.cmd"
check "ab: the vocabulary" vocabulary "$WORK/ab.json" "spoolsim ab" sides \
    spoolsim ab -q -n 2 --warmup-runs 0 --json "$WORK/ab.json" "$D/a" "$D/b" -- raw -m 10 -w 1

check "bench -n: the vocabulary" vocabulary "$WORK/bench-n.json" "spoolsim bench" spool \
    spoolsim bench -n 1 -m 10 -s 2 --json "$WORK/bench-n.json"
check "compare: the vocabulary" vocabulary "$WORK/compare.json" "spoolsim compare" none \
    spoolsim compare "$WORK/raw.json" "$WORK/ab.json" "$WORK/bench-n.json" --json "$WORK/compare.json"

check "bench: every parameter" python3 - "$WORK/bench.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
want = {"messages": 20, "duration_s": None, "sessions": 2, "size": "1024", "rcpts": 1, "reuse": False,
        "rate": None, "sync": "fsync", "qmgr": "single", "profile": "postfix",
        "cleanup_threads": None, "concurrency": None, "discard": False, "tls": False,
        "drain_timeout_s": 120}
bad = {k: b.get(k, "missing") for k, v in want.items() if b.get(k, "missing") != v}
assert not bad, bad
PY
check "bench: failures and per-message operations" python3 - "$WORK/bench.json" <<'PY'
import json, sys
b = json.load(open(sys.argv[1]))
assert b["failures"] == {k: 0 for k in ("reply", "connect", "timeout", "disconnect", "protocol", "tls")}, b["failures"]
assert b["failed"] == 0 and b["refused_storage"] == 0 and b["deferrals"] == 0, b
assert b["per_message"] == {"creates": 1, "renames": 2, "unlinks": 1, "fsyncs": 1, "chmods": 1}, b["per_message"]
assert b["latency"]["end_to_end"]["count"] == 20, b["latency"]
PY
check "relay: the spool it ran on" python3 -c "import json,sys; sys.exit(0 if json.load(open('$WORK/relay.json'))['spool']['path'] == '$D/spool' else 1)"
check "ab: read delivered_per_s from each run" python3 -c "import json,sys; d=json.load(open('$WORK/ab.json')); sys.exit(0 if d['metric'] == 'delivered_per_s' and d['sides']['A']['successful_runs'] == 2 else 1)"
finish
