"""ONNX preview training optimizers (domain `ai.onnx.preview.training`, version 1): Adagrad, Adam,
Momentum (standard and Nesterov).

Each node updates n tensors at once. Its inputs are R (learning rate) and T (update count), two
scalars known at run time, then n tensors X, n gradients G and the optimizer's state (Adagrad: n
accumulated squared gradients H; Momentum: n momentums V; Adam: n V and n H), grouped by kind;
its outputs are the n new X, then the new states in the same order. Every update is elementwise,
with R and T as 0-d tensors (no `aten.item`), in X's element type:

    G' = norm_coefficient * X + G                           (all three)
    Adagrad:  H' = H + G'^2;  X' = X - R / (1 + T * decay_factor) * G' / (sqrt(H') + epsilon)
    Momentum: V' = alpha * V + (beta if T > 0 else 1) * G'
              X' = X - R * V'  (standard),  X - R * (G' + alpha * V')  (nesterov)
    Adam:     V' = alpha * V + (1 - alpha) * G';  H' = beta * H + (1 - beta) * G'^2
              R' = R * sqrt(1 - beta^T) / (1 - alpha^T) if T > 0 else R
              X' = (1 - norm_coefficient_post) * (X - R' * V' / (sqrt(H') + epsilon))

Gradient (the same domain) differentiates its graph: training_gradient.py.
"""

from __future__ import annotations

from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts

TRAINING = "ai.onnx.preview.training"


class _Scalars:
    """R and T as 0-d tensors of the updated tensors' element type, and `T > 0`."""

    def __init__(self, node: OnnxNode, b: TorchBuilder, element: str):
        for index, what in ((0, "R"), (1, "T")):
            sizes = node.input_info(index).sizes
            if sizes is None or any(size != 1 for size in sizes):
                node.fail(f"input '{what}' must be a scalar (one element), not of sizes {sizes}")
        self.rate = b.to_dtype(b.reshape(node.input(0), [], []), element)
        count = b.reshape(node.input(1), [], [])
        self.count = b.to_dtype(count, element)
        self.started = b.op("aten.gt.Scalar", b.tensor_type([], "i1"), count, b.constant_int(0))


def _groups(node: OnnxNode, kinds: int) -> tuple[int, str]:
    """(n, element): the number of tensors the node updates and their element type."""
    count, remainder = divmod(node.num_inputs - 2, kinds)
    if count < 1 or remainder:
        node.fail(f"expects 2 + {kinds} * n inputs, has {node.num_inputs}")
    element = node.input_info(2).element
    if element not in ("f16", "bf16", "f32", "f64"):
        node.fail(f"the updated tensors have element type {element}, not a float type")
    return count, element


def _scaled(b: TorchBuilder, x: ir.Value, factor) -> ir.Value:
    """x * factor: a Python number or a 0-d tensor."""
    return b.arith("mul", x, factor)


def _regularized(node: OnnxNode, b: TorchBuilder, x: ir.Value, gradient: ir.Value) -> ir.Value:
    """G' = norm_coefficient * X + G."""
    return b.binary("aten.add.Tensor", _scaled(b, x, node.attr_float("norm_coefficient")), gradient)


def _root_plus_epsilon(node: OnnxNode, b: TorchBuilder, squares: ir.Value) -> ir.Value:
    return b.scalar_op("aten.add.Scalar", b.unary("aten.sqrt", squares), node.attr_float("epsilon"))


def _typed(node: OnnxNode, b: TorchBuilder, values: list[ir.Value]) -> list[ir.Value]:
    return [b.cast_to(value, node.result_type(i)) for i, value in enumerate(values)]


@converts("Adagrad", since=1, domain=TRAINING)
def adagrad(node: OnnxNode, b: TorchBuilder):
    """X' = X - R / (1 + T * decay_factor) * G' / (sqrt(H') + epsilon), H' = H + G'^2."""
    count, element = _groups(node, 3)
    scalars = _Scalars(node, b, element)
    decayed = b.scalar_op("aten.add.Scalar", _scaled(b, scalars.count, node.attr_float("decay_factor")), 1.0)
    rate = b.binary("aten.div.Tensor", scalars.rate, decayed)
    new_x, new_h = [], []
    for i in range(count):
        x, gradient, squares = (node.input(2 + kind * count + i) for kind in range(3))
        regularized = _regularized(node, b, x, gradient)
        squares = b.binary("aten.add.Tensor", squares, b.binary("aten.mul.Tensor", regularized, regularized))
        step = b.binary("aten.div.Tensor", regularized, _root_plus_epsilon(node, b, squares))
        new_x.append(b.binary("aten.sub.Tensor", x, b.binary("aten.mul.Tensor", step, rate)))
        new_h.append(squares)
    return _typed(node, b, new_x + new_h)


@converts("Momentum", since=1, domain=TRAINING)
def momentum(node: OnnxNode, b: TorchBuilder):
    """V' = alpha * V + (beta if T > 0 else 1) * G'; X' = X - R * V' (or R * (G' + alpha * V'))."""
    count, element = _groups(node, 3)
    mode = node.attr_string("mode")
    if mode not in ("standard", "nesterov"):
        node.fail(f"mode '{mode}' is not 'standard' or 'nesterov'")
    alpha = node.attr_float("alpha")
    scalars = _Scalars(node, b, element)
    beta = b.op("aten.where.ScalarOther", b.tensor_type([], element),
                scalars.started, b.scalar_tensor_literal(node.attr_float("beta"), element), b.constant_float(1.0))
    new_x, new_v = [], []
    for i in range(count):
        x, gradient, velocity = (node.input(2 + kind * count + i) for kind in range(3))
        regularized = _regularized(node, b, x, gradient)
        velocity = b.binary("aten.add.Tensor", _scaled(b, velocity, alpha), _scaled(b, regularized, beta))
        direction = velocity if mode == "standard" else \
            b.binary("aten.add.Tensor", regularized, _scaled(b, velocity, alpha))
        new_x.append(b.binary("aten.sub.Tensor", x, _scaled(b, direction, scalars.rate)))
        new_v.append(velocity)
    return _typed(node, b, new_x + new_v)


def _adam_rate(b: TorchBuilder, scalars: _Scalars, alpha: float, beta: float, element: str) -> ir.Value:
    """R * sqrt(1 - beta^T) / (1 - alpha^T) if T > 0 else R."""
    scalar = b.tensor_type([], element)

    def one_minus_power(base: float) -> ir.Value:
        power = b.op("aten.pow.Scalar", scalar, b.constant_float(base), scalars.count)
        return b.op("aten.rsub.Scalar", scalar, power, b.constant_float(1.0), b.constant_int(1))

    corrected = b.binary("aten.div.Tensor", b.binary("aten.mul.Tensor", scalars.rate,
                                                     b.unary("aten.sqrt", one_minus_power(beta))),
                         one_minus_power(alpha))
    return b.op("aten.where.self", scalar, scalars.started, corrected, scalars.rate)


@converts("Adam", since=1, domain=TRAINING)
def adam(node: OnnxNode, b: TorchBuilder):
    """Adam with bias-corrected rate from T > 0 on, and a final (1 - norm_coefficient_post) decay."""
    count, element = _groups(node, 4)
    alpha, beta = node.attr_float("alpha"), node.attr_float("beta")
    scalars = _Scalars(node, b, element)
    rate = _adam_rate(b, scalars, alpha, beta, element)
    keep = 1.0 - node.attr_float("norm_coefficient_post")
    new_x, new_v, new_h = [], [], []
    for i in range(count):
        x, gradient, velocity, squares = (node.input(2 + kind * count + i) for kind in range(4))
        regularized = _regularized(node, b, x, gradient)
        velocity = b.binary("aten.add.Tensor", _scaled(b, velocity, alpha), _scaled(b, regularized, 1.0 - alpha))
        squared = b.binary("aten.mul.Tensor", regularized, regularized)
        squares = b.binary("aten.add.Tensor", _scaled(b, squares, beta), _scaled(b, squared, 1.0 - beta))
        step = b.binary("aten.div.Tensor", velocity, _root_plus_epsilon(node, b, squares))
        updated = b.binary("aten.sub.Tensor", x, b.binary("aten.mul.Tensor", step, rate))
        new_x.append(_scaled(b, updated, keep) if keep != 1.0 else updated)
        new_v.append(velocity)
        new_h.append(squares)
    return _typed(node, b, new_x + new_v + new_h)
