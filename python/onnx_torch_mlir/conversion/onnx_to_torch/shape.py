"""Shape and data movement: Constant, ConstantOfShape, Shape, Size, Range, Reshape, Flatten,
Squeeze, Unsqueeze, Transpose, Concat, Split, Slice, Expand, Tile, Pad, Dropout,
DepthToSpace, SpaceToDepth, EyeLike, Trilu.

Sizes are handled as dims (`TorchBuilder`: a Python int when known at conversion time,
else a `!torch.int` value: `aten.size.int`, or an element of a shape tensor read with
`aten.select.int` + `aten.item`). Arithmetic on dims folds when both sides are ints, so
static models get constant lists and dynamic ones get scalar torch ops. Shape-like inputs
(Reshape's shape, Slice's starts, ...) are read as numbers when a literal produces them
(`OnnxNode.int_elements`, `OnnxNode.constant_ints`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import INT64_MAX, TorchBuilder
from .node import OnnxNode
from .registry import converts


@converts("Constant", since=1)
def constant(node: OnnxNode, b: TorchBuilder):
    """A literal from the tensor attribute `value` (dense or `dense_resource`)."""
    if node.has_attr("sparse_value"):
        node.fail("attribute 'sparse_value' (a sparse tensor) is not supported")
    if not node.has_attr("value"):
        node.fail("required attribute 'value' is missing")
    return node.attr_literal("value", b)


@converts("Constant", since=12)
def constant_value_attributes(node: OnnxNode, b: TorchBuilder):
    """From opset 12 the literal may also be `value_float(s)` or `value_int(s)`."""
    if node.has_attr("value_float"):
        return b.literal(np.array(node.attr_float("value_float"), dtype=np.float32), "f32")
    if node.has_attr("value_floats"):
        return b.literal(np.array(node.attr_floats("value_floats"), dtype=np.float32), "f32")
    if node.has_attr("value_int"):
        return b.literal(np.array(node.attr_int("value_int"), dtype=np.int64), "si64")
    if node.has_attr("value_ints"):
        return b.literal(np.array(node.attr_ints("value_ints"), dtype=np.int64), "si64")
    for name in ("value_string", "value_strings"):
        if node.has_attr(name):
            node.fail(f"attribute '{name}': string tensors have no torch equivalent")
    return constant(node, b)


@converts("ConstantOfShape", since=9)
def constant_of_shape(node: OnnxNode, b: TorchBuilder):
    """A tensor of shape `input` filled with the one-element tensor `value` (default float 0)."""
    declared = node.static_result_sizes()
    sizes = declared if declared is not None and node.constant_input(0) is None else node.int_elements(0, b, "input")
    result = node.result_info()
    fill = node.attr_tensor("value", None)
    number = 0 if fill is None else fill.reshape(-1)[0].item()
    none = b.constant_none()
    return b.op(
        "aten.full", node.result_type(), b.int_list(sizes), b.constant_scalar(number, result.element),
        b.dtype(result.element), none, none, none,
    )


def _shape(node: OnnxNode, b: TorchBuilder, start: int, end: int | None):
    x = node.input(0)
    rank = node.input_info(0).rank
    if rank is None:
        node.fail("needs a ranked input 0")
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = rank if end is None else min(max(end + rank if end < 0 else end, 0), rank)
    sizes = b.info(x).sizes[start:end] if end > start else ()
    if all(size is not None for size in sizes):
        return b.literal(np.array(sizes, dtype=np.int64).reshape(len(sizes)), "si64")
    dims = [b.dim(x, dim) for dim in range(start, end)]
    none, false = b.constant_none(), b.constant_bool(False)
    return b.op("aten.tensor", node.result_type(), b.int_list(dims), b.dtype("si64"), none, false)


@converts("Shape", since=1)
def shape(node: OnnxNode, b: TorchBuilder):
    return _shape(node, b, 0, None)


@converts("Shape", since=15)
def shape_start_end(node: OnnxNode, b: TorchBuilder):
    """From opset 15, dims [start, end) only (negative counts from the back, clamped)."""
    return _shape(node, b, node.attr_int("start"), node.attr_int("end", None))


@converts("Size", since=1)
def size(node: OnnxNode, b: TorchBuilder):
    x = node.input(0)
    info = node.input_info(0)
    if info.is_static:
        return b.literal(np.array(int(np.prod(info.sizes)), dtype=np.int64), "si64")
    count = b.op("aten.numel", b.type("!torch.int"), x)
    return b.op("prim.NumToTensor.Scalar", node.result_type(), count)


@converts("Range", since=11)
def range_(node: OnnxNode, b: TorchBuilder):
    """start, start + delta, ... up to (excluding) limit: aten.arange.start_step.

    With run-time inputs and a static result, start + delta * [0, 1, ...] in tensors
    (the count is the declared size; TOSA and StableHLO cannot lower aten.item)."""
    result = node.result_info()
    runtime = any(node.constant_input(i) is None for i in range(3))
    if runtime and result.is_static and result.rank == 1:
        positions = b.to_dtype(b.arange(result.sizes[0]), result.element)
        start, delta = (b.to_dtype(node.input(i), result.element) for i in (0, 2))
        steps = b.op("aten.mul.Tensor", node.result_type(), positions, delta)
        return b.op("aten.add.Tensor", node.result_type(), steps, start, b.constant_int(1))
    start, limit, delta = (node.scalar_input(i, b) for i in range(3))

    def scalar(v):
        return v if isinstance(v, ir.Value) else b.constant_scalar(v, result.element)

    none = b.constant_none()
    return b.op(
        "aten.arange.start_step", node.result_type(), scalar(start), scalar(limit), scalar(delta),
        b.dtype(result.element), none, none, none,
    )


def _reshape(node: OnnxNode, b: TorchBuilder, allowzero: int):
    x = node.input(0)
    declared = node.static_result_sizes()
    info = node.input_info(0)
    if declared is not None and info.is_static and 0 in info.sizes:
        # Nothing to move; a reshape of an empty tensor divides by zero in some lowerings.
        none = b.constant_none()
        return b.op("aten.zeros", node.result_type(), b.int_list(declared), b.dtype(info.element), none, none, none)
    if node.constant_input(1) is None and declared is not None:
        return b.reshape(x, declared)
    shape = node.int_elements(1, b, "shape")
    copies = not allowzero and any(not isinstance(value, int) or value == 0 for value in shape)
    if copies and info.rank is None:
        node.fail("a 0 in 'shape' copies an input dim, which needs a ranked input")
    input_dims = b.dims(x) if copies else []
    sizes = []
    for i, value in enumerate(shape):
        if not copies or i >= len(input_dims):
            sizes.append(value)
        elif isinstance(value, int):
            sizes.append(input_dims[i] if value == 0 else value)
        else:  # 0 copies the input dim: value + (value == 0) * (dim - value)
            sizes.append(b.dim_add(value, b.dim_mul(b.dim_eq(value, 0), b.dim_sub(input_dims[i], value))))
    return b.reshape(x, sizes, node.result_info().sizes)


@converts("Reshape", since=5)
def reshape(node: OnnxNode, b: TorchBuilder):
    """A 0 in `shape` copies the input's dim, -1 is inferred."""
    return _reshape(node, b, 0)


@converts("Reshape", since=14)
def reshape_allowzero(node: OnnxNode, b: TorchBuilder):
    """From opset 14, `allowzero=1` makes a 0 in `shape` a zero-sized dim."""
    return _reshape(node, b, node.attr_int("allowzero"))


@converts("Flatten", since=1)
def flatten(node: OnnxNode, b: TorchBuilder):
    """To 2-D: dims [0, axis) and [axis, rank) each multiplied together (axis in [-rank, rank])."""
    x = node.input(0)
    rank = node.rank()
    axis = node.attr_int("axis")
    if not -rank <= axis <= rank:
        node.fail(f"axis {axis} is out of range for rank {rank}")
    axis = axis + rank if axis < 0 else axis
    outer = inner = 1
    for dim, size in enumerate(b.dims(x)):
        if dim < axis:
            outer = b.dim_mul(outer, size)
        else:
            inner = b.dim_mul(inner, size)
    return b.reshape(x, [outer, inner], node.result_info().sizes)


def _reshape_to_result(node: OnnxNode, b: TorchBuilder, what: str):
    """Squeeze and Unsqueeze keep the element order: with run-time axes, reshape to the result type."""
    sizes = node.result_info().sizes
    if sizes is None or sum(size is None for size in sizes) > 1:
        node.fail(f"'{what}' is computed at run time and the result type has more than one dynamic dim")
    dims = [-1 if size is None else size for size in sizes]
    return b.reshape(node.input(0), dims, sizes)


def _squeeze(node: OnnxNode, b: TorchBuilder, axes: list[int] | None):
    x = node.input(0)
    info = node.input_info(0)
    rank = node.rank()
    if axes is None:
        axes = [i for i, size in enumerate(info.sizes) if size == 1]
        unknown = [i for i, size in enumerate(info.sizes) if size is None]
        result_rank = node.result_info().rank
        if unknown and result_rank != rank - len(axes):
            node.fail("without 'axes', needs static dims (or a result type that tells which dims are squeezed)")
    axes = sorted({node.axis(axis, rank, "axes value") for axis in axes}, reverse=True)
    sizes = list(info.sizes)
    for count, axis in enumerate(axes, start=1):
        if sizes[axis] not in (1, None):
            node.fail(f"dim {axis} has size {sizes[axis]}, not 1")
        del sizes[axis]
        result_type = node.result_type() if count == len(axes) else b.tensor_type(sizes, info.element)
        x = b.op("aten.squeeze.dim", result_type, x, b.constant_int(axis))
    return x


@converts("Squeeze", since=1)
def squeeze_axes_attribute(node: OnnxNode, b: TorchBuilder):
    """Opsets 1 and 11: `axes` is an attribute (absent: every size-1 dim)."""
    return _squeeze(node, b, node.attr_ints("axes", None))


@converts("Squeeze", since=13)
def squeeze(node: OnnxNode, b: TorchBuilder):
    """From opset 13, `axes` is an optional input."""
    if node.has_input(1) and node.constant_input(1) is None:
        return _reshape_to_result(node, b, "axes")
    return _squeeze(node, b, node.constant_ints(1, "axes"))


def _unsqueeze(node: OnnxNode, b: TorchBuilder, axes: list[int]):
    x = node.input(0)
    output_rank = node.rank() + len(axes)
    for axis in sorted(node.axis(axis, output_rank, "axes value") for axis in axes):
        x = b.unsqueeze(x, axis)
    return x


@converts("Unsqueeze", since=1)
def unsqueeze_axes_attribute(node: OnnxNode, b: TorchBuilder):
    """Opsets 1 and 11: `axes` is a required attribute."""
    return _unsqueeze(node, b, node.attr_ints("axes"))


@converts("Unsqueeze", since=13)
def unsqueeze(node: OnnxNode, b: TorchBuilder):
    """From opset 13, `axes` is a required input."""
    if node.constant_input(1) is None:
        return _reshape_to_result(node, b, "axes")
    return _unsqueeze(node, b, node.constant_ints(1, "axes"))


@converts("Transpose", since=1)
def transpose(node: OnnxNode, b: TorchBuilder):
    """`perm` defaults to reversing the dims."""
    rank = node.rank()
    perm = node.attr_ints("perm", None) or list(reversed(range(rank)))
    if sorted(node.axis(p, rank, "perm value") for p in perm) != list(range(rank)):
        node.fail(f"perm {perm} is not a permutation of the {rank} dims")
    return b.op("aten.permute", node.result_type(), node.input(0), b.int_list(perm))


def _concat(node: OnnxNode, b: TorchBuilder, axis: int):
    axis = node.axis(axis, node.rank())
    return b.op("aten.cat", node.result_type(), b.tensor_list(node.inputs()), b.constant_int(axis))


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
            if dim is None or not isinstance(start, int) or not isinstance(end, int):
                node.fail(f"negative step {step} needs a static dim {axis} and constant starts and ends")
            # Reverse the axis; then index j of the reversed tensor is dim - 1 - j.
            start = min(max(start + dim if start < 0 else start, 0), dim - 1)
            end = min(max(end + dim if end < 0 else end, -1), dim - 1)
            x = b.op("aten.flip", b.tensor_type(sizes, info.element), x, b.int_list([axis]))
            start, end, step = dim - 1 - start, dim - 1 - end, -step
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
    runtime = [node.has_input(i) and node.constant_input(i) is None for i in range(1, 5)]
    if runtime[2] or runtime[3] or ((runtime[0] or runtime[1]) and node.result_info().is_static):
        return _slice_by_gather(node, b)
    starts = node.int_elements(1, b, "starts")
    ends = node.int_elements(2, b, "ends")
    return _slice(node, b, starts, ends, node.constant_ints(3, "axes"), node.constant_ints(4, "steps"))


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


PAD_MODES = {"constant": "constant", "reflect": "reflect", "edge": "replicate", "wrap": "circular"}


def _pad(node: OnnxNode, b: TorchBuilder, pads: list, value, axes: list | None, modes=("constant", "reflect", "edge")):
    """Pad with pads (and axes) known as numbers or `!torch.int` values."""
    x = node.input(0)
    rank = node.rank()
    mode = node.attr_string("mode")
    if mode not in modes:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in modes)}")
    if axes is None:
        axes = list(range(rank))
    if len(pads) != 2 * len(axes):
        node.fail(f"'pads' has {len(pads)} values for {len(axes)} axes")
    begins, ends = [0] * rank, [0] * rank
    for i, axis in enumerate(axes):
        if isinstance(axis, int):
            axis = node.axis(axis, rank, "axes value")
            begins[axis], ends[axis] = pads[i], pads[i + len(axes)]
            continue
        # A run-time axis: every dim d gets pads[i] * (axis mod rank == d).
        axis = b.dim_add(axis, b.dim_mul(b.dim_lt(axis, 0), rank))
        for d in range(rank):
            selected = b.dim_eq(axis, d)
            begins[d] = b.dim_add(begins[d], b.dim_mul(selected, pads[i]))
            ends[d] = b.dim_add(ends[d], b.dim_mul(selected, pads[i + len(axes)]))
    # torch lists (begin, end) pairs from the last dim backwards; leading unpadded dims are left out.
    padded = [d for d in range(rank) if not (isinstance(begins[d], int) and isinstance(ends[d], int) and begins[d] == ends[d] == 0)]
    first = padded[0] if padded else rank
    torch_pads = []
    for d in reversed(range(first, rank)):
        torch_pads += [begins[d], ends[d]]
    if not torch_pads:
        return x
    element = node.input_info(0).element
    if mode == "constant":
        fill = value if isinstance(value, ir.Value) else b.constant_scalar(value, element)
        return b.op("aten.constant_pad_nd", node.result_type(), x, b.int_list(torch_pads), fill)
    if all(not isinstance(pad, int) or pad >= 0 for pad in begins + ends):
        return _pad_by_slices(node, b, x, begins, ends, mode)
    return b.op(
        "aten.pad", node.result_type(), x, b.int_list(torch_pads), b.constant_string(PAD_MODES[mode]), b.constant_none()
    )


def _pad_by_slices(node: OnnxNode, b: TorchBuilder, x, begins: list, ends: list, mode: str):
    """reflect, edge and wrap padding as slices (flipped for reflect) concatenated around the input.

    Every backend lowers slice, flip, broadcast_to and cat; torch-mlir's reflection and
    replication pads have no StableHLO lowering, and none with run-time pads. Pads
    computed at run time are taken to be non-negative (ONNX's reflect, edge and wrap pad).
    """
    element = node.input_info(0).element
    rank = node.input_info(0).rank

    def sliced(value, dim, start, end, length):
        part_sizes = list(b.info(value).sizes)
        part_sizes[dim] = b.static_dim(length)
        return b.op(
            "aten.slice.Tensor", b.tensor_type(part_sizes, element), value, b.constant_int(dim),
            b.dim_value(start), b.dim_value(end), b.constant_int(1),
        )

    def border(value, dim, count, at_start):
        if mode == "edge":
            edge = sliced(value, dim, 0, 1, 1) if at_start else sliced(value, dim, -1, INT64_MAX, 1)
            target = [-1] * rank
            target[dim] = count
            edge_sizes = list(b.info(edge).sizes)
            edge_sizes[dim] = b.static_dim(count)
            return b.op("aten.broadcast_to", b.tensor_type(edge_sizes, element), edge, b.int_list(target))
        size = b.dim(value, dim)
        if mode == "wrap":
            return sliced(value, dim, b.dim_sub(size, count), size, count) if at_start else sliced(value, dim, 0, count, count)
        if isinstance(size, int) and isinstance(count, int) and count >= size:
            node.fail(f"reflect padding of {count} needs a dim {dim} larger than {size}")
        if at_start:
            part = sliced(value, dim, 1, b.dim_add(count, 1), count)
        else:
            last = b.dim_sub(size, 1)
            part = sliced(value, dim, b.dim_sub(last, count), last, count)
        return b.op("aten.flip", part.type, part, b.int_list([dim]))

    def is_zero(pad):
        return isinstance(pad, int) and pad == 0

    padded = [dim for dim in range(rank) if not (is_zero(begins[dim]) and is_zero(ends[dim]))]
    for dim in padded:
        parts = ([] if is_zero(begins[dim]) else [border(x, dim, begins[dim], True)]) + [x]
        parts += [] if is_zero(ends[dim]) else [border(x, dim, ends[dim], False)]
        sizes = list(b.info(x).sizes)
        known = [sizes[dim], begins[dim], ends[dim]]
        sizes[dim] = sum(known) if all(isinstance(v, int) for v in known) else None
        result_type = node.result_type() if dim == padded[-1] else b.tensor_type(sizes, element)
        x = b.op("aten.cat", result_type, b.tensor_list(parts), b.constant_int(dim))
    return x


@converts("Pad", since=2)
def pad_attributes(node: OnnxNode, b: TorchBuilder):
    """Opset 2: `pads` and `value` are attributes."""
    return _pad(node, b, node.attr_ints("pads"), node.attr_float("value"), None)


def _pad_inputs(node: OnnxNode, b: TorchBuilder, modes=("constant", "reflect", "edge")):
    """Pad with `pads`, `constant_value` and (from opset 18) `axes` as inputs."""
    runtime = any(node.has_input(i) and node.constant_input(i) is None for i in (1, 3))
    if runtime and node.result_info().is_static and node.input_info(0).rank is not None:
        return _pad_by_gather(node, b, modes)
    value = node.scalar_input(2, b) if node.has_input(2) else 0
    axes = node.int_elements(3, b, "axes") if node.has_input(3) else None
    return _pad(node, b, node.int_elements(1, b, "pads"), value, axes, modes)


def _pad_by_gather(node: OnnxNode, b: TorchBuilder, modes):
    """Pads computed at run time: output element j of dim d reads input element j - begin_d,
    mapped back inside the dim as the mode says (clamped for edge, mirrored for reflect,
    modulo for wrap; outside is the fill value for constant). Tensor arithmetic only, so
    TOSA and StableHLO lower it too; the declared result type gives the output sizes.
    """
    x = node.input(0)
    rank = node.rank()
    mode = node.attr_string("mode")
    if mode not in modes:
        node.fail(f"mode '{mode}' is not one of {', '.join(repr(m) for m in modes)}")
    pads = b.to_dtype(node.input(1), "si64")
    pads_sizes = b.info(pads).sizes
    if pads_sizes is None or len(pads_sizes) != 1 or pads_sizes[0] is None:
        node.fail("'pads' must be a constant or a 1-D tensor of static length")
    count = pads_sizes[0] // 2
    if node.has_input(3):
        axes = b.to_dtype(node.input(3), "si64")
    else:
        if count != rank:
            node.fail(f"'pads' has {pads_sizes[0]} values for a rank-{rank} input")
        axes = b.literal(np.arange(rank, dtype=np.int64), "si64")
    element = node.input_info(0).element
    vector, scalar, none = b.tensor_type([count], "si64"), b.tensor_type([], "si64"), b.constant_none()
    begins = b.op("aten.slice.Tensor", vector, pads, b.constant_int(0), b.constant_int(0), b.constant_int(count), b.constant_int(1))
    negative = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([count], "i1"), axes, b.constant_int(0)), "si64")
    axes = b.op("aten.add.Tensor", vector, axes, b.op("aten.mul.Scalar", vector, negative, b.constant_int(rank)), b.constant_int(1))
    fill = None
    if mode == "constant" and node.has_input(2):
        fill = b.to_dtype(node.input(2), element)
    dims = b.dims(x)
    result_sizes = node.result_info().sizes
    for d in range(rank):
        size, out = dims[d], result_sizes[d]
        selected = b.to_dtype(b.op("aten.eq.Scalar", b.tensor_type([count], "i1"), axes, b.constant_int(d)), "si64")
        begin = b.op("aten.sum", scalar, b.op("aten.mul.Tensor", vector, selected, begins), none)
        index_type = b.tensor_type([out], "si64")
        positions = b.arange(out)
        source = b.op("aten.sub.Tensor", index_type, positions, begin, b.constant_int(1))
        last = b.dim_value(b.dim_sub(size, 1))
        if mode == "wrap":
            # remainder of a negative index: floor mod on Linalg, C's % on StableHLO; adding
            # the size where it came out negative gives the floor mod on both.
            index = b.op("aten.remainder.Scalar", index_type, source, b.dim_value(size))
            below = b.to_dtype(b.op("aten.lt.Scalar", b.tensor_type([out], "i1"), index, b.constant_int(0)), "si64")
            index = b.op("aten.add.Tensor", index_type, index, b.op("aten.mul.Scalar", index_type, below, b.dim_value(size)), b.constant_int(1))
        elif mode == "reflect" and not (isinstance(size, int) and size == 1):
            period = b.dim_sub(b.dim_mul(size, 2), 2)
            folded = b.op("aten.remainder.Scalar", index_type, b.op("aten.abs", index_type, source), b.dim_value(period))
            mirrored = b.op("aten.rsub.Scalar", index_type, folded, b.dim_value(period), b.constant_int(1))
            beyond = b.op("aten.gt.Scalar", b.tensor_type([out], "i1"), folded, last)
            index = b.op("aten.where.self", index_type, beyond, mirrored, folded)
        else:
            index = b.op("aten.clamp", index_type, source, b.constant_int(0), last)
        sizes = list(b.info(x).sizes)
        sizes[d] = out
        gathered = b.op("aten.index_select", b.tensor_type(sizes, element), x, b.constant_int(d), index)
        if mode == "constant":
            mask_type = b.tensor_type([out], "i1")
            inside = b.op(
                "aten.logical_and", mask_type,
                b.op("aten.ge.Scalar", mask_type, source, b.constant_int(0)),
                b.op("aten.le.Scalar", mask_type, source, last),
            )
            shape = [1] * rank
            shape[d] = out
            inside = b.reshape(inside, shape)
            if fill is None:
                gathered = b.op("aten.where.ScalarOther", gathered.type, inside, gathered, b.constant_scalar(0, element))
            else:
                gathered = b.op("aten.where.self", gathered.type, inside, gathered, fill)
        x = gathered
    return x


@converts("Pad", since=11)
def pad(node: OnnxNode, b: TorchBuilder):
    """From opset 11: `pads` and the optional `constant_value` are inputs."""
    return _pad_inputs(node, b)


@converts("Pad", since=18)
def pad_axes(node: OnnxNode, b: TorchBuilder):
    """From opset 18: the optional `axes` input says which dims `pads` covers."""
    return _pad_inputs(node, b)


@converts("Pad", since=19)
def pad_wrap(node: OnnxNode, b: TorchBuilder):
    """From opset 19: mode 'wrap' (torch's 'circular')."""
    return _pad_inputs(node, b, modes=("constant", "reflect", "edge", "wrap"))


def _dropout(node: OnnxNode, b: TorchBuilder):
    x = node.input(0)
    if node.num_results < 2 or not node.result_is_used(1):
        return x
    mask = node.result_info(1)
    none = b.constant_none()
    ones = b.op("aten.ones_like", node.result_type(1), x, b.dtype(mask.element), none, none, none, none)
    return [x, ones]


@converts("Dropout", since=1)
def dropout_attributes(node: OnnxNode, b: TorchBuilder):
    """Inference: the output is the input, the mask all ones (`is_test` is ignored, as runtimes do)."""
    return _dropout(node, b)


@converts("Dropout", since=12)
def dropout(node: OnnxNode, b: TorchBuilder):
    """From opset 12, `ratio` and `training_mode` are inputs; training with ratio > 0 is random."""
    if node.has_input(2):
        training = node.constant_input(2)
        if training is None:
            node.fail("'training_mode' must be a constant")
        ratio = node.constant_input(1) if node.has_input(1) else None
        random = not node.has_input(1) or ratio is None or float(ratio.reshape(-1)[0]) != 0.0  # default 0.5
        if bool(training.reshape(-1)[0]) and random:
            node.fail("training_mode=1 with a nonzero ratio (random dropout) is not supported")
    return _dropout(node, b)


def _block_rearrange(node: OnnxNode, b: TorchBuilder, split_sizes, permutation, final_sizes):
    """reshape to `split_sizes`, permute, reshape to `final_sizes` (dims as ints or !torch.int)."""
    x = node.input(0)
    element = node.input_info(0).element
    split = b.reshape(x, split_sizes)
    permuted_sizes = [b.static_dim(split_sizes[p]) for p in permutation]
    permuted = b.op("aten.permute", b.tensor_type(permuted_sizes, element), split, b.int_list(permutation))
    return b.reshape(permuted, final_sizes, node.result_info().sizes)


def _nchw(node: OnnxNode, b: TorchBuilder):
    if node.rank() != 4:
        node.fail(f"needs a rank-4 input, not rank {node.rank()}")
    blocksize = node.attr_int("blocksize")
    if blocksize <= 0:
        node.fail(f"blocksize {blocksize} is not positive")
    return b.dims(node.input(0)), blocksize


def _mode_outside_schema(node: OnnxNode) -> str:
    """DCR, for an opset whose schema has no `mode` (DepthToSpace-1, SpaceToDepth before 28).

    A model that carries `mode` there anyway is outside the schema: onnxruntime refuses it,
    onnx.reference applies it. Ignoring a 'CRD' would give wrong numbers, so it fails."""
    if node.has_attr("mode"):
        mode = node.attr_string("mode")
        if mode != "DCR":
            first = 11 if node.op_type == "DepthToSpace" else 28
            node.fail(f"mode '{mode}' is not an attribute of {node.op_type} before opset {first} "
                      f"(the model imports opset {node.opset}); use opset {first} or later")
    return "DCR"


def _depth_to_space(node: OnnxNode, b: TorchBuilder, mode: str):
    """Output (y * bs + i, x * bs + j) of channel d reads input channel (i * bs + j) * D + d
    for DCR, d * bs * bs + i * bs + j for CRD."""
    (n, c, h, w), bs = _nchw(node, b)
    depth = b.dim_floordiv(c, bs * bs)
    final = [n, depth, b.dim_mul(h, bs), b.dim_mul(w, bs)]
    if mode == "DCR":
        return _block_rearrange(node, b, [n, bs, bs, depth, h, w], [0, 3, 4, 1, 5, 2], final)
    if mode == "CRD":
        return _block_rearrange(node, b, [n, depth, bs, bs, h, w], [0, 1, 4, 2, 5, 3], final)
    node.fail(f"mode '{mode}' is not 'DCR' or 'CRD'")


@converts("DepthToSpace", since=1)
def depth_to_space_dcr(node: OnnxNode, b: TorchBuilder):
    """Opset 1: depth-column-row order only."""
    return _depth_to_space(node, b, _mode_outside_schema(node))


@converts("DepthToSpace", since=11)
def depth_to_space(node: OnnxNode, b: TorchBuilder):
    """From opset 11, `mode` picks DCR (default) or CRD."""
    return _depth_to_space(node, b, node.attr_string("mode"))


def _space_to_depth(node: OnnxNode, b: TorchBuilder, mode: str):
    """The inverse of DepthToSpace in the same mode: input (y * bs + i, x * bs + j) of channel
    c goes to channel (i * bs + j) * C + c for DCR, c * bs * bs + i * bs + j for CRD."""
    (n, c, h, w), bs = _nchw(node, b)
    height, width = b.dim_floordiv(h, bs), b.dim_floordiv(w, bs)
    final = [n, b.dim_mul(c, bs * bs), height, width]
    split = [n, c, height, bs, width, bs]
    if mode == "DCR":
        return _block_rearrange(node, b, split, [0, 3, 5, 1, 2, 4], final)
    if mode == "CRD":
        return _block_rearrange(node, b, split, [0, 1, 3, 5, 2, 4], final)
    node.fail(f"mode '{mode}' is not 'DCR' or 'CRD'")


@converts("SpaceToDepth", since=1)
def space_to_depth_dcr(node: OnnxNode, b: TorchBuilder):
    """Before opset 28: depth-column-row order only."""
    return _space_to_depth(node, b, _mode_outside_schema(node))


@converts("SpaceToDepth", since=28)
def space_to_depth(node: OnnxNode, b: TorchBuilder):
    """From opset 28, `mode` picks DCR (default) or CRD."""
    return _space_to_depth(node, b, node.attr_string("mode"))


@converts("EyeLike", since=9)
def eye_like(node: OnnxNode, b: TorchBuilder):
    """Ones where column - row == k, in the shape of the 2-D input."""
    x = node.input(0)
    if node.rank() != 2:
        node.fail(f"needs a rank-2 input, not rank {node.rank()}")
    rows, columns = b.dims(x)
    k = node.attr_int("k")
    row_index = b.unsqueeze(b.arange(rows), 1)
    column_index = b.unsqueeze(b.arange(columns), 0)
    sizes = [b.static_dim(rows), b.static_dim(columns)]
    offset = b.op("aten.sub.Tensor", b.tensor_type(sizes, "si64"), column_index, row_index, b.constant_int(1))
    on_diagonal = b.op("aten.eq.Scalar", b.tensor_type(sizes, "i1"), offset, b.constant_int(k))
    return b.to_dtype(on_diagonal, node.result_info().element)


@converts("Trilu", since=14)
def trilu(node: OnnxNode, b: TorchBuilder):
    """upper=1: keep column - row >= k (aten.triu); upper=0: keep column - row <= k (aten.tril)."""
    upper = node.attr_int("upper")
    if not node.has_input(1) or node.constant_input(1) is not None:
        k = node.scalar_input(1, b) if node.has_input(1) else 0
        return b.op("aten.triu" if upper else "aten.tril", node.result_type(), node.input(0), b.constant_int(k))
    # A run-time k: compare against index grids rather than read k as a scalar
    # (TOSA and StableHLO have no lowering for aten.item).
    x = node.input(0)
    rank = node.rank()
    if rank < 2:
        node.fail(f"needs an input of rank 2 or more, not rank {rank}")
    info = node.input_info(0)
    rows = b.unsqueeze(b.arange(b.dim(x, rank - 2)), 1)
    columns = b.unsqueeze(b.arange(b.dim(x, rank - 1)), 0)
    sizes = [info.sizes[-2], info.sizes[-1]]
    offset = b.op("aten.sub.Tensor", b.tensor_type(sizes, "si64"), columns, rows, b.constant_int(1))
    k = b.to_dtype(node.input(1), "si64")
    keep = b.op("aten.ge.Tensor" if upper else "aten.le.Tensor", b.tensor_type(sizes, "i1"), offset, k)
    return b.op("aten.where.ScalarOther", node.result_type(), keep, x, b.constant_scalar(0, info.element))
