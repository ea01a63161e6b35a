"""Tensors made from attributes, sizes and index grids: Constant, ConstantOfShape, Range,
EyeLike, Trilu.

Constant keeps its tensor attribute as the literal (a weight's `dense_resource` blob is
never read; `OnnxNode.attr_literal` says which forms change). EyeLike compares index grids
(`aten.arange`). Range with run-time operands and a static declared result, and Trilu with
a run-time k, are computed from index grids too rather than by reading the number with
`aten.item`, which TOSA and StableHLO cannot lower; the declared result gives the count.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
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
    constant_k = not node.has_input(1) or node.constant_input(1) is not None
    info = node.input_info(0)
    if info.rank is not None and info.rank < 2:  # torch-mlir's StableHLO lowering of aten.tril faulted
        node.fail(f"needs an input of rank 2 or more, not rank {info.rank}")
    if info.sizes is not None and 0 in info.sizes:
        return node.input(0)  # an empty tensor is its own triangle (TOSA's lowering of the mask failed on it)
    # torch-mlir's StableHLO lowering of aten.triu/tril takes no dynamic shape ("dynamic shaped
    # input is not supported": T5's causal mask): the index grids below do.
    grids = node.target == "stablehlo" and info.sizes is not None and None in info.sizes[-2:]
    if constant_k and not grids:
        k = node.scalar_input(1, b) if node.has_input(1) else 0
        return b.op("aten.triu" if upper else "aten.tril", node.result_type(), node.input(0), b.constant_int(k))
    # A run-time k: compare against index grids rather than read k as a scalar
    # (TOSA and StableHLO have no lowering for aten.item).
    x = node.input(0)
    rank = node.rank()
    rows = b.unsqueeze(b.arange(b.dim(x, rank - 2)), 1)
    columns = b.unsqueeze(b.arange(b.dim(x, rank - 1)), 0)
    sizes = [info.sizes[-2], info.sizes[-1]]
    offset = b.op("aten.sub.Tensor", b.tensor_type(sizes, "si64"), columns, rows, b.constant_int(1))
    if constant_k:
        k = node.scalar_input(1, b) if node.has_input(1) else 0
        compare, k = ("aten.ge.Scalar" if upper else "aten.le.Scalar"), b.constant_int(k)
    else:
        compare, k = ("aten.ge.Tensor" if upper else "aten.le.Tensor"), b.to_dtype(node.input(1), "si64")
    keep = b.op(compare, b.tensor_type(sizes, "i1"), offset, k)
    return b.op("aten.where.ScalarOther", node.result_type(), keep, x, b.constant_scalar(0, info.element))
