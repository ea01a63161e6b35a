"""MLIR memref descriptors built from, and copied into, numpy arrays.

A ranked memref descriptor as MLIR's LLVM lowering lays it out is a run of
64-bit words: allocated pointer, aligned pointer, offset, then `rank` sizes and
`rank` strides (in elements). An unranked descriptor is `{rank, pointer to a
ranked descriptor}`.
"""

import ctypes

import numpy as np


class UnrankedMemRef(ctypes.Structure):
    """MLIR's unranked memref descriptor: the rank and a pointer to the ranked one."""

    _fields_ = [("rank", ctypes.c_int64), ("descriptor", ctypes.c_void_p)]


def ranked_descriptor_of(array: np.ndarray) -> ctypes.Array:
    """A ranked descriptor viewing the C-contiguous `array` (which must outlive it)."""
    strides = [stride // array.itemsize for stride in array.strides]
    words = [array.ctypes.data, array.ctypes.data, 0, *array.shape, *strides]
    return (ctypes.c_int64 * len(words))(*words)


def copy_out_unranked(unranked: UnrankedMemRef, dtype: np.dtype) -> np.ndarray:
    """A freshly owned numpy copy of the memref `unranked` points to, of element `dtype`."""
    rank = unranked.rank
    words = (ctypes.c_int64 * (3 + 2 * rank)).from_address(unranked.descriptor)
    aligned, offset = words[1], words[2]
    shape = tuple(words[3 : 3 + rank])
    strides = tuple(words[3 + rank : 3 + 2 * rank])
    if 0 in shape:
        return np.empty(shape, dtype)
    if dtype.type.__module__.startswith("ml_dtypes") and dtype.itemsize in (1, 2):
        # numpy's strided views cannot rebuild some ml_dtypes types (float8_e5m2's
        # array interface says '<f1'): copied as unsigned integers of their width.
        return copy_out_unranked(unranked, np.dtype(f"u{dtype.itemsize}")).view(dtype)
    first, last = _element_span(shape, strides)
    start = aligned + (offset + first) * dtype.itemsize
    memory = (ctypes.c_char * ((last - first + 1) * dtype.itemsize)).from_address(start)
    view = np.lib.stride_tricks.as_strided(
        np.frombuffer(memory, dtype)[-first:],
        shape=shape,
        strides=[stride * dtype.itemsize for stride in strides],
    )
    return np.array(view, order="C")


def _element_span(shape, strides) -> tuple[int, int]:
    """The lowest and highest element offsets a non-empty strided view touches."""
    first = sum((size - 1) * stride for size, stride in zip(shape, strides) if stride < 0)
    last = sum((size - 1) * stride for size, stride in zip(shape, strides) if stride > 0)
    return first, last
