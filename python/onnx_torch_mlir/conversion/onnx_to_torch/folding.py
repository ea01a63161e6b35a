"""Folding shape arithmetic on literals while converting.

Exporters compute the shapes that Expand, Reshape, Tile or Resize need with
chains of small integer ops on constants (`Where(Equal(shape, -1), ones,
shape)`). Converted op by op, such a chain reaches the backend as tensor ops
whose values a pattern downstream can only read with `aten.item`, which TOSA
and StableHLO cannot lower, and which hides static sizes from every backend.
torch-mlir's folders do not help: exporters store constants as raw bytes,
which the importers turn into `dense_resource` blobs that those folders do not
read.

So the driver asks this module first: when a node is one of the ops below and
every input is a small literal, its value is computed here with numpy,
following ONNX's semantics, and the node becomes a `torch.vtensor.literal`.
Folding node by node in program order folds whole chains. Only exact
computations are folded (integer and boolean arithmetic, data movement of any
element type, casts); floating-point arithmetic is left to the backends.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ...onnx_arrays import slice_positions, unsqueeze
from .builder import TorchBuilder
from .constants import NUMPY_DTYPES
from .node import OnnxNode
from .types import TensorInfo

# Shape arithmetic is small; anything bigger is data and stays a computation.
MAX_ELEMENTS = 1024


def _integral(*arrays) -> bool:
    return all(np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_ for array in arrays)


def _arithmetic(function):
    def evaluate(node, inputs):
        return function(*inputs) if _integral(*inputs) else None

    return evaluate


def _divide(x, y):
    """ONNX integer Div truncates toward zero."""
    if np.any(y == 0):
        return None
    quotient = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -quotient, quotient).astype(np.result_type(x, y))


def _modulo(node, inputs):
    x, y = inputs
    if not _integral(x, y) or np.any(y == 0):
        return None
    return np.fmod(x, y) if node.attr_int("fmod", 0) else np.mod(x, y)


def _compare(function):
    def evaluate(node, inputs):
        return function(*inputs)

    return evaluate


def _variadic(function):
    def evaluate(node, inputs):
        if not _integral(*inputs):
            return None
        result = inputs[0]
        for array in inputs[1:]:
            result = function(result, array)
        return result

    return evaluate


def _cast(node, inputs):
    element = node.attr_element_type("to")
    dtype = NUMPY_DTYPES.get(element)
    (x,) = inputs
    if dtype is None or (np.issubdtype(x.dtype, np.floating) and not np.issubdtype(dtype, np.floating)
                         and not np.all(np.isfinite(x))):
        return None
    return x.astype(dtype)


def _constant_of_shape(node, inputs):
    shape = [int(size) for size in inputs[0].reshape(-1)]
    if any(size < 0 for size in shape) or int(np.prod(shape)) > MAX_ELEMENTS:
        return None
    fill = node.attr_tensor("value", None)
    fill = np.zeros((), np.float32) if fill is None else fill.reshape(-1)[0]
    return np.full(shape, fill, dtype=fill.dtype)


def _concat(node, inputs):
    axis = node.attr_int("axis")
    return np.concatenate(inputs, axis=axis)


def _gather(node, inputs):
    data, indices = inputs
    axis = node.attr_int("axis", 0)
    size = data.shape[axis]
    if np.any(indices >= size) or np.any(indices < -size):
        return None
    return np.take(data, indices.astype(np.int64), axis=axis)


def _slice(node, inputs):
    data, starts, ends = inputs[0], inputs[1].reshape(-1), inputs[2].reshape(-1)
    axes = inputs[3].reshape(-1) if len(inputs) > 3 and inputs[3] is not None else np.arange(len(starts))
    steps = inputs[4].reshape(-1) if len(inputs) > 4 and inputs[4] is not None else np.ones(len(starts), np.int64)
    if np.any(steps == 0):
        return None
    result = data
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = int(axis) + data.ndim if axis < 0 else int(axis)
        result = np.take(result, slice_positions(int(start), int(end), int(step), data.shape[axis]), axis=axis)
    return result


def _axes_input_or_attribute(node, inputs):
    if len(inputs) > 1 and inputs[1] is not None:
        return [int(axis) for axis in inputs[1].reshape(-1)]
    return node.attr_ints("axes", None)


def _unsqueeze(node, inputs):
    axes = _axes_input_or_attribute(node, inputs)
    return None if axes is None else unsqueeze(inputs[0], axes)


def _squeeze(node, inputs):
    axes = _axes_input_or_attribute(node, inputs)
    if axes is None:
        return np.squeeze(inputs[0])
    return np.squeeze(inputs[0], axis=tuple(axes))


def _reshape(node, inputs):
    data, shape = inputs
    allowzero = node.attr_int("allowzero", 0) if node.opset >= 14 else 0
    sizes = [int(size) for size in shape.reshape(-1)]
    if not allowzero:
        sizes = [data.shape[i] if size == 0 and i < data.ndim else size for i, size in enumerate(sizes)]
    return data.reshape(sizes)


def _range(node, inputs):
    start, limit, delta = (array.reshape(-1)[0] for array in inputs)
    if not _integral(*inputs) or delta == 0:
        return None
    count = max(int(-(-(int(limit) - int(start)) // int(delta))), 0)
    if count > MAX_ELEMENTS:
        return None
    return (start + delta * np.arange(count)).astype(inputs[0].dtype)


def _expand(node, inputs):
    data, shape = inputs
    target = np.broadcast_shapes(data.shape, tuple(int(size) for size in shape.reshape(-1)))
    if int(np.prod(target)) > MAX_ELEMENTS:
        return None
    return np.broadcast_to(data, target)


def _transpose(node, inputs):
    perm = node.attr_ints("perm", None)
    return np.transpose(inputs[0], perm)


def _flatten(node, inputs):
    x = inputs[0]
    axis = node.attr_int("axis")
    axis = axis + x.ndim if axis < 0 else axis
    return x.reshape(int(np.prod(x.shape[:axis], dtype=np.int64)), -1)


def _tile(node, inputs):
    return np.tile(inputs[0], [int(repeat) for repeat in inputs[1].reshape(-1)])


def _where(node, inputs):
    return np.where(*inputs)


def _unary(function, integral_only=True):
    def evaluate(node, inputs):
        return function(inputs[0]) if (not integral_only or _integral(inputs[0])) else None

    return evaluate


_EVALUATORS = {
    "Add": _arithmetic(np.add), "Sub": _arithmetic(np.subtract), "Mul": _arithmetic(np.multiply),
    "Div": _arithmetic(_divide), "Mod": _modulo, "Neg": _unary(np.negative), "Abs": _unary(np.abs),
    "Max": _variadic(np.maximum), "Min": _variadic(np.minimum),
    "Equal": _compare(np.equal), "Less": _compare(np.less), "LessOrEqual": _compare(np.less_equal),
    "Greater": _compare(np.greater), "GreaterOrEqual": _compare(np.greater_equal),
    "Not": _unary(np.logical_not), "And": _arithmetic(np.logical_and), "Or": _arithmetic(np.logical_or),
    "Xor": _arithmetic(np.logical_xor), "Where": _where, "Cast": _cast, "Identity": _unary(np.asarray, False),
    "ConstantOfShape": _constant_of_shape, "Concat": _concat, "Gather": _gather, "Slice": _slice,
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Reshape": _reshape, "Range": _range, "Expand": _expand,
    "Transpose": _transpose, "Flatten": _flatten, "Tile": _tile,
}
# Ops whose attributes changed meaning the fold does not model: Slice before opset 10 (attributes),
# Tile before opset 6 (tiles/axis inputs).
_SINCE = {"Slice": 10, "Tile": 6}


def fold_constant_node(node: OnnxNode, b: TorchBuilder) -> ir.Value | None:
    """A literal of the node's value when it is foldable shape arithmetic on small literals, else None."""
    evaluate = _EVALUATORS.get(node.op_type)
    if evaluate is None or node.domain != "" or node.num_results != 1 or node.opset < _SINCE.get(node.op_type, 1):
        return None
    for index in range(node.num_inputs):  # cheap checks first: no literal is read unless all are small
        if node.has_input(index) and not _small_static(node, index):
            return None
    inputs = []
    for index in range(node.num_inputs):
        if not node.has_input(index):
            inputs.append(None)
            continue
        value = node.constant_input(index)
        if value is None or value.size > MAX_ELEMENTS:
            return None
        inputs.append(value)
    if not inputs or inputs[0] is None:
        return None
    try:
        with np.errstate(all="raise"):
            result = evaluate(node, inputs)
    except (ValueError, IndexError, TypeError, FloatingPointError, OverflowError, ArithmeticError):
        return None  # malformed or out of range: the pattern gives the diagnostic
    if result is None or result.size > MAX_ELEMENTS:
        return None
    return _as_declared_literal(node, b, np.asarray(result))


def _small_static(node: OnnxNode, index: int) -> bool:
    info = node.input_info(index)
    return info.is_static and int(np.prod(info.sizes, dtype=np.int64)) <= MAX_ELEMENTS


def _as_declared_literal(node: OnnxNode, b: TorchBuilder, result: np.ndarray) -> ir.Value | None:
    """The literal in the node's declared element type; None if the declared shape disagrees."""
    declared = node.result_info()
    dtype = NUMPY_DTYPES.get(declared.element)
    if dtype is None:
        return None
    if declared.sizes is not None and (
        len(declared.sizes) != result.ndim
        or any(size is not None and size != actual for size, actual in zip(declared.sizes, result.shape))
    ):
        return None
    literal = b.literal(result.astype(dtype), declared.element)
    if TensorInfo(tuple(result.shape), declared.element) != TensorInfo(declared.sizes, declared.element):
        literal = b.op("tensor_static_info_cast", node.result_type(), literal)
    return literal
