"""The site's generated parts (an MkDocs hook, ``mkdocs.yml``: ``hooks``): a page asks for one with a line
``<!-- generate: NAME [ARGUMENT] -->`` and the build puts the generated Markdown in its place.

- ``include FILE``: a file of the repository as it is (``docs/log.md``: BENCHMARKS.md, the lab log);
- ``cli mmc`` / ``cli pipelines``: every command of that command line, from its own parser;
- ``params``: every key of ``params.yaml``, from the config classes that check it (``pipelines.config``);
- ``web-api``: every route of ``mmc serve``, from the app's own routes and their docstrings.

A generator that meets something it cannot describe (a route or a key without a docstring) stops the build.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
import itertools
import os
import re
import tempfile
import textwrap
import typing
from collections.abc import Callable
from pathlib import Path
from types import NoneType, UnionType
from typing import Annotated, Any

import yaml

ROOT = Path(__file__).resolve().parent.parent
MARKER = re.compile(r"^<!-- generate: (\S+)(?: (.*?))? -->$", re.MULTILINE)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return MARKER.sub(lambda match: GENERATORS[match[1]](match[2] or ""), markdown)


# -- text ----------------------------------------------------------------------------------------------------------


def md(text: str | None) -> str:
    """A docstring as Markdown on one line: reST roles and double backticks made plain code, lines joined."""
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", inspect.cleandoc(text or ""))
    return " ".join(text.replace("``", "`").split())


def cell(text: str) -> str:
    """``text`` fit for a Markdown table cell: pipes escaped, and brackets outside code spans, which Markdown would
    read as links (``[:gumbel=1]``)."""
    parts = text.replace("|", "\\|").replace("\n", " ").split("`")
    return "`".join(re.sub(r"([\[\]])", r"\\\1", part) if i % 2 == 0 else part for i, part in enumerate(parts))


def attribute_docs(cls: type) -> dict[str, str]:
    """The docstrings written under a class's fields (``name: type`` then a string), by field name, its bases'
    first."""
    docs: dict[str, str] = {}
    for base in reversed(cls.__mro__[:-1]):
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(base)))
        except (OSError, TypeError):
            continue
        body = tree.body[0].body  # type: ignore[attr-defined]
        for node, after in itertools.pairwise(body):
            if (isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and isinstance(after, ast.Expr)
                    and isinstance(after.value, ast.Constant) and isinstance(after.value.value, str)):  # fmt: skip
                docs[node.target.id] = md(after.value.value)
    return docs


# -- include -------------------------------------------------------------------------------------------------------


def include(argument: str) -> str:
    return (ROOT / argument.strip()).read_text()


# -- the command lines ---------------------------------------------------------------------------------------------


def cli(argument: str) -> str:
    os.environ["COLUMNS"] = "100"
    if argument == "mmc":
        from mmc.cli import build_parser

        parser = build_parser()
    elif argument == "pipelines":
        from pipelines.__main__ import _parser

        parser = _parser()
    else:
        raise ValueError(f"generate cli: unknown command line {argument!r} (mmc or pipelines)")
    return "\n".join(_commands(parser, parser.prog, 3))


def _commands(parser: argparse.ArgumentParser, name: str, level: int) -> list[str]:
    lines = [f"```text\n{parser.format_usage().strip()}\n```", ""]
    if parser.description:
        lines += [md(parser.description), ""]
    lines += _arguments(parser)
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            for sub_name, sub in action.choices.items():
                lines += [f"{'#' * level} `{name} {sub_name}`", ""]
                if helps.get(sub_name):
                    lines += [md(helps[sub_name]).capitalize()[:1] + md(helps[sub_name])[1:] + ".", ""]
                lines += _commands(sub, f"{name} {sub_name}", min(level + 1, 4))
    return lines


def _arguments(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    rows = []
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction | argparse._SubParsersAction) or action.help == argparse.SUPPRESS:
            continue
        if action.option_strings:
            shown = ", ".join(action.option_strings)
            if action.nargs != 0:
                shown += f" {action.metavar or action.dest.upper()}"
        else:
            shown = str(action.metavar or action.dest)
        text = formatter._expand_help(action) if action.help else ""
        if action.choices and not isinstance(action.choices, dict):
            text += f" (one of: {', '.join(map(str, action.choices))})"
        rows.append(f"| `{cell(shown)}` | {cell(md(text))} |")
    return ["| Argument | Meaning |", "| --- | --- |", *rows, ""] if rows else []


# -- params.yaml ---------------------------------------------------------------------------------------------------


def _must(annotation: Any) -> str:
    """What a value of ``annotation`` must be, in the words of ``mmc.core.configs``' checks."""
    from mmc.core.configs import Range

    if typing.get_origin(annotation) is Annotated:
        base, *marks = typing.get_args(annotation)
        ranges = [str(mark) for mark in marks if isinstance(mark, Range)]
        shown = _must(base)
        for text in ranges:
            shown = text if text.startswith(("an ", "a ")) else f"{shown} {text}"
        return shown
    if isinstance(annotation, UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not NoneType]
        return " or ".join(_must(a) for a in args) + " or null"
    if typing.get_origin(annotation) is tuple:
        return f"a list of {_must(typing.get_args(annotation)[0]).removeprefix('an ').removeprefix('a ')}s"
    if dataclasses.is_dataclass(annotation):
        return f"a mapping ({annotation.__name__})"
    return {bool: "a bool", int: "an int", float: "a number", str: "a str"}.get(annotation, str(annotation))


def _shown(value: Any) -> str:
    if isinstance(value, dict | list):
        text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()
        return f"`{text}`" if len(text) <= 60 else "(a mapping, see the file)"
    return f"`{yaml.safe_dump(value, default_flow_style=True).strip().removesuffix('...').strip()}`"


def _field_rows(cls: type, values: dict[str, Any], prefix: str, only: tuple[str, ...] | None = None) -> list[str]:
    from mmc.core.configs import _hints

    docs = attribute_docs(cls)
    rows = []
    for item in dataclasses.fields(cls):  # type: ignore[arg-type]
        if only is not None and item.name not in only:
            continue
        if item.name not in docs:
            raise ValueError(f"generate params: {cls.__name__}.{item.name} has no docstring")
        default = item.default if item.default is not dataclasses.MISSING else None
        default_text = _shown(default) if item.default is not dataclasses.MISSING else "(required)"
        value = _shown(values[item.name]) if item.name in values else ""
        rows.append(f"| `{prefix}{item.name}` | {cell(_must(_hints(cls)[item.name]))} | {cell(default_text)} "
                    f"| {cell(value)} | {cell(docs[item.name])} |")  # fmt: skip
    return rows


HEADER = ["| Key | Must be | Default | In `params.yaml` | Meaning |", "| --- | --- | --- | --- | --- |"]


def params(argument: str) -> str:
    from mmc.evaluation.evaluate import EvaluateConfig, RateConfig
    from mmc.loops.alphazero import AlphaZeroConfig
    from mmc.meta import AdaptConfig, MetaConfig, TaskDistribution
    from mmc.meta.learners import learner_distribution
    from mmc.meta.registry import installed_learners
    from mmc.nn import NetworkConfig
    from mmc.search import SearchConfig
    from mmc.train import TrainConfig
    from pipelines import study_config as config
    from pipelines.study_config import SECTION_DOCS, AdaptPlan, EvaluatePlan, LearnerPlan, RunnerConfig, StudyConfig

    data = yaml.safe_load((ROOT / "params.yaml").read_text())
    for section in config.SECTIONS:
        if section not in SECTION_DOCS:
            raise ValueError(f"generate params: section {section!r} is not in pipelines.study_config.SECTION_DOCS")
    study = attribute_docs(StudyConfig)
    lines: list[str] = []

    def section(name: str, rows: list[str], extra: str = "") -> None:
        lines.extend([f"## `{name}`", "", md(SECTION_DOCS[name]), ""])
        if extra:
            lines.extend([extra, ""])
        lines.extend([*HEADER, *rows, ""])

    def top(name: str) -> list[str]:
        from mmc.core.configs import _hints

        value = _shown(data.get(name))
        return [f"| `{name}` | {cell(_must(_hints(StudyConfig)[name]))} | | {cell(value)} | {cell(study[name])} |"]

    for name in ("benchmark", "seed", "replicates", "device"):
        section(name, top(name))
    section("network", _field_rows(NetworkConfig, data["network"], "network.", config.NETWORK_KEYS))
    section("search", _field_rows(SearchConfig, data["search"], "search."))
    section("train", _field_rows(TrainConfig, data["train"], "train."))
    expert = data["expert"]
    section("expert", [
        f"| `expert.variants` | a mapping of variant ids | (required) | {cell(_shown(expert['variants']))} "
        f"| {cell(md(SECTION_DOCS['expert.variants']))} |",
        f"| `expert.search` | a mapping of `search` keys, or null | (required) | {cell(_shown(expert['search']))} "
        f"| {cell(md(SECTION_DOCS['expert.search']))} |",
        f"| `expert.train` | a mapping of `train` keys, or null | (required) | {cell(_shown(expert['train']))} "
        f"| {cell(md(SECTION_DOCS['expert.train']))} |",
        *_field_rows(AlphaZeroConfig, expert, "expert."),
    ])  # fmt: skip
    meta = data["meta"]
    section("meta", _field_rows(MetaConfig, meta, "meta."))
    lines.extend(["`meta.train_variants` may instead name a distribution of variants: a mapping of these keys "
                  f"({md(TaskDistribution.__doc__)}).", "",
                  *HEADER, *_field_rows(TaskDistribution, {}, "meta.train_variants."), ""])  # fmt: skip
    learners = data["learners"]
    rows = [f"| `learners.budget` | an int >= 0 | (required) | {cell(_shown(learners['budget']))} "
            f"| {cell(attribute_docs(LearnerPlan)['budget'])} |"]  # fmt: skip
    for name, learner in sorted(installed_learners().items()):
        if learner_distribution(learner) is not None:
            continue  # an installed package's learner: its own documentation
        shown = _shown(learners[name]) if name in learners else "(not in the study)"
        fields = dataclasses.fields(learner.settings)
        meaning = f"{md(learner.__doc__ or '')} Its settings: " + (
            ", ".join(f"`{f.name}`" for f in fields) + " (below)." if fields else "none (`{}`)."
        )
        rows.append(f"| `learners.{name}` | a mapping of its settings | | {cell(shown)} | {cell(meaning)} |")
        if fields:
            rows += _field_rows(learner.settings, learners.get(name) or {}, f"learners.{name}.")
    section("learners", rows)
    adapt = data["adapt"]
    section("adapt", [*_field_rows(AdaptPlan, adapt, "adapt.", ("targets", "starts")),
                      *_field_rows(AdaptConfig, adapt, "adapt.")])  # fmt: skip
    evaluate = data["evaluate"]
    section("evaluate", [*_field_rows(EvaluatePlan, evaluate, "evaluate.", ("opponents",)),
                         *_field_rows(EvaluateConfig, evaluate, "evaluate.")])  # fmt: skip
    section("rate", _field_rows(RateConfig, data["rate"], "rate."))
    section("runner", _field_rows(RunnerConfig, data["runner"], "runner."))
    return "\n".join(lines)


# -- a dataclass's fields -----------------------------------------------------------------------------------------


def fields(argument: str) -> str:
    """``fields MODULE.CLASS``: a table of the dataclass's fields: name, whether a family must give it, meaning."""
    import importlib

    module, _, name = argument.strip().rpartition(".")
    cls = getattr(importlib.import_module(module), name)
    docs = attribute_docs(cls)
    lines = ["| Field | Required | Meaning |", "| --- | --- | --- |"]
    for item in dataclasses.fields(cls):
        if item.name not in docs:
            raise ValueError(f"generate fields: {argument}.{item.name} has no docstring")
        required = item.default is dataclasses.MISSING and item.default_factory is dataclasses.MISSING
        given = item.default is not dataclasses.MISSING
        default = f" (default `{item.default!r}`)" if given else ""
        lines.append(f"| `{item.name}` | {'yes' if required else 'no' + default} | {cell(docs[item.name])} |")
    return "\n".join(lines) + "\n"


# -- the web app's JSON API ----------------------------------------------------------------------------------------


def web_api(argument: str) -> str:
    from starlette.routing import Mount, Route

    from mmc.web.app import create_app

    with tempfile.TemporaryDirectory() as folder:
        app = create_app(folder, prepare=False)
    lines = ["| Method | Path | What it does |", "| --- | --- | --- |"]
    for route in app.routes:
        if isinstance(route, Mount):
            lines.append(f"| GET | `{route.path}/...` | The page's static files (scripts, styles, pieces). |")
            continue
        assert isinstance(route, Route)
        doc = inspect.getdoc(route.endpoint)
        if not doc:
            raise ValueError(f"generate web-api: route {route.path} ({route.endpoint.__name__}) has no docstring")
        methods = ", ".join(sorted((route.methods or {"GET"}) - {"HEAD"}))
        lines.append(f"| {methods} | `{route.path}` | {cell(md(doc))} |")
    return "\n".join(lines) + "\n"


GENERATORS: dict[str, Callable[[str], str]] = {
    "include": include, "cli": cli, "params": params, "fields": fields, "web-api": web_api,
}  # fmt: skip
