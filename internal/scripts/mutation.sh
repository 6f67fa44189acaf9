#!/usr/bin/env bash
# mutation.sh: `make test-mutation`. Runs gremlins over the files that carry
# agentrun's guarantees, one package at a time, and fails when any package's
# test efficacy (killed / (killed + lived)) or mutator coverage is under
# THRESHOLD, as internal/mutantcheck's re-run finds them.
#
# Only the guarantee files are mutated: every other file of the package is
# excluded, so the figure speaks of the marker and its proof, the GitHub
# actions and their approved-text check, GitHub's error classification and
# the permission check that authorizes an approver; the conversation's proof
# (length and digest, queried, cached or handed over); reconcile, approval, the checkpoint, the activity
# options and the lifecycle tables; the tool registry's checks of a call
# (schema, pin, the exact call an approval binds) and its rule for which
# calls wait for a person; and the approval server's signature,
# authorization, decision, webhook and command parsing. Since issue 32 also
# every file that decides whether an attempt is sent, a decision applies or a
# conversation is carried forward: the workflow's cancel, follow-up, edit and
# stop switch (hold.go, holds.go); the MCP and HTTP tools' sending and
# reconcile paths; the holds' and follow-up's rules in api; the approval
# server's cancel, follow-up, holds and unchecked-signal doors; and the
# precheck a person's command makes (runclient/reach.go).
#
# Usage: mutation.sh [package[=file,file...]]...
#   With no argument every package below is run. A package argument runs only
#   that package; "=file,file" narrows it further to those guarantee files
#   (e.g. internal/approvalsrv/auth=csrf.go,identity.go).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
GREMLINS=${GREMLINS:-$ROOT/bin/gremlins}
THRESHOLD=${THRESHOLD:-90}
# The default timeout estimate marks every mutant of ./workflows as timed out
# on a 2-core machine: a mutant's test run is slower than the coverage run.
TIMEOUT_COEFFICIENT=${TIMEOUT_COEFFICIENT:-10}
OUT=${OUT:-$ROOT/.data/mutation}
# gremlins runs each mutant in a copy of the module that takes only regular
# files (a symlinked bin/temporal is left out): without this the dev-server
# tests (runclient's Reach is tested only there) would skip in its copy and
# count their mutants as alive.
if [[ -z ${AGENTRUN_TEST_TEMPORAL_CLI:-} && -x $ROOT/bin/temporal ]]; then
  export AGENTRUN_TEST_TEMPORAL_CLI=$ROOT/bin/temporal
fi

# package: the guarantee files in it (basenames).
GUARANTEES=(
  "activities: tools.go permission.go conversation.go conversationcache.go handoff.go"
  "github: marker.go client.go permission.go proof.go"
  "workflows: propose.go attempt.go gate.go reconcile.go approval.go checkpoint.go policy.go tools.go decide.go options.go cancel.go followup.go edit.go hold.go holds.go holds_change.go"
  "tools: check.go registry.go approval.go"
  "tools/ghtools: action.go comment.go attempt.go issue.go labels.go review.go"
  "tools/mcptool: tool.go conn.go convert.go"
  "tools/httptool: send.go request.go"
  "api: lifecycle.go signature.go rules.go holds.go followup.go"
  "internal/approvalsrv: routes.go decide.go webhook.go memo.go pathid.go command.go cancel.go followup.go holds.go unchecked.go"
  "runclient: reach.go"
  "internal/approvalsrv/auth: csrf.go identity.go"
)

guarantee_files() { # package -> its guarantee files, or nothing
  local entry
  for entry in "${GUARANTEES[@]}"; do
    if [[ ${entry%%:*} == "$1" ]]; then
      echo "${entry#*:}"
      return
    fi
  done
}

selected=("$@")
if [[ ${#selected[@]} -eq 0 ]]; then
  for entry in "${GUARANTEES[@]}"; do selected+=("${entry%%:*}"); done
fi

cd "$ROOT"
status=0
for arg in "${selected[@]}"; do
  pkg=${arg%%=*}
  pkg=${pkg#./}
  keep=$(guarantee_files "$pkg")
  if [[ -z $keep ]]; then
    echo "mutation.sh: $pkg has no guarantee files (known: ${GUARANTEES[*]%%:*})" >&2
    exit 2
  fi
  if [[ $arg == *=* ]]; then
    keep=${arg#*=}
    keep=${keep//,/ }
  fi
  keep=" $keep "
  excludes=(-E '_test\.go$')
  for f in "$pkg"/*.go; do
    base=$(basename "$f")
    [[ $base == *_test.go ]] && continue
    [[ $keep == *" $base "* ]] && continue
    excludes+=(-E "(^|/)${base//./\\.}\$")
  done
  # A subpackage is a package of its own, with its own entry (and tests):
  # none of its files is mutated here.
  for d in "$pkg"/*/; do
    if [[ -d $d ]]; then excludes+=(-E "(^|/)$(basename "$d")/"); fi
  done
  # workflows' -short leaves out its three tests that start a Temporal dev
  # server (about 20 s of every run of the package's tests on 2 cores, 40 min
  # over its mutants); the testsuite and replay tests still run against each
  # mutant. Fewer tests can only let more mutants live. The approval
  # server's -short leaves out its seven dev-server files (a real run, signal
  # and query per test: minutes per mutant, hours over its 200-odd); its
  # doors' tests against a stubbed run client still run. FULL=1 keeps them.
  # -count=1: gremlins times each mutant against its coverage run, and a
  # coverage run answered from Go's test cache (under a second) would time
  # every mutant out.
  goflags="${GOFLAGS:-} -count=1"
  if [[ ($pkg == workflows || $pkg == internal/approvalsrv) && -z ${FULL:-} ]]; then
    goflags="$goflags -short"
  fi
  echo "== mutation: $pkg (${keep# }) GOFLAGS=$goflags"
  start=$SECONDS
  # The report is written outside .data, which `make down` and the stack
  # tests may clear during a run, and copied there once the run is over.
  report=$(mktemp -d)/${pkg//\//_}.json
  # -S lt prints only the mutants that lived or timed out, then the totals.
  if ! GOFLAGS=$goflags "$GREMLINS" unleash -S lt --workers 1 --timeout-coefficient "$TIMEOUT_COEFFICIENT" \
      -o "$report" "${excludes[@]}" "./$pkg"; then
    status=1
  fi
  mkdir -p "$OUT" && cp "$report" "$OUT/" && rm -r "$(dirname "$report")"
  # gremlins counts a mutant in a switch's case expression as reached by
  # no test (Go's coverage gives it no block): each mutant it counted as
  # not covered or living runs again alone, with `go test -overlay`, and
  # the figures are given again as those re-runs found them
  # (internal/mutantcheck). RECHECK=0 skips the re-run. Either way
  # mutantcheck is the gate: gremlins v0.6.0 exits 0 whatever its
  # --threshold-efficacy says, so the package fails here when the figures
  # (after the re-run, or gremlins' own with RECHECK=0) put efficacy or
  # coverage under THRESHOLD.
  statuses="NOT COVERED,LIVED"
  if [[ ${RECHECK:-1} == 0 ]]; then
    statuses=""
  else
    echo "== mutation: $pkg, the mutants not covered or living, run again one at a time"
  fi
  rc=0
  go run ./internal/mutantcheck -pkg "./$pkg" -goflags "$goflags" -status "$statuses" \
    -threshold "$THRESHOLD" "$OUT/$(basename "$report")" || rc=$?
  # 1: some re-run mutant lived, which the figures already say.
  if [[ $rc -gt 1 ]]; then status=1; fi
  echo "== mutation: $pkg took $((SECONDS - start))s"
done
exit $status
