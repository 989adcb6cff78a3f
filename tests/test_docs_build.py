"""The documentation site builds with ``mkdocs build --strict``: no broken link, no API
reference to a missing name, the CLI reference generated from the parser; and a page that
breaks one of these fails the build naming the page and the line."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from doc_blocks import ROOT

pytest.importorskip("mkdocs", reason="the docs extra (in the test extra) installs MkDocs")
MKDOCS = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
QUIET = {"NO_MKDOCS_2_WARNING": "1"}


def _build(config: Path, site: Path) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([*MKDOCS, "--config-file", str(config), "--site-dir", str(site)], cwd=config.parent,
                          capture_output=True, text=True, timeout=300, env={**os.environ, **QUIET})


def test_the_site_builds_strictly_with_the_cli_reference_generated_from_the_parser(tmp_path):
    result = _build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert result.returncode == 0, result.stdout + result.stderr
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    from rag.cli import build_parser

    for option in ("--chunk-size", "--crawl", "--api-key-file", "--save-run", "--session", "--slower-than", "--otlp"):
        assert option in cli
    assert "cli-reference" not in cli  # the marker was replaced
    assert len(build_parser()._subparsers._group_actions[0].choices) == cli.count("<h2 id=\"rag-")


def _mini_site(tmp_path: Path, page: str) -> Path:
    docs = tmp_path / "docs"
    (docs / "hooks").mkdir(parents=True)
    for hook in ("checks.py",):
        shutil.copy(ROOT / "docs" / "hooks" / hook, docs / "hooks" / hook)
    (docs / "index.md").write_text(page, encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text("site_name: t\nstrict: true\nexclude_docs: |\n  hooks/\nhooks:\n  - docs/hooks/checks.py\n",
                      encoding="utf-8")
    return config


def test_a_broken_link_fails_the_build_with_the_page_and_line(tmp_path):
    config = _mini_site(tmp_path, "# Home\n\nSee [the guide](how-to/missing.md).\n")
    result = _build(config, tmp_path / "site")
    assert result.returncode != 0
    assert "index.md:3: the link 'how-to/missing.md' leads to no page" in result.stdout + result.stderr


def test_a_reference_to_a_name_that_does_not_exist_fails_the_build_with_the_page_and_line(tmp_path):
    config = _mini_site(tmp_path, "# API\n\n::: rag.index.NoSuchThing\n")
    result = _build(config, tmp_path / "site")
    assert result.returncode != 0
    assert "index.md:3: '::: rag.index.NoSuchThing' names nothing importable" in result.stdout + result.stderr


def test_every_public_package_has_an_api_reference_page():
    from test_public_api import PACKAGES

    pages = {path.stem for path in (ROOT / "docs" / "reference" / "api").glob("*.md")}
    assert [name for name in PACKAGES if name not in pages] == []
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert [name for name in pages - {"index"} if f"reference/api/{name}.md" not in config] == []


def test_the_benchmark_plots_are_the_plot_scripts_output_from_the_data_file(tmp_path):
    import re
    import runpy

    plots = runpy.run_path(str(ROOT / "benchmarks" / "plots.py"))
    data = plots["load"]()
    plots["draw"](data, tmp_path)
    texts = re.compile(r"<text[^>]*>([^<]*)</text>")
    for name in ("speed.svg", "quality.svg"):
        committed = texts.findall((ROOT / "docs" / "benchmarks" / "img" / name).read_text(encoding="utf-8"))
        assert committed == texts.findall((tmp_path / name).read_text(encoding="utf-8")), \
            f"docs/benchmarks/img/{name} is stale: run python benchmarks/plots.py"
    labels = " ".join(texts.findall((ROOT / "docs" / "benchmarks" / "img" / "speed.svg").read_text(encoding="utf-8")))
    assert all(f"{row['ratio']:g}x" in labels for row in data["speed"])
