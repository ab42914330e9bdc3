# The quick default recipe (./run.sh with no options): small slices of the real
# IWSLT2011/TED corpora, so that the whole recipe runs in minutes on 2 cores.
# It uses the iwslt2011 preparation with word budgets; numbers from it are a
# smoke test of the pipeline, not a benchmark (see recipes/iwslt2011 for that).
# Its sets and experiments: experiments.yaml.
# shellcheck shell=bash
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
corpus_align() { audio_align "$@" lj; }
corpus_asr_decode() { audio_decode "$@" lj; }
corpus_features() { audio_features "$@" lj; }
corpus_transfer() { audio_transfer "$@" lj; }
# stage 11: what a user gets: the shipped default punctuating a few Earnings-21 calls as two
# Kaldi recognizers wrote them and the TED test set, scored beside the previous default (as
# the commit quick_showcase_baseline shipped it) and the engines' own marks
quick_showcase_baseline=${quick_showcase_baseline:-061dda3}  # the last commit with the T-BRNN-p default
corpus_showcase() {
  local data=$1 exp=$2 corpus_dir=$3
  log "stage 11: showcase: models/default.pt and the default of $quick_showcase_baseline on Earnings-21 Kaldi CTMs and test2011 -> $exp/showcase/table.txt"
  python recipes/quick/showcase.py --corpus-dir "$corpus_dir" --data "$data" --out "$exp/showcase" \
    --calls "${quick_showcase_calls:-3}" --baseline "git:$quick_showcase_baseline"
}
