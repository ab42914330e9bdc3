#!/usr/bin/env bash
# Run a command as NJ local background jobs, Kaldi run.pl style:
#   local/run_local.sh JOB=1:4 exp/x/log/job.JOB.log python -m punct.bin.X --part JOB ...
# Without JOB=a:b it runs the command once. Each job writes its own log; when a
# job fails, the tail of its log is printed and the script exits non-zero. An earlier
# log of the same name is kept as LOG.1 (keep_old_log in local/log.sh).
# The body is one brace group ended by "exit": bash reads all of it before running any of
# it, so replacing or editing this file while it runs (hours, under a training) cannot
# change what this run does next.
{
set -u
. "$(dirname "$0")/log.sh"
[ $# -ge 2 ] || die "usage: $0 [JOB=1:N] LOG COMMAND [ARGS...]"
first=1; last=1; var=""
if [[ "$1" =~ ^([A-Za-z_]+)=([0-9]+):([0-9]+)$ ]]; then
  var=${BASH_REMATCH[1]}; first=${BASH_REMATCH[2]}; last=${BASH_REMATCH[3]}; shift
fi
logpat=$1; shift
pids=(); logs=()
for ((j = first; j <= last; j++)); do
  logf=$logpat; args=("$@")
  if [ -n "$var" ]; then
    logf=${logpat//$var/$j}
    for i in "${!args[@]}"; do args[$i]=${args[$i]//$var/$j}; done
  fi
  mkdir -p "$(dirname "$logf")"
  keep_old_log "$logf" || die "cannot move the earlier $logf aside"
  { echo "# ${args[*]}"; echo "# started $(date)"; } > "$logf"
  ( "${args[@]}" >> "$logf" 2>&1; rc=$?; echo "# ended $(date) with status $rc" >> "$logf"; exit $rc ) &
  pids+=($!); logs+=("$logf")
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    failed=$((failed + 1))
    log "job failed: ${logs[$i]}; its last lines:"
    tail -n 20 "${logs[$i]}" >&2
  fi
done
[ $failed -eq 0 ] || die "$failed of $((last - first + 1)) jobs failed"
exit
}
