"""JsonOutputParser: a model's JSON answer as Python values, streamed as it grows.

>>> JsonOutputParser().invoke('```json\\n{"city": "Paris", "sights": ["Louvre"]}\\n```')
{'city': 'Paris', 'sights': ['Louvre']}
>>> list(JsonOutputParser().transform(iter(['{"city": "Pa', 'ris", "sights": ["Lou', 'vre"]}'])))
[{'city': 'Pa'}, {'city': 'Paris', 'sights': ['Lou']}, {'city': 'Paris', 'sights': ['Louvre']}]
>>> list(JsonOutputParser(diff=True).transform(iter(['{"city": "Pa', 'ris"}'])))
[[{'op': 'replace', 'path': '', 'value': {'city': 'Pa'}}], [{'op': 'replace', 'path': '/city', 'value': 'Paris'}]]
"""

from __future__ import annotations

import json
import re
from json import JSONDecodeError
from typing import Any, Callable, Optional

from rag.errors import OutputParserException
from rag.parsers.base import BaseCumulativeTransformOutputParser
from rag.json_patch import make_patch

__all__ = ["JsonOutputParser", "SimpleJsonOutputParser", "parse_partial_json", "parse_json_markdown"]

_FENCE = re.compile(r"```(json)?(.*)", re.DOTALL)
_STRIPPED = " \n\r\t`"
_ACTION_INPUT = re.compile(r'("action_input"\:\s*")(.*?)(")', re.DOTALL)

FORMAT_INSTRUCTIONS = (
    "Return only a JSON value that conforms to the JSON schema below: no other text, no "
    "Markdown code fences, no trailing commas or comments.\n\nHere is the output schema:\n```\n{schema}\n```"
)


def parse_partial_json(text: str, *, strict: bool = False) -> Any:
    """``text`` as JSON, closing what an incomplete document left open.

    An unterminated string is closed, then open arrays and objects, in order; if that
    still does not parse, characters are dropped from the end until it does (a key
    without its value yet disappears). Returns None for mismatched brackets; raises
    JSONDecodeError when nothing parses. Raw newlines inside strings are accepted
    (``strict=False``), as models write them. LangChain's function of the same name.
    """
    try:
        return json.loads(text, strict=strict)
    except JSONDecodeError:
        pass
    characters: list[str] = []
    closers: list[str] = []
    in_string = escaped = False
    for char in text:
        out = char
        if in_string:
            if char == '"' and not escaped:
                in_string = False
            elif char == "\n" and not escaped:
                out = "\\n"
            elif char == "\\":
                escaped = not escaped
            else:
                escaped = False
        elif char == '"':
            in_string, escaped = True, False
        elif char in "{[":
            closers.append("}" if char == "{" else "]")
        elif char in "}]":
            if not closers or closers[-1] != char:
                return None  # a bracket closes something never opened: not JSON
            closers.pop()
        characters.append(out)
    if in_string:
        if escaped:  # a dangling backslash would escape the closing quote
            characters.pop()
        characters.append('"')
    suffix = "".join(reversed(closers))
    while characters:
        try:
            return json.loads("".join(characters) + suffix, strict=strict)
        except JSONDecodeError:
            characters.pop()
    return json.loads(text, strict=strict)


def _escape_action_input(match: re.Match[str]) -> str:
    # Agents' "action_input" strings often hold raw newlines, tabs and quotes.
    value = match.group(2).replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    value = re.sub(r'(?<!\\)"', r"\"", value)
    return match.group(1) + value + match.group(3)


def _parse(text: str, parser: Callable[[str], Any]) -> Any:
    text = _ACTION_INPUT.sub(_escape_action_input, text.strip(_STRIPPED))
    return parser(text)


def parse_json_markdown(text: str, *, parser: Callable[[str], Any] = parse_partial_json) -> Any:
    """The JSON in ``text``, which may be wrapped in a Markdown code fence (```json)."""
    try:
        return _parse(text, parser)
    except JSONDecodeError:
        match = _FENCE.search(text)
        return _parse(text if match is None else match.group(2), parser)


class JsonOutputParser(BaseCumulativeTransformOutputParser[Any]):
    """A model's answer as JSON (a code fence around it is fine), with LangChain's behaviour.

    ``invoke`` returns the parsed value; like LangChain's it completes a truncated document
    rather than failing (see :func:`parse_partial_json`) and raises
    :class:`~rag.errors.OutputParserException` only for text that is not JSON at all.
    Streaming (``stream``, ``transform``, inside a chain) yields the whole value parsed so
    far each time it changes; ``diff=True`` yields instead the JSON Patch operations from
    the previous value (see :mod:`rag.json_patch`). ``pydantic_object``: a
    pydantic model class whose schema :meth:`get_format_instructions` shows (the output
    is not validated against it, as in LangChain).
    """

    def __init__(self, *, pydantic_object: Optional[type] = None, diff: bool = False) -> None:
        self.pydantic_object = pydantic_object
        self.diff = bool(diff)

    def parse(self, text: str) -> Any:
        text = text.strip()
        try:
            return parse_json_markdown(text)
        except JSONDecodeError as exc:
            raise OutputParserException(f"Invalid json output: {text}", llm_output=text) from exc

    def parse_partial(self, text: str) -> Any:
        try:
            return parse_json_markdown(text.strip())
        except JSONDecodeError:
            return None

    def _diff(self, previous: Any, current: Any) -> list[dict[str, Any]]:
        return make_patch(previous, current)

    def get_format_instructions(self) -> str:
        """What to tell the model about the output: the schema of ``pydantic_object``."""
        if self.pydantic_object is None:
            return "Return a JSON object."
        schema = dict(self.pydantic_object.model_json_schema())
        schema.pop("title", None)
        schema.pop("type", None)
        return FORMAT_INSTRUCTIONS.format(schema=json.dumps(schema, ensure_ascii=False))

    def __repr__(self) -> str:
        return f"JsonOutputParser(diff={self.diff})"


#: LangChain's older name.
SimpleJsonOutputParser = JsonOutputParser
