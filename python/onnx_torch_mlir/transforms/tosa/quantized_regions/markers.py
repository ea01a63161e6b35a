"""Reading the QuantizeLinear/DequantizeLinear marker `tosa.custom`s, and uint8's int8 form.

A marker's operands are its input and its float computation; its `implementation_attrs` hold the
scale, zero point and axis as JSON (and `"unsigned": true` for uint8, which TOSA holds as i8 bits).
uint8 is computed as int8: q - 128 with the zero point moved by 128 has the same real values; the
int8 form of uint8 bits is those bits with the top bit flipped (`tosa.bitwise_xor` with -128).
"""

from __future__ import annotations

import json

import numpy as np
from torch_mlir import ir

from ....conversion.onnx_to_torch.quantization.tosa_markers import DEQUANTIZE, QUANTIZE
from .integers import IntegerBuilder, element, integer_constant, shape

MARKER_DOMAIN = "onnx_torch_mlir"
FLIP = -128  # uint8 bits <-> int8 q - 128: the top bit flipped


def is_marker(op: ir.Operation) -> bool:
    if op.name != "tosa.custom":
        return False
    return ir.StringAttr(op.attributes["domain_name"]).value == MARKER_DOMAIN and operator(op) in (QUANTIZE, DEQUANTIZE)


def operator(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["operator_name"]).value


def parameters(marker: ir.Operation) -> dict:
    return json.loads(ir.StringAttr(marker.attributes["implementation_attrs"]).value)


def signed(marker_parameters: dict) -> dict:
    """The parameters of a uint8 quantization for its int8 form q - 128 (the zero point moved by 128:
    the real values are the same)."""
    if not marker_parameters.get("unsigned"):
        return marker_parameters
    moved = dict(marker_parameters, zero_point=[zero_point - 128 for zero_point in marker_parameters["zero_point"]])
    del moved["unsigned"]
    return moved


def flipped(value: ir.Value, before: ir.Operation) -> ir.Value:
    """`value` (i8) with its top bit flipped: uint8 bits as int8 minus 128, and back."""
    b = IntegerBuilder(before, before.location)
    flip = b.constant(np.full([1] * len(shape(value)), FLIP), 8)
    return b.create("tosa.bitwise_xor", value.type, [value, flip])


def is_flip(op: ir.Operation) -> bool:
    values = integer_constant(op.operands[1])
    return values is not None and element(op.operands[0]) == "i8" and bool(np.all(values == FLIP))


def unsigned_for_others(marker: ir.Operation, integer: ir.Value | None) -> ir.Value:
    """A uint8 QuantizeLinear marker's DequantizeLinear markers read its int8 form (`integer`, or
    the flipped bits of its float computation) with their parameters made signed; what its other
    readers get: the uint8 bits."""
    dequantizations_read_signed(marker, integer if integer is not None else flipped(marker.operands[1], marker))
    return flipped(integer, marker) if integer is not None else marker.operands[1]


def dequantizations_read_signed(marker: ir.Operation, signed_value: ir.Value) -> None:
    """The uint8 DequantizeLinear markers reading `marker`'s result read `signed_value` (its int8 form)."""
    for use in list(marker.results[0].uses):
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if use.operand_number == 0 and is_marker(user) and operator(user) == DEQUANTIZE \
                and parameters(user).get("unsigned"):
            user.operands[0] = signed_value
            user.attributes["implementation_attrs"] = ir.StringAttr.get(
                json.dumps(signed(parameters(user)), separators=(",", ":")))


def quantize_marker_reading(value: ir.Value):
    """The static per-tensor QuantizeLinear markers that read `value` (as their input)."""
    for use in value.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if use.operand_number == 0 and is_marker(user) and operator(user) == QUANTIZE:
            yield user

