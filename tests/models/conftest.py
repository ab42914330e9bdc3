"""The model tests run tiny batches on one torch thread; their corpora and tiny stage-one models
are tests/conftest.py's fixtures (tiny_model_data, stage1_models, tiny_tagger, tiny_lora_tagger)."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def one_thread(one_torch_thread):
    """Model tests run tiny batches on one torch thread (tests/conftest.py)."""
