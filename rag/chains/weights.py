"""The weights that combine an answer unit's features (:mod:`rag.chains.features`) into its
score, saved as versioned JSON.

The shipped weights (``answer_weights.json`` beside this module) are fitted by
``benchmarks/fit_answer_weights.py`` on training question sets and reported on sets the
fit never saw; :func:`default_weights` loads them.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

import numpy as np

from rag.chains.features import FEATURES
from rag.errors import ValidationError

__all__ = ["AnswerWeights", "default_weights", "WEIGHTS_FORMAT", "WEIGHTS_VERSION"]

WEIGHTS_FORMAT = "rag-answer-weights"
#: The version of the JSON layout (and of the feature definitions the weights were fitted for).
WEIGHTS_VERSION = 1
_SHIPPED = Path(__file__).with_name("answer_weights.json")


@dataclass(frozen=True)
class AnswerWeights:
    """One weight per feature (any finite float; a unit's score is the weighted sum of its
    features, each in [0, 1]), ``min_relevance``: the match to the question in [0, 1] (see
    :meth:`relevance`) a candidate needs to be quoted, and ``notes``: where the weights come from (free text, kept in the JSON).

    >>> weights = AnswerWeights(dense=1.0, lexical=0.0, section=0.0, lead=0.0, subject=0.0,
    ...                         block_fit=0.0, brevity=0.0, source_rank=0.0)
    >>> weights.score(np.array([[0.5, 1, 1, 1, 1, 1, 1, 1]])).tolist()
    [0.5]
    """

    dense: float
    lexical: float
    section: float
    lead: float
    subject: float
    block_fit: float
    brevity: float
    source_rank: float
    min_relevance: float = 0.2
    notes: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        for name in (*FEATURES, "min_relevance"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValidationError(f"answer weight {name!r} must be a finite number, got {value!r}")
        if not 0 <= self.min_relevance <= 1:
            raise ValidationError(f"min_relevance must be between 0 and 1, got {self.min_relevance!r}")

    @property
    def vector(self) -> np.ndarray:
        """The weights in :data:`~rag.chains.features.FEATURES` order."""
        return np.array([getattr(self, name) for name in FEATURES], dtype=np.float64)

    def score(self, features: np.ndarray) -> np.ndarray:
        """Each row's score: the weighted sum of ``features`` (n x len(FEATURES))."""
        features = np.asarray(features, dtype=np.float64).reshape(-1, len(FEATURES))
        return features @ self.vector

    def relevance(self, features: np.ndarray) -> np.ndarray:
        """Each row's match to the question in [0, 1]: its dense and lexical features averaged
        with their weights (dense alone when both weights are 0). ``min_relevance`` applies
        to it, not to the score: whether the context answers at all is a question of match;
        headings, rank and kind only order the candidates that do."""
        features = np.asarray(features, dtype=np.float64).reshape(-1, len(FEATURES))
        dense, lexical = features[:, FEATURES.index("dense")], features[:, FEATURES.index("lexical")]
        total = abs(self.dense) + abs(self.lexical)
        if total == 0:
            return dense
        return (abs(self.dense) * dense + abs(self.lexical) * lexical) / total

    def contributions(self, row: np.ndarray) -> dict[str, float]:
        """What each feature adds to one row's score (weight x value), by name."""
        return {name: float(weight * value) for name, weight, value in zip(FEATURES, self.vector, row)}

    def replace(self, **changes: float) -> "AnswerWeights":
        values = {**{f.name: getattr(self, f.name) for f in fields(self)}, **changes}
        return AnswerWeights(**values)

    def to_json(self) -> dict[str, Any]:
        values = asdict(self)
        notes = values.pop("notes")
        return {"format": WEIGHTS_FORMAT, "version": WEIGHTS_VERSION, "weights": values, "notes": notes}

    @classmethod
    def from_json(cls, data: Any) -> "AnswerWeights":
        """From :meth:`to_json`'s form; a wrong format or version, or a missing or unknown
        weight, raises :class:`~rag.errors.ValidationError` naming it."""
        if not isinstance(data, dict) or data.get("format") != WEIGHTS_FORMAT:
            raise ValidationError(f"not answer weights: expected format {WEIGHTS_FORMAT!r}, got "
                                  f"{data.get('format') if isinstance(data, dict) else type(data).__name__!r}")
        if data.get("version") != WEIGHTS_VERSION:
            raise ValidationError(f"answer weights version {data.get('version')!r} is not supported: "
                                  f"expected {WEIGHTS_VERSION} (refit with benchmarks/fit_answer_weights.py)")
        values = data.get("weights")
        expected = {*FEATURES, "min_relevance"}
        if not isinstance(values, dict) or set(values) != expected:
            given = sorted(values) if isinstance(values, dict) else values
            raise ValidationError(f"answer weights must name exactly {sorted(expected)}, got {given!r}")
        return cls(**values, notes=str(data.get("notes", "")))

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "AnswerWeights":
        with open(path, encoding="utf-8") as file:
            return cls.from_json(json.load(file))

    def save(self, path: Union[str, os.PathLike]) -> None:
        """Write to ``path`` as JSON, atomically (a temporary file renamed over it)."""
        target = Path(path)
        handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                json.dump(self.to_json(), file, indent=2)
                file.write("\n")
            os.replace(temporary, target)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


@lru_cache(maxsize=1)
def default_weights() -> AnswerWeights:
    """The weights shipped with the package (``rag/chains/answer_weights.json``)."""
    return AnswerWeights.load(_SHIPPED)
