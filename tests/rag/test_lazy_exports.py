"""rag._lazy.lazy_exports: a package's names import on first use (PEP 562), once."""

import importlib
import subprocess
import sys
import textwrap

import pytest

from rag._lazy import lazy_exports


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package ``lazypkg`` whose ``Heavy`` lives in ``lazypkg.heavy`` (which counts its
    imports) and whose ``spare`` submodule is listed as one."""
    root = tmp_path / "lazypkg"
    root.mkdir()
    (root / "__init__.py").write_text(textwrap.dedent("""
        from rag._lazy import lazy_exports
        IMPORTS = []
        __getattr__, __dir__ = lazy_exports(__name__, {"lazypkg.heavy": ["Heavy", "helper"]},
                                            submodules=["spare"])
    """))
    (root / "heavy.py").write_text("import lazypkg\nlazypkg.IMPORTS.append('heavy')\nclass Heavy: pass\n"
                                   "def helper(): return 42\n")
    (root / "spare.py").write_text("VALUE = 'spare'\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield importlib.import_module("lazypkg")
    for name in [n for n in sys.modules if n == "lazypkg" or n.startswith("lazypkg.")]:
        del sys.modules[name]


def test_a_name_is_imported_on_first_access_and_kept(package):
    assert "lazypkg.heavy" not in sys.modules
    assert package.Heavy.__module__ == "lazypkg.heavy"
    assert package.helper() == 42
    assert vars(package)["Heavy"] is package.Heavy  # kept: later reads skip __getattr__
    assert package.IMPORTS == ["heavy"]


def test_a_listed_submodule_is_imported_on_attribute_access(package):
    assert "lazypkg.spare" not in sys.modules
    assert package.spare.VALUE == "spare"


def test_an_unknown_name_is_an_attribute_error_naming_the_package(package):
    with pytest.raises(AttributeError, match="module 'lazypkg' has no attribute 'Missing'"):
        package.Missing
    assert not hasattr(package, "heavy")  # modules of names are not attributes themselves


def test_dir_lists_names_not_yet_imported(package):
    assert {"Heavy", "helper", "spare", "IMPORTS"} <= set(dir(package))


def test_the_toolkit_packages_import_without_their_lazy_modules():
    code = ("import sys, rag.index, rag.embeddings, rag.evaluation, rag.bm25, rag.serve; "
            "print(sorted(m for m in ('rag.index.answer', 'rag.embeddings.openai', 'rag.evaluation.systems', "
            "'rag.bm25.retriever', 'rag.serve.remote', 'httpx') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
