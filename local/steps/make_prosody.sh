#!/usr/bin/env bash
# Per-word pitch and energy features of a data directory from its audio and word times
# (punct.bin.prosody_feats, conf/prosody.yaml): DATA-DIR/prosody.{ark,scp,names}; --nj jobs,
# logs EXP-DIR/log/prosody.JOB.log. Finished features are kept unless --force true.
# Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
cmd=local/run_local.sh   # how the jobs run (cmd.sh's $decode_cmd)
nj=2                     # parallel jobs (fewer when the data has fewer recordings)
force=false              # true: compute again even when finished
config=conf/prosody.yaml # the pitch tracker's and energy's settings
help_message="Usage: $0 [options] <data-dir> <exp-dir>
 e.g.: $0 --nj 2 data/ljspeech/test exp/ljspeech/prosody_test
Options: --cmd CMD, --nj N, --force true|false, --config FILE"
positional=true
. local/log.sh
. local/parse_options.sh
. local/parts.sh
[ $# -eq 2 ] || usage_error
data=$1 dir=$2
need_files "make_prosody" "$data/wav.scp" "$data/word_times" "$config"
if [ -f "$data/prosody.done" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
  log "pitch/energy features of ${data##*/} are finished; skipping"; exit 0
fi
log "pitch/energy features: $data (wav.scp, word_times) -> $data/prosody.{ark,scp,names}"
run_parts "$cmd" prosody punct.bin.prosody_feats "$config" "$data" "$dir" "$nj" "$force"
exit
}
