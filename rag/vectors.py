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


def _to_float32(array: Any, name: str) -> np.ndarray:
    try:
        return np.ascontiguousarray(array, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValidationError(f"{name} must be numbers, got {array!r:.80}") from exc


def _raise_ragged(rows: list, name: str) -> None:
    """Name the first row whose length differs from row 0 (only called on failure)."""
    try:
        lengths = [len(row) for row in rows]
    except TypeError:
        return
    first = next((i for i, length in enumerate(lengths) if length != lengths[0]), None)
    if first is not None:
        raise DimensionMismatchError(
            f"{name} are ragged: row 0 has {lengths[0]} numbers, row {first} has {lengths[first]}"
        )


def as_matrix(value: Any, *, dimension: int | None = None, name: str = "vectors") -> np.ndarray:
    """``value`` as a contiguous float32 array of shape (n, dimension), finite, n >= 0.

    Rows of a ragged list, a wrong dimension or NaN/inf entries raise a clear error naming
    the first offending row.
    """
    if isinstance(value, np.ndarray):
        matrix = _to_float32(value, name)
    else:
        rows = value if isinstance(value, list) else list(value)
        if not rows:
            return np.empty((0, dimension or 0), dtype=np.float32)
        try:
            # np.stack copies a list of numpy rows several times faster than np.asarray.
            stacked = np.stack(rows) if isinstance(rows[0], np.ndarray) else rows
            matrix = _to_float32(stacked, name)
        except ValueError:  # includes ValidationError; ragged rows get the precise message
            _raise_ragged(rows, name)
            raise
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
    # One float64 sum (cannot overflow from float32 inputs) is non-finite iff some entry is;
    # only then look for the row, so the common case makes no n x d temporary.
    if not np.isfinite(matrix.sum(dtype=np.float64)):
        finite = np.isfinite(matrix).all(axis=1)
        row = int(np.flatnonzero(~finite)[0])
        raise ValidationError(f"{name} row {row} contains NaN or infinite values")
    return matrix
