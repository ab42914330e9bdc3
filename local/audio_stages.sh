# The audio stages (2-5) of a corpus with audio, as functions that a corpus.sh
# calls from its hooks (corpus_align, corpus_asr_decode, corpus_features,
# corpus_transfer). Sourced by recipes/ljspeech/corpus.sh and recipes/quick/corpus.sh (any
# corpus with wav.scp can use them).
# They use run.sh's variables: $exp (exp/<corpus>), $force, $decode_cmd (cmd.sh).
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

# audio_force_opt: --force for the Python stages when run.sh was given --force true
audio_force_opt() { [ "$force" = true ] && echo "--force" || true; }

# audio_align DATA NJ SET...: stage 2, forced alignment of the reference transcripts
audio_align() {
  local data=$1 nj=$2 set dir n
  shift 2
  for set in "$@"; do
    dir=$exp/align_$set
    if [ -f "$dir/.done" ] && [ -f "$data/$set/word_times.done" ] && [ "$force" != true ]; then
      log "stage 2: forced alignment of $set: $dir is finished; skipping"; continue
    fi
    n=$(audio_jobs "$data/$set" "$nj")
    log "stage 2: forced alignment: $data/$set (wav.scp, text) -> $data/$set/word_times," \
      "$dir/{words.ctm,phones.ctm,textgrid/}; $n jobs, logs: $dir/log/align.*.log"
    rm -f "$dir/.done"
    python -m punct.bin.align --config conf/align.yaml --prepare-lts --data "$data/$set" || die "stage 2: letter-to-sound preparation failed"
    python -m punct.bin.datadir_tools split --nj "$n" "$data/$set" || die "stage 2: splitting $data/$set failed"
    # shellcheck disable=SC2046
    $decode_cmd JOB=1:"$n" "$dir/log/align.JOB.log" python -m punct.bin.align --config conf/align.yaml \
      --data "$data/$set/split$n/JOB" --out-dir "$dir/part.JOB" $(audio_force_opt) \
      || die "stage 2: alignment of $set failed (logs: $dir/log/align.*.log)"
    python -m punct.bin.align --merge "$n" --data "$data/$set" --out-dir "$dir" || die "stage 2: merging $dir failed"
  done
}

# audio_decode DATA NJ SET...: stage 3, ASR hypotheses -> DATA/SET_hyp, WER in exp/.../asr_SET/scoring/
audio_decode() {
  local data=$1 nj=$2 set dir hyp n
  shift 2
  for set in "$@"; do
    dir=$exp/asr_$set
    hyp=$data/${set}_hyp
    if [ -f "$dir/.done" ] && [ -f "$hyp/.done" ] && [ "$force" != true ]; then
      log "stage 3: ASR decoding of $set: $hyp is finished; skipping"; continue
    fi
    n=$(audio_jobs "$data/$set" "$nj")
    log "stage 3: ASR decoding: $data/$set (wav.scp) -> $hyp/{text,word_times,word_conf,ctm}," \
      "WER in $dir/scoring/; $n jobs, logs: $dir/log/decode.*.log"
    rm -f "$dir/.done"
    python -m punct.bin.datadir_tools split --nj "$n" "$data/$set" || die "stage 3: splitting $data/$set failed"
    # shellcheck disable=SC2046
    $decode_cmd JOB=1:"$n" "$dir/log/decode.JOB.log" python -m punct.bin.asr_decode --config conf/asr.yaml \
      --data "$data/$set/split$n/JOB" --out-dir "$dir/part.JOB" $(audio_force_opt) \
      || die "stage 3: decoding of $set failed (logs: $dir/log/decode.*.log)"
    python -m punct.bin.asr_decode --merge "$n" --data "$data/$set" --out-dir "$dir" --hyp-dir "$hyp" \
      || die "stage 3: merging $dir failed"
  done
}

# audio_features DATA NJ SET...: stage 4, pause features (from word times) and pitch/energy
# features (from audio) of every SET (aligned reference) and SET_hyp (decoded hypotheses)
audio_features() {
  local data=$1 nj=$2 set d dir n
  shift 2
  for set in "$@"; do
    for d in "$set" "${set}_hyp"; do
      [ -f "$data/$d/word_times" ] || die "stage 4: $data/$d/word_times not found (run stages 2 and 3 first)"
      if [ -f "$data/$d/pause.done" ] && [ "$force" != true ]; then
        log "stage 4: pause features of $d are finished; skipping"
      else
        log "stage 4: pause features: $data/$d/word_times -> $data/$d/pause.{ark,scp,names}"
        # shellcheck disable=SC2046
        python -m punct.bin.pause_feats --data "$data/$d" $(audio_force_opt) || die "stage 4: pause features of $d failed"
      fi
      dir=$exp/prosody_$d
      if [ -f "$data/$d/prosody.done" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
        log "stage 4: pitch/energy features of $d are finished; skipping"; continue
      fi
      n=$(audio_jobs "$data/$d" "$nj")
      log "stage 4: pitch/energy features: $data/$d (wav.scp, word_times) -> $data/$d/prosody.{ark,scp,names};" \
        "$n jobs, logs: $dir/log/prosody.*.log"
      rm -f "$dir/.done"
      python -m punct.bin.datadir_tools split --nj "$n" "$data/$d" || die "stage 4: splitting $data/$d failed"
      # shellcheck disable=SC2046
      $decode_cmd JOB=1:"$n" "$dir/log/prosody.JOB.log" python -m punct.bin.prosody_feats --config conf/prosody.yaml \
        --data "$data/$d/split$n/JOB" --out-dir "$dir/part.JOB" $(audio_force_opt) \
        || die "stage 4: pitch/energy features of $d failed (logs: $dir/log/prosody.*.log)"
      python -m punct.bin.prosody_feats --config conf/prosody.yaml --merge "$n" --data "$data/$d" --out-dir "$dir" \
        || die "stage 4: merging $dir failed"
    done
  done
}

# audio_transfer DATA SET...: stage 5, reference marks -> SET_hyp/labels
audio_transfer() {
  local data=$1 set
  shift
  for set in "$@"; do
    if [ -f "$data/${set}_hyp/labels.done" ] && [ "$force" != true ]; then
      log "stage 5: punctuation transfer onto ${set}_hyp is finished; skipping"; continue
    fi
    log "stage 5: punctuation transfer: $data/$set (text, labels) -> $data/${set}_hyp/labels;" \
      "statistics: $exp/transfer_$set/report.json"
    # shellcheck disable=SC2046
    python -m punct.bin.transfer --ref "$data/$set" --hyp "$data/${set}_hyp" \
      --report "$exp/transfer_$set/report.json" $(audio_force_opt) || die "stage 5: transfer onto ${set}_hyp failed"
  done
}
