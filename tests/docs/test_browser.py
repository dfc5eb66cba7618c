"""The built site in the real browser (the system's chromium), served on 127.0.0.1 as a user would serve it: the
home page, a rules page and the API reference each render with the navigation and the search, the search finds a
variant, and nothing is loaded from outside the machine."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.web.test_browser import _wait
from tests.web.test_browser import browser as browser

pytestmark = pytest.mark.slow

PAGES = ["index.html", "rules/index.html", "reference/api/games.html"]


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("page", PAGES)
def test_a_page_renders_with_its_navigation_and_search_offline(served: str, browser, page: str) -> None:  # type: ignore[no-untyped-def]
    browser.get(f"{served}/{page}")
    _wait(browser, "document.readyState === 'complete'")
    assert browser.execute_script("return document.querySelectorAll('nav.md-nav--primary a.md-nav__link').length") > 20
    assert browser.execute_script("return document.querySelector('article.md-content__inner h1') !== null")
    # the search: its box, then its index loaded by the search worker, then results for a variant's name
    browser.execute_script("document.querySelector('label.md-search__icon, label[for=__search]').click()")
    box = browser.execute_script("return document.querySelector('input.md-search__input')")
    box.send_keys("gardner")
    _wait(browser, "document.querySelectorAll('.md-search-result__item').length > 0", timeout=30)
    loaded = browser.execute_script(
        "return performance.getEntriesByType('resource').map((e) => e.name).concat([location.href])"
    )
    outside = [url for url in loaded if not url.startswith(served) and not url.startswith(("data:", "blob:"))]
    assert not outside, outside
