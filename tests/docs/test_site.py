"""The documentation site: it builds with every link and reference resolved, its pages keep their limits, a newcomer
finds each common task within two clicks of the home page, and the code cites the project's own rule pages."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from .conftest import DOCS, REPO

pytestmark = __import__("pytest").mark.slow  # builds the site (about 20 s on 2 cores)

GENERATED = "<!-- generate: "
TASKS = {  # what a newcomer comes for -> the page that answers it (issue 63's list)
    "run the default study": "getting-started.md",
    "change a param": "guides/change-params.md",
    "read a variant's rules": "rules/index.md",
    "compare two runs": "guides/compare-runs.md",
    "add a game": "guides/add-a-game.md",
    "rate an agent": "guides/rate-your-agent.md",
    "use the environment": "guides/environments.md",
    "run on Dask": "guides/dask.md",
    "read today's results": "results/index.md",
    "play against a trained opponent": "guides/baselines.md",
}


def _links(page: Path) -> set[str]:
    """The pages ``page`` links to, as paths under docs/."""
    found = set()
    for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", page.read_text()):
        found.add((page.parent / target).resolve().relative_to(DOCS.resolve()).as_posix())
    return found


def test_the_site_builds_strictly_and_every_page_is_in_it(site: Path) -> None:
    pages = sorted(p.relative_to(DOCS).with_suffix(".html").as_posix() for p in DOCS.rglob("*.md"))
    missing = [page for page in pages if not (site / page).is_file()]
    assert not missing
    assert (site / "search" / "search_index.json").is_file()
    api = (site / "reference" / "api" / "games.html").read_text()
    assert "mmc.games.get_game" in api and "register_game" in api  # the API reference is filled from docstrings


def test_no_page_loads_anything_from_outside_the_machine(site: Path) -> None:
    """No stylesheet, script, font or image from another host: the site works offline."""
    outside = re.compile(r"""<(?:script|link|img|iframe)\b[^>]*\b(?:src|href)=["'](?:https?:)?//""", re.IGNORECASE)
    offenders = [p.relative_to(site).as_posix() for p in site.rglob("*.html") if outside.search(p.read_text())]
    assert not offenders
    for css in site.rglob("*.css"):
        assert not re.search(r"@import\s+url\((?:https?:)?//|fonts\.googleapis", css.read_text()), css


def test_hand_written_pages_are_short_and_the_readme_at_most_200_lines() -> None:
    long = {}
    for page in DOCS.rglob("*.md"):
        text = page.read_text()
        if GENERATED not in text and len(text.splitlines()) > 400:
            long[page.relative_to(DOCS).as_posix()] = len(text.splitlines())
    assert not long
    assert len((REPO / "README.md").read_text().splitlines()) <= 200


def _nav_pages(items: list[object]) -> set[str]:
    pages: set[str] = set()
    for item in items:
        value = next(iter(item.values())) if isinstance(item, dict) else item
        pages |= _nav_pages(value) if isinstance(value, list) else {str(value)}
    return pages


def test_every_common_task_is_one_click_from_the_home_page_and_every_page_in_the_nav() -> None:
    """The home page links each task's page (its table "Where to go"); and every page is in the navigation, which
    the theme shows beside every page, so no page is more than two clicks from home."""
    config = (REPO / "mkdocs.yml").read_text()
    nav = _nav_pages(yaml.safe_load("nav:" + config.split("\nnav:", 1)[1])["nav"])
    home = _links(DOCS / "index.md")
    for task, page in TASKS.items():
        assert page in home, f"{task}: the home page does not link {page}"
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert pages == nav, (sorted(pages - nav), sorted(nav - pages))


def test_the_code_cites_the_projects_own_rule_pages() -> None:
    """No file cites the rule books outside the repository (the shared folder's spec); the rule pages cited exist."""
    outside = "/".join(("shared", "spec"))
    places = ["mmc", "pipelines", "tests", "docs", "benchmarks", "examples", "studies", "README.md", "BENCHMARKS.md"]
    found = subprocess.run(["grep", "-rnI", "--exclude-dir=__pycache__", outside, *places], cwd=REPO,
                           capture_output=True, text=True)  # fmt: skip
    assert not found.stdout
    cited = set(re.findall(r"docs/rules/([a-z0-9-]+\.md)", found.stdout + _all_code_text()))
    assert cited and all((DOCS / "rules" / page).is_file() for page in cited)


def _all_code_text() -> str:
    return "\n".join(p.read_text() for folder in ("mmc", "tests") for p in (REPO / folder).rglob("*.py"))


def test_the_layout_page_names_every_module() -> None:
    """Every module and package of mmc/ and pipelines/ is on "Where things live", by its path or its folder's."""
    text = (DOCS / "reference" / "layout.md").read_text()
    named = set(re.findall(r"`((?:mmc|pipelines)/[\w/.]*)`", text))
    missing = []
    for root in ("mmc", "pipelines"):
        for module in (REPO / root).rglob("*.py"):
            path = module.relative_to(REPO).as_posix()
            parts = module.relative_to(REPO).parts
            folders = {"/".join(parts[:i]) + "/" for i in range(2, len(parts))}
            if path not in named and not (folders & named) and "/template/" not in path:
                missing.append(path)
    assert not missing
    stale = [p for p in named if not (REPO / p).exists()]
    assert not stale
