"""A ``glob`` chooses what an update reads; it does not, by itself, delete what it leaves out.

An update deletes the sources a root holds that it did not see this time (files gone from
the folder). With a ``glob``, a file can go unseen while still on disk: the glob simply
does not match it (``rag index docs/ --glob '**/*.md'`` on an index built from HTML). Taking
that as a deletion emptied indexes without a word, so:

- an update with a ``glob`` that would delete files still present under a folder root,
  because the glob does not match them, is refused before anything is read, naming how
  many and ``prune`` (``--prune``) as the way to delete them on purpose;
- ``exclude`` patterns and ``.ragignore`` rules are explicit: files they leave out are
  deleted as before, and so are files gone from the disk.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

from rag.errors import ValidationError
from rag.index.sources import Root, folder_selection

if TYPE_CHECKING:
    from rag.index.state import SourceRecord

__all__ = ["deselected_by_glob", "check_glob_keeps_files"]


def deselected_by_glob(root: Root, record: Mapping[str, SourceRecord], glob: str, excludes: Sequence[str],
                       index_folder: Optional[Path]) -> list[str]:
    """The sources ``root`` (a folder) holds in ``record`` whose files still exist but
    that ``glob`` does not select (neither selected nor left out by a rule)."""
    held = [source for source, row in record.items() if row.root == root.key]
    if not held:
        return []
    selection = folder_selection(root, glob, excludes, index_folder)
    seen = {str(path.resolve()) for path in selection.files}
    ruled_out = {str(Path(path).resolve()) for path, _reason in selection.skipped}
    return sorted(source for source in held
                  if source not in seen and source not in ruled_out and Path(source).is_file())


def check_glob_keeps_files(roots: Sequence[Root], record: Mapping[str, SourceRecord], glob: Optional[str],
                           excludes: Sequence[str], index_folder: Optional[Path], prune: bool) -> None:
    """Refuse an update whose ``glob`` would delete files still on disk (see the module
    docstring), unless ``prune``. Raises ValidationError naming the count and the fix."""
    if glob is None or prune:
        return
    for root in roots:
        if root.kind != "folder":
            continue
        kept = deselected_by_glob(root, record, glob, excludes, index_folder)
        if kept:
            example = Path(kept[0]).name
            raise ValidationError(
                f"--glob {glob!r} does not match {len(kept)} file(s) the index holds under {root.key} (such as "
                f"{example}), which are still there: this update would delete them from the index. Add --prune "
                f"(prune=True) to delete them, or use the glob they were indexed with; nothing was changed")
