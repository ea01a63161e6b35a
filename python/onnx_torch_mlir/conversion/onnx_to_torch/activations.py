"""Activations: Relu, LeakyRelu, PRelu, Elu, Selu, Celu, Gelu, Sigmoid, HardSigmoid, HardSwish,
Softplus, Softsign, Mish, ThresholdedRelu, Tanh, Softmax, LogSoftmax, Hardmax.

Softmax, LogSoftmax and Hardmax before opset 13 coerce the input to 2-D: dims
[0, axis) become rows, dims [axis, rank) one row of the reduction; from 13 on
they reduce along `axis` only.
"""

from __future__ import annotations

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts
from .types import static_product


def _unary(torch_op: str):
    def pattern(node: OnnxNode, b: TorchBuilder):
        return b.op(torch_op, node.result_type(), node.input(0))

    return pattern




@converts("Relu", since=1)
def relu(node: OnnxNode, b: TorchBuilder):
    """max(X, 0). An integer Relu (opset 14) is a clamp: torch-mlir's TOSA lowering takes
    `aten.relu` of floats only."""
    if node.input_info(0).is_integer:
        return b.op("aten.clamp_min", node.result_type(), node.input(0), b.constant_int(0))
    return b.op("aten.relu", node.result_type(), node.input(0))


converts("Sigmoid", since=1)(_unary("aten.sigmoid"))
converts("Tanh", since=1)(_unary("aten.tanh"))
converts("HardSwish", since=14)(_unary("aten.hardswish"))
converts("Mish", since=18)(_unary("aten.mish"))


@converts("LeakyRelu", since=1)
def leaky_relu(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.leaky_relu", node.result_type(), node.input(0), b.constant_float(node.attr_float("alpha")))


def _per_channel_slope(b: TorchBuilder, x, slope):
    """`slope` as aten.prelu's weight (1-D: one value, or one per channel of dim 1 of X), else None."""
    x_sizes, slope_sizes = b.info(x).sizes, b.info(slope).sizes
    if len(x_sizes) < 2 or len(slope_sizes) > len(x_sizes) or None in slope_sizes:
        return None
    aligned = [1] * (len(x_sizes) - len(slope_sizes)) + list(slope_sizes)
    others = aligned[:1] + aligned[2:]
    if any(size != 1 for size in others) or aligned[1] not in (1, x_sizes[1]):
        return None
    return b.reshape(slope, [aligned[1]], [aligned[1]])


def _prelu(node: OnnxNode, b: TorchBuilder, slope):
    """PRelu(X, slope) = X < 0 ? slope * X : X; aten.prelu when the user keeps it backend-legal
    and the slope is per channel or shared."""
    x = node.input(0)
    weight = _per_channel_slope(b, x, slope) if node.is_backend_legal("aten.prelu") else None
    if weight is not None:
        return b.op("aten.prelu", node.result_type(), x, weight)
    result = node.result_info()
    negative = b.op("aten.lt.Scalar", b.tensor_type(b.info(x).sizes, "i1"), x, b.constant_int(0))
    scaled = b.op("aten.mul.Tensor", b.broadcast_type(x, slope), x, slope)
    return b.op("aten.where.self", b.tensor_type(result.sizes, result.element), negative, scaled, x)


@converts("PRelu", since=1)
def prelu_legacy(node: OnnxNode, b: TorchBuilder):
    """Before opset 7 the slope is per channel (shape [C]) or shared (size 1), for dim 1 of X."""
    slope, x_rank = node.input(1), node.input_info(0).rank
    slope_info = node.input_info(1)
    if x_rank is not None and x_rank > 2 and slope_info.rank == 1 and slope_info.sizes[0] != 1:
        for _ in range(x_rank - 2):
            slope = b.unsqueeze(slope, -1)
    return _prelu(node, b, slope)


@converts("PRelu", since=7)
def prelu(node: OnnxNode, b: TorchBuilder):
    """Slope broadcasts unidirectionally (numpy rules) to X."""
    return _prelu(node, b, node.input(1))


_HALF_FLOATS = ("f16", "bf16")


def _elu(node: OnnxNode, b: TorchBuilder, alpha: float, scale: float, input_scale: float):
    """aten.elu(x, alpha, scale, input_scale) = scale * (max(0,x) + min(0, alpha*(exp(input_scale*x)-1))).

    A 16-bit float input is computed in float32 and rounded once: computed in its own type, the
    exponential and the `- 1` are each rounded to 16 bits, a unit in the last place off the
    reference's expm1 rounded once (Celu in bfloat16)."""
    x, result = node.input(0), node.result_info()
    compute = "f32" if result.element in _HALF_FLOATS else result.element
    wide = b.op(
        "aten.elu", b.tensor_type(result.sizes, compute), b.to_dtype(x, compute),
        b.constant_float(alpha), b.constant_float(scale), b.constant_float(input_scale),
    )
    return b.to_dtype(wide, result.element)


@converts("Elu", since=1)
def elu(node: OnnxNode, b: TorchBuilder):
    return _elu(node, b, node.attr_float("alpha"), 1.0, 1.0)


# torch's selu constants; ONNX's default attributes are these rounded to float32.
TORCH_SELU_ALPHA, TORCH_SELU_SCALE = 1.6732632423543772, 1.0507009873554805


def _close(value: float, reference: float) -> bool:
    return abs(value - reference) <= 1e-6 * abs(reference)


@converts("Selu", since=1)
def selu(node: OnnxNode, b: TorchBuilder):
    """Selu = gamma * (x > 0 ? x : alpha * (exp(x) - 1)): elu with scale gamma (aten.selu when the
    user keeps it backend-legal and alpha, gamma are torch's constants)."""
    alpha, gamma = node.attr_float("alpha"), node.attr_float("gamma")
    if node.is_backend_legal("aten.selu") and _close(alpha, TORCH_SELU_ALPHA) and _close(gamma, TORCH_SELU_SCALE):
        return b.op("aten.selu", node.result_type(), node.input(0))
    return _elu(node, b, alpha, gamma, 1.0)


@converts("Celu", since=12)
def celu(node: OnnxNode, b: TorchBuilder):
    """Celu = max(0,x) + min(0, alpha*(exp(x/alpha)-1)): elu with input_scale 1/alpha."""
    alpha = node.attr_float("alpha")
    if alpha == 0:
        node.fail("alpha 0 divides by zero")
    if node.is_backend_legal("aten.celu"):
        return b.op("aten.celu", node.result_type(), node.input(0), b.constant_float(alpha))
    return _elu(node, b, alpha, 1.0, 1.0 / alpha)


@converts("Gelu", since=20)
def gelu(node: OnnxNode, b: TorchBuilder):
    approximate = node.attr_string("approximate")
    if approximate not in ("none", "tanh"):
        node.fail(f"approximate '{approximate}' is not one of 'none', 'tanh'")
    return b.op("aten.gelu", node.result_type(), node.input(0), b.constant_string(approximate))


@converts("HardSigmoid", since=1)
def hard_sigmoid(node: OnnxNode, b: TorchBuilder):
    """max(0, min(1, alpha * x + beta)); aten.hardsigmoid (alpha 1/6, beta 1/2) when the user keeps
    it backend-legal."""
    x, result_type = node.input(0), node.result_type()
    alpha, beta = node.attr_float("alpha"), node.attr_float("beta")
    if node.is_backend_legal("aten.hardsigmoid") and _close(alpha, 1 / 6) and beta == 0.5:
        return b.op("aten.hardsigmoid", result_type, x)
    scaled = b.op("aten.mul.Scalar", result_type, x, b.constant_float(node.attr_float("alpha")))
    shifted = b.op("aten.add.Scalar", result_type, scaled, b.constant_float(node.attr_float("beta")), b.constant_int(1))
    return b.op("aten.clamp", result_type, shifted, b.constant_float(0.0), b.constant_float(1.0))


@converts("Softplus", since=1)
def softplus(node: OnnxNode, b: TorchBuilder):
    """log(exp(x) + 1); torch's threshold 20 returns x where exp(x) + 1 rounds to exp(x)."""
    return b.op("aten.softplus", node.result_type(), node.input(0), b.constant_int(1), b.constant_int(20))


@converts("Softsign", since=1)
def softsign(node: OnnxNode, b: TorchBuilder):
    """x / (1 + |x|)."""
    x, result_type = node.input(0), node.result_type()
    magnitude = b.op("aten.abs", result_type, x)
    denominator = b.op("aten.add.Scalar", result_type, magnitude, b.constant_int(1), b.constant_int(1))
    return b.op("aten.div.Tensor", result_type, x, denominator)


@converts("ThresholdedRelu", since=10)
def thresholded_relu(node: OnnxNode, b: TorchBuilder):
    """x > alpha ? x : 0, which is aten.threshold(x, alpha, 0)."""
    alpha = node.attr_float("alpha")
    return b.op("aten.threshold", node.result_type(), node.input(0), b.constant_float(alpha), b.constant_float(0.0))


def _along_axis(node: OnnxNode, b: TorchBuilder, torch_op: str):
    rank = node.rank()
    axis = node.axis(node.attr_int("axis"), rank) if rank else 0
    return b.op(torch_op, node.result_type(), node.input(0), b.constant_int(axis), b.constant_none())


def _coerced_2d(node: OnnxNode, b: TorchBuilder, torch_op: str):
    """Flatten dims [axis, rank) into one, reduce along it, restore the input's shape."""
    x = node.input(0)
    rank = node.rank()
    axis = node.axis(node.attr_int("axis"), rank) if rank else 0
    if axis >= rank - 1:  # the coerced inner dim is the last dim alone
        return b.op(torch_op, node.result_type(), x, b.constant_int(max(rank - 1, 0)), b.constant_none())
    info = b.info(x)
    inner = info.sizes[axis:]
    flat_size = static_product(inner)
    flat_type = b.tensor_type(list(info.sizes[:axis]) + [flat_size], info.element)
    flat = b.op("aten.flatten.using_ints", flat_type, x, b.constant_int(axis), b.constant_int(-1))
    reduced = b.op(torch_op, flat_type, flat, b.constant_int(axis), b.constant_none())
    return b.reshape(reduced, b.dims(x), info.sizes)


@converts("Softmax", since=1)
def softmax_coerced(node: OnnxNode, b: TorchBuilder):
    return _coerced_2d(node, b, "aten.softmax.int")


def _half_softmax(node: OnnxNode, b: TorchBuilder, axis: int):
    """exp(x - max) / sum in the input's 16-bit type, each step rounded to it, the sum accumulated
    in float32 and rounded once (numpy's float16 sum; torch-mlir's decomposition computes the
    whole softmax in float32, a unit in the last place off the spec's half-precision result)."""
    x, result = node.input(0), node.result_info()
    keep = b.constant_bool(True)
    largest = b.op("aten.amax", b.reduced_type(x, [axis], True), x, b.int_list([axis]), keep)
    shifted = b.op("aten.sub.Tensor", x.type, x, largest, b.constant_int(1))
    exponent = b.op("aten.exp", x.type, shifted)
    total = b.op(
        "aten.sum.dim_IntList", b.reduced_type(x, [axis], True, "f32"), b.to_dtype(exponent, "f32"),
        b.int_list([axis]), keep, b.constant_none(),
    )
    return b.op("aten.div.Tensor", node.result_type(), exponent, b.to_dtype(total, result.element))


@converts("Softmax", since=13)
def softmax(node: OnnxNode, b: TorchBuilder):
    rank = node.rank()
    if rank and node.result_info().element in _HALF_FLOATS:
        return _half_softmax(node, b, node.axis(node.attr_int("axis"), rank))
    return _along_axis(node, b, "aten.softmax.int")


@converts("LogSoftmax", since=1)
def log_softmax_coerced(node: OnnxNode, b: TorchBuilder):
    return _coerced_2d(node, b, "aten.log_softmax.int")


@converts("LogSoftmax", since=13)
def log_softmax(node: OnnxNode, b: TorchBuilder):
    return _along_axis(node, b, "aten.log_softmax.int")


def _hardmax_along(b: TorchBuilder, x, axis: int, result_type):
    """1 at the first maximum along `axis`, 0 elsewhere: argmax compared with an iota."""
    info = b.info(x)
    index_sizes = list(info.sizes)
    index_sizes[axis] = 1
    index = b.op(
        "aten.argmax", b.tensor_type(index_sizes, "si64"), x, b.constant_int(axis), b.constant_bool(True)
    )
    iota = b.arange(b.dim(x, axis))
    for _ in range(len(info.sizes) - 1 - axis):
        iota = b.unsqueeze(iota, -1)
    mask = b.op("aten.eq.Tensor", b.tensor_type(info.sizes, "i1"), index, iota)
    return b.to_dtype(mask, b.info(result_type).element)


@converts("Hardmax", since=1)
def hardmax_coerced(node: OnnxNode, b: TorchBuilder):
    x = node.input(0)
    rank = node.rank()
    axis = node.axis(node.attr_int("axis"), rank)
    info = b.info(x)
    if axis >= rank - 1:
        return _hardmax_along(b, x, rank - 1, node.result_type())
    inner = info.sizes[axis:]
    flat_type = b.tensor_type(list(info.sizes[:axis]) + [static_product(inner)], info.element)
    flat = b.op("aten.flatten.using_ints", flat_type, x, b.constant_int(axis), b.constant_int(-1))
    reduced = _hardmax_along(b, flat, axis, flat_type)
    return b.reshape(reduced, b.dims(x), info.sizes)


@converts("Hardmax", since=13)
def hardmax(node: OnnxNode, b: TorchBuilder):
    axis = node.axis(node.attr_int("axis"), node.rank())
    return _hardmax_along(b, node.input(0), axis, node.result_type())
