# How parallel jobs run. Every parallel stage calls "$train_cmd" / "$decode_cmd" as
#   $cmd JOB=1:NJ LOGDIR/name.JOB.log COMMAND ARGS...   (JOB is replaced in the log name and args)
# Local execution by default: jobs run as background processes on this machine.
# shellcheck shell=bash
export train_cmd="local/run_local.sh"
export decode_cmd="local/run_local.sh"
# On a cluster, choose the queue with PUNCT_QUEUE=slurm or PUNCT_QUEUE=sge (or edit
# the options here). Both submit one array job per call and wait for it (sbatch --wait,
# qsub -sync y); every task writes LOGDIR/name.N.log like local/run_local.sh, and a
# failed task's log tail is printed. Options before JOB=1:N go to sbatch / qsub.
case "${PUNCT_QUEUE:-local}" in
  local) ;;
  slurm)
    # training holds a model and a batch in memory for hours; decoding jobs are small
    export train_cmd="local/run_slurm.sh --mem 8G --time 24:00:00 --cpus-per-task 2"
    export decode_cmd="local/run_slurm.sh --mem 2G --time 4:00:00" ;;
  sge)
    export train_cmd="local/run_sge.sh -l mem_free=8G,h_rt=24:00:00 -pe smp 2"
    export decode_cmd="local/run_sge.sh -l mem_free=2G,h_rt=4:00:00" ;;
  *) echo "cmd.sh: unknown PUNCT_QUEUE '${PUNCT_QUEUE}' (local, slurm or sge)" >&2; return 1 ;;
esac
