"""The typed seams (issue 33): mypy, with the settings in pyproject.toml ``[tool.mypy]``,
reports no error in ``rag/index``, ``rag/cli`` and ``rag/serve``, so a reader and a type
checker can follow a call from the command line or the server through the index to the
store, the embeddings and the chat model."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKED = ("rag/index", "rag/cli", "rag/serve")


def test_mypy_reports_no_error_in_the_index_the_command_line_and_the_server():
    # The cache (.mypy_cache, see pyproject.toml) makes a second run take seconds.
    result = subprocess.run([sys.executable, "-m", "mypy", *CHECKED], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    report = f"python -m mypy {' '.join(CHECKED)} (exit status {result.returncode}):\n{result.stdout}{result.stderr}"
    assert result.returncode == 0, report
    # And it did check them: a configuration that skipped the packages would also say "no issues".
    checked = re.search(r"no issues found in (\d+) source files", result.stdout)
    assert checked is not None and int(checked.group(1)) >= 30, report
