"""The experiments.yaml of a made-up corpus c, for the tests of punct.experiments and of its
lister punct.bin.experiments (a helper module, imported as ``tests.experiment_files``)."""
from __future__ import annotations

#: a valid file with an experiment of every kind: trained, warm-started, an ensemble, stage 7,
#: a joint decision and a hook
GOOD = """\
sets:
  train: [train, big]
  valid: dev
  test: [test]
paper_targets: test
experiments:
  a:
    config: conf/tbrnn.yaml
    train: train
    overrides: {max_epochs: 3, lr: 0.0002, model_args.dropout: 0.1, vocabulary: train+pretrained, tail_in_loss: false}
  b:
    config: conf/tlstm.yaml
    train: big
    valid: test
    warm_start: a
  e:
    ensemble: [a, b]
    weights: [2, 1.5]
    bias: tune
  p:
    stage: 7
    config: conf/che_pause.yaml
    train: train
    test: [test]
  j:
    joint: {lexical: a, acoustic: p}
    test: [test]
  h:
    hook: corpus_extra
    needs: [a]
"""
