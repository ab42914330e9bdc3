"""punct.bin.wer, the entry point of punct.scoring.wer (whose WER, STM and CTM are checked in
tests/scoring/test_wer.py): both texts must be there before anything is written."""
from __future__ import annotations

import pytest

from punct.bin import wer


@pytest.mark.parametrize("missing", ["ref", "hyp"])
def test_a_missing_text_is_one_line_and_nothing_is_written(tmp_path, capsys, missing):
    for side in ("ref", "hyp"):
        (tmp_path / side).mkdir()
        if side != missing:
            (tmp_path / side / "text").write_text("u1 so revenue grew\n")
    out = tmp_path / "out"
    assert wer.main(["--ref", str(tmp_path / "ref"), "--hyp", str(tmp_path / "hyp"), "--out-dir", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines() == [f"error: {tmp_path / missing / 'text'}: input not found"]
    assert not out.exists()


def test_a_missing_required_option_is_one_line(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        wer.main(["--hyp", str(tmp_path), "--out-dir", str(tmp_path / "out")])
    assert e.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: the following arguments are required: --ref (see punct.bin.wer --help)"]
