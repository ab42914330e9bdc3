"""``punct fetch-encoder`` (punct.bin.fetch_encoder): prints the encoder's folder, ``--check``
never downloads, an unknown name is refused (the fetch itself: tests/models/test_encoders.py)."""
from __future__ import annotations

import pytest

from punct.bin import fetch_encoder
from punct.models import encoders


@pytest.fixture
def no_download(monkeypatch):
    def fetch(*a, **kw):
        raise AssertionError("a download was attempted")

    monkeypatch.setattr(encoders, "_fetch", fetch)


def test_the_folder_of_an_encoder_is_printed(tiny_mpnet, no_download, capsys):
    assert fetch_encoder.main(["all-mpnet-base-v2", "--check"]) == 0
    assert capsys.readouterr().out.strip() == str(tiny_mpnet)


def test_check_of_an_encoder_not_in_the_cache_says_how_to_fetch_it(tmp_path, monkeypatch, no_download, capsys):
    monkeypatch.setenv("PUNCT_CACHE", str(tmp_path))
    monkeypatch.delenv("PUNCT_ENCODER_DIR_ALL_MPNET_BASE_V2", raising=False)
    assert fetch_encoder.main(["all-mpnet-base-v2", "--check"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.strip().splitlines() == [
        f"error: {tmp_path / 'encoders' / 'all-mpnet-base-v2'}: encoder all-mpnet-base-v2 is not in the cache: "
        "run punct fetch-encoder all-mpnet-base-v2"]


def test_an_unknown_encoder_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        fetch_encoder.main(["bert-huge"])
    assert e.value.code == 2 and "invalid choice: 'bert-huge'" in capsys.readouterr().err
