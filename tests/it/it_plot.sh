#!/bin/bash
# Integration: spoolsim plot draws each kind of picture from real runs. A
# short raw and bench run (--json) give timelines and latency histograms,
# a short ab run gives A/B bars, two short sweeps (a relay of --model
# none, and one slowed to a few dozen messages per second so that a step
# fails) give the sweep picture. Each picture, PNG, PDF or SVG as -o's
# name or --format says, must be one its readers take (a PNG of the
# picture's size, a PDF, an SVG that parses), and its shapes (as
# tests/unit/plot_shapes draws them from the same files) must hold the
# series the result holds: one line per series, its points from the
# result's rows, a dot per run or step, the knee, the axis labels. Bad
# input (not JSON, nothing to plot, a sweep without steps or with another
# kind of result, an unwritable -o, an unknown --kind or --format, a
# name of no format) is exit 2 with a message and no output file.
. "${top_srcdir:-.}/tests/helpers/lib.sh"

S="$(cd "$top_builddir" && pwd)/spoolsim/spoolsim" # absolute: one check runs in another directory
SHAPES="$(cd "$top_builddir" && pwd)/tests/unit/plot_shapes"
W=$WORK
[ -x "$SHAPES" ] || { echo "FAIL: no $SHAPES (make check builds it; or make tests/unit/plot_shapes)"; exit 1; }

# shapes NAME [--kind K] [--title T] RESULT...: what plot draws of the
# results, into $W/out/NAME.shapes, for shapes_ok.
shapes() {
    local name=$1
    shift
    "$SHAPES" "$@" >"$W/out/$name.shapes"
}

# shapes_ok SHAPES EXPECTATION...: the shapes meet each expectation:
#   class=N        N shapes of that class          title=TEXT  a series titled TEXT
#   text=TEXT      a text reading TEXT             notext=TEXT no text reading TEXT
#   hastext=TEXT   a text that holds TEXT
#   points=TITLE:N the series TITLE has N points   rising=TITLE its points never go down
#   peak=TITLE:I   the series' highest point is its point I (from 0)
shapes_ok() {
    python3 - "$@" <<'PY'
import json, sys
path, wants = sys.argv[1], sys.argv[2:]
try:
    shapes = [json.loads(line) for line in open(path, encoding="utf-8")][1:]
except Exception as e:
    sys.exit(f"{path}: not what plot_shapes writes: {e}")
errors = []
texts = [s["text"] for s in shapes if s["shape"] == "text"]
series = {s["title"]: [tuple(p) for p in s["points"]] for s in shapes
          if s["shape"] == "path" and s["cls"] == "series"}
def count(cls):
    return sum(1 for s in shapes if cls in s["cls"].split())
for w in wants:
    key, _, val = w.partition("=")
    if key == "class":
        cls, n = val.rsplit(":", 1)
        if count(cls) != int(n):
            errors.append(f"{count(cls)} shapes of class {cls}, want {n}")
    elif key == "title":
        if val not in series:
            errors.append(f"no series {val!r} (have {sorted(series)})")
    elif key == "text":
        if val not in texts:
            errors.append(f"no text {val!r}")
    elif key == "hastext":
        if not any(val in t for t in texts):
            errors.append(f"no text holds {val!r}")
    elif key == "notext":
        if val in texts:
            errors.append(f"text {val!r} is there")
    elif key == "points":
        name, n = val.rsplit(":", 1)
        got = len(series.get(name, []))
        if got != int(n):
            errors.append(f"series {name!r} has {got} points, want {n}")
    elif key == "rising":
        ys = [y for _, y in series.get(val, [])]
        # y grows downwards: a rising latency has falling y.
        if not ys or any(b > a + 1e-6 for a, b in zip(ys, ys[1:])):
            errors.append(f"series {val!r} goes down")
    elif key == "peak":
        name, i = val.rsplit(":", 1)
        ys = [y for _, y in series.get(name, [])]
        top = min(ys) if ys else None
        if not ys or abs(ys[int(i)] - top) > 1e-6:
            errors.append(f"series {name!r}: its highest point is not point {i}")
    else:
        errors.append(f"unknown expectation {w}")
for e in errors:
    print(f"  {path}: {e}")
sys.exit(1 if errors else 0)
PY
}

# picture_ok FILE FORMAT [WIDTH]: FILE is a whole picture of that format as
# its readers know it: a PNG's signature, its IHDR chunk (WIDTH px wide if
# given, some px high) and its IEND; a PDF's header and end; an SVG that
# parses as XML with an <svg> root. It prints what it found.
picture_ok() {
    python3 - "$@" <<'PY'
import struct, sys, xml.etree.ElementTree as ET
path, fmt = sys.argv[1], sys.argv[2]
width = int(sys.argv[3]) if len(sys.argv) > 3 else None
data = open(path, "rb").read()
if not data:
    sys.exit(f"{path}: empty")
if fmt == "png":
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"{path}: no PNG signature")
    length, kind, w, h = struct.unpack(">I4sII", data[8:24])
    if kind != b"IHDR" or length != 13:
        sys.exit(f"{path}: no IHDR chunk first")
    if (width is not None and w != width) or h <= 0:
        sys.exit(f"{path}: {w} x {h} px, want {width} wide")
    if data[-8:-4] != b"IEND":
        sys.exit(f"{path}: cut short (no IEND)")
    print(f"{path}: PNG {w} x {h} px, {len(data)} bytes")
elif fmt == "pdf":
    if not data.startswith(b"%PDF-") or b"%%EOF" not in data[-32:]:
        sys.exit(f"{path}: not a whole PDF")
    print(f"{path}: PDF, {len(data)} bytes")
elif fmt == "svg":
    try:
        root = ET.fromstring(data)
    except Exception as e:
        sys.exit(f"{path}: not XML: {e}")
    if root.tag != "{http://www.w3.org/2000/svg}svg":
        sys.exit(f"{path}: root is {root.tag}")
    print(f"{path}: SVG, {len(data)} bytes")
else:
    sys.exit(f"unknown format {fmt}")
PY
}

# py EXPR FILE: a value computed from a JSON result (d is the document).
py() {
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($1)" "$2"
}

# fails_cleanly WHAT PATTERN OUTPUT COMMAND...: exit 2, PATTERN in stderr, OUTPUT not made.
# Each one's stderr is kept, so that finish() sees any sanitizer report in it.
FAILS=0
fails_cleanly() {
    local pattern=$1 output=$2 status err
    shift 2
    FAILS=$((FAILS + 1))
    err="$W/fail.$FAILS.err"
    "$@" >"$W/fail.out" 2>"$err"
    status=$?
    [ "$status" = 2 ] || { echo "  exit $status, want 2"; cat "$err"; return 1; }
    grep -q -e "$pattern" "$err" || { echo "  stderr lacks $pattern:"; cat "$err"; return 1; }
    [ ! -e "$output" ] || { echo "  $output was made"; return 1; }
    ! ls "$(dirname "$output")" 2>/dev/null | grep -q '\.\(svg\|png\|pdf\)\.' || { echo "  a temporary file is left"; return 1; }
}

mkdir -p "$W/rawdir" "$W/a" "$W/b" "$W/out"
check "raw run with --json" to "$W/raw.log" timeout 60 "$S" raw --spool "$W/rawdir" -d 2s --interval 250ms -q --json "$W/raw.json"
check "bench run with --json" to "$W/bench.log" timeout 120 "$S" bench -d 2s --interval 250ms -q --json "$W/bench.json"
check "ab -n 3 run with --json" to "$W/ab.log" timeout 120 "$S" ab -n 3 --warmup-runs 0 -q --json "$W/ab.json" "$W/a" "$W/b" -- raw -m 200
mkdir -p "$W/sweeptmp"
check "sweep of a relay (--model none), two steps" to "$W/sweep_none.log" env TMPDIR="$W/sweeptmp" \
    timeout 60 "$S" sweep -q --rates 20,60 --warmup 0.2s --window 0.5s --json "$W/none.json" -- --model none
# One delivery connection to a sink that takes 30 ms a message: about 30 messages/s, so 200 fails.
check "sweep of a slowed relay, three steps" to "$W/sweep_slow.log" env TMPDIR="$W/sweeptmp" \
    timeout 60 "$S" sweep -q --rates 10,200,40 --warmup 0.2s --window 0.5s --slo 500ms \
    --sink-delay 30ms --json "$W/slow.json" -- --model none --concurrency 1
# A rate run twice, as a repeatability check does.
check "sweep of a relay, one rate twice" to "$W/sweep_twice.log" env TMPDIR="$W/sweeptmp" \
    timeout 60 "$S" sweep -q --rates 20,20 --warmup 0.2s --window 0.5s --json "$W/twice.json" -- --model none

# --- timeline
rows=$(py 'len(d["timeline"])' "$W/raw.json")
peak=$(py 'max(range(len(d["timeline"])), key=lambda i: d["timeline"][i]["messages_in_per_s"])' "$W/raw.json")
check "timeline of raw: written as PNG" to "$W/t.log" "$S" plot --kind timeline "$W/raw.json" -o "$W/out/t_raw.png"
check "timeline of raw: a PNG 960 px wide" picture_ok "$W/out/t_raw.png" png 960
check "timeline of raw: its shapes" shapes t_raw --kind timeline "$W/raw.json"
check "timeline of raw: in and out, a point per row, the peak where the result has it, no depth panel" \
    shapes_ok "$W/out/t_raw.shapes" class=series:2 "title=messages in/s" "title=messages out/s" \
    "points=messages in/s:$rows" "points=messages out/s:$rows" "peak=messages in/s:$peak" \
    text=Throughput "text=messages/s" "text=time since the start (s)" "notext=Queue depth" \
    "text=raw — spoolsim raw"
rows=$(py 'len(d["timeline"])' "$W/bench.json")
check "timeline of bench: written as PDF" to "$W/t.log" "$S" plot --kind timeline "$W/bench.json" -o "$W/out/t_bench.pdf"
check "timeline of bench: a PDF" picture_ok "$W/out/t_bench.pdf" pdf
check "timeline of bench: its shapes" shapes t_bench --kind timeline "$W/bench.json"
check "timeline of bench: in, out and the three queue depths in a second panel" \
    shapes_ok "$W/out/t_bench.shapes" class=series:5 title=incoming title=active title=deferred \
    "points=incoming:$rows" "text=Queue depth" "text=messages queued"

# --- latency
stages=$(py 'sum(1 for v in d["latency"].values() if v["count"])' "$W/raw.json")
first=$(py 'next(k for k, v in d["latency"].items() if v["count"])' "$W/raw.json")
check "raw has latency stages with values" test "$stages" -ge 2
check "latency of raw: written as SVG" to "$W/l.log" "$S" plot --kind latency "$W/raw.json" -o "$W/out/l_raw.svg"
check "latency of raw: an SVG" picture_ok "$W/out/l_raw.svg" svg
check "latency of raw: its shapes" shapes l_raw --kind latency "$W/raw.json"
check "latency of raw: a rising curve per stage, the percentile axis labelled" \
    shapes_ok "$W/out/l_raw.shapes" class=series:$stages "title=$first" "rising=$first" \
    "text=50 %" "text=90 %" "text=99 %" "text=Latency by percentile"
check "latency of raw and bench overlaid: every stage of each, named by result" \
    sh -c "'$S' plot --kind latency '$W/raw.json' '$W/bench.json' -o '$W/out/l_both.png' >/dev/null"
check "latency overlay: a PNG" picture_ok "$W/out/l_both.png" png 960
check "latency overlay: its shapes" shapes l_both --kind latency "$W/raw.json" "$W/bench.json"
check "latency overlay holds $((stages + 1)) curves" \
    shapes_ok "$W/out/l_both.shapes" class=series:$((stages + 1)) "title=bench: end_to_end" "title=raw: $first" \
    "text=2 results: raw, bench"

# --- A/B
good=$(py 'sum(1 for s in "AB" for r in d["sides"][s]["runs"] if r is not None)' "$W/ab.json")
verdict=$(py 'd["verdict"]' "$W/ab.json")
check "ab: written as PNG" to "$W/ab_plot.log" "$S" plot "$W/ab.json" -o "$W/out/ab.png"
check "ab: a PNG" picture_ok "$W/out/ab.png" png 960
check "ab: its shapes" shapes ab "$W/ab.json"
check "ab: two bars, three error bars (A, B, the ratio), a dot per run ($good), the verdict" \
    shapes_ok "$W/out/ab.shapes" class=bar:2 class=errorbar:3 class=run:$good class=ratio:1 \
    class=series:0 "text=$verdict" "text=msgs/s (delivered_per_s)" "text=ratio B/A" text=A text=B

# --- sweep
NONE="relay --model none"
SLOW="relay --model none --concurrency 1, sink delay 30 ms"
sweep_counts() { # the steps, held, failed, and 1 if it has a knee, of a sweep result
    py '" ".join(map(str, (len(d["steps"]), sum(s["held"] for s in d["steps"]), sum(not s["held"] for s in d["steps"]), int(d["knee_per_s"] is not None))))' "$1"
}
read -r n_none held_none failed_none knee_none <<<"$(sweep_counts "$W/none.json")"
read -r n_slow held_slow failed_slow knee_slow <<<"$(sweep_counts "$W/slow.json")"
check "the slowed relay failed its 200 msgs/s step" test "$(py '[s["held"] for s in d["steps"] if s["offered_per_s"] == 200][0]' "$W/slow.json")" = False
check "sweep: written as PNG" to "$W/sw.log" "$S" plot "$W/none.json" -o "$W/out/sweep.png"
check "sweep: says what it drew" grep -q "sweep.png: sweep of 1 result$" "$W/sw.log"
check "sweep: a PNG" picture_ok "$W/out/sweep.png" png 960
check "sweep: its shapes" shapes sweep "$W/none.json"
check "sweep: delivered, p50, p99 and p99.9, a point per step, a mark per step, y = x, the SLO" \
    shapes_ok "$W/out/sweep.shapes" class=series:4 "points=$NONE: delivered:$n_none" \
    "points=$NONE: p50:$n_none" "points=$NONE: p99:$n_none" "points=$NONE: p99.9:$n_none" \
    class=step:$n_none "class=held:$held_none" "class=failed:$failed_none" class=knee:$knee_none \
    class=reference:1 class=slo:1 "text=$NONE" "text=SLO: p99 ≤ 2000 ms" \
    "text=Delivered against offered load" "text=Client latency from the intended send time" \
    "text=offered (messages/s)" "text=latency (log scale)" "text=1 s" "text=none — spoolsim sweep"
verdict=$(py '("knee %g msgs/s" % d["knee_per_s"]) if d["knee_per_s"] else "no step held"' "$W/slow.json")
broke=$(py '"broke at %g msgs/s (step %d): %s" % next((d["broke_per_s"], i + 1, s["reason_text"]) for i, s in enumerate(d["steps"]) if s["offered_per_s"] == d["broke_per_s"])' "$W/slow.json")
check "two sweeps compared: written as PDF" to "$W/sw2.log" "$S" plot --kind sweep "$W/none.json" "$W/slow.json" -o "$W/out/sweeps.pdf"
check "two sweeps: a PDF" picture_ok "$W/out/sweeps.pdf" pdf
check "two sweeps: their shapes" shapes sweeps --kind sweep "$W/none.json" "$W/slow.json"
check "two sweeps: a series of each, named from the result, every step marked, each knee, the failure said" \
    shapes_ok "$W/out/sweeps.shapes" class=series:8 "points=$NONE: delivered:$n_none" \
    "points=$SLOW: delivered:$n_slow" "title=$SLOW: p99" class=step:$((n_none + n_slow)) \
    "class=failed:$((failed_none + failed_slow))" class=knee:$((knee_none + knee_slow)) \
    class=slo:2 "text=SLO: p99 ≤ 500 ms" "text=$NONE" "text=$SLOW" \
    "hastext=$SLOW: $verdict" "hastext=$broke" "text=2 results: none, slow"
check "two sweeps: the slowed relay's delivered line rises left to right, in order of offered rate" \
    python3 -c "
import json, sys
for s in map(json.loads, open(sys.argv[1], encoding='utf-8')):
    if s.get('shape') == 'path' and s['title'] == sys.argv[2]:
        xs = [x for x, _ in s['points']]
        sys.exit(0 if len(xs) == 3 and xs == sorted(xs) else 1)
sys.exit(1)" "$W/out/sweeps.shapes" "$SLOW: delivered"
cp "$W/none.json" "$W/out/again.json"
check "two sweeps of one command line: told apart by their files" \
    sh -c "'$S' plot '$W/none.json' '$W/out/again.json' -o '$W/out/same.svg' >/dev/null"
check "two sweeps of one command line: an SVG" picture_ok "$W/out/same.svg" svg
check "two sweeps of one command line: their shapes" shapes same "$W/none.json" "$W/out/again.json"
check "two sweeps of one command line: both labels in the legend" \
    shapes_ok "$W/out/same.shapes" "text=$NONE (none)" "text=$NONE (again)" "title=$NONE (again): delivered"

# Rates run again: a mark per step, the line through each rate's median
# (a point per rate), one ring and one label for the knee however often its
# rate held. The real sweep of 20,20; then three held steps at the knee
# and two failed at the rate that broke it, in the shape sweep writes, so
# that the knee has repeats whatever this machine managed.
read -r n_twice held_twice failed_twice knee_twice <<<"$(sweep_counts "$W/twice.json")"
check "a sweep of one rate twice: written (sanitizer build: no report)" \
    to "$W/twice_plot.log" "$S" plot "$W/twice.json" -o "$W/out/twice.png"
check "a sweep of one rate twice: its shapes" shapes twice "$W/twice.json"
check "a sweep of one rate twice: a point per rate, a mark per step, the knee ringed once" \
    shapes_ok "$W/out/twice.shapes" class=series:4 "points=$NONE: delivered:1" "points=$NONE: p99:1" \
    class=step:$n_twice "class=held:$held_twice" "class=failed:$failed_twice" class=knee:$knee_twice \
    class=knee-label:$knee_twice
python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
# the real step at 20/s, held whatever this machine managed (a busy one may not)
held = dict([s for s in d['steps'] if s['offered_per_s'] == 20][0], held=True, reason='held', reason_text='held')
broke = dict(held, offered_per_s=40, delivered_per_s=30, held=False, reason='fell_behind', reason_text='delivered 75 % of offered (under 99 %)')
d['steps'] = [held, dict(held), broke, dict(held, delivered_per_s=19.5), dict(broke)]
d['knee_per_s'], d['broke_per_s'] = 20, 40
json.dump(d, open(sys.argv[2], 'w'))" "$W/none.json" "$W/repeats.json"
check "a sweep with the knee's rate held three times: written (sanitizer build: no report)" \
    to "$W/repeats.log" "$S" plot "$W/repeats.json" -o "$W/out/repeats.pdf"
check "its shapes" shapes repeats "$W/repeats.json"
check "its picture: two points a line, five marks, one knee ring and label, the failure said" \
    shapes_ok "$W/out/repeats.shapes" class=series:4 "points=$NONE: delivered:2" "points=$NONE: p50:2" \
    class=step:5 class=held:3 class=failed:2 class=knee:1 class=knee-label:1 "text=knee 20/s" \
    "hastext=broke at 40 msgs/s (step 3): delivered 75 % of offered"

python3 -c "import json,sys; d=json.load(open(sys.argv[1])); [s.update(p50_ms=5e-324) for s in d['steps']]; json.dump(d, open(sys.argv[2],'w'))" \
    "$W/none.json" "$W/subnormal.json"
check "a subnormal p50 (5e-324 ms): plotted, sane tick labels (sanitizer build: no report)" \
    to "$W/subnormal.log" "$S" plot "$W/subnormal.json" -o "$W/out/subnormal.png"
check "a subnormal p50: a PNG" picture_ok "$W/out/subnormal.png" png 960
check "a subnormal p50: its shapes" shapes subnormal "$W/subnormal.json"
check "a subnormal p50: no tick label longer than 17 characters" python3 -c "
import json, sys
texts = [s['text'] for s in map(json.loads, open(sys.argv[1], encoding='utf-8')) if s.get('shape') == 'text']
sys.exit(0 if texts and not any(len(x) > 17 and x[0].isdigit() for x in texts) else 1)" "$W/out/subnormal.shapes"

# --- auto, the default output name, --format, standard output, a label
cp "$W/raw.json" "$W/out/r.json"
check "auto: r.json -> r.svg" sh -c "cd '$W/out' && '$S' plot r.json >'$W/auto.out' && test -s r.svg"
check "auto: says what it drew" grep -q "^r.svg: timeline of 1 result, latency ($stages curves)" "$W/auto.out"
check "auto: an SVG" picture_ok "$W/out/r.svg" svg
check "auto: its shapes" shapes r "$W/out/r.json"
check "auto on raw: the timeline and the latency both" \
    shapes_ok "$W/out/r.shapes" class=series:$((2 + stages)) text=Throughput "text=Latency by percentile"
check "--format pdf: r.json -> r.pdf" sh -c "cd '$W/out' && '$S' plot --format pdf r.json >/dev/null"
check "--format pdf: a PDF" picture_ok "$W/out/r.pdf" pdf
check "--format png, a name of no suffix: a PNG" \
    sh -c "'$S' plot --format PNG '$W/raw.json' -o '$W/out/picture' >/dev/null"
check "  ... it is one" picture_ok "$W/out/picture" png 960
check "-o -: the SVG on standard output" sh -c "'$S' plot --kind ab '$W/ab.json' -o - >'$W/out/stdout.svg'"
check "-o -: it parses" picture_ok "$W/out/stdout.svg" svg
check "-o - --format png: the PNG on standard output" \
    sh -c "'$S' plot --kind ab --format png '$W/ab.json' -o - >'$W/out/stdout.png'"
check "-o - --format png: it is one" picture_ok "$W/out/stdout.png" png 960
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['label']='my run'; json.dump(d, open(sys.argv[2],'w'))" \
    "$W/raw.json" "$W/out/labelled.json"
check "a result's label names it in the legend, --title titles the picture" \
    sh -c "'$S' plot --kind timeline --title 'A & B <test>' '$W/out/labelled.json' '$W/bench.json' -o '$W/out/lab.svg' >/dev/null"
check "labelled overlay: an SVG" picture_ok "$W/out/lab.svg" svg
check "labelled overlay: its shapes" shapes lab --kind timeline --title 'A & B <test>' "$W/out/labelled.json" "$W/bench.json"
check "labelled overlay: my run and bench, 2 + 2 + 3 series" \
    shapes_ok "$W/out/lab.shapes" class=series:7 "title=my run: in/s" "title=bench: active" "text=A & B <test>"
check "no temporary file left beside the pictures" sh -c "! ls '$W/out' | grep -q '\.\(svg\|png\|pdf\)\.'"
# scripts/test.sh installs it: under SPOOLSIM_REQUIRE_PEERS=1 (CI) its
# absence is a failure, not a skip. cairo's SVG, read by another renderer.
if have_peer "rsvg-convert (the rendering check)" \
    "scripts/install-deps.sh --test installs librsvg2-bin" command -v rsvg-convert; then
    for f in l_raw same r lab; do
        check "rsvg-convert renders $f.svg" rsvg-convert -o "$W/out/$f.rsvg.png" "$W/out/$f.svg"
    done
fi

# --- bad input: exit 2, a message naming the problem, no output file
echo "hello" >"$W/notjson.json"
check "not JSON: exit 2, no picture" fails_cleanly "notjson.json: not a JSON result" "$W/out/x1.svg" \
    "$S" plot "$W/notjson.json" -o "$W/out/x1.svg"
head -c 300 "$W/raw.json" >"$W/cut.json"
check "a result cut short: exit 2" fails_cleanly "cut.json: not a JSON result" "$W/out/x2.svg" \
    "$S" plot "$W/cut.json" -o "$W/out/x2.svg"
echo '{"schema_version": 1, "program": "spoolsim raw", "delivered": 5}' >"$W/empty.json"
check "nothing to plot: exit 2" fails_cleanly "empty.json: nothing to plot" "$W/out/x3.svg" \
    "$S" plot "$W/empty.json" -o "$W/out/x3.svg"
check "--kind timeline of an ab result: exit 2" fails_cleanly "ab.json: no timeline to plot" "$W/out/x4.svg" \
    "$S" plot --kind timeline "$W/ab.json" -o "$W/out/x4.svg"
check "--kind ab of a raw result: exit 2" fails_cleanly "raw.json: no A/B comparison to plot" "$W/out/x5.svg" \
    "$S" plot --kind ab "$W/raw.json" -o "$W/out/x5.svg"
check "one good result and one bad: exit 2, no picture" fails_cleanly "empty.json: nothing to plot" "$W/out/x6.svg" \
    "$S" plot "$W/raw.json" "$W/empty.json" -o "$W/out/x6.svg"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['steps']=[]; json.dump(d, open(sys.argv[2],'w'))" \
    "$W/none.json" "$W/nosteps.json"
check "a sweep with no steps: exit 2" fails_cleanly "nosteps.json: no sweep to plot: a sweep with no steps" \
    "$W/out/x11.svg" "$S" plot "$W/nosteps.json" -o "$W/out/x11.svg"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['steps']=[dict(d['steps'][0], offered_per_s=i + 1) for i in range(3000)]; json.dump(d, open(sys.argv[2],'w'))" \
    "$W/none.json" "$W/many.json"
check "a sweep of 3000 steps (more than any sweep runs): exit 2 at once" fails_cleanly \
    "many.json: no sweep to plot: a sweep of 3000 steps: no sweep runs more than 64" \
    "$W/out/x16.svg" timeout 20 "$S" plot "$W/many.json" -o "$W/out/x16.svg"
check "a sweep with a raw result: exit 2" fails_cleanly "none.json is a sweep and .*raw.json is not" \
    "$W/out/x12.svg" "$S" plot "$W/none.json" "$W/raw.json" -o "$W/out/x12.svg"
check "a raw result with a sweep: exit 2" fails_cleanly "none.json is a sweep and .*raw.json is not" \
    "$W/out/x13.svg" "$S" plot "$W/raw.json" "$W/none.json" -o "$W/out/x13.svg"
check "--kind sweep of a raw result: exit 2" fails_cleanly "raw.json: no sweep to plot" "$W/out/x14.svg" \
    "$S" plot --kind sweep "$W/none.json" "$W/raw.json" -o "$W/out/x14.svg"
check "--kind timeline of a sweep: exit 2" fails_cleanly "none.json: no timeline to plot" "$W/out/x15.svg" \
    "$S" plot --kind timeline "$W/none.json" -o "$W/out/x15.svg"
# A schema_version this reader does not know, a seed ab does not take, a
# figure too large for an axis: each named, not drawn (the seed's cast and
# the ticks of such figures were undefined: UBSan, "-nanM").
edit() { # EXPR SRC DST: DST is SRC's result after the Python statement EXPR on d
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1; json.dump(d, open(sys.argv[2],'w'))" "$2" "$3"
}
n=20
for case in "del d['schema_version']|no schema_version" "d['schema_version']=0|schema_version 0: not one this program reads (1)" \
    "d['schema_version']=-1|schema_version -1: not one" "d['schema_version']='1'|schema_version is not a number" \
    "d['schema_version']=2|schema_version 2: not one"; do
    n=$((n + 1))
    edit "${case%%|*}" "$W/raw.json" "$W/schema$n.json"
    check "${case%%|*}: exit 2" fails_cleanly "schema$n.json: ${case#*|}" "$W/out/x$n.svg" \
        "$S" plot "$W/schema$n.json" -o "$W/out/x$n.svg"
done
for case in "d['seed']=-1|seed -1: not a seed spoolsim ab takes" "d['seed']=1e300|seed 1e+300: not a seed" \
    "d['seed']='x'|seed is not a number" "d['sides']['A']['runs'][0]=1e308|sides.A.runs.0 1e+308 is out of range" \
    "d['ci_low']=-1e308|ci_low -1e+308 is out of range"; do
    n=$((n + 1))
    edit "${case%%|*}" "$W/ab.json" "$W/ab$n.json"
    check "ab with ${case%%|*}: exit 2" fails_cleanly "ab$n.json: no A/B comparison to plot: ${case#*|}" \
        "$W/out/x$n.svg" "$S" plot "$W/ab$n.json" -o "$W/out/x$n.svg"
done
edit "d['seed']=2**64-1" "$W/ab.json" "$W/abmaxseed.json"
check "ab with the largest seed ab takes: drawn" to "$W/abmax.log" "$S" plot "$W/abmaxseed.json" -o "$W/out/abmax.svg"
edit "d['steps'][0]['delivered_per_s']=1.7e308" "$W/none.json" "$W/swbig.json"
check "a sweep with a delivered rate of 1.7e308: exit 2" fails_cleanly \
    "swbig.json: no sweep to plot: sweep step 1: delivered_per_s 1.7e+308 is out of range" \
    "$W/out/x40.svg" "$S" plot "$W/swbig.json" -o "$W/out/x40.svg"
edit "d['timeline'][1]['messages_in_per_s']=-1e300" "$W/raw.json" "$W/tlbig.json"
check "a timeline with a rate of -1e300: exit 2" fails_cleanly \
    "tlbig.json: no timeline to plot: timeline row 2: messages_in_per_s -1e+300 is out of range" \
    "$W/out/x41.svg" "$S" plot --kind timeline "$W/tlbig.json" -o "$W/out/x41.svg"
check "the sweeps' work directories are removed" test -z "$(ls -A "$W/sweeptmp")"
check "-o into a missing directory: exit 2" fails_cleanly "-o $W/nope/x.svg" "$W/nope/x.svg" \
    "$S" plot "$W/raw.json" -o "$W/nope/x.svg"
check "-o a directory: exit 2" fails_cleanly "is a directory" "$W/out/x7.svg" \
    "$S" plot "$W/raw.json" -o "$W/out"
check "--kind bogus: exit 2" fails_cleanly 'unknown --kind "bogus"' "$W/out/x8.svg" \
    "$S" plot --kind bogus "$W/raw.json" -o "$W/out/x8.svg"
# The format: a name of none, --format of none, a name and --format that disagree.
check "-o a .jpg: exit 2, no picture" fails_cleanly 'no picture format is named ".jpg" (.png, .pdf or .svg' \
    "$W/out/x50.jpg" "$S" plot "$W/raw.json" -o "$W/out/x50.jpg"
check "-o a .svg.gz: exit 2" fails_cleanly 'no picture format is named ".gz"' "$W/out/x51.svg.gz" \
    "$S" plot "$W/raw.json" -o "$W/out/x51.svg.gz"
check "--format gif: exit 2" fails_cleanly 'unknown --format "gif" (png, pdf or svg)' "$W/out/x52.png" \
    "$S" plot --format gif "$W/raw.json" -o "$W/out/x52.png"
check "-o a .png with --format pdf: exit 2" fails_cleanly "x53.png is named for png, but --format is pdf" \
    "$W/out/x53.png" "$S" plot --format pdf "$W/raw.json" -o "$W/out/x53.png"
check "--format gif without -o: exit 2, no r.gif" fails_cleanly 'unknown --format "gif"' "$W/out/r.gif" \
    "$S" plot --format gif "$W/out/r.json"
check "-o a .png into a missing directory: exit 2" fails_cleanly "-o $W/nope/x.png" "$W/nope/x.png" \
    "$S" plot "$W/raw.json" -o "$W/nope/x.png"
check "-o a .pdf, a result that cannot be read: exit 2, no picture" fails_cleanly "missing.json: cannot read" \
    "$W/out/x54.pdf" "$S" plot "$W/missing.json" -o "$W/out/x54.pdf"
check "a missing result: exit 2" fails_cleanly "missing.json: cannot read" "$W/out/x9.svg" \
    "$S" plot "$W/missing.json" -o "$W/out/x9.svg"
check "-o a result given: exit 2, the result kept" fails_cleanly "that is a result to plot" "$W/out/none.svg" \
    "$S" plot "$W/out/r.json" -o "$W/out/r.json"
check "the result -o named is intact" cmp "$W/raw.json" "$W/out/r.json"
# -o a device node is written into, never replaced (a rename over it
# would turn /dev/null into a file); a full device is an error, exit 1.
if [ "$(id -u)" = 0 ] && mknod "$W/out/null" c 1 3 2>/dev/null && mknod "$W/out/full" c 1 7 2>/dev/null; then
    check "-o a null device: exit 0" "$S" plot "$W/raw.json" -o "$W/out/null"
    check "and it is still the device" test -c "$W/out/null"
    check "-o a full device: exit 1" sh -c "'$S' plot '$W/raw.json' -o '$W/out/full' 2>'$W/full.err'; test \$? = 1"
    check "the error names it" grep -q "No space left on device" "$W/full.err"
    check "-o a full device, --format png: exit 1" sh -c "'$S' plot --format png '$W/raw.json' -o '$W/out/full' 2>'$W/full.err'; test \$? = 1"
    check "the error names it" grep -q "No space left on device" "$W/full.err"
    check "and it is still the device" test -c "$W/out/full"
    rm -f "$W/out/null" "$W/out/full"
else
    skip_part "-o a device node: needs root and mknod"
fi
check "no result: exit 2" fails_cleanly "no result given" "$W/out/x10.svg" "$S" plot
check "--help" sh -c "'$S' plot --help | grep -q -e '--kind KIND'"
check "spoolsim help plot" sh -c "'$S' help plot | grep -q 'Usage: spoolsim plot'"
check "--version" sh -c "'$S' plot --version | grep -q '^spoolsim plot '"
check "the command list has plot" sh -c "'$S' --help | grep -q '^  plot '"
finish
