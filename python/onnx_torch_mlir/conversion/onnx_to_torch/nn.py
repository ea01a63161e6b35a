"""Neural-network ops, part 1: MatMul, Gemm, Einsum, and the helpers the other nn modules share.

The family is split in four modules: this one (products), `nn_conv` (Conv, ConvTranspose),
`nn_pool` (MaxPool, AveragePool, LpPool, the global pools, MaxRoiPool) and `nn_norm`
(BatchNormalization, InstanceNormalization, LayerNormalization, GroupNormalization,
LpNormalization, LRN, MeanVarianceNormalization).

The helpers below (elementwise arithmetic with computed result types, padding, slicing,
ONNX `pads`/`auto_pad` resolution) are small compositions that belong in `TorchBuilder`;
they live here until the builder grows them.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

INT64_MAX = 2**63 - 1


# -- helpers shared by the nn modules (candidates for TorchBuilder) ------------------------------


def sizes_or_fail(node: OnnxNode, index: int, what: str = "input") -> list:
    """The sizes of input `index` (None per dynamic dim); the node fails if it is unranked."""
    info = node.input_info(index)
    if info.rank is None:
        node.fail(f"{what} {index} needs a static rank")
    return list(info.sizes)


def binary(b: TorchBuilder, torch_op: str, x: ir.Value, y: ir.Value, result_type: ir.Type | None = None):
    """`aten.add/sub.Tensor` (with alpha 1) or `aten.mul/div.Tensor`, numpy-broadcast result type."""
    result_type = result_type or b.broadcast_type(x, y)
    if torch_op in ("aten.add.Tensor", "aten.sub.Tensor"):
        return b.op(torch_op, result_type, x, y, b.constant_int(1))
    return b.op(torch_op, result_type, x, y)


def scalar_op(b: TorchBuilder, torch_op: str, x: ir.Value, scalar: float, result_type: ir.Type | None = None):
    """`aten.{add,sub}.Scalar` (alpha 1), `aten.{mul,div,pow}.Tensor_Scalar`-like ops with a float."""
    result_type = result_type or same_type(b, x)
    value = b.constant_float(scalar)
    if torch_op in ("aten.add.Scalar", "aten.sub.Scalar"):
        return b.op(torch_op, result_type, x, value, b.constant_int(1))
    return b.op(torch_op, result_type, x, value)


def unary(b: TorchBuilder, torch_op: str, x: ir.Value) -> ir.Value:
    """A same-shape, same-type unary op (`aten.sqrt`, `aten.abs`, ...)."""
    return b.op(torch_op, x.type, x)


def same_type(b: TorchBuilder, x: ir.Value) -> ir.Type:
    info = b.info(x)
    return b.tensor_type(info.sizes, info.element)


def cast_to(b: TorchBuilder, value: ir.Value, result_type: ir.Type) -> ir.Value:
    """`value` retyped to `result_type` (same element type; sizes more or less static)."""
    if value.type == result_type:
        return value
    return b.op("tensor_static_info_cast", result_type, value)


def unsqueeze_trailing(b: TorchBuilder, x: ir.Value, count: int) -> ir.Value:
    """Append `count` size-1 dims: a per-channel [C] vector becomes [C, 1, ..., 1]."""
    for _ in range(count):
        x = b.unsqueeze(x, -1)
    return x


def reduce_mean(b: TorchBuilder, x: ir.Value, dims: list[int], keepdim: bool = True) -> ir.Value:
    info = b.info(x)
    rank = info.rank
    dims = [d + rank if d < 0 else d for d in dims]
    if keepdim:
        sizes = [1 if i in dims else s for i, s in enumerate(info.sizes)]
    else:
        sizes = [s for i, s in enumerate(info.sizes) if i not in dims]
    return b.op(
        "aten.mean.dim", b.tensor_type(sizes, info.element), x, b.int_list(dims), b.constant_bool(keepdim),
        b.constant_none(),
    )


def pad_spatial(b: TorchBuilder, x: ir.Value, begins: list[int], ends: list[int], value: float) -> ir.Value:
    """`aten.constant_pad_nd` of the trailing len(begins) dims of x (negative pads crop)."""
    if not any(begins) and not any(ends):
        return x
    info = b.info(x)
    count = len(begins)
    pad = []
    for i in reversed(range(count)):  # torch lists the last dim first
        pad += [begins[i], ends[i]]
    sizes = list(info.sizes)
    for i in range(count):
        dim = info.rank - count + i
        if sizes[dim] is not None:
            sizes[dim] += begins[i] + ends[i]
    return b.op("aten.constant_pad_nd", b.tensor_type(sizes, info.element), x, b.int_list(pad), b.constant_float(value))


def slice_dim(b: TorchBuilder, x: ir.Value, dim: int, start: int, end_from_back: int) -> ir.Value:
    """x[start : size - end_from_back] along `dim` (both >= 0)."""
    if start == 0 and end_from_back == 0:
        return x
    info = b.info(x)
    sizes = list(info.sizes)
    if sizes[dim] is not None:
        sizes[dim] = max(sizes[dim] - start - end_from_back, 0)
    end = -end_from_back if end_from_back else INT64_MAX
    return b.op(
        "aten.slice.Tensor", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(start),
        b.constant_int(end), b.constant_int(1),
    )


def slice_range(b: TorchBuilder, x: ir.Value, dim: int, start: int, end: int) -> ir.Value:
    """x[start:end] along `dim` (non-negative bounds)."""
    info = b.info(x)
    sizes = list(info.sizes)
    sizes[dim] = end - start
    return b.op(
        "aten.slice.Tensor", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(start),
        b.constant_int(end), b.constant_int(1),
    )


def spatial_ints(node: OnnxNode, name: str, count: int, default: int) -> list[int]:
    """An ints attribute with one value per spatial dim (`strides`, `dilations`), checked."""
    values = node.attr_ints(name, None)
    if values is None:
        return [default] * count
    if len(values) != count:
        node.fail(f"attribute '{name}' has {len(values)} values for {count} spatial dims")
    return values


def resolve_pads(node: OnnxNode, spatial_sizes, kernel, strides, dilations) -> tuple[list[int], list[int]]:
    """(begins, ends) per spatial dim from `auto_pad` and `pads` (Conv and the pools).

    SAME_UPPER/SAME_LOWER give output size ceil(in / stride); with stride 1 the padding does
    not depend on the input size, otherwise the spatial size must be static.
    """
    count = len(kernel)
    auto_pad = node.attr_string("auto_pad", "NOTSET") or "NOTSET"
    if auto_pad == "NOTSET":
        pads = node.attr_ints("pads", None) or [0] * (2 * count)
        if len(pads) != 2 * count:
            node.fail(f"attribute 'pads' has {len(pads)} values for {count} spatial dims")
        return list(pads[:count]), list(pads[count:])
    if auto_pad == "VALID":
        return [0] * count, [0] * count
    if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        node.fail(f"auto_pad '{auto_pad}' is not supported")
    begins, ends = [], []
    for i in range(count):
        if kernel[i] is None:
            node.fail(f"auto_pad {auto_pad} needs a static kernel size")
        effective = (kernel[i] - 1) * dilations[i] + 1
        if strides[i] == 1:
            total = effective - 1
        else:
            size = spatial_sizes[i]
            if size is None:
                node.fail(f"auto_pad {auto_pad} with stride {strides[i]} needs a static spatial size (dim {i + 2})")
            out = -(-size // strides[i])
            total = max((out - 1) * strides[i] + effective - size, 0)
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins, ends


# -- MatMul, Gemm, Einsum -----------------------------------------------------------------------


@converts("MatMul", since=1)
def matmul(node: OnnxNode, b: TorchBuilder):
    """numpy.matmul: 1-D operands are promoted and the added dim removed, batch dims broadcast.

    A 1-D operand next to an N-D one (N > 2) is promoted here, because torch-mlir's backends
    lower only some of those `aten.matmul` forms."""
    lhs, rhs = node.input(0), node.input(1)
    lhs_rank, rhs_rank = node.input_info(0).rank, node.input_info(1).rank
    ranked = None not in (lhs_rank, rhs_rank, node.result_info().rank)
    if not ranked or (lhs_rank == 1) == (rhs_rank == 1) or max(lhs_rank, rhs_rank) <= 2:
        return b.op("aten.matmul", node.result_type(), lhs, rhs)
    squeeze = -2 if lhs_rank == 1 else -1
    lhs = b.unsqueeze(lhs, 0) if lhs_rank == 1 else lhs
    rhs = b.unsqueeze(rhs, -1) if rhs_rank == 1 else rhs
    result = node.result_info()
    sizes = list(result.sizes)
    sizes.insert(len(sizes) + 1 + squeeze, 1)
    product = b.op("aten.matmul", b.tensor_type(sizes, result.element), lhs, rhs)
    return b.op("aten.squeeze.dim", node.result_type(), product, b.constant_int(squeeze))


def _transpose_2d(b: TorchBuilder, x: ir.Value) -> ir.Value:
    sizes = b.info(x).sizes
    return b.op(
        "aten.transpose.int", b.tensor_type(list(reversed(sizes)), b.info(x).element), x, b.constant_int(0),
        b.constant_int(1),
    )


def _gemm(node: OnnxNode, b: TorchBuilder, c: ir.Value | None):
    """Y = alpha * A' @ B' + beta * C, A' = A^T if transA, B' = B^T if transB; C broadcasts to Y."""
    a, bb = node.input(0), node.input(1)
    for index in (0, 1):
        if node.input_info(index).rank != 2:
            node.fail(f"input {index} must have rank 2, not {node.input_info(index).rank}")
    if node.attr_int("transA"):
        a = _transpose_2d(b, a)
    if node.attr_int("transB"):
        bb = _transpose_2d(b, bb)
    alpha, beta = node.attr_float("alpha"), node.attr_float("beta")
    result = node.result_info()
    product_type = b.tensor_type([b.info(a).sizes[0], b.info(bb).sizes[1]], result.element)
    last = c is None and alpha == 1.0
    product = b.op("aten.mm", node.result_type() if last else product_type, a, bb)
    if alpha != 1.0:
        product = scalar_op(b, "aten.mul.Scalar", product, alpha, node.result_type() if c is None else product_type)
    if c is None:
        return product
    if beta != 1.0:
        c = scalar_op(b, "aten.mul.Scalar", c, beta)
    return binary(b, "aten.add.Tensor", product, c, node.result_type())


@converts("Gemm", since=1)
def gemm_required_c(node: OnnxNode, b: TorchBuilder):
    """Opsets 1-10: C is required. The opset 1/6 `broadcast` attribute needs nothing: with
    broadcast=0 C already has Y's shape, and with broadcast=1 numpy broadcasting is the rule."""
    return _gemm(node, b, node.input(2))


@converts("Gemm", since=11)
def gemm(node: OnnxNode, b: TorchBuilder):
    """From opset 11 C is optional."""
    return _gemm(node, b, node.optional_input(2))


@converts("Einsum", since=12)
def einsum(node: OnnxNode, b: TorchBuilder):
    """numpy.einsum. The identity form (one operand, output subscripts equal to the input's,
    e.g. "->" on a scalar) is the operand itself: torch-mlir's einsum decomposition runs out
    of memory on it."""
    equation = node.attr_string("equation").replace(" ", "")
    inputs = node.inputs()
    if len(inputs) == 1 and "->" in equation and len(set(equation.split("->")[0])) == len(equation.split("->")[0]):
        lhs, rhs = equation.split("->")
        if lhs == rhs:
            return cast_to(b, inputs[0], node.result_type())
    operands = b.tensor_list(inputs)
    return b.op("aten.einsum", node.result_type(), b.constant_string(equation), operands, b.constant_none())


def product_of(sizes) -> int | None:
    """The product of static sizes, None if any is dynamic."""
    if sizes is None or any(s is None for s in sizes):
        return None
    return math.prod(sizes)

