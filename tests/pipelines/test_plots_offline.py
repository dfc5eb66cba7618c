"""`dvc plots show` writes a page that needs no network: the project's HTML template inlines Vega.

The template (``reports/dvc_plots_template.html``) is named by ``plots.html_template`` in ``.dvc/config`` and
generated from the files vendored in ``reports/vendor/`` (see the README there).
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
from pathlib import Path
from types import ModuleType

from configobj import ConfigObj
from dvc_render import VegaRenderer

from pipelines.report import external_resources

from .conftest import REPO, tool_env

VENDOR = REPO / "reports" / "vendor"
# What a page could fetch: a src/href attribute anywhere, a CSS @import or url(), pointing to another host.
_FETCHED = re.compile(
    r"""(?:\b(?:src|href)\s*=\s*|@import\s+(?:url\(\s*)?|\burl\(\s*)["']?((?:https?:)?//[^"'\s)>]+)""",
    re.IGNORECASE,
)


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_dvc_plots_template", VENDOR / "make_dvc_plots_template.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _project(root: Path) -> Path:
    """A git + DVC repository at ``root`` wired as a clone of this project is: ``.dvc/config``'s plots section
    and the template at the same relative path; one directory plot of two CSV files, declared as the project's
    ``dvc.yaml`` declares its curves."""
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["dvc", "init", "-q"], cwd=root, check=True, env=tool_env())
    plots = ConfigObj(str(REPO / ".dvc" / "config"))["plots"]
    config = ConfigObj(str(root / ".dvc" / "config"))
    config["plots"] = dict(plots)
    config.write()
    template = (REPO / ".dvc" / plots["html_template"]).resolve()
    copy = root / template.relative_to(REPO)
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_bytes(template.read_bytes())
    (root / "plots" / "losses").mkdir(parents=True)
    for variant, policy in (("gardner", 1.8125), ("rifle", 2.4375)):
        rows = [f"{generation},{policy + generation},0.{generation + 5}" for generation in range(3)]
        (root / "plots" / "losses" / f"{variant}.csv").write_text("generation,policy,value\n" + "\n".join(rows) + "\n")
    (root / "dvc.yaml").write_text(
        "plots:\n  - plots/losses:\n      title: Offline loss curve\n      x: generation\n      y: [policy, value]\n"
    )
    return root


def test_dvc_plots_show_writes_a_page_that_fetches_nothing(tmp_path: Path) -> None:
    root = _project(tmp_path / "project")

    shown = subprocess.run(
        ["dvc", "plots", "show"], cwd=root, env=tool_env(), capture_output=True, text=True, check=False
    )

    assert shown.returncode == 0, shown.stderr
    html = (root / "dvc_plots" / "index.html").read_text(encoding="utf-8")
    assert _FETCHED.findall(html) == [] and external_resources(html) == []
    assert "cdn.jsdelivr.net" not in html and "<script src" not in html
    generator = _generator()
    for _name, _version, file in generator.LIBRARIES:
        assert generator.library_code(VENDOR / file) in html
    assert 'vegaEmbed("#plots_losses_gardner_csv"' in html.replace("'", '"')
    assert 'vegaEmbed("#plots_losses_rifle_csv"' in html.replace("'", '"')
    assert "Offline loss curve" in html and "1.8125" in html and "2.4375" in html


def test_template_is_generated_from_the_vendored_files() -> None:
    generator = _generator()
    assert generator.TEMPLATE.read_text(encoding="utf-8") == generator.render_template()
    for _name, _version, file in generator.LIBRARIES:
        assert "Redistribution and use" in (VENDOR / file).with_name("LICENSE").read_text()


def test_vendored_versions_are_the_ones_dvc_render_loads() -> None:
    loaded = dict(re.findall(r"cdn\.jsdelivr\.net/npm/([a-z-]+)@([0-9.]+)", VegaRenderer.SCRIPTS))
    vendored = {name: version for name, version, _file in _generator().LIBRARIES}
    assert vendored == loaded
    for name, version, file in _generator().LIBRARIES:  # each bundle spells its version as a string literal
        assert f'"{version}"' in (VENDOR / file).read_text(encoding="utf-8"), name
