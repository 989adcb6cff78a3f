"""The answer weights: one frozen object, saved as versioned JSON, shipped in the package."""

import json

import numpy as np
import pytest

from rag.chains.features import FEATURES
from rag.chains.weights import WEIGHTS_VERSION, AnswerWeights, default_weights
from rag.errors import ValidationError

UNIT = {name: 0.0 for name in FEATURES}


def test_the_shipped_weights_load_and_name_every_feature():
    weights = default_weights()
    assert weights.vector.shape == (len(FEATURES),) and 0 <= weights.min_relevance <= 1


def test_a_score_is_the_weighted_sum_of_the_features():
    weights = AnswerWeights(**{**UNIT, "dense": 0.5, "brevity": -1.0})
    row = np.zeros(len(FEATURES))
    row[FEATURES.index("dense")], row[FEATURES.index("brevity")] = 0.8, 0.25
    assert weights.score(row[None, :]).tolist() == pytest.approx([0.15])
    assert weights.contributions(row)["brevity"] == pytest.approx(-0.25)


def test_weights_survive_a_json_round_trip(tmp_path):
    weights = AnswerWeights(**{**UNIT, "lexical": 0.3}, min_relevance=0.15, notes="test")
    weights.save(tmp_path / "w.json")
    assert AnswerWeights.load(tmp_path / "w.json") == weights
    assert json.loads((tmp_path / "w.json").read_text())["version"] == WEIGHTS_VERSION
    assert [p.name for p in tmp_path.iterdir()] == ["w.json"]  # no temporary file left


def test_another_version_is_refused_with_the_fix():
    data = AnswerWeights(**UNIT).to_json() | {"version": WEIGHTS_VERSION + 1}
    with pytest.raises(ValidationError, match="refit"):
        AnswerWeights.from_json(data)


def test_a_missing_weight_is_named():
    data = AnswerWeights(**UNIT).to_json()
    del data["weights"]["dense"]
    with pytest.raises(ValidationError, match="dense"):
        AnswerWeights.from_json(data)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), "0.3", True])
def test_a_weight_that_is_not_a_finite_number_is_refused(bad):
    with pytest.raises(ValidationError, match="dense"):
        AnswerWeights(**{**UNIT, "dense": bad})


def test_min_relevance_outside_the_unit_interval_is_refused():
    with pytest.raises(ValidationError, match="1.5"):
        AnswerWeights(**UNIT, min_relevance=1.5)


def test_relevance_is_the_weighted_mean_of_dense_and_lexical_only():
    weights = AnswerWeights(**{**UNIT, "dense": 0.3, "lexical": 0.1, "source_rank": 5.0})
    row = np.zeros(len(FEATURES))
    row[FEATURES.index("dense")], row[FEATURES.index("lexical")], row[FEATURES.index("source_rank")] = 0.4, 0.8, 1.0
    assert weights.relevance(row[None, :]).tolist() == pytest.approx([0.5])
