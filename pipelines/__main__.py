"""``python -m pipelines``: the study's command line, run from the project root (where params.yaml is).

    python -m pipelines check                  # check params.yaml and that its engine opponents play; exit 2 if not
    python -m pipelines expert VARIANT [R]     # stage expert@VARIANT-R (dvc.yaml runs every stage)
    python -m pipelines learn LEARNER [R]      # stage LEARNER@R: a learner's start network (joat, multitask,
                                               # metafocus, one of learners in params.yaml)
    python -m pipelines learners               # list the installed learners (built in, and from other packages)
    python -m pipelines benchmarks [NAME]      # list the frozen benchmarks (pipelines.benchmarks), or describe one
    python -m pipelines adapt TARGET [R]       # stage adapt@TARGET-R: every start x budget
    python -m pipelines evaluate TARGET        # stage evaluate@TARGET: every model x opponent, Elo, comparisons
    python -m pipelines report                 # stage report: reports/study.html
    python -m pipelines study [DVC ARGS...]    # parent MLflow run around `dvc repro` (make study)
    python -m pipelines row [--benchmark NAME] # this finished study's row on its benchmark: reports/row.json
    python -m pipelines check-row ROW          # refit ROW from this study's recorded games, replay a sample; exit 1
                                               # and say what differs if it does not check out (pipelines.rows)
    python -m pipelines services up [--ui]     # start the Prefect server (and the MLflow UI); print the URLs
    python -m pipelines services down          # stop what `up` started
    python -m pipelines services urls          # the study's UI addresses as `mmc serve` options (make play)
    python -m pipelines studies [--check]      # write (check) studies/*/dvc.yaml from dvc.yaml (pipelines.studies)
    python -m pipelines init DIR --benchmark NAME | --family NAME [--learners A,B] [--set KEY=VALUE]
                                               # a new study anywhere (pipelines.project); run it from DIR with
                                               # `python -m pipelines study`

Run from a family study's folder (``studies/gomoku``), every command works on that study: its params.yaml, its
outputs, its MLflow experiment (``pipelines.studies``).

R is a training replicate, an entry of ``replicates`` in params.yaml (default: the first). Every command checks
params.yaml first: a problem prints one line naming the file and the key and exits
with status 2 before anything is started, written or logged. ``check``, ``study`` and ``evaluate`` then check,
as a step of their own, that every evaluation opponent and rating anchor can play its targets (a ``fairy``
spec starts Fairy-Stockfish once: :func:`pipelines.study_rules.check_players`); loading the file starts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import TYPE_CHECKING

from mmc.core.study_layout import DEFAULT_STUDY
from pipelines import handover

if TYPE_CHECKING:
    from pipelines.config import StudyConfig
    from pipelines.paths import Paths


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipelines", description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", default="params.yaml", help="parameter file (default: params.yaml)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="check the parameter file and that its engine opponents can play")
    replicate = "training replicate (default: the first in params.yaml)"
    expert = commands.add_parser("expert", help="run stage expert@VARIANT-R")
    expert.add_argument("variant")
    expert.add_argument("replicate", nargs="?", type=int, help=replicate)
    adapt = commands.add_parser("adapt", help="run stage adapt@TARGET-R")
    adapt.add_argument("variant", metavar="target")
    adapt.add_argument("replicate", nargs="?", type=int, help=replicate)
    commands.add_parser("evaluate", help="run stage evaluate@TARGET").add_argument("variant", metavar="target")
    learn = commands.add_parser("learn", help="run stage LEARNER@R")
    learn.add_argument("variant", metavar="learner")
    learn.add_argument("replicate", nargs="?", type=int, help=replicate)
    commands.add_parser("learners", help="list the installed learners")
    init = commands.add_parser("init", help="make a new study in DIR, outside this project (pipelines.project)")
    init.add_argument("dir", help="a new or empty folder")
    on = init.add_mutually_exclusive_group(required=True)
    on.add_argument("--benchmark", help="a frozen benchmark (python -m pipelines benchmarks lists them)")
    on.add_argument("--family", help="a game family (mmc variants lists them, installed games included)")
    init.add_argument("--learners", default="", help="learners to add, comma-separated (python -m pipelines learners)")
    init.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a params.yaml key (repeatable)")
    init.add_argument(
        "--size",
        choices=["small", "tiny"],
        default="small",
        help="a family's profile: small (minutes a stage) or tiny (seconds: to try the pipeline)",
    )
    benchmarks = commands.add_parser("benchmarks", help="list the frozen benchmarks, or describe one")
    benchmarks.add_argument("name", nargs="?", help="a benchmark (chess-v1): describe it")
    commands.add_parser("report", help="run stage report")
    row = commands.add_parser("row", help="write this finished study's row on its benchmark (pipelines.rows)")
    row.add_argument("--benchmark", help="the benchmark (default: the one params.yaml names or equals)")
    row.add_argument("--out", default="reports/row.json", help="where (default: reports/row.json)")
    checked = commands.add_parser("check-row", help="check a row against this study's models and recorded games")
    checked.add_argument("row", help="the row's JSON file (an official one: pipelines/frozen/rows/NAME.json)")
    checked.add_argument("--replays", type=int, help="match jobs replayed per target (default: pipelines.rows.REPLAYS)")
    study = commands.add_parser("study", help="run `dvc ARGS` (default: repro) under one MLflow parent run")
    study.add_argument("dvc_args", nargs=argparse.REMAINDER)
    services = commands.add_parser("services", help="the Prefect server and the MLflow UI")
    services.add_argument("action", choices=["up", "down", "urls"])
    services.add_argument("--ui", action="store_true", help="also start the MLflow UI")
    studies = commands.add_parser("studies", help="write every family study's dvc.yaml from the project's")
    studies.add_argument("--check", action="store_true", help="only say which are stale (exit 1 if any)")
    return parser


def _stage(command: str, variant: str | None, replicate: int | None, study: StudyConfig, paths: Paths) -> None:
    from pipelines.config import ParamsError

    known = {
        "expert": ("expert.variants", study.variants),
        "adapt": ("adapt.targets", study.targets),
        "learn": ("learners", study.learners.names),
    }
    key, names = known.get(command, known["adapt"] if command == "evaluate" else ("", []))
    if variant is not None and variant not in names:
        what = "learner" if command == "learn" else "variant"
        raise ParamsError(paths.params.name, key, f"has no {what} {variant!r} (dvc.yaml and params.yaml disagree?)")
    replicate = study.replicates[0] if replicate is None else replicate
    if replicate not in study.replicates:
        raise ParamsError(paths.params.name, "replicates", f"has no replicate {replicate} ({list(study.replicates)})")
    from pipelines import services
    from pipelines.runners import task_runner

    services.ensure_prefect(paths)
    from prefect import tags

    labels = [f"stage:{command}", *([f"variant:{variant}"] if variant else [])]
    labels += [f"replicate:{replicate}"] if command in ("expert", "adapt", "learn") else []
    labels += [f"mlflow-parent:{p}"] if (p := _parent()) else []
    labels += [f"study:{paths.study}"] if paths.study != DEFAULT_STUDY else []
    with tags("meta-minichess", *labels):
        runner = task_runner(study.runner)
        target = variant or ""
        if command == "expert":
            from pipelines.expert import expert_flow

            expert_flow.with_options(task_runner=runner)(target, replicate, study, paths.root)
        elif command == "adapt":
            from pipelines.adapt import adapt_flow

            adapt_flow.with_options(task_runner=runner)(target, replicate, study, paths.root)
        elif command == "evaluate":
            from pipelines.evaluate import evaluate_flow

            evaluate_flow.with_options(task_runner=runner)(target, study, paths.root)
        elif command == "learn":
            from pipelines.learn import learn_flow

            learn_flow.with_options(task_runner=runner)(target, replicate, study, paths.root)
        else:
            from pipelines.study_report import report_flow

            report_flow(study, paths.root)


def _studies(project: Path, *, check: bool) -> int:
    from pipelines.studies import check_studies, write_studies

    if check:
        stale = check_studies(project)
        for path in stale:
            print(f"{path.relative_to(project)}: stale (python -m pipelines studies rewrites it)", file=sys.stderr)
        return 1 if stale else 0
    for path in write_studies(project):
        print(f"wrote {path.relative_to(project)}")
    return 0


def _learners() -> int:
    """Print every installed learner, one a line (a plugin that failed to load is said on stderr, by
    ``mmc.core.plugins``)."""
    from mmc.meta import installed_learners
    from mmc.meta.learners import learner_code

    for name, learner in installed_learners().items():
        where, version = learner_code(learner)
        source = "built in" if type(learner).__module__.startswith("mmc.") else f"{where.name} {version}".strip()
        starts = f"; starts from {learner.starts_from}" if learner.starts_from else ""
        print(f"{name:<12} {learner.description} ({source}{starts})")
    return 0


def _benchmarks(name: str | None) -> int:
    """List the frozen benchmarks (``pipelines.benchmarks``), one a line, or describe ``name``; an unknown one is said
    in one line (status 2)."""
    from pipelines.benchmarks import BenchmarkError, benchmarks, describe, get_benchmark
    from pipelines.rows import official_row

    if name is None:
        for benchmark in benchmarks().values():
            row = official_row(benchmark.name)
            made = f"official row: {row['code']['commit'][:7]}, {row['cpu']}" if row else "no official row yet"
            print(f"{benchmark.name:<11} {benchmark.family:<7} {benchmark.description} ({made})")
        return 0
    try:
        benchmark = get_benchmark(name)
    except BenchmarkError as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 2
    for line in describe(benchmark):
        print(line)
    row = official_row(benchmark.name)
    print(f"  official row: {'none yet' if row is None else row['command']}")
    return 0


def _init(args: argparse.Namespace) -> int:
    """``init``: make the study, or say in one line why not (status 2)."""
    from pipelines.benchmarks import BenchmarkError
    from pipelines.project import InitError, init_study

    learners = [name for name in args.learners.split(",") if name]
    try:
        folder = init_study(Path(args.dir), benchmark=args.benchmark, family=args.family, learners=learners,
                            settings=args.set, size=args.size)  # fmt: skip
    except (InitError, BenchmarkError) as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 2
    print(f"made the study {folder}: run it with `cd {folder} && python -m pipelines study`")
    return 0


def _row(paths: Paths, study: StudyConfig, name: str | None, out: Path) -> int:
    """Write the study's row on benchmark ``name`` (or the one its params name or equal) to ``out``."""
    from pipelines.benchmarks import BenchmarkError, get_benchmark, matching
    from pipelines.files import write_json
    from pipelines.rows import ROW_COMMAND, RowError, make_row

    try:
        benchmark = get_benchmark(name) if name else matching(study.raw)
    except BenchmarkError as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 2
    command = (
        ROW_COMMAND.format(benchmark=benchmark.name)
        if benchmark
        else "python -m pipelines study && python -m pipelines row  # in the study's folder"
    )
    try:
        row = make_row(paths, study, benchmark, command)
    except RowError as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 2
    written = write_json(paths.root / out, row)
    on = f"benchmark {benchmark.name}" if benchmark else "the study's own definition (no benchmark)"
    print(f"wrote {paths.relative(written)}: the row of {on} ({len(row['targets'])} targets, {len(row['models'])} "
          "model files)")  # fmt: skip
    return 0


def _check_row(paths: Paths, study: StudyConfig, path: Path, replays: int | None) -> int:
    """Check the row at ``path`` against this study (``pipelines.rows.check_row``): its notes, or one line saying what
    differs (status 1)."""
    import json

    from pipelines.rows import REPLAYS, RowError, check_row

    try:
        row = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        print(f"pipelines: {path}: not a row ({error})", file=sys.stderr)
        return 2
    try:
        notes = check_row(row, paths, study, replays=REPLAYS if replays is None else replays)
    except RowError as error:
        print(f"pipelines: {path}: refused: {error}", file=sys.stderr)
        return 1
    for note in notes:
        print(note)
    on = row["benchmark"] or "no benchmark"
    print(f"{path}: accepted ({on}, made at {str(row['code'].get('commit'))[:12]} on {row['cpu']})")
    return 0


def _check_players(study: StudyConfig, source: str) -> None:
    """:func:`pipelines.study_rules.check_players`, its problem a :class:`ParamsError` naming ``source``."""
    from pipelines.config import ParamsError
    from pipelines.study_rules import RuleError, check_players

    try:
        check_players(study)
    except RuleError as error:
        raise ParamsError(source, error.key, error.problem) from None


def _parent() -> str | None:
    """The MLflow parent run the study driver opened, if any (its id tags the Prefect flow run)."""
    return os.environ.get("MMC_MLFLOW_PARENT_RUN_ID")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = _parser().parse_args(argv)
    # A stage goes to the study's warm worker when one runs and is fresh (pipelines.worker): before any import
    # of torch, Prefect or MLflow, which that worker has done once for every stage.
    if (handed := handover.hand_over(argv, args.command)) is not None:
        return handed
    from pipelines import timing

    timing.mark_start()  # a stage's "start" part: from here (imports, params, its flow run) to its flow's first line
    from mmc.meta.learners import LearnerError
    from pipelines.config import ParamsError
    from pipelines.paths import Paths
    from pipelines.services import ServiceError

    try:
        return _command(args, Paths(Path.cwd()))
    except ParamsError as error:
        print(error, file=sys.stderr)
        return 2
    except ServiceError as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 1
    except LearnerError as error:
        traceback.print_exc()
        print(f"pipelines: {error}", file=sys.stderr)  # the last line names the learner
        return 1
    except Exception as error:
        cause = _service_error(error)
        if cause is None:
            raise
        traceback.print_exc()
        print(f"pipelines: {cause}", file=sys.stderr)  # the last line says why, under Prefect's own failure
        return 1


def _command(args: argparse.Namespace, paths: Paths) -> int:
    """Run command ``args.command`` on the study at ``paths``: its exit status (errors go up to :func:`main`)."""
    from pipelines.config import ParamsError, load_params

    if args.command == "services" and args.action in ("down", "urls"):
        return _services(args.action, paths)
    if args.command == "studies":
        return _studies(paths.project, check=args.check)
    if args.command == "learners":
        return _learners()
    if args.command == "benchmarks":
        return _benchmarks(args.name)
    if args.command == "init":
        return _init(args)
    study = load_params(Path(args.params))
    if paths.study != DEFAULT_STUDY and study.family != paths.study:
        raise ParamsError(
            Path(args.params).name, "", f"is a {study.family} study in the folder of the {paths.study} study"
        )
    if args.command in ("check", "study", "evaluate"):
        _check_players(study, Path(args.params).name)
    if args.command == "check":
        drawn = "" if study.distribution is None else f", drawn: {study.distribution.describe()}"
        print(
            f"{args.params}: OK (experts: {', '.join(study.variants)}; learners: {', '.join(study.learners.names)}"
            f" with {study.learners.budget} self-play games each; meta-training: "
            f"{', '.join(study.meta.train_variants)}{drawn}; targets: {', '.join(study.targets)})"
        )
    elif args.command == "services":
        from pipelines import services
        from pipelines.study import print_urls

        services.ensure_prefect(paths)
        port, why = (services.start_mlflow_ui(paths), "own") if args.ui else services.mlflow_ui_port(paths)
        print_urls(paths, port, mlflow_running=why == "own")
    elif args.command == "row":
        return _row(paths, study, args.benchmark, Path(args.out))
    elif args.command == "check-row":
        return _check_row(paths, study, Path(args.row), args.replays)
    elif args.command == "study":
        from pipelines.services import mlflow_ui_port
        from pipelines.study import print_urls, run_study

        code = run_study(paths, study, [a for a in args.dvc_args if a != "--"])
        port, why = mlflow_ui_port(paths)
        print_urls(paths, port, mlflow_running=why == "own")
        return code
    else:
        _stage(args.command, getattr(args, "variant", None), getattr(args, "replicate", None), study, paths)
    return 0


def _services(action: str, paths: Paths) -> int:
    """``services down`` (stop what ``up`` started) or ``services urls`` (where this study's servers answer, or will
    when ``services up`` starts them)."""
    from pipelines import services

    if action == "urls":
        prefect = os.environ["PREFECT_API_URL"].removesuffix("/api")
        print(f"--prefect-url {prefect} --mlflow-url http://127.0.0.1:{services.mlflow_ui_port(paths)[0]}")
        return 0
    stopped = services.stop(paths)
    print(f"stopped: {', '.join(stopped)}" if stopped else "nothing to stop")
    return 0


def _service_error(error: BaseException) -> BaseException | str | None:
    """Why a stage failed, in one line, when a service is behind ``error``: a ``pipelines.services.ServiceError`` in
    its chain (``pipelines.jobs.ServerGoneError``: Prefect reports a flow's failure to its server, and when the server
    is gone that report fails with a connection error whose context is the stage's own), or a refused connection to
    the Prefect server; ``None`` for anything else."""
    from pipelines.services import ServiceError

    seen: set[int] = set()
    current: BaseException | None = error
    refused = None
    while current is not None and id(current) not in seen:
        if isinstance(current, ServiceError):
            return current
        if type(current).__name__ == "ConnectError" and type(current).__module__.startswith("httpx"):
            refused = current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    if refused is None:
        return None
    url = os.environ.get("PREFECT_API_URL", "")
    return (f"the Prefect server at {url} stopped answering ({refused}); the stage's finished jobs are kept: start "
            "the server (make study starts one) and run the stage again")  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
