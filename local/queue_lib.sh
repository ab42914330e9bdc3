# Shared by the cluster job runners local/run_slurm.sh and local/run_sge.sh: the
# Kaldi-style command line, the per-task script, and the check of every task's log.
# shellcheck shell=bash
. "$(dirname "${BASH_SOURCE[0]}")/log.sh"

# queue_parse SUBMITTER ONE_WORD_RE ARGS...: split a runner's command line into
#   opts     the options for the submitter (before JOB=a:b or the log file): '-x value'
#            pairs, or one word when it matches ONE_WORD_RE ('--name=value')
#   var first last   the job variable and range of JOB=a:b (empty var: one task)
#   logpat   the log file (with the job variable in it)
#   cmd      the command and its arguments
queue_parse() {
  local submitter=$1 one_word=$2
  shift 2
  opts=()
  while [ $# -gt 0 ] && [[ "$1" == -* ]]; do
    if [[ "$1" =~ $one_word ]]; then opts+=("$1"); shift
    else
      [ $# -ge 2 ] || die "option $1 needs a value"
      opts+=("$1" "$2"); shift 2
    fi
  done
  [ $# -ge 2 ] || die "usage: $0 [${submitter^^} OPTIONS] [JOB=1:N] LOG COMMAND [ARGS...]"
  first=1; last=1; var=""
  if [[ "$1" =~ ^([A-Za-z_]+)=([0-9]+):([0-9]+)$ ]]; then
    var=${BASH_REMATCH[1]}; first=${BASH_REMATCH[2]}; last=${BASH_REMATCH[3]}; shift
  fi
  [ "$first" -le "$last" ] || die "empty job range $first:$last"
  logpat=$1; shift
  cmd=("$@")
  logdir=$(dirname "$logpat")
  name=$(basename "$logpat" .log); name=${name//$var/}; name=${name%.}
}

# queue_keep_old_logs: before submitting, every task's earlier log moves aside (keep_old_log),
# so that queue_check never takes an old run's '# ended ... with status 0' for a task that
# did not run this time, and a rerun does not overwrite the log of a failed run.
queue_keep_old_logs() {
  local j logf
  for ((j = first; j <= last; j++)); do
    logf=$logpat; [ -n "$var" ] && logf=${logpat//$var/$j}
    keep_old_log "$logf" || die "cannot move the earlier $logf aside"
  done
}

# queue_task_script SCRIPT JOB_LINES BANNER: write the task script that the array runs.
# JOB_LINES (shell code, written as is) sets $job from the scheduler's task index;
# BANNER (written as is, expanded at run time) names the scheduler's job in the log.
# The arguments are stored quoted and JOB is substituted in them at run time, as
# local/run_local.sh does; the log has the command, the start, the output and
# '# ended ... with status N'.
queue_task_script() {
  local script=$1 job_lines=$2 banner=$3
  mkdir -p "$(dirname "$script")"
  {
    echo "#!/usr/bin/env bash"
    printf 'cd %q\n' "$PWD"
    echo '[ -f ./path.sh ] && . ./path.sh'
    printf 'var=%q\n' "$var"
    printf '%s\n' "$job_lines"
    printf 'logf=%q\n' "$logpat"
    printf 'args=('; printf ' %q' "${cmd[@]}"; printf ' )\n'
    cat <<'EOF'
if [ -n "$var" ]; then
  logf=${logf//$var/$job}
  for i in "${!args[@]}"; do args[$i]=${args[$i]//$var/$job}; done
fi
mkdir -p "$(dirname "$logf")"
EOF
    printf '{ echo "# ${args[*]}"; echo "# started $(date) on $(hostname) (%s)"; } > "$logf"\n' "$banner"
    cat <<'EOF'
"${args[@]}" >> "$logf" 2>&1
rc=$?
echo "# ended $(date) with status $rc" >> "$logf"
exit $rc
EOF
  } > "$script"
  chmod +x "$script"
}

# queue_check SCHEDULER SUBMITTER RC: every task's log must end with status 0 (a failed
# task's log tail is printed); then the submitter's own exit status RC must be 0.
queue_check() {
  local scheduler=$1 submitter=$2 rc=$3 failed=0 j logf
  for ((j = first; j <= last; j++)); do
    logf=$logpat; [ -n "$var" ] && logf=${logpat//$var/$j}
    if ! tail -n 1 "$logf" 2>/dev/null | grep -q 'with status 0$'; then
      failed=$((failed + 1))
      log "job failed: $logf; its last lines:"
      if [ -f "$logf" ]; then tail -n 20 "$logf" >&2
      else log "(no log: the task never started; $scheduler's output: $logdir/q/$name.$j.out)"; fi
    fi
  done
  [ $failed -eq 0 ] || die "$failed of $((last - first + 1)) jobs failed"
  [ "$rc" -eq 0 ] || die "$submitter exited with status $rc although every task log ends with status 0"
}
