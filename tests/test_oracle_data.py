"""The repository's copies of the oracle data equal ``shared/oracle`` when it sits beside the checkout."""

from __future__ import annotations

from pathlib import Path

import pytest

ORACLE_DIR = Path(__file__).resolve().parent / "oracle"
SHARED_ORACLE = Path(__file__).resolve().parents[2] / "shared" / "oracle"


@pytest.mark.parametrize("name", ["perft.csv", "variants.ini"])
def test_copy_equals_shared(name: str) -> None:
    if not SHARED_ORACLE.is_dir():
        pytest.skip(f"{SHARED_ORACLE} is not beside this checkout")
    assert (ORACLE_DIR / name).read_bytes() == (SHARED_ORACLE / name).read_bytes(), name
