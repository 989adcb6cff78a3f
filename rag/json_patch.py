"""JSON Patch (RFC 6902) between two JSON values, as ``jsonpatch.make_patch`` writes it.

The one JSON-patch differ: what :class:`~rag.parsers.JsonOutputParser` streams with
``diff=True`` and what ``astream_log`` sends (:mod:`rag.runnables.log`). The operations are
those of the ``jsonpatch`` package LangChain uses, in its order, for the values a growing
JSON document produces: ``replace`` at ``""`` for the first value, ``add`` for new keys and
list items, ``replace`` for a changed scalar (a string that grew), ``remove`` for what went
away; nested dicts and lists are compared member by member, list items equal at either end
staying in place. Where a list changes in its middle, ``jsonpatch`` aligns the items by
content (difflib) and may emit ``move``; here they pair by position, with ``remove`` and
``add`` only. The operations can then differ; the document they build never does.

>>> make_patch({"a": "he"}, {"a": "hello", "b": [1]})
[{'op': 'add', 'path': '/b', 'value': [1]}, {'op': 'replace', 'path': '/a', 'value': 'hello'}]
"""

from __future__ import annotations

import json
from typing import Any, Optional

__all__ = ["make_patch"]


def make_patch(source: Any, target: Any, path: str = "") -> list[dict[str, Any]]:
    """The operations that turn ``source`` into ``target`` (both JSON values); ``path``
    (a JSON pointer, default the root) prefixes every operation's path."""
    operations: list[dict[str, Any]] = []
    _compare(operations, path, source, target)
    return _merge_remove_add(operations)


def _pointer(path: str, key: Any) -> str:
    # RFC 6901 escaping: "~" first, then "/".
    return f"{path}/{str(key).replace('~', '~0').replace('/', '~1')}"


def _compare(operations: list[dict[str, Any]], path: str, source: Any, target: Any) -> None:
    if isinstance(source, dict) and isinstance(target, dict):
        _compare_dicts(operations, path, source, target)
    elif isinstance(source, list) and isinstance(target, list):
        _compare_lists(operations, path, source, target)
    elif not _same(source, target):
        operations.append({"op": "replace", "path": path, "value": target})


def _same(source: Any, target: Any) -> bool:
    """JSON equality (1 and 1.0 differ, True and 1 too, as in jsonpatch); values that are
    not JSON (a message chunk in a run log) compare with ``==`` and their type."""
    try:
        return json.dumps(source) == json.dumps(target)
    except (TypeError, ValueError):
        return type(source) is type(target) and source == target


def _compare_dicts(operations: list[dict[str, Any]], path: str, source: dict, target: dict) -> None:
    for key in source:
        if key not in target:
            operations.append({"op": "remove", "path": _pointer(path, key)})
    for key, value in target.items():
        if key not in source:
            operations.append({"op": "add", "path": _pointer(path, key), "value": value})
    for key, value in source.items():
        if key in target:
            _compare(operations, _pointer(path, key), value, target[key])


def _keys(values: list) -> Optional[list[str]]:
    try:
        return [json.dumps(value, sort_keys=True) for value in values]
    except (TypeError, ValueError):  # not JSON: no alignment, pair by position
        return None


def _compare_lists(operations: list[dict[str, Any]], path: str, source: list, target: list) -> None:
    # Items equal in JSON at both ends are kept in place (as jsonpatch aligns them), so an
    # item inserted in front does not rewrite every item after it; the rest pairs by position.
    source_keys, target_keys = _keys(source), _keys(target)
    shorter = min(len(source), len(target))
    start = end = 0
    if source_keys is not None and target_keys is not None:
        while start < shorter and source_keys[start] == target_keys[start]:
            start += 1
        while end < shorter - start and source_keys[-1 - end] == target_keys[-1 - end]:
            end += 1
    source_end, target_end = len(source) - end, len(target) - end
    paired = min(source_end - start, target_end - start)
    for index in range(start, start + paired):
        old, new = source[index], target[index]
        if isinstance(old, dict) and isinstance(new, dict) or isinstance(old, list) and isinstance(new, list):
            _compare(operations, _pointer(path, index), old, new)
        elif not _same(old, new):
            operations.append({"op": "remove", "path": _pointer(path, index)})
            operations.append({"op": "add", "path": _pointer(path, index), "value": new})
    for _ in range(start + paired, source_end):  # each removal shifts the rest down
        operations.append({"op": "remove", "path": _pointer(path, start + paired)})
    for index in range(start + paired, target_end):
        operations.append({"op": "add", "path": _pointer(path, index), "value": target[index]})


def _merge_remove_add(operations: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A ``remove`` directly followed by an ``add`` at the same path is one ``replace``."""
    merged: list[dict[str, Any]] = []
    index = 0
    while index < len(operations):
        current = operations[index]
        following = operations[index + 1] if index + 1 < len(operations) else None
        if (following is not None and current["op"] == "remove" and following["op"] == "add"
                and current["path"] == following["path"]):
            merged.append({"op": "replace", "path": following["path"], "value": following["value"]})
            index += 2
            continue
        merged.append(current)
        index += 1
    return merged
