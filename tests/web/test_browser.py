"""A real headless Chromium plays whole games on the page of a real ``mmc serve`` process, by clicking squares.

Needs the system's ``chromium`` and ``chromedriver`` (Debian: ``apt-get install chromium chromium-driver``;
``.ci/run`` installs them) and the ``selenium`` package; skipped with a message when any is missing. Nothing is
downloaded: Selenium is given the driver's path.
"""

from __future__ import annotations

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

    Select(driver.find_element(By.ID, "variant")).select_by_value(variant)
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
        for cell in paths[move]:  # the clicks the game defines for the move
            driver.find_element(By.CSS_SELECTOR, f'#board [data-square="{cell}"]').click()
        if sum(path == paths[move] for path in paths.values()) > 1:  # a promotion: chosen by its text
            driver.find_element(By.CSS_SELECTOR, f'#choice-buttons button[data-move="{move}"]').click()
        _wait(driver, f"game.position.ply > {plies}")
    return str(driver.find_element(By.ID, "status").text)


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
    shaded = driver.execute_script(
        "return [...document.querySelectorAll('#board .shade')].filter(r => r.getAttribute('opacity') !== '0').length"
    )
    assert shaded > 0
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
