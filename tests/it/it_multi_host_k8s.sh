#!/bin/bash
# Integration: bench/multi-host/load-job.yaml against the Kubernetes API's
# schema, offline (no cluster here; Debian's kubectl needs one even for
# --dry-run=client), by bench/multi-host/check-manifest.py over the models
# of Debian's python3-kubernetes (unpacked by scripts/fetch-peer.sh, never
# installed): the Job as shipped and as docs/multi-host.md fills it in is
# valid, and the checker refuses, by path, a field that is not there, a
# value of another kind, a required field missing and an unknown kind.
# Skips without the peer (fails then under SPOOLSIM_REQUIRE_PEERS=1).
. "${top_srcdir:-.}/tests/helpers/lib.sh"
CHECK="$top_srcdir/bench/multi-host/check-manifest.py"
JOB="$top_srcdir/bench/multi-host/load-job.yaml"
MODELS=$SPOOLSIM_PEERS/python3-kubernetes/root/usr/lib/python3/dist-packages/kubernetes/client/models

need_peer "python3-kubernetes's models" "scripts/fetch-peer.sh python3-kubernetes" test -f "$MODELS/v1_job.py"
need_peer "PyYAML" "scripts/install-deps.sh --test (python3-yaml)" python3 -c 'import yaml'

to "$WORK/job.out" python3 "$CHECK" --models "$MODELS" "$JOB"
check "load-job.yaml as shipped: valid" test $? = 0
cat "$WORK/job.out"
check "  ... a Job of the schema of a named release" grep -q "(Job spoolsim-load): valid against Kubernetes 1\.[0-9]*'s schema" "$WORK/job.out"
# as docs/multi-host.md fills it in
sed -e "s/@START_AT@/2026-12-01T12:00:00Z/" -e "s/@TARGET@/relay.mail.svc:25/" "$JOB" >"$WORK/filled.yaml"
check "load-job.yaml filled in as the doc says: valid" python3 "$CHECK" --models "$MODELS" "$WORK/filled.yaml"
check "  ... completions = parallelism, one pod a host, Indexed" python3 - "$WORK/filled.yaml" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))["spec"]
sys.exit(0 if spec["completions"] == spec["parallelism"] and spec["completionMode"] == "Indexed" else 1)
PY

# Each mistake refused by its path: exit 1.
# broken NAME PYTHON-EDIT WORD: the Job edited by PYTHON-EDIT (of j, the Job) is refused, saying WORD.
broken() {
    local name=$1 edit=$2 word=$3
    python3 - "$JOB" "$WORK/$name.yaml" "$edit" <<'PY'
import sys, yaml
j = yaml.safe_load(open(sys.argv[1]))
c = j["spec"]["template"]["spec"]["containers"][0]
exec(sys.argv[3])
yaml.safe_dump(j, open(sys.argv[2], "w"))
PY
    to "$WORK/$name.out" python3 "$CHECK" --models "$MODELS" "$WORK/$name.yaml"
    check "refused, $name: exit 1" test $? = 1
    check "  ... saying \"$word\"" grep -q -- "$word" "$WORK/$name.out"
}
broken "a field misspelt" 'j["spec"]["completionMod"] = j["spec"].pop("completionMode")' \
    "V1Job.spec.completionMod: no such field in V1JobSpec"
broken "a field of a container misspelt" 'c["imagePullPolice"] = "Always"' \
    "containers\[0\].imagePullPolice: no such field in V1Container"
broken "a number as a string" 'j["spec"]["parallelism"] = "3"' "V1Job.spec.parallelism: an integer expected"
broken "a list as a string" 'c["command"] = "sh -c true"' "containers\[0\].command: a list"
broken "a container without a name" 'del c["name"]' "containers\[0\].name: required by V1Container, missing"
broken "an unknown kind" 'j["kind"] = "Jobs"' "kind 'Jobs': no such type"

to "$WORK/nomodels.out" python3 "$CHECK" --models "$WORK/none" "$JOB"
check "no models there: exit 2" test $? = 2
printf 'kind: [\n' >"$WORK/bad.yaml"
to "$WORK/bad.out" python3 "$CHECK" --models "$MODELS" "$WORK/bad.yaml"
check "a file that is not YAML: exit 2" test $? = 2

finish
