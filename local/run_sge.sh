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
# The task script and Grid Engine's own output go to LOGDIR/q/ (see local/queue_lib.sh).
# The body is one brace group ended by "exit": bash reads all of it before running any of
# it, so replacing or editing this file while it runs (hours, under a training) cannot
# change what this run does next.
{
set -u
. "$(dirname "$0")/queue_lib.sh"
queue_parse qsub '^--.*=' "$@"
command -v qsub >/dev/null || die "qsub not found: is this a Grid Engine cluster? (see cmd.sh)"
script=$logdir/q/$name.sh
queue_task_script "$script" 'job=${SGE_TASK_ID:-1}
[ "$job" = undefined ] && job=1' 'Grid Engine job ${JOB_ID:-?}, task $job'
queue_keep_old_logs

log "submitting $name: tasks $first-$last to Grid Engine (logs: $logpat)"
qsub -sync y -terse -cwd -V -j y -S /bin/bash -N "punct-$name" -t "$first-$last" \
  -o "$logdir/q/$name.\$TASK_ID.out" "${opts[@]}" "$script" >/dev/null
queue_check "Grid Engine" qsub $?
exit
}
