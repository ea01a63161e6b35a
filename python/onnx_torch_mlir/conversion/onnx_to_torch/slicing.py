"""Joining, cutting and repeating: Concat, Split, Slice, Expand, Tile.

Starts, ends, split sizes, shapes and repeats are read as numbers when a literal
produces them (`OnnxNode.int_elements`), else element by element with `aten.item`.
Where those operands are computed at run time and the declared result type is static,
the result sizes come from the type instead; Slice with run-time axes or steps (or
starts and ends, with a static result) becomes one gather per dim whose positions are
tensor arithmetic, since TOSA and StableHLO cannot lower `aten.item`. A declared empty
result is built as `aten.zeros` (some backends cannot slice to an empty tensor).
"""

from __future__ import annotations

import numpy as np

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _concat(node: OnnxNode, b: TorchBuilder, axis: int):
    axis = node.axis(axis, node.rank())
    joined = _concat_of_dims(node, b)
    if joined is not None:
        return joined
    return b.op("aten.cat", node.result_type(), b.tensor_list(node.inputs()), b.constant_int(axis))


def _concat_of_dims(node: OnnxNode, b: TorchBuilder):
    """Shape pieces (literals and `Shape` results of dynamic inputs) joined as one list of dims,
    so the consumer (a Reshape's or Expand's shape) reads sizes, not `aten.item`s."""
    if node.result_info().element != "si64":
        return None
    dims = []
    for index in range(node.num_inputs):
        elements = node.dim_elements(index) if node.has_input(index) else None
        if elements is None:
            return None
        dims += elements
    return b.dims_tensor(dims)


@converts("Concat", since=1)
def concat_default_axis(node: OnnxNode, b: TorchBuilder):
    """Opset 1: `axis` defaults to 1."""
    return _concat(node, b, node.attr_int("axis", 1))


@converts("Concat", since=4)
def concat(node: OnnxNode, b: TorchBuilder):
    """From opset 4, `axis` is required (negative from opset 11)."""
    return _concat(node, b, node.attr_int("axis"))


def _split(node: OnnxNode, b: TorchBuilder, split: list | None, num_outputs: int | None = None):
    """Slices along `axis`: sizes `split`, else equal parts (the last smaller if uneven)."""
    x = node.input(0)
    rank = node.rank()
    axis = node.axis(node.attr_int("axis", 0), rank)  # Split-1 has no schema default
    count = node.num_results
    if split is not None and len(split) != count:
        node.fail(f"'split' has {len(split)} sizes for {count} outputs")
    if split is None:
        parts = num_outputs or count
        if parts != count:
            node.fail(f"num_outputs={parts} but the node has {count} outputs")
        chunk = b.dim_floordiv(b.dim_add(b.dim(x, axis), parts - 1), parts)
        split = [chunk] * count
    dim = node.input_info(0).sizes[axis]
    results, start = [], 0
    for i, length in enumerate(split):
        end = b.dim_add(start, length)
        if isinstance(end, int) and dim is not None:
            end = min(end, dim)
        empty = _empty_result(node, b, i)
        results.append(
            empty if empty is not None else b.op(
                "aten.slice.Tensor", node.result_type(i), x, b.constant_int(axis), b.dim_value(start), b.dim_value(end), b.constant_int(1)
            )
        )
        start = end
    return results


def _empty_result(node: OnnxNode, b: TorchBuilder, index: int = 0):
    """An `aten.zeros` for a declared static result with no elements (some backends cannot
    slice or gather to an empty tensor), else None."""
    info = node.result_info(index)
    if not info.is_static or 0 not in info.sizes:
        return None
    none = b.constant_none()
    return b.op("aten.zeros", node.result_type(index), b.int_list(info.sizes), b.dtype(info.element), none, none, none)


def _split_input(node: OnnxNode, b: TorchBuilder) -> list:
    """The `split` input; computed at run time, the declared result sizes along `axis` if static."""
    if node.constant_input(1) is None and node.input_info(0).rank is not None:
        axis = node.axis(node.attr_int("axis", 0), node.input_info(0).rank)
        declared = [node.result_info(i).sizes for i in range(node.num_results)]
        if all(sizes is not None and sizes[axis] is not None for sizes in declared):
            return [sizes[axis] for sizes in declared]
    return node.int_elements(1, b, "split")


@converts("Split", since=1)
def split_input_or_attribute(node: OnnxNode, b: TorchBuilder):
    """Opset 1: sizes from the optional second input, else the `split` attribute."""
    if node.has_input(1):
        return _split(node, b, _split_input(node, b))
    return _split(node, b, node.attr_ints("split", None))


@converts("Split", since=2)
def split_attribute(node: OnnxNode, b: TorchBuilder):
    """Opsets 2 and 11: sizes from the `split` attribute."""
    return _split(node, b, node.attr_ints("split", None))


@converts("Split", since=13)
def split(node: OnnxNode, b: TorchBuilder):
    """From opset 13: sizes from the optional `split` input."""
    return _split(node, b, _split_input(node, b) if node.has_input(1) else None)


@converts("Split", since=18)
def split_num_outputs(node: OnnxNode, b: TorchBuilder):
    """From opset 18, without `split`, `num_outputs` parts of ceil(dim / num_outputs)."""
    if node.has_input(1):
        if node.has_attr("num_outputs"):
            node.fail("both input 'split' and attribute 'num_outputs' are given")
        return _split(node, b, _split_input(node, b))
    num_outputs = node.attr_int("num_outputs", None)
    if num_outputs is None:
        node.fail("needs input 'split' or attribute 'num_outputs'")
    return _split(node, b, None, num_outputs)


def _slice(node: OnnxNode, b: TorchBuilder, starts: list, ends: list, axes: list[int] | None, steps: list[int] | None):
    x = node.input(0)
    info = node.input_info(0)
    rank = node.rank()
    axes = list(range(len(starts))) if axes is None else axes
    steps = [1] * len(starts) if steps is None else steps
    if not len(starts) == len(ends) == len(axes) == len(steps):
        node.fail(f"starts, ends, axes and steps have different lengths ({len(starts)}, {len(ends)}, {len(axes)}, {len(steps)})")
    sizes = list(info.sizes)
    for count, (start, end, axis, step) in enumerate(zip(starts, ends, axes, steps), start=1):
        axis = node.axis(axis, rank, "axes value")
        dim = sizes[axis]
        if step == 0:
            node.fail("a step of 0 is not allowed")
        if step < 0:
            x, start, end = _reversed_bounds(b, x, sizes, info.element, axis, start, end)
            step = -step
        elif dim is not None and isinstance(start, int) and isinstance(end, int):
            start = min(max(start + dim if start < 0 else start, 0), dim)
            end = min(max(end + dim if end < 0 else end, 0), dim)
        if dim is not None and isinstance(start, int) and isinstance(end, int):
            sizes[axis] = max(0, -(-(end - start) // step))
        else:
            sizes[axis] = None
        result_type = node.result_type() if count == len(starts) else b.tensor_type(sizes, info.element)
        x = b.op(
            "aten.slice.Tensor", result_type, x, b.constant_int(axis),
            b.dim_value(start), b.dim_value(end), b.constant_int(step),
        )
    return x


def _reversed_bounds(b: TorchBuilder, x, sizes: list, element: str, axis: int, start, end):
    """A negative-step slice of `axis` as a forward one: `x` flipped there, and the start and end
    in the flipped positions (index j of the flipped axis is dim - 1 - j).

    ONNX wraps a negative start or end once by the dim, then clamps the start to [0, dim - 1] and
    the end to [-1, dim - 1] (INT_MIN "to the beginning" is -1). Sizes and bounds are ints or
    run-time `!torch.int`s (a dynamic dim, run-time starts), so the same arithmetic serves both.
    The forward end is kept at or after the start: torch-mlir's StableHLO lowering of a slice
    does not, and an empty slice then had a negative size."""
    dim = sizes[axis] if sizes[axis] is not None else b.dim(x, axis)
    last = b.dim_sub(dim, 1)
    start = _dim_min(b, _dim_max(b, _wrapped(b, start, dim), 0), last)
    end = _dim_min(b, _dim_max(b, _wrapped(b, end, dim), -1), last)
    flipped = b.op("aten.flip", b.tensor_type(sizes, element), x, b.int_list([axis]))
    forward_start = b.dim_sub(last, start)
    return flipped, forward_start, _dim_max(b, b.dim_sub(last, end), forward_start)


def _wrapped(b: TorchBuilder, bound, dim):
    """`bound`, plus `dim` when it is negative."""
    if isinstance(bound, int):
        return b.dim_add(bound, dim) if bound < 0 else bound
    return b.dim_add(bound, b.dim_mul(b.dim_lt(bound, 0), dim))


# max and min of dims as sums and products of comparisons (the scalar forms every backend lowers);
# a run-time difference that wraps around (INT64's extremes) is multiplied by 0.
def _dim_max(b: TorchBuilder, lhs, rhs):
    return b.dim_add(rhs, b.dim_mul(b.dim_lt(rhs, lhs), b.dim_sub(lhs, rhs)))


def _dim_min(b: TorchBuilder, lhs, rhs):
    return b.dim_add(rhs, b.dim_mul(b.dim_lt(lhs, rhs), b.dim_sub(lhs, rhs)))


@converts("Slice", since=1)
def slice_attributes(node: OnnxNode, b: TorchBuilder):
    """Opset 1: `starts`, `ends`, `axes` are attributes, steps are 1."""
    return _slice(node, b, node.attr_ints("starts"), node.attr_ints("ends"), node.attr_ints("axes", None), None)


@converts("Slice", since=10)
def slice_(node: OnnxNode, b: TorchBuilder):
    """From opset 10: inputs starts, ends, optional axes and steps (steps may be negative).
    With constants, one aten.slice per axis. With axes or steps computed at run time (or
    starts or ends, when the result type is static), a gather along each dim; the declared
    result type gives the counts, and no aten.item is needed (TOSA and StableHLO lack it)."""
    empty = _empty_result(node, b)
    if empty is not None:
        return empty
    picked = _slice_of_dims(node, b)
    if picked is not None:
        return picked
    runtime = [node.has_input(i) and node.constant_input(i) is None for i in range(1, 5)]
    if runtime[2] or runtime[3] or ((runtime[0] or runtime[1]) and node.result_info().is_static):
        return _slice_by_gather(node, b)
    starts = node.int_elements(1, b, "starts")
    ends = node.int_elements(2, b, "ends")
    return _slice(node, b, starts, ends, node.constant_ints(3, "axes"), node.constant_ints(4, "steps"))


def _slice_of_dims(node: OnnxNode, b: TorchBuilder):
    """A slice of a list of dims (a `Shape` result of a dynamic input) with constant bounds:
    the picked dims, a literal when they are all static."""
    dims = node.dim_elements(0)
    bounds = [node.constant_input(i) if node.has_input(i) else None for i in range(1, 5)]
    if dims is None or bounds[0] is None or bounds[1] is None or any(
        node.has_input(i) and bounds[i - 1] is None for i in (3, 4)
    ):
        return None
    starts, ends = bounds[0].reshape(-1), bounds[1].reshape(-1)
    steps = bounds[3].reshape(-1) if bounds[3] is not None else [1]
    if len(starts) != 1 or len(ends) != 1 or len(steps) != 1 or steps[0] == 0:
        return None  # the general pattern reports what is wrong
    clamp = lambda v: int(min(max(int(v), -(2**62)), 2**62))  # noqa: E731 - ONNX's INT64 extremes
    return b.dims_tensor(dims[clamp(starts[0]) : clamp(ends[0]) : int(steps[0])])


def _slice_by_gather(node: OnnxNode, b: TorchBuilder):
    """Element j of dim d is start_d + j * step_d, j below the declared result size.

    start_d and step_d are picked out of the starts, axes and steps tensors with
    tensor arithmetic (no aten.item, which TOSA and StableHLO cannot lower); a dim no
    axis names keeps start 0, step 1. start is clamped as ONNX clamps it for either sign
    of step (the end only decides the count, which the result type states).
    """
    x = node.input(0)
    rank = node.rank()
    result_sizes = node.result_info().sizes
    if result_sizes is None or None in result_sizes:
        node.fail("axes or steps computed at run time need a static result type")
    element = node.input_info(0).element
    none = b.constant_none()

    def int64_vector(index, default):
        value = node.optional_input(index)
        if value is None:
            return b.literal(np.array(default, dtype=np.int64), "si64")
        return b.to_dtype(value, "si64")

    starts = int64_vector(1, None)
    count = b.info(starts).sizes[0] if b.info(starts).rank == 1 else None
    if count is None:
        node.fail("'starts' must be a 1-D tensor of static length")
    axes = int64_vector(3, list(range(count)))
    steps = int64_vector(4, [1] * count)
    vector, scalar, mask = b.tensor_type([count], "si64"), b.tensor_type([], "si64"), b.tensor_type([count], "i1")
    negative = b.to_dtype(b.op("aten.lt.Scalar", mask, axes, b.constant_int(0)), "si64")
    axes = b.op("aten.add.Tensor", vector, axes, b.op("aten.mul.Scalar", vector, negative, b.constant_int(rank)), b.constant_int(1))

    def picked(values, selected):
        product = b.op("aten.mul.Tensor", vector, selected, values)
        return b.op("aten.sum", scalar, product, none)

    dims = b.dims(x)
    for d in range(rank):
        selected = b.to_dtype(b.op("aten.eq.Scalar", mask, axes, b.constant_int(d)), "si64")
        start = picked(starts, selected)
        named = b.op("aten.sum", scalar, selected, none)
        step = b.op("aten.rsub.Scalar", scalar, named, b.constant_int(1), b.constant_int(1))  # 1 - named
        step = b.op("aten.add.Tensor", scalar, picked(steps, selected), step, b.constant_int(1))
        wraps = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([], "i1"), start, b.constant_int(0)), "si64")
        start = b.op("aten.add.Tensor", scalar, start, b.op("aten.mul.Scalar", scalar, wraps, b.dim_value(dims[d])), b.constant_int(1))
        start = b.op("aten.clamp", scalar, start, b.constant_int(0), b.dim_value(b.dim_sub(dims[d], 1)))
        size = result_sizes[d]
        positions = b.op("aten.arange", b.tensor_type([size], "si64"), b.constant_int(size), b.dtype("si64"), none, none, none)
        strided = b.op("aten.mul.Tensor", positions.type, positions, step)
        indices = b.op("aten.add.Tensor", positions.type, strided, start, b.constant_int(1))
        sizes = list(b.info(x).sizes)
        sizes[d] = size
        x = b.op("aten.index_select", b.tensor_type(sizes, element), x, b.constant_int(d), indices)
    return x


@converts("Expand", since=8)
def expand(node: OnnxNode, b: TorchBuilder):
    """Broadcast to `shape` both ways: a 1 in `shape` keeps the input's dim."""
    x = node.input(0)
    rank = node.rank()
    declared = node.static_result_sizes()
    if node.constant_input(1) is None and declared is not None:
        return b.op("aten.broadcast_to", node.result_type(), x, b.int_list(declared))
    shape = node.int_elements(1, b, "shape")
    input_sizes = node.input_info(0).sizes
    output_rank = max(rank, len(shape))
    sizes = []
    for i in range(output_rank):
        shape_index, input_index = i - (output_rank - len(shape)), i - (output_rank - rank)
        if shape_index < 0:
            sizes.append(-1)
            continue
        wanted = shape[shape_index]
        if input_index < 0:
            sizes.append(wanted)
        elif isinstance(wanted, int):
            sizes.append(-1 if wanted == 1 else wanted)
        elif input_sizes[input_index] == 1:
            sizes.append(wanted)
        elif input_sizes[input_index] is not None:
            sizes.append(-1)
        else:
            sizes.append(b.op("prim.max.int", b.type("!torch.int"), b.dim(x, input_index), wanted))
    return b.op("aten.broadcast_to", node.result_type(), x, b.int_list(sizes))


@converts("Tile", since=6)
def tile(node: OnnxNode, b: TorchBuilder):
    """Repeat the input `repeats[d]` times along each dim d."""
    declared, sizes = node.static_result_sizes(), node.input_info(0).sizes
    if node.constant_input(1) is None and declared is not None and sizes is not None and all(sizes):
        repeats = [out // size for out, size in zip(declared, sizes)]
    else:
        repeats = node.int_elements(1, b, "repeats")
    if len(repeats) != node.rank():
        node.fail(f"'repeats' has {len(repeats)} values for a rank-{node.rank()} input")
    return b.op("aten.tile", node.result_type(), node.input(0), b.int_list(repeats))
