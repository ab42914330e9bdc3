"""Made-up scored runs under an exp/ folder for the tests of punct.results and punct.bin.results
(a helper module, imported as ``tests.results.runs``)."""
from __future__ import annotations

import json


def report(comma, period, question, overall, ser=50.0):
    """A report.json of these per-class and overall F1 (precision one above, recall one below)."""
    return {"classes": {"COMMA": {"f1": comma}, "PERIOD": {"f1": period}, "QUESTION": {"f1": question},
                        "OVERALL": {"precision": overall + 1, "recall": overall - 1, "f1": overall}},
            "ser": ser, "boundary": {"f1": overall + 10}, "wer": 16.3}


def scored(exp, corpus, name, set_name, rep, cmd=None):
    """EXP/CORPUS/NAME with report ``rep`` of its decode of SET_NAME and the run.sh command that made it."""
    d = exp / corpus / name
    (d / f"decode_{set_name}" / "scoring").mkdir(parents=True, exist_ok=True)
    (d / f"decode_{set_name}" / "scoring" / "report.json").write_text(json.dumps(rep))
    (d / "run.cmd").write_text((cmd or f"./run.sh --corpus {corpus} --models {name} --stage 6 --stop-stage 6") + "\n")
    return d
