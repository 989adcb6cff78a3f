"""The package's public surface and the optional pdf extra."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import loaders
from rag.errors import MissingDependencyError

EXPECTED = [
    "BaseLoader",
    "TextLoader",
    "BSHTMLLoader",
    "ReadableHTMLLoader",
    "CSVLoader",
    "JSONLoader",
    "MarkdownLoader",
    "DirectoryLoader",
    "PyPDFLoader",
    "WebBaseLoader",
    "RecursiveUrlLoader",
    "SitemapLoader",
]


def test_all_lists_exactly_the_public_loaders() -> None:
    assert sorted(loaders.__all__) == sorted(EXPECTED)


def test_every_name_in_all_is_importable_from_the_package() -> None:
    for name in loaders.__all__:
        assert getattr(loaders, name).__name__ == name


def test_every_public_loader_has_a_docstring_with_an_example() -> None:
    for name in loaders.__all__:
        assert ">>>" in (getattr(loaders, name).__doc__ or ""), name


def _run_python(code: str) -> str:
    """Run ``code`` in a fresh interpreter that finds this checkout's packages."""
    root = str(Path(loaders.__file__).resolve().parent.parent)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return result.stdout.strip()


def test_loaders_never_import_splitters_or_stores() -> None:
    output = _run_python(
        "import sys, loaders; "
        "print([m for m in sys.modules if m.split('.')[0] in ('splitters', 'stores')])"
    )
    assert output == "[]"


def test_pdf_loader_is_importable_without_pypdf() -> None:
    output = _run_python(
        "import sys; sys.modules['pypdf'] = None; "
        "from loaders import PyPDFLoader; print(PyPDFLoader.__name__)"
    )
    assert output == "PyPDFLoader"


def test_pdf_loader_without_pypdf_raises_the_install_command(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # makes "import pypdf" fail
    with pytest.raises(MissingDependencyError) as caught:
        loaders.PyPDFLoader(str(tmp_path / "paper.pdf"))
    assert 'pip install "ragpath[pdf]"' in str(caught.value)
    assert isinstance(caught.value, ImportError)
