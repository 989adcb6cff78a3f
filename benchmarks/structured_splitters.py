"""HTML and Markdown splitter throughput: ours against langchain-text-splitters, same run.

    python benchmarks/structured_splitters.py [--corpus PATH] [--repeats N] [--limit DOCS]
                                              [--manual DIR]

Pages are built from a BEIR ``corpus.jsonl`` (default: SciFact in ``../shared/data`` beside
the repository), read in place: 20 documents a page. An HTML page has a ``<head>``, an
``<h1>``, and per document an ``<h2>`` title, its abstract as paragraphs of three sentences
(the first word of each emphasised) and a DOI-style link; a Markdown page has ``#``/``##``
headers, the same paragraphs, a fenced code block and a rule every five documents. With
``--manual`` (default: Debian's postgresql-doc-15 pages, when installed) tag-dense real pages
are measured too. Every configuration must give LangChain's Documents (for
HTMLSemanticPreservingSplitter, less the empty ones LangChain emits); the script exits 1
otherwise. Passes alternate between the two to share the machine's noise; the figure is
each side's best pass. Needs ``pip install langchain-text-splitters==1.1.3 lxml``.
"""

from __future__ import annotations

import argparse
import html
import json
import re
import sys
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_CORPUS = REPO.parent / "shared" / "data" / "beir" / "scifact" / "corpus.jsonl"
DEFAULT_MANUAL = Path("/usr/share/doc/postgresql-doc-15/html")
PER_PAGE = 20
HTML_HEADERS = [("h1", "Header 1"), ("h2", "Header 2"), ("h3", "Header 3")]
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


def load_records(corpus: Path, limit: int | None) -> list[dict[str, str]]:
    records = []
    with corpus.open(encoding="utf-8") as lines:
        for line in lines:
            records.append(json.loads(line))
            if limit is not None and len(records) >= limit:
                break
    return records


def _paragraphs(text: str) -> list[str]:
    sentences = _SENTENCE.split(text.strip())
    return [" ".join(sentences[i : i + 3]) for i in range(0, len(sentences), 3) if sentences[i]]


def html_pages(records: list[dict[str, str]]) -> list[str]:
    pages = []
    for start in range(0, len(records), PER_PAGE):
        body = []
        for record in records[start : start + PER_PAGE]:
            body.append(f"<section>\n<h2>{html.escape(record.get('title', ''))}</h2>\n")
            for paragraph in _paragraphs(record.get("text", "")):
                first, _, rest = html.escape(paragraph).partition(" ")
                body.append(f"<p><em>{first}</em> {rest}</p>\n")
            doc_id = html.escape(str(record.get("_id", "")))
            body.append(f'<p>Source: <a href="https://doi.org/{doc_id}">{doc_id}</a></p>\n</section>\n')
        pages.append(
            f"<!DOCTYPE html>\n<html>\n<head><title>Page {start // PER_PAGE}</title></head>\n"
            f"<body>\n<h1>Abstracts {start} to {start + PER_PAGE - 1}</h1>\n{''.join(body)}</body>\n</html>\n"
        )
    return pages


def markdown_pages(records: list[dict[str, str]]) -> list[str]:
    pages = []
    for start in range(0, len(records), PER_PAGE):
        lines = [f"# Abstracts {start} to {start + PER_PAGE - 1}\n\n"]
        for number, record in enumerate(records[start : start + PER_PAGE]):
            lines.append(f"## {record.get('title', '')}\n\n")
            lines.extend(f"{paragraph}\n\n" for paragraph in _paragraphs(record.get("text", "")))
            if number % 5 == 4:
                lines.append(f"```json\n{{\"id\": \"{record.get('_id', '')}\"}}\n```\n\n---\n\n")
        pages.append("".join(lines))
    return pages


def manual_pages(folder: Path) -> list[str]:
    if not folder.is_dir():
        return []
    # lxml refuses a str with an encoding declaration (see tests/splitters/test_html_section.py).
    return [
        re.sub(r"^<\?xml[^>]*>", "", page.read_text(encoding="utf-8", errors="replace"))
        for page in sorted(folder.glob("*.html"))
    ]


def configurations():
    from langchain_text_splitters import ExperimentalMarkdownSyntaxTextSplitter as LcMarkdown
    from langchain_text_splitters.html import HTMLSectionSplitter as LcSection
    from langchain_text_splitters.html import HTMLSemanticPreservingSplitter as LcSemantic

    from splitters import (
        ExperimentalMarkdownSyntaxTextSplitter,
        HTMLSectionSplitter,
        HTMLSemanticPreservingSplitter,
    )

    semantic = dict(max_chunk_size=1000, preserve_links=True, elements_to_preserve=["ul", "table"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # LangChain marks the semantic splitter beta
        lc_semantic = LcSemantic(HTML_HEADERS, **semantic)
    return [
        ("ExperimentalMarkdownSyntax()", "markdown", LcMarkdown(), ExperimentalMarkdownSyntaxTextSplitter()),
        ("HTMLSectionSplitter(h1-h3)", "html", LcSection(HTML_HEADERS), HTMLSectionSplitter(HTML_HEADERS)),
        ("HTMLSemanticPreserving(1000)", "html", lc_semantic, HTMLSemanticPreservingSplitter(HTML_HEADERS, **semantic)),
    ]


def timed_pass(splitter, pages: list[str]) -> tuple[float, list[list[tuple[str, dict]]]]:
    split_text = splitter.split_text
    started = time.perf_counter()
    # list(): LangChain's Markdown splitter returns one list that it clears on its next call.
    documents = [list(split_text(page)) for page in pages]
    elapsed = time.perf_counter() - started
    return elapsed, [[(d.page_content, d.metadata) for d in page if d.page_content] for page in documents]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--repeats", type=int, default=3, help="passes per splitter")
    parser.add_argument("--limit", type=int, default=None, help="only the first N documents")
    parser.add_argument("--manual", type=Path, default=DEFAULT_MANUAL, help="folder of real HTML pages")
    args = parser.parse_args(argv)
    if not args.corpus.exists():
        parser.error(f"corpus not found: {args.corpus} (pass --corpus PATH)")
    try:
        import langchain_text_splitters  # noqa: F401
        import lxml  # noqa: F401
    except ImportError:
        parser.error("needs LangChain to compare: pip install langchain-text-splitters==1.1.3 lxml")

    records = load_records(args.corpus, args.limit)
    inputs = {"html": html_pages(records), "markdown": markdown_pages(records)}
    manual = manual_pages(args.manual)
    print(f"corpus: {args.corpus} ({len(records)} documents, {len(inputs['html'])} pages each)")
    for kind, pages in [*inputs.items(), ("manual", manual)]:
        if pages:
            print(f"  {kind}: {sum(len(p.encode('utf-8')) for p in pages) / 1e6:.2f} MB")
    print(f"{'configuration':<30} {'input':<9} {'documents':>9} {'LangChain MB/s':>15} {'ours MB/s':>10} {'ratio':>7}")
    identical = True
    for name, kind, reference, ours in configurations():
        for input_name in [kind] + (["manual"] if kind == "html" and manual else []):
            pages = inputs.get(input_name, manual)
            megabytes = sum(len(page.encode("utf-8")) for page in pages) / 1e6
            best_reference = best_ours = float("inf")
            for _ in range(args.repeats):
                elapsed, reference_documents = timed_pass(reference, pages)
                best_reference = min(best_reference, elapsed)
                elapsed, our_documents = timed_pass(ours, pages)
                best_ours = min(best_ours, elapsed)
                if our_documents != reference_documents:
                    identical = False
                    print(f"  {name} on {input_name}: documents differ from LangChain's")
            count = sum(map(len, our_documents))
            print(
                f"{name:<30} {input_name:<9} {count:>9} {megabytes / best_reference:>15.1f} "
                f"{megabytes / best_ours:>10.1f} {best_reference / best_ours:>6.1f}x"
            )
    print("documents identical to LangChain's:", "yes" if identical else "NO")
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
