#!/usr/bin/env bash
# Per-word pause features of a data directory from its word times (punct.bin.pause_feats;
# speaker changes from word_speakers when there): DATA-DIR/pause.{ark,scp,names}. Finished
# features are kept unless --force true. Run from the recipe's top folder, after path.sh.
{
set -euo pipefail
force=false              # true: compute again even when finished
help_message="Usage: $0 [options] <data-dir>
 e.g.: $0 data/earnings/e22_train
Options: --force true|false"
positional=true
. local/log.sh
. local/parse_options.sh
[ $# -eq 1 ] || usage_error
data=$1
need_files "make_pause" "$data/word_times"
if [ -f "$data/pause.done" ] && [ "$force" != true ]; then
  log "pause features of ${data##*/} are finished; skipping"; exit 0
fi
log "pause features: $data/word_times -> $data/pause.{ark,scp,names}"
force_opt=()
[ "$force" = true ] && force_opt=(--force)
python -m punct.bin.pause_feats --data "$data" ${force_opt[@]+"${force_opt[@]}"} || die "pause features of $data failed"
exit
}
