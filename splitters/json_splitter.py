"""Splitting JSON objects into smaller objects that keep their nesting: RecursiveJsonSplitter.

The rule is LangChain's (``langchain_text_splitters.json``): walk the object's keys in
order; a key whose ``{key: value}`` serialises shorter than the room left in the current
chunk goes in whole, at its full path; otherwise, if the current chunk is already at least
``min_chunk_size`` long, a new chunk is started, and the value is walked the same way (a
leaf or empty object too long for any chunk goes in alone). Sizes are the lengths of
``json.dumps`` with its defaults.

LangChain serialises the growing chunk again for every key it considers, and every chunk
once more at the end. Here each value is serialised once: a chunk's length is a running
sum, runs of members that fit are found by bisection on prefix sums of their lengths, and
a chunk's JSON text is written as it grows (members only ever join the objects along the
current path, so the text is a stream with the open objects' braces still to close).
"""

from __future__ import annotations

import copy
import json
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate
from json.encoder import encode_basestring, encode_basestring_ascii
from operator import add
from typing import Any

from rag.documents import Document
from rag.errors import InvalidTypeError, ValidationError

__all__ = ["RecursiveJsonSplitter"]

Dumps = Callable[[Any], str]
Step = tuple[Any, str, int]  # a key, its JSON text, the length json.dumps gives that text

# json.dumps with its defaults (LangChain's sizes), and the same without ASCII escapes.
_ascii_dumps: Dumps = json.JSONEncoder().encode
_unicode_dumps: Dumps = json.JSONEncoder(ensure_ascii=False).encode
_member_text = "{}: {}".format


def _key_text(key: Any, dumps: Dumps) -> str:
    """How ``key`` is written as an object key by ``dumps`` (quoted; numbers etc. converted)."""
    if isinstance(key, str):
        return dumps(key)
    return dumps({key: 0})[1:-4]  # json's own conversion of 1, 1.5, True, None...


def _texts(
    data: dict[Any, Any], unicode: bool, limit: int, walking: set[int]
) -> tuple[list[str], list[str | None], list[int], list[int]]:
    """JSON texts of ``data``'s keys and values, and their lengths as json.dumps writes them.

    A value that is an object surely ``limit`` characters long or more is not written:
    it cannot fit in a chunk, so it will be walked member by member (its text is None, its
    length ``limit``). Objects in ``walking`` (being walked: a cycle) are written, for
    json's own error.
    """
    dumps = _unicode_dumps if unicode else _ascii_dumps
    encode_string = encode_basestring if unicode else encode_basestring_ascii
    try:
        key_texts = list(map(encode_string, data))
    except TypeError:  # a key that is not a str (json converts 1, 1.5, True, None)
        key_texts = [_key_text(key, dumps) for key in data]
    try:  # all strings (a list of sentences, say): no Python per value
        value_texts: list[str | None] = list(map(encode_string, data.values()))
    except TypeError:
        value_texts = [
            encode_string(value) if value.__class__ is str
            else None if isinstance(value, dict) and _surely_longer(value, limit)
            and id(value) not in walking
            else dumps(value)
            for value in data.values()
        ]
    lengths = _escaped_lengths if unicode else _lengths
    return key_texts, value_texts, lengths(key_texts), lengths(value_texts, limit)


def _surely_longer(value: dict[Any, Any], limit: int) -> bool:
    """Whether json.dumps(value) is at least ``limit`` long, told from a lower bound.

    Each member writes at least its key's characters and ``len`` of its value (a string's
    characters, an object's or list's member count) plus 6 (quotes, ": ", ", ").
    """
    if 6 * len(value) >= limit:
        return True
    try:
        keys = sum(map(len, value))
    except TypeError:  # keys that are not strings: counted as nothing
        keys = 0
    try:
        values = sum(map(len, value.values()))
    except TypeError:  # numbers, booleans, None: counted as nothing
        values = 0
    return keys + values + 6 * len(value) >= limit


def _lengths(texts: list[str | None], unknown: int = 0) -> list[int]:
    """Lengths of ``texts``, ``unknown`` for None."""
    if None in texts:
        return [unknown if text is None else len(text) for text in texts]
    return list(map(len, texts))  # type: ignore[arg-type]


def _escaped_lengths(texts: list[str | None], unknown: int = 0) -> list[int]:
    """Lengths of JSON ``texts`` written without ASCII escapes, once escaped (``unknown`` for None).

    Outside ASCII a JSON text has characters only inside strings, each written there as
    one ``\\uXXXX`` escape (6 characters) or, beyond the BMP, two (12); ASCII is written
    the same either way.
    """
    lengths = _lengths(texts, unknown)
    if None not in texts and all(map(str.isascii, texts)):  # type: ignore[arg-type]
        return lengths
    for index, text in enumerate(texts):
        if text is not None and not text.isascii():
            beyond_ascii = len(text) - len(text.encode("ascii", "ignore"))
            beyond_bmp = len(text.encode("utf-16-le", "surrogatepass")) // 2 - len(text)
            lengths[index] += 5 * beyond_ascii + 6 * beyond_bmp
    return lengths


class _Chunks:
    """The chunks made so far; the last one grows, its JSON length kept current.

    The last chunk's text is ``fragments`` followed by one ``}`` per open object; ``open``
    holds, from the root, ``[step, dict, has members]`` for each open object (the root's
    step is None). Members are only ever added to the objects along the current path.
    """

    __slots__ = ("dicts", "texts", "size", "fragments", "open")

    def __init__(self) -> None:
        self.dicts: list[dict[Any, Any]] = []
        self.texts: list[str] = []
        self.start_new()

    def start_new(self) -> None:
        if self.dicts:
            self.texts.append("".join(self.fragments) + "}" * len(self.open))
        root: dict[Any, Any] = {}
        self.dicts.append(root)
        self.size = 2  # "{}"
        self.fragments = ["{"]
        self.open: list[list[Any]] = [[None, root, False]]

    def finish(self) -> None:
        """Write the last chunk's text, or drop that chunk if it is empty (as LangChain)."""
        if self.open[0][2]:
            self.texts.append("".join(self.fragments) + "}" * len(self.open))
        else:
            self.dicts.pop()

    def at(self, path: list[Step]) -> list[Any]:
        """The open object at ``path`` in the last chunk (made, and counted, if missing)."""
        opened = self.open
        depth = 1
        while depth < len(opened) and depth <= len(path) and opened[depth][0] is path[depth - 1]:
            depth += 1
        if depth < len(opened):  # leaving objects the walk will not come back to
            self.fragments.append("}" * (len(opened) - depth))
            del opened[depth:]
        fragments = self.fragments
        for step in path[depth - 1 :]:
            parent = opened[-1]
            child: dict[Any, Any] = {}
            parent[1][step[0]] = child
            # '"key": {}' joins the object, after ", " unless it is its first member.
            fragments.append((", " if parent[2] else "") + step[1] + ": {")
            self.size += (2 if parent[2] else 0) + step[2] + 4
            parent[2] = True
            opened.append([step, child, False])
        return opened[-1]


class RecursiveJsonSplitter:
    """Split a JSON object (a ``dict``) into objects of at most about ``max_chunk_size`` characters.

    - ``max_chunk_size`` (characters of ``json.dumps`` output, default 2000): a member goes
      into the current chunk only if the chunk stays shorter than this;
    - ``min_chunk_size`` (characters, default ``max(max_chunk_size - 200, 50)``): a chunk
      is closed for a member that does not fit only once it is at least this long;
      otherwise the member's own members are tried in it.

    Every chunk is an object holding its members at their full paths from the root, so a
    chunk reads on its own. A value too long for any chunk that cannot be split (a long
    string; a list, unless ``convert_lists``) goes in whole: alone in a new chunk if the
    current one has reached ``min_chunk_size``. With ``convert_lists``, lists are first
    turned into objects keyed ``"0"``, ``"1"``... so they can be split too.

    Chunks (and their JSON texts) equal langchain-text-splitters 1.1.3's. Differences:
    ``max_chunk_size`` and ``min_chunk_size`` must be integers (>= 1 and >= 0), and
    ``create_documents`` refuses a ``metadatas`` list of another length than ``texts``
    (LangChain ignores extra entries and fails with IndexError on missing ones).

    >>> splitter = RecursiveJsonSplitter(max_chunk_size=40, min_chunk_size=20)
    >>> splitter.split_text({"a": {"x": "one", "y": "two"}, "b": "a somewhat longer text"})
    ['{"a": {"x": "one", "y": "two"}}', '{"b": "a somewhat longer text"}']
    """

    max_chunk_size: int = 2000
    min_chunk_size: int = 1800

    def __init__(self, max_chunk_size: int = 2000, min_chunk_size: int | None = None) -> None:
        _check_size("max_chunk_size", max_chunk_size, 1)
        if min_chunk_size is None:
            min_chunk_size = max(max_chunk_size - 200, 50)
        _check_size("min_chunk_size", min_chunk_size, 0)
        self.max_chunk_size = max_chunk_size
        self.min_chunk_size = min_chunk_size

    def split_json(self, json_data: dict[str, Any], convert_lists: bool = False) -> list[dict[str, Any]]:
        """The chunks of ``json_data`` as dicts (values shared with the input, not copied).

        ``None`` gives ``[]``; anything else but a dict (or, with ``convert_lists``, a list)
        raises TypeError, with LangChain's message.
        """
        return self._split(json_data, convert_lists, unicode=False).dicts

    def split_text(
        self, json_data: dict[str, Any], convert_lists: bool = False, ensure_ascii: bool = True
    ) -> list[str]:
        """The chunks of ``json_data`` as JSON texts (``json.dumps`` of each chunk).

        ``ensure_ascii`` (default True) escapes non-ASCII characters as ``json.dumps`` does;
        chunk sizes are measured with the escapes either way, as in LangChain.
        """
        return self._split(json_data, convert_lists, unicode=not ensure_ascii).texts

    def create_documents(
        self,
        texts: Sequence[dict[str, Any]],
        convert_lists: bool = False,
        ensure_ascii: bool = True,
        metadatas: Sequence[dict[Any, Any]] | None = None,
    ) -> list[Document]:
        """One Document per chunk of each JSON object, with a deep copy of its metadata."""
        if metadatas is None:
            metadatas = [{}] * len(texts)
        elif len(metadatas) != len(texts):
            raise ValidationError(
                f"metadatas has {len(metadatas)} entries but texts has {len(texts)}; "
                f"give one metadata dict per JSON object"
            )
        documents = []
        for json_data, metadata in zip(texts, metadatas):
            for chunk in self.split_text(json_data, convert_lists, ensure_ascii):
                documents.append(Document(page_content=chunk, metadata=copy.deepcopy(metadata)))
        return documents

    def _split(self, json_data: Any, convert_lists: bool, unicode: bool) -> _Chunks:
        is_list = isinstance(json_data, list)
        if convert_lists:
            json_data = _lists_to_dicts(json_data)
        if json_data is not None and not isinstance(json_data, dict):
            message = f"json_data must be a dict, got {type(json_data).__name__}."
            if is_list and not convert_lists:
                message += " Top-level lists can be split by passing convert_lists=True."
            raise InvalidTypeError(message)
        chunks = _Chunks()
        if json_data:
            self._walk(json_data, [], chunks, unicode, {id(json_data)})
        chunks.finish()
        return chunks

    def _walk(
        self, data: dict[Any, Any], path: list[Step], chunks: _Chunks, unicode: bool,
        walking: set[int],
    ) -> None:
        """Put the members of the non-empty object ``data`` (found at ``path``) into chunks.

        ``walking`` holds the ids of the objects being walked (``data`` and its parents).

        LangChain's test for a member, ``len(dumps({key: value})) < max_chunk_size -
        len(dumps(chunk))``, holds for a run of members exactly while the chunk's running
        length stays below ``max_chunk_size``, so a run is found by one bisection.
        """
        keys = list(data)
        values = list(data.values())
        limit = self.max_chunk_size
        key_texts, value_texts, key_lengths, value_lengths = _texts(data, unicode, limit, walking)
        # prefix[i]: the members before i, each '"key": value' (key + 2 + value) plus ", ".
        prefix = list(map(add, accumulate(map(add, key_lengths, value_lengths), initial=0),
                          range(0, 4 * len(keys) + 1, 4)))
        count = len(keys)
        index = 0
        top: list[Any] | None = None  # the open object at ``path``, while it is current
        while index < count:
            member = prefix[index + 1] - prefix[index] - 2  # '"key": value'
            if member + 2 < limit - chunks.size:
                if top is None:
                    top = chunks.at(path)
                # The first member fits (tested before its path was made); the next ones
                # while the chunk, with them, stays shorter than the limit. A member that
                # opens its object has no ", " before it.
                base = chunks.size if top[2] else chunks.size - 2
                first = index
                stop = bisect_left(prefix, limit - base + prefix[first], first + 2) - 1
                chunks.size = base + prefix[stop] - prefix[first]
                if stop == first + 1:
                    top[1][keys[first]] = values[first]
                    members = f"{key_texts[first]}: {value_texts[first]}"
                else:
                    top[1].update(zip(keys[first:stop], values[first:stop]))
                    members = ", ".join(map(_member_text, key_texts[first:stop], value_texts[first:stop]))
                chunks.fragments.append(", " + members if top[2] else members)
                top[2] = True
                index = stop
                continue
            if chunks.size >= self.min_chunk_size:
                chunks.start_new()
                top = None
            value = values[index]
            if isinstance(value, dict) and value:
                step = (keys[index], key_texts[index], key_lengths[index])
                walking.add(id(value))
                self._walk(value, [*path, step], chunks, unicode, walking)
                walking.discard(id(value))
                top = None  # the walk may have opened other objects or started chunks
            else:  # too long for any chunk: it goes in alone
                if top is None:
                    top = chunks.at(path)
                chunks.size += (2 if top[2] else 0) + member
                top[1][keys[index]] = value
                chunks.fragments.append(
                    (", " if top[2] else "") + _member_text(key_texts[index], value_texts[index])
                )
                top[2] = True
            index += 1


def _check_size(name: str, value: object, low: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{name} must be an int, got {type(value).__name__}: {value!r}")
    if value < low:
        raise ValidationError(f"{name} must be >= {low}, got {value}")


_INDEX_KEYS = [str(index) for index in range(256)]


def _index_keys(count: int) -> list[str]:
    """``["0", "1", ...]``: the keys a list of ``count`` items gets."""
    if count > len(_INDEX_KEYS):
        return [str(index) for index in range(count)]
    return _INDEX_KEYS[:count]


def _lists_to_dicts(data: Any) -> Any:
    """``data`` with every list (at any depth) turned into a dict keyed "0", "1"...

    Containers are copied (as LangChain's preprocessing copies them); leaves are shared.
    """
    if isinstance(data, dict):
        return {
            key: _lists_to_dicts(value) if isinstance(value, (dict, list)) else value
            for key, value in data.items()
        }
    if isinstance(data, list):
        items = [_lists_to_dicts(item) if isinstance(item, (dict, list)) else item for item in data]
        return dict(zip(_index_keys(len(items)), items))
    return data
