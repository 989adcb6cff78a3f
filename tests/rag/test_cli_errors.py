"""How `rag` reports an error: a user's error in one line, a bug as an internal error."""

from __future__ import annotations

import pytest

from rag.cli import app
from rag.errors import IndexNotFoundError, ValidationError


@pytest.fixture
def failing_info(monkeypatch):
    """`rag info` made to raise the exception given; process defaults left alone."""
    monkeypatch.setattr(app, "apply_process_defaults", lambda: None)

    def install(exc: BaseException) -> None:
        def run(args):
            raise exc

        monkeypatch.setitem(app._COMMANDS, "info", run)

    return install


def test_a_rag_error_is_a_one_line_user_error(failing_info, capsys):
    failing_info(ValidationError("k must be >= 1, got 0"))
    assert app.main(["info"]) == 1
    assert capsys.readouterr().err == "rag: error: k must be >= 1, got 0\n"


def test_a_rag_error_that_is_a_key_error_shows_its_message_without_quotes(failing_info, capsys):
    failing_info(IndexNotFoundError("no index at /x; create one with: rag index SOURCE --index /x"))
    assert app.main(["info"]) == 1
    assert capsys.readouterr().err == "rag: error: no index at /x; create one with: rag index SOURCE --index /x\n"


def test_an_os_error_is_a_one_line_user_error(failing_info, capsys):
    failing_info(PermissionError(13, "Permission denied", "/ix/config.json"))
    assert app.main(["info"]) == 1
    assert capsys.readouterr().err == "rag: error: [Errno 13] Permission denied: '/ix/config.json'\n"


def test_a_bugs_value_error_is_an_internal_error_with_the_verbose_hint(failing_info, capsys):
    failing_info(ValueError("could not broadcast shapes"))
    assert app.main(["info"]) == 1
    assert capsys.readouterr().err == (
        "rag: internal error: ValueError: could not broadcast shapes (run with --verbose for the traceback)\n"
    )


def test_a_bugs_key_error_is_an_internal_error_too(failing_info, capsys):
    failing_info(KeyError("chunk_size"))
    assert app.main(["info"]) == 1
    assert capsys.readouterr().err.startswith("rag: internal error: KeyError: 'chunk_size' (run with --verbose")


def test_verbose_prints_an_internal_errors_traceback_instead_of_the_hint(failing_info, capsys):
    failing_info(TypeError("unsupported operand"))
    assert app.main(["--verbose", "info"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and err.endswith("rag: internal error: TypeError: unsupported operand\n")
