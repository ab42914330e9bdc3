#!/usr/bin/env bash
# Run a command as NJ Slurm jobs (one job array), Kaldi slurm.pl style:
#   local/run_slurm.sh [--mem 4G --time 2:00:00 -p PARTITION ...] JOB=1:4 exp/x/log/job.JOB.log \
#       python -m punct.bin.X --data data/x/split4/JOB ...
# Options before JOB=a:b (or before the log file) go to sbatch, as '--name value',
# '--name=value' or '-x value'. Without JOB=a:b the command runs once. The array is
# submitted with 'sbatch --wait', so this returns when every task has ended. Each
# task writes its own log, like local/run_local.sh: the command, start, output,
# '# ended ... with status N'. A task whose log does not end with status 0 is a
# failure: its log tail is printed and this script exits non-zero.
# The task script and Slurm's own output go to LOGDIR/q/ (see local/queue_lib.sh).
# The body is one brace group ended by "exit": bash reads all of it before running any of
# it, so replacing or editing this file while it runs (hours, under a training) cannot
# change what this run does next.
{
set -u
. "$(dirname "$0")/queue_lib.sh"
queue_parse sbatch '=' "$@"
command -v sbatch >/dev/null || die "sbatch not found: is this a Slurm cluster? (see cmd.sh)"
script=$logdir/q/$name.sh
queue_task_script "$script" 'job=${SLURM_ARRAY_TASK_ID:-1}' 'Slurm job ${SLURM_JOB_ID:-?}, task $job'
queue_keep_old_logs

log "submitting $name: tasks $first-$last to Slurm (logs: $logpat)"
sbatch --wait --parsable --job-name="punct-$name" --array="$first-$last" --chdir="$PWD" \
  --output="$logdir/q/$name.%a.out" "${opts[@]}" "$script" >/dev/null
queue_check Slurm sbatch $?
exit
}
