# Parallel jobs over the parts of a data directory, for the audio steps (local/steps/align.sh,
# asr_decode.sh, make_prosody.sh). Sourced after local/log.sh.
# shellcheck shell=bash

# part_jobs DIR NJ: NJ, or fewer when DIR has fewer utterances (a part holds one at least)
part_jobs() {
  local n
  n=$(wc -l < "$1/text")
  [ "$n" -lt "$2" ] && echo "$n" || echo "$2"
}

# run_parts CMD WHAT MODULE CONFIG SRC DIR NJ FORCE [MERGE-OPTION...]: split the data directory
# SRC into NJ parts or fewer (punct.bin.datadir_tools split), run "python -m MODULE --config
# CONFIG" on each part through CMD (logs DIR/log/WHAT.JOB.log) into DIR/part.JOB, then merge
# the parts into DIR. A part's module skips a finished part, so a rerun redoes the rest.
run_parts() {
  local cmd=$1 what=$2 module=$3 config=$4 src=$5 dir=$6 n force=$8 force_opt=()
  n=$(part_jobs "$src" "$7")
  shift 8
  [ "$force" = true ] && force_opt=(--force)
  log "$what: $n jobs, logs: $dir/log/$what.*.log"
  rm -f "$dir/.done"
  python -m punct.bin.datadir_tools split --nj "$n" "$src" || die "splitting $src failed"
  $cmd JOB=1:"$n" "$dir/log/$what.JOB.log" python -m "$module" --config "$config" \
    --data "$src/split$n/JOB" --out-dir "$dir/part.JOB" ${force_opt[@]+"${force_opt[@]}"} \
    || die "$what of $src failed (logs: $dir/log/$what.*.log)"
  python -m "$module" --config "$config" --merge "$n" --data "$src" --out-dir "$dir" "$@" \
    || die "merging $dir failed"
}
