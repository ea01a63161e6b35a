"""Wild corpus: files third-party converters write, run on seeded random weights."""

from __future__ import annotations

from wild_sources import WildModel


def models() -> list[WildModel]:
    return []
