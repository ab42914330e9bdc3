#!/usr/bin/env bash
# Run a command as NJ Grid Engine jobs (one array job), Kaldi queue.pl style:
#   local/run_sge.sh [-l mem_free=4G -q all.q ...] JOB=1:4 exp/x/log/job.JOB.log \
#       python -m punct.bin.X --data data/x/split4/JOB ...
# Options before JOB=a:b (or before the log file) go to qsub, as '-name value' or
# '--name=value'. Without JOB=a:b the command runs once. The array job is submitted
# with 'qsub -sync y', so this returns when every task has ended. Each task writes
# its own log, like local/run_local.sh: the command, start, output, '# ended ...
# with status N'. A task whose log does not end with status 0 is a failure: its
# log tail is printed and this script exits non-zero.
# The task script and Grid Engine's own output go to LOGDIR/q/.
set -u
. "$(dirname "$0")/log.sh"
opts=()
while [ $# -gt 0 ] && [[ "$1" == -* ]]; do
  if [[ "$1" == *=* && "$1" == --* ]]; then opts+=("$1"); shift
  else
    [ $# -ge 2 ] || die "option $1 needs a value"
    opts+=("$1" "$2"); shift 2
  fi
done
[ $# -ge 2 ] || die "usage: $0 [QSUB OPTIONS] [JOB=1:N] LOG COMMAND [ARGS...]"
first=1; last=1; var=""
if [[ "$1" =~ ^([A-Za-z_]+)=([0-9]+):([0-9]+)$ ]]; then
  var=${BASH_REMATCH[1]}; first=${BASH_REMATCH[2]}; last=${BASH_REMATCH[3]}; shift
fi
[ "$first" -le "$last" ] || die "empty job range $first:$last"
logpat=$1; shift
command -v qsub >/dev/null || die "qsub not found: is this a Grid Engine cluster? (see cmd.sh)"
logdir=$(dirname "$logpat")
name=$(basename "$logpat" .log); name=${name//$var/}; name=${name%.}
mkdir -p "$logdir/q"
script=$logdir/q/$name.sh

# The task script: JOB comes from the array index; the arguments are stored quoted
# and JOB is substituted in them at run time (as local/run_local.sh does).
{
  echo "#!/usr/bin/env bash"
  printf 'cd %q\n' "$PWD"
  echo '[ -f ./path.sh ] && . ./path.sh'
  printf 'var=%q\n' "$var"
  echo 'job=${SGE_TASK_ID:-1}'
  echo '[ "$job" = undefined ] && job=1'
  printf 'logf=%q\n' "$logpat"
  printf 'args=('; printf ' %q' "$@"; printf ' )\n'
  cat <<'EOF'
if [ -n "$var" ]; then
  logf=${logf//$var/$job}
  for i in "${!args[@]}"; do args[$i]=${args[$i]//$var/$job}; done
fi
mkdir -p "$(dirname "$logf")"
{ echo "# ${args[*]}"; echo "# started $(date) on $(hostname) (Grid Engine job ${JOB_ID:-?}, task $job)"; } > "$logf"
"${args[@]}" >> "$logf" 2>&1
rc=$?
echo "# ended $(date) with status $rc" >> "$logf"
exit $rc
EOF
} > "$script"
chmod +x "$script"

log "submitting $name: tasks $first-$last to Grid Engine (logs: $logpat)"
qsub -sync y -terse -cwd -V -j y -S /bin/bash -N "punct-$name" -t "$first-$last" \
  -o "$logdir/q/$name.\$TASK_ID.out" "${opts[@]}" "$script" >/dev/null
qsub_rc=$?

failed=0
for ((j = first; j <= last; j++)); do
  logf=$logpat; [ -n "$var" ] && logf=${logpat//$var/$j}
  if ! tail -n 1 "$logf" 2>/dev/null | grep -q 'with status 0$'; then
    failed=$((failed + 1))
    log "job failed: $logf; its last lines:"
    if [ -f "$logf" ]; then tail -n 20 "$logf" >&2
    else log "(no log: the task never started; Grid Engine's output: $logdir/q/$name.$j.out)"; fi
  fi
done
[ $failed -eq 0 ] || die "$failed of $((last - first + 1)) jobs failed"
[ $qsub_rc -eq 0 ] || die "qsub exited with status $qsub_rc although every task log ends with status 0"
