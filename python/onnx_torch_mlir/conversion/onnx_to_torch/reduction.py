"""Reductions: ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd, ReduceL1, ReduceL2,
ReduceLogSum, ReduceLogSumExp, ReduceSumSquare. ArgMax, ArgMin, CumSum and TopK are in
`reduction_axis.py`.

Axes that arrive as a runtime tensor (the form ONNX's own tests use) are resolved
from the node's declared result type: the dimensions that shrank are the reduced
ones. When the declared type leaves several choices, every candidate is computed
and the one whose axes match at runtime is selected, so the backends still see
constant dimensions. With no declared shape at all, each dimension is reduced where
the runtime axes name it and sliced to one element, which needs dynamic sizes
(linalg only). An empty reduced set gives the reduction's identity."""

from __future__ import annotations

import itertools
import math

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import highest_value, lowest_value, tensor_info, to_vtensor_type

# Beyond this many candidate axis sets, runtime axes are reduced dimension by dimension instead.
MAX_RUNTIME_AXES_CANDIDATES = 16


# -- shapes -----------------------------------------------------------------------
def _reduced_sizes(sizes, dims, keepdim: bool):
    if keepdim:
        return [1 if d in dims else s for d, s in enumerate(sizes)]
    return [s for d, s in enumerate(sizes) if d not in dims]


# -- the reduction kinds ------------------------------------------------------------
# Each kind: (b, x, dims, keepdim) -> value, for a non-empty `dims` list.
def _sum(b: TorchBuilder, x, dims, keepdim):
    return b.op("aten.sum.dim_IntList", b.reduced_type(x, dims, keepdim), x, b.int_list(dims),
                b.constant_bool(keepdim), b.constant_none())


def _mean(b: TorchBuilder, x, dims, keepdim):
    info = b.info(x)
    if info.is_float:
        return b.op("aten.mean.dim", b.reduced_type(x, dims, keepdim), x, b.int_list(dims),
                    b.constant_bool(keepdim), b.constant_none())
    # Integer mean truncates toward zero, as ONNX's reference casts the float mean back.
    total = _sum(b, x, dims, keepdim)
    count = b.dim_value(b.dim_product([b.dim(x, dim) for dim in dims]))
    return b.op("aten.div.Scalar_mode", total.type, total, count, b.constant_string("trunc"))


def _extremum(torch_op: str):
    def reduce(b: TorchBuilder, x, dims, keepdim):
        info = b.info(x)
        if info.is_bool:  # max of booleans is any, min is all: reduce them as integers
            widened = b.to_dtype(x, "si32")
            return b.to_dtype(reduce(b, widened, dims, keepdim), "i1")
        return b.op(torch_op, b.reduced_type(x, dims, keepdim), x, b.int_list(dims), b.constant_bool(keepdim))

    return reduce


def _prod(b: TorchBuilder, x, dims, keepdim):
    """`aten.prod.dim_int` takes one dimension: reduce the highest first so the others keep their index."""
    for dim in sorted(dims, reverse=True):
        x = b.op("aten.prod.dim_int", b.reduced_type(x, [dim], keepdim), x, b.constant_int(dim),
                 b.constant_bool(keepdim), b.constant_none())
    return x


def _unary(b: TorchBuilder, torch_op: str, x):
    return b.op(torch_op, x.type, x)


def _square(b: TorchBuilder, x):
    return b.op("aten.mul.Tensor", x.type, x, x)


def _l1(b, x, dims, keepdim):
    return _sum(b, _unary(b, "aten.abs", x), dims, keepdim)


def _l2(b, x, dims, keepdim):
    return _unary(b, "aten.sqrt", _sum(b, _square(b, x), dims, keepdim))


def _log_sum(b, x, dims, keepdim):
    return _unary(b, "aten.log", _sum(b, x, dims, keepdim))


def _log_sum_exp(b, x, dims, keepdim):
    """log(sum(exp(x))), computed as m + log(sum(exp(x - m))) with m the (finite) maximum so
    that large inputs do not overflow."""
    peak = b.op("aten.amax", b.reduced_type(x, dims, True), x, b.int_list(dims), b.constant_bool(True))
    infinite = b.op("aten.isinf", b.tensor_type(b.info(peak).sizes, "i1"), peak)
    peak = b.op("aten.where.self", peak.type, infinite, b.scalar_tensor_literal(0, b.info(x).element), peak)
    shifted = b.op("aten.sub.Tensor", x.type, x, peak, b.constant_int(1))
    total = _unary(b, "aten.log", _sum(b, _unary(b, "aten.exp", shifted), dims, keepdim))
    if not keepdim:
        for dim in sorted(dims, reverse=True):
            sizes = list(b.info(peak).sizes)
            del sizes[dim]
            peak = b.op("aten.squeeze.dim", b.tensor_type(sizes, b.info(peak).element), peak, b.constant_int(dim))
    return b.op("aten.add.Tensor", total.type, total, peak, b.constant_int(1))


def _sum_square(b, x, dims, keepdim):
    return _sum(b, _square(b, x), dims, keepdim)


# op_type -> (reduce, identity for an empty set, computes in floating point)
REDUCTIONS = {
    "ReduceSum": (_sum, 0, False),
    "ReduceMean": (_mean, math.nan, False),
    "ReduceMax": (_extremum("aten.amax"), "lowest", False),
    "ReduceMin": (_extremum("aten.amin"), "highest", False),
    "ReduceProd": (_prod, 1, False),
    "ReduceL1": (_l1, 0, False),
    "ReduceL2": (_l2, 0, True),
    "ReduceLogSum": (_log_sum, -math.inf, True),
    "ReduceLogSumExp": (_log_sum_exp, -math.inf, True),
    "ReduceSumSquare": (_sum_square, 0, False),
}


def _identity_value(identity, element: str):
    if identity == "lowest":
        return lowest_value(element)
    if identity == "highest":
        return highest_value(element)
    return identity


def _reduce_with_dims(node: OnnxNode, b: TorchBuilder, x: ir.Value, dims: list[int], keepdim: bool) -> ir.Value:
    """Reduce `x` over the constant, normalized, non-empty `dims`."""
    reduce, identity, in_float = REDUCTIONS[node.op_type]
    info = b.info(x)
    element = node.result_info().element
    if any(size == 0 for size in info.sizes):
        # An empty set reduces to the identity (and an empty result needs no reduction at all);
        # torch and the backends reject most reductions of empty tensors.
        sizes = []
        for d, size in enumerate(info.sizes):
            if d in dims:
                if keepdim:
                    sizes.append(1)
            else:
                sizes.append(b.dim(x, d))
        return b.full(sizes, _identity_value(identity, element), element)
    if in_float and not info.is_float:
        return b.to_dtype(reduce(b, b.to_dtype(x, "f64"), dims, keepdim), element)
    if node.target == "tosa" and info.is_float and node.op_type in ("ReduceMax", "ReduceMin"):
        return _tosa_extremum_of_infinities(b, x, dims, keepdim, reduce(b, x, dims, keepdim), node.op_type == "ReduceMax")
    return reduce(b, x, dims, keepdim)


def _tosa_extremum_of_infinities(b: TorchBuilder, x, dims, keepdim: bool, reduced, is_max: bool):
    """MLIR's TOSA-to-Linalg starts tosa.reduce_max at the lowest finite float (reduce_min at the
    highest), so a set of -inf only (+inf for min: a fully masked attention row) gave -FLT_MAX.
    Where every element is that infinity, the result is the infinity itself. (Compared with an
    infinity of x's own type: `aten.isneginf` became a float64 comparison on TOSA, which IREE refuses.)"""
    info = b.info(x)
    flags = b.tensor_type(info.sizes, "i1")
    infinity = b.scalar_tensor_literal(-math.inf if is_max else math.inf, info.element)
    is_infinity = b.op("aten.eq.Tensor", flags, x, infinity)
    other = b.to_dtype(b.op("aten.logical_not", flags, is_infinity), info.element)  # 1 where not that infinity
    any_other = _extremum("aten.amax")(b, other, dims, keepdim)
    none_other = b.op("aten.eq.Scalar", b.tensor_type(b.info(any_other).sizes, "i1"), any_other, b.constant_int(0))
    return b.op("aten.where.self", reduced.type, none_other, infinity, reduced)


def _axes_condition(b: TorchBuilder, axes: ir.Value, dims, rank: int) -> ir.Value:
    """A rank-0 i1 tensor: does the runtime `axes` tensor hold every one of `dims` (either sign)?"""
    axes_info = b.info(axes)
    hit_type = b.tensor_type(axes_info.sizes, "i1")
    scalar_bool = b.tensor_type([], "i1")
    condition = None
    for dim in dims:
        positive = b.op("aten.eq.Scalar", hit_type, axes, b.constant_int(dim))
        negative = b.op("aten.eq.Scalar", hit_type, axes, b.constant_int(dim - rank))
        hit = b.op("aten.logical_or", hit_type, positive, negative)
        present = b.op("aten.any", scalar_bool, hit)
        condition = present if condition is None else b.op("aten.logical_and", scalar_bool, condition, present)
    return condition


def _candidate_axis_sets(input_sizes, result_sizes, count: int, keepdim: bool):
    """Sets of `count` dimensions whose reduction gives the declared result shape."""
    rank = len(input_sizes)
    candidates = []
    for dims in itertools.combinations(range(rank), count):
        expected = _reduced_sizes(input_sizes, set(dims), keepdim)
        if result_sizes is not None and len(expected) == len(result_sizes) and all(
            e is None or r is None or e == r for e, r in zip(expected, result_sizes)
        ):
            candidates.append(list(dims))
    return candidates


def _reduce(node: OnnxNode, b: TorchBuilder, axes_attribute: list[int] | None, axes_input: ir.Value | None):
    """Shared by every Reduce* version: axes from the attribute or from input 1."""
    x = node.input(0)
    rank = node.rank()
    keepdim = bool(node.attr_int("keepdims"))
    noop_with_empty_axes = bool(node.attr_int("noop_with_empty_axes", 0))
    axes = axes_attribute
    if axes_input is not None:
        constant = node.constant_input(1)
        if constant is not None:
            axes = [int(a) for a in np.asarray(constant).reshape(-1)]
        else:
            axes_sizes = node.input_info(1).sizes
            if axes_sizes is None or len(axes_sizes) != 1:
                node.fail("a runtime 'axes' input needs a static rank of 1")
            if axes_sizes[0] is None:
                return _reduce_runtime_axes_of_runtime_length(node, b, x, node.input(1), keepdim, noop_with_empty_axes)
            if axes_sizes[0] > 0:
                return _reduce_runtime_axes(node, b, x, node.input(1), axes_sizes[0], keepdim)
            axes = []
    if not axes:
        if noop_with_empty_axes:
            return x
        axes = list(range(rank))
    dims = sorted({node.axis(a, rank) for a in axes})
    if not dims:  # a rank-0 input
        return _reduce_scalar(node, b, x)
    return _reduce_with_dims(node, b, x, dims, keepdim)


def _reduce_scalar(node: OnnxNode, b: TorchBuilder, x: ir.Value) -> ir.Value:
    """Reduce a rank-0 tensor: reduce it as a one-element vector and drop the dimension again."""
    vector = b.unsqueeze(x, 0)
    return _reduce_with_dims(node, b, vector, [0], False)


# ONNX ops whose output 0 has the shape of their input 0.
_SHAPE_PRESERVING = {"Cast", "CastLike", "Log", "Sqrt", "Exp", "Abs", "Neg", "Identity", "Relu", "Sigmoid", "Tanh"}


def _onnx_op_type(op) -> str | None:
    op = op.operation
    if op.name == "torch.operator":
        full = ir.StringAttr(op.attributes["name"]).value
        return full[len("onnx."):] if full.startswith("onnx.") else None
    return op.name[len("onnx."):] if op.name.startswith("onnx.") else None


def _sizes_declared_downstream(node: OnnxNode):
    """The result sizes, from the node's declared type or, where that has none (runtime axes
    defeat ONNX's shape inference: the expanded ReduceL2/ReduceLogSum functions), from the first
    declared type along a chain of single users that keep the shape (Cast, Log, Sqrt, ...) -
    typically the graph output. Static sizes let TOSA and StableHLO take runtime axes."""
    value = node.op.results[0]
    for _ in range(8):
        declared = tensor_info(to_vtensor_type(value.type)) if to_vtensor_type(value.type) is not None else None
        if declared is not None and declared.sizes is not None:
            return declared.sizes
        uses = list(value.uses)
        if len(uses) != 1 or uses[0].operand_number != 0 or _onnx_op_type(uses[0].owner) not in _SHAPE_PRESERVING:
            return None
        value = uses[0].owner.results[0]
    return None


def _reduce_runtime_axes(node: OnnxNode, b: TorchBuilder, x, axes, count: int, keepdim: bool):
    """`count` axes known only at runtime: pick them from the declared result shape."""
    input_sizes = b.info(x).sizes
    result_sizes = _sizes_declared_downstream(node)
    if result_sizes is None:
        kept = _reduce_dimension_by_dimension(node, b, x, axes, reduce_all_when_empty=False)
        return kept if keepdim else _drop_reduced_dimensions(b, kept, axes, count)
    candidates = _candidate_axis_sets(input_sizes, result_sizes, count, keepdim)
    if keepdim and candidates:
        # Reducing a dimension of size 1 changes nothing but the elementwise part, which every
        # candidate applies anyway: all candidates that differ only there give the same values.
        distinct = {tuple(d for d in dims if input_sizes[d] != 1) for dims in candidates}
        if len(distinct) == 1:
            candidates = candidates[:1]
    if not candidates:
        node.fail(f"no {count} axes reduce input shape {list(input_sizes)} to the declared result shape")
    if len(candidates) > MAX_RUNTIME_AXES_CANDIDATES:
        kept = _reduce_dimension_by_dimension(node, b, x, axes, reduce_all_when_empty=False)
        return kept if keepdim else _drop_reduced_dimensions(b, kept, axes, count)
    rank = len(input_sizes)
    result = _reduce_with_dims(node, b, x, candidates[-1], keepdim)
    for dims in reversed(candidates[:-1]):
        chosen = _reduce_with_dims(node, b, x, dims, keepdim)
        result = b.op("aten.where.self", result.type, _axes_condition(b, axes, dims, rank), chosen, result)
    return result


# op_type -> (elementwise map before, reduction of one dimension that composes, map after)
SEPARABLE = {
    "ReduceSum": (None, "sum", None),
    "ReduceMean": (None, "sum", "mean"),
    "ReduceMax": (None, "aten.amax", None),
    "ReduceMin": (None, "aten.amin", None),
    "ReduceProd": (None, "prod", None),
    "ReduceL1": ("aten.abs", "sum", None),
    "ReduceL2": ("square", "sum", "aten.sqrt"),
    "ReduceLogSum": (None, "sum", "aten.log"),
    "ReduceLogSumExp": ("aten.exp", "sum", "aten.log"),
    "ReduceSumSquare": ("square", "sum", None),
}


def _reduce_runtime_axes_of_runtime_length(node: OnnxNode, b: TorchBuilder, x, axes, keepdim: bool, noop: bool):
    """Axes whose very number is known only at runtime (computed by a Range, say)."""
    rank = b.info(x).rank
    if keepdim:
        return _reduce_dimension_by_dimension(node, b, x, axes, reduce_all_when_empty=not noop)
    result_rank = node.result_info().rank
    if result_rank is None or result_rank >= rank:
        node.fail("a runtime 'axes' input of runtime length with keepdims=0 needs a result type of "
                  "a rank below the input's")
    kept = _reduce_dimension_by_dimension(node, b, x, axes, reduce_all_when_empty=True)
    return _drop_reduced_dimensions(b, kept, axes, rank - result_rank)


def _axes_empty(b: TorchBuilder, axes) -> ir.Value:
    """A rank-0 i1 tensor: is the runtime `axes` tensor empty? (any(axes == axes) fails only then)."""
    same = b.op("aten.eq.Tensor", b.tensor_type(b.info(axes).sizes, "i1"), axes, axes)
    scalar_bool = b.tensor_type([], "i1")
    return b.op("aten.logical_not", scalar_bool, b.op("aten.any", scalar_bool, same))


def _reduce_dimension_by_dimension(node: OnnxNode, b: TorchBuilder, x, axes, reduce_all_when_empty: bool):
    """Runtime axes, keepdims, and no declared result shape to choose from.

    Each dimension is reduced (keeping it) where the runtime axes name it, and the
    reduced value broadcast back over it, so every step has the input's shape; a
    slice then keeps one element of each reduced dimension. The result sizes are dynamic.
    """
    before, reduce_one, after = SEPARABLE[node.op_type]
    info = b.info(x)
    element = node.result_info().element
    _, _, in_float = REDUCTIONS[node.op_type]
    if in_float and not info.is_float:
        x = b.to_dtype(x, "f64")
    if before == "square":
        x = _square(b, x)
    elif before is not None:
        x = _unary(b, before, x)
    int_type = b.type("!torch.int")
    rank = info.rank
    original_sizes = [b.dim_value(size) for size in b.dims(x)]
    if any(size == 0 for size in info.sizes):
        # An empty input: reduce a one-element stand-in holding the identity instead, so that a
        # reduced empty dimension gives the identity; a kept one is sliced back to nothing.
        identity = {"sum": 0, "prod": 1, "aten.amax": "lowest", "aten.amin": "highest"}[reduce_one]
        element_now = b.info(x).element
        x = b.full([max(size, 1) if size is not None else b.dim(x, d) for d, size in enumerate(info.sizes)],
                  _identity_value(identity, element_now), element_now)
    empty = _axes_empty(b, axes) if reduce_all_when_empty else None
    reduced_flags = []
    for dim in range(rank):
        hit = _axes_condition(b, axes, [dim], rank)
        if reduce_all_when_empty:
            hit = b.op("aten.logical_or", hit.type, hit, empty)
        if reduce_one == "sum":
            reduced = _sum(b, x, [dim], True)
        elif reduce_one == "prod":
            reduced = _prod(b, x, [dim], True)
        else:
            reduced = _extremum(reduce_one)(b, x, [dim], True)
        x = b.op("aten.where.self", x.type, hit, reduced, x)
        reduced_flags.append(b.op("aten.item", int_type, b.to_dtype(hit, "si64")))
    count = None
    for dim, flag in enumerate(reduced_flags):
        # end = 1 where reduced, else the size: size - flag * (size - 1)
        size = original_sizes[dim]
        shrink = b.op("aten.mul.int", int_type, flag, b.op("aten.sub.int", int_type, size, b.constant_int(1)))
        end = b.op("aten.sub.int", int_type, size, shrink)
        sizes = list(b.info(x).sizes)
        sizes[dim] = None
        x = b.op("aten.slice.Tensor", b.tensor_type(sizes, b.info(x).element), x, b.constant_int(dim),
                 b.constant_int(0), end, b.constant_int(1))
        if after == "mean":  # the count of reduced elements: the product of the reduced sizes
            factor = b.op("aten.add.int", int_type, shrink, b.constant_int(1))
            count = factor if count is None else b.op("aten.mul.int", int_type, count, factor)
    if after == "mean":
        mode = b.constant_none() if b.info(x).is_float else b.constant_string("trunc")
        x = b.op("aten.div.Scalar_mode", x.type, x, count, mode)
    elif after is not None:
        x = _unary(b, after, x)
    return b.to_dtype(x, element)


def _drop_reduced_dimensions(b: TorchBuilder, kept: ir.Value, axes, count: int) -> ir.Value:
    """Reshape a keepdims result to rank - count: output dimension j has the size of the j-th
    dimension the runtime axes do not name, chosen among all the possible axis sets."""
    int_type = b.type("!torch.int")
    rank = b.info(kept).rank
    sizes = [b.dim_value(size) for size in b.dims(kept)]
    output_sizes = [None] * (rank - count)
    if count == rank:  # every dimension: a rank-0 result, whatever the axes say
        return b.op("aten.reshape", b.tensor_type([], b.info(kept).element), kept, b.list([], "!torch.int"))
    for dims in itertools.combinations(range(rank), count):
        chosen = b.op("aten.item", int_type, b.to_dtype(_axes_condition(b, axes, dims, rank), "si64"))
        for j, dim in enumerate(d for d in range(rank) if d not in dims):
            term = b.op("aten.mul.int", int_type, chosen, sizes[dim])
            output_sizes[j] = term if output_sizes[j] is None else b.op("aten.add.int", int_type, output_sizes[j], term)
    return b.reshape(kept, output_sizes, [None] * (rank - count))


def _reduce_attribute_axes_pattern(node: OnnxNode, b: TorchBuilder):
    return _reduce(node, b, node.attr_ints("axes", None), None)


def _reduce_input_axes_pattern(node: OnnxNode, b: TorchBuilder):
    if node.has_attr("axes"):
        node.fail("attribute 'axes' is not allowed from this opset on; axes are input 1")
    return _reduce(node, b, None, node.optional_input(1))


# The opset where `axes` became input 1 (ReduceSum moved first, at 13).
AXES_INPUT_SINCE = {"ReduceSum": 13}
for _op_type in REDUCTIONS:
    converts(_op_type, since=1)(_reduce_attribute_axes_pattern)
    converts(_op_type, since=AXES_INPUT_SINCE.get(_op_type, 18))(_reduce_input_axes_pattern)
