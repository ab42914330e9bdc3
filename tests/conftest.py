"""Shared fixtures: the repository root, the corpus directory, the tiny data directories of the
synthetic corpus (tests/synthetic.py) and tiny models trained on them, a tiny random MPNet
standing in for all-mpnet-base-v2, speech synthesized by Festival."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# entry points log INFO lines only to a terminal or a log file (punct.bin.common.log_level);
# the tests read them from captured output, in this process and in the ones they start
os.environ.setdefault("PUNCT_LOG_LEVEL", "INFO")


@pytest.fixture(autouse=True, scope="session")
def _restore_runtime(tmp_path_factory):
    """Exported ONNX graphs go to a folder of the test session, not the user's cache; restore
    runs on torch (models spied on, every family) unless a test asks for ONNX (test_runtime.py)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("PUNCT_ONNX_DIR", str(tmp_path_factory.mktemp("onnx")))
    mp.setenv("PUNCT_RUNTIME", "torch")
    yield
    mp.undo()


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """The shared corpora (PUNCT_CORPUS_DIR, default ../shared/data); skip if absent."""
    d = Path(os.environ.get("PUNCT_CORPUS_DIR", ROOT.parent / "shared" / "data"))
    if not d.is_dir():
        pytest.skip(f"corpus directory {d} not found")
    return d


def run_module(module: str, *args: str, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m module args`` and capture its output as text."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="UTF-8")
    return subprocess.run(
        [sys.executable, "-m", module, *args], cwd=cwd or ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


@pytest.fixture
def run_py():
    return run_module


def write_tiny_earnings21(d: Path) -> None:
    """One Earnings-21 call under ``d/earnings21``: its reference, the two Kaldi CTMs and
    the four engines' outputs, in the shared corpus's layout."""
    e21 = d / "earnings21"
    (e21 / "transcripts" / "nlp_references").mkdir(parents=True)
    (e21 / "transcripts" / "nlp_references" / "111.nlp").write_text(
        "token|speaker|ts|endTs|punctuation|case|tags|wer_tags\nGood|0||||UC|[]|[]\nmorning|0|||.|LC|[]|[]\n")
    for sub in ("kaldi_org/librispeech/ctm", "rev/kaldi/ctm"):
        (e21 / "output" / sub).mkdir(parents=True)
        (e21 / "output" / sub / "111.ctm").write_text("111 A 0.10 0.30 good 1.00\n111 A 0.90 0.40 morning 1.00\n")
    for eng in ("amazon", "google", "microsoft", "speechmatics"):
        (e21 / "output" / eng).mkdir(parents=True)
        (e21 / "output" / eng / "111.nlp").write_text(
            "token|speaker|ts|endTs|punctuation|case|tags\nGood|1|0.1|0.4||UC|\nmorning|1|0.9|1.3|.|LC|\n")


@pytest.fixture
def tiny_earnings21():
    """``write_tiny_earnings21`` (a function of the corpus folder)."""
    return write_tiny_earnings21


#: the word pieces of the tiny MPNet: a few English words, and the synthetic corpus's w0 ... w29
TINY_MPNET_VOCAB = (["<s>", "<pad>", "</s>", "[UNK]", "the", "cat", "sat", "on", "mat", "##s", "paris", "i", "what"]
                    + [f"w{i}" for i in range(30)])


def tiny_mpnet_dir(d: Path) -> Path:
    """config.json, vocab.txt and tokenizer.json of a 2-layer, 32-wide MPNet (no weights)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import MPNetConfig

    d.mkdir(parents=True, exist_ok=True)
    MPNetConfig(vocab_size=len(TINY_MPNET_VOCAB), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                intermediate_size=64, max_position_embeddings=160, pad_token_id=1).to_json_file(str(d / "config.json"))
    (d / "vocab.txt").write_text("\n".join(TINY_MPNET_VOCAB) + "\n")
    tok = Tokenizer(models.WordPiece({w: i for i, w in enumerate(TINY_MPNET_VOCAB)}, unk_token="[UNK]"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(d / "tokenizer.json"))
    return d


#: the environment variable that points punct.models.encoders at a folder for all-mpnet-base-v2
TINY_MPNET_ENV = "PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2"


@pytest.fixture(scope="session")
def tiny_mpnet_folder(tmp_path_factory) -> Path:
    """The tiny MPNet's folder, made once per session (use ``tiny_mpnet`` to load it)."""
    return tiny_mpnet_dir(tmp_path_factory.mktemp("tiny_mpnet"))


@pytest.fixture
def tiny_mpnet(tiny_mpnet_folder, monkeypatch) -> Path:
    """The tiny MPNet's folder, installed as all-mpnet-base-v2 for this test (its vocabulary:
    TINY_MPNET_VOCAB, written to its vocab.txt)."""
    monkeypatch.setenv(TINY_MPNET_ENV, str(tiny_mpnet_folder))
    return tiny_mpnet_folder


@pytest.fixture
def one_torch_thread():
    """One torch thread for the test: tiny batches run fastest so, and far faster on a loaded machine."""
    import torch

    n = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(n)


#: Sentences spoken by Festival for the aligner, recognizer and ``punct recognize`` tests (no digits:
#: Festival reads those its own way).
SENTENCES = (
    "The printer set the type by hand, one letter at a time.",
    "She said it would rain before the evening, but the sky stayed clear.",
    "Nobody knew why the old clock in the tower had stopped.",
)


@pytest.fixture(scope="session")
def festival_speech(tmp_path_factory):
    """[(wav path, true words with times)] of SENTENCES; skipped when festival is missing."""
    from punct.align import festival

    if not festival.available():
        pytest.skip("festival is not installed (local/setup_env.sh installs festival festvox-kallpc16k)")
    d = tmp_path_factory.mktemp("festival")
    out = []
    for i, s in enumerate(SENTENCES):
        wav = Path(d) / f"s{i}.wav"
        out.append((wav, festival.synthesize(s, wav)))
    return out


@pytest.fixture(scope="session")
def tiny_data(tmp_path_factory):
    """(train_dir, valid_dir) of the synthetic corpus (tests/synthetic.py)."""
    from punct.data.datadir import write_datadir
    from tests.synthetic import make_utts

    root = tmp_path_factory.mktemp("tiny")
    write_datadir(root / "train", make_utts(12, 60, 1))
    write_datadir(root / "dev", make_utts(3, 40, 2))
    return root / "train", root / "dev"


@pytest.fixture(scope="session")
def tiny_args() -> list[str]:
    """Overrides that make conf/tbrnn.yaml a small, fast T-BRNN."""
    return ["model_args.embedding_dim=8", "model_args.hidden_size=8", "model_args.attention_dim=8", "threads=1"]


@pytest.fixture(scope="session")
def tiny_cfg(tiny_args):
    """``tiny_cfg(*overrides)``: conf/tbrnn.yaml as that T-BRNN, 2 epochs of 20-word slices in
    batches of 4, a checkpoint after every batch (the training tests)."""
    from punct.config import load_config
    from punct.engine.config import TrainConfig

    conf = ROOT / "conf" / "tbrnn.yaml"

    def make(*extra: str):
        return load_config(conf, TrainConfig, tiny_args + ["batch_size=4", "slice_length=20", "max_epochs=2",
                                                           "checkpoint_minutes=0", *extra])

    return make


@pytest.fixture(scope="session")
def tiny_model_data(tmp_path_factory):
    """(train_dir, valid_dir) of the synthetic corpus, with word times and feature sets."""
    from tests import synthetic

    return synthetic.make_feature_data(tmp_path_factory.mktemp("tiny_models"))


@pytest.fixture(scope="session")
def stage1_models(tiny_model_data, tmp_path_factory):
    """{family: path of a tiny trained best.pt} for the stage-one families of the two-stage models."""
    import torch

    from punct.config import load_config
    from punct.engine.config import TrainConfig
    from punct.engine.train import train
    from tests import synthetic

    out = {}
    n = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for fam, (conf, over) in synthetic.STAGE1.items():
            exp = tmp_path_factory.mktemp(f"stage1_{fam}")
            train(load_config(ROOT / conf, TrainConfig, over + synthetic.RUN1), *tiny_model_data, exp)
            out[fam] = exp / "best.pt"
    finally:
        torch.set_num_threads(n)
    return out


@pytest.fixture(scope="session")
def tiny_tagger(tiny_mpnet_folder, tiny_model_data, tmp_path_factory):
    """best.pt of a tiny random MPNet tagger with a case head (conf/mpnet.yaml), trained two
    steps; load it with the ``tiny_mpnet`` fixture (which installs its encoder)."""
    from tests import synthetic

    exp = tmp_path_factory.mktemp("stage1_tagger")
    synthetic.train_tiny_tagger("conf/mpnet.yaml", synthetic.TAGGER, tiny_mpnet_folder, tiny_model_data, exp)
    return exp / "best.pt"


@pytest.fixture(scope="session")
def tiny_lora_tagger(tiny_mpnet_folder, tiny_model_data, tmp_path_factory):
    """The state file of a tiny random MPNet tagger with adapters and a case head
    (conf/accurate.yaml), trained two steps: what models/accurate/tagger.pt is."""
    from tests import synthetic

    d = tmp_path_factory.mktemp("stage1_lora")
    synthetic.train_tiny_tagger("conf/accurate.yaml", synthetic.LORA_TAGGER, tiny_mpnet_folder, tiny_model_data,
                                d / "exp", state=d / "tagger.pt")
    return d / "tagger.pt"


@pytest.fixture
def sigint_handled():
    """SIGINT at Python's default handler for the test: a shell starts background jobs with it
    ignored, and the trainer rightly leaves an ignored signal alone."""
    import signal

    saved = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, saved)


@pytest.fixture(scope="session")
def live_model(tmp_path_factory):
    """A tiny model with 24-word windows (the live tests' streams)."""
    from tests.tiny_models import make_tiny_model

    path = tmp_path_factory.mktemp("live") / "tiny.pt"
    make_tiny_model(path, seed=3, window=24)
    return path


@pytest.fixture()
def recipes(tmp_path, repo_root):
    """A recipes folder with corpus c (experiments GOOD) beside a link to the repository's conf/."""
    from tests.experiment_files import GOOD

    (tmp_path / "conf").symlink_to(repo_root / "conf")
    (tmp_path / "recipes" / "c").mkdir(parents=True)
    (tmp_path / "recipes" / "c" / "experiments.yaml").write_text(GOOD)
    return tmp_path / "recipes"
