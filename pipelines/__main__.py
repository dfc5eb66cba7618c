"""``python -m pipelines``: the study's command line, run from the project root (where params.yaml is).

    python -m pipelines check                  # check params.yaml, print the variants; exit 2 on a problem
    python -m pipelines expert VARIANT         # stage expert@VARIANT (dvc.yaml runs it)
    python -m pipelines evaluate VARIANT       # stage evaluate@VARIANT
    python -m pipelines study [DVC ARGS...]    # parent MLflow run around `dvc repro` (make study)
    python -m pipelines services up [--ui]     # start the Prefect server (and the MLflow UI); print the URLs
    python -m pipelines services down          # stop what `up` started

Every command checks params.yaml first: a problem prints one line naming the file and the key and exits
with status 2 before anything is started, written or logged.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pipelines.config import ParamsError, StudyConfig, load_params
from pipelines.paths import Paths
from pipelines.services import ServiceError

MLFLOW_UI_PORT = int(os.environ.get("MLFLOW_UI_PORT", "5000"))


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m pipelines", description=__doc__.split("\n\n")[0])
    parser.add_argument("--params", default="params.yaml", help="parameter file (default: params.yaml)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("check", help="check the parameter file")
    for stage in ("expert", "evaluate"):
        commands.add_parser(stage, help=f"run stage {stage}@VARIANT").add_argument("variant")
    study = commands.add_parser("study", help="run `dvc ARGS` (default: repro) under one MLflow parent run")
    study.add_argument("dvc_args", nargs=argparse.REMAINDER)
    services = commands.add_parser("services", help="the Prefect server and the MLflow UI")
    services.add_argument("action", choices=["up", "down"])
    services.add_argument("--ui", action="store_true", help="also start the MLflow UI")
    return parser


def _stage(command: str, variant: str, study: StudyConfig, paths: Paths) -> None:
    if variant not in study.experts:
        raise ParamsError(
            paths.params.name, "expert.variants", f"has no variant {variant!r} (dvc.yaml and params.yaml disagree?)"
        )
    from pipelines import services
    from pipelines.runners import task_runner

    services.ensure_prefect(paths)
    from prefect import tags

    if command == "expert":
        from pipelines.expert import expert_flow as stage_flow
    else:
        from pipelines.evaluate import evaluate_flow as stage_flow
    labels = [f"stage:{command}", f"variant:{variant}", *([f"mlflow-parent:{p}"] if (p := _parent()) else [])]
    with tags("meta-minichess", *labels):
        stage_flow.with_options(task_runner=task_runner(study.runner))(variant, study, paths.root)


def _parent() -> str | None:
    """The MLflow parent run the study driver opened, if any (its id tags the Prefect flow run)."""
    return os.environ.get("MMC_MLFLOW_PARENT_RUN_ID")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    paths = Paths(Path.cwd())
    try:
        if args.command == "services" and args.action == "down":
            from pipelines import services

            stopped = services.stop(paths)
            print(f"stopped: {', '.join(stopped)}" if stopped else "nothing to stop")
            return 0
        study = load_params(Path(args.params))
        if args.command == "check":
            print(f"{args.params}: OK ({', '.join(study.variants)})")
        elif args.command == "services":
            from pipelines import services
            from pipelines.study import print_urls

            services.ensure_prefect(paths)
            if args.ui:
                services.start_mlflow_ui(paths, MLFLOW_UI_PORT)
            print_urls(MLFLOW_UI_PORT if args.ui else None)
        elif args.command == "study":
            from pipelines.study import print_urls, run_study

            code = run_study(paths, study, [a for a in args.dvc_args if a != "--"])
            print_urls()
            return code
        else:
            _stage(args.command, args.variant, study, paths)
    except ParamsError as error:
        print(error, file=sys.stderr)
        return 2
    except ServiceError as error:
        print(f"pipelines: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
