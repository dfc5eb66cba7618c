"""A real headless Chromium plays whole games on the page of a real ``mmc serve`` process, by clicking squares.

Needs the system's ``chromium`` and ``chromedriver`` (Debian: ``apt-get install chromium chromium-driver``;
``.ci/run`` installs them) and the ``selenium`` package; skipped with a message when any is missing. Nothing is
downloaded: Selenium is given the driver's path.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

SCREENSHOT_DIR = Path(os.environ.get("MMC_SCREENSHOT_DIR", "/tmp"))

pytestmark = pytest.mark.slow  # a real browser: 2-7 s a test, 4 s to start (make test runs them, make test-fast not)


def _browser() -> tuple[str, str] | None:
    chromium = next((shutil.which(n) for n in ("chromium", "chromium-browser") if shutil.which(n)), None)
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").exists() else None
    )
    return (chromium, driver) if chromium and driver else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[str]:
    """``mmc serve`` on a free 127.0.0.1 port over the test study; stopped by its pid at the end."""
    port = _free_port()
    command = [sys.executable, "-m", "mmc.cli", "serve", "--port", str(port), "--project", str(project)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=project)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/options", timeout=2) as response:
                    json.load(response)
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    output = process.stdout.read().decode() if process.stdout else ""
                    pytest.fail(f"mmc serve did not start: {output}")
                time.sleep(0.2)
        yield url
    finally:
        os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.kill(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    found = _browser()
    if found is None:
        pytest.skip(
            "no chromium/chromedriver installed (apt-get install chromium chromium-driver): browser test skipped"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed: browser test skipped")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = found[0]
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(executable_path=found[1]), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver, condition: str, timeout: float = 30) -> object:  # type: ignore[no-untyped-def]
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(lambda d: d.execute_script(f"return {condition}"))


def _play_by_clicks(driver, variant: str, opponent: str, seed: int) -> str:  # type: ignore[no-untyped-def]
    """Start a game on the page and click random legal moves until it ends; the status line at the end."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    if driver.execute_script(f"return options.variants.some((v) => v.name === '{variant}')"):
        Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
        driver.find_element(By.ID, "variant-id").clear()
    else:  # a generated id: typed, and looked up when the box loses focus
        typed = driver.find_element(By.ID, "variant-id")
        typed.clear()
        typed.send_keys(variant)
        driver.find_element(By.ID, "opponent").click()
        _wait(driver, f"typed !== null && typed.name === '{variant}'")
    box = driver.find_element(By.ID, "opponent")
    box.clear()
    box.send_keys(opponent)
    driver.find_element(By.ID, "start").click()
    _wait(driver, f"game !== null && game.variant === '{variant}' && game.moves.length === 0")
    rng = np.random.default_rng(seed)
    while not driver.execute_script("return game.position.over"):
        paths = driver.execute_script("return game.paths")
        plies = driver.execute_script("return game.position.ply")
        move = sorted(paths)[int(rng.integers(len(paths)))]
        for step in paths[move]:  # the clicks the game defines for the move: a cell, or any of its alternatives
            cell = step if isinstance(step, str) else step[int(rng.integers(len(step)))]
            driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{cell}"]').click()
        if sum(path == paths[move] for path in paths.values()) > 1:  # a promotion: chosen by its text
            driver.find_element(By.CSS_SELECTOR, f'#choice-buttons button[data-move="{move}"]').click()
        _wait(driver, f"game.position.ply > {plies}")
    return str(driver.find_element(By.ID, "status").text)


@pytest.mark.slow  # two whole games in the browser: 25-35 s
def test_play_two_whole_games_and_watch_a_record(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    status = _play_by_clicks(driver, "gardner", "random", seed=0)
    assert status.startswith("Game over: ") and "(" in status, status
    assert driver.find_element(By.ID, "message").get_attribute("hidden") is not None
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-gardner.png"))

    status = _play_by_clicks(driver, "los_alamos", "greedy", seed=1)
    assert status.startswith("Game over: ") and any(w in status for w in ("You won", "You lost", "Draw")), status
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .square")) == 36
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-los_alamos.png"))

    # Inspect: the model's value, prior and search beside the board, after each move with the toggle on.
    Select(driver.find_element(By.ID, "model")).select_by_value("starts/r0/joat.pt")
    driver.find_element(By.ID, "simulations").clear()
    driver.find_element(By.ID, "simulations").send_keys("8")
    driver.find_element(By.ID, "analysis").click()
    Select(driver.find_element(By.ID, "variant")).select_by_value("gardner")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game.opponent === 'net:starts/r0/joat.pt:sims=8' && game.position.ply === 0")
    _wait(driver, "document.querySelectorAll('#inspect-out tr').length > 1")
    text = driver.find_element(By.ID, "inspect-out").text
    assert "starts/r0/joat.pt: value " in text and "after 8 simulations" in text, text
    # The heat map: each cell shaded by its moves' prior mass, visits, or best searched Q, as "heat map" picks.
    opacities = (
        "return Object.fromEntries([...document.querySelectorAll('#board .square')]"
        ".map(s => [s.dataset.square, Number(s.querySelector('.shade').getAttribute('opacity'))]))"
    )
    analysis = driver.execute_script("return shaded")  # the analysis the heat map shows
    assert sum(analysis["visits"].values()) <= 8 and analysis["visits"].keys() == analysis["priors"].keys()
    for by in ("visits", "value", "prior"):
        Select(driver.find_element(By.ID, "shade-by")).select_by_value(by)
        heat: dict[str, float] = {}
        for move, cell in analysis["cells"].items():
            x = {"prior": analysis["priors"], "visits": analysis["visits"], "value": analysis["q"]}[by][move]
            if by != "value":
                heat[cell] = heat.get(cell, 0.0) + x
            elif analysis["visits"][move]:
                heat[cell] = max(heat.get(cell, -2.0), x)
        low, high = (min(heat.values()) if by == "value" else 0.0), max(heat.values())
        want = {c: 0.15 + 0.5 * ((x - low) / (high - low) if high > low else 1.0) for c, x in heat.items()}
        want = {c: o for c, o in want.items() if by == "value" or heat[c] > 0}
        seen = {c: o for c, o in driver.execute_script(opacities).items() if o > 0}
        assert seen.keys() == want.keys() and all(abs(seen[c] - want[c]) < 1e-6 for c in want), (by, seen, want)
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-inspect.png"))
    Select(driver.find_element(By.ID, "model")).select_by_value("")
    driver.find_element(By.ID, "analysis").click()

    # A bad FEN is a message on the page, not a broken page.
    driver.find_element(By.ID, "fen").send_keys("no such position")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "!document.getElementById('message').hidden")
    assert "FEN" in driver.find_element(By.ID, "message").text
    driver.find_element(By.ID, "fen").clear()

    # Watch: list the study's records, open one, step with the keys and the slider to its end.
    driver.find_element(By.ID, "tab-watch").click()
    _wait(driver, "document.querySelectorAll('#w-list tr').length === 3")
    driver.find_elements(By.CSS_SELECTOR, "#w-list tr")[0].click()
    _wait(driver, "record !== null")
    body = driver.find_element(By.TAG_NAME, "body")
    body.send_keys(Keys.ARROW_RIGHT)
    body.send_keys(Keys.ARROW_RIGHT)
    assert driver.find_element(By.ID, "w-ply").text.startswith("ply 2/")
    body.send_keys(Keys.END)
    status = driver.find_element(By.ID, "w-status").text
    assert "random vs greedy, gardner — " in status and "(" in status, status
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-watch.png"))


def test_a_shipped_baseline_is_the_default_opponent(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """Before any study: each variant's own baseline in the opponent box, one of its family's for a variant without
    one, a whole connect four game against it by clicks, and a typed spec kept across variants."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    box = driver.find_element(By.ID, "opponent")
    assert box.get_attribute("value") == "baseline:gardner-v1"  # the first variant of the list
    for variant, shown in [("connect4", "baseline:connect4-v1"), ("mallet", "baseline:gardner-v1"),
                           ("jump_6x6", "baseline:jump_6x6-v1")]:  # fmt: skip
        Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
        assert box.get_attribute("value") == shown, variant
    Select(driver.find_element(By.ID, "variant")).select_by_value("connect4")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game !== null && game.variant === 'connect4' && game.opponent === 'baseline:connect4-v1'")
    rng = np.random.default_rng(5)
    while not driver.execute_script("return game.position.over"):
        plies = driver.execute_script("return game.position.ply")
        paths = driver.execute_script("return game.paths")
        (step,) = paths[sorted(paths)[int(rng.integers(len(paths)))]]  # a column: any of its cells
        cell = step if isinstance(step, str) else step[int(rng.integers(len(step)))]
        driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{cell}"]').click()
        _wait(driver, f"game.position.ply > {plies}")
    assert driver.find_element(By.ID, "status").text.startswith("Game over: ")
    box.clear()
    box.send_keys("greedy")
    Select(driver.find_element(By.ID, "variant")).select_by_value("gardner")
    assert box.get_attribute("value") == "greedy"


def test_choose_a_promotion_by_its_text(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """Moves that share their cells (the four promotions of b4-b5) are offered as buttons after the clicks."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    driver.find_element(By.ID, "fen").send_keys("4k/1P3/5/5/K4 w - - 0 1")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game !== null && game.position.fen.startsWith('4k/1P3')")
    driver.find_element(By.CSS_SELECTOR, '#board [data-square="b4"]').click()
    assert driver.execute_script(
        "return document.querySelector('#board [data-square=\"b5\"]').classList.contains('target')"
    )
    driver.find_element(By.CSS_SELECTOR, '#board [data-square="b5"]').click()
    buttons = driver.find_elements(By.CSS_SELECTOR, "#choice-buttons button")
    assert sorted(b.get_attribute("data-move") for b in buttons) == ["b4b5b", "b4b5n", "b4b5q", "b4b5r"]
    driver.find_element(By.CSS_SELECTOR, '#choice-buttons button[data-move="b4b5n"]').click()
    _wait(driver, "game.moves.length >= 1")
    assert driver.execute_script("return game.moves[0]") == "b4b5n"
    assert driver.find_element(By.ID, "choice").get_attribute("hidden") is not None


def test_play_connect_four_by_clicks_anywhere_in_a_column(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """Gravity: a click on any cell of a column drops the stone to its lowest empty cell; the stones, the last stone
    and (after a line) the winning line are drawn."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    status = _play_by_clicks(driver, "connect4", "greedy", seed=2)
    assert status.startswith("Game over: ") and ("(line)" in status or "(full-board)" in status), status
    moves = driver.execute_script("return game.moves")
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .piece")) == len(moves)
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .mark-last .piece")) == 1
    if "(line)" in status:
        assert len(driver.find_elements(By.CSS_SELECTOR, "#board .mark-line .piece")) >= 4
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-connect4.png"))
    # the first click of a new game, on the top cell of column c, plays c1
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "variant")).select_by_value("connect4")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game !== null && game.moves.length === 0")
    driver.find_element(By.CSS_SELECTOR, '#board [data-square="c6"]').click()
    _wait(driver, "game.moves.length >= 1")
    assert driver.execute_script("return game.moves[0]") == "c1"


def test_play_a_generated_variant_typed_by_its_id(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """A generated id is not in the list: typed into the page, a malformed one is refused in one line, a good one
    names its board and the family's sides, and its game is played by clicks to the end."""
    from selenium.webdriver.common.by import By

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    typed = driver.find_element(By.ID, "variant-id")
    assert "mnk_WxH_kK" in typed.get_attribute("title")
    typed.send_keys("mnk_8x8_k9")
    driver.find_element(By.ID, "opponent").click()
    _wait(driver, "!document.getElementById('message').hidden")
    assert "k=9" in driver.find_element(By.ID, "message").text
    status = _play_by_clicks(driver, "grav_5x4_k3", "greedy", seed=4)
    assert status.startswith("Game over: ") and ("(line)" in status or "(full-board)" in status), status
    assert driver.execute_script("return game.variant") == "grav_5x4_k3"
    sides = [o.text for o in driver.find_elements(By.CSS_SELECTOR, "#color option")]
    assert sides == ["black", "white"]
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board [data-square]")) == 20  # 5 files x 4 ranks


@pytest.fixture
def bonus_server(project: Path) -> Iterator[str]:
    """The app in this process (uvicorn in a thread) with the test game Bonus registered, its click paths changed
    so that they exercise every kind of click: ``b1``'s path extends ``a1``'s (a hop chain's "end here"), ``c2``
    has none (a pass, a button), every other cell is one click."""
    import dataclasses
    import threading

    uvicorn = pytest.importorskip("uvicorn")
    from mmc.games import register_game, unregister_game
    from mmc.web.app import create_app
    from tests.games.bonus import GAME, cell_name

    paths = {"a1": ("a1",), "b1": ("a1", "b1"), "c2": ()}
    game = dataclasses.replace(GAME, move_cells=lambda state, move: paths.get(cell_name(move), (cell_name(move),)))
    register_game(game)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(create_app(project), host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    try:
        thread.start()
        deadline = time.monotonic() + 30
        while not server.started:
            assert time.monotonic() < deadline, "the app did not start"
            time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        if thread.is_alive():
            thread.join(10)
        unregister_game(game.name)


def test_play_a_bonus_game_by_clicks(bonus_server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """Another game family on the same page: its variants under its own heading, its players' names, one-click
    moves, a path that is the start of a longer one ("end here" or a second click), a pass button, and a player
    that moves twice in a row."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(bonus_server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    assert driver.execute_script("return document.querySelector('option[value=\"bonus_2x3\"]').parentNode.tagName") == (
        "OPTGROUP"
    )
    Select(driver.find_element(By.ID, "variant")).select_by_value("bonus_2x3")
    assert [o.text for o in Select(driver.find_element(By.ID, "color")).options] == ["black", "white"]
    box = driver.find_element(By.ID, "opponent")
    box.clear()
    box.send_keys("greedy")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game !== null && game.variant === 'bonus_2x3' && game.moves.length === 0")
    assert driver.find_element(By.ID, "status").text == "Your move (black)"
    assert driver.find_element(By.CSS_SELECTOR, '#pass-buttons button[data-move="c2"]').text == "c2"

    def click(cell: str) -> None:
        driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{cell}"]').click()

    click("a1")  # a complete path that b1's extends: nothing is played yet
    assert driver.execute_script("return clicks") == ["a1"] and driver.execute_script("return game.moves.length") == 0
    assert driver.find_element(By.CSS_SELECTOR, "#choice-buttons button[data-end]").is_displayed()
    click("a1")  # a second click on the last cell ends the move there
    _wait(driver, "game.moves.length > 0")
    assert driver.execute_script("return game.moves[0]") == "a1"
    if driver.execute_script("return game.paths['b1'] !== undefined"):
        click("a1")
        click("b1")  # the longer path, played by its last click
        _wait(driver, "game.moves.includes('b1')")
    plies = driver.execute_script("return game.position.ply")
    while not driver.execute_script("return game.position.over"):
        paths = driver.execute_script("return game.paths")
        move = sorted(paths)[0]
        if move == "c2":
            driver.find_element(By.CSS_SELECTOR, '#pass-buttons button[data-move="c2"]').click()
        elif move == "a1":
            click("a1")
            driver.find_element(By.CSS_SELECTOR, "#choice-buttons button[data-end]").click()
        else:
            for cell in paths[move]:
                click(cell)
        _wait(driver, f"game.position.ply > {plies}")
        plies = driver.execute_script("return game.position.ply")
    status = driver.find_element(By.ID, "status").text
    assert status.startswith("Game over: ") and "(full-board)" in status, status
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .piece")) == 6
    # Black's second stone touched its first (b1 or a2 next to a1): black moved twice in a row.
    listed = driver.execute_script("return [...document.querySelectorAll('#moves span.ply')].map(s => s.textContent)")
    assert listed == driver.execute_script("return game.moves")
    movers = _movers("bonus_2x3", listed)
    assert movers[:4] == [1, -1, 1, 1]
    # a player's moves in a row are one numbered turn of the list: black's two stones share one line
    turns = driver.execute_script("return [...document.querySelectorAll('#moves li')].map(li => li.textContent)")
    expected: list[list[str]] = []
    for i, move in enumerate(listed):
        if i and movers[i] == movers[i - 1]:
            expected[-1].append(move)
        else:
            expected.append([move])
    assert turns == [f"{i + 1}. {' '.join(turn)}" for i, turn in enumerate(expected)] and len(expected[2]) >= 2
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-bonus.png"))


def _movers(variant: str, moves: list[str]) -> list[int]:
    """The player (+1, -1) who played each of ``moves``, read from the turn of every position."""
    from mmc.games import apply_move, get_game, initial_state

    game, state, movers = get_game(variant), initial_state(variant), []
    for text in moves:
        movers.append(int(state.turn))
        state = apply_move(state, game.parse_move(text))
    return movers


def test_play_a_jump_game_by_clicks(server: str, browser) -> None:  # type: ignore[no-untyped-def]
    """The jump game against greedy: a step is the piece then its square; a hop the piece then the landing, after
    which the page keeps the chain's piece selected, so the next hop is one click on its landing and the end a
    second click on the chain's cell (or the "end here" button); the status line keeps the score."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    driver = browser
    driver.get(server)
    _wait(driver, "document.querySelectorAll('#variant option').length > 0")
    Select(driver.find_element(By.ID, "variant")).select_by_value("jump_6x6")
    box = driver.find_element(By.ID, "opponent")
    box.clear()
    box.send_keys("greedy")
    driver.find_element(By.ID, "start").click()
    _wait(driver, "game !== null && game.variant === 'jump_6x6' && game.moves.length === 0")
    assert "score: black 0 of 6 home" in driver.find_element(By.ID, "status").text
    assert len(driver.find_elements(By.CSS_SELECTOR, "#board .mark-target-first")) == 12

    def click(cell: str) -> None:
        driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{cell}"]').click()

    rng = np.random.default_rng(0)
    ends = {"click": 0, "button": 0}
    while not driver.execute_script("return game.position.over"):
        paths = driver.execute_script("return game.paths")
        played = driver.execute_script("return game.moves.length")
        hops = [m for m, p in paths.items() if len(p) == 2 and _distance(*p) == 2]
        end = next((m for m in paths if m.startswith("end@")), None)
        if end is not None:  # during a chain: its cell is selected already
            assert driver.execute_script("return clicks") == [end[4:]]
            assert "chain under way" in driver.find_element(By.ID, "status").text
            if hops and rng.random() < 0.7:
                click(paths[hops[0]][1])
            elif ends["button"] <= ends["click"]:
                driver.find_element(By.CSS_SELECTOR, "#choice-buttons button[data-end]").click()
                ends["button"] += 1
            else:
                click(end[4:])
                ends["click"] += 1
        elif "pass" in paths:
            driver.find_element(By.CSS_SELECTOR, '#pass-buttons button[data-move="pass"]').click()
        else:
            move = hops[0] if hops else sorted(paths)[int(rng.integers(len(paths)))]
            for cell in paths[move]:
                click(cell)
        _wait(driver, f"game.moves.length > {played}")
    status = driver.find_element(By.ID, "status").text
    assert status.startswith("Game over: ") and "score: black" in status, status
    # a chain (a hop, the next, its end) is one numbered turn of the move list, each hop in it clickable
    moves, movers = driver.execute_script("return [game.moves, game.movers]")
    turns = driver.execute_script("return [...document.querySelectorAll('#moves li')].map(li => li.textContent)")
    assert len(turns) == 1 + sum(a != b for a, b in itertools.pairwise(movers))  # the page seeds each game afresh:
    assert sum(len(t.split(". ", 1)[1].split()) for t in turns) == len(moves)  # a game may have no chain at all
    driver.save_screenshot(str(SCREENSHOT_DIR / "mmc-serve-jump.png"))


def _distance(a: str, b: str) -> int:
    """Squares between two cells (``b1``) along a rank, a file or a diagonal."""
    return max(abs(ord(a[0]) - ord(b[0])), abs(int(a[1:]) - int(b[1:])))
