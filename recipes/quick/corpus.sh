# The quick default recipe (./run.sh with no options): small slices of the real
# IWSLT2011/TED corpora, so that the whole recipe runs in minutes on 2 cores.
# It uses the iwslt2011 preparation with word budgets; numbers from it are a
# smoke test of the pipeline, not a benchmark (see recipes/iwslt2011 for that).
# shellcheck shell=bash
train_sets="train"
valid_set="dev2012"
test_sets="test2011"
# name|config|train set|config overrides
experiments=(
  # 150K words are only 7 batches of 128 slices: smaller batches give the model enough updates.
  # The per-word mean loss goes with them: punctuator2's summed loss (conf/tbrnn.yaml), whose
  # every step is clipped to norm 2, stayed at the label prior for 3 epochs of 16-slice batches
  # (0.0 F1 on test2011, against 30.8 with the mean)
  "tbrnn|conf/tbrnn.yaml|train|max_epochs=${quick_epochs:-3} batch_size=16 loss_reduction=mean"
  # T-LSTM (seconds here), and both as an ensemble: the weighted mean of their posteriors labels
  # each word, the weights and the decision bias of each mark chosen on dev2012
  "tlstm|conf/tlstm.yaml|train|max_epochs=${quick_epochs:-3} batch_size=16"
  "tbrnn_tlstm|ensemble|tbrnn+tlstm|weights=tune bias=tune"
)
prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  python recipes/iwslt2011/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --train-words "${quick_train_words:-150000}" --dev-words "${quick_dev_words:-10000}" \
    --test-words 0 --force "$force"
  # a few LJ Speech clips, so that the audio stages (2-5) run in the quick recipe too
  python recipes/ljspeech/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" \
    --splits lj:1 --max-utts "${quick_lj_clips:-8}" --force "$force"
}
# The audio stages on data/quick/lj (local/audio_stages.sh): alignment,
# decoding into lj_hyp, pause/pitch/energy features, punctuation transfer.
has_audio=true
hyp_sets="lj_hyp"
# shellcheck disable=SC1091
. local/audio_stages.sh
corpus_align() { audio_align "$1" "$2" lj; }
corpus_asr_decode() { audio_decode "$1" "$2" lj; }
corpus_features() { audio_features "$1" "$2" lj; }
corpus_transfer() { audio_transfer "$1" lj; }
# stage 11: what a user gets: the shipped default punctuating a few Earnings-21 calls as two
# Kaldi recognizers wrote them and the TED test set, scored beside the engines' own marks
corpus_showcase() {
  log "stage 11: showcase: models/default.pt on Earnings-21 Kaldi CTMs and test2011 -> $2/showcase/table.txt"
  python recipes/quick/showcase.py --corpus-dir "$corpus_dir" --data "$1" --out "$2/showcase" \
    --calls "${quick_showcase_calls:-3}"
}
