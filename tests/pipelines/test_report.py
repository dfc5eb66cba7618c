"""The study report renders from small input files into offline HTML; bad inputs fail before the kernel starts."""

from __future__ import annotations

import csv
import html as htmllib
import json
import re
from pathlib import Path

import numpy as np
import pytest

from mmc.evaluation.analysis import UNINFORMATIVE_NOTE, VERDICT_COLOURS, game_diagram
from mmc.games import get_game
from mmc.games.chess import initial_state
from mmc.games.chess.render import render
from mmc.meta import study_tasks
from mmc.play import (
    GameRecord,
    GreedyPlayer,
    MatchResult,
    RandomPlayer,
    play_match,
    read_records,
    replay,
    write_records,
)
from pipelines.paths import Paths
from pipelines.report import (
    COMPARISON_COLUMNS,
    CURVE_COLUMNS,
    EVALUATION_COLUMNS,
    INPUTS,
    LOSS_COLUMNS,
    MISTAKE_COLUMNS,
    RATING_COLUMNS,
    ReportInputError,
    check_inputs,
    external_resources,
    render_report,
)
from pipelines.study import report_failure

NOTEBOOK = Path(__file__).resolve().parents[2] / "reports" / "study.ipynb"
PARENT_RUN = "0f3a9c1d2e4b5a6978c8d7e6f5a4b3c2"
CHILD_RUN = "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"
# (game, start, budget, player 2) -> wins, draws, losses
EVALUATION = {
    (game, start, budget, opponent): (wins + budget // 10, 2, 8 - wins - budget // 10)
    for game, offset in (("gardner", 0), ("rifle", 1))
    for start, wins in (("joat", 4 + offset), ("scratch", 1 + offset))
    for budget in (0, 20)
    for opponent in ("greedy", "unadapted")
}


def _write_csv(path: Path, header: list[str], rows: list[list[object]]) -> Path:
    with path.open("w", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def _score(wins: int, draws: int, losses: int) -> tuple[int, float, float, float]:
    """An evaluation row's games, score and Wilson interval (``pipelines.records.MatchSummary``'s)."""
    result = MatchResult(wins, draws, losses, [])
    return (result.games, round(result.score, 6), *(round(x, 6) for x in result.wilson_interval()))


FAMILIES = {
    # family: (two targets, the second held out of meta-training; a training variant; the sample game's variant)
    "chess": (("gardner", "rifle"), "mallet", "gardner"),
    "gomoku": (("gomoku_6x6", "connect4"), "tictactoe", "connect4"),
    "jump": (("jump_6x6", "jump"), "jump_diagonal", "jump"),
}
"""The report's inputs per game family: every family's boards and variant names go through every cell."""


def _sample_games(variant: str) -> list[GameRecord]:
    """Two real games of ``variant``, greedy against random; in the jump family the first is one whose board changes
    height from one position to the next (the rendering the report once failed on)."""
    game = get_game(variant)
    for seed in range(20):
        match = play_match(GreedyPlayer(), RandomPlayer(), variant, 2, np.random.default_rng(seed), max_plies=60)
        heights = {len(game.render(state).splitlines()) for state in replay(match.records[0])}
        if game.name != "jump" or len(heights) > 1:
            return match.records
    raise AssertionError(f"no game of {variant} with boards of different heights in 20 seeds")


def make_inputs(folder: Path, family: str = "chess") -> dict[str, Path]:
    """A complete set of report inputs in ``folder``: a few rows each and two real games of the family's sample
    variant (gardner for chess)."""
    (first, second), trained, sample = FAMILIES[family]
    folder.mkdir(parents=True, exist_ok=True)
    params = folder / "params.yaml"
    params.write_text(
        f"seed: 7\nmeta:\n  train_variants: [{first}, {trained}]\n  epsilon: 0.5\nadapt:\n  budgets: [0, 20]\n"
        "expert:\n  search: {solver: true}\n  train: {value_discount: 0.97}\n"
    )
    runs_of = [("joat", "meta_train", "pooled"), ("joat", "inner", first), ("joat", "inner", trained),
               ("multitask", "multitask", "pooled"), (f"expert-{first}", "expert", first)]  # fmt: skip
    losses = _write_csv(
        folder / "losses.csv",
        ["series", "replicate", "stage", "variant", "generation", "policy", "value", "total"],
        [[series, r, stage, variant, g, 2.0 - g / 4 - k / 10 - r / 20, 0.9 - g / 10, 2.9 - g / 3 - k / 10]
         for r in (0, 1) for k, (series, stage, variant) in enumerate(runs_of) for g in range(3)],
    )  # fmt: skip
    evaluation = _write_csv(
        folder / "evaluation.csv",
        ["game", "start", "budget", "replicate", "player 1", "player 2", "wins", "draws", "losses", "games", "score",
         "ci_low", "ci_high"],
        [[{"gardner": first, "rifle": second}[game], start, budget, 0, f"{start}@{budget}", opponent, *counts,
          *_score(*counts)] for (game, start, budget, opponent), counts in EVALUATION.items()],
    )  # fmt: skip
    records = (
        play_match(GreedyPlayer(), RandomPlayer(), "gardner", 2, np.random.default_rng(3)).records
        if family == "chess"
        else _sample_games(sample)
    )
    games = write_records(records, folder / "games.pgn")
    runs = folder / "runs.json"
    spent = [
        {"stage": stage, "part": part, "wall_seconds": wall, "cpu_seconds": wall * 1.5}
        for stage, parts in (("meta_train@0", {"start": 0.5, "self-play": 40.0, "training": 12.0, "bookkeeping": 3.0}),
                             ("evaluate@gardner", {"evaluation games vs greedy": 30.0, "rating fits": 4.0}))
        for part, wall in parts.items()
    ]  # fmt: skip
    runs.write_text(json.dumps({"parent": PARENT_RUN, "children": {"meta_train/pooled": CHILD_RUN}, "time": spent}))
    ratings = _write_csv(
        folder / "ratings.csv",
        ["game", "player", "kind", "start", "budget", "replicate", "elo", "low", "high", "games"],
        [[game, f"{start}-b{budget}-r0", "model", start, budget, 0, elo + budget, elo - 80, elo + budget + 80, 16]
         for game in (first, second) for start, elo in (("joat", 40), ("scratch", -250)) for budget in (0, 20)]
        + [[game, anchor, "anchor", "", -1, -1, elo, elo - half, elo + half, 40]
           for game in (first, second) for anchor, elo, half in (("random", -400, 60), ("greedy", 0, 0))],
    )  # fmt: skip
    curves = _write_csv(
        folder / "curves.csv",
        ["game", "start", "budget", "elo", "low", "high", "replicates", "spread"],
        [[game, start, budget, elo + budget, elo - 80, elo + budget + 80, 1, 0]
         for game in (first, second) for start, elo in (("joat", 40), ("scratch", -250)) for budget in (0, 20)],
    )  # fmt: skip
    comparisons = _write_csv(
        folder / "comparisons.csv",
        ["game", "budget", "a", "b", "difference", "low", "high", "verdict", "detectable", "replicates", "spread",
         "learned", "improvement", "iqm", "holds"],
        # JOAT - scratch is better in both targets; in the second, leaving out a replicate would not say so: fragile
        [[game, 20, "joat-b20", "scratch-b20", 290, 180, 400, "better", 110, 1, 0, "joat +300 > 90", 1.0, "",
          game == first] for game in (first, second)]
        + [[game, 20, f"{s}-b20", f"{s}-b0", 20, -90, 130, "no detectable difference", 110, 1, 0, learned, 0.5, "",
            True] for game in (first, second) for s, learned in (("joat", "joat +300 > 90"), ("scratch", ""))]
        + [[game, 20, "joat-b20", "multitask-b20", 150, 60, 240, "uninformative", 90, 1, 0,
            "joat +300 > 90; multitask +10 <= 85", 1.0, "", False] for game in (first, second)],
    )  # fmt: skip
    # mistake rates in the first target only (the second has no suite), one model erring illegally
    mistakes = _write_csv(
        folder / "mistakes.csv",
        ["game", "suite", "player", "start", "budget", "replicate", "positions", "mistakes", "rate", "low", "high",
         "critical_positions", "critical_mistakes", "critical_rate", "critical_low", "critical_high", "illegal",
         "elo"],
        [[first, "test-suite", f"{start}-b{budget}-r0", start, budget, 0, 200, n, n / 200, n / 200 - 0.04,
          n / 200 + 0.04, 150, n, n / 150, n / 150 - 0.05, n / 150 + 0.05, int(start == "scratch"), elo + budget]
         for start, elo, n in (("joat", 40, 20), ("scratch", -250, 60)) for budget in (0, 20)],
    )  # fmt: skip
    mistake_comparisons = _write_csv(
        folder / "mistake_comparisons.csv",
        ["game", "budget", "a", "b", "difference", "low", "high", "verdict", "detectable", "replicates", "spread",
         "learned", "improvement", "iqm", "holds"],
        [[first, 20, "joat-b20", "scratch-b20", 20.0, 14.5, 25.5, "better", 5.5, 1, 0, "joat +20.0 > 5.5", 1.0, "",
          False]],
    )  # fmt: skip
    official = folder / "official.json"
    row = {"code": {"commit": "0123456789abcdef"}, "cpu": "Test CPU", "command": "python -m pipelines row",
           "learners": ["joat"], "targets": {first: {"elo": {"joat-b0": {"elo": 35.0, "low": -40.0, "high": 110.0}},
                                                      "differences": {}}}}  # fmt: skip
    official.write_text(json.dumps({"benchmark": "chess-v1", "how": "equal", "row": row}))
    return {"params_path": params, "losses_path": losses, "evaluation_path": evaluation, "games_path": games,
            "runs_path": runs, "ratings_path": ratings, "curves_path": curves,
            "comparisons_path": comparisons, "mistakes_path": mistakes,
            "mistake_comparisons_path": mistake_comparisons, "official_path": official}  # fmt: skip


def test_report_renders_every_section_into_offline_html(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path / "inputs")
    out = render_report(NOTEBOOK, tmp_path / "report" / "study.html", inputs, timeout=300)
    first, second = FAMILIES["chess"][0]

    assert out == (tmp_path / "report" / "study.html").resolve() and out.is_file()
    assert sorted(p.name for p in out.parent.iterdir()) == ["study.html"]  # no executed notebook left behind
    html = out.read_text(encoding="utf-8")
    # the benchmark's official row beside the study's Elo
    assert "This study has the definition of <strong>chess-v1</strong>" in html and "Test CPU" in html
    assert "<td>+35 (-40 to +110)</td>" in html and "<td>+40 (-40 to +120)</td>" in html
    # the Elo curves and the ladder, two loss figures, the heatmap, the score curves
    figures = re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', html)
    assert len(figures) == 7 and figures[0].startswith("Elo versus adaptation budget") and "Elo axis" in figures[1]
    # where the time went: a bar per stage, and the parts summed, largest first
    assert figures[-1] == "Wall seconds of each stage, stacked by what they went to"
    assert "2 stages, 1.5 min of wall time and 2.2 CPU-minutes in all:" in html
    assert html.index("Where the time went") < html.index("<th>self-play</th>") < html.index("<th>evaluation games vs")
    # the answer first: generated findings from the comparisons, before any figure; the W/D/L table last
    findings = html.index("Findings")
    assert findings < html.index("<img alt=") < html.index("Wins, draws and losses")
    assert "JOAT against scratch: better by +290 Elo (95% +180 to +400, P(improvement) 1.00)" in html
    assert "joat: no detectable difference (+20 Elo, 95% -90 to +130)" in html and "against joat" not in html
    # the answer at a glance opens the findings: the verdict table, a headline per comparison, the resolution
    table = html.index('class="verdict-table"')
    assert findings < table < html.index("JOAT - scratch: after adaptation") < html.index("Per target")
    assert html.index("Per target") < html.index("JOAT against scratch: better by")
    better = (rf'background: {VERDICT_COLOURS["better"]}" title="better">▲ \+290<br/?><span[^>]*>\+180 to \+400'
              r"<br/?>P\(a&gt;b\) 1.00</span>")  # fmt: skip
    assert len(re.findall(better, html)) == 1  # JOAT - scratch in the first target; fragile in the second
    assert len(re.findall(r'title="better \(fragile\)">▲ \+290 <b>fragile</b>', html)) == 1
    assert (f"JOAT - scratch: after adaptation (20 games), better in 1 of 2 targets ({first}) by 290 Elo and better "
            f"(fragile) in 1 of 2 targets ({second}) by 290 Elo.") in html  # fmt: skip
    assert "A verdict is fragile where a rerun would repeat it with probability below 0.8" in html
    # the mistake rates beside the Elo, in the first target only, and the comparison on them beside its Elo verdict
    mistakes = html.index("Mistakes on solver-labelled positions")
    assert html.index("The ladder") < mistakes < html.index("Training losses per generation")
    assert "suite <code>test-suite</code>, 200 positions, 150 of them critical" in html
    assert html.count('class="dataframe mistake-table"') == 1
    assert "<td>0.100 (0.060–0.140)</td>" in html and "Illegal moves (counted as mistakes): scratch-b20-r0 1" in html
    assert ("joat-b20 - scratch-b20: mistakes better by +20.0 points (95% +14.5 to +25.5); Elo: better by +290 Elo"
            in html)  # fmt: skip
    assert "better by +290 Elo (95% +180 to +400, P(improvement) 1.00, fragile: a rerun or the replicates less" in html
    assert "uninformative (+150 Elo" in html and "uninformative (fragile)" not in html  # uninformative wins
    assert "JOAT adapted - unadapted: after adaptation (20 games), no detectable difference in both targets." in html
    assert "is 110 Elo after 20 games of adaptation (the median over 8 comparisons; 90 to 110)" in html
    assert "It rests on one training replicate per model" in html and "<details>" in html
    assert external_resources(html) == []
    assert not re.search(r"<(script|link)\b[^>]*(src|href)=\"https?://", html)
    assert "import pandas" not in html and "params_path" not in html  # code and parameter cells are hidden
    assert 'data-mime-type="application/vnd.jupyter.stderr"' not in html and "Warning" not in html  # none shown
    for (game, start, budget, opponent), (wins, draws, losses) in EVALUATION.items():
        row = rf"<td>{game}</td>\s*<td>0</td>\s*<td>{start}@{budget}</td>\s*<td>{opponent}</td>\s*"
        assert re.search(row + rf"<td>{wins}</td>\s*<td>{draws}</td>\s*<td>{losses}</td>", html), (game, start)
    game = re.search(r"<pre[^>]*>(start .*?)</pre>", html, re.DOTALL)  # the sample game, boards side by side
    assert game is not None and "♔" in game.group(1) and "⊙" in game.group(1)
    rows = game.group(1).splitlines()
    for rank, line in enumerate(render(initial_state("gardner")).splitlines(), start=1):
        assert rows[rank].startswith(line + "   ")  # the start position heads the first row of boards
    assert PARENT_RUN in html and CHILD_RUN in html
    assert "train_variants" in html  # the parameters
    recipe = "own recipe (<code>search.solver</code> true and <code>train.value_discount</code> 0.97)"
    assert f"The experts trained with their {recipe} over the self-play and training settings" in html


@pytest.mark.parametrize("family", [f for f in FAMILIES if f != "chess"])
def test_the_report_renders_every_cell_for_every_family(family: str, tmp_path: Path) -> None:
    """The whole notebook on another family's variants and games: its question in the family's words, every figure,
    the verdicts, and the sample game with every board of the game drawn whole (in the jump family, boards of two
    heights)."""
    inputs = make_inputs(tmp_path / "inputs", family)
    if family == "gomoku":  # meta-training variants drawn from a distribution: the report names the draw
        params = inputs["params_path"]
        distribution = '{variants: ["mnk_{4..5}x{4..5}_k3", tictactoe], draw: 3}'
        params.write_text(params.read_text().replace("[gomoku_6x6, tictactoe]", distribution))
    out = render_report(NOTEBOOK, tmp_path / "report" / "study.html", inputs, timeout=300)
    html = out.read_text(encoding="utf-8")
    (_, second), _, sample = FAMILIES[family]
    assert f"adapt to a new {family} variant within one iteration" in html
    if family == "gomoku":
        drawn = ", ".join(study_tasks({"variants": ["mnk_{4..5}x{4..5}_k3", "tictactoe"], "draw": 3}, 7)[:2])
        assert f"on {drawn} and " in html
        assert "(3 variants drawn at random from mnk_{4..5}x{4..5}_k3, tictactoe)" in html
    assert len(re.findall(r'<img alt="([^"]+)" src="data:image/png;base64,', html)) == 7
    assert "JOAT against scratch: better by +290 Elo (95% +180 to +400, P(improvement) 1.00)" in html
    assert f"<strong>{second}</strong> (held out of meta-training)" in html and "<details>" in html
    # a comparison whose starts did not both learn: in the table, the headline and the per-target lines alike
    assert "JOAT - multitask: after adaptation (20 games), uninformative in both targets." in html
    assert 'title="uninformative">? +150' in html and UNINFORMATIVE_NOTE in html
    assert (
        "against multitask: uninformative (+150 Elo, 95% +60 to +240; over scratch at budget 0: joat +300 &gt; " in html
    )
    assert 'data-mime-type="application/vnd.jupyter.stderr"' not in html and external_resources(html) == []
    record = read_records(inputs["games_path"])[0]
    shown = re.search(r"<pre[^>]*>(start .*?)</pre>", html, re.DOTALL)
    assert shown is not None and f"<strong>{sample}</strong>: greedy" in html
    diagram = htmllib.unescape(shown.group(1))
    assert diagram.rstrip() == game_diagram(record).rstrip()
    for state in replay(record):
        for line in get_game(sample).render(state).splitlines():
            assert line.rstrip() in diagram


def test_external_resources_finds_what_a_page_would_fetch() -> None:
    page = ('<script src="https://cdn.example/require.js"></script><link rel="stylesheet" href="//cdn.example/a.css">'
            '<a href="https://example.org">a link</a><img src="data:image/png;base64,AAAA"><style>@import url('
            '"http://fonts.example/f.css");</style>')  # fmt: skip
    assert external_resources(page) == [
        "https://cdn.example/require.js",
        "//cdn.example/a.css",
        "http://fonts.example/f.css",
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("params_path", None, "no such file"),
        ("params_path", "seed: [0\n", "not YAML"),
        ("losses_path", "series,stage,variant,generation,policy,value\njoat,inner,gardner,0,1,1\n", "'total'"),
        (
            "losses_path",
            "series,replicate,stage,variant,generation,policy,value,total\nj,0,inner,g,x,1,1,2\n",
            "generation",
        ),
        (
            "evaluation_path",
            "game,start,budget,replicate,player 1,player 2,wins,draws,losses,games,score,ci_low,ci_high\n"
            "g,j,0,0,j,r,0,0,0,0,0,0,1\n",
            "one game",
        ),
        (
            "evaluation_path",
            "game,start,budget,replicate,player 1,player 2,wins,draws,losses,games,score,ci_low,ci_high\n"
            "g,j,0,0,j,r,-1,2,0,1,0.5,0,1\n",
            "'wins'",
        ),
        ("curves_path", "game,start,budget,elo,low,high,replicates,spread\ng,j,0,x,1,2,2,3\n", "'elo'"),
        ("games_path", "", "no game"),
        ("games_path", '[Variant "gardner"]\n\nb2b3 1-0\n', "missing tag"),
        ("mistakes_path", "game,suite,player\n", "'start'"),
        ("mistake_comparisons_path", "game,budget,a,b\n", "'difference'"),
        ("runs_path", '{"children": {}}', "parent"),
        ("runs_path", "not json", "not JSON"),
    ],
)
def test_a_bad_input_fails_before_execution_naming_the_file(
    tmp_path: Path, name: str, content: str | None, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    inputs = make_inputs(tmp_path)
    bad = tmp_path / f"bad-{Path(inputs[name]).name}"
    if content is not None:
        bad.write_text(content)
    inputs[name] = bad

    def no_execution(*args: object, **kwargs: object) -> None:
        raise AssertionError("the notebook was executed")

    monkeypatch.setattr("pipelines.report._execute", no_execution)
    with pytest.raises(ReportInputError, match=re.escape(name)) as error:
        render_report(NOTEBOOK, tmp_path / "out" / "study.html", inputs)
    assert str(bad) in str(error.value) and message in str(error.value)
    assert not (tmp_path / "out").exists()


def test_the_parameters_are_exactly_the_inputs(tmp_path: Path) -> None:
    inputs = make_inputs(tmp_path)
    assert set(check_inputs(inputs)) == set(INPUTS)
    with pytest.raises(ReportInputError, match="missing \\['runs_path'\\], unknown \\['run_path'\\]"):
        check_inputs({**{k: v for k, v in inputs.items() if k != "runs_path"}, "run_path": inputs["runs_path"]})


def test_the_report_checks_the_columns_the_stages_write() -> None:
    """The checked columns are the row classes' (``pipelines.records``), and the study's tables keep their headers."""
    assert ",".join(EVALUATION_COLUMNS) == (
        "game,start,budget,replicate,player 1,player 2,wins,draws,losses,games,score,ci_low,ci_high"
    )
    assert ",".join(RATING_COLUMNS) == "game,player,kind,start,budget,replicate,elo,low,high,games"
    assert ",".join(COMPARISON_COLUMNS) == (
        "game,budget,a,b,difference,low,high,verdict,detectable,replicates,spread,learned,improvement,iqm,holds"
    )
    assert ",".join(CURVE_COLUMNS) == "game,start,budget,elo,low,high,replicates,spread"
    assert ",".join(LOSS_COLUMNS) == "series,replicate,stage,variant,generation,policy,value,total"
    assert ",".join(MISTAKE_COLUMNS) == (
        "game,suite,player,start,budget,replicate,positions,mistakes,rate,low,high,critical_positions,"
        "critical_mistakes,critical_rate,critical_low,critical_high,illegal,elo"
    )


def test_the_driver_says_in_one_line_that_the_report_alone_failed(tmp_path: Path) -> None:
    """``make study`` prints the report stage's error (``data/report.failed``, written by the stage) in one line."""
    (tmp_path / ".dvc").mkdir()
    paths = Paths(tmp_path)
    assert report_failure(paths) == ""
    paths.report_failure.parent.mkdir(parents=True)
    paths.report_failure.write_text(
        "reports/study.ipynb failed in cell 13: IndexError: list index out of range\n(kept)\n"
    )
    said = report_failure(paths)
    assert "\n" not in said and said.startswith("the report failed, nothing before it: reports/study.ipynb failed in")
    assert "cell 13: IndexError: list index out of range (kept)." in said and "`dvc metrics show`" in said
