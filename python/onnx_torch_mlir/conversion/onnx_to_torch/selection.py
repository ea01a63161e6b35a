"""Selections by the data: NonZero and Compress, whose result sizes are the number of true elements.

On Linalg they are `aten.nonzero` (and an `index_select` by it). torch-mlir decomposes
`aten.nonzero` into a cumsum and an `aten.scatter_add`, which neither its TOSA nor its StableHLO
lowering takes. There the positions of the true elements are found by our own ops
(`_true_positions`): as many as the declared result has, else padded to every element and cut to
the number of true elements read at run time (the mechanism of NonMaxSuppression's selected rows:
`aten.slice.Tensor` to `aten.item` of a 0-d count; StableHLO's `real_dynamic_slice`, TOSA's
`tensor.extract_slice` after the ops that read the rows, transforms/torch/dynamic_rows.py). The
padding repeats the last position, so an op reading the padded rows reads nothing out of bounds.

The number of elements may be known only at run time on StableHLO (a detector on a dynamic image
size): the positions are then padded to that run-time number (`_true_positions_of_run_time_length`),
with as many steps as a count below 2**31 needs, and the ops after the cut find the padded rows of
a run-time size (padded_rows.py). TOSA's shapes are compile-time constants, so there the number of
elements must be static (`--dim`); XLA, which compiles static shapes only, takes the static form.
"""

from __future__ import annotations

import numpy as np

from .builder import TorchBuilder
from .node import OnnxNode
from .padded_rows import PADDED_COUNT_TARGETS
from .registry import converts

# Positions padded to a run-time number of elements: binary steps for every count an si32 prefix
# count holds.
RUN_TIME_LENGTH_BITS = 31
# The targets that take the padded positions of a run-time number of elements.
RUN_TIME_LENGTH_TARGETS = ("stablehlo",)


@converts("NonZero", since=9)
def non_zero(node: OnnxNode, b: TorchBuilder):
    """Indices of the non-zero elements, [rank, count] (aten.nonzero gives [count, rank])."""
    x = node.input(0)
    rank = node.rank(0)
    if node.target in PADDED_COUNT_TARGETS and rank > 0:
        return _non_zero_padded(node, b, x)
    found = b.op("aten.nonzero", b.tensor_type([None, rank], "si64"), x)
    # The declared result type may be more static than [rank, ?]: the driver casts to it.
    return b.op("aten.transpose.int", b.tensor_type([rank, None], "si64"), found, b.constant_int(0), b.constant_int(1))


@converts("Compress", since=9)
def compress(node: OnnxNode, b: TorchBuilder):
    """Slices of `input` along `axis` (flattened input if absent) where `condition` is true;
    `condition` may be shorter than the axis. Negative axis from opset 11."""
    x, condition = node.input(0), node.input(1)
    rank = node.rank(0)
    axis = node.attr_int("axis", None)
    if axis is None:
        x, axis = b.flatten(x), 0
    else:
        axis = node.axis(axis, rank)
    condition = b.flatten(condition)
    if node.target in PADDED_COUNT_TARGETS:
        n = b.info(condition).sizes[0]
        hits = b.to_dtype(condition, "i1")
        if n is None:
            _require_run_time_length_target(node, "the condition's length is known only at run time: on "
                                            f"{node.target} the selected positions are computed padded to it, fix it")
            chosen = _cut_to_count(b, _true_positions_of_run_time_length(b, hits), 0, hits)
        else:
            declared = (node.result_info().sizes or [None] * (axis + 1))[axis]
            chosen = _true_positions(b, hits, n if declared is None else declared)
            if declared is None:
                chosen = _cut_to_count(b, chosen, 0, hits)
    else:
        chosen = b.flatten(b.op("aten.nonzero", b.tensor_type([None, 1], "si64"), condition))
    return b.op("aten.index_select", node.result_type(), x, b.constant_int(axis), chosen)


def _require_run_time_length_target(node: OnnxNode, reason: str) -> None:
    if node.target not in RUN_TIME_LENGTH_TARGETS:
        node.fail(f"{reason} with --dim NAME=SIZE (TOSA's shapes are compile-time constants; the number selected "
                  "may stay data-dependent)")


def _non_zero_padded(node: OnnxNode, b: TorchBuilder, x):
    """NonZero on TOSA and StableHLO: the flat positions of the non-zero elements, as coordinates
    ([rank, count]), as many as the declared count, else padded to the number of elements and cut
    to the count."""
    sizes = node.input_sizes(0)
    flat = b.flatten(x)
    if None in sizes:
        _require_run_time_length_target(node, f"input sizes {sizes}: on {node.target} the positions are computed "
                                        "padded to the number of elements, which must be static: fix the dims")
        hits = b.op("aten.ne.Scalar", b.tensor_type([None], "i1"), flat, b.constant_int(0))
        positions = _true_positions_of_run_time_length(b, hits)
        return _cut_to_count(b, _coordinates_of_run_time_sizes(b, positions, b.dims(x)), 1, hits)
    rank = len(sizes)
    n = int(np.prod(sizes))
    declared = (node.result_info().sizes or [None, None])[1]
    count = n if declared is None else declared
    hits = b.op("aten.ne.Scalar", b.tensor_type([n], "i1"), flat, b.constant_int(0))
    positions = _true_positions(b, hits, count)
    coordinates = np.stack(np.indices(sizes).reshape(rank, -1), axis=1).astype(np.int64)
    picked = b.op("aten.index_select", b.tensor_type([count, rank], "si64"), b.literal(coordinates, "si64"),
                  b.constant_int(0), positions)
    transposed = b.op("aten.transpose.int", b.tensor_type([rank, count], "si64"), picked, b.constant_int(0),
                      b.constant_int(1))
    return transposed if declared is not None else _cut_to_count(b, transposed, 1, hits)


def _inclusive_prefix_sum(b: TorchBuilder, x):
    """prefix[i] = x[0] + ... + x[i] of a 1-D si32 tensor of static length n: log2(n) shifted sums
    (Hillis and Steele), O(n log n) static ops where a triangular product is O(n^2)."""
    n = b.info(x).sizes[0]
    shift = 1
    while shift < n:
        head = b.full([shift], 0, "si32")
        tail = b.slice_range(x, 0, 0, n - shift)
        shifted = b.op("aten.cat", x.type, b.tensor_list([head, tail]), b.constant_int(0))
        x = b.binary("aten.add.Tensor", x, shifted)
        shift *= 2
    return x


def _true_positions(b: TorchBuilder, hits, count: int):
    """The positions of the first `count` true elements of the 1-D i1 `hits` [n], as si64 [count].
    With prefix[i] the number of true elements in hits[0..i], the j-th true element (from 0) sits at
    the number of i with prefix[i] <= j, found by a binary search over the monotone prefix (one
    gather of [count] positions per bit of n). A rank past the true elements gets the last position
    (n - 1), so no op reads out of bounds on padding."""
    n = b.info(hits).sizes[0]
    prefix = _inclusive_prefix_sum(b, b.to_dtype(hits, "si32"))
    wanted = b.arange(count, count, "si32")  # j: find the first i with prefix[i] > j
    position = b.full([count], 0, "si32")
    step = 1
    while step * 2 <= n:
        step *= 2
    while step >= 1:
        candidate = b.op("aten.add.Scalar", position.type, position, b.constant_int(step), b.constant_int(1))
        inside = b.op("aten.le.Scalar", b.tensor_type([count], "i1"), candidate, b.constant_int(n))
        probe = b.op("aten.clamp", position.type, b.op("aten.sub.Scalar", position.type, candidate, b.constant_int(1),
                                                        b.constant_int(1)), b.constant_int(0), b.constant_int(n - 1))
        seen = b.op("aten.index_select", b.tensor_type([count], "si32"), prefix, b.constant_int(0),
                    b.to_dtype(probe, "si64"))
        before = b.op("aten.le.Tensor", b.tensor_type([count], "i1"), seen, wanted)
        advance = b.op("aten.logical_and", b.tensor_type([count], "i1"), inside, before)
        position = b.op("aten.where.self", position.type, advance, candidate, position)
        step //= 2
    last = b.literal(np.array(max(n - 1, 0), np.int32), "si32")
    position = b.op("aten.minimum", position.type, position, last)
    return b.to_dtype(position, "si64")


def _shifted_sum_of_run_time_length(b: TorchBuilder, x, index, shift: int):
    """x[i] + x[i - shift] (x[i] for i < shift) of a 1-D si32 `x` of run-time length, `index` its
    positions (si64): a gather, as the slices of a run-time length would be."""
    source = b.op("aten.sub.Scalar", index.type, index, b.constant_int(shift), b.constant_int(1))
    inside = b.op("aten.ge.Scalar", b.tensor_type([None], "i1"), source, b.constant_int(0))
    source = b.op("aten.where.self", index.type, inside, source, b.full([1], 0, "si64"))
    shifted = b.op("aten.index_select", x.type, x, b.constant_int(0), source)
    shifted = b.op("aten.where.self", x.type, inside, shifted, b.full([1], 0, "si32"))
    return b.binary("aten.add.Tensor", x, shifted)


def _true_positions_of_run_time_length(b: TorchBuilder, hits):
    """`_true_positions` of a 1-D i1 `hits` of run-time length n, padded to n (si64 [?]): the same
    prefix count and binary search with a fixed number of steps, RUN_TIME_LENGTH_BITS, each over n
    positions (a step beyond n changes nothing), as no op can loop a run-time number of times
    over shapes that stay static inside (StableHLO's while loops carry one type)."""
    n = b.dim(hits, 0)
    index = b.arange(n)
    prefix = b.to_dtype(hits, "si32")
    for bit in range(RUN_TIME_LENGTH_BITS):
        prefix = _shifted_sum_of_run_time_length(b, prefix, index, 1 << bit)
    wanted = b.to_dtype(index, "si32")  # j: find the first i with prefix[i] > j
    mask_type = b.tensor_type([None], "i1")
    position = b.full([n], 0, "si64")
    for bit in reversed(range(RUN_TIME_LENGTH_BITS)):
        candidate = b.op("aten.add.Scalar", position.type, position, b.constant_int(1 << bit), b.constant_int(1))
        inside = b.op("aten.le.Scalar", mask_type, candidate, n)
        probe = b.op("aten.sub.Scalar", position.type, candidate, b.constant_int(1), b.constant_int(1))
        probe = b.op("aten.where.self", position.type, inside, probe, b.full([1], 0, "si64"))
        seen = b.op("aten.index_select", prefix.type, prefix, b.constant_int(0), probe)
        before = b.op("aten.le.Tensor", mask_type, seen, wanted)
        advance = b.op("aten.logical_and", mask_type, inside, before)
        position = b.op("aten.where.self", position.type, advance, candidate, position)
    past = b.op("aten.eq.Scalar", mask_type, position, n)  # a rank past the true elements: the last position
    earlier = b.op("aten.sub.Scalar", position.type, position, b.constant_int(1), b.constant_int(1))
    return b.op("aten.where.self", position.type, past, earlier, position)


def _coordinates_of_run_time_sizes(b: TorchBuilder, positions, dims: list):
    """[rank, ?] si64: the coordinates of the flat `positions` in a tensor of `dims` (row-major),
    each (position // stride) % dim."""
    rank = len(dims)
    rows = []
    for axis in range(rank):
        stride = b.dim_product(dims[axis + 1:])
        coordinate = positions
        if not isinstance(stride, int) or stride != 1:
            coordinate = b.op("aten.floor_divide.Scalar", positions.type, coordinate, b.dim_value(stride))
        if axis > 0:
            coordinate = b.op("aten.remainder.Scalar", positions.type, coordinate, b.dim_value(dims[axis]))
        rows.append(b.unsqueeze(coordinate, 0))
    if rank == 1:
        return rows[0]
    return b.op("aten.cat", b.tensor_type([rank, None], "si64"), b.tensor_list(rows), b.constant_int(0))


def _cut_to_count(b: TorchBuilder, padded, dim: int, hits):
    """`padded` cut along `dim` to the number of true `hits`, read at run time."""
    total = b.to_dtype(b.op("aten.sum", b.tensor_type([], "si32"), b.to_dtype(hits, "si32"), b.dtype("si32")), "si64")
    sizes = list(b.info(padded).sizes)
    sizes[dim] = None
    return b.op("aten.slice.Tensor", b.tensor_type(sizes, b.info(padded).element), padded, b.constant_int(dim),
                b.constant_int(0), b.item(total), b.constant_int(1))
