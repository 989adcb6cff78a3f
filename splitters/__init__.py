"""Text splitters: documents to chunks, as LangChain's text splitters, with exact offsets."""

from splitters.base import TextSplitter
from splitters.character import CharacterTextSplitter, RecursiveCharacterTextSplitter
from splitters.encodings import available_encodings, encoding_for_model, get_encoding
from splitters.html import HTMLHeaderTextSplitter
from splitters.html_section import HTMLSectionSplitter
from splitters.html_semantic import HTMLSemanticPreservingSplitter
from splitters.json_splitter import RecursiveJsonSplitter
from splitters.jsx import JSFrameworkTextSplitter
from splitters.languages import LANGUAGE_SEPARATORS, Language, get_separators_for_language
from splitters.markdown import MarkdownHeaderTextSplitter
from splitters.markdown_syntax import ExperimentalMarkdownSyntaxTextSplitter
from splitters.presets import LatexTextSplitter, MarkdownTextSplitter, PythonCodeTextSplitter
from splitters.sentence_transformers import SentenceTransformersTokenTextSplitter
from splitters.tokens import TokenTextSplitter, tiktoken_length

__all__ = [
    "TextSplitter",
    "CharacterTextSplitter",
    "RecursiveCharacterTextSplitter",
    "TokenTextSplitter",
    "MarkdownHeaderTextSplitter",
    "ExperimentalMarkdownSyntaxTextSplitter",
    "HTMLHeaderTextSplitter",
    "MarkdownTextSplitter",
    "PythonCodeTextSplitter",
    "LatexTextSplitter",
    "JSFrameworkTextSplitter",
    "RecursiveJsonSplitter",
    "SentenceTransformersTokenTextSplitter",
    "HTMLSemanticPreservingSplitter",
    "HTMLSectionSplitter",
    "Language",
    "LANGUAGE_SEPARATORS",
    "get_separators_for_language",
    "get_encoding",
    "encoding_for_model",
    "available_encodings",
    "tiktoken_length",
]
