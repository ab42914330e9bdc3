# Earnings calls: lexical models trained on TED text and on Earnings-22 references
# (spontaneous speech), tuned on held-out Earnings-22 calls, and tested on the 33
# Earnings-21 calls: on the reference words, and on two real Kaldi CTMs (the public
# LibriSpeech model, ~49% WER, and a commercial Kaldi model, ~13% WER) with the
# reference marks carried onto the hypothesis words by edit distance (stage 5).
# The commercial engines' own punctuation on the same calls is scored with the same
# scorer (stage 9), so RESULTS.md puts punct beside them. Stage 4 computes pause
# features from the word times (Earnings-22 alignments, the Kaldi CTMs); stage 7
# trains the acoustic and fusion models on them (two-stage TA-BRNN/TA-LSTM over the
# lexical models of stage 6, T-LSTM-p, Che et al.'s Pause model and joint decision)
# and decodes and scores them on the Kaldi CTMs. See recipes/earnings/README.md.
# shellcheck shell=bash
train_sets="e22_train ted_e22"
valid_set="e22_dev"
test_sets="e21_ref e21_kaldi_libri e21_kaldi_rev"
hyp_sets="e21_kaldi_libri e21_kaldi_rev"
engines="amazon google microsoft speechmatics"
# name|config|train set|config overrides
# The Earnings models are the compact T-BRNN of conf/default.yaml (128 units, 30K
# words): on 5.8M words the paper's 256-unit size costs 2-3x the CPU time per epoch.
# The 256-unit T-BRNN of the paper is trained and compared on IWSLT2011.
experiments=(
  "tbrnn_e22|conf/default.yaml|e22_train|"  # in-domain text only (0.9M words)
  # TED + Earnings-22 text; stage one of the shipped models/default.pt (TA-BRNN-p over it,
  # exported from exp/earnings/ta_brnn_p: models/README.md)
  "default|conf/default.yaml|ted_e22|"
  "tlstm_ted_e22|conf/tlstm.yaml|ted_e22|"  # stage one of TA-LSTM(-p)
  # the accurate tier: MPNet with a case head, the teacher of the default (many CPU-hours)
  "mpnet|conf/mpnet.yaml|ted_e22|"
)
# stage 7: name|config|stage-one experiment (empty: a single-stage model)|config overrides,
# trained on e22_train (pause-annotated speech), validated on e22_dev
acoustic_experiments=(
  "ta_brnn_p|conf/ta_brnn_p.yaml|default|model_args.hidden_size=128"  # stage two as wide as stage one
  "ta_brnn|conf/ta_brnn.yaml|default|model_args.hidden_size=128"
  "ta_lstm_p|conf/ta_lstm_p.yaml|tlstm_ted_e22|"
  "ta_mpnet_p|conf/ta_mpnet_p.yaml|mpnet|"  # the accurate tier with pauses (its stage one: mpnet)
  "ta_lstm|conf/ta_lstm.yaml|tlstm_ted_e22|"
  "tlstm_p_e22|conf/tlstm_p.yaml||"
  "pause|conf/che_pause.yaml||"
)
# stage 7: the joint decision of Che et al., lexical experiment|acoustic experiment
joint_systems="default|pause"
# stage 7: the sets with pause features the acoustic systems are scored on
acoustic_test_sets="e21_kaldi_libri e21_kaldi_rev"
# shellcheck disable=SC1091
. local/acoustic.sh

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
  local data=$1 set force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  for set in $hyp_sets; do
    log "stage 5: punctuation transfer: $data/e21_ref -> $data/$set/labels"
    python -m punct.bin.transfer --ref "$data/e21_ref" --hyp "$data/$set" \
      --report "$data/$set/transfer.json" "${force_opt[@]}" \
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
  done  # the hypothesis WER of our alignment, cross-checked by NIST sclite on the shortest call
  # (sclite needs about 10 minutes for one hour-long segment of 2,700 words)
  local set utt
  utt=$(awk '{print NF, $1}' "$data/e21_ref/text" | sort -n | head -n 1 | cut -d' ' -f2)
  # shellcheck disable=SC2043  # one hypothesis set now; the loop takes more
  for set in e21_kaldi_rev; do
    out=$exp/wer_$set
    if [ -f "$out/wer.json" ] && [ "$force" != true ]; then
      log "stage 9: $out/wer.json exists; skipping the sclite cross-check (--force true to redo)"
      continue
    fi
    log "stage 9: WER of $set on call $utt, punct.score and sclite -> $out/wer.json"
    mkdir -p "$out"
    echo "python -m punct.bin.wer --ref $data/e21_ref --hyp $data/$set --utt $utt --out-dir $out" > "$out/run.cmd"
    python -m punct.bin.wer --ref "$data/e21_ref" --hyp "$data/$set" --utt "$utt" --out-dir "$out" \
      || die "WER cross-check of $set failed"
  done
}

# stage 4: per-word pause features from the word times (speaker changes from word_speakers);
# Earnings has no audio, so no pitch or energy (PPE runs on LJ Speech in stage 7)
corpus_features() {
  local data=$1 set force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  for set in e22_train e22_dev $hyp_sets; do
    log "stage 4: pause features: $data/$set/word_times -> $data/$set/pause.{ark,scp,names}"
    python -m punct.bin.pause_feats --data "$data/$set" "${force_opt[@]}" \
      || die "pause features of $data/$set failed"
  done
  log "stage 4: pitch and energy: the Earnings corpora come without audio; nothing to do"
}

# stage 7: the acoustic and fusion models (recipes/earnings/README.md lists them and their cost)
corpus_train_acoustic() {
  local data=$1 exp=$2 spec name config stage1 dir set lex ac tag st
  for spec in "${acoustic_experiments[@]}"; do
    IFS='|' read -r name config stage1 extra <<< "$spec"
    dir=$(exp_dir "$name")
    if [ -n "$stage1" ]; then
      [ -f "$(exp_dir "$stage1")/best.pt" ] || die "stage 7: $name builds on $(exp_dir "$stage1")/best.pt: run stage 6 first"
      # shellcheck disable=SC2086
      acoustic_train "$name" "$config" "$data/e22_train" "$data/$valid_set" "$dir" \
        "init_from=$(exp_dir "$stage1")/best.pt" $extra
    else
      # shellcheck disable=SC2086
      acoustic_train "$name" "$config" "$data/e22_train" "$data/$valid_set" "$dir" $extra
    fi
    for set in $acoustic_test_sets; do
      acoustic_decode "$dir" "$data" "$set" "$(corpus_score_ref "$data" "$set")"
    done
  done
  for spec in $joint_systems; do
    IFS='|' read -r lex ac <<< "$spec"
    selected "$ac" || continue  # run.sh --models: a joint system goes with its acoustic model
    tag=${lex}_${ac}
    joint_tune "$(exp_dir "$lex")/best.pt" "$(exp_dir "$ac")/best.pt" "$data/$valid_set" "$data/e22_train" \
      "$(exp_dir "joint_$tag")"
    for set in $acoustic_test_sets; do
      for st in 1 2; do
        joint_system "$st" "$(exp_dir "$lex")/best.pt" "$(exp_dir "$ac")/best.pt" "$(exp_dir "joint_$tag")/joint.yaml" \
          "$(exp_dir "joint${st}_$tag")" "$data" "$set" "$(corpus_score_ref "$data" "$set")"
      done
    done
  done
  # PPE needs pitch and energy, so audio: it runs on LJ Speech when its stages 1-5 are done
  local lj=${data%/*}/ljspeech
  if ! selected ppe; then
    log "stage 7: PPE on LJ Speech: not among --models; skipping"
  elif [ -f "$lj/train/prosody.done" ] && [ -f "$lj/dev/prosody.done" ] && [ -f "$lj/test/prosody.done" ]; then
    acoustic_ljspeech "$lj" "${exp%/*}/ljspeech" "$(exp_dir "${joint_systems%%|*}")/best.pt"
  else
    log "stage 7: PPE (pause, pitch, energy) needs audio; Earnings has none and $lj has no prosody features:" \
      "run ./run.sh --corpus ljspeech --stop-stage 5 (same --data-root), then this stage again"
  fi
}
