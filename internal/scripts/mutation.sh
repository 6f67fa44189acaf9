#!/usr/bin/env bash
# mutation.sh: `make test-mutation`. Runs gremlins over the files that carry
# agentrun's guarantees, one package at a time, and fails when any package's
# test efficacy (killed / (killed + lived)) is under THRESHOLD.
#
# Only the guarantee files are mutated: every other file of the package is
# excluded, so the figure speaks of reconcile, approval, checkpoint, the
# marker lookup, signature, decide, webhook and command parsing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GREMLINS=${GREMLINS:-$ROOT/bin/gremlins}
THRESHOLD=${THRESHOLD:-90}
# The default timeout estimate marks every mutant of ./workflows as timed out
# on a 2-core machine: a mutant's test run is slower than the coverage run.
TIMEOUT_COEFFICIENT=${TIMEOUT_COEFFICIENT:-10}
OUT=${OUT:-$ROOT/.data/mutation}

# package: the guarantee files in it (basenames, regular expressions allowed).
GUARANTEES=(
  "workflows: reconcile.go approval.go checkpoint.go rules.go"
  "activities: github.go marker.go owncomment.go"
  "internal/approvalsrv: signature.go decide.go webhook.go command.go memo.go"
)

mkdir -p "$OUT"
cd "$ROOT"
status=0
for entry in "${GUARANTEES[@]}"; do
  pkg=${entry%%:*}
  keep=" ${entry#*:} "
  excludes=(-E '_test\.go$')
  for f in "$pkg"/*.go; do
    base=$(basename "$f")
    [[ $base == *_test.go ]] && continue
    [[ $keep == *" $base "* ]] && continue
    excludes+=(-E "(^|/)${base//./\\.}\$")
  done
  echo "== mutation: $pkg (${keep# })"
  # -S lt prints only the mutants that lived or timed out, then the totals.
  if ! "$GREMLINS" unleash -S lt --workers 1 --timeout-coefficient "$TIMEOUT_COEFFICIENT" \
      --threshold-efficacy "$THRESHOLD" -o "$OUT/${pkg//\//_}.json" "${excludes[@]}" "./$pkg"; then
    status=1
  fi
done
exit $status
