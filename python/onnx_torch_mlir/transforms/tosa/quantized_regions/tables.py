"""Elementwise float functions of one int8 tensor as a `tosa.table`.

Sigmoid, Tanh, HardSwish, GELU's erf form, chains of them with scalar constants: the float ops of
`TABLE_OPS` evaluated in numpy at the 256 int8 values and quantized (as TensorFlow Lite's TOSA
legalization builds its tables).
"""

from __future__ import annotations

import math

import numpy as np
from torch_mlir import ir

from ...torch.rewriting import defining_op
from .integers import IntegerBuilder, element, float_constant, quantized, shape, static

# Elementwise float TOSA ops a table can hold: numpy on float32, given the operands' values and the op.
TABLE_OPS = {
    "tosa.sigmoid": lambda a, op: 1 / (1 + np.exp(-a[0])),
    "tosa.tanh": lambda a, op: np.tanh(a[0]),
    "tosa.exp": lambda a, op: np.exp(a[0]),
    "tosa.log": lambda a, op: np.log(a[0]),
    "tosa.erf": lambda a, op: _erf(a[0]),
    "tosa.abs": lambda a, op: np.abs(a[0]),
    "tosa.negate": lambda a, op: -a[0],
    "tosa.reciprocal": lambda a, op: 1 / a[0],
    "tosa.rsqrt": lambda a, op: 1 / np.sqrt(a[0]),
    "tosa.floor": lambda a, op: np.floor(a[0]),
    "tosa.ceil": lambda a, op: np.ceil(a[0]),
    "tosa.add": lambda a, op: a[0] + a[1],
    "tosa.sub": lambda a, op: a[0] - a[1],
    "tosa.mul": lambda a, op: a[0] * a[1],
    "tosa.pow": lambda a, op: np.power(a[0], a[1]),
    "tosa.maximum": lambda a, op: np.maximum(a[0], a[1]),
    "tosa.minimum": lambda a, op: np.minimum(a[0], a[1]),
    "tosa.clamp": lambda a, op: np.clip(a[0], ir.FloatAttr(op.attributes["min_val"]).value,
                                        ir.FloatAttr(op.attributes["max_val"]).value),
}
_TABLE_OPERANDS = {"tosa.negate": 1, "tosa.mul": 2}  # the rest are zero points and the shift


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[np.float64])(x)


def looked_up(walk, value: ir.Value, scale: float, zero_point: int) -> ir.Value | None:
    """An elementwise float computation of one int8 tensor (Sigmoid, Tanh, HardSwish, SiLU's
    x * sigmoid(x), ...) as a `tosa.table`: the computation evaluated at the 256 int8 values and
    quantized."""
    found = _elementwise_of_one(walk, value)
    if found is None:
        return None
    source, values = found
    b = IntegerBuilder(defining_op(value), defining_op(value).location)
    table = b.constant(quantized(values, scale, zero_point), 8)
    return b.create("tosa.table", ir.RankedTensorType.get(shape(value), b.integer(8)), [source.value, table])


def _elementwise_of_one(walk, value: ir.Value):
    """(the int8 form, the values at its 256 codes) when `value` is an elementwise float function
    (`TABLE_OPS`, scalar constants) of one per-tensor int8 tensor of its shape, else None."""
    sources: dict = {}
    codes = np.arange(-128, 128, dtype=np.float64)
    evaluated: dict = {}

    def evaluate(v: ir.Value, depth: int):
        if v in evaluated:
            return evaluated[v]
        result = None
        form = walk.exact(v) if static(v.type) else None
        constant = float_constant(v)
        op = defining_op(v)
        if form is not None and form.array is not None and constant is None:  # a dequantized constant
            constant = form.real()
        if constant is not None:
            flat = np.asarray(constant).reshape(-1)
            result = np.full(256, flat[0]) if flat.size and np.all(flat == flat[0]) else None
        elif form is not None and form.array is None and form.bits == 8 and form.per_tensor_scale() is not None \
                and shape(v) == shape(value):
            sources[form.value] = form
            result = form.per_tensor_scale() * (codes - form.zero_point)
        elif op is not None and op.name in TABLE_OPS and depth < 64 and shape(v) == shape(value) \
                and element(v) == "f32":
            count = _TABLE_OPERANDS.get(op.name, len(op.operands))
            operands = [evaluate(operand, depth + 1) for operand in list(op.operands)[:count]]
            if all(operand is not None for operand in operands):
                with np.errstate(all="ignore"):
                    result = np.asarray(TABLE_OPS[op.name]([o.astype(np.float32) for o in operands], op),
                                        np.float64)
        evaluated[v] = result
        return result

    values = evaluate(value, 0)
    if values is None or len(sources) != 1 or defining_op(value) is None:
        return None
    if walk.exact(value) is not None:
        return None  # a plain rescale
    return next(iter(sources.values())), values
