"""Answer quality under each hybrid fusion (issue 43): the offline answerer's key-phrase,
cited-source and citation-precision rates on the project's three QA sets, for reciprocal-rank
fusion and the score fusions at several lexical weights, with a held-out choice.

Each index is built once; between settings only its fusion changes
(``Index.configure(hybrid=HybridConfig(...))``, nothing re-embedded), and every question
is asked as ``rag bench --answers QA.tsv --index IDX`` asks it
(:func:`rag.index.answer_bench.bench_answers`, ``k = 6`` with context). The index's own
fusion is put back at the end.

Held-out protocol: each set's questions are split by alternate lines (half A: questions
1, 3, 5, ...; half B: 2, 4, 6, ...). The setting with the most key-phrase hits plus
cited-source hits over the three sets' A halves is picked and reported on the B halves,
and the other way round (ties: the earlier setting in the list, rrf, the former default, first).

Run (the indexes are the ones the answer rounds of benchmarks/README.md used: default
chunking 1,000 / 200, local MiniLM, FAISS, built once)::

    apt-get install -y postgresql-doc-15 git-doc
    rag index /usr/share/doc/postgresql-doc-15/html --index /tmp/fusion-answers/pg
    rag index /usr/share/doc/git-doc --glob "*.html" --index /tmp/fusion-answers/git
    python benchmarks/fusion_answers.py --pg-index /tmp/fusion-answers/pg \\
        --git-index /tmp/fusion-answers/git --save /tmp/fusion-answers/run.json
    python benchmarks/fusion_answers.py --load /tmp/fusion-answers/run.json   # tables again, no asking

``--build`` runs the two ``rag index`` commands above (through the library) when a folder
holds no index yet. ``--settings rrf,zscore:0.3`` limits the settings (``FUSION:LEXICAL``
weight; the dense weight is ``1 - LEXICAL``; ``rrf`` alone is equal weights). Times are
reported, never asserted: machines here are shared.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, benchmarks/ would come first on the path and its stores.py would shadow
# the stores package: the repository root instead, as the other benchmarks do.
sys.path[0] = str(ROOT)
DATA = ROOT / "benchmarks" / "data"
PG_MANUAL = Path("/usr/share/doc/postgresql-doc-15/html")
GIT_MANUAL = Path("/usr/share/doc/git-doc")

#: (name, QA file, which index) in report order.
SETS = (("issue", DATA / "postgresql_qa.tsv", "pg"),
        ("heldout", DATA / "postgresql_qa_heldout.tsv", "pg"),
        ("git", DATA / "git_qa.tsv", "git"))
DEFAULT_SETTINGS = "rrf,zscore:0.5,union-zscore:0.5,union-minmax:0.5,union-zscore:0.3,union-zscore:0.7"


@dataclass(frozen=True)
class Setting:
    """A fusion and its lexical weight (dense = 1 - lexical)."""

    fusion: str
    lexical: float = 0.5

    @property
    def name(self) -> str:
        return "rrf" if self.fusion == "rrf" and self.lexical == 0.5 else f"{self.fusion}:{self.lexical:g}"

    def hybrid(self) -> Any:
        from rag.hybrid import HybridConfig

        # fetch_k and c as HybridConfig's defaults: only the fusion and weights vary.
        return HybridConfig(fusion=self.fusion, weights=(round(1 - self.lexical, 6), self.lexical))


def parse_settings(text: str) -> list[Setting]:
    from rag.hybrid import FUSIONS

    settings = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        fusion, _, weight = part.partition(":")
        try:
            lexical = 0.5 if not weight else float(weight)
        except ValueError:
            raise SystemExit(f"--settings: {part!r} is not FUSION or FUSION:LEXICAL_WEIGHT (e.g. zscore:0.3)") from None
        if fusion not in FUSIONS or not 0 <= lexical <= 1:
            raise SystemExit(f"--settings: {part!r}: fusion must be one of {', '.join(FUSIONS)} and the lexical "
                             "weight in [0, 1]")
        settings.append(Setting(fusion, lexical))
    if not settings:
        raise SystemExit("--settings: no setting given")
    return settings


def build_if_missing(folder: Path, manual: Path, glob: Optional[str]) -> None:
    """``rag index MANUAL [--glob GLOB] --index FOLDER`` through the library, when FOLDER
    holds no index."""
    from rag.index import Index

    if (folder / "manifest.json").exists() or (folder.exists() and any(folder.iterdir())):
        return
    if not manual.is_dir():
        raise SystemExit(f"{manual} is missing: apt-get install -y postgresql-doc-15 git-doc")
    began = time.perf_counter()
    summary = Index.open_or_create(folder).update([str(manual)], glob=glob)
    print(f"built {folder} from {manual} in {time.perf_counter() - began:.0f} s: {summary}", file=sys.stderr)


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "n/a"


def run(indexes: dict[str, Path], settings: list[Setting], k: int) -> dict[str, Any]:
    """Every setting on every set: per question key_phrase / source_cited / units /
    verbatim / retrieved, plus seconds and load averages per run."""
    from rag.index import Index
    from rag.index.answer_bench import bench_answers

    opened = {name: Index.open(path) for name, path in indexes.items()}
    original = {name: index.config.hybrid for name, index in opened.items()}
    runs: list[dict[str, Any]] = []
    try:
        for setting in settings:
            for name, index in opened.items():
                index.configure(hybrid=setting.hybrid())
                if index.config.hybrid != setting.hybrid():  # the search reads the saved config
                    raise RuntimeError(f"{name}: configure did not take: {index.config.hybrid}")
            for set_name, qa, which in SETS:
                if which not in opened:
                    continue
                load_before = load_average()
                result = bench_answers(opened[which], qa, k=k)
                record = {"setting": setting.name, "set": set_name, "seconds": round(result.totals.seconds, 1),
                          "load": [load_before, load_average()],
                          "questions": [{"question": s.question, "key_phrase": s.key_phrase,
                                         "source_cited": s.source_cited, "units": s.units, "verbatim": s.verbatim,
                                         "retrieved": s.retrieved, "answer": answer}
                                        for s, answer in zip(result.scores, result.answers)]}
                runs.append(record)
                print(f"{setting.name:>10} {set_name:>8}: {_figures(record['questions'])}  "
                      f"{record['seconds']:.0f} s, load {record['load'][0]} -> {record['load'][1]}",
                      file=sys.stderr, flush=True)
    finally:
        for name, index in opened.items():
            index.configure(hybrid=original[name])
    return {"k": k, "settings": [s.name for s in settings], "indexes": {n: str(p) for n, p in indexes.items()},
            "runs": runs}


def _totals(questions: list[dict[str, Any]]) -> dict[str, Any]:
    units = sum(q["units"] for q in questions)
    return {"n": len(questions), "key": sum(q["key_phrase"] for q in questions),
            "cited": sum(q["source_cited"] for q in questions), "retrieved": sum(q["retrieved"] for q in questions),
            "units": units, "verbatim": sum(q["verbatim"] for q in questions)}


def _figures(questions: list[dict[str, Any]]) -> str:
    t = _totals(questions)
    precision = f"{t['verbatim'] / t['units']:.1%}" if t["units"] else "n/a"
    return (f"key {t['key']}/{t['n']} ({t['key'] / t['n']:.1%}), cited {t['cited']}/{t['n']} "
            f"({t['cited'] / t['n']:.1%}), precision {precision} ({t['verbatim']}/{t['units']})")


def _half(questions: list[dict[str, Any]], half: str) -> list[dict[str, Any]]:
    """Alternate lines: A = questions 1, 3, 5, ... of the file; B = 2, 4, 6, ..."""
    return questions[0::2] if half == "A" else questions[1::2]


def report(data: dict[str, Any]) -> None:
    settings = data["settings"]
    by = {(r["setting"], r["set"]): r["questions"] for r in data["runs"]}
    sets = [name for name, _, _ in SETS if any(r["set"] == name for r in data["runs"])]

    print(f"## Full sets (k = {data['k']}; key phrase / expected source cited / citation precision)\n")
    print("| setting | " + " | ".join(sets) + " | all: key + cited |")
    print("|---|" + "---|" * len(sets) + "---|")
    for setting in settings:
        cells, total = [], 0
        for name in sets:
            t = _totals(by[setting, name])
            total += t["key"] + t["cited"]
            precision = f"{t['verbatim'] / t['units']:.1%}" if t["units"] else "n/a"
            cells.append(f"{t['key'] / t['n']:.1%} ({t['key']}) / {t['cited'] / t['n']:.1%} ({t['cited']}) / {precision}")
        print(f"| {setting} | " + " | ".join(cells) + f" | {total} |")

    baseline = settings[0]
    print(f"\nAgainst {baseline} (questions gained - lost, key phrase / cited; precision change):\n")
    print("| setting | " + " | ".join(sets) + " | loses on no set |")
    print("|---|" + "---|" * len(sets) + "---|")
    for setting in settings[1:]:
        cells, never_worse, better = [], True, False
        for name in sets:
            base, this = by[baseline, name], by[setting, name]
            parts = []
            for field in ("key_phrase", "source_cited"):
                gained = sum(t[field] and not b[field] for b, t in zip(base, this))
                lost = sum(b[field] and not t[field] for b, t in zip(base, this))
                parts.append(f"+{gained}-{lost}")
                never_worse &= gained >= lost
                better |= gained > lost
            tb, tt = _totals(base), _totals(this)
            pb = tb["verbatim"] / tb["units"] if tb["units"] else 1.0
            pt = tt["verbatim"] / tt["units"] if tt["units"] else 1.0
            never_worse &= pt >= pb
            parts.append(f"{(pt - pb) * 100:+.1f} pt")
            cells.append(" / ".join(parts))
        verdict = "wins" if never_worse and better else ("ties" if never_worse else "no")
        print(f"| {setting} | " + " | ".join(cells) + f" | {verdict} |")

    print("\n## Held-out halves (alternate lines; pick by key + cited over the three sets' pick half)\n")
    print("| pick on | setting | key + cited on the pick half | on the report half: " + " | ".join(sets)
          + " | key + cited on the report half |")
    print("|---|---|---|" + "---|" * len(sets) + "---|")

    def half_total(setting: str, half: str) -> int:
        return sum(_totals(_half(by[setting, n], half))["key"] + _totals(_half(by[setting, n], half))["cited"]
                   for n in sets)

    for pick, other in (("A", "B"), ("B", "A")):
        scores = {s: half_total(s, pick) for s in settings}
        best = max(settings, key=lambda s: (scores[s], -settings.index(s)))
        ranking = ", ".join(f"{s} {scores[s]}" for s in sorted(settings, key=lambda s: -scores[s]))
        for setting, label in ((best, f"picked: {best}"), (baseline, f"{baseline} (baseline)")):
            if setting == best and label.startswith(baseline):
                continue
            cells = [_figures(_half(by[setting, n], other)).replace(", precision", " / prec") for n in sets]
            chosen = f"{scores[setting]} ({ranking})" if setting == best else str(scores[setting])
            print(f"| {pick} -> {other} | {label} | {chosen} | " + " | ".join(cells)
                  + f" | {half_total(setting, other)} |")

    print("\n## Run times and load\n")
    print("| setting | " + " | ".join(sets) + " |")
    print("|---|" + "---|" * len(sets))
    runs = {(r["setting"], r["set"]): r for r in data["runs"]}
    for setting in settings:
        print(f"| {setting} | " + " | ".join(f"{runs[setting, n]['seconds']:.0f} s (load {runs[setting, n]['load'][0]})"
                                            for n in sets) + " |")


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pg-index", type=Path, help="index of the PostgreSQL 15 HTML manual (issue and held-out sets)")
    parser.add_argument("--git-index", type=Path, help="index of Debian's git-doc HTML (git set)")
    parser.add_argument("--build", action="store_true", help="build an index folder that holds none yet (minutes)")
    parser.add_argument("--settings", default=DEFAULT_SETTINGS,
                        help=f"FUSION[:LEXICAL_WEIGHT],... the first is the baseline (default {DEFAULT_SETTINGS})")
    parser.add_argument("--k", type=int, default=6, help="chunks retrieved per question (default 6, as rag ask)")
    parser.add_argument("--save", type=Path, help="write every answer and check to this JSON file")
    parser.add_argument("--load", type=Path, help="report a saved run instead of asking")
    args = parser.parse_args(argv)

    if args.load is not None:
        report(json.loads(args.load.read_text(encoding="utf-8")))
        return 0
    indexes = {name: path for name, path in (("pg", args.pg_index), ("git", args.git_index)) if path is not None}
    if not indexes:
        parser.error("give --pg-index and/or --git-index (or --load RUN.json)")
    if args.build:
        if "pg" in indexes:
            build_if_missing(indexes["pg"], PG_MANUAL, None)
        if "git" in indexes:
            build_if_missing(indexes["git"], GIT_MANUAL, "*.html")
    data = run(indexes, parse_settings(args.settings), args.k)
    if args.save is not None:
        args.save.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
    report(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
