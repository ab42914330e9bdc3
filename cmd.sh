# How parallel jobs run. Every parallel stage calls "$train_cmd" / "$decode_cmd" as
#   $cmd JOB=1:NJ LOGDIR/name.JOB.log COMMAND ARGS...   (JOB is replaced in the log name and args)
# Local execution by default: jobs run as background processes on this machine.
# shellcheck shell=bash
export train_cmd="local/run_local.sh"
export decode_cmd="local/run_local.sh"
# On a Slurm or Grid Engine cluster, choose one of these instead (added with the audio stages):
# export train_cmd="local/run_slurm.sh --mem 4G"
# export decode_cmd="local/run_slurm.sh --mem 2G"
# export train_cmd="local/run_sge.sh -l mem_free=4G"
