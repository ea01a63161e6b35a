"""Shapes and reshapes: Shape, Size, Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
DepthToSpace, SpaceToDepth.

Sizes are dims (`TorchBuilder`: a Python int when known at conversion time, else a
`!torch.int` value), so static models get constant size lists and dynamic ones scalar
torch ops. Every reshape goes through `TorchBuilder.reshape`. A shape or axes operand
computed at run time is not read when the declared result type gives the sizes (all
static; for Squeeze and Unsqueeze, at most one dynamic): they are then the sizes to
reshape to. DepthToSpace and SpaceToDepth are a reshape to six dims, a permutation and
a reshape back.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _shape(node: OnnxNode, b: TorchBuilder, start: int, end: int | None):
    x = node.input(0)
    rank = node.input_info(0).rank
    if rank is None:
        node.fail("needs a ranked input 0")
    start = min(max(start + rank if start < 0 else start, 0), rank)
    end = rank if end is None else min(max(end + rank if end < 0 else end, 0), rank)
    return b.dims_tensor([b.dim(x, dim) for dim in range(start, end)])


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


def _reshape(node: OnnxNode, b: TorchBuilder, allowzero: int):
    kept = _dims_reshaped(node, b)
    if kept is not None:
        return kept
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
    if node.target == "stablehlo":
        sizes = _inferred_dims_resolved(b, x, sizes)
    return b.reshape(x, sizes, node.result_info().sizes)


def _inferred_dims_resolved(b: TorchBuilder, x, sizes: list) -> list:
    """A `shape` element known only at run time may be the -1 to infer. torch-mlir's Linalg
    lowering of the reshape infers it at run time; its StableHLO lowering infers only a constant
    -1 and passes a run-time one on as a size (wrong numbers). So on StableHLO each run-time
    element v is v + (v == -1) * (count / others - v), `others` the product of the other elements
    (1 where it is 0, which only an element that is not -1 can meet)."""
    if any(size == -1 for size in sizes if isinstance(size, int)):
        return sizes  # the one -1 is a constant
    if all(isinstance(size, int) for size in sizes):
        return sizes
    count = b.dim_product(b.dims(x))
    resolved = []
    for i, value in enumerate(sizes):
        if isinstance(value, int):
            resolved.append(value)
            continue
        others = b.dim_product(sizes[:i] + sizes[i + 1:])
        others = b.dim_add(others, b.dim_eq(others, 0))
        inferred = b.dim_floordiv(count, others)
        resolved.append(b.dim_add(value, b.dim_mul(b.dim_eq(value, -1), b.dim_sub(inferred, value))))
    return resolved


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


def _dims_reshaped(node: OnnxNode, b: TorchBuilder):
    """A list of dims (from a `Shape`) squeezed or reshaped to rank 0 or 1 stays a list of dims."""
    result = node.result_info()
    if result.element != "si64" or result.rank not in (0, 1) or node.input_info(0).rank not in (0, 1):
        return None
    dims = node.dim_elements(0)
    if dims is None or (result.rank == 0 and len(dims) != 1):
        return None
    return b.dims_tensor(dims, result.rank)


def _unit_dims_squeezed(node: OnnxNode, sizes: list[int | None]) -> list[int]:
    """The dims a Squeeze without axes removes: every dim of size 1 and, when the result type says
    so (importer/squeeze_ranks.py types it by the reading the rest of the graph takes), every `?`
    dim as well, which must then be 1 at run time."""
    ones = [i for i, size in enumerate(sizes) if size == 1]
    unknown = [i for i, size in enumerate(sizes) if size is None]
    if not unknown:
        return ones
    result_rank = node.result_info().rank
    if result_rank == len(sizes) - len(ones):
        return ones
    if result_rank == len(sizes) - len(ones) - len(unknown):
        return sorted(ones + unknown)
    node.fail(f"without 'axes', over the dims {unknown} known only at run time, the result's rank is "
              "decided at run time; fix their sizes with --dim or --input-shape")


def _squeeze(node: OnnxNode, b: TorchBuilder, axes: list[int] | None):
    kept = _dims_reshaped(node, b)
    if kept is not None:
        return kept
    x = node.input(0)
    info = node.input_info(0)
    rank = node.rank()
    if axes is None:
        axes = _unit_dims_squeezed(node, info.sizes)
    axes = sorted({node.axis(axis, rank, "axes value") for axis in axes}, reverse=True)
    sizes = list(info.sizes)
    for count, axis in enumerate(axes, start=1):
        if sizes[axis] not in (1, None):
            node.fail(f"dim {axis} has size {sizes[axis]}, not 1")
        unknown_size = sizes[axis] is None
        del sizes[axis]
        result_type = node.result_type() if count == len(axes) else b.tensor_type(sizes, info.element)
        if unknown_size and node.target in (None, "linalg-on-tensors"):
            x = _select_only_row(node, b, x, axis, result_type)
        elif unknown_size and node.target == "stablehlo":
            x = _squeeze_checked_dim(node, b, x, axis, result_type)
        else:
            x = b.op("aten.squeeze.dim", result_type, x, b.constant_int(axis))
    return x


def _select_only_row(node: OnnxNode, b: TorchBuilder, x: ir.Value, axis: int, result_type: ir.Type) -> ir.Value:
    """Squeeze of a dim whose size is known only at run time: ONNX requires it to be 1, which a
    run-time check asserts, and the one row there is is selected. torch-mlir's Linalg lowering of
    `aten.squeeze.dim` on a `?` dim builds an invalid `tensor.collapse_shape` (it groups the `?`
    with a static neighbour), and torch's squeeze would leave a dim of another size in place."""
    size = b.dim_value(b.dim(x, axis))
    one = b.op("aten.eq.int", b.type("!torch.bool"), size, b.constant_int(1))
    b.op("torch.runtime.assert", None, one, attributes={
        "message": ir.StringAttr.get(f"Squeeze '{node.name}': dim {axis} must have size 1")})
    return b.op("aten.select.int", result_type, x, b.constant_int(axis), b.constant_int(0))


def _squeeze_checked_dim(node: OnnxNode, b: TorchBuilder, x: ir.Value, axis: int, result_type: ir.Type) -> ir.Value:
    """StableHLO: the squeeze of a dim known only at run time after the check that it is 1
    (`b.check_at_run_time`, on a tensor: StableHLO keeps no other check); the route's
    `run-time-squeezes-as-slices` squeezes it as its first row."""
    size = b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), b.dim_value(b.dim(x, axis)))
    one = b.op("aten.eq.Scalar", b.tensor_type([], "i1"), size, b.constant_int(1))
    b.check_at_run_time(one, f"Squeeze '{node.name}': dim {axis} must have size 1")
    return b.op("aten.squeeze.dim", result_type, x, b.constant_int(axis))


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
    if node.rank() == 0 and len(axes) == 1 and node.input_info(0).element == "si64":
        dims = node.dim_elements(0)  # one dim picked out of a Shape: stays a list of dims
        if dims is not None:
            return b.dims_tensor(dims)
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
