# LJ Speech, chapters LJ001-LJ002 (385 clips, 41.7 min, one speaker reading
# non-fiction): the audio path of the recipe. Stage 1 prepares train/dev/test
# (contiguous blocks of clips, 80/10/10); stage 2 force-aligns the punctuated
# references (pocketsphinx); stage 3 decodes the audio (pocketsphinx en-us) into
# <set>_hyp; stage 4 computes pause, pitch and energy features of every set;
# stage 5 carries the reference marks onto the hypotheses (<set>_hyp/labels).
# The prosodic models train on them in recipes/earnings's stage 7 (experiments.yaml).
# See recipes/ljspeech/README.md.
# shellcheck shell=bash
has_audio=true
audio_sets="train dev test"
hyp_sets="train_hyp dev_hyp test_hyp"
# shellcheck disable=SC1091
. local/audio_stages.sh

prepare_data() {
  local corpus_dir=$1 out=$2 force=$3
  python recipes/ljspeech/prepare.py --corpus-dir "$corpus_dir" --out-dir "$out" --force "$force"
}
# shellcheck disable=SC2086
corpus_align() { audio_align "$@" $audio_sets; }
# shellcheck disable=SC2086
corpus_asr_decode() { audio_decode "$@" $audio_sets; }
# shellcheck disable=SC2086
corpus_features() { audio_features "$@" $audio_sets; }
# shellcheck disable=SC2086
corpus_transfer() { audio_transfer "$@" $audio_sets; }
