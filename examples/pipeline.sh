#!/usr/bin/env bash
# The same gated research -> plan -> design pipeline as pipeline.py, through the CLI.
#
#   examples/pipeline.sh RUN_DIR            (TIMEOUT=SECONDS to change the 600 s wait)
#
# Each phase submits its reply, blocks in `handoff-gate wait`, and passes only the
# approved payload on. Exit codes are those of `wait`: 1 rejected, 3 timed out, 4 changed.
set -euo pipefail

run_dir=${1:?usage: pipeline.sh RUN_DIR}
timeout=${TIMEOUT:-600}
replies="$(cd "$(dirname "$0")" && pwd)/replies"
approved_dir=$(mktemp -d)
trap 'rm -rf "$approved_dir"' EXIT

gate() {
  # phase, contract, producing role, receiving role
  local phase=$1 schema=$2 from=$3 to=$4 id rc
  id=$(handoff-gate submit "$run_dir" --phase "$phase" --schema "$schema" \
    --from "$from" --to "$to" "$replies/$phase.json")
  echo "$id: waiting; decide with: handoff-gate decide $run_dir $id approve"
  rc=0
  handoff-gate wait "$run_dir" "$id" --timeout "$timeout" --out "$approved_dir/$phase.json" || rc=$?
  case $rc in
    0) echo "$id: approved; $to receives $(wc -c <"$approved_dir/$phase.json") bytes" ;;
    1) echo "$id: rejected; stopping" >&2; exit 1 ;;
    3) echo "$id: no decision within ${timeout}s; stopping" >&2; exit 3 ;;
    4) echo "$id: changed after it was decided; stopping" >&2; exit 4 ;;
    *) echo "$id: handoff-gate wait failed ($rc)" >&2; exit "$rc" ;;
  esac
}

gate research research_brief/v1 researcher planner
gate plan plan/v1 planner designer
gate design design/v1 designer builder
echo "pipeline finished"
