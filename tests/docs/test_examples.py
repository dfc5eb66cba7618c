"""Every Python example of the site (and of the README) runs: a page's ```python blocks in order, in one fresh
interpreter whose working folder is a new empty one, with this repository's packages importable. A block that cannot
run in a test (a full study, a GPU, a cluster of machines) is marked ``<!-- transcript -->`` on the line before it,
and its page says it is a transcript; those are the only ones skipped."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import DOCS, REPO

pytestmark = pytest.mark.slow

TRANSCRIPT = "<!-- transcript -->"


def examples(page: Path) -> list[str]:
    """The page's runnable python blocks, in order."""
    text = page.read_text()
    found = []
    for match in re.finditer(r"```python\n(.*?)^```", text, re.MULTILINE | re.DOTALL):
        before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
        if before.strip() != TRANSCRIPT:
            found.append(match[1])
    return found


PAGES = ["README.md", *sorted(p.relative_to(REPO).as_posix() for p in DOCS.rglob("*.md") if examples(p))]
"""The site's pages with examples, and the README's (it shows one example of each main use)."""


def test_the_guides_have_examples_to_run() -> None:
    guides = {f"docs/guides/{name}.md" for name in ("learning-api", "rate-your-agent", "environments", "add-a-game")}
    assert guides <= set(PAGES) and examples(REPO / "README.md")


@pytest.mark.parametrize("page", PAGES)
def test_a_pages_python_examples_run(page: str, tmp_path: Path) -> None:
    blocks = examples(REPO / page)
    script = "\n\n".join(f"# --- block {i + 1} of {page}\n{code}" for i, code in enumerate(blocks))
    (tmp_path / "examples.py").write_text(script)
    env = {**os.environ, "PYTHONPATH": str(REPO), "MPLBACKEND": "Agg"}
    run = subprocess.run([sys.executable, "examples.py"], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert run.returncode == 0, f"{page}:\n{run.stdout[-3000:]}\n{run.stderr[-5000:]}"
