#!/usr/bin/env bash
# One stage of scripts/test.sh under a wall-clock limit: `bash scripts/stage.sh NAME LIMIT COMMAND…` (LIMIT as
# timeout(1) takes it: 30m, 90s). A stage that hangs is ended with its whole process group (TERM, then KILL 30 s
# later) and fails the run, naming the stage and its limit, instead of hanging CI until CI's own limit.
set -uo pipefail
if [ $# -lt 3 ]; then
  echo "usage: stage.sh NAME LIMIT COMMAND [ARGS…]" >&2
  exit 2
fi
name=$1 limit=$2
shift 2
started=$(date +%s)
timeout --kill-after="${STAGE_KILL_AFTER:-30s}" "$limit" "$@"
rc=$?
echo "stage \"$name\" took $(( $(date +%s) - started )) s (limit $limit, exit $rc)" >&2
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "stage \"$name\" was stopped at its limit of $limit: it hung or ran far longer than it should (scripts/test.sh sets the limits)" >&2
fi
exit "$rc"
