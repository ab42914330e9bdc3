# The audio stages (2-5) of a corpus with audio, as the loops over its sets that a corpus.sh
# calls from its hooks (corpus_align, corpus_asr_decode, corpus_features, corpus_transfer).
# Sourced by recipes/ljspeech/corpus.sh and recipes/quick/corpus.sh (any corpus with wav.scp
# can use them). Each set is one call of a step of local/steps/ (split into parts, one job
# per part through cmd.sh's $decode_cmd, merged; a rerun skips finished sets and parts).
# Their inputs come as arguments: DATA (data/<corpus>), EXP (exp/<corpus>), NJ, FORCE.
# shellcheck shell=bash

# audio_align DATA EXP NJ FORCE SET...: stage 2, forced alignment of the reference transcripts
audio_align() {
  local data=$1 exp=$2 nj=$3 force=$4 set
  shift 4
  for set in "$@"; do
    local/steps/align.sh --cmd "$decode_cmd" --nj "$nj" --force "$force" "$data/$set" "$exp/align_$set" || exit 1
  done
}

# audio_decode DATA EXP NJ FORCE SET...: stage 3, ASR hypotheses -> DATA/SET_hyp, WER in EXP/asr_SET/scoring/
audio_decode() {
  local data=$1 exp=$2 nj=$3 force=$4 set
  shift 4
  for set in "$@"; do
    local/steps/asr_decode.sh --cmd "$decode_cmd" --nj "$nj" --force "$force" "$data/$set" "$data/${set}_hyp" \
      "$exp/asr_$set" || exit 1
  done
}

# audio_features DATA EXP NJ FORCE SET...: stage 4, pause features (from word times) and pitch and
# energy features (from audio) of every SET (aligned reference) and SET_hyp (decoded hypotheses)
audio_features() {
  local data=$1 exp=$2 nj=$3 force=$4 set d
  shift 4
  for set in "$@"; do
    for d in "$set" "${set}_hyp"; do
      [ -f "$data/$d/word_times" ] || die "stage 4: $data/$d/word_times not found (run stages 2 and 3 first)"
      local/steps/make_pause.sh --force "$force" "$data/$d" || exit 1
      local/steps/make_prosody.sh --cmd "$decode_cmd" --nj "$nj" --force "$force" "$data/$d" "$exp/prosody_$d" || exit 1
    done
  done
}

# audio_transfer DATA EXP FORCE SET...: stage 5, reference marks -> SET_hyp/labels
audio_transfer() {
  local data=$1 exp=$2 force=$3 set
  shift 3
  for set in "$@"; do
    local/steps/transfer.sh --force "$force" --report "$exp/transfer_$set/report.json" "$data/$set" "$data/${set}_hyp" \
      || exit 1
  done
}
