"""MkDocs hook: the command-line reference is written from ``rag``'s own argparse parser.

``docs/reference/cli.md`` holds the marker ``<!-- cli-reference -->``; at build time it is
replaced by one section per command (usage, positional arguments and options with their
defaults and help), read from :func:`rag.cli.build_parser`. A flag added to the parser is
in the next build, and a flag removed from it is gone: the page cannot drift from the code.
A page without the marker fails the build (``PluginError``), so the reference cannot be
lost silently either.
"""

from __future__ import annotations

import argparse
import re
from typing import Any

MARKER = "<!-- cli-reference -->"
PAGE = "reference/cli.md"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker on the CLI page by the generated reference."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"{PAGE}: the marker {MARKER} is missing, so the CLI reference would not be generated")
    from rag.cli import build_parser
    from rag.cli.trace import trace_parser

    # `rag trace ACTION` parses its actions with a parser of its own (rag trace FILE stays
    # valid), so the reference reads that one too.
    return markdown.replace(MARKER, cli_markdown(build_parser(), nested={"trace": trace_parser()}))


def cli_markdown(parser: argparse.ArgumentParser,
                 nested: dict[str, argparse.ArgumentParser] | None = None) -> str:
    """Markdown for ``parser`` and each of its subcommands, in the order they were added;
    ``nested`` maps a subcommand to the parser of its own actions (rendered beneath it)."""
    parts = [_section(parser, parser.prog, level=2, summary=parser.description or "")]
    for name, sub, summary in _subcommands(parser):
        parts.append(_section(sub, f"{parser.prog} {name}", level=2, summary=summary))
        inner = (nested or {}).get(name)
        for action, action_parser, action_summary in _subcommands(inner) if inner else ():
            parts.append(_section(action_parser, f"{parser.prog} {name} {action}", level=3, summary=action_summary))
    return "\n\n".join(parts) + "\n"


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser, str]]:
    found = []
    for action in parser._actions:  # argparse keeps subparsers as an action; no public accessor
        if isinstance(action, argparse._SubParsersAction):
            helps = {choice.dest: choice.help or "" for choice in action._choices_actions}
            for name, sub in action.choices.items():
                found.append((name, sub, helps.get(name, "")))
    return found


def _section(parser: argparse.ArgumentParser, title: str, *, level: int, summary: str) -> str:
    usage = parser.format_usage().strip()
    if usage.startswith("usage: "):
        usage = usage[len("usage: "):]
    usage = re.sub(r"\s+", " ", usage)
    lines = [f"{'#' * level} `{title}`", "", _escape(_sentence(summary)), "", "```text", usage, "```"]
    rows = [_row(action) for action in parser._actions
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))]
    if rows:
        lines += ["", "| argument | default | description |", "|---|---|---|", *rows]
    return "\n".join(lines)


def _row(action: argparse.Action) -> str:
    if action.option_strings:
        names = ", ".join(action.option_strings)
        if action.nargs != 0:
            names += " " + _metavar(action)
    else:
        names = _metavar(action)
        if action.nargs in ("+", "*"):
            names += " ..."
    default = action.default
    shown = "" if default in (None, False, [], argparse.SUPPRESS) or action.nargs == 0 else f"`{default}`"
    description = action.help or ""
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        description += " (one of: " + ", ".join(f"`{choice}`" for choice in action.choices) + ")"
    return f"| `{names}` | {shown} | {_escape(description)} |"


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar) if not isinstance(action.metavar, tuple) else " ".join(action.metavar)
    if action.choices:
        return "{" + ",".join(str(choice) for choice in action.choices) + "}"
    return action.dest.upper()


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:] + ("" if text.endswith(".") or not text else ".")


def _escape(text: str) -> str:
    # Table cells: a literal | would end the cell; markdown would read <...> as HTML.
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;").replace("\n", " ")
