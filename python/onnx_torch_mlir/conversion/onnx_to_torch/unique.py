"""Unique (opset 11): the distinct elements (or slices along `axis`), sorted or in order of
first occurrence, with their first indices, the inverse indices and the counts.

Written with comparisons of every pair of slices instead of a sort (torch-mlir lowers no
`aten.unique*`): for N slices of M elements,
- `same[i, j]`: slices i and j are equal; `before[i, j]`: slice i sorts before slice j
  (lexicographically: at the first element where they differ, i's is smaller);
- a slice is a *first occurrence* when no earlier slice equals it;
- its rank is the number of first occurrences that sort before it (sorted) or whose first
  occurrence comes earlier (not sorted): the inverse index, the same for equal slices;
- output k is the first occurrence of rank k: an index_select of X; counts count the ranks.
Float NaNs are equal to each other and sort after every number, as in ONNX's reference.
The N candidate rows are cut to the number of distinct slices U: the declared size when an
output declares it, else U read at run time (`aten.item`): Linalg and StableHLO take the
data-dependent size (StableHLO cuts the N candidates with a `real_dynamic_slice`; the item becomes
an `aten.Int.Tensor` in `transforms/stablehlo/torch_forms.py`), TOSA refuses it. Slices other than
along the axis need a static size and N must be static.
"""

from __future__ import annotations

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _as_rows(node: OnnxNode, b: TorchBuilder, x: ir.Value, axis: int | None) -> ir.Value:
    """X as [N, M]: one row per element (no axis) or per slice along `axis`."""
    info = b.info(x)
    if axis is None:
        count = None if None in info.sizes else int(_product(info.sizes))
        if count is None:
            node.fail("without 'axis' the input must have a static shape")
        return b.reshape(x, [count, 1], [count, 1])
    if info.sizes[axis] is None or any(s is None for i, s in enumerate(info.sizes) if i != axis):
        node.fail("the input must have a static shape")
    if axis != 0:
        sizes = list(info.sizes)
        sizes[0], sizes[axis] = sizes[axis], sizes[0]
        x = b.op("aten.transpose.int", b.tensor_type(sizes, info.element), x, b.constant_int(0), b.constant_int(axis))
    count = info.sizes[axis]
    width = int(_product(info.sizes)) // count if count else 0
    return b.reshape(x, [count, width], [count, width])


def _product(sizes) -> int:
    result = 1
    for size in sizes:
        result *= size
    return result


def _count_true(b: TorchBuilder, mask: ir.Value, dim: int) -> ir.Value:
    """The number of true values of `mask` along `dim` (si64, dim dropped)."""
    as_int = b.to_dtype(mask, "si64")
    return b.op("aten.sum.dim_IntList", b.reduced_type(as_int, [dim], False), as_int, b.int_list([dim]),
                b.constant_bool(False), b.constant_none())


def _pair_tables(b: TorchBuilder, rows: ir.Value, count: int, width: int):
    """(same [N, N], before [N, N]) for rows [N, M]."""
    left, right = b.unsqueeze(rows, 1), b.unsqueeze(rows, 0)
    cube = [count, count, width]
    equal = b.op("aten.eq.Tensor", b.tensor_type(cube, "i1"), left, right)
    smaller = b.op("aten.lt.Tensor", b.tensor_type(cube, "i1"), left, right)
    if b.info(rows).is_float:
        # As ONNX's reference (numpy): NaNs are equal to each other and sort after every number.
        left_nan, right_nan = (b.op("aten.ne.Tensor", b.tensor_type(b.info(v).sizes, "i1"), v, v)
                               for v in (left, right))
        both = b.op("aten.logical_and", b.tensor_type(cube, "i1"), left_nan, right_nan)
        equal = b.op("aten.logical_or", equal.type, equal, both)
        number_before_nan = b.op("aten.logical_and", b.tensor_type(cube, "i1"),
                                 b.op("aten.logical_not", left_nan.type, left_nan), right_nan)
        smaller = b.op("aten.logical_or", smaller.type, smaller, number_before_nan)
    differ = b.op("aten.logical_not", b.tensor_type(cube, "i1"), equal)
    pair = b.tensor_type([count, count], "i1")
    same = b.op("aten.eq.Scalar", pair, _count_true(b, differ, 2), b.constant_int(0))
    # Differences before element m: a sum over m' < m of the broadcast [N, N, M', M] product.
    positions = b.arange(width)
    earlier = b.op("aten.lt.Tensor", b.tensor_type([width, width], "i1"), b.unsqueeze(positions, 1), positions)
    spread = b.op("aten.logical_and", b.tensor_type([count, count, width, width], "i1"), b.unsqueeze(differ, 3),
                  earlier)
    differences_before = _count_true(b, spread, 2)
    first_difference = b.op("aten.logical_and", b.tensor_type(cube, "i1"), differ,
                            b.op("aten.eq.Scalar", b.tensor_type(cube, "i1"), differences_before, b.constant_int(0)))
    decided = b.op("aten.logical_and", b.tensor_type(cube, "i1"), first_difference, smaller)
    before = b.op("aten.gt.Scalar", pair, _count_true(b, decided, 2), b.constant_int(0))
    return same, before


def _unique(node: OnnxNode, b: TorchBuilder, axis: int | None, sorted_: bool):
    x = node.input(0)
    rows = _as_rows(node, b, x, axis)
    count, width = b.info(rows).sizes
    if count == 0:
        node.fail("an empty input is not supported")
    same, before = _pair_tables(b, rows, count, width)
    pair = b.tensor_type([count, count], "i1")
    vector = b.tensor_type([count], "si64")
    positions = b.arange(count)
    column, row = b.unsqueeze(positions, 0), b.unsqueeze(positions, 1)
    earlier = b.op("aten.lt.Tensor", pair, column, row)  # [i, j]: j < i
    repeated = b.op("aten.logical_and", pair, same, earlier)
    first = b.op("aten.eq.Scalar", b.tensor_type([count], "i1"), _count_true(b, repeated, 1), b.constant_int(0))
    first_row = b.unsqueeze(first, 0)  # [1, j]
    if sorted_:
        # rank[i] = #{first occurrences j that sort before slice i}: before[j, i].
        precedes = b.op("aten.transpose.int", before.type, before, b.constant_int(0), b.constant_int(1))
    else:
        # rank[i] = #{first occurrences j earlier than the first occurrence of slice i}.
        candidates = b.op("aten.where.ScalarOther", b.tensor_type([count, count], "si64"), same, column,
                          b.constant_int(count))
        first_index = b.op("aten.amin", b.tensor_type([count, 1], "si64"), candidates, b.int_list([1]),
                           b.constant_bool(True))
        precedes = b.op("aten.lt.Tensor", pair, column, first_index)
    rank = _count_true(b, b.op("aten.logical_and", pair, precedes, first_row), 1)  # the inverse indices
    # chosen[k, i]: slice i is the first occurrence of rank k.
    outputs = b.unsqueeze(positions, 1)
    chosen = b.op("aten.logical_and", pair, b.op("aten.eq.Tensor", pair, outputs, b.unsqueeze(rank, 0)), first_row)
    chosen_indices = b.op("aten.where.ScalarOther", b.tensor_type([count, count], "si64"), chosen, column,
                          b.constant_int(0))
    indices = b.op("aten.sum.dim_IntList", vector, chosen_indices, b.int_list([1]), b.constant_bool(False),
                   b.constant_none())
    counts = _count_true(b, b.op("aten.eq.Tensor", pair, outputs, b.unsqueeze(rank, 0)), 1)
    distinct = _distinct_count(node, b, first, axis)
    indices = _first(b, indices, distinct)
    counts = _first(b, counts, distinct)
    info = b.info(x)
    y_sizes = [b.static_dim(distinct)] if axis is None else [
        b.static_dim(distinct) if i == axis else s for i, s in enumerate(info.sizes)]
    source = b.flatten(x) if axis is None else x
    y = b.op("aten.index_select", b.tensor_type(y_sizes, info.element), source, b.constant_int(0 if axis is None
                                                                                              else axis), indices)
    results = [y, indices, rank, counts]
    return [b.cast_to(value, node.result_type(i)) if i < node.num_results and node.result_is_used(i) else None
            for i, value in enumerate(results)][: node.num_results]


def _distinct_count(node: OnnxNode, b: TorchBuilder, first: ir.Value, axis: int | None):
    """U: the declared size of an output along the unique dim, else `aten.item` of the count."""
    for index, dim in ((0, 0 if axis is None else axis), (1, 0), (3, 0)):
        if index < node.num_results and node.result_is_used(index):
            sizes = node.result_info(index).sizes
            if sizes is not None and len(sizes) > dim and sizes[dim] is not None:
                return sizes[dim]
    if node.target == "tosa":
        node.fail("the number of distinct values is known only at run time (declare it in an output's shape): "
                  "tosa needs static shapes")
    total = b.op("aten.sum", b.tensor_type([], "si64"), b.to_dtype(first, "si64"), b.constant_none())
    return b.item(total)


def _first(b: TorchBuilder, vector: ir.Value, distinct) -> ir.Value:
    """vector[0:distinct] (`distinct` an int or a `!torch.int`)."""
    info = b.info(vector)
    return b.op("aten.slice.Tensor", b.tensor_type([b.static_dim(distinct)], info.element), vector,
                b.constant_int(0), b.constant_int(0), b.dim_value(distinct), b.constant_int(1))


@converts("Unique", since=11)
def unique(node: OnnxNode, b: TorchBuilder):
    """Y, indices, inverse_indices, counts of the distinct elements (no `axis`: of the flattened
    input) or slices along `axis`; `sorted` (default 1) orders them ascending, else by first
    occurrence."""
    axis = node.attr_int("axis", None)
    if axis is not None:
        axis = node.axis(axis, node.rank())
    return _unique(node, b, axis, bool(node.attr_int("sorted")))
