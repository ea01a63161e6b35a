"""Elementwise arithmetic: Add, Sub, Mul, Div, Neg, Abs, Exp, Log, Sqrt, Reciprocal, ...;
Identity, and Dropout (at inference the identity, with an all-ones mask; in training random).

Binary ops broadcast multidirectionally (numpy rules) from opset 7 on, which is
what torch's `aten.*.Tensor` ops do. Before opset 7 (since_versions 1 and 6) they
broadcast only one way, B onto A, and only when `broadcast=1`: B's dims line
up with A's from `axis` on (or with A's trailing dims when `axis` is absent).
"""

from __future__ import annotations

import numpy as np

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _add_like(torch_op: str, node: OnnxNode, b: TorchBuilder, rhs):
    return b.op(torch_op, node.result_type(), node.input(0), rhs, b.constant_int(1))


def _divide(node: OnnxNode, b: TorchBuilder, rhs):
    """Integer Div truncates toward zero (C semantics), as `rounding_mode="trunc"` does."""
    if node.result_info().is_integer:
        return b.op("aten.div.Tensor_mode", node.result_type(), node.input(0), rhs, b.constant_string("trunc"))
    return b.op("aten.div.Tensor", node.result_type(), node.input(0), rhs)


@converts("Add", since=1)
def add_legacy(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.add.Tensor", node, b, node.legacy_broadcast_input(b))


def _dims_arithmetic(node: OnnxNode, b: TorchBuilder, operation):
    """Integer arithmetic on lists of dims (a `Shape` of a dynamic input, a sequence length plus
    a constant) stays a list of dims, computed with `!torch.int` ops: the Slice, Reshape or Range
    it feeds reads sizes, not `aten.item` (which TOSA and StableHLO cannot lower)."""
    result = node.result_info()
    if result.element != "si64" or result.rank not in (0, 1):
        return None
    if node.constant_input(0) is not None and node.constant_input(1) is not None:
        return None
    left, right = node.dim_elements(0), node.dim_elements(1)
    if left is None or right is None:
        return None
    count = max(len(left), len(right))
    if len(left) not in (1, count) or len(right) not in (1, count) or (result.rank == 0 and count != 1):
        return None
    left, right = (dims * count if len(dims) == 1 else dims for dims in (left, right))
    return b.dims_tensor([operation(x, y) for x, y in zip(left, right)], result.rank)


@converts("Add", since=7)
def add(node: OnnxNode, b: TorchBuilder):
    dims = _dims_arithmetic(node, b, b.dim_add)
    return dims if dims is not None else _add_like("aten.add.Tensor", node, b, node.input(1))


@converts("Sub", since=1)
def sub_legacy(node: OnnxNode, b: TorchBuilder):
    return _add_like("aten.sub.Tensor", node, b, node.legacy_broadcast_input(b))


@converts("Sub", since=7)
def sub(node: OnnxNode, b: TorchBuilder):
    dims = _dims_arithmetic(node, b, b.dim_sub)
    return dims if dims is not None else _add_like("aten.sub.Tensor", node, b, node.input(1))


@converts("Mul", since=1)
def mul_legacy(node: OnnxNode, b: TorchBuilder):
    return b.op("aten.mul.Tensor", node.result_type(), node.input(0), node.legacy_broadcast_input(b))


@converts("Mul", since=7)
def mul(node: OnnxNode, b: TorchBuilder):
    dims = _dims_arithmetic(node, b, b.dim_mul)
    return dims if dims is not None else b.op("aten.mul.Tensor", node.result_type(), node.input(0), node.input(1))


@converts("Div", since=1)
def div_legacy(node: OnnxNode, b: TorchBuilder):
    return _divide(node, b, node.legacy_broadcast_input(b))


@converts("Div", since=7)
def div(node: OnnxNode, b: TorchBuilder):
    return _divide(node, b, node.input(1))


# Unary ops that are one torch op with the same semantics at every opset
# (later versions only widened the type lists or dropped `consumed_inputs`).
UNARY = {
    "Abs": "aten.abs",
    "Exp": "aten.exp",
    "Log": "aten.log",
    "Sqrt": "aten.sqrt",
    "Reciprocal": "aten.reciprocal",
    "Floor": "aten.floor",
    "Ceil": "aten.ceil",
    "Round": "aten.round",  # both round half to even
}


def _unary_pattern(op_type: str, torch_op: str):
    def unary(node: OnnxNode, b: TorchBuilder):
        return b.op(torch_op, node.result_type(), node.input(0))

    unary.__name__ = unary.__qualname__ = op_type.lower()
    unary.__doc__ = f"{op_type}(X) = {torch_op}(X)."
    return unary


for _op_type, _torch_op in UNARY.items():
    converts(_op_type, since=11 if _op_type == "Round" else 1)(_unary_pattern(_op_type, _torch_op))


@converts("Neg", since=1)
def neg(node: OnnxNode, b: TorchBuilder):
    """-X; integers wrap at the most negative value, as in C (TorchBuilder.negate)."""
    return b.negate(node.input(0), node.result_type())


@converts("Identity", since=1)
def identity(node: OnnxNode, b: TorchBuilder):
    """Identity is its input, whatever its type (tensor, sequence, optional)."""
    return node.input(0)


def _dropout(node: OnnxNode, b: TorchBuilder):
    x = node.input(0)
    if node.num_results < 2 or not node.result_is_used(1):
        return x
    mask = node.result_info(1)
    none = b.constant_none()
    ones = b.op("aten.ones_like", node.result_type(1), x, b.dtype(mask.element), none, none, none, none)
    return [x, ones]


@converts("Dropout", since=1)
def dropout_attributes(node: OnnxNode, b: TorchBuilder):
    """Inference: the output is the input, the mask all ones (`is_test` is ignored, as runtimes do)."""
    return _dropout(node, b)


@converts("Dropout", since=12)
def dropout(node: OnnxNode, b: TorchBuilder):
    """From opset 12, `ratio` (default 0.5) and `training_mode` (default false) are inputs.

    Without training, or with a ratio of 0, the result is the input and the mask all ones. Else,
    with u uniform on [0, 1) in X's shape: mask = u >= ratio or not training, and
    Y = X / (1 - ratio) where mask (X where not training), 0 elsewhere. The draw is random:
    no two runtimes agree on the values, only on the distribution.
    """
    training = node.constant_input(2) if node.has_input(2) else np.array(False)
    ratio = node.constant_input(1) if node.has_input(1) else np.array(0.5)
    if training is not None and not bool(training.reshape(-1)[0]):
        return _dropout(node, b)
    if ratio is not None and float(ratio.reshape(-1)[0]) == 0.0:
        return _dropout(node, b)
    return _random_dropout(node, b)


def _random_dropout(node: OnnxNode, b: TorchBuilder):
    x = node.input(0)
    info = node.input_info(0)
    if not info.is_float:
        node.fail(f"input 'data' has element type {info.element}, not a float type")
    scalar = b.tensor_type([], "f32")
    ratio = b.to_dtype(b.reshape(node.input(1), [], []), "f32") if node.has_input(1) else \
        b.scalar_tensor_literal(0.5, "f32")
    training = b.reshape(node.input(2), [], [])
    if b.info(training).element != "i1":
        training = b.to_dtype(training, "i1")
    none = b.constant_none()
    draws = b.op("aten.uniform", b.tensor_type(info.sizes, "f32"), b.to_dtype(x, "f32"), b.constant_float(0.0),
                 b.constant_float(1.0), none)
    kept = b.op("aten.ge.Tensor", b.tensor_type(info.sizes, "i1"), draws, ratio)
    mask = b.op("aten.logical_or", kept.type, kept, b.op("aten.logical_not", training.type, training))
    keep_rate = b.op("aten.rsub.Scalar", scalar, ratio, b.constant_float(1.0), b.constant_int(1))
    scale = b.op("aten.where.ScalarOther", scalar, training, b.op("aten.reciprocal", scalar, keep_rate),
                 b.constant_float(1.0))
    scaled = b.binary("aten.mul.Tensor", x, b.to_dtype(scale, info.element))
    y = b.op("aten.where.ScalarOther", b.type_like(x), mask, scaled, b.constant_float(0.0))
    outputs = [b.cast_to(y, node.result_type())]
    if node.num_results > 1 and node.result_is_used(1):
        outputs.append(b.cast_to(mask, node.result_type(1)))
    elif node.num_results > 1:
        outputs.append(None)
    return outputs if node.num_results > 1 else outputs[0]
