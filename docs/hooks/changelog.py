"""MkDocs hook: the site's changelog page is the repository's CHANGELOG.md, read at build
time (one file to edit, never two copies to keep in step)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

CHANGELOG = Path(__file__).resolve().parents[2] / "CHANGELOG.md"


def on_files(files: Any, config: Any, **_: Any) -> Any:
    """Add ``changelog.md`` to the site, its content CHANGELOG.md's."""
    from mkdocs.structure.files import File

    files.append(File.generated(config, "changelog.md", content=CHANGELOG.read_text(encoding="utf-8")))
    return files
