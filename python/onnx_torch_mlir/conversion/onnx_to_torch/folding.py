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
Folding node by node in program order folds whole chains.

Only computations whose result does not depend on who computes it are folded:
integer and boolean arithmetic, data movement of any element type, casts, and
the floating-point operations IEEE 754 defines to the last bit (+, -, *, /,
sqrt, fmod, floor, ceil, round, abs, min, max, comparisons), computed in the
operands' own type, so the literal holds the bits any conforming backend
would compute at run time. Exporters need them: a position-embedding size
`int(num_positions ** 0.5)` or MobileViT's `int(ceil(h / p) * p)` are float
chains ending in a Cast to int64 that sizes a Reshape or Resize. Pow, which
IEEE does not pin down, is computed in float64 and rounded once to the
operand type: the correctly rounded power except within 2^-29 of a tie,
closer than the backends' own pow (an exp(y*log(x)) that makes 16^0.5 a
3.9999998 which a Cast then truncates to 3).
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


def _same_float(*arrays) -> bool:
    """All operands of one IEEE type, so numpy computes in that type (the backends' type)."""
    return all(np.issubdtype(array.dtype, np.floating) for array in arrays) and len({a.dtype for a in arrays}) == 1


def _arithmetic(integer_function, float_function=None):
    """Integer (or boolean) operands by `integer_function`, IEEE ones by `float_function` if given."""

    def evaluate(node, inputs):
        if _integral(*inputs):
            return integer_function(*inputs)
        if float_function is not None and _same_float(*inputs):
            return float_function(*inputs)
        return None

    return evaluate


def _divide(x, y):
    """ONNX integer Div truncates toward zero."""
    if np.any(y == 0):
        return None
    quotient = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -quotient, quotient).astype(np.result_type(x, y))


def _modulo(node, inputs):
    x, y = inputs
    fmod = node.attr_int("fmod", 0)
    if np.any(y == 0):
        return None
    if _integral(x, y):
        return np.fmod(x, y) if fmod else np.mod(x, y)
    return np.fmod(x, y) if fmod and _same_float(x, y) else None  # float Mod requires fmod=1; fmod is exact


def _power(node, inputs):
    """ONNX Pow: the result has the base's type; the exponent may be of another numeric type."""
    base, exponent = inputs
    if _integral(base, exponent) and base.dtype != np.bool_ and exponent.dtype != np.bool_:
        if np.any(exponent < 0):
            return None  # an integer's negative power truncates differently across runtimes
        exact = np.power(base.astype(object), exponent.astype(object))
        limits = np.iinfo(base.dtype)
        if any(value < limits.min or value > limits.max for value in np.asarray(exact).reshape(-1)):
            return None
        return np.asarray(exact).astype(base.dtype)
    if np.issubdtype(base.dtype, np.floating) and exponent.dtype != np.bool_:
        return np.power(base.astype(np.float64), exponent.astype(np.float64)).astype(base.dtype)
    return None


def _compare(function):
    def evaluate(node, inputs):
        return function(*inputs)

    return evaluate


def _variadic(function):
    def evaluate(node, inputs):
        if not (_integral(*inputs) or _same_float(*inputs)):
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


def _split(node, inputs):
    """The pieces along `axis`: the lengths of `split` (an attribute before opset 13, an input
    from 13), else equal pieces, the last one shorter from opset 18 (`num_outputs`)."""
    data, axis = inputs[0], node.attr_int("axis", 0)
    size = data.shape[axis]
    if node.opset < 13:
        lengths = node.attr_ints("split", None)
    else:
        lengths = None if len(inputs) < 2 or inputs[1] is None else [int(n) for n in inputs[1].reshape(-1)]
    if lengths is None:
        count = node.num_results
        chunk = -(-size // count)
        if node.opset < 18 and size % count:
            return None
        lengths = [min(chunk, max(size - chunk * i, 0)) for i in range(count)]
    if len(lengths) != node.num_results or sum(lengths) != size or any(n < 0 for n in lengths):
        return None
    return np.split(data, np.cumsum(lengths)[:-1], axis=axis)


def _where(node, inputs):
    return np.where(*inputs)


def _unary(function, integral_only=True):
    def evaluate(node, inputs):
        return function(inputs[0]) if (not integral_only or _integral(inputs[0])) else None

    return evaluate


def _exact_unary(function):
    """An op IEEE 754 defines exactly, on integer or floating-point operands."""

    def evaluate(node, inputs):
        return function(inputs[0]) if _integral(inputs[0]) or _same_float(inputs[0]) else None

    return evaluate


def _float_unary(function):
    """An op defined on floating-point operands only, exact by IEEE 754."""

    def evaluate(node, inputs):
        return function(inputs[0]) if _same_float(inputs[0]) else None

    return evaluate


def _float_divide(x, y):
    return None if np.any(y == 0) else np.divide(x, y)


_EVALUATORS = {
    "Add": _arithmetic(np.add, np.add), "Sub": _arithmetic(np.subtract, np.subtract),
    "Mul": _arithmetic(np.multiply, np.multiply), "Div": _arithmetic(_divide, _float_divide), "Mod": _modulo,
    "Pow": _power, "Neg": _exact_unary(np.negative), "Abs": _exact_unary(np.abs),
    "Floor": _float_unary(np.floor), "Ceil": _float_unary(np.ceil), "Round": _float_unary(np.round),
    "Sqrt": _float_unary(np.sqrt), "Max": _variadic(np.maximum), "Min": _variadic(np.minimum),
    "Equal": _compare(np.equal), "Less": _compare(np.less), "LessOrEqual": _compare(np.less_equal),
    "Greater": _compare(np.greater), "GreaterOrEqual": _compare(np.greater_equal),
    "Not": _unary(np.logical_not), "And": _arithmetic(np.logical_and), "Or": _arithmetic(np.logical_or),
    "Xor": _arithmetic(np.logical_xor), "Where": _where, "Cast": _cast, "Identity": _unary(np.asarray, False),
    "ConstantOfShape": _constant_of_shape, "Concat": _concat, "Gather": _gather, "Slice": _slice,
    "Unsqueeze": _unsqueeze, "Squeeze": _squeeze, "Reshape": _reshape, "Range": _range, "Expand": _expand,
    "Transpose": _transpose, "Flatten": _flatten, "Tile": _tile, "Split": _split,
}
# Ops whose evaluator gives a list of arrays, one per result.
_MULTIPLE_RESULTS = {"Split"}
# Ops whose attributes changed meaning the fold does not model: Slice before opset 10 (attributes),
# Tile before opset 6 (tiles/axis inputs), Pow before opset 7 (broadcast/axis attributes).
# Split before opset 2 (split as an input or an attribute).
_SINCE = {"Slice": 10, "Tile": 6, "Pow": 7, "Split": 2}


def fold_constant_node(node: OnnxNode, b: TorchBuilder) -> ir.Value | list | None:
    """A literal of the node's value (for Split, one per result) when it is foldable shape
    arithmetic on small literals, else None."""
    evaluate = _EVALUATORS.get(node.op_type)
    results = node.num_results if node.op_type in _MULTIPLE_RESULTS else 1
    if evaluate is None or node.domain != "" or node.num_results != results or node.opset < _SINCE.get(node.op_type, 1):
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
    if result is None:
        return None
    if node.op_type not in _MULTIPLE_RESULTS:
        return None if result.size > MAX_ELEMENTS else _as_declared_literal(node, b, np.asarray(result))
    literals = [_as_declared_literal(node, b, np.asarray(piece), index) for index, piece in enumerate(result)]
    return None if any(literal is None for literal in literals) else literals


def _small_static(node: OnnxNode, index: int) -> bool:
    info = node.input_info(index)
    return info.is_static and int(np.prod(info.sizes, dtype=np.int64)) <= MAX_ELEMENTS


def _as_declared_literal(node: OnnxNode, b: TorchBuilder, result: np.ndarray, index: int = 0) -> ir.Value | None:
    """The literal of result `index` in its declared element type; None if the declared shape disagrees."""
    declared = node.result_info(index)
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
        literal = b.op("tensor_static_info_cast", node.result_type(index), literal)
    return literal
