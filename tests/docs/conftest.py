"""The documentation site, built once per test worker into a temporary folder (``mkdocs build --strict``: a broken
link, a missing anchor or reference, a page outside the nav, a generator that cannot describe something all fail it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
DOCS = REPO / "docs"


def build_site(site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(REPO / "mkdocs.yml"), "-d", str(site)]
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("site")
    built = build_site(folder)
    assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-6000:]
    assert "WARNING" not in built.stderr, built.stderr[-6000:]
    return folder
