#!/usr/bin/env bash
# punct recipe: punctuation restoration for speech recognition output.
#
#   ./run.sh                          quick default: small slices of the real corpora, minutes
#   ./run.sh --corpus iwslt2011       the IWSLT2011 TED benchmark (hours)
#   ./run.sh --corpus iwslt2011 --stage 6 --stop-stage 9
#
# Corpus-specific parts live in recipes/<corpus>/ (Kaldi keeps them in local/;
# here local/ holds the recipe's own shell plumbing). A corpus is a folder with
# experiments.yaml (its sets and experiments), corpus.sh (its data preparation and stage
# hooks) and its scripts. docs/DESIGN.md follows an experiment from its entry to RESULTS.md.
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
time_budget=""
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
  --models 'A B'     only these experiments of the corpus: lexical ones trained in stage 6,
                     acoustic ones in stage 7, both decoded in 8 and scored in 9 (a joint
                     system goes with its acoustic model; 'ppe' names the LJ Speech
                     prosody models)
                     (default: all of them; names as in recipes/<corpus>/experiments.yaml)
  --decode-sets 'A B' the prepared sets that stages 8 and 9 decode and score with the lexical
                     models (default: the corpus's test sets; e.g. its validation set,
                     decoded whole: 'dev2012'); an acoustic model has its own test sets
  --train-overrides 'K=V ...'  config overrides for every model trained in stages 6
                     and 7, after the recipe's own (e.g. 'threads=1 max_epochs=3')
  --time-budget T    wall time each training of stages 6 and 7 may take (seconds, or 2h30m):
                     it stops in time to validate and save, a rerun goes on from there
                     (a model with a state file in models/ writes it back: the accurate tier)
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
  7  train acoustic/joint models (corpora with pause or prosody data); tune the joint decisions
  8  decode                      every test set with every model -> exp/.../decode_<set>/
  9  score                       decode_<set>/scoring/{report.txt,report.json,confusion.txt,errors.txt}
  10 results                     exp/ -> RESULTS.md, and the score table on the terminal
  11 showcase                    the shipped default on real ASR output beside the engines (corpora
                                 with a showcase: quick)
Each stage from 2 to 9 runs steps of local/steps/ (train.sh, decode.sh, score.sh, ...): each
is a script of its own, with its inputs as arguments and its usage on --help."

. local/log.sh
. local/parse_options.sh
# option values first, then what they name on disk
[[ "$nj" =~ ^[1-9][0-9]{0,3}$ ]] || die "--nj must be an integer from 1 to 9999, got '$nj'"
[[ "$stage" =~ ^[0-9]+$ && "$stop_stage" =~ ^[0-9]+$ ]] || die "--stage/--stop-stage must be integers"
last_stage=11
[ "$stage" -le "$last_stage" ] || die "--stage $stage: the stages are 1-$last_stage (see ./run.sh --help)"
[ "$stage" -le "$stop_stage" ] || die "--stage $stage is after --stop-stage $stop_stage: no stage to run"
[[ "$train_nproc" =~ ^[1-9][0-9]{0,3}$ ]] || die "--train-nproc must be an integer from 1 to 9999, got '$train_nproc'"
[ -f "recipes/$corpus/experiments.yaml" ] || die "unknown corpus '$corpus' (no recipes/$corpus/experiments.yaml)"
[ -d "$corpus_dir" ] || die "corpus directory '$corpus_dir' not found (--corpus-dir)"
if [ -n "$decode_sets" ]; then
  [[ "$decode_sets" =~ ^[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*$ ]] \
    || die "--decode-sets '$decode_sets': expected set names separated by single spaces"
fi

data=$data_root/$corpus
exp=$exp_root/$corpus
# A corpus is recipes/<corpus>/experiments.yaml (its sets and experiments: punct/experiments.py)
# and corpus.sh: prepare_data CORPUS_DIR DATA FORCE and the hooks of the stages it has
# (corpus_align, corpus_asr_decode, corpus_features DATA EXP NJ FORCE; corpus_transfer,
# corpus_score_others DATA EXP FORCE; corpus_showcase DATA EXP CORPUS_DIR; the hooks its
# experiments.yaml names, HOOK DATA EXP FORCE RUNCMD MODEL...), and has_audio and hyp_sets.
has_audio=false
hyp_sets=""
# shellcheck disable=SC1090
[ ! -f "recipes/$corpus/corpus.sh" ] || . "recipes/$corpus/corpus.sh"

# the environment (a .venv with pinned packages, Debian tools) is built when missing
local/setup_env.sh
. ./path.sh
. ./cmd.sh
. local/records.sh
# experiments ARGS...: punct.bin.experiments on this corpus, as --models selects
experiments() {
  python -m punct.bin.experiments "$@" --corpus "$corpus" --recipes recipes --models "$models" --data-root "$data_root" \
    --exp-root "$exp_root" --exp-tag "$exp_tag" -q
}
# the corpus's sets: train_sets, valid_set, test_sets, reference_set, names (checks --models too)
read_records experiments sets
read_record "$record_header" "${record_lines[0]}"
# the sets stages 8 and 9 decode and score: the corpus's test sets unless --decode-sets names others
score_sets=${decode_sets:-$test_sets}
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
# specs_of N: the experiments of stage N (name, kind, dir, config, train, valid, needs, args,
# inputs, tests, lexical, acoustic, systems, hook: punct.bin.experiments), one record each,
# into record_header and record_lines; read_record sets the fields of one
specs_of() { read_records experiments list --stage "$1"; }
# train_step STAGE RUNCMD: train the experiment of the record just read (local/steps/train.sh)
train_step() {
  # shellcheck disable=SC2086  # the user's overrides are words
  local/steps/train.sh --cmd "$train_cmd" --force "$force" --nproc "$train_nproc" --time-budget "$time_budget" \
    --needs "${needs[*]}" --run-cmd "$2" "$config" "$train" "$valid" "$dir" ${args[@]+"${args[@]}"} $train_overrides \
    || exit 1
}
# hook_step STAGE: run the corpus hook of the record just read: HOOK STAGE DATA EXP FORCE RUNCMD NEEDS...
hook_step() {
  "$hook" "$1" "$data" "$exp" "$force" "$(stage_cmd "$name" "$1" "$1")" ${needs[@]+"${needs[@]}"}
}
# sets_of: the sets the record just read is decoded and scored on: a stage 7 model's own test
# sets, else the corpus's (--decode-sets)
sets_of() { if [ ${#tests[@]} -gt 0 ]; then echo "${tests[*]}"; else echo "$score_sets"; fi; }
# the set a decode of SET is scored against: the corpus's reference set, or SET itself
ref_of() { echo "$data/${reference_set:-$1}"; }

if run_stage 1; then
  log "stage 1: data preparation: $corpus_dir -> $data/{${train_sets// /,},$valid_set,${test_sets// /,}}"
  prepare_data "$corpus_dir" "$data" "$force"
fi

if run_stage 2; then
  if [ "$has_audio" = true ]; then
    corpus_align "$data" "$exp" "$nj" "$force"
  else
    log "stage 2: forced alignment: corpus $corpus has no audio; nothing to do"
  fi
fi

if run_stage 3; then
  if [ "$has_audio" = true ]; then
    corpus_asr_decode "$data" "$exp" "$nj" "$force"
  else
    log "stage 3: ASR decoding: corpus $corpus has no audio; nothing to do"
  fi
fi

if run_stage 4; then
  if declare -F corpus_features >/dev/null; then
    corpus_features "$data" "$exp" "$nj" "$force"
  else
    log "stage 4: prosodic features: corpus $corpus has no word times; nothing to do"
  fi
fi

if run_stage 5; then
  if [ -n "$hyp_sets" ]; then
    corpus_transfer "$data" "$exp" "$force"
  else
    log "stage 5: punctuation transfer: corpus $corpus has no ASR hypotheses; nothing to do"
  fi
fi

if run_stage 6; then
  specs_of 6
  for rec in ${record_lines[@]+"${record_lines[@]}"}; do
    read_record "$record_header" "$rec"
    case $kind in
      hook)  # a corpus step between trainings (e.g. a teacher's posteriors)
        hook_step 6 ;;
      ensemble)  # nothing to train: record the members (punct.bin.results sums their training time)
        need_trained "$name" "${needs[@]}"
        mkdir -p "$dir"
        stage_cmd "$name" 6 9 > "$dir/run.cmd"
        printf '%s\n' "${needs[@]}" > "$dir/members.tmp" && mv "$dir/members.tmp" "$dir/members"
        for m in "${args[@]}"; do
          [ -f "$exp/$m/.done" ] || log "stage 6: WARNING: ensemble $name: member $m has not finished training"
        done
        log "stage 6: $name is an ensemble of ${args[*]}: nothing to train" ;;
      *) train_step 6 "$(stage_cmd "$name" 6 9)" ;;
    esac
  done
fi

if run_stage 7; then
  # the models that read pause or prosody features, trained as stage 6's are; the joint
  # decisions tuned; the corpus's stage 7 hooks. Stages 8 and 9 decode and score them.
  specs_of 7
  [ ${#record_lines[@]} -gt 0 ] || log "stage 7: acoustic/joint models: corpus $corpus has none; nothing to do"
  for rec in ${record_lines[@]+"${record_lines[@]}"}; do
    read_record "$record_header" "$rec"
    case $kind in
      train) train_step 7 "$(stage_cmd "$name" 7 9)" ;;
      joint)
        local/steps/joint_tune.sh --cmd "$decode_cmd" --force "$force" "${needs[0]}" "${needs[1]}" "$valid" "$train" \
          "$dir" || exit 1 ;;
      hook) hook_step 7 ;;
    esac
  done
fi

if run_stage 8; then
  specs_of 8
  for rec in ${record_lines[@]+"${record_lines[@]}"}; do
    read_record "$record_header" "$rec"
    case $kind in
      hook) hook_step 8; continue ;;
    esac
    for set in $(sets_of); do
      [ -f "$data/$set/text" ] || die "stage 8: $data/$set/text not found: $set is not a prepared set of $corpus (run stage 1; its sets: ${train_sets} ${valid_set} ${test_sets})"
      if [ "$kind" = joint ]; then
        for st in 1 2; do
          mkdir -p "${systems[st - 1]}"
          stage_cmd "$acoustic" 7 9 > "${systems[st - 1]}/run.cmd"
          local/steps/joint_decode.sh --cmd "$decode_cmd" --force "$force" --stage "$st" "${needs[0]}" "${needs[1]}" \
            "$dir/joint.yaml" "$data/$set" "${systems[st - 1]}/decode_$set" || exit 1
        done
      else
        local/steps/decode.sh --cmd "$decode_cmd" --force "$force" --inputs "${needs[*]} ${inputs[*]}" "$data/$set" \
          "$dir/decode_$set" "${args[@]}" || exit 1
      fi
    done
  done
fi

if run_stage 9; then
  # Systems the corpus scores besides punct's own models (e.g. commercial engines' own marks)
  if declare -F corpus_score_others >/dev/null; then corpus_score_others "$data" "$exp" "$force"; fi
  specs_of 9
  for rec in ${record_lines[@]+"${record_lines[@]}"}; do
    read_record "$record_header" "$rec"
    case $kind in
      hook) hook_step 9; continue ;;
      joint) decoded=("${systems[@]}") ;;
      *) decoded=("$dir") ;;
    esac
    for set in $(sets_of); do
      for d in "${decoded[@]}"; do
        [ -f "$d/decode_$set/.done" ] || die "stage 9: $d/decode_$set/.done not found: ${d##*/} has not been decoded on $set (run stage 8)"
        local/steps/score.sh "$(ref_of "$set")" "$d/decode_$set" || exit 1
      done
    done
  done
fi

if run_stage 10; then
  log "stage 10: results: $exp_root/ -> $results"
  python -m punct.bin.results --exp "$exp_root" --data "$data_root" --out "$results" --print "$exp"
fi
if run_stage 11; then
  if declare -F corpus_showcase >/dev/null; then
    corpus_showcase "$data" "$exp" "$corpus_dir"
  else
    log "stage 11: showcase: corpus $corpus has none; nothing to do"
  fi
fi
log "done: $corpus, stages $stage-$(( stop_stage < last_stage ? stop_stage : last_stage ))"
exit
}
