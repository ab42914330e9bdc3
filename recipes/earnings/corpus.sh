# Earnings calls: lexical models trained on TED text and on Earnings-22 references
# (spontaneous speech), tuned on held-out Earnings-22 calls, and tested on the 33
# Earnings-21 calls: on the reference words, and on two real Kaldi CTMs (the public
# LibriSpeech model, ~49% WER, and a commercial Kaldi model, ~13% WER) with the
# reference marks carried onto the hypothesis words by edit distance (stage 5).
# The commercial engines' own punctuation on the same calls is scored with the same
# scorer (stage 9), so RESULTS.md puts punct beside them. Stage 4 computes pause
# features from the word times (Earnings-22 alignments, the Kaldi CTMs); stage 7
# trains the acoustic and fusion models on them (two-stage TA-BRNN/TA-LSTM over the
# lexical models of stage 6, T-LSTM-p, Che et al.'s Pause model and joint decision),
# and stages 8 and 9 decode and score them on the Kaldi CTMs. See recipes/earnings/README.md.
# Its sets and experiments: experiments.yaml.
# shellcheck shell=bash
hyp_sets="e21_kaldi_libri e21_kaldi_rev"
engines="amazon google microsoft speechmatics"

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
  local data=$1 force=$3 set
  for set in $hyp_sets; do
    local/steps/transfer.sh --force "$force" "$data/e21_ref" "$data/$set" || exit 1
  done
}

# stage 9: the engines' own punctuation, scored like punct's output
corpus_score_others() {
  local data=$1 exp=$2 force=$3 e out
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
    log "stage 9: WER of $set on call $utt, punct.scoring.score and sclite -> $out/wer.json"
    mkdir -p "$out"
    echo "python -m punct.bin.wer --ref $data/e21_ref --hyp $data/$set --utt $utt --out-dir $out" > "$out/run.cmd"
    python -m punct.bin.wer --ref "$data/e21_ref" --hyp "$data/$set" --utt "$utt" --out-dir "$out" \
      || die "WER cross-check of $set failed"
  done
}

# stage 4: per-word pause features from the word times (speaker changes from word_speakers);
# Earnings has no audio, so no pitch or energy (PPE runs on LJ Speech in stage 7)
corpus_features() {
  local data=$1 force=$4 set
  for set in e22_train e22_dev $hyp_sets; do
    local/steps/make_pause.sh --force "$force" "$data/$set" || exit 1
  done
  log "stage 4: pitch and energy: the Earnings corpora come without audio; nothing to do"
}

# stages 7-9, experiment ppe: PPE needs pitch and energy, so audio: Pause and PPE on LJ Speech
# (ljspeech_prosody) when its stages 1-5 are done, with the joint decision of LEXICAL (the
# default's best.pt) and PPE; RUNCMD goes into the run.cmd of each
corpus_ppe() {
  local st=$1 data=$2 exp=$3 force=$4 cmd=$5 lexical=$6
  local lj=${data%/*}/ljspeech
  if [ -f "$lj/train/prosody.done" ] && [ -f "$lj/dev/prosody.done" ] && [ -f "$lj/test/prosody.done" ]; then
    ljspeech_prosody "$st" "$lj" "${exp%/*}/ljspeech" "$cmd" "$force" "$lexical"
  else
    log "stage $st: PPE (pause, pitch, energy) needs audio; Earnings has none and $lj has no prosody features:" \
      "run ./run.sh --corpus ljspeech --stop-stage 5 (same --data-root), then stages 7-9 again"
  fi
}

# ljspeech_prosody STAGE LJDATA LJEXP RUNCMD FORCE [LEXICAL]: the prosodic models on LJ Speech,
# the corpus with audio (pitch and energy): Pause and PPE trained on train (validated on dev) in
# stage 7, decoded on test and test_hyp in stage 8 and scored in stage 9; with a lexical model
# LEXICAL (a best.pt), that model alone and its joint decision with PPE (tuned on dev in stage 7)
ljspeech_prosody() {
  local st=$1 lj=$2 ljexp=$3 cmd=$4 force=$5 lexical=${6:-} model tag joint set s
  for model in pause ppe; do
    if [ "$st" = 7 ]; then
      local/steps/train.sh --cmd "$train_cmd" --force "$force" --run-cmd "$cmd" "conf/che_$model.yaml" "$lj/train" \
        "$lj/dev" "$ljexp/$model" || exit 1
    fi
    for set in test test_hyp; do
      lj_decode "$st" "$ljexp/$model" "$lj/$set" "$force" "$ljexp/$model/best.pt"
    done
  done
  [ -n "$lexical" ] || return 0
  tag=$(basename "$(dirname "$lexical")")
  joint=$ljexp/joint_${tag}_ppe
  if [ "$st" = 7 ]; then
    local/steps/joint_tune.sh --cmd "$decode_cmd" --force "$force" "$lexical" "$ljexp/ppe/best.pt" "$lj/dev" \
      "$lj/train" "$joint" || exit 1
    return 0
  fi
  for set in test test_hyp; do
    # the lexical model alone on the same sets: the baseline of the joint decision
    lj_decode "$st" "$ljexp/lexical_$tag" "$lj/$set" "$force" "$lexical"
    echo "$cmd" > "$ljexp/lexical_$tag/run.cmd"
    for s in 1 2; do
      mkdir -p "$ljexp/joint${s}_${tag}_ppe"
      echo "$cmd" > "$ljexp/joint${s}_${tag}_ppe/run.cmd"
      if [ "$st" = 8 ]; then
        local/steps/joint_decode.sh --cmd "$decode_cmd" --force "$force" --stage "$s" "$lexical" "$ljexp/ppe/best.pt" \
          "$joint/joint.yaml" "$lj/$set" "$ljexp/joint${s}_${tag}_ppe/decode_$set" || exit 1
      else
        local/steps/score.sh "$lj/${set%_hyp}" "$ljexp/joint${s}_${tag}_ppe/decode_$set" || exit 1
      fi
    done
  done
}

# lj_decode STAGE DIR SETDIR FORCE MODEL: stage 8 decodes SETDIR with MODEL (a best.pt) into
# DIR/decode_<set>, stage 9 scores that against the reference (SETDIR without _hyp)
lj_decode() {
  local st=$1 dir=$2 setdir=$3 force=$4 model=$5
  case $st in
    8) mkdir -p "$dir"
       local/steps/decode.sh --cmd "$decode_cmd" --force "$force" --inputs "$model" "$setdir" \
         "$dir/decode_${setdir##*/}" --model "$model" || exit 1 ;;
    9) local/steps/score.sh "${setdir%_hyp}" "$dir/decode_${setdir##*/}" || exit 1 ;;
  esac
}

# stage 6, experiments teacher_posteriors and teacher_posteriors_ted: the accurate tier's
# posteriors (marks and case) on the distillation set 'distill' or on all of 'ted_e22', the
# feature set 'teacher' that a student is distilled from (distill_from: teacher). Resumable
# by chunks; skipped when done unless FORCE.
corpus_teacher_posteriors() { teacher_posteriors_on distill teacher_posteriors "$@"; }
corpus_teacher_posteriors_ted() { teacher_posteriors_on ted_e22 teacher_posteriors_ted "$@"; }
# experiment teacher_posteriors_lead: the same on 'ted_e22_lead', the leading 3,071,349 words of
# 'ted_e22' (made here when missing: its first 1,211 utterances, all the Earnings-22 training
# calls and 2.2M words of TED). Its chunks are ted_e22's first 64, cut and decoded alike, so
# its posteriors are the same numbers as theirs
corpus_teacher_posteriors_lead() {
  local data=$2
  if [ ! -f "$data/ted_e22_lead/.done" ]; then
    [ -f "$data/ted_e22/text" ] || die "stage 6: $data/ted_e22/text not found: run stage 1"
    python -m punct.bin.datadir_tools subset "$data/ted_e22" "$data/ted_e22_lead" --words 3071349 -q \
      || die "stage 6: could not make $data/ted_e22_lead"
  fi
  teacher_posteriors_on ted_e22_lead teacher_posteriors_lead "$@"
}
# experiment teacher_posteriors_p: the accurate tier's pause stage (models/accurate/pauses.pt,
# beside the state file it needs) on the pause-annotated calls e22_train, the feature set
# 'teacher_p' that a student's pause stage is distilled from (ta_student_ted_pd)
corpus_teacher_posteriors_p() {
  teacher_posteriors_on e22_train teacher_posteriors_p "${@:1:5}" "$(dirname "$6")/pauses.pt" teacher_p
}

# teacher_posteriors_on SET EXPERIMENT STAGE DATA EXP FORCE RUNCMD TEACHER [NAME]: the feature set
# NAME (default teacher) of DATA/SET; its log in EXP/EXPERIMENT
teacher_posteriors_on() {
  local set=$1 data=$4 exp=$5 force=$6 cmd=$7 teacher=$8 name=${9:-teacher}
  local out=$exp/$2 force_opt=()
  [ "$force" = true ] && force_opt=(--force)
  [ -f "$data/$set/text" ] || die "stage 6: $data/$set/text not found: run stage 1 (it prepares the set '$set')"
  mkdir -p "$out/log"
  echo "$cmd" > "$out/run.cmd"
  log "stage 6: posteriors of $teacher on $data/$set -> $data/$set/$name.scp; log: $out/log/posteriors.log"
  $train_cmd "$out/log/posteriors.log" python -m punct.bin.posteriors --model "$teacher" --data "$data/$set" \
    --name "$name" "${force_opt[@]}" || fail_with_log "$out/log/posteriors.log" "the teacher's posteriors failed"
}
