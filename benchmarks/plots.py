"""Draw the benchmark pages' figures from benchmarks/results/headline.json.

    python benchmarks/plots.py [--out docs/benchmarks/img]

Writes ``speed.svg`` (each speed figure as ours / peer, on a log scale: 1x is parity) and
``quality.svg`` (SciFact nDCG@10 by system). The numbers come only from the data file,
which also feeds the summary table of docs/benchmarks/index.md, so a figure changed there
changes both; tests/test_docs_build.py checks that the committed SVGs are this script's
output. SVG with text kept as text and no timestamp, so the files diff well and are
reproducible.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "benchmarks" / "results" / "headline.json"
OUT = ROOT / "docs" / "benchmarks" / "img"


def load(path: Path = DATA) -> dict:
    """The headline figures (see the file's ``about``)."""
    return json.loads(path.read_text(encoding="utf-8"))


def draw(data: dict, out: Path) -> list[Path]:
    """Write speed.svg and quality.svg into ``out``; returns their paths."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Reproducible SVG: fixed id salt, text as <text>, no date in the metadata.
    plt.rcParams.update({"svg.hashsalt": "ragpath", "svg.fonttype": "none", "font.size": 9})
    out.mkdir(parents=True, exist_ok=True)
    written = [_speed(plt, data, out / "speed.svg"), _quality(plt, data["quality"], out / "quality.svg")]
    plt.close("all")
    return written


def _speed(plt, data: dict, path: Path) -> Path:
    rows = sorted(data["speed"], key=lambda row: row["ratio"])
    labels = [row["figure"] for row in rows]
    ratios = [row["ratio"] for row in rows]
    figure, axes = plt.subplots(figsize=(10, 0.38 * len(rows) + 1.2))
    colours = ["#2b8a3e" if ratio >= 1 else "#c92a2a" for ratio in ratios]
    bars = axes.barh(labels, ratios, color=colours)
    axes.set_xscale("log")
    axes.axvline(1, color="black", linewidth=0.8)
    for bar, ratio in zip(bars, ratios):
        axes.text(bar.get_width() * 1.08, bar.get_y() + bar.get_height() / 2, f"{ratio:g}x", va="center")
    axes.set_xlabel("ours / peer (log scale; > 1: ours faster, < 1: slower)")
    axes.set_title("Speed against the peer each replaces (LangChain, LangGraph, LangServe...)")
    axes.set_xlim(0.5, max(ratios) * 3)
    figure.tight_layout()
    figure.savefig(path, format="svg", metadata={"Date": None})
    return path


def _quality(plt, quality: dict, path: Path) -> Path:
    systems = quality["systems"]
    figure, axes = plt.subplots(figsize=(10, 0.38 * len(systems) + 1.2))
    bars = axes.barh([s["system"] for s in systems], [s["value"] for s in systems], color="#1c7ed6")
    for bar, system in zip(bars, systems):
        axes.text(bar.get_width() + 0.005, bar.get_y() + bar.get_height() / 2, f"{system['value']:.3f}", va="center")
    axes.set_xlim(0, 0.8)
    axes.set_xlabel(quality["metric"])
    axes.set_title(f"Retrieval quality on {quality['dataset']}")
    figure.tight_layout()
    figure.savefig(path, format="svg", metadata={"Date": None})
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA, help="the headline figures (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the SVG files (default: %(default)s)")
    args = parser.parse_args()
    for path in draw(load(args.data), args.out):
        print(path)


if __name__ == "__main__":
    main()
