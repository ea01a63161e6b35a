"""`tosa.pow` by a constant whole-number exponent as products, defined for a negative base.

TOSA's POW is defined only for a base >= 0 (and a base of 0 only with an exponent > 0): the
specification's pseudocode has `REQUIRE(x >= 0)`, and Arm's reference model stops there ("REQUIRE()
fails AT .../ops/ewise_binary.cpp:617: (x >= 0)"). torch-mlir's TOSA lowering turns every ONNX Pow,
aten.pow.Tensor_Scalar included, into `tosa.pow`, so GPT-2's tanh GELU (`x^3`), the RMS norms of T5
and LLaMA (`x^2`) and a variance (`(x - mean)^2`) rely on what the specification leaves undefined;
MLIR's lowering to Linalg (`powf`) happens to give the right sign, which is why our runner and IREE
never showed it.

A float `tosa.pow` whose exponent is a `tosa.const` splat of a whole number n with |n| <= 64 becomes
products by repeated squaring (x^2 = x*x, x^3 = x^2*x, ...; at most 2*log2(n) `tosa.mul`), then a
`tosa.reciprocal` for n < 0; n = 0 becomes a constant 1 (ONNX's and C's pow(x, 0), NaN and 0 included).
The products are what ONNX's Pow computes for a negative base, and as exact as a pow for a positive
one (a few ulps for large n). Only a pow whose base already has the result's shape is rewritten (a
base broadcast by the exponent is rare and keeps its pow). Other exponents (0.5, run-time ones) keep
`tosa.pow`: for a negative base ONNX's answer is NaN, which the specification does not promise either.

It can go when torch-mlir's TorchToTosa lowers a pow by a whole-number scalar to products (its
Linalg lowering of aten.pow.Tensor_Scalar does not need to).

Runs after torch-mlir's TOSA pipeline (it rewrites `tosa.pow`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ...ir_walk import ops_named

_FLOATS = ("f16", "bf16", "f32")
_LARGEST_EXPONENT = 64


def integer_powers_as_products(module: ir.Module) -> None:
    """Rewrite every `tosa.pow` of the module docstring."""
    with module.context:
        for power in ops_named(module, {"tosa.pow"}):
            exponent = _whole_number_exponent(power)
            if exponent is not None and power.operands[0].type == power.results[0].type:
                constant = power.operands[1].owner
                with power.location:
                    power.results[0].replace_all_uses_with(_product(power, exponent))
                power.erase()
                if not list(constant.results[0].uses):
                    constant.erase()


def _whole_number_exponent(power: ir.Operation) -> int | None:
    result_type = ir.RankedTensorType(power.results[0].type)
    if str(result_type.element_type) not in _FLOATS:
        return None
    owner = power.operands[1].owner
    if isinstance(owner, ir.Block) or owner.name != "tosa.const":
        return None
    values = owner.attributes["values"]
    if not isinstance(values, ir.DenseElementsAttr) or not values.is_splat:
        return None
    value = _splat_float(values)
    if value is None or not np.isfinite(value) or value != round(value) or abs(value) > _LARGEST_EXPONENT:
        return None
    return int(value)


def _splat_float(values: ir.DenseElementsAttr) -> float | None:
    splat = values.get_splat_value()
    try:
        return float(ir.FloatAttr(splat).value)
    except (ValueError, TypeError):
        return None


def _product(power: ir.Operation, exponent: int) -> ir.Value:
    """x^exponent of the pow's base, built before `power`."""
    base = power.operands[0]
    result_type = power.results[0].type
    ip = ir.InsertionPoint(power)
    if exponent == 0:
        element = ir.RankedTensorType(result_type).element_type
        one = ir.DenseElementsAttr.get_splat(result_type, ir.FloatAttr.get(element, 1.0))
        return ir.Operation.create("tosa.const", results=[result_type], attributes={"values": one}, ip=ip).results[0]
    shift_type = ir.RankedTensorType.get([1], ir.IntegerType.get_signless(8))
    shift = ir.Operation.create("tosa.const", results=[shift_type], ip=ip, attributes={
        "values": ir.DenseElementsAttr.get_splat(shift_type, ir.IntegerAttr.get(ir.IntegerType.get_signless(8), 0))}
    ).results[0]

    def multiply(left: ir.Value, right: ir.Value) -> ir.Value:
        return ir.Operation.create("tosa.mul", results=[result_type], operands=[left, right, shift], ip=ip).results[0]

    result = None
    square = base
    remaining = abs(exponent)
    while remaining:
        if remaining & 1:
            result = square if result is None else multiply(result, square)
        remaining >>= 1
        if remaining:
            square = multiply(square, square)
    if exponent < 0:
        result = ir.Operation.create("tosa.reciprocal", results=[result_type], operands=[result], ip=ip).results[0]
    return result
