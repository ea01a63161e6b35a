"""Elementwise arithmetic: Add, Sub, Mul, Div, Neg, Abs, Exp, Log, Sqrt, Reciprocal, ...

Binary ops broadcast multidirectionally (numpy rules) from opset 7 on, which is
what torch's `aten.*.Tensor` ops do. Before opset 7 (since_versions 1 and 6) they
broadcast only one way, B onto A, and only when `broadcast=1`: B's dims line
up with A's from `axis` on (or with A's trailing dims when `axis` is absent).
"""

from __future__ import annotations

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def legacy_broadcast_operand(node: OnnxNode, b: TorchBuilder):
    """Operand B of an opset<7 binary op, reshaped so that numpy broadcasting gives ONNX's result.

    With `broadcast=1` and `axis`, B's dims are placed at A's dims axis..axis+rank(B)-1:
    trailing size-1 dims are appended to B. Without `axis` suffix matching is numpy's
    own rule; with `broadcast=0` the shapes are equal.
    """
    rhs = node.input(1)
    if not node.attr_int("broadcast", 0) or not node.has_attr("axis"):
        return rhs
    lhs_rank, rhs_rank = node.input_info(0).rank, node.input_info(1).rank
    if lhs_rank is None or rhs_rank is None:
        node.fail("broadcast with 'axis' needs ranked inputs")
    axis = node.attr_int("axis")
    axis = axis + lhs_rank if axis < 0 else axis
    trailing = lhs_rank - axis - rhs_rank
    if axis < 0 or trailing < 0:
        node.fail(f"axis {node.attr_int('axis')} does not place a rank-{rhs_rank} B inside a rank-{lhs_rank} A")
    for _ in range(trailing):
        rhs = b.unsqueeze(rhs, -1)
    return rhs


def _add_like(torch_op: str, node: OnnxNode, b: TorchBuilder, rhs):
    return b.op(torch_op, node.result_type(), node.input(0), rhs, b.constant_int(1))


def _divide(node: OnnxNode, b: TorchBuilder, rhs):
    """Integer Div truncates toward zero (C semantics), as `rounding_mode="trunc"` does."""
    if node.result_info().is_integer:
        return b.op("aten.div.Tensor_mode", node.result_type(), node.input(0), rhs, b.constant_string("trunc"))
    return b.op("aten.div.Tensor", node.result_type(), node.input(0), rhs)


@converts("Add", since=1)
def add_legacy(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.add.Tensor", node, b, legacy_broadcast_operand(node, b))


@converts("Add", since=7)
def add(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.add.Tensor", node, b, node.input(1))


@converts("Sub", since=1)
def sub_legacy(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.sub.Tensor", node, b, legacy_broadcast_operand(node, b))


@converts("Sub", since=7)
def sub(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.sub.Tensor", node, b, node.input(1))


@converts("Mul", since=1)
def mul_legacy(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.mul.Tensor", node.result_type(), node.input(0), legacy_broadcast_operand(node, b))


@converts("Mul", since=7)
def mul(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.mul.Tensor", node.result_type(), node.input(0), node.input(1))


@converts("Div", since=1)
def div_legacy(node: OnnxNode, b: TorchBuilder):
    return _divide(node, b, legacy_broadcast_operand(node, b))


@converts("Div", since=7)
def div(node: OnnxNode, b: TorchBuilder):
    return _divide(node, b, node.input(1))


# Unary ops that are one torch op with the same semantics at every opset
# (later versions only widened the type lists or dropped `consumed_inputs`).
UNARY = {
    "Abs": "aten.abs",
    "Neg": "aten.neg",
    "Exp": "aten.exp",
    "Log": "aten.log",
    "Sqrt": "aten.sqrt",
    "Reciprocal": "aten.reciprocal",
    "Floor": "aten.floor",
    "Ceil": "aten.ceil",
    "Round": "aten.round",  # both round half to even
}


def _unary_pattern(op_type: str, torch_op: str):
    def unary(node: OnnxNode, b: TorchBuilder):
        return b.op(torch_op, node.result_type(), node.input(0))

    unary.__name__ = unary.__qualname__ = op_type.lower()
    unary.__doc__ = f"{op_type}(X) = {torch_op}(X)."
    return unary


for _op_type, _torch_op in UNARY.items():
    converts(_op_type, since=11 if _op_type == "Round" else 1)(_unary_pattern(_op_type, _torch_op))


@converts("Identity", since=1)
def identity(node: OnnxNode, b: TorchBuilder):
    """Identity is its input, whatever its type (tensor, sequence, optional)."""
    return node.input(0)
