# Earnings calls: lexical models trained on TED text and on Earnings-22 references
# (spontaneous speech), tuned on held-out Earnings-22 calls, and tested on the 33
# Earnings-21 calls: on the reference words, and on two real Kaldi CTMs (the public
# LibriSpeech model, ~49% WER, and a commercial Kaldi model, ~13% WER) with the
# reference marks carried onto the hypothesis words by edit distance (stage 5).
# The commercial engines' own punctuation on the same calls is scored with the same
# scorer (stage 9), so RESULTS.md puts punct beside them. See recipes/earnings/README.md.
# shellcheck shell=bash
train_sets="e22_train ted_e22"
valid_set="e22_dev"
test_sets="e21_ref e21_kaldi_libri e21_kaldi_rev"
hyp_sets="e21_kaldi_libri e21_kaldi_rev"
engines="amazon google microsoft speechmatics"
# name|config|train set|config overrides
experiments=(
  "tbrnn_e22|conf/tbrnn.yaml|e22_train|"
  "tbrnn_ted_e22|conf/tbrnn.yaml|ted_e22|"
)

prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  # TED talks tokenized as for IWSLT2011 (all of ted/), re-spelled like ASR output below
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --sets train --train-name ted_iwslt --train-words "${earnings_ted_words:-0}" --force "$force"
  python recipes/earnings/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --ted-dir "$out/ted_iwslt" --max-calls "${earnings_max_calls:-0}" --force "$force"
}

# stage 5: the reference marks onto the Kaldi hypotheses
corpus_transfer() {
  local data=$1 set
  for set in $hyp_sets; do
    log "stage 5: punctuation transfer: $data/e21_ref -> $data/$set/labels"
    python -m punct.bin.transfer --ref "$data/e21_ref" --hyp "$data/$set" \
      --report "$data/$set/transfer.json" $( [ "$force" = true ] && echo --force ) \
      || die "punctuation transfer onto $data/$set failed"
  done
}

# stage 9: every Earnings-21 condition is scored against the reference words
corpus_score_ref() { echo "$1/e21_ref"; }

# stage 9: the engines' own punctuation, scored like punct's output
corpus_score_others() {
  local data=$1 exp=$2 e out
  for e in $engines; do
    out=$exp/$e/decode_e21_$e
    mkdir -p "$out"
    echo "./run.sh --corpus earnings --stage 9 --stop-stage 9" > "$exp/$e/run.cmd"
    log "stage 9: score $e's own punctuation: $data/e21_ref vs $data/e21_$e -> $out/scoring/"
    python -m punct score "$data/e21_ref" "$data/e21_$e" --out-dir "$out/scoring" > /dev/null \
      || die "scoring $e failed"
  done
}
