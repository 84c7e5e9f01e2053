#!/bin/bash
# collect.sh - the JSON results of the pods of load-job.yaml, one file per
# completion index, then one merged report (spoolsim merge).
# See docs/multi-host.md.
#
# Usage: collect.sh [-n NAMESPACE] [-j JOB] [-o DIR]
#   waits for the job (spoolsim-load) to complete, then writes
#   DIR/load-INDEX.json for every pod, DIR/merged.json and DIR/merged.txt
set -eu -o pipefail

ns=()
job=spoolsim-load
dir=results-k8s
while getopts n:j:o: opt; do
    case $opt in
    n) ns=(-n "$OPTARG") ;;
    j) job=$OPTARG ;;
    o) dir=$OPTARG ;;
    *) exit 2 ;;
    esac
done
command -v kubectl >/dev/null || { echo "collect.sh: kubectl is not installed" >&2; exit 2; }
mkdir -p "$dir"
kubectl "${ns[@]}" wait --for=condition=complete --timeout=24h "job/$job"
n=$(kubectl "${ns[@]}" get "job/$job" -o jsonpath='{.spec.completions}')
for i in $(seq 0 $((n - 1))); do
    # the label every pod of an Indexed Job carries (Kubernetes 1.28 and later)
    kubectl "${ns[@]}" logs -l "job-name=$job,batch.kubernetes.io/job-completion-index=$i" \
        --tail=-1 >"$dir/load-$i.json"
done
spoolsim merge -o "$dir/merged.json" "$dir"/load-*.json | tee "$dir/merged.txt"
