"""Comparison, logic and bitwise ops: Equal, Greater, Less, GreaterOrEqual, LessOrEqual,
And, Or, Xor, Not, BitwiseAnd/Or/Xor/Not, BitShift.

Before opset 7 the binary ones broadcast B onto A only with `broadcast=1`
(see `elementwise.legacy_broadcast_operand`).
"""

from __future__ import annotations

from .builder import TorchBuilder
from .elementwise import legacy_broadcast_operand
from .node import OnnxNode
from .registry import converts

# op_type -> (torch op, first since_version, since_version of numpy broadcasting or None)
BINARY = {
    "Equal": ("aten.eq.Tensor", 1, 7),
    "Greater": ("aten.gt.Tensor", 1, 7),
    "Less": ("aten.lt.Tensor", 1, 7),
    "GreaterOrEqual": ("aten.ge.Tensor", 12, None),
    "LessOrEqual": ("aten.le.Tensor", 12, None),
    "And": ("aten.logical_and", 1, 7),
    "Or": ("aten.logical_or", 1, 7),
    "Xor": ("aten.logical_xor", 1, 7),
    "BitwiseAnd": ("aten.bitwise_and.Tensor", 18, None),
    "BitwiseOr": ("aten.bitwise_or.Tensor", 18, None),
    "BitwiseXor": ("aten.bitwise_xor.Tensor", 18, None),
}


def _binary_pattern(torch_op: str, legacy: bool):
    def pattern(node: OnnxNode, b: TorchBuilder):
        rhs = legacy_broadcast_operand(node, b) if legacy else node.input(1)
        return b.op(torch_op, node.result_type(), node.input(0), rhs)

    return pattern


for _op_type, (_torch_op, _first, _numpy_since) in BINARY.items():
    if _numpy_since is None:
        converts(_op_type, since=_first)(_binary_pattern(_torch_op, legacy=False))
    else:
        converts(_op_type, since=_first)(_binary_pattern(_torch_op, legacy=True))
        converts(_op_type, since=_numpy_since)(_binary_pattern(_torch_op, legacy=False))


@converts("Not", since=1)
def logical_not(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.logical_not", node.result_type(), node.input(0))


@converts("BitwiseNot", since=18)
def bitwise_not(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.bitwise_not", node.result_type(), node.input(0))


@converts("BitShift", since=11)
def bit_shift(node: OnnxNode, b: TorchBuilder):
    """Unsigned integers only in ONNX; direction 'LEFT' or 'RIGHT' (logical shift)."""
    direction = node.attr_string("direction")
    torch_op = {"LEFT": "aten.bitwise_left_shift.Tensor", "RIGHT": "aten.bitwise_right_shift.Tensor"}.get(direction)
    if torch_op is None:
        node.fail(f"direction '{direction}' is not 'LEFT' or 'RIGHT'")
    return b.op(torch_op, node.result_type(), node.input(0), node.input(1))
