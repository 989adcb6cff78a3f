"""The API reference of ``rag.index`` shows every public method of ``Index``, those it
inherits (from :mod:`rag.index.changing`) included: mkdocstrings renders an inherited
member only when the page names it in ``inherited_members``."""

import re
from pathlib import Path

from rag.index import Index

PAGE = Path(__file__).resolve().parents[2] / "docs" / "reference" / "api" / "rag.index.md"


def _inherited_public_names() -> set[str]:
    return {name for base in Index.__mro__[1:] if base is not object for name in vars(base) if not name.startswith("_")}


def test_the_rag_index_api_page_names_every_public_method_index_inherits():
    listed = re.search(r"inherited_members: \[([^\]]*)\]", PAGE.read_text(encoding="utf-8"))
    assert listed is not None, f"{PAGE} sets no inherited_members list"
    named = {name.strip() for name in listed.group(1).split(",") if name.strip()}
    assert named == _inherited_public_names()


def test_index_inherits_the_methods_that_change_it():
    # Guards the test above from passing on an empty set.
    assert {"update", "configure", "dry_run", "refresh", "save_local"} <= _inherited_public_names()
