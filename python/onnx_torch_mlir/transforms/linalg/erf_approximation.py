"""`math.erf` on f32 as one rational function of x, the form the StableHLO route already gets.

IREE 3.13 expands a `math.erf` into MLIR's piecewise polynomial approximation (three rational
functions on three intervals, each computed and selected per element), which costs several times
the matrix product it is fused with when the product is small: ConvNeXt's first pointwise layer with
its exact GELU (`[512, 16] x [16, 64]`) took 73 us from our Linalg and 52 us from our StableHLO, whose
`chlo.erf` lowering is one rational function, and the four such layers 44 us of ConvNeXt's 0.52 ms
(IREE's dispatch profile). The whole zoo ConvNeXt ran 1.19 times our StableHLO's time.

So each f32 `math.erf` becomes the StableHLO lowering's function (its f32 coefficients, in its order):

    t = clamp(x, -4, 4),  s = t * t
    erf(x) = clamp(t * P(s) / Q(s), -1, 1)

with P of degree 6 and Q of degree 4 in s (ALPHA, BETA), so both routes compute the same bits. Its
error is within a few units in the last place of f32 (the conformance suite's Erf and GELU cases pass
as before); erf(x) rounds to +-1 in f32 beyond |x| = 4. NaN stays NaN (`maximumf` and `minimumf`
propagate it). Can go when IREE lowers `math.erf` to a single rational function.
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named

# P(s) = ((((((A0 s + A1) s + A2) s + A3) s + A4) s + A5) s + A6), highest power first
ALPHA = (-2.72614237e-10, 2.77068146e-08, -2.10102394e-06, -5.69250624e-05, -7.34990637e-04, -2.954600e-03,
         -1.60960332e-02)
# Q(s) = ((((B0 s + B1) s + B2) s + B3) s + B4)
BETA = (-1.45660715e-05, -2.13374049e-04, -1.68282702e-03, -7.37332925e-03, -1.42647391e-02)
CLAMP = 4.0


def erf_as_rational_function(module: ir.Module) -> int:
    """Rewrite each f32 `math.erf` (module docstring); the count rewritten."""
    rewritten = 0
    with module.context:
        for operation in ops_named(module, {"math.erf"}):
            if isinstance(operation.results[0].type, ir.F32Type):
                with operation.location, ir.InsertionPoint(operation):
                    value = _rational_erf(operation.operands[0])
                operation.results[0].replace_all_uses_with(value)
                operation.erase()
                rewritten += 1
    return rewritten


def _rational_erf(x: ir.Value) -> ir.Value:
    t = _clamp(x, CLAMP)
    s = _binary("arith.mulf", t, t)
    numerator = _polynomial(s, ALPHA)
    denominator = _polynomial(s, BETA)
    return _clamp(_binary("arith.divf", _binary("arith.mulf", t, numerator), denominator), 1.0)


def _polynomial(s: ir.Value, coefficients) -> ir.Value:
    """Horner's rule, highest power first."""
    value = _binary("arith.mulf", s, _constant(coefficients[0]))
    for coefficient in coefficients[1:-1]:
        value = _binary("arith.mulf", _binary("arith.addf", value, _constant(coefficient)), s)
    return _binary("arith.addf", value, _constant(coefficients[-1]))


def _clamp(value: ir.Value, bound: float) -> ir.Value:
    return _binary("arith.minimumf", _binary("arith.maximumf", value, _constant(-bound)), _constant(bound))


def _binary(name: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return ir.Operation.create(name, results=[lhs.type], operands=[lhs, rhs]).result


def _constant(value: float) -> ir.Value:
    f32 = ir.F32Type.get()
    return ir.Operation.create("arith.constant", results=[f32], attributes={"value": ir.FloatAttr.get(f32, value)}).result
