#!/usr/bin/env bash
# punct recipe: punctuation restoration for speech recognition output.
#
#   ./run.sh                          quick default: small slices of the real corpora, minutes
#   ./run.sh --corpus iwslt2011       the IWSLT2011 TED benchmark (hours)
#   ./run.sh --corpus iwslt2011 --stage 6 --stop-stage 9
#
# Corpus-specific parts live in recipes/<corpus>/ (Kaldi keeps them in local/;
# here local/ holds the recipe's own shell plumbing). A corpus is a folder with
# corpus.sh (its sets, experiments and a prepare_data function) and its scripts.
# The whole script is one brace group, closed by "exit" on its last lines: bash reads all of
# it before running any of it, so editing run.sh while a recipe runs (hours of training)
# cannot change or break what that recipe does next.
{
set -euo pipefail
cd "$(dirname "$0")"

stage=1
stop_stage=100
corpus=quick
corpus_dir=../shared/data
nj=2
force=false
exp_tag=""
models=""
decode_sets=""
train_overrides=""
train_nproc=1
data_root=data
exp_root=exp
results=RESULTS.md

help_message="Usage: $0 [options]
Options (Kaldi style, '--name value'):
  --stage N          first stage to run (default: $stage)
  --stop-stage N     last stage to run (default: $stop_stage)
  --corpus NAME      a folder of recipes/ (default: $corpus; available: $(ls recipes | tr '\n' ' '))
  --corpus-dir DIR   where the corpora are (default: $corpus_dir)
  --nj N             parallel jobs for stages that split their data (default: $nj)
  --force BOOL       redo finished outputs instead of skipping them (default: $force)
  --exp-tag TAG      suffix of experiment directories, exp/<corpus>/<model>_<tag>
  --models 'A B'     only these experiments of the corpus: lexical ones in stages 6, 8
                     and 9, acoustic ones in stage 7 (a joint system goes with its
                     acoustic model; 'ppe' names the LJ Speech prosody models)
                     (default: all of them; names as in recipes/<corpus>/corpus.sh)
  --decode-sets 'A B' the prepared sets that stages 8 and 9 decode and score (default: the
                     corpus's test sets; e.g. its validation set, decoded whole: 'dev2012')
  --train-overrides 'K=V ...'  config overrides for every model trained in stages 6
                     and 7, after the recipe's own (e.g. 'threads=1 max_epochs=3')
  --train-nproc N    training processes per model (default: $train_nproc); N > 1 trains
                     data-parallel (torchrun, gloo): every rank takes 1/N of each batch
                     and threads/N of the config's threads, the update is unchanged
  --data-root DIR    where data directories go (default: $data_root)
  --exp-root DIR     where experiment directories go (default: $exp_root)
  --results FILE     the results table written by stage 10 (default: $results), with
                     its ledger of earlier rows beside it (FILE with suffix .json)
Stages:
  1  data preparation            corpus -> data/<corpus>/<set>/ (validated Kaldi-style directories)
  2  forced alignment            audio + transcript -> word/phone times      (corpora with audio)
  3  ASR decoding                audio -> hypothesis words with times (CTM) (corpora with audio)
  4  prosodic features           word times (+ audio) -> per-word pause/pitch/energy (ark/scp)
  5  punctuation transfer        reference marks -> hypothesis words (edit distance)
  6  train lexical models        data/<corpus>/<train> -> exp/<corpus>/<model>/best.pt
  7  train acoustic/joint models (corpora with pause or prosody data)
  8  decode                      every test set with every model -> exp/.../decode_<set>/
  9  score                       decode_<set>/scoring/{report.txt,report.json,confusion.txt,errors.txt}
  10 results                     exp/ -> RESULTS.md, and the score table on the terminal
  11 showcase                    the shipped default on real ASR output beside the engines (corpora
                                 with a showcase: quick)"

. local/log.sh
. local/parse_options.sh
# option values first, then what they name on disk
[[ "$nj" =~ ^[1-9][0-9]{0,3}$ ]] || die "--nj must be an integer from 1 to 9999, got '$nj'"
[[ "$stage" =~ ^[0-9]+$ && "$stop_stage" =~ ^[0-9]+$ ]] || die "--stage/--stop-stage must be integers"
last_stage=11
[ "$stage" -le "$last_stage" ] || die "--stage $stage: the stages are 1-$last_stage (see ./run.sh --help)"
[ "$stage" -le "$stop_stage" ] || die "--stage $stage is after --stop-stage $stop_stage: no stage to run"
[[ "$train_nproc" =~ ^[1-9][0-9]{0,3}$ ]] || die "--train-nproc must be an integer from 1 to 9999, got '$train_nproc'"
# the training command of stages 6 and 7: one process, or data-parallel ranks
trainer=(python -m punct.bin.train)
[ "$train_nproc" -eq 1 ] || trainer=(python -m torch.distributed.run --standalone --nproc_per_node "$train_nproc" -m punct.bin.train)
[ -d "recipes/$corpus" ] && [ -f "recipes/$corpus/corpus.sh" ] || die "unknown corpus '$corpus' (no recipes/$corpus/corpus.sh)"
[ -d "$corpus_dir" ] || die "corpus directory '$corpus_dir' not found (--corpus-dir)"

data=$data_root/$corpus
exp=$exp_root/$corpus
# Corpus settings: train_sets, valid_set, test_sets, experiments (name|config|train set|overrides;
# an ensemble of trained experiments is name|ensemble|EXP1+EXP2+...|[weights=W1,W2,...|weights=tune]
# [bias=C,P,Q|bias=tune] (options space-separated; one member with a bias is a model with a tuned decision)),
# has_audio, and the function prepare_data CORPUS_DIR OUT_DIR FORCE; optionally paper_targets, the
# test set whose rows RESULTS.md sets beside the papers' published numbers (punct.bin.results).
has_audio=false
hyp_sets=""
# shellcheck disable=SC1090
. "recipes/$corpus/corpus.sh"
# selected NAME: true when --models is empty or names NAME (stage 7 asks it of its systems)
selected() { [ -z "$models" ] || [[ " ${models//,/ } " == *" $1 "* ]]; }
if [ -n "$models" ]; then
  # the names may be lexical experiments (stages 6, 8, 9) and acoustic experiments (stage 7;
  # "ppe" stands for the LJ Speech prosody models)
  known=("${experiments[@]%%|*}")
  selected_lex=()
  for spec in "${experiments[@]}"; do selected "${spec%%|*}" && selected_lex+=("$spec"); done
  if declare -p acoustic_experiments > /dev/null 2>&1; then
    known+=("${acoustic_experiments[@]%%|*}" ppe)
    selected_ac=()
    for spec in "${acoustic_experiments[@]}"; do selected "${spec%%|*}" && selected_ac+=("$spec"); done
    acoustic_experiments=(${selected_ac[@]+"${selected_ac[@]}"})
  fi
  for m in ${models//,/ }; do
    [[ " ${known[*]} " == *" $m "* ]] \
      || die "--models: recipes/$corpus/corpus.sh has no experiment '$m' (it has: ${known[*]})"
  done
  experiments=(${selected_lex[@]+"${selected_lex[@]}"})
fi
# the sets stages 8 and 9 decode and score: the corpus's test sets unless --decode-sets names others
score_sets=${decode_sets:-$test_sets}
if [ -n "$decode_sets" ]; then
  [[ "$decode_sets" =~ ^[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*$ ]] \
    || die "--decode-sets '$decode_sets': expected set names separated by single spaces"
fi

# the environment (a .venv with pinned packages, Debian tools) is built when missing
local/setup_env.sh
. ./path.sh
. ./cmd.sh
mkdir -p "$data" "$exp"
# the options that locate an experiment, for the reproducing command written into run.cmd
where="${exp_tag:+ --exp-tag $exp_tag}"
[ "$data_root" = data ] || where+=" --data-root $data_root"
[ "$exp_root" = exp ] || where+=" --exp-root $exp_root"
[ "$corpus_dir" = ../shared/data ] || where+=" --corpus-dir $corpus_dir"

# stage_cmd NAME FIRST LAST: the command that redoes experiment NAME's stages (into run.cmd)
stage_cmd() {
  local nproc=""
  [ "$train_nproc" -eq 1 ] || nproc=" --train-nproc $train_nproc"
  echo "./run.sh --corpus $corpus$where --models $1${train_overrides:+ --train-overrides '$train_overrides'}$nproc${decode_sets:+ --decode-sets '$decode_sets'} --stage $2 --stop-stage $3"
}
# run_stage N: true when stage N is inside [stage, stop_stage]
run_stage() { [ "$stage" -le "$1" ] && [ "$stop_stage" -ge "$1" ]; }
# exp_dir NAME: the experiment directory of one model
exp_dir() { echo "$exp/$1${exp_tag:+_$exp_tag}"; }

if run_stage 1; then
  log "stage 1: data preparation: $corpus_dir -> $data/{${train_sets// /,},$valid_set,${test_sets// /,}}"
  prepare_data "$corpus_dir" "$data" "$force"
fi

if run_stage 2; then
  if [ "$has_audio" = true ]; then
    corpus_align "$data" "$nj"
  else
    log "stage 2: forced alignment: corpus $corpus has no audio; nothing to do"
  fi
fi

if run_stage 3; then
  if [ "$has_audio" = true ]; then
    corpus_asr_decode "$data" "$nj"
  else
    log "stage 3: ASR decoding: corpus $corpus has no audio; nothing to do"
  fi
fi

if run_stage 4; then
  if declare -F corpus_features >/dev/null; then
    corpus_features "$data" "$nj"
  else
    log "stage 4: prosodic features: corpus $corpus has no word times; nothing to do"
  fi
fi

if run_stage 5; then
  if [ -n "$hyp_sets" ]; then
    corpus_transfer "$data"
  else
    log "stage 5: punctuation transfer: corpus $corpus has no ASR hypotheses; nothing to do"
  fi
fi

# ensemble_members NAME MEMBERS: the best.pt of each '+'-separated member experiment of
# ensemble NAME (directory names under $exp, as they are, without --exp-tag), or die
ensemble_members() {
  local m
  [ -n "${2//+/}" ] || die "ensemble $1: no members (recipes/$corpus: name|ensemble|A+B|weights=...)"
  for m in ${2//+/ }; do
    [ -f "$exp/$m/best.pt" ] || die "ensemble $1: member $exp/$m/best.pt not found (train $m first)"
    echo "$exp/$m/best.pt"
  done
}

if run_stage 6; then
  for spec in "${experiments[@]}"; do
    IFS='|' read -r name config train overrides <<< "$spec"
    dir=$(exp_dir "$name")
    if [ "$config" = ensemble ]; then
      # nothing to train: record the members (punct.bin.results sums their training time)
      members=$(ensemble_members "$name" "$train") || exit 1
      mkdir -p "$dir"
      stage_cmd "$name" 6 9 > "$dir/run.cmd"
      echo "$members" > "$dir/members.tmp" && mv "$dir/members.tmp" "$dir/members"
      for m in ${train//+/ }; do
        [ -f "$exp/$m/.done" ] || log "stage 6: WARNING: ensemble $name: member $m has not finished training"
      done
      log "stage 6: $name is an ensemble of ${train//+/, }: nothing to train"
      continue
    fi
    if [ -f "$dir/best.pt" ] && [ -f "$dir/.done" ] && [ "$force" != true ]; then
      log "stage 6: train $name: $dir is finished; skipping"
      continue
    fi
    # init_from=@NAME: train on from the best model of experiment NAME (a warm start)
    resolved=()
    for o in $overrides; do
      if [[ $o == init_from=@* ]]; then
        src=${o#init_from=@}
        [ -f "$exp/$src/best.pt" ] || die "stage 6: $name trains on from $exp/$src/best.pt: not found (train $src first)"
        o="init_from=$exp/$src/best.pt"
      fi
      resolved+=("$o")
    done
    not_busy "$dir/.train.lock" "a training"
    mkdir -p "$dir/log"
    stage_cmd "$name" 6 9 > "$dir/run.cmd"
    log "stage 6: train $name ($config): $data/$train -> $dir/best.pt; log: $dir/log/train.log"
    # shellcheck disable=SC2086
    $train_cmd "$dir/log/train.log" "${trainer[@]}" --config "$config" \
      --train "$data/$train" --valid "$data/$valid_set" --exp "$dir" "${resolved[@]}" $train_overrides \
      || fail_with_log "$dir/log/train.log" "training $name failed"
    touch "$dir/.done"
  done
fi

if run_stage 7; then
  if declare -F corpus_train_acoustic >/dev/null; then
    corpus_train_acoustic "$data" "$exp"
  else
    log "stage 7: acoustic/joint models: corpus $corpus has no pause or prosody data; nothing to do"
  fi
fi

if run_stage 8; then
  for spec in "${experiments[@]}"; do
    IFS='|' read -r name config train overrides <<< "$spec"
    dir=$(exp_dir "$name")
    if [ "$config" = ensemble ]; then
      # an ensemble decodes with every member (mean posteriors); overrides may give weights=W1,W2,...
      members=$(ensemble_members "$name" "$train") || exit 1
      mapfile -t model_files <<< "$members"
      model_args=() tuning_files=()
      for f in "${model_files[@]}"; do model_args+=(--model "$f"); done
      num='[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)'
      for opt in $overrides; do
        case $opt in
          # the best grid weights (and decision bias) on the dev set, tuned once for all test sets
          # and kept in tuned_weights.json (tuned again when a member changes)
          weights=tune) model_args+=(--tune-weights-on "$data/$valid_set") ;;
          bias=tune) model_args+=(--tune-bias-on "$data/$valid_set") ;;
          weights=*) w=${opt#weights=}
                     [[ $w =~ ^$num(,$num)*$ ]] || die "ensemble $name: weights=$w is not a list of numbers W1,W2,..."
                     IFS=, read -ra parts <<< "$w"; model_args+=(--weights "${parts[@]}") ;;
          bias=*) b=${opt#bias=}
                  [[ $b =~ ^$num,$num,$num$ ]] || die "ensemble $name: bias=$b is not three numbers COMMA,PERIOD,QUESTION"
                  IFS=, read -ra parts <<< "$b"; model_args+=(--bias "${parts[@]}") ;;
          *) die "ensemble $name: unknown option '$opt' (weights=W1,W2,... or weights=tune; bias=COMMA,PERIOD,QUESTION or bias=tune)" ;;
        esac
      done
      if [[ " $overrides " == *=tune\ * ]]; then
        model_args+=(--tuned-weights "$dir/tuned_weights.json")
        tuning_files=("$data/$valid_set/text" "$data/$valid_set/labels")
      fi
    else
      [ -f "$dir/best.pt" ] || die "stage 8: $dir/best.pt not found (run stage 6 first)"
      model_files=("$dir/best.pt") tuning_files=()
      model_args=(--model "$dir/best.pt")
    fi
    for set in $score_sets; do
      out=$dir/decode_$set
      [ -f "$data/$set/text" ] || die "stage 8: $data/$set/text not found: $set is not a prepared set of $corpus (run stage 1; its sets: ${train_sets} ${valid_set} ${test_sets})"
      if up_to_date "$out/.done" "${model_files[@]}" "${tuning_files[@]}" "$data/$set/text" && [ "$force" != true ]; then
        log "stage 8: decode $name on $set: $out is finished and newer than its model and data; skipping"; continue
      fi
      # the log lives beside the decode directory, which the decoder replaces as a whole;
      # one torch thread: windows are small, and 2 threads were 30x slower on a busy machine
      logf=$dir/log/decode_$set.log
      not_busy "$dir/.decode_$set.lock" "a decoding into $out"
      log "stage 8: decode $name: $data/$set -> $out; log: $logf"
      mkdir -p "$dir/log"
      $decode_cmd "$logf" python -m punct.bin.decode "${model_args[@]}" \
        --data "$data/$set" --out "$out" --no-score --threads 1 \
        || fail_with_log "$logf" "decoding $set with $name failed"
      touch "$out/.done"
    done
  done
fi

if run_stage 9; then
  # Systems the corpus scores besides punct's own models (e.g. commercial engines' own marks)
  if declare -F corpus_score_others >/dev/null; then corpus_score_others "$data" "$exp"; fi
  for spec in "${experiments[@]}"; do
    IFS='|' read -r name _ _ _ <<< "$spec"
    dir=$(exp_dir "$name")
    for set in $score_sets; do
      out=$dir/decode_$set
      [ -f "$out/.done" ] || die "stage 9: $out/.done not found: $name has not been decoded on $set (run stage 8)"
      # A hypothesis set is scored against its reference (corpus_score_ref), so that
      # the report carries the word error rate and the mark transfer statistics.
      ref=$data/$set
      if declare -F corpus_score_ref >/dev/null; then ref=$(corpus_score_ref "$data" "$set"); fi
      log "stage 9: score $name on $set: $ref vs $out -> $out/scoring/"
      python -m punct score "$ref" "$out" --out-dir "$out/scoring" > /dev/null \
        || die "scoring $out failed"
    done
  done
fi

if run_stage 10; then
  log "stage 10: results: $exp_root/ -> $results"
  python -m punct.bin.results --exp "$exp_root" --data "$data_root" --out "$results" --print "$exp"
fi
if run_stage 11; then
  if declare -F corpus_showcase >/dev/null; then
    corpus_showcase "$data" "$exp"
  else
    log "stage 11: showcase: corpus $corpus has none; nothing to do"
  fi
fi
log "done: $corpus, stages $stage-$(( stop_stage < last_stage ? stop_stage : last_stage ))"
exit
}
