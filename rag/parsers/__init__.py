"""Output parsers: turn a model's message (or text) into the value a chain returns.

>>> from rag.messages import AIMessage, AIMessageChunk
>>> StrOutputParser().invoke(AIMessage("Paris."))
'Paris.'
>>> list(StrOutputParser().transform(iter([AIMessageChunk("Pa"), AIMessageChunk("ris")])))
['Pa', 'ris']
>>> JsonOutputParser().invoke(AIMessage('{"answer": 42}'))
{'answer': 42}
>>> CommaSeparatedListOutputParser().invoke("a, b")
['a', 'b']
"""

from rag.errors import OutputParserException
from rag.parsers.base import (
    BaseCumulativeTransformOutputParser,
    BaseOutputParser,
    BaseTransformOutputParser,
    StrOutputParser,
)
from rag.parsers.json_output import JsonOutputParser, SimpleJsonOutputParser, parse_json_markdown, parse_partial_json
from rag.parsers.list_output import CommaSeparatedListOutputParser, ListOutputParser

__all__ = [
    "BaseOutputParser",
    "BaseTransformOutputParser",
    "BaseCumulativeTransformOutputParser",
    "StrOutputParser",
    "JsonOutputParser",
    "SimpleJsonOutputParser",
    "ListOutputParser",
    "CommaSeparatedListOutputParser",
    "OutputParserException",
    "parse_json_markdown",
    "parse_partial_json",
]
