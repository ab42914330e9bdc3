"""The training config: one YAML file (conf/*.yaml) of flat keys for every model, read into
``TrainConfig``. Its keys come in groups, each a dataclass of its own with the checks of its
keys: ``OptimizerConfig`` (optimizer, schedule, loss), ``SlicingConfig`` (slices and batches),
``ValidationConfig`` (epochs, validation, model selection), ``FeatureConfig`` (per-word
features) and ``DistillConfig`` (a teacher's soft targets). ``TrainConfig`` is all of them
(it inherits each group) plus the model, its inputs and the run's own keys, so a config sets
every key at its top level, ``cfg.lr`` reads as before, and a function that needs one group
takes that type. The model's own arguments are ``model_args``, checked against the model's
Config dataclass. A saved config is the same flat dict, so older checkpoints load unchanged."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass
class OptimizerConfig:
    """The optimizer, its learning-rate schedule and the loss it follows."""

    #: adagrad | adam | adamw | sgd
    optimizer: str = "adagrad"
    lr: float = 0.02
    #: AdaGrad's initial accumulator. punctuator2 (Theano) divides by sqrt(sum g^2 + 1e-6);
    #: torch adds its eps outside the root, so its first steps are +-lr on every weight,
    #: however small the gradient. 1e-6 here reproduces punctuator2's update exactly;
    #: the default 0 is torch's behaviour.
    adagrad_accumulator_init: float = 0.0
    #: L2 weight decay (adamw: decoupled)
    weight_decay: float = 0.0
    #: constant | linear (linear warm-up over warmup_steps, then linear decay to 0 at max_epochs)
    #: | halving (Mikolov's "newbob", as the T-LSTM reference implementation trains: constant
    #: until an epoch improves the validation log-perplexity by less than 0.3%, then the
    #: rate halves every epoch and training stops at the next such epoch)
    #: | plateau (after every epoch whose validation score (select_by) is not better, go back
    #: to the best weights and multiply the rate by lr_decay; patience still ends training)
    lr_schedule: str = "constant"
    #: lr_schedule plateau: the factor applied to the rate after an epoch without improvement
    lr_decay: float = 0.5
    warmup_steps: int = 0
    #: a resume without the optimizer's moments (a state file that could not hold them,
    #: punct.engine.carry): the rate ramps up from 0 over this many steps, then follows the schedule
    rewarm_steps: int = 20
    #: a warm start (init_from) under adagrad: the accumulator that the model's own training
    #: built is lost with its run, and a fresh one makes the first steps as large as a new
    #: run's. With N > 0 it is estimated as N steps' worth of the squared (clipped) gradients of
    #: warm_accumulator_batches batches at the starting weights, the embedding's per row
    #: (punct.engine.warm_optim); N is about the steps the model was trained for. 0: fresh
    warm_accumulator_steps: int = 0
    #: the batches that estimate warm_accumulator_steps' accumulator
    warm_accumulator_batches: int = 32
    #: max L2 norm of the whole gradient (0: no clipping)
    clip_norm: float = 2.0
    #: the batch's loss that is differentiated: mean (per output word) or sum (over the
    #: batch's words, as punctuator2's cost is: with clip_norm, every step is then a gradient
    #: of norm clip_norm, and AdaGrad's 1e-6 is small against its squares)
    loss_reduction: str = "mean"
    #: a weight of the reference cross-entropy for the words whose reference is a mark, by
    #: mark name (e.g. {QUESTION: 4.0}; others 1): a rare mark that a short training run would
    #: otherwise never predict (a question is 1 word in 200 of TED) weighs more in the loss
    mark_weights: dict[str, float] = field(default_factory=dict)
    #: training only: each input word is read as <unk> with this probability, drawn afresh
    #: every step (word dropout: a regulariser for an embedding learnt from few words, which
    #: also trains <unk> on words the model knows); models that read word ids only. 0: off
    word_dropout: float = 0.0

    def check_optimizer(self) -> None:
        if self.optimizer not in ("adagrad", "adam", "adamw", "sgd"):
            raise ValueError(f"optimizer must be adagrad, adam, adamw or sgd, got {self.optimizer!r}")
        if self.lr_schedule not in ("constant", "linear", "halving", "plateau"):
            raise ValueError(f"lr_schedule must be constant, linear, halving or plateau, got {self.lr_schedule!r}")
        if not 0.0 < self.lr_decay < 1.0:
            raise ValueError(f"lr_decay must be between 0 and 1 (exclusive), got {self.lr_decay}")
        if not 0.0 <= self.word_dropout < 1.0:
            raise ValueError(f"word_dropout must be at least 0 and below 1, got {self.word_dropout}")
        if self.loss_reduction not in ("mean", "sum"):
            raise ValueError(f"loss_reduction must be mean or sum, got {self.loss_reduction!r}")
        if self.warm_accumulator_steps and self.optimizer != "adagrad":
            raise ValueError("warm_accumulator_steps estimates Adagrad's accumulator: it needs optimizer adagrad")
        if self.warm_accumulator_batches < 1:
            raise ValueError("warm_accumulator_batches must be >= 1")
        for name in ("warmup_steps", "rewarm_steps", "warm_accumulator_steps"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if not isinstance(self.mark_weights, dict):
            raise ValueError(f"mark_weights must map mark names to weights, got {self.mark_weights!r}")
        from punct.text.labels import MARK_LABELS
        for mark, w in self.mark_weights.items():
            if mark not in MARK_LABELS:
                raise ValueError(f"mark_weights: unknown mark {mark!r} (marks: {', '.join(MARK_LABELS)})")
            if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 < w < 1e3:
                raise ValueError(f"mark_weights: the weight of {mark} must be a number in (0, 1000), got {w!r}")

    def __post_init__(self) -> None:
        self.check_optimizer()


@dataclass
class SlicingConfig:
    """How the training text is cut into slices and batches, and decoded."""

    #: slices per mini-batch
    batch_size: int = 128
    #: words per training slice (the model may add an end token)
    slice_length: int = 200
    #: words per decoding window (0: slice_length). punctuator2 trains on 50-word slices by
    #: default but decodes in 200-word windows (punctuator.py MAX_SUBSEQUENCE_LEN)
    decode_window: int = 0
    #: keep the carried-over unfinished sentence in the loss of the first slice too
    tail_in_loss: bool = True
    #: a sentence longer than a slice: skip | cut
    long_sentences: str = "skip"
    #: slices per epoch, a fresh random subset every epoch (0: all); a compute budget
    epoch_slices: int = 0

    def check_slicing(self) -> None:
        if self.long_sentences not in ("skip", "cut"):
            raise ValueError(f"long_sentences must be skip or cut, got {self.long_sentences!r}")
        if self.epoch_slices < 0:
            raise ValueError("epoch_slices must be >= 0")
        if self.decode_window and self.decode_window < 2:
            raise ValueError(f"decode_window must be 0 (= slice_length) or at least 2, got {self.decode_window}")
        for name in ("batch_size", "slice_length"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")

    def __post_init__(self) -> None:
        self.check_slicing()


@dataclass
class ValidationConfig:
    """How long training runs and how its epochs are validated and chosen."""

    max_epochs: int = 50
    #: stop after this many epochs without a better validation score (select_by)
    patience: int = 5
    #: the validation score that picks best.pt and counts patience: ppl (perplexity, lower is
    #: better; the papers' early stopping) or f1 (overall F1 of the three marks, higher is better);
    #: or last: no choice, best.pt is the last epoch's model (a fixed number of epochs, for
    #: fine-tuning on text of another kind than the validation set, which would pick the start)
    select_by: str = "ppl"
    #: keep the models of the N best epochs (by select_by) in ``epochs/`` and, when training
    #: ends, average their weights; the average replaces best.pt when it validates better
    #: (checkpoint averaging, as speech toolkits do; 0 = off, else at least 2)
    average_best: int = 0
    #: slices per batch when computing validation perplexity/F1
    valid_batch_size: int = 128
    #: validate on the first N slices of the validation set only (0: all)
    valid_slices: int = 0
    #: what the validation F1 (select_by f1, average_best) is measured on: slices (the loss words
    #: of the validation set's training-style slices, as punctuator2 validates: a sentence longer
    #: than a slice is left out under long_sentences skip) or whole (the validation utterances
    #: decoded whole in decode_window windows, as the test sets are: every word counts, and runs
    #: with different slice lengths compare). The perplexity is the slices' either way; with
    #: whole, the log gives the slices' F1 beside it each epoch
    valid_decode: str = "slices"

    def check_validation(self) -> None:
        if self.select_by not in ("ppl", "f1", "last"):
            raise ValueError(f"select_by must be ppl, f1 or last, got {self.select_by!r}")
        if self.average_best < 0 or self.average_best == 1:
            raise ValueError(f"average_best must be 0 (off) or at least 2 (epochs to average), got {self.average_best}")
        if self.valid_slices < 0:
            raise ValueError("valid_slices must be >= 0")
        if self.valid_decode not in ("slices", "whole"):
            raise ValueError(f"valid_decode must be slices or whole, got {self.valid_decode!r}")
        for name in ("max_epochs", "valid_batch_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")

    def __post_init__(self) -> None:
        self.check_validation()


@dataclass
class FeatureConfig:
    """The per-word feature sets a words+feats model reads."""

    #: per-word feature sets of the data directories (DIR/NAME.scp: pause, prosody) that a
    #: ``words+feats`` model reads (punct.engine.inputs.FeatureInputs); [] = none
    features: list[str] = field(default_factory=list)
    #: the columns of those sets the model reads ([] = all); a missing-evidence flag is added
    feature_columns: list[str] = field(default_factory=list)
    #: z-normalize the feature columns with the training set's mean and standard deviation
    normalize_features: bool = True

    def check_features(self) -> None:
        if not isinstance(self.features, list) or not all(isinstance(x, str) and x for x in self.features):
            raise ValueError(f"features must be a list of feature set names, got {self.features!r}")
        if not isinstance(self.feature_columns, list) or not all(isinstance(x, str) and x for x in self.feature_columns):
            raise ValueError(f"feature_columns must be a list of column names, got {self.feature_columns!r}")
        if self.feature_columns and not self.features:
            raise ValueError("feature_columns needs features (the sets the columns come from)")
        if len(set(self.features)) != len(self.features):
            raise ValueError(f"features names a set twice: {self.features}")

    def __post_init__(self) -> None:
        self.check_features()


@dataclass
class DistillConfig:
    """A teacher's posteriors as soft targets (distillation)."""

    #: distillation: the per-word posteriors of a teacher, feature set NAME of the training data
    #: directory (punct posteriors --name NAME, punct.engine.soft_labels); "" = none. Each training
    #: word's loss mixes the reference label's cross-entropy with the KL divergence from the
    #: teacher's mark posteriors, and for a model with a case head its case loss likewise with
    #: the teacher's case posteriors (the only case target where the text has no ``written``)
    distill_from: str = ""
    #: the share of the teacher in that mix: 0 = reference labels only, 1 = teacher only
    distill_weight: float = 0.5
    #: softmax temperature of teacher and student in the KL term, scaled by its square (Hinton
    #: et al. 2015) so its gradients keep their size; 1 = the posteriors as they are
    distill_temperature: float = 1.0
    #: mark_weights weigh the KL term too: each word's by the weight the teacher's posteriors
    #: expect (sum of p_c w_c), so a word the teacher calls a question counts as a reference
    #: question does in the cross-entropy; false = they weigh the cross-entropy alone
    distill_mark_weights: bool = False

    def check_distillation(self) -> None:
        if not 0.0 <= self.distill_weight <= 1.0:
            raise ValueError(f"distill_weight must be in [0, 1], got {self.distill_weight}")
        if not self.distill_temperature > 0:
            raise ValueError(f"distill_temperature must be positive, got {self.distill_temperature}")
        if self.distill_from and (any(c in self.distill_from for c in "/\\ ") or self.distill_from.startswith(".")):
            raise ValueError(f"distill_from names a feature set of the training directory, got {self.distill_from!r}")

    def __post_init__(self) -> None:
        self.check_distillation()


@dataclass
class TrainConfig(OptimizerConfig, SlicingConfig, ValidationConfig, FeatureConfig, DistillConfig):
    """Everything a training run reads from its YAML config (conf/*.yaml); unknown keys are
    errors. The groups' keys are inherited (module docstring); these are the model's, its
    inputs' and the run's."""

    #: options that no config or experiment sets, and the value every run now has. A saved
    #: config lists every option, so one at this value is read without it; another value is
    #: an error naming the option (punct.config.drop_retired)
    RETIRED: ClassVar[dict[str, Any]] = {"halving_threshold": 1.003, "fused_optimizer": True}
    #: the groups whose keys a TrainConfig has besides its own (tests/engine/test_config.py)
    GROUPS: ClassVar[tuple[type, ...]] = (OptimizerConfig, SlicingConfig, ValidationConfig, FeatureConfig,
                                          DistillConfig)

    #: registered model name (punct.models.MODEL_MODULES)
    model: str = "tbrnn"
    #: the model's constructor arguments (its Config dataclass; unknown key = error)
    model_args: dict[str, Any] = field(default_factory=dict)
    #: vocabulary: words seen at least this often in training data
    min_count: int = 2
    #: vocabulary: at most this many words (0: no limit)
    max_vocab: int = 0
    #: the word vocabulary: train (the training words above) | train+pretrained (those plus every
    #: word of the pretrained_embeddings set, as punctuator2 builds T-BRNN-pre's vocabulary from
    #: the vector file: a word never seen in training still reads its pretrained vector)
    vocabulary: str = "train"
    #: matrix products of the training and validation forward passes: fp32, or bf16
    #: (torch.autocast to bfloat16 on the CPU; weights, gradients and the optimizer stay fp32).
    #: On CPUs with native bf16 (AVX512-BF16, AMX) it trains DRNN-LWMA and the transformer
    #: 1.6-1.8 times faster and T-BRNN 1.3 times (README, benchmarks/bench_models.py
    #: --precision); decoding stays fp32
    precision: str = "fp32"
    #: torch intra-op threads
    threads: int = 2
    seed: int = 1
    #: write checkpoint.pt at least this often (and after every epoch); 0 = every batch
    checkpoint_minutes: float = 10.0
    #: initialise the word embedding (a words model's ``embedding``) from these vectors
    #: (punct.models.pretrained: glove-6b-50d, spacy-en-md-300d); "" = random
    pretrained_embeddings: str = ""
    #: keep the word embedding fixed during training
    freeze_embeddings: bool = False
    #: a stage-one model (a best.pt) that a two-stage model (punct.models.twostage) is built on;
    #: its weights, config and vocabulary are copied into the new model's checkpoint.
    #: For any other model: a best.pt of the same model to train on from (a warm start with
    #: new optimizer settings, say a lower rate): its weights, vocabulary and epochs are kept;
    #: or a two-stage model whose stage one is that model (models/default.pt: its text stage)
    init_from: str = ""
    #: keep the stage-one model of ``init_from`` fixed (its weights never change)
    freeze: bool = False
    #: with ``freeze``: keep the fixed stage one's hidden states of the training and
    #: validation slices in memory, up to this many MB, so every epoch after the first runs
    #: the second stage only (0 = recompute them in every batch; speed only)
    stage1_cache_mb: int = 4096

    def check(self) -> None:
        """Each group's checks, then those of this class's own keys and of keys of two groups."""
        self.check_optimizer()
        self.check_slicing()
        self.check_validation()
        self.check_features()
        self.check_distillation()
        if self.vocabulary not in ("train", "train+pretrained"):
            raise ValueError(f"vocabulary must be train or train+pretrained, got {self.vocabulary!r}")
        if self.vocabulary == "train+pretrained" and not self.pretrained_embeddings:
            raise ValueError("vocabulary train+pretrained needs pretrained_embeddings (the vectors whose words it adds)")
        if self.select_by == "last" and (self.lr_schedule in ("halving", "plateau") or self.average_best):
            raise ValueError("select_by last keeps every epoch: lr_schedule halving and plateau and average_best "
                             "need a validation score to compare epochs by (select_by ppl or f1)")
        if self.select_by == "f1" and self.lr_schedule == "halving":
            raise ValueError("lr_schedule halving follows the validation perplexity: it needs select_by ppl")
        if self.precision not in ("fp32", "bf16"):
            raise ValueError(f"precision must be fp32 or bf16, got {self.precision!r}")
        if self.freeze and not self.init_from:
            raise ValueError("freeze needs init_from (the stage-one model to keep fixed)")
        if self.stage1_cache_mb < 0:
            raise ValueError(f"stage1_cache_mb must be >= 0, got {self.stage1_cache_mb}")
        for name in ("min_count", "threads"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1")

    def __post_init__(self) -> None:
        self.check()
