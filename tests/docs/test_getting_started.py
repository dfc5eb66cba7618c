"""The getting-started page's commands, run as a newcomer runs them. Its try-it-in-a-minute block (the one marked
``<!-- tested: tests/docs/test_getting_started.py -->``) runs whole in bash: a tiny study made anywhere and run to
its report. Its ``make study`` runs ``python -m pipelines study`` in the checkout, which the study tests run on the
tiny profile (``tiny_study``, tests/pipelines/conftest.py), and ``make test`` is what CI runs."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipelines.services import stop_pid_file
from tests.pipelines.test_services import _env, _free_port

from .conftest import DOCS, REPO

pytestmark = pytest.mark.slow  # a tiny study: about a minute on 2 cores

PAGE = DOCS / "getting-started.md"
MARK = "<!-- tested: tests/docs/test_getting_started.py -->"


def _block() -> str:
    text = PAGE.read_text()
    assert MARK in text, f"{PAGE}: no block marked {MARK}"
    match = re.match(r"\s*```bash\n(.*?)^```", text.split(MARK, 1)[1], re.MULTILINE | re.DOTALL)
    assert match, f"{PAGE}: the block after {MARK} is not a bash block"
    return match[1]


def test_the_two_commands_are_on_the_page() -> None:
    commands = re.findall(r"^make (\w+)", PAGE.read_text(), re.MULTILINE)
    assert {"study", "test"} <= set(commands)
    makefile = (REPO / "Makefile").read_text()
    assert "\nstudy:" in makefile and "python -m pipelines study" in makefile


def test_the_try_it_block_runs_a_study_to_its_report(tmp_path: Path) -> None:
    block = _block()
    folders = set(re.findall(r"pipelines init (\S+)", block))
    assert len(folders) == 1, block
    (folder,) = folders
    study = tmp_path / "first-study"
    script = block.replace(folder, str(study))
    # the page activates the checkout's environment; here the tests' own interpreter is that environment
    script = re.sub(r"^(?:\.|source) \S*\.venv/bin/activate.*$", f'export PATH="{Path(sys.executable).parent}:$PATH"',
                    script, flags=re.MULTILINE)  # fmt: skip
    env = {**_env(_free_port(), _free_port()), "PYTHONPATH": str(REPO)}
    try:
        run = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=REPO, env=env, capture_output=True,
                             text=True, timeout=900)  # fmt: skip
    finally:
        stop_pid_file(study / ".prefect" / "server.pid")
        stop_pid_file(study / ".mlflow-ui" / "ui.pid")
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert (study / "reports" / "study.html").is_file() and (study / "reports" / "evaluation.csv").is_file()
    assert "the report: reports/study.html" in run.stdout
    assert not (REPO / "first-study").exists() and os.path.isdir(study / ".dvc")
