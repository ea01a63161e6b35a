"""RN32(x / d) for float32 x >= 0 and a literal divisor d = 2^a - 1 (DynamicQuantizeLinear's 255),
exactly, in float32 without division: about 30 ops where the general correctly_rounded_quotient
(exact_rounding.py) takes about 300.

1. q0 = x * RN32(1 / d) is within an ulp of RN32(x / d) (the reciprocal's error and the
   product's rounding stay under 1.5 ulps of the quotient), so the answer is q0 or a neighbour.
2. The residual x - d * q0 is exact in two float32 operations: 2^a * q0 (exact) lies within a
   factor 2 of x, so x - 2^a * q0 is exact (Sterbenz), and it lies within a factor 2 of -q0, so
   adding q0 is exact too.
3. x / d lies above q0's upper rounding edge q0 + up / 2 exactly when 2 * residual > d * up, and
   below its lower edge when 2 * residual < -d * down (up, down: the gaps to q0's neighbours,
   powers of two, so d * up is exact); it is never on an edge (d is odd).
4. x beyond 2^64 and below 2^-60 are scaled by 2^-64 / 2^64 first (exact), so nothing
   overflows and the gaps come out right below the normal range: there the gap is 2^-149,
   2^-85 after scaling.

Every product is exact, and q0 reaches the additions through a `max` (no consumer can fuse
its product into them), so a consumer that contracts products into FMAs computes the same.
The algorithm is written once against a small set of operations (`Arithmetic`) so that tests
run it on numpy over every float32 significand; `TorchArithmetic` emits it as torch ops.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from .exact_rounding import on_lanes

_LARGE, _SMALL, _SHIFT = 2.0**64, 2.0**-60, 2.0**64
_SUBNORMAL_GAP = 2.0**-149


def is_all_ones(divisor: float) -> bool:
    """Whether `divisor` is 2^a - 1 for some a >= 2 (what quotient handles)."""
    whole = int(divisor)
    return whole == divisor and whole >= 3 and (whole + 1) & whole == 0


def quotient(ops, x, divisor: int):
    """RN32(x / divisor) for float32 x >= 0 (NaN and +inf give themselves), divisor = 2^a - 1."""
    assert is_all_ones(divisor), divisor
    reciprocal = float(np.float32(1.0 / divisor))
    large, small = ops.gt(x, _LARGE), ops.lt(x, _SMALL)
    scale = ops.where(large, ops.const(1 / _SHIFT), ops.where(small, ops.const(_SHIFT), ops.const(1.0)))
    unscale = ops.where(large, ops.const(_SHIFT), ops.where(small, ops.const(1 / _SHIFT), ops.const(1.0)))
    q0 = ops.max(ops.mul(x, ops.const(reciprocal)), ops.const(0.0))  # (max: no FMA into the sums below)
    scaled_x, scaled_q = ops.mul(x, scale), ops.mul(q0, scale)
    first = _unit_in_first_place(ops, scaled_q)
    floor = ops.where(small, ops.const(_SUBNORMAL_GAP * _SHIFT), ops.const(0.0))
    up = ops.max(ops.mul(first, ops.const(2.0**-23)), floor)
    below_power = ops.where(ops.eq(scaled_q, first), ops.mul(first, ops.const(2.0**-24)),
                            ops.mul(first, ops.const(2.0**-23)))
    down = ops.max(below_power, floor)
    residual = ops.add(ops.sub(scaled_x, ops.mul(scaled_q, ops.const(float(divisor + 1)))), scaled_q)
    twice = ops.mul(residual, ops.const(2.0))
    raised = ops.gt(twice, ops.mul(up, ops.const(float(divisor))))
    lowered = ops.lt(twice, ops.neg(ops.mul(down, ops.const(float(divisor)))))
    rounded = ops.where(raised, ops.add(scaled_q, up), ops.where(lowered, ops.sub(scaled_q, down), scaled_q))
    return ops.mul(rounded, unscale)


def _unit_in_first_place(ops, p):
    """2^floor(log2(p)) for p >= 2^-100 (Rump), 0 for 0, NaN for inf or NaN."""
    q = ops.add(p, ops.mul(p, ops.const(2.0**23)))
    return ops.abs(ops.sub(q, ops.sub(q, ops.mul(q, ops.const(2.0**-24)))))


class NumpyArithmetic:
    """The operations on numpy float32 arrays (IEEE single precision, no FMA)."""

    @staticmethod
    def const(value: float):
        return np.float32(value)

    mul, add, sub = staticmethod(np.multiply), staticmethod(np.add), staticmethod(np.subtract)
    gt, lt, eq = staticmethod(np.greater), staticmethod(np.less), staticmethod(np.equal)
    abs, neg = staticmethod(np.abs), staticmethod(np.negative)

    max = staticmethod(np.maximum)

    @staticmethod
    def where(condition, x, y):
        return np.where(condition, x, y).astype(np.float32)


class TorchArithmetic:
    """The operations as torch ops on float32 tensors (constants as f32 literals: a float Scalar
    would be an f64 constant on TOSA)."""

    def __init__(self, b: TorchBuilder):
        self.b = b

    def const(self, value: float) -> ir.Value:
        return self.b.literal(np.float32(value), "f32")

    def _binary(self, name: str, x, y, element: str | None = None) -> ir.Value:
        return self.b.op(name, self.b.broadcast_type(x, y, element), x, y)

    def mul(self, x, y):
        return self._binary("aten.mul.Tensor", x, y)

    def add(self, x, y):
        return self.b.binary("aten.add.Tensor", x, y)

    def sub(self, x, y):
        return self.b.binary("aten.sub.Tensor", x, y)

    def gt(self, x, y):
        return self._binary("aten.gt.Tensor", x, self._tensor(y), "i1")

    def lt(self, x, y):
        return self._binary("aten.lt.Tensor", x, self._tensor(y), "i1")

    def eq(self, x, y):
        return self._binary("aten.eq.Tensor", x, y, "i1")

    def abs(self, x):
        return self.b.op("aten.abs", x.type, x)

    def neg(self, x):
        return self.b.negate(x)

    def max(self, x, y):
        return self._binary("aten.maximum", x, y)

    def where(self, condition, x, y):
        sizes = self.b.info(self.b.broadcast_type(condition, x)).sizes
        value_type = self.b.broadcast_type(x, y)
        result = self.b.tensor_type(_broadcast(sizes, self.b.info(value_type).sizes), "f32")
        return self.b.op("aten.where.self", result, condition, x, y)

    def _tensor(self, value):
        return self.const(value) if isinstance(value, float) else value


def _broadcast(left, right):
    rank = max(len(left), len(right))
    left, right = [1] * (rank - len(left)) + list(left), [1] * (rank - len(right)) + list(right)
    return [r if l == 1 else l for l, r in zip(left, right)]


@on_lanes
def torch_quotient(b: TorchBuilder, x: ir.Value, divisor: int) -> ir.Value:
    """`quotient` emitted as torch ops on a float32 tensor x."""
    return quotient(TorchArithmetic(b), x, divisor)
