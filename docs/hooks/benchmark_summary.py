"""MkDocs hook: the benchmarks' summary table is written from benchmarks/results/headline.json,
the file the plots are drawn from (benchmarks/plots.py), so the table, the plots and the data
cannot disagree. The page holds the marker ``<!-- benchmark-summary -->``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "results" / "headline.json"
MARKER = "<!-- benchmark-summary -->"
PAGE = "benchmarks/index.md"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker on the benchmarks' index page by the summary tables."""
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"{PAGE}: the marker {MARKER} is missing, so the summary table would not be written")
    return markdown.replace(MARKER, summary_markdown(json.loads(DATA.read_text(encoding="utf-8"))))


def summary_markdown(data: dict) -> str:
    """The speed table and the quality table, each row linking to its page."""
    lines = ["| figure | ours | peer | ratio | machine | reproduce |", "|---|---|---|---:|---|---|"]
    for row in data["speed"]:
        title = row["page"].removesuffix(".md").replace("-", " ")
        machine = row.get("machine", data["machine_short"])
        lines.append(f"| {row['figure']} | {row['ours']} | {row['peer']} | {row['ratio']:g}x | {machine} | "
                     f"`{row['command']}`, [{title}]({row['page']}) |")
    quality = data["quality"]
    lines += ["", f"{quality['metric']} on {quality['dataset']} (`{quality['command']}`, "
              f"[retrieval quality]({quality['page']})):", "", f"| system | {quality['metric']} |", "|---|---:|"]
    lines += [f"| {system['system']} | {system['value']:.3f} |" for system in quality["systems"]]
    lines += ["", f"The machine ({data['machine_short']}): {data['machine']}."]
    return "\n".join(lines)
