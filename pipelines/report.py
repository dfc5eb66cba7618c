"""The study report: check its input files, execute ``reports/study.ipynb`` with papermill, write offline HTML.

    python -m pipelines.report --notebook reports/study.ipynb --out reports/study.html \\
        --params params.yaml --losses LOSSES.csv --evaluation EVALUATION.csv --games GAMES.pgn --runs RUNS.json

The notebook's inputs are files only (its papermill parameters, documented in ``reports/README.md``):
``params_path``, ``losses_path``, ``evaluation_path``, ``games_path``, ``runs_path``, ``ratings_path``,
``curves_path``, ``comparisons_path``, ``mistakes_path``, ``mistake_comparisons_path`` and ``official_path``. Each is
checked here before the kernel starts, so a missing or malformed input fails in a second with a message naming the
file.

The HTML leaves out the code (readers see text, tables and figures) and needs no network: figures are PNGs
embedded as ``data:`` URIs, and the template drops the CDN scripts nbconvert would add (require.js, MathJax,
Mermaid, the widget manager). The finished HTML is scanned for external resources and rejected if it has any.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from pipelines.files import write_text
from pipelines.records import (
    ComparisonRow,
    CurveRow,
    EvaluationRow,
    MistakeRow,
    RatingRow,
    TrainingLossRow,
    columns,
)

__all__ = [
    "COMPARISON_COLUMNS",
    "CURVE_COLUMNS",
    "EVALUATION_COLUMNS",
    "INPUTS",
    "LOSS_COLUMNS",
    "MISTAKE_COLUMNS",
    "RATING_COLUMNS",
    "ReportError",
    "ReportInputError",
    "check_inputs",
    "ensure_kernel",
    "external_resources",
    "render_report",
]

log = logging.getLogger(__name__)

LOSS_COLUMNS = tuple(columns(TrainingLossRow))
"""Columns of the losses CSV (:class:`~pipelines.records.TrainingLossRow`): one row per series, stage, variant and
generation."""
EVALUATION_COLUMNS = tuple(columns(EvaluationRow))
"""Columns of the evaluation CSV (:class:`~pipelines.records.EvaluationRow`): one row per target, starting model,
budget, training replicate and opponent."""
RATING_COLUMNS = tuple(columns(RatingRow))
"""Columns of the ratings CSV (:class:`~pipelines.records.RatingRow`): one row per target and player (model or
anchor), Elo with its 95 % interval."""
CURVE_COLUMNS = tuple(columns(CurveRow))
"""Columns of the curves CSV (:class:`~pipelines.records.CurveRow`): one row per target, start and budget, the mean
Elo over the replicates."""
COMPARISON_COLUMNS = tuple(columns(ComparisonRow))
"""Columns of the comparisons CSV (:class:`~pipelines.records.ComparisonRow`): one row per target and paired
comparison ``a - b`` in Elo points."""
MISTAKE_COLUMNS = tuple(columns(MistakeRow))
"""Columns of the mistakes CSV (:class:`~pipelines.records.MistakeRow`): one row per target and model, its mistake
rate on the target's solver-labelled suite beside its Elo; no row where a target has no suite."""
HIDDEN_TAGS = ("report-hide", "parameters", "injected-parameters")
"""Cells with these tags are left out of the HTML (the input contract and the parameter cells)."""

_OFFLINE_TEMPLATE = """{%- extends 'index.html.j2' -%}
{%- block html_head_js -%}{%- endblock html_head_js -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mathjax -%}{%- endblock html_head_js_mathjax -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
"""
"""nbconvert's lab template without the blocks that load scripts from a CDN."""
_EXTERNAL = re.compile(
    r"<(?:script|link|img|iframe|source|embed)\b[^>]*?\b(?:src|href)\s*=\s*[\"']?((?:https?:)?//[^\"'\s>]+)"
    r"|@import\s+(?:url\()?[\"']?((?:https?:)?//[^\"')\s]+)",
    re.IGNORECASE,
)


class ReportInputError(ValueError):
    """An input of the report is missing or malformed; the message names the parameter and the file."""


class ReportError(RuntimeError):
    """The notebook failed to execute, or its HTML would need the network."""


def _require(condition: bool, name: str, path: Path, problem: str) -> None:
    if not condition:
        raise ReportInputError(f"report input {name} ({path}): {problem}")


def _read_csv(name: str, path: Path, columns: Sequence[str], *, empty: bool = False) -> pd.DataFrame:
    """The CSV of input ``name`` with ``columns`` (and rows, unless ``empty``: a study whose targets have no suite
    has no mistake rates)."""
    try:
        table = pd.read_csv(path)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as error:
        raise ReportInputError(f"report input {name} ({path}): not a CSV file: {error}") from None
    missing = [c for c in columns if c not in table.columns]
    _require(not missing, name, path, f"missing column(s) {', '.join(map(repr, missing))}")
    _require(empty or len(table) > 0, name, path, "no rows")
    return table


def _check_whole(name: str, path: Path, table: pd.DataFrame, columns: Sequence[str]) -> None:
    for column in columns:
        values = pd.to_numeric(table[column], errors="coerce")
        bad = table[values.isna() | (values < 0) | (values != values.round())]
        _require(bad.empty, name, path, f"column {column!r} must hold whole numbers >= 0 (row {_row(bad)})")


def _row(bad: pd.DataFrame) -> int:
    """The file line of the first bad row (line 1 is the header)."""
    return int(bad.index[0]) + 2 if len(bad) else 0


def _check_params(name: str, path: Path) -> None:
    try:
        params = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise ReportInputError(f"report input {name} ({path}): not YAML: {error}") from None
    _require(isinstance(params, dict), name, path, "expected a mapping of parameters")


def _check_losses(name: str, path: Path) -> None:
    table = _read_csv(name, path, LOSS_COLUMNS)
    _check_whole(name, path, table, ["generation"])
    for column in ("policy", "value", "total"):
        bad = table[pd.to_numeric(table[column], errors="coerce").isna()]
        _require(bad.empty, name, path, f"column {column!r} must hold numbers (row {_row(bad)})")


def _check_evaluation(name: str, path: Path) -> None:
    table = _read_csv(name, path, EVALUATION_COLUMNS)
    _check_whole(name, path, table, ["budget", "replicate", "wins", "draws", "losses"])
    empty = table[table[["wins", "draws", "losses"]].sum(axis=1) == 0]
    _require(empty.empty, name, path, f"every row needs at least one game (row {_row(empty)})")


def _check_numbers(name: str, path: Path, table: pd.DataFrame, columns: Sequence[str]) -> None:
    for column in columns:
        bad = table[pd.to_numeric(table[column], errors="coerce").isna()]
        _require(bad.empty, name, path, f"column {column!r} must hold numbers (row {_row(bad)})")


def _check_ratings(name: str, path: Path) -> None:
    table = _read_csv(name, path, RATING_COLUMNS)
    _check_whole(name, path, table, ["games"])
    _check_numbers(name, path, table, ["budget", "replicate", "elo", "low", "high"])  # an anchor's are -1
    _require(set(table["kind"]) <= {"model", "anchor"}, name, path, "column 'kind' must be model or anchor")


def _check_curves(name: str, path: Path) -> None:
    table = _read_csv(name, path, CURVE_COLUMNS)
    _check_whole(name, path, table, ["budget", "replicates"])
    _check_numbers(name, path, table, ["elo", "low", "high", "spread"])


def _check_comparisons(name: str, path: Path) -> None:
    table = _read_csv(name, path, COMPARISON_COLUMNS)
    _check_whole(name, path, table, ["budget", "replicates"])
    _check_numbers(name, path, table, ["difference", "low", "high", "detectable", "spread"])


def _check_mistakes(name: str, path: Path) -> None:
    table = _read_csv(name, path, MISTAKE_COLUMNS, empty=True)
    _check_whole(name, path, table, ["budget", "replicate", "positions", "mistakes", "critical_positions",
                                     "critical_mistakes", "illegal"])  # fmt: skip
    _check_numbers(name, path, table, ["rate", "low", "high", "critical_rate", "elo"])


def _check_mistake_comparisons(name: str, path: Path) -> None:
    table = _read_csv(name, path, COMPARISON_COLUMNS, empty=True)
    _check_whole(name, path, table, ["budget", "replicates"])
    _check_numbers(name, path, table, ["difference", "low", "high", "detectable", "spread"])


def _check_games(name: str, path: Path) -> None:
    from mmc.play import RecordError, read_records, replay

    try:
        records = read_records(path)
        _require(bool(records), name, path, "no game to show")
        replay(records[0])
    except (RecordError, UnicodeDecodeError) as error:
        raise ReportInputError(f"report input {name} ({path}): {error}") from None


def _json(name: str, path: Path) -> Any:
    """The JSON of input ``name``; :class:`ReportInputError` naming it if the file is not JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ReportInputError(f"report input {name} ({path}): not JSON: {error}") from None


def _check_runs(name: str, path: Path) -> None:
    runs = _json(name, path)
    shape = 'expected {"parent": RUN_ID, "children": {"DVC_STAGE": RUN_ID, ...}}'
    _require(isinstance(runs, dict) and isinstance(runs.get("parent"), str), name, path, shape)
    children = runs.get("children")
    _require(isinstance(children, dict), name, path, shape)
    _require(all(isinstance(v, str) for v in children.values()), name, path, shape)


def _check_official(name: str, path: Path) -> None:
    official = _json(name, path)
    shape = 'expected {"benchmark": NAME or null, "how": ..., "row": {...} or null}'
    _require(isinstance(official, dict) and "benchmark" in official and "row" in official, name, path, shape)


INPUTS: Mapping[str, Callable[[str, Path], None]] = {
    "params_path": _check_params,
    "losses_path": _check_losses,
    "evaluation_path": _check_evaluation,
    "games_path": _check_games,
    "runs_path": _check_runs,
    "ratings_path": _check_ratings,
    "curves_path": _check_curves,
    "comparisons_path": _check_comparisons,
    "mistakes_path": _check_mistakes,
    "mistake_comparisons_path": _check_mistake_comparisons,
    "official_path": _check_official,
}
"""The notebook's parameters (all file paths) and the check each file gets before execution."""


def check_inputs(parameters: Mapping[str, str | os.PathLike[str]]) -> dict[str, str]:
    """The notebook parameters as absolute paths, after checking every file; :class:`ReportInputError` if one is
    missing, unknown, unreadable or malformed (the message names the parameter and the file)."""
    missing = [name for name in INPUTS if name not in parameters]
    unknown = [name for name in parameters if name not in INPUTS]
    if missing or unknown:
        raise ReportInputError(
            f"report parameters: missing {missing or 'none'}, unknown {unknown or 'none'} (expected {list(INPUTS)})"
        )
    resolved = {}
    for name, check in INPUTS.items():
        path = Path(parameters[name]).resolve()
        _require(path.is_file(), name, path, "no such file")
        check(name, path)
        resolved[name] = str(path)
    return resolved


def ensure_kernel(kernel_name: str = "python3") -> None:
    """Make sure Jupyter has a kernelspec named ``kernel_name``; if not, install this interpreter's ipykernel
    under ``sys.prefix`` (the virtual environment, not the user's or the system's folders)."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        spec = KernelSpecManager().get_kernel_spec(kernel_name)
    except NoSuchKernel:
        from ipykernel.kernelspec import install

        path = install(kernel_name=kernel_name, prefix=sys.prefix)
        log.info("installed Jupyter kernel %s for %s at %s", kernel_name, sys.executable, path)
        return
    program = spec.argv[0] if spec.argv else ""
    # jupyter_client runs a spec whose program is plain "python" with the interpreter that starts it.
    if program not in {"python", "python3", f"python3.{sys.version_info[1]}", sys.executable}:
        log.warning("Jupyter kernel %s runs %s, not this interpreter (%s)", kernel_name, program, sys.executable)


def _execute(notebook: Path, executed: Path, parameters: dict[str, str], kernel_name: str, timeout: int) -> None:
    import papermill
    from papermill.exceptions import PapermillExecutionError

    try:
        papermill.execute_notebook(
            str(notebook),
            str(executed),
            parameters=parameters,
            kernel_name=kernel_name,
            execution_timeout=timeout,
            cwd=str(notebook.parent),
            progress_bar=False,
        )
    except PapermillExecutionError as error:
        raise ReportError(
            f"{notebook} failed in cell {error.exec_count}: {error.ename}: {error.evalue} "
            f"(the executed notebook is kept at {executed})"
        ) from None


def _to_html(executed: Path) -> str:
    import nbformat
    from jinja2 import DictLoader
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_cell_tags = set(HIDDEN_TAGS)
    exporter = HTMLExporter(
        config=config,
        template_name="lab",
        extra_loaders=[DictLoader({"mmc-offline.html.j2": _OFFLINE_TEMPLATE})],
        template_file="mmc-offline.html.j2",
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
    )
    body, _ = exporter.from_notebook_node(nbformat.read(executed, as_version=4))
    return body


def external_resources(html: str) -> list[str]:
    """URLs the page would fetch to display: ``src``/``href`` of scripts, stylesheets, images and frames, and
    CSS ``@import``s, that point to another host (``http://``, ``https://`` or ``//``). Plain links are fine."""
    return [match.group(1) or match.group(2) for match in _EXTERNAL.finditer(html)]


def render_report(
    notebook: Path,
    output_html: Path,
    parameters: Mapping[str, str | os.PathLike[str]],
    *,
    kernel_name: str = "python3",
    timeout: int = 600,
) -> Path:
    """Execute ``notebook`` with ``parameters`` (its input files, see :data:`INPUTS`) and write it as
    self-contained HTML without code at ``output_html`` (atomically); return ``output_html``.

    ``timeout`` is the seconds any one cell may run. Raises :class:`ReportInputError` before executing if an
    input is missing or malformed, :class:`ReportError` if a cell fails (the executed notebook is kept beside
    the output) or the HTML would load anything from the network.
    """
    notebook, output_html = Path(notebook).resolve(), Path(output_html).resolve()
    if not notebook.is_file():
        raise ReportInputError(f"report notebook {notebook}: no such file")
    resolved = check_inputs(parameters)
    ensure_kernel(kernel_name)
    output_html.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=output_html.parent, prefix=f".{output_html.stem}.", suffix=".executed.ipynb")
    os.close(fd)
    executed = Path(name)
    _execute(notebook, executed, resolved, kernel_name, timeout)  # on failure, the executed notebook stays
    try:
        html = _to_html(executed)
    finally:
        executed.unlink()
    external = external_resources(html)
    if external:
        raise ReportError(f"the HTML of {notebook} would load from the network: {', '.join(external)}")
    write_text(output_html, html)
    return output_html


FLAGS = tuple(name.removesuffix("_path") for name in INPUTS)
"""The command line's input flags: ``--params``, ``--losses``, ...: one per notebook parameter."""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pipelines.report", description=__doc__.split("\n\n")[0])
    parser.add_argument("--notebook", type=Path, default=Path("reports/study.ipynb"), help="the report notebook")
    parser.add_argument("--out", type=Path, default=Path("reports/study.html"), help="the HTML to write")
    for flag in FLAGS:
        parser.add_argument(f"--{flag}", required=True, help=f"the {flag}_path input file")
    parser.add_argument("--kernel", default="python3", help="Jupyter kernel name (default: python3)")
    parser.add_argument("--timeout", type=int, default=600, help="seconds any one cell may run (default: 600)")
    args = parser.parse_args(argv)
    parameters = {f"{flag}_path": getattr(args, flag) for flag in FLAGS}
    try:
        path = render_report(args.notebook, args.out, parameters, kernel_name=args.kernel, timeout=args.timeout)
    except (ReportInputError, ReportError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
