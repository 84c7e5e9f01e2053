#!/bin/bash
# failed-logs.sh - after a failed make check: print the log of every test that
# failed (or was a hard error), last, so that the end of a CI log shows why;
# the names of the failed tests come again at the very end.
# Usage: failed-logs.sh [BUILDDIR]: the tree that ran the tests (default:
# the source tree; make distcheck's is spoolsim-VERSION/_build/sub).
cd "$(dirname "$0")/.."
if [ $# -gt 0 ]; then cd "$1" || exit 1; fi
failed=()
for trs in tests/unit/*.trs tests/it/*.trs tests/fuzz/*.trs; do
    [ -f "$trs" ] || continue
    grep -Eq '^:test-result: (FAIL|ERROR)' "$trs" && failed+=("${trs%.trs}")
done
for t in "${failed[@]}"; do
    echo "==== $t.log"
    cat "$t.log"
done
echo "==== failed: ${failed[*]:-none found (see test-suite.log)}"
