"""The frozen benchmarks (``pipelines.benchmarks``): pinned, listed, and a study that names one may differ from it in
its execution keys and added learners only; ``python -m pipelines init`` makes a study anywhere from one (or from a
game family), refusing bad input in one line before it writes anything; a row's claims are checked
(``pipelines.rows``)."""

from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from pipelines.__main__ import main
from pipelines.benchmarks import (
    Benchmark,
    benchmarks,
    check_study,
    definition_hash,
    get_benchmark,
    matching,
)
from pipelines.config import ParamsError, load_params, parse_params
from pipelines.paths import Paths, code_root
from pipelines.project import InitError, init_study, propose
from pipelines.rows import ROW_FORMAT, RowError, check_row, official_row
from pipelines.studies import anywhere_dvc_yaml

from .conftest import REPO, tool_env

FROZEN = {
    "chess-v1": "88f76de776158a1fe6adcc87eee57c0a487e42f6af76d9f9e18717fc6d7d3eae",
    "kinarow-v1": "8fcb22572ac1ca3ca06d35e74df8170bf301e2daece55ab85478ad11097e493b",
    "jump-v1": "02b3fe47e87617d63383ccfbd30d5ce25f5f7dcae3a7addfb9406c0cc0120248",
}
"""Every frozen benchmark's definition hash. A changed definition is a new version with a new name: never change a
hash here, add a benchmark."""


def test_every_frozen_benchmark_is_pinned() -> None:
    assert {name: b.hash for name, b in benchmarks().items()} == FROZEN


@pytest.mark.parametrize("name", list(FROZEN))
def test_a_benchmark_is_a_whole_study(name: str) -> None:
    """Its definition, with the execution keys added, is a study every command accepts, of its family, naming it."""
    benchmark = get_benchmark(name)
    study = parse_params(benchmark.study_params())
    assert study.benchmark == name and study.family == benchmark.family
    assert [t for t in study.targets if t not in study.meta.train_variants]  # a target held out
    assert len(study.replicates) >= 2 and benchmark.learners == ["joat", "multitask", "metafocus"]
    assert definition_hash(benchmark.study_params(device="auto", runner={"workers": 8})) == benchmark.hash


def test_the_definition_hash_ignores_order_layout_and_execution_keys() -> None:
    params = get_benchmark("kinarow-v1").study_params()
    shuffled = dict(reversed(list(params.items())))
    shuffled["runner"] = {"kind": "dask", "workers": 16, "address": "tcp://127.0.0.1:8786"}
    assert definition_hash(shuffled) == definition_hash(params) == FROZEN["kinarow-v1"]
    params["evaluate"]["games"] += 1
    assert definition_hash(params) != FROZEN["kinarow-v1"]


def test_a_study_that_names_a_benchmark_may_add_learners_and_change_where_it_runs() -> None:
    benchmark = get_benchmark("kinarow-v1")
    params = benchmark.study_params(device="auto", runner={"kind": "thread", "workers": 1})
    params["learners"]["reptile_like"] = {"generations": 2}
    params["adapt"]["starts"].append("reptile_like")
    assert check_study(params, benchmark) is None
    changed = copy.deepcopy(params)
    changed["meta"]["games"] = 12
    assert check_study(changed, benchmark) == (
        "meta.games", "is 12: benchmark kinarow-v1 has 24 (only device, runner and added learners may differ)"
    )  # fmt: skip
    dropped = copy.deepcopy(params)
    del dropped["learners"]["metafocus"]
    assert check_study(dropped, benchmark) is not None and check_study(dropped, benchmark)[0].startswith(
        "learners.metafocus"
    )


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("kinarow-v2", "params.yaml: benchmark: no benchmark 'kinarow-v2': kinarow has kinarow-v1"),
        ("go-v1", "params.yaml: benchmark: no benchmark 'go-v1' (the benchmarks: chess-v1, jump-v1, kinarow-v1)"),
    ],
)
def test_an_unknown_benchmark_or_version_is_refused_in_one_line(name: str, line: str, tmp_path: Path) -> None:
    params = get_benchmark("kinarow-v1").study_params()
    params["benchmark"] = name
    (tmp_path / "params.yaml").write_text(yaml.safe_dump(params))
    with pytest.raises(ParamsError) as error:
        load_params(tmp_path / "params.yaml")
    assert str(error.value) == line


def test_the_committed_studies_were_frozen_as_their_benchmarks() -> None:
    """At freezing, each committed study's definition was its benchmark's; a study that names none is matched by its
    definition (the report sets the official row beside it), one that differs matches none."""
    frozen = {b.frozen_from.split(" at ")[0]: b for b in benchmarks().values()}
    assert set(frozen) == {"params.yaml", "studies/gomoku/params.yaml", "studies/jump/params.yaml"}
    tiny = yaml.safe_load((REPO / "tests/pipelines/params-tiny.yaml").read_text())
    assert matching(tiny) is None
    assert matching(get_benchmark("jump-v1").study_params(device="cuda")) == get_benchmark("jump-v1")


def test_benchmarks_are_listed_and_described(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["benchmarks"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in listed] == ["chess-v1", "jump-v1", "kinarow-v1"]
    assert main(["benchmarks", "kinarow-v1"]) == 0
    described = capsys.readouterr().out
    assert "targets:     mnk_7x7_k4, connect4 (held out: mnk_7x7_k4, connect4)" in described
    assert f"hash:        {FROZEN['kinarow-v1']}" in described and "official row:" in described
    assert main(["benchmarks", "kinarow-v9"]) == 2
    assert capsys.readouterr().err == "pipelines: no benchmark 'kinarow-v9': kinarow has kinarow-v1\n"


def test_init_makes_a_study_anywhere_from_a_benchmark(tmp_path: Path) -> None:
    """``params.yaml`` naming the benchmark, the shipped pipeline with the installed code as its deps, the report
    notebook, git and DVC initialised, one commit; the params load and pass the benchmark's check."""
    folder = init_study(tmp_path / "k4", benchmark="kinarow-v1")
    study = load_params(folder / "params.yaml")
    assert study.benchmark == "kinarow-v1" and definition_hash(study.raw) == FROZEN["kinarow-v1"]
    assert (folder / ".dvc").is_dir() and (folder / ".git").is_dir() and (folder / "reports/study.ipynb").is_file()
    assert (folder / "reports/study.ipynb").read_bytes() == (REPO / "reports/study.ipynb").read_bytes()
    text = (folder / "dvc.yaml").read_text()
    assert text == anywhere_dvc_yaml(folder)
    stages = yaml.safe_load(text)["stages"]
    code = [d for s in stages.values() for d in s.get("do", s)["deps"] if d.startswith("/")]
    assert code and all(Path(d).exists() and Path(d).is_relative_to(code_root()) for d in code)
    assert f"{code_root().as_posix()}/mmc/games/gomoku" in stages["expert"]["deps"]
    assert "reports/study.ipynb" in stages["report"]["deps"]
    log = subprocess.run(["git", "log", "--oneline"], cwd=folder, capture_output=True, text=True, check=True).stdout
    assert log.count("\n") == 1 and "study init: benchmark kinarow-v1" in log
    assert not subprocess.run(["git", "status", "--porcelain"], cwd=folder, capture_output=True, text=True).stdout
    assert Paths(folder).project == Paths(folder).root == folder and Paths(folder).study == "default"


def test_init_refuses_bad_input_in_one_line_before_it_writes(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "notes.txt").write_text("mine")
    run = [sys.executable, "-m", "pipelines", "init"]
    cases = [
        ([str(taken), "--benchmark", "kinarow-v1"], f"pipelines: {taken}: not an empty folder (init makes a new "
                                                     "study in a new or empty one)"),
        ([str(tmp_path / "a"), "--benchmark", "kinarow-v2"], "pipelines: no benchmark 'kinarow-v2': kinarow has "
                                                              "kinarow-v1"),
        ([str(tmp_path / "b"), "--benchmark", "chess-v1", "--set", "adapt.budgets=[0, 50]"],
         "params.yaml: adapt.budgets: is [0, 50]: benchmark chess-v1 has [0, 100] (only device, runner and added "
         "learners may differ)"),
        ([str(tmp_path / "c"), "--family", "go"], "pipelines: no game family 'go' (the families: chess, gomoku, jump)"),
        ([str(tmp_path / "d"), "--family", "gomoku", "--learners", "nobody"],
         "pipelines: --learners: unknown learner 'nobody' (installed: "),
    ]  # fmt: skip
    for args, line in cases:
        done = subprocess.run([*run, *args], cwd=tmp_path, env=tool_env(), capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stderr.splitlines()[-1].startswith(line), (args, done.stderr)
        assert len(done.stderr.splitlines()) == 1, done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"] and [p.name for p in taken.iterdir()] == [
        "notes.txt"
    ]


def test_a_family_profile_holds_a_variant_out_and_runs_the_familys_budgets() -> None:
    small, tiny = propose("gomoku"), propose("gomoku", "tiny")
    for params in (small, tiny):
        study = parse_params(params)
        assert study.family == "gomoku" and study.benchmark is None
        assert study.targets[0] not in study.meta.train_variants
    assert small["learners"]["budget"] > tiny["learners"]["budget"] and tiny["replicates"] == [0]
    with pytest.raises(InitError, match="no game family 'go'"):
        propose("go")


def _row(benchmark: Benchmark) -> dict[str, object]:
    return {"format": ROW_FORMAT, "benchmark": benchmark.name, "benchmark_hash": benchmark.hash,
            "params_hash": benchmark.hash,
            "code": {"commit": None}, "models": {}, "games": {}, "targets": {}}  # fmt: skip


def test_a_row_from_another_version_than_it_claims_is_refused(tmp_path: Path) -> None:
    study = parse_params(get_benchmark("kinarow-v1").study_params())
    paths = Paths(tmp_path)
    row = _row(get_benchmark("kinarow-v1"))
    with pytest.raises(RowError, match=r"^the row is of format 1, this code checks format"):
        check_row({**row, "format": 1}, paths, study)
    row["benchmark_hash"] = FROZEN["chess-v1"]
    with pytest.raises(RowError, match=r"^the row claims kinarow-v1, but was made on another definition of it"):
        check_row(row, paths, study)
    row["benchmark"] = "kinarow-v3"
    with pytest.raises(RowError, match=r"^the row's benchmark: no benchmark 'kinarow-v3'"):
        check_row(row, paths, study)
    row = _row(get_benchmark("kinarow-v1"))
    row["params_hash"] = "0" * 64
    with pytest.raises(RowError, match=r"^the study's params.yaml is not the one the row was made with"):
        check_row(row, paths, study)


@pytest.mark.slow  # a wheel of the project: about 20 s
def test_the_installed_package_ships_what_init_and_the_benchmarks_need(tmp_path: Path) -> None:
    """A wheel of the project holds the frozen benchmarks and init's templates as files, the pipeline and the
    notebook with the project's own contents (the links in ``pipelines/template`` followed)."""
    import zipfile

    listed = subprocess.run(["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=REPO, capture_output=True,
                            check=True).stdout.decode().split("\0")  # fmt: skip
    source = tmp_path / "source"
    for name in filter(None, listed):
        if (REPO / name).is_file() and not name.startswith(("tests/", "benchmarks/", "examples/")):
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, source / name, follow_symlinks=False)  # the links as links, as in a clone
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w",
               str(tmp_path / "wheel"), str(source)]  # fmt: skip
    built = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr
    assert (source / "pipelines/template/pipeline.yaml").is_symlink()
    (wheel,) = (tmp_path / "wheel").glob("*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert {f"pipelines/frozen/{name}.yaml" for name in FROZEN} <= names
        assert archive.read("pipelines/template/pipeline.yaml") == (REPO / "dvc.yaml").read_bytes()
        assert archive.read("pipelines/template/study.ipynb") == (REPO / "reports/study.ipynb").read_bytes()


@pytest.mark.parametrize("name", list(FROZEN))
def test_every_official_row_is_of_its_frozen_benchmark(name: str) -> None:
    """The committed rows: each names its benchmark and its hash, the command that made it, a commit, a CPU, the
    built-in learners, every target with each start's Elo zero-shot and adapted, and the hashes of its files."""
    row = official_row(name)
    assert row is not None, f"no official row of {name}"
    benchmark = get_benchmark(name)
    assert (row["format"], row["benchmark"], row["benchmark_hash"], row["params_hash"]) == (
        ROW_FORMAT,
        name,
        benchmark.hash,
        benchmark.hash,
    )
    assert row["code"]["commit"] and not row["code"]["modified"] and row["cpu"]
    assert (
        row["command"] == f"python -m pipelines init DIR --benchmark {name} && cd DIR && python -m pipelines "
        "study && python -m pipelines row"
    )
    targets = benchmark.params["adapt"]["targets"]
    assert list(row["targets"]) == targets and list(row["games"]) == targets
    largest = max(benchmark.params["adapt"]["budgets"])
    for numbers in row["targets"].values():
        assert {"joat-b0", f"joat-b{largest}", "multitask-b0", f"multitask-b{largest}"} <= set(numbers["elo"])
        assert f"joat-b{largest} - multitask-b{largest}" in numbers["differences"]
        assert "joat-b0 - scratch-b0" in numbers["differences"]
    assert all(len(digest) == 64 for digest in row["models"].values()) and row["models"]
    assert json.dumps(row)  # plain JSON
