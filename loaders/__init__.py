"""Loaders: turn files and web pages into :class:`rag.Document` objects with the core
dependencies only.

Every loader has ``lazy_load()`` (an iterator), ``load()``, ``alazy_load()`` and ``aload()``;
every document's metadata carries ``source``, the path or URL as given. ``PyPDFLoader``
imports without pypdf and asks for ``pip install "ragpath[pdf]"`` when built. The web
loaders (``WebBaseLoader``, ``RecursiveUrlLoader``, ``SitemapLoader``) fetch concurrently
over httpx and list what failed in ``loader.failed``.

>>> from loaders import DirectoryLoader
>>> docs = DirectoryLoader("docs", silent_errors=True).load()  # doctest: +SKIP
"""

from loaders.base import BaseLoader
from loaders.csv_loader import CSVLoader
from loaders.directory import DirectoryLoader
from loaders.html import BSHTMLLoader, ReadableHTMLLoader
from loaders.json_loader import JSONLoader
from loaders.markdown import MarkdownLoader
from loaders.pdf import PyPDFLoader
from loaders.recursive_url import RecursiveUrlLoader
from loaders.sitemap import SitemapLoader
from loaders.text import TextLoader
from loaders.web import WebBaseLoader

__all__ = [
    "BaseLoader",
    "TextLoader",
    "BSHTMLLoader",
    "ReadableHTMLLoader",
    "CSVLoader",
    "JSONLoader",
    "MarkdownLoader",
    "DirectoryLoader",
    "PyPDFLoader",
    "WebBaseLoader",
    "RecursiveUrlLoader",
    "SitemapLoader",
]
