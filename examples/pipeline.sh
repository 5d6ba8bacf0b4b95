#!/usr/bin/env bash
# The same gated research -> plan -> design pipeline as pipeline.py, through the CLI.
#
#   examples/pipeline.sh RUN_DIR            (TIMEOUT=SECONDS to change the 600 s wait)
#
# Each phase submits its reply, blocks in `handoff-gate wait`, and passes only the
# approved payload on. On a reject, REVISE (a command; it gets the phase as its argument
# and the reviewer's reason in HANDOFF_GATE_REASON, and prints the revised reply) is run
# and the reply resubmitted, up to RETRIES times (default 2); without REVISE the pipeline
# stops. Exit codes are those of `wait`: 1 rejected, 3 timed out, 4 changed; a submit
# that fails (a run path through a file, an unknown schema) stops the pipeline with its
# own message and exit code. The outcome and the reason are read from `wait --json` with
# jq, so any reviewer name and a reason over several lines arrive whole; `wait --sha256`
# with the digest `submit --json` printed delivers only the bytes this script submitted.
set -euo pipefail

run_dir=${1:?usage: pipeline.sh RUN_DIR}
timeout=${TIMEOUT:-600}
retries=${RETRIES:-2}
command -v jq >/dev/null || { echo "pipeline.sh reads wait --json with jq; install jq" >&2; exit 2; }
replies="$(cd "$(dirname "$0")" && pwd)/replies"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'echo "interrupted; nothing more is submitted" >&2; exit 130' INT

gate() {
  # phase, contract, producing role, receiving role
  local phase=$1 schema=$2 from=$3 to=$4 submitted id sha result rc reason attempt=0 reply
  reply="$replies/$phase.json"
  while true; do
    # submit's stderr stays visible: under set -e its failure ends the script with it.
    # The key makes a re-run of this script find the handoff it stored, not store another.
    submitted=$(handoff-gate submit "$run_dir" --phase "$phase" --schema "$schema" \
      --from "$from" --to "$to" --idempotency-key "pipeline.sh:$phase:$attempt" --json "$reply")
    id=$(jq -r .id <<<"$submitted")
    sha=$(jq -r .sha256 <<<"$submitted")
    echo "$id: waiting; decide with: handoff-gate decide $run_dir $id approve"
    rc=0
    result=$(handoff-gate wait "$run_dir" "$id" --sha256 "$sha" --timeout "$timeout" --json \
      --out "$work/$phase.json" 2>"$work/wait.err") || rc=$?
    case $rc in
      0) echo "$id: approved; $to receives $(wc -c <"$work/$phase.json") bytes"
         jq -r '.dropped_keys[] | "  dropped before delivery: " + .' <<<"$result" ;;
      1)
        reason=$(jq -r '.decision.reason // ""' <<<"$result")
        echo "$id: rejected: $reason" >&2
        echo "$id: (rejected by $(jq -r .decision.reviewer <<<"$result"))" >&2
        if [ -z "${REVISE:-}" ] || [ "$attempt" -ge "$retries" ]; then exit 1; fi
        attempt=$((attempt + 1))
        reply="$work/$phase.revised.json"
        HANDOFF_GATE_REASON=$reason $REVISE "$phase" >"$reply"
        echo "$phase: revised with the reviewer's reason (attempt $attempt of $retries)"
        continue ;;
      3) echo "$id: no decision within ${timeout}s; stopping" >&2; exit 3 ;;
      4) echo "$id: changed after it was decided; stopping" >&2; exit 4 ;;
      *) cat "$work/wait.err" >&2; echo "$id: handoff-gate wait failed ($rc)" >&2; exit "$rc" ;;
    esac
    return
  done
}

gate research research_brief/v1 researcher planner
gate plan plan/v1 planner designer
gate design design/v1 designer builder
echo "pipeline finished"
