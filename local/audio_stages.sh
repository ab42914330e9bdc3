# The audio stages (2-5) of a corpus with audio, as functions that a corpus.sh
# calls from its hooks (corpus_align, corpus_asr_decode, corpus_features,
# corpus_transfer). Sourced by recipes/ljspeech/corpus.sh and recipes/quick/corpus.sh (any
# corpus with wav.scp can use them).
# Their inputs come as arguments (EXP is exp/<corpus>, FORCE true or false); the jobs run
# through cmd.sh's $decode_cmd.
#
# Every stage splits a data directory into parts (punct.bin.datadir_tools split,
# one recording per part at least), runs one job per part through $decode_cmd
# (local/run_local.sh by default: per-job logs, the failed job's log tail printed),
# and merges the parts. Job outputs are written under temporary names and marked
# done: a rerun skips finished sets and, after a failure, finished parts.
# shellcheck shell=bash

# audio_jobs DIR NJ: NJ, or fewer when DIR has fewer utterances
audio_jobs() {
  local n
  n=$(wc -l < "$1/text")
  [ "$n" -lt "$2" ] && echo "$n" || echo "$2"
}

# audio_force_opt FORCE: --force for the Python stages when FORCE is true
audio_force_opt() { [ "$1" = true ] && echo "--force" || true; }

# audio_parallel STAGE WHAT MODULE CONFIG SRC DIR N FORCE [MERGE OPTION...]: split the data
# directory SRC into N parts, run "python -m MODULE --config CONFIG" on each part (through
# $decode_cmd, logs DIR/log/WHAT.JOB.log) into DIR/part.JOB, then merge the parts into DIR
audio_parallel() {
  local stage=$1 what=$2 module=$3 config=$4 src=$5 dir=$6 n=$7 force=$8
  shift 8
  rm -f "$dir/.done"
  python -m punct.bin.datadir_tools split --nj "$n" "$src" || die "stage $stage: splitting $src failed"
  # shellcheck disable=SC2046
  $decode_cmd JOB=1:"$n" "$dir/log/$what.JOB.log" python -m "$module" --config "$config" \
    --data "$src/split$n/JOB" --out-dir "$dir/part.JOB" $(audio_force_opt "$force") \
    || die "stage $stage: $what of $src failed (logs: $dir/log/$what.*.log)"
  python -m "$module" --config "$config" --merge "$n" --data "$src" --out-dir "$dir" "$@" \
    || die "stage $stage: merging $dir failed"
}

# audio_align DATA EXP NJ FORCE SET...: stage 2, forced alignment of the reference transcripts
audio_align() {
  local data=$1 exp=$2 nj=$3 force=$4 set dir n
  shift 4
  for set in "$@"; do
    dir=$exp/align_$set
    if [ -f "$dir/.done" ] && [ -f "$data/$set/word_times.done" ] && [ "$force" != true ]; then
      log "stage 2: forced alignment of $set: $dir is finished; skipping"; continue
    fi
    n=$(audio_jobs "$data/$set" "$nj")
    log "stage 2: forced alignment: $data/$set (wav.scp, text) -> $data/$set/word_times," \
      "$dir/{words.ctm,phones.ctm,textgrid/}; $n jobs, logs: $dir/log/align.*.log"
    python -m punct.bin.align --config conf/align.yaml --prepare-lts --data "$data/$set" || die "stage 2: letter-to-sound preparation failed"
    audio_parallel 2 align punct.bin.align conf/align.yaml "$data/$set" "$dir" "$n" "$force"
  done
}

# audio_decode DATA EXP NJ FORCE SET...: stage 3, ASR hypotheses -> DATA/SET_hyp, WER in exp/.../asr_SET/scoring/
audio_decode() {
  local data=$1 exp=$2 nj=$3 force=$4 set dir hyp n
  shift 4
  for set in "$@"; do
    dir=$exp/asr_$set
    hyp=$data/${set}_hyp
    if [ -f "$dir/.done" ] && [ -f "$hyp/.done" ] && [ "$force" != true ]; then
      log "stage 3: ASR decoding of $set: $hyp is finished; skipping"; continue
    fi
    n=$(audio_jobs "$data/$set" "$nj")
    log "stage 3: ASR decoding: $data/$set (wav.scp) -> $hyp/{text,word_times,word_conf,ctm}," \
      "WER in $dir/scoring/; $n jobs, logs: $dir/log/decode.*.log"
    audio_parallel 3 decode punct.bin.asr_decode conf/asr.yaml "$data/$set" "$dir" "$n" "$force" --hyp-dir "$hyp"
  done
}

# audio_features DATA EXP NJ FORCE SET...: stage 4, pause features (from word times) and pitch/energy
# features (from audio) of every SET (aligned reference) and SET_hyp (decoded hypotheses)
audio_features() {
  local data=$1 exp=$2 nj=$3 force=$4 set d dir n
  shift 4
  for set in "$@"; do
    for d in "$set" "${set}_hyp"; do
      [ -f "$data/$d/word_times" ] || die "stage 4: $data/$d/word_times not found (run stages 2 and 3 first)"
      if [ -f "$data/$d/pause.done" ] && [ "$force" != true ]; then
        log "stage 4: pause features of $d are finished; skipping"
      else
        log "stage 4: pause features: $data/$d/word_times -> $data/$d/pause.{ark,scp,names}"
        # shellcheck disable=SC2046
        python -m punct.bin.pause_feats --data "$data/$d" $(audio_force_opt "$force") || die "stage 4: pause features of $d failed"
      fi
      dir=$exp/prosody_$d
      if [ -f "$data/$d/prosody.done" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
        log "stage 4: pitch/energy features of $d are finished; skipping"; continue
      fi
      n=$(audio_jobs "$data/$d" "$nj")
      log "stage 4: pitch/energy features: $data/$d (wav.scp, word_times) -> $data/$d/prosody.{ark,scp,names};" \
        "$n jobs, logs: $dir/log/prosody.*.log"
      audio_parallel 4 prosody punct.bin.prosody_feats conf/prosody.yaml "$data/$d" "$dir" "$n" "$force"
    done
  done
}

# audio_transfer DATA EXP FORCE SET...: stage 5, reference marks -> SET_hyp/labels
audio_transfer() {
  local data=$1 exp=$2 force=$3 set
  shift 3
  for set in "$@"; do
    if [ -f "$data/${set}_hyp/labels.done" ] && [ "$force" != true ]; then
      log "stage 5: punctuation transfer onto ${set}_hyp is finished; skipping"; continue
    fi
    log "stage 5: punctuation transfer: $data/$set (text, labels) -> $data/${set}_hyp/labels;" \
      "statistics: $exp/transfer_$set/report.json"
    # shellcheck disable=SC2046
    python -m punct.bin.transfer --ref "$data/$set" --hyp "$data/${set}_hyp" \
      --report "$exp/transfer_$set/report.json" $(audio_force_opt "$force") || die "stage 5: transfer onto ${set}_hyp failed"
  done
}
