"""Random tensors: RandomUniform, RandomNormal, RandomUniformLike, RandomNormalLike.

ONNX fixes the distribution, not the sequence: a `seed` makes one run repeatable in a
runtime, and no two runtimes draw the same numbers. The draws are torch's `aten.uniform`,
whose lowering takes its seed from torch-mlir's `torch_c.get_next_seed` (a per-program
counter): the `seed` attribute is not read, and the results can only be checked
statistically (test_signal_numerics.py does).

Normal samples are a Box-Muller transform of two uniform halves of one draw, not
`aten.normal_functional`: torch-mlir's decomposition of that draws its two uniforms with the
same seed on TOSA and StableHLO, which gives skewed samples (min -2.6 sigma, max 5 sigma in
10^4 draws). For StableHLO `aten.uniform` becomes `stablehlo.rng`, whose numbers are the
consumer's: the reference runner's lowering of it gives an arithmetic progression modulo 1
(uniformly spread, not random), and a Box-Muller transform of that is far from normal, so
RandomNormal(Like) fails for StableHLO rather than give such samples.
"""

from __future__ import annotations

import math

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _draw(node: OnnxNode, b: TorchBuilder, shape_source: ir.Value, uniform: bool) -> ir.Value:
    element = node.result_info().element
    if element not in ("f16", "bf16", "f32", "f64"):
        node.fail(f"dtype {element} is not a float type")
    none = b.constant_none()
    if uniform:
        source = b.to_dtype(shape_source, element)
        return b.op("aten.uniform", node.result_type(), source, b.constant_float(node.attr_float("low")),
                    b.constant_float(node.attr_float("high")), none)
    if node.target == "stablehlo":
        node.fail("normal samples on StableHLO would be a transform of stablehlo.rng, which the reference runner "
                  "lowers to an arithmetic progression: the result would not be normally distributed")
    return b.to_dtype(_normal(node, b, shape_source, "f64" if element == "f64" else "f32"), element)


def _normal(node: OnnxNode, b: TorchBuilder, shape_source: ir.Value, compute: str) -> ir.Value:
    """mean + scale * sqrt(-2 ln(1 - u1)) cos(2 pi u2), u1 and u2 the halves of one uniform draw."""
    dims = b.dims(shape_source)
    sizes = b.info(shape_source).sizes
    halves = b.full([2, *dims], 0, compute)
    none = b.constant_none()
    drawn = b.op("aten.uniform", halves.type, halves, b.constant_float(0.0), b.constant_float(1.0), none)
    half_type = b.tensor_type(sizes, compute)
    first, second = (b.op("aten.select.int", half_type, drawn, b.constant_int(0), b.constant_int(i)) for i in (0, 1))
    # 1 - u1 is in (0, 1]: the logarithm stays finite.
    logarithm = b.unary("aten.log", b.op("aten.rsub.Scalar", half_type, first, b.constant_float(1.0),
                                         b.constant_int(1)))
    radius = b.unary("aten.sqrt", b.scalar_op("aten.mul.Scalar", logarithm, -2.0))
    angle = b.unary("aten.cos", b.scalar_op("aten.mul.Scalar", second, 2 * math.pi))
    standard = b.binary("aten.mul.Tensor", radius, angle)
    scaled = b.scalar_op("aten.mul.Scalar", standard, node.attr_float("scale"))
    return b.scalar_op("aten.add.Scalar", scaled, node.attr_float("mean"))


def _shaped(node: OnnxNode, b: TorchBuilder) -> ir.Value:
    """A zero tensor of the `shape` attribute, to draw into."""
    return b.full(node.attr_ints("shape"), 0, node.result_info().element)


@converts("RandomUniformLike", since=1)
def random_uniform_like(node: OnnxNode, b: TorchBuilder):
    """Uniform on [low, high) in the shape of the input (dtype: attribute, else the input's)."""
    return _draw(node, b, node.input(0), uniform=True)


@converts("RandomNormalLike", since=1)
def random_normal_like(node: OnnxNode, b: TorchBuilder):
    """Normal with `mean` and standard deviation `scale` in the shape of the input."""
    return _draw(node, b, node.input(0), uniform=False)


@converts("RandomUniform", since=1)
def random_uniform(node: OnnxNode, b: TorchBuilder):
    """Uniform on [low, high) of the `shape` attribute."""
    return _draw(node, b, _shaped(node, b), uniform=True)


@converts("RandomNormal", since=1)
def random_normal(node: OnnxNode, b: TorchBuilder):
    """Normal with `mean` and `scale` of the `shape` attribute."""
    return _draw(node, b, _shaped(node, b), uniform=False)
