"""Along one axis: ArgMax, ArgMin, CumSum, CumProd, TopK.

torch-mlir lowers neither `aten.cumsum`, `aten.cumprod` nor a sort-based `aten.topk`
to every backend: CumSum is a triangular-mask product and sum, CumProd a triangular-mask
select and product, and TopK with a small static k selects one extremum at a time. A
CumSum or CumProd axis known only at run time computes every candidate axis and selects
the one the axis names.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import defining_op, highest_value, lowest_value


# -- ArgMax, ArgMin -----------------------------------------------------------------
def _arg_extremum(node: OnnxNode, b: TorchBuilder, torch_op: str, select_last_index: bool):
    x = node.input(0)
    rank = node.rank()
    if rank == 0:
        node.fail("needs an input of rank >= 1")
    info = node.input_info(0)
    axis = node.axis(node.attr_int("axis"), rank)
    keepdim = bool(node.attr_int("keepdims"))
    if info.is_bool:
        x = b.to_dtype(x, "si32")
    result_type = b.reduced_type(x, [axis], keepdim, "si64")
    if not select_last_index:
        return b.op(torch_op, result_type, x, b.constant_int(axis), b.constant_bool(keepdim))
    # The last extremum is the first one of the flipped input, counted from the end.
    flipped = b.op("aten.flip", x.type, x, b.int_list([axis]))
    index = b.op(torch_op, result_type, flipped, b.constant_int(axis), b.constant_bool(keepdim))
    last = b.dim_value(b.dim_sub(b.dim(x, axis), 1))
    return b.op("aten.rsub.Scalar", result_type, index, last, b.constant_int(1))


@converts("ArgMax", since=1)
def arg_max(node: OnnxNode, b: TorchBuilder):
    """Index of the first maximum along `axis` (negative axes from opset 11)."""
    return _arg_extremum(node, b, "aten.argmax", False)


@converts("ArgMax", since=12)
def arg_max_select_last_index(node: OnnxNode, b: TorchBuilder):
    """Opset 12 adds `select_last_index`: the last maximum instead of the first."""
    return _arg_extremum(node, b, "aten.argmax", bool(node.attr_int("select_last_index")))


@converts("ArgMin", since=1)
def arg_min(node: OnnxNode, b: TorchBuilder):
    return _arg_extremum(node, b, "aten.argmin", False)


@converts("ArgMin", since=12)
def arg_min_select_last_index(node: OnnxNode, b: TorchBuilder):
    return _arg_extremum(node, b, "aten.argmin", bool(node.attr_int("select_last_index")))


# -- CumSum, CumProd -----------------------------------------------------------------
def _cumulative_mask(b: TorchBuilder, x: ir.Value, axis: int, exclusive: bool, reverse: bool, weights: bool):
    """(mask, spread): `mask[i, j, 1...]` admits X[i] into Y[j] (as 0/1 of X's type with
    `weights`, else i1); `spread` is X with a size-1 dim after `axis`, so that `spread` and
    `mask` broadcast to [..., i, j, ...]."""
    info = b.info(x)
    length = info.sizes[axis]
    positions = b.arange(b.dim(x, axis))
    rows = b.unsqueeze(positions, 1)
    compare = {(False, False): "aten.le.Tensor", (True, False): "aten.lt.Tensor",
               (False, True): "aten.ge.Tensor", (True, True): "aten.gt.Tensor"}[(exclusive, reverse)]
    mask = b.op(compare, b.tensor_type([length, length], "i1"), rows, positions)
    if weights:
        mask = b.to_dtype(mask, "si64" if info.is_bool else info.element)
    for _ in range(info.rank - axis - 1):
        mask = b.unsqueeze(mask, -1)
    spread = b.unsqueeze(x if not info.is_bool else b.to_dtype(x, "si64"), axis + 1)
    return mask, spread


def _cumsum_along(b: TorchBuilder, x: ir.Value, axis: int, exclusive: bool, reverse: bool) -> ir.Value:
    """Y[j] = sum of X[i] over the i that `mask[i, j]` admits, as a broadcast product and a sum.

    Written without `aten.cumsum`, which torch-mlir lowers to no backend; one triangular
    mask covers the exclusive and reverse forms too, and dynamic sizes work the same.
    """
    info = b.info(x)
    mask, spread = _cumulative_mask(b, x, axis, exclusive, reverse, weights=True)
    sizes = list(info.sizes)
    products = b.op("aten.mul.Tensor", b.tensor_type(sizes[: axis + 1] + [sizes[axis]] + sizes[axis + 1:],
                                                     b.info(mask).element), spread, mask)
    return b.op("aten.sum.dim_IntList", b.tensor_type(sizes, b.info(mask).element), products, b.int_list([axis]),
                b.constant_bool(False), b.constant_none())


def _cumprod_along(b: TorchBuilder, x: ir.Value, axis: int, exclusive: bool, reverse: bool) -> ir.Value:
    """Y[j] = product of X[i] over the i that `mask[i, j]` admits (1 elsewhere): a select and
    `aten.prod.dim_int` (torch-mlir lowers `aten.cumprod` to no backend)."""
    info = b.info(x)
    mask, spread = _cumulative_mask(b, x, axis, exclusive, reverse, weights=False)
    element = b.info(spread).element
    sizes = list(info.sizes)
    admitted = b.op("aten.where.ScalarOther", b.tensor_type(sizes[: axis + 1] + [sizes[axis]] + sizes[axis + 1:],
                                                            element), mask, spread, b.constant_scalar(1, element))
    return b.op("aten.prod.dim_int", b.tensor_type(sizes, element), admitted, b.constant_int(axis),
                b.constant_bool(False), b.constant_none())


def _cumulative(node: OnnxNode, b: TorchBuilder, along):
    """`along` over the scalar `axis` input; `exclusive` drops the element itself, `reverse`
    runs from the end. A runtime axis computes each candidate axis and selects."""
    x = node.input(0)
    rank = node.rank()
    if rank == 0:
        node.fail("needs an input of rank >= 1")
    exclusive, reverse = bool(node.attr_int("exclusive")), bool(node.attr_int("reverse"))
    constant = node.constant_input(1)
    if constant is not None:
        axes = [node.axis(int(constant.reshape(-1)[0]), rank)]
    else:
        axes = list(range(rank))
    result = along(b, x, axes[-1], exclusive, reverse)
    axis_input = node.input(1) if len(axes) > 1 else None
    for axis in reversed(axes[:-1]):
        candidate = along(b, x, axis, exclusive, reverse)
        scalar_bool = b.tensor_type(b.info(axis_input).sizes, "i1")
        hit = b.op("aten.logical_or", scalar_bool,
                   b.op("aten.eq.Scalar", scalar_bool, axis_input, b.constant_int(axis)),
                   b.op("aten.eq.Scalar", scalar_bool, axis_input, b.constant_int(axis - rank)))
        result = b.op("aten.where.self", result.type, hit, candidate, result)
    return b.to_dtype(result, node.result_info().element)


@converts("CumSum", since=11)
def cum_sum(node: OnnxNode, b: TorchBuilder):
    """Cumulative sum along the scalar `axis` input."""
    return _cumulative(node, b, _cumsum_along)


@converts("CumProd", since=26)
def cum_prod(node: OnnxNode, b: TorchBuilder):
    """Cumulative product along the scalar `axis` input (as CumSum)."""
    return _cumulative(node, b, _cumprod_along)


# -- TopK -----------------------------------------------------------------------------
# Up to this k a static TopK selects one extremum at a time instead of sorting: every backend
# lowers that, where torch-mlir's sort-based topk reaches no TOSA or StableHLO program.
MAX_SELECTION_K = 8


def _top_k(node: OnnxNode, b: TorchBuilder, k, largest: bool, sorted_: bool):
    """`k` is an int when known statically, else a `!torch.int`."""
    x = node.input(0)
    info = node.input_info(0)
    axis = node.axis(node.attr_int("axis"), node.rank())
    values_type, indices_type = node.result_type(0), node.result_type(1)
    if isinstance(k, int) and 0 < k <= MAX_SELECTION_K and (info.is_float or info.element.startswith("si")):
        return _top_k_by_selection(b, x, k, axis, largest)
    if node.target == "tosa" and isinstance(k, int) and 0 < k <= MAX_SELECTION_K and info.element.startswith("ui"):
        return _unsigned_top_k_by_selection(b, x, k, axis, largest)
    if node.target == "tosa" and info.is_float and info.sizes is not None and None not in info.sizes:
        return _top_k_by_sorting_network(b, x, k, axis, largest)
    return b.op("aten.topk", [values_type, indices_type], x, b.dim_value(k), b.constant_int(axis),
                b.constant_bool(largest), b.constant_bool(sorted_))


def _top_k_by_sorting_network(b: TorchBuilder, x: ir.Value, k, axis: int, largest: bool):
    """TopK on TOSA beyond a few selections, or with a k known only at run time (torch-mlir's
    sort-based topk reaches no TOSA program past small sizes): the whole axis sorted by a bitonic
    network, then its first k. A k read at run time cuts the sorted axis to `aten.item` of a 0-d
    count, the form of the other data-dependent sizes (transforms/torch/dynamic_rows.py)."""
    values, indices = _sorted_by_network(b, x, axis, largest)
    info = b.info(values)
    if isinstance(k, int):
        return b.slice_range(values, axis, 0, k), b.slice_range(indices, axis, 0, k)
    sizes = list(info.sizes)
    sizes[axis] = None
    item = defining_op(k)
    if item is None or item.name != "torch.aten.item":
        return b.op("aten.slice.Tensor", b.tensor_type(sizes, info.element), values, b.constant_int(axis),
                    b.constant_int(0), k, b.constant_int(1)), \
            b.op("aten.slice.Tensor", b.tensor_type(sizes, "si64"), indices, b.constant_int(axis), b.constant_int(0), k,
                 b.constant_int(1))
    count = b.to_dtype(item.operands[0], "si64")
    cut = [b.op("aten.slice.Tensor", b.tensor_type(sizes, b.info(value).element), value, b.constant_int(axis),
                b.constant_int(0), b.item(count), b.constant_int(1)) for value in (values, indices)]
    return cut[0], cut[1]


def _sorted_by_network(b: TorchBuilder, x: ir.Value, axis: int, largest: bool):
    """(values, si64 indices) of the static `x` sorted along `axis`, largest (or smallest) first and
    equal values in index order. A bitonic sorting network on the axis padded to a power of two P
    (the padding sorts last): log2(P) (log2(P) + 1) / 2 stages of compare-exchanges between the two
    halves of blocks of 2j positions (static reshapes and selects), on (value, index) pairs, so
    the order is total and ties come out as ONNX wants them."""
    info = b.info(x)
    sizes = list(info.sizes)
    rank = len(sizes)
    if axis != rank - 1:
        moved = list(sizes)
        moved[axis], moved[-1] = moved[-1], moved[axis]
        x = b.op("aten.transpose.int", b.tensor_type(moved, info.element), x, b.constant_int(axis), b.constant_int(-1))
    moved_sizes = list(b.info(x).sizes)
    n = moved_sizes[-1]
    rows = int(np.prod(moved_sizes[:-1], dtype=np.int64))
    values = b.reshape(x, [rows, n])
    indices = b.op("aten.broadcast_to", b.tensor_type([rows, n], "si32"), b.unsqueeze(b.arange(n, n, "si32"), 0),
                   b.int_list([rows, n]))
    padded = 1
    while padded < n:
        padded *= 2
    if padded > n:
        sentinel = lowest_value(info.element) if largest else highest_value(info.element)
        values = b.op("aten.cat", b.tensor_type([rows, padded], info.element),
                      b.tensor_list([values, b.full([rows, padded - n], sentinel, info.element)]), b.constant_int(1))
        tail = b.op("aten.broadcast_to", b.tensor_type([rows, padded - n], "si32"),
                    b.unsqueeze(b.literal(np.arange(n, padded, dtype=np.int32), "si32"), 0),
                    b.int_list([rows, padded - n]))
        indices = b.op("aten.cat", b.tensor_type([rows, padded], "si32"), b.tensor_list([indices, tail]),
                       b.constant_int(1))
    block = 2
    while block <= padded:
        half = block // 2
        while half >= 1:
            values, indices = _compare_exchange(b, values, indices, block, half, largest)
            half //= 2
        block *= 2
    values = b.reshape(b.slice_range(values, 1, 0, n), moved_sizes)
    indices = b.reshape(b.to_dtype(b.slice_range(indices, 1, 0, n), "si64"), moved_sizes)
    if axis != rank - 1:
        values = b.op("aten.transpose.int", b.tensor_type(sizes, info.element), values, b.constant_int(axis),
                      b.constant_int(-1))
        indices = b.op("aten.transpose.int", b.tensor_type(sizes, "si64"), indices, b.constant_int(axis),
                       b.constant_int(-1))
    return values, indices


def _compare_exchange(b: TorchBuilder, values, indices, block: int, half: int, largest: bool):
    """One stage of the network: position p and p + half (p's bit `half` clear) are exchanged when
    out of order, the order reversed where p's bit `block` is set (the descending half of a bitonic
    sequence)."""
    rows, padded = b.info(values).sizes
    groups = padded // (2 * half)

    def halves(value):
        element = b.info(value).element
        split = b.reshape(value, [rows, groups, 2, half])
        return [b.op("aten.select.int", b.tensor_type([rows, groups, half], element), split, b.constant_int(2),
                     b.constant_int(position)) for position in (0, 1)]

    (low, high), (low_index, high_index) = halves(values), halves(indices)
    mask = b.tensor_type([rows, groups, half], "i1")
    better = b.op("aten.gt.Tensor" if largest else "aten.lt.Tensor", mask, low, high)
    tie = b.op("aten.logical_and", mask, b.op("aten.eq.Tensor", mask, low, high),
               b.op("aten.lt.Tensor", mask, low_index, high_index))
    in_order = b.op("aten.logical_or", mask, better, tie)
    descending = ((np.arange(groups) * 2 * half) & block) != 0
    swap = b.op("aten.logical_xor", mask, b.op("aten.logical_not", mask, in_order),
                b.literal(descending.reshape(1, groups, 1), "i1"))

    def exchanged(first, second):
        element = b.info(first).element
        kept = b.op("aten.where.self", b.tensor_type([rows, groups, half], element), swap, second, first)
        moved = b.op("aten.where.self", b.tensor_type([rows, groups, half], element), swap, first, second)
        joined = b.op("aten.cat", b.tensor_type([rows, groups, 2 * half], element),
                      b.tensor_list([kept, moved]), b.constant_int(2))
        return b.reshape(joined, [rows, padded])

    return exchanged(low, high), exchanged(low_index, high_index)


def _top_k_by_selection(b: TorchBuilder, x: ir.Value, k: int, axis: int, largest: bool):
    """k rounds of: the extremum of the positions not taken yet, and the first such position
    holding it (ONNX: equal values in index order). The values come out sorted."""
    info = b.info(x)
    extremum = "aten.amax" if largest else "aten.amin"
    sentinel = lowest_value(info.element) if largest else highest_value(info.element)
    sentinel = b.scalar_tensor_literal(sentinel, info.element)
    positions = b.arange(b.dim(x, axis))
    for _ in range(info.rank - axis - 1):
        positions = b.unsqueeze(positions, -1)
    mask_type = b.tensor_type(info.sizes, "i1")
    taken = None
    values, indices = [], []
    for _ in range(k):
        open_values = x if taken is None else b.op("aten.where.self", x.type, taken, sentinel, x)
        best = b.op(extremum, b.reduced_type(open_values, [axis], True), open_values, b.int_list([axis]),
                    b.constant_bool(True))
        eligible = b.op("aten.eq.Tensor", mask_type, x, best)
        if taken is not None:
            eligible = b.op("aten.logical_and", mask_type, eligible, b.op("aten.logical_not", mask_type, taken))
        index = b.op("aten.argmax", b.reduced_type(x, [axis], True, "si64"), b.to_dtype(eligible, "si32"),
                     b.constant_int(axis), b.constant_bool(True))
        chosen = b.op("aten.eq.Tensor", mask_type, positions, index)
        taken = chosen if taken is None else b.op("aten.logical_or", mask_type, taken, chosen)
        values.append(best)
        indices.append(index)
    if k == 1:
        return values[0], indices[0]
    sizes = list(info.sizes)
    sizes[axis] = k
    return (b.op("aten.cat", b.tensor_type(sizes, info.element), b.tensor_list(values), b.constant_int(axis)),
            b.op("aten.cat", b.tensor_type(sizes, "si64"), b.tensor_list(indices), b.constant_int(axis)))


def _unsigned_top_k_by_selection(b: TorchBuilder, x: ir.Value, k: int, axis: int, largest: bool):
    """Unsigned TopK for tosa (TOSA compares signed integers only; torch-mlir's sort-based topk has no
    TOSA lowering): the selection on int64, where the values keep their order. Narrower unsigned
    types widen exactly (TOSA sign-extends them: a mask restores the value); uint64 is reinterpreted
    as int64 with its top bit flipped (x xor 2^63 maps [0, 2^64) onto [-2^63, 2^63) in order), and
    flipped back after."""
    element = b.info(x).element
    wide = b.to_dtype(x, "si64")
    top_bit = b.scalar_tensor_literal(-(2**63), "si64")
    if element == "ui64":
        wide = b.op("aten.bitwise_xor.Tensor", wide.type, wide, top_bit)
    else:
        wide = b.op("aten.bitwise_and.Scalar", wide.type, wide, b.constant_int((1 << int(element[2:])) - 1))
    values, indices = _top_k_by_selection(b, wide, k, axis, largest)
    if element == "ui64":
        values = b.op("aten.bitwise_xor.Tensor", values.type, values, top_bit)
    return b.to_dtype(values, element), indices


def _k_from_input(node: OnnxNode, b: TorchBuilder):
    """k: a literal, else the declared result size along the axis, else read at runtime."""
    if node.constant_input(1) is not None:
        return node.scalar_input(1, b)
    result_sizes = node.result_info(0).sizes
    axis = node.axis(node.attr_int("axis"), node.rank())
    if result_sizes is not None and result_sizes[axis] is not None:
        return result_sizes[axis]
    k = node.input(1)
    if b.info(k).rank != 0:
        k = b.op("aten.select.int", b.tensor_type([], b.info(k).element), k, b.constant_int(0), b.constant_int(0))
    return b.op("aten.item", b.type("!torch.int"), k)


@converts("TopK", since=1)
def top_k_attribute(node: OnnxNode, b: TorchBuilder):
    """Opset 1: k is an attribute; the largest k, sorted."""
    return _top_k(node, b, node.attr_int("k"), True, True)


@converts("TopK", since=10)
def top_k_input(node: OnnxNode, b: TorchBuilder):
    """Opset 10: k becomes input 1 (a one-element tensor)."""
    return _top_k(node, b, _k_from_input(node, b), True, True)


@converts("TopK", since=11)
def top_k(node: OnnxNode, b: TorchBuilder):
    """Opset 11 adds `largest` and `sorted`."""
    return _top_k(node, b, _k_from_input(node, b), bool(node.attr_int("largest")), bool(node.attr_int("sorted")))
