"""Coercion and validation of vectors: everything that accepts a vector accepts a list too."""

from __future__ import annotations

from typing import Any, Sequence, Union

import numpy as np

from rag.errors import DimensionMismatchError, ValidationError

__all__ = ["VectorLike", "MatrixLike", "as_vector", "as_matrix"]

VectorLike = Union[Sequence[float], np.ndarray]
MatrixLike = Union[Sequence[Sequence[float]], np.ndarray]


def as_vector(value: Any, *, dimension: int | None = None, name: str = "vector") -> np.ndarray:
    """``value`` as a contiguous float32 array of shape (dimension,), finite.

    Raises ValidationError for a non-numeric, non-1-D, empty or non-finite value and
    DimensionMismatchError when ``dimension`` is given and differs.
    """
    try:
        array = np.ascontiguousarray(value, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{name} must be a sequence of numbers, got {value!r:.80}") from exc
    if array.ndim != 1:
        raise ValidationError(f"{name} must be one-dimensional, got shape {array.shape}")
    if array.size == 0:
        raise ValidationError(f"{name} is empty; expected {dimension or 'at least one'} numbers")
    if dimension is not None and array.shape[0] != dimension:
        raise DimensionMismatchError(
            f"{name} has dimension {array.shape[0]}, expected {dimension}"
        )
    if not np.isfinite(array).all():
        raise ValidationError(f"{name} contains NaN or infinite values")
    return array


def as_matrix(value: Any, *, dimension: int | None = None, name: str = "vectors") -> np.ndarray:
    """``value`` as a contiguous float32 array of shape (n, dimension), finite, n >= 0.

    Rows of a ragged list, a wrong dimension or NaN/inf entries raise a clear error naming
    the first offending row.
    """
    if isinstance(value, np.ndarray):
        array = value
    else:
        rows = list(value)
        if not rows:
            return np.empty((0, dimension or 0), dtype=np.float32)
        lengths = {len(row) for row in rows}
        if len(lengths) > 1:
            first = next(i for i, row in enumerate(rows) if len(row) != len(rows[0]))
            raise DimensionMismatchError(
                f"{name} are ragged: row 0 has {len(rows[0])} numbers, row {first} has "
                f"{len(rows[first])}"
            )
        array = rows
    try:
        matrix = np.ascontiguousarray(array, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{name} must be numbers, got {value!r:.80}") from exc
    if matrix.ndim == 1 and matrix.size == 0:
        return np.empty((0, dimension or 0), dtype=np.float32)
    if matrix.ndim != 2:
        raise ValidationError(f"{name} must be two-dimensional (n, dim), got shape {matrix.shape}")
    if dimension is not None and matrix.shape[0] and matrix.shape[1] != dimension:
        raise DimensionMismatchError(
            f"{name} have dimension {matrix.shape[1]}, expected {dimension}"
        )
    if matrix.shape[0] and matrix.shape[1] == 0:
        raise ValidationError(f"{name} have dimension 0; expected at least one number per row")
    finite = np.isfinite(matrix).all(axis=1)
    if not finite.all():
        row = int(np.flatnonzero(~finite)[0])
        raise ValidationError(f"{name} row {row} contains NaN or infinite values")
    return matrix
