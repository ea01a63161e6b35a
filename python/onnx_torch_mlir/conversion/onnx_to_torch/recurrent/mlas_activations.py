"""Sigmoid and Tanh as onnxruntime's CPU recurrent kernels compute them: the rational approximations
of its MLAS library (mlas/lib/logistic.cpp and tanh.cpp, the Eigen coefficients), float32 for float32,
so that a cell computed here gives onnxruntime's bits and not a correctly rounded neighbour.

Where it matters: DynamicQuantizeLSTM quantizes Ht-1 at run time, so an ulp of difference in a gate
can round one quantized value to the other integer, and the recurrence carries that step on (0.27 on
the logits of the wild tashkeel BiLSTM before this).

- logistic(x): x clamped to [-18, 18], x2 = x*x; p = x * P(x2), q = Q(x2) with P of degree 4 and Q
  of degree 5 evaluated by Horner; p / q + 0.5, then max(., 0) (onnxruntime's FMA3 kernel has no
  upper clamp).
- tanh(x): x clamped to [-9, 9]; x * P(x2) / Q(x2) with P of degree 6 and Q of degree 3.

Each Horner step is one fused multiply-add in onnxruntime's x86-64 kernels (LogisticKernelFma3,
TanhKernelFma3: the ones its dispatch picks on any CPU with AVX2 and FMA3; the SSE2 fallback and
the ARM kernels differ). The torch dialect has no fused multiply-add, so a step is computed as
f32(f64(a) * f64(b) + f64(c)): the float64 product of two float32 is exact, and the sum rounds
twice (to float64, then float32), which differs from a single rounding only when the float64 sum
falls exactly halfway between two float32. Checked against onnxruntime 1.31.1's Sigmoid and Tanh
(the same MLAS routines) on 11 million inputs (normal of scales 0.01 to 10 and a grid over [-20,
20]): every result bit-identical. TOSA has no float64, and there the plain `aten.sigmoid` and
`aten.tanh` stay.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from .sequence import Activation, activate

_LOGISTIC_BOUND = 18.0
_LOGISTIC_NUMERATOR = (4.37031012579801e-11, 1.15627324459942e-07, 6.08574864600143e-05, 8.51377133304701e-03,
                       2.48287947061529e-01)
_LOGISTIC_DENOMINATOR = (6.10247389755681e-13, 5.76102136993427e-09, 6.29106785017040e-06, 1.70198817374094e-03,
                         1.16817656904453e-01, 9.93151921023180e-01)
_TANH_BOUND = 9.0
_TANH_NUMERATOR = (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11, 5.12229709037114e-08,
                   1.48572235717979e-05, 6.37261928875436e-04, 4.89352455891786e-03)
_TANH_DENOMINATOR = (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03, 4.89352518554385e-03)


def _float32(value: float) -> float:
    """A coefficient as the float32 MLAS stores, as a Python float (exact in float64)."""
    return float(np.float32(value))


def _horner(b: TorchBuilder, square: ir.Value, coefficients: tuple) -> ir.Value:
    """c0 * s^n + ... + cn by Horner's rule, each step fma(s, acc, c_k) rounded once to float32
    (through float64, see the module docstring); `square` is float64, the result float32."""
    first, second, *rest = (_float32(c) for c in coefficients)
    wide = b.scalar_op("aten.add.Scalar", b.scalar_op("aten.mul.Scalar", square, first), second)
    accumulator = b.to_dtype(wide, "f32")
    for coefficient in rest:
        product = b.binary("aten.mul.Tensor", square, b.to_dtype(accumulator, "f64"))
        accumulator = b.to_dtype(b.scalar_op("aten.add.Scalar", product, coefficient), "f32")
    return accumulator


def _rational(b: TorchBuilder, x: ir.Value, bound: float, numerator: tuple, denominator: tuple) -> ir.Value:
    """x * P(x^2) / Q(x^2) in float32 with x clamped to [-bound, bound]."""
    x = b.op("aten.clamp", x.type, x, b.constant_float(-bound), b.constant_float(bound))
    square = b.to_dtype(b.binary("aten.mul.Tensor", x, x), "f64")
    odd = b.binary("aten.mul.Tensor", x, _horner(b, square, numerator))
    return b.binary("aten.div.Tensor", odd, _horner(b, square, denominator))


def mlas_logistic(b: TorchBuilder, x: ir.Value) -> ir.Value:
    """onnxruntime's MlasComputeLogistic of a float32 tensor."""
    shifted = b.scalar_op("aten.add.Scalar", _rational(b, x, _LOGISTIC_BOUND, _LOGISTIC_NUMERATOR,
                                                       _LOGISTIC_DENOMINATOR), 0.5)
    return b.op("aten.clamp_min", shifted.type, shifted, b.constant_float(0.0))


def mlas_tanh(b: TorchBuilder, x: ir.Value) -> ir.Value:
    """onnxruntime's MlasComputeTanh of a float32 tensor."""
    return _rational(b, x, _TANH_BOUND, _TANH_NUMERATOR, _TANH_DENOMINATOR)


def onnxruntime_activate(b: TorchBuilder, activation: Activation, x: ir.Value) -> ir.Value:
    """`activate`, with Sigmoid and Tanh as onnxruntime's recurrent kernels compute them (its
    ActivationFuncByName and LstmMergeGatesFuncByName take MLAS for exactly these two names)."""
    if activation.name == "sigmoid":
        return mlas_logistic(b, x)
    if activation.name == "tanh":
        return mlas_tanh(b, x)
    return activate(b, activation, x)
