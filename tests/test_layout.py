"""The library stays pure: mmc/ never imports the orchestration tools (STYLE.md, three layers)."""

from __future__ import annotations

import ast
from pathlib import Path

import mmc

FORBIDDEN = {"prefect", "mlflow", "dvc", "yaml", "pyffish"}


def test_mmc_imports_no_orchestration_or_gpl_oracle() -> None:
    offenders = []
    for path in Path(mmc.__file__).parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {n}" for n in names if n.split(".")[0] in FORBIDDEN]
    assert offenders == []
