"""Vector coercion: lists work wherever arrays do; bad shapes and values are named."""

import numpy as np
import pytest

from rag.errors import DimensionMismatchError, ValidationError
from rag.vectors import as_matrix, as_vector


def test_a_list_of_floats_becomes_a_contiguous_float32_vector():
    vector = as_vector([1, 2.5, 3])
    assert vector.dtype == np.float32 and vector.flags.c_contiguous and vector.tolist() == [1.0, 2.5, 3.0]


def test_a_vector_of_the_wrong_dimension_is_named():
    with pytest.raises(DimensionMismatchError, match="dimension 2, expected 3"):
        as_vector([1.0, 2.0], dimension=3)


def test_infinite_values_are_refused():
    with pytest.raises(ValidationError, match="NaN or infinite"):
        as_vector([1.0, float("inf")])


def test_ragged_rows_are_refused_naming_the_row():
    with pytest.raises(DimensionMismatchError, match="row 2"):
        as_matrix([[1.0, 2.0], [3.0, 4.0], [5.0]])


def test_the_first_nan_row_is_named():
    with pytest.raises(ValidationError, match="row 1"):
        as_matrix([[1.0, 2.0], [float("nan"), 0.0]])


def test_an_empty_list_is_an_empty_matrix():
    assert as_matrix([], dimension=4).shape == (0, 4)


def test_non_numbers_are_refused():
    with pytest.raises(ValidationError, match="numbers"):
        as_vector(["a", "b"])
