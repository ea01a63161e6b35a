"""Comparison, logic and bitwise ops: Equal, Greater, Less, GreaterOrEqual, LessOrEqual,
And, Or, Xor, Not, BitwiseAnd/Or/Xor/Not, BitShift.

Before opset 7 the binary ones broadcast B onto A only with `broadcast=1`
(see `OnnxNode.legacy_broadcast_input`).
"""

from __future__ import annotations

from .builder import TorchBuilder
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
        rhs = node.legacy_broadcast_input(b) if legacy else node.input(1)
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


def _shift(b: TorchBuilder, direction: str, x, amount, sizes):
    """x shifted by `amount`, every amount in [0, bit width): the shift instructions of the
    backends give anything beyond. A right shift is arithmetic for signed x, and logical for
    unsigned x only on Linalg (TOSA and StableHLO lower it arithmetic too)."""
    torch_op = "aten.bitwise_left_shift.Tensor" if direction == "LEFT" else "aten.bitwise_right_shift.Tensor"
    return b.op(torch_op, b.tensor_type(sizes, b.info(x).element), x, amount)


def _bitwise_and(b: TorchBuilder, x, mask: int):
    info = b.info(x)
    return b.op("aten.bitwise_and.Scalar", b.tensor_type(info.sizes, info.element), x, b.constant_int(mask))


# Unsigned tensors take only some ops on every backend: torch-mlir aborts on a cast to ui16
# or ui64, a `where` with a scalar, `ones_like` or a subtraction on Linalg, and TOSA rejects
# its own unsigned constants. Bitwise ops with a scalar, add.Scalar, compare and where.self
# are safe, so zeros are `x & 0` and ones `(x & 0) + 1`.
def _logical_right_shift(b: TorchBuilder, x, amount, bits: int, zeros, sizes):
    """Unsigned x >> amount for amount in [0, bits), the same whether the backend shifts
    logically or arithmetically: the top bit is cleared before the shift and put back at
    bit (bits - 1 - amount) after it."""
    info = b.info(x)
    low_bits = _bitwise_and(b, x, (1 << (bits - 1)) - 1)
    shifted_low = _shift(b, "RIGHT", low_bits, amount, sizes)
    top_set = b.op("aten.ne.Tensor", b.tensor_type(info.sizes, "i1"), x, low_bits)
    ones = b.op("aten.add.Scalar", zeros.type, zeros, b.constant_int(1), b.constant_int(1))
    top = b.op("aten.where.self", zeros.type, top_set, ones, zeros)
    # (bits - 1) - amount, as ~amount & (bits - 1).
    top_position = _bitwise_and(b, b.op("aten.bitwise_not", amount.type, amount), bits - 1)
    shifted_top = _shift(b, "LEFT", top, top_position, sizes)
    return b.op("aten.bitwise_or.Tensor", b.tensor_type(sizes, info.element), shifted_low, shifted_top)


@converts("BitShift", since=11)
def bit_shift(node: OnnxNode, b: TorchBuilder):
    """Z = X << Y or X >> Y (direction 'LEFT' or 'RIGHT'); arithmetic right shift for signed T.

    Opset 11 has unsigned T only, opset 28 adds the signed types and defines a shift by a
    negative Y or one >= the bit width: 0, or -1 for a right shift of a negative X (the
    sign fill). That is what onnxruntime gives for opset 11's unsigned types too, so one
    pattern serves both. Backends leave such shifts undefined: the pattern shifts by
    Y mod width and selects the defined result where Y is out of range."""
    direction = node.attr_string("direction")
    if direction not in ("LEFT", "RIGHT"):
        node.fail(f"direction '{direction}' is not 'LEFT' or 'RIGHT'")
    x, y = node.input(0), node.input(1)
    info = node.input_info(0)
    if not info.is_integer:
        node.fail(f"element type {info.element} is not an integer type")
    bits = int(info.element.lstrip("sui"))
    # bits is a power of two: y & (bits - 1) == y exactly when 0 <= y < bits, signed or not.
    amount = _bitwise_and(b, y, bits - 1)
    in_range = b.op("aten.eq.Tensor", b.tensor_type(b.info(y).sizes, "i1"), y, amount)
    if direction == "RIGHT" and info.element.startswith("si"):
        # Shifting by bits - 1 is the sign fill.
        amount = b.op("aten.where.ScalarOther", amount.type, in_range, amount, b.constant_int(bits - 1))
        return _shift(b, "RIGHT", x, amount, node.result_info().sizes)
    zeros = _bitwise_and(b, x, 0)
    if direction == "RIGHT":
        shifted = _logical_right_shift(b, x, amount, bits, zeros, node.result_info().sizes)
    else:
        shifted = _shift(b, "LEFT", x, amount, node.result_info().sizes)
    return b.op("aten.where.self", node.result_type(), in_range, shifted, zeros)
