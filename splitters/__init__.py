"""Text splitters: documents to chunks, as LangChain's text splitters, with exact offsets."""

from splitters.base import TextSplitter
from splitters.character import CharacterTextSplitter, RecursiveCharacterTextSplitter
from splitters.languages import LANGUAGE_SEPARATORS, Language, get_separators_for_language

__all__ = [
    "TextSplitter",
    "CharacterTextSplitter",
    "RecursiveCharacterTextSplitter",
    "Language",
    "LANGUAGE_SEPARATORS",
    "get_separators_for_language",
]
