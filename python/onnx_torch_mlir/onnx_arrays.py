"""ONNX semantics on numpy arrays, shared by the importer's shape values and the conversion's fold.

Both evaluate the same small ops on known values (the importer on arrays of ints and dim
names, the conversion on literals); what ONNX specifies for them is written once, here.
"""

from __future__ import annotations

import numpy as np


def unsqueeze(array: np.ndarray, axes) -> np.ndarray:
    """Unsqueeze: a size-1 dim at each of `axes`, counted in the result's rank (negative from the back)."""
    rank = array.ndim + len(axes)
    for axis in sorted(axis + rank if axis < 0 else axis for axis in axes):
        array = np.expand_dims(array, axis)
    return array


def slice_positions(start: int, end: int, step: int, size: int) -> np.ndarray:
    """The positions ONNX's Slice takes along a dim of `size`.

    Python's slice.indices clamps exactly as ONNX specifies for either sign of step, but its
    stop may be -1 ("before the first element" for a negative step), which a slice would read
    as the last element: so the positions are a range, not a slice.
    """
    return np.arange(*slice(start, end, step).indices(size), dtype=np.int64)
