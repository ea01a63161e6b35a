"""Refining result types with the values of shape tensors.

Exporters compute the target shapes of Expand, Reshape and ConstantOfShape with
small integer tensors: the TorchScript exporter writes a mask's broadcast as
`Expand(mask, Where(Equal(shape, -1), ones, shape))`. ONNX's data propagation
evaluates Shape, Gather, Concat, Slice and a little arithmetic, but not Where,
Equal or ConstantOfShape, so the expanded mask is typed `[2,?,?,16]` although it
is `[2,1,16,16]`. A `?` that is really 1 is a different program downstream:
torch-mlir lowers broadcasting on the assumption that a `?` dim is not 1, and
the attention's mask add fails at run time (or, worse, a `?` becomes a wrong
static size).

This module gives every small integer tensor a *shape value*: a numpy object
array whose elements are ints (known), strings (a named dim: the `dim_param`
of a graph input or one inference made up; the same name is the same size), or
None (unknown); small float tensors computed from constants are followed too, as
numpy float scalars, for the sizes exporters compute in floating point and cast
(`shape_value_elements`). It uses what is known of dims: a dim is never negative, so
`Equal(dim, -1)` is False, and `Max(dim, 0)` is the dim. The consumers' result
dims computed from those values are written into the model's value_info where
they are more precise than inference found, and inference runs again so the
ops downstream are typed from them. Nothing is folded into the graph: the
model keeps its own nodes; only types change, and only from `?` to a size.

The one exception is an If whose condition's shape value is a known bool
(`static_if`, e.g. `Equal` of two sizes that are the same named dim is True):
it is replaced by the branch that runs. A branch that cannot run may have
results of another rank, which torch cannot carry through an If; a branch that
can never run must not stop a model from converting.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import numpy_helper

from ..onnx_arrays import slice_positions, unsqueeze
from .shape_value_elements import BINARY as _BINARY
from .shape_value_elements import add as _add
from .shape_value_elements import UNARY as _UNARY
from .shape_value_elements import cast_to_bool, cast_to_float, cast_to_int
from .shape_value_elements import is_dim as _is_dim
from .shape_value_elements import is_int as _is_int
from .shape_value_elements import maximum as _max
from .shape_value_elements import minimum as _min
from .shape_value_elements import mul as _mul

# Shape tensors are short; anything longer is data, not a shape.
MAX_ELEMENTS = 64
# Each round re-runs inference; a chain of k padded blocks whose pads depend on the previous
# block's shape (TF-style "same" padding) needs k rounds.
MAX_ROUNDS = 64
_INT64_MAX = 2**63 - 1
_INTEGER_TYPES = {
    onnx.TensorProto.INT64, onnx.TensorProto.INT32, onnx.TensorProto.INT16, onnx.TensorProto.INT8,
    onnx.TensorProto.UINT64, onnx.TensorProto.UINT32, onnx.TensorProto.UINT16, onnx.TensorProto.UINT8,
    onnx.TensorProto.BOOL,
}
_FLOAT_TYPES = {onnx.TensorProto.FLOAT: np.float32, onnx.TensorProto.DOUBLE: np.float64, onnx.TensorProto.FLOAT16: np.float16}
_VALUE_TYPES = _INTEGER_TYPES | set(_FLOAT_TYPES)
_UNKNOWN = None


def _elementwise(function, *arrays):
    try:
        broadcast = np.broadcast_arrays(*arrays)
    except ValueError:
        return None
    result = np.empty(broadcast[0].shape, dtype=object)
    for index in np.ndindex(result.shape):
        result[index] = function(*(array[index] for array in broadcast))
    return result


def _known_ints(array) -> list[int] | None:
    if array is None or not all(_is_int(element) for element in array.reshape(-1)):
        return None
    return [int(element) for element in array.reshape(-1)]


def _as_values(array: np.ndarray) -> np.ndarray:
    values = np.empty(array.shape, dtype=object)
    for index in np.ndindex(array.shape):
        element = array[index]
        if array.dtype == np.bool_:
            values[index] = bool(element)
        else:
            values[index] = element if np.issubdtype(array.dtype, np.floating) else int(element)
    return values


# -- the evaluation ------------------------------------------------------------------
class _Evaluator:
    """Shape values of one graph, node by node in graph order."""

    def __init__(self, graph: onnx.GraphProto, types: dict):
        self.types = types  # value name -> TypeProto
        self.values: dict[str, np.ndarray] = {}
        fed = {value.name for value in graph.input}
        for tensor in graph.initializer:
            if tensor.name not in fed and tensor.data_type in _VALUE_TYPES and _small(tensor.dims):
                array = _payload(tensor)
                if array is not None:
                    self.values[tensor.name] = _as_values(array)

    def dims(self, name: str) -> list | None:
        """The dims of a value's type: int, a dim name, or None; None when unranked."""
        type_proto = self.types.get(name)
        if type_proto is None or not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
            return None
        return [_dim_element(dim) for dim in type_proto.tensor_type.shape.dim]

    def element_type(self, name: str) -> int | None:
        type_proto = self.types.get(name)
        if type_proto is None or not type_proto.HasField("tensor_type"):
            return None
        return type_proto.tensor_type.elem_type

    def run(self, node: onnx.NodeProto) -> None:
        evaluate = getattr(self, f"_op_{node.op_type}", None)
        if evaluate is None or node.domain not in ("", "ai.onnx") or not node.output:
            return
        try:
            result = evaluate(node, [self.values.get(name) if name else None for name in node.input])
        except (ValueError, IndexError, TypeError, ZeroDivisionError):
            result = None  # a malformed shape computation stays unknown; the verifier reports it
        if result is not None and not isinstance(result, np.ndarray):  # numpy gives 0-d results as scalars
            result = _object_array(result, shape=())
        if result is not None and result.size <= MAX_ELEMENTS and self.element_type(node.output[0]) in _VALUE_TYPES:
            self.values[node.output[0]] = result

    # Constants and shapes
    def _op_Constant(self, node, inputs):
        for attribute in node.attribute:
            if attribute.name == "value" and attribute.t.data_type in _VALUE_TYPES and _small(attribute.t.dims):
                array = _payload(attribute.t)
                return None if array is None else _as_values(array)
            if attribute.name == "value_int":
                return _as_values(np.array(attribute.i, dtype=np.int64))
            if attribute.name == "value_ints":
                return _as_values(np.array(list(attribute.ints), dtype=np.int64))
            if attribute.name == "value_float":
                return _as_values(np.array(attribute.f, dtype=np.float32))
            if attribute.name == "value_floats":
                return _as_values(np.array(list(attribute.floats), dtype=np.float32))
        return None

    def _op_Shape(self, node, inputs):
        dims = self.dims(node.input[0])
        if dims is None:
            return None
        rank = len(dims)
        start, end = _attribute(node, "start", 0), _attribute(node, "end", rank)
        start = min(max(start + rank if start < 0 else start, 0), rank)
        end = min(max(end + rank if end < 0 else end, 0), rank)
        return _object_array(dims[start:end])

    def _op_Size(self, node, inputs):
        dims = self.dims(node.input[0])
        if dims is None or not all(_is_int(dim) for dim in dims):
            return None
        return _object_array(int(np.prod(dims)), shape=())

    def _op_ConstantOfShape(self, node, inputs):
        shape = _known_ints(inputs[0])
        fill = next((a.t for a in node.attribute if a.name == "value"), None)
        if shape is None or int(np.prod(shape)) > MAX_ELEMENTS:
            return None
        if fill is None or fill.data_type not in _VALUE_TYPES:
            return None
        array = _payload(fill)
        return None if array is None else _as_values(np.full(shape, array.reshape(-1)[0]))

    # Elementwise
    def _binary(self, node, inputs):
        if inputs[0] is None or inputs[1] is None:
            return None
        return _elementwise(_BINARY[node.op_type], inputs[0], inputs[1])

    _op_Add = _op_Sub = _op_Mul = _op_Div = _op_Equal = _op_Less = _op_LessOrEqual = _binary
    _op_Greater = _op_GreaterOrEqual = _op_And = _op_Or = _op_Xor = _binary

    def _op_Max(self, node, inputs):
        return self._fold_variadic(_max, inputs)

    def _op_Min(self, node, inputs):
        return self._fold_variadic(_min, inputs)

    def _fold_variadic(self, function, inputs):
        if not inputs or any(array is None for array in inputs):
            return None
        result = inputs[0]
        for array in inputs[1:]:
            result = _elementwise(function, result, array)
            if result is None:
                return None
        return result

    def _unary(self, node, inputs):  # Ceil/Floor/Round: sizes computed in float (MobileViT's patches)
        return None if inputs[0] is None else _elementwise(_UNARY[node.op_type], inputs[0])

    _op_Neg = _op_Ceil = _op_Floor = _op_Round = _unary

    def _op_Not(self, node, inputs):
        if inputs[0] is None:
            return None
        return _elementwise(lambda x: (not x) if isinstance(x, (bool, np.bool_)) else _UNKNOWN, inputs[0])

    def _op_Where(self, node, inputs):
        if any(array is None for array in inputs):
            return None

        def pick(condition, x, y):
            if not isinstance(condition, (bool, np.bool_)):
                return x if x == y and x is not None else _UNKNOWN
            return x if condition else y

        return _elementwise(pick, *inputs)

    def _op_Cast(self, node, inputs):
        return self._cast(inputs[0], _attribute(node, "to", None))

    def _op_CastLike(self, node, inputs):
        """To the element type of input 1, known from its type when its value is not (onnxscript
        writes `IsScalar(x)` as `Equal(Size(Shape(x)), CastLike(0, ...))`)."""
        return self._cast(inputs[0], self.element_type(node.input[1]) if len(node.input) > 1 else None)

    @staticmethod
    def _cast(values, to):
        if values is None:
            return None
        if to == onnx.TensorProto.BOOL:
            return _elementwise(cast_to_bool, values)
        if to in _INTEGER_TYPES:
            return _elementwise(cast_to_int, values)
        if to in _FLOAT_TYPES:
            return _elementwise(lambda x: cast_to_float(x, _FLOAT_TYPES[to]), values)
        return None

    def _op_Identity(self, node, inputs):
        return inputs[0]

    # Data movement on small tensors
    def _op_Concat(self, node, inputs):
        if not inputs or any(array is None for array in inputs):
            return None
        return np.concatenate(inputs, axis=_attribute(node, "axis", 0))

    def _op_Gather(self, node, inputs):
        data, indices = inputs[0], _known_ints(inputs[1]) if len(inputs) > 1 else None
        if data is None or indices is None:
            return None
        axis = _attribute(node, "axis", 0)
        index_array = np.array(indices, dtype=np.int64).reshape(inputs[1].shape)
        return np.take(data, index_array, axis=axis)

    def _op_Slice(self, node, inputs):
        data = inputs[0]
        if data is None:
            return None
        if len(inputs) == 1:  # opset < 10: attributes
            starts, ends = _attribute(node, "starts", None), _attribute(node, "ends", None)
            axes, steps = _attribute(node, "axes", None), None
        else:
            starts, ends = _known_ints(inputs[1]), _known_ints(inputs[2])
            axes = _known_ints(inputs[3]) if len(inputs) > 3 and inputs[3] is not None else None
            steps = _known_ints(inputs[4]) if len(inputs) > 4 and inputs[4] is not None else None
            if (len(inputs) > 3 and node.input[3] and axes is None) or (len(inputs) > 4 and node.input[4] and steps is None):
                return None
        if starts is None or ends is None:
            return None
        axes = axes if axes is not None else list(range(len(starts)))
        steps = steps if steps is not None else [1] * len(starts)
        result = data
        for start, end, axis, step in zip(starts, ends, axes, steps):
            axis = axis + data.ndim if axis < 0 else axis
            result = np.take(result, slice_positions(start, end, step, data.shape[axis]), axis=axis)
        return result

    def _op_Unsqueeze(self, node, inputs):
        axes = _known_ints(inputs[1]) if len(inputs) > 1 else _attribute(node, "axes", None)
        if inputs[0] is None or axes is None:
            return None
        return unsqueeze(inputs[0], axes)

    def _op_Squeeze(self, node, inputs):
        if inputs[0] is None:
            return None
        axes = _known_ints(inputs[1]) if len(inputs) > 1 and inputs[1] is not None else _attribute(node, "axes", None)
        if axes is None:
            return inputs[0].reshape([size for size in inputs[0].shape if size != 1])
        return np.squeeze(inputs[0], axis=tuple(axes))

    def _op_Reshape(self, node, inputs):
        shape = _known_ints(inputs[1]) if len(inputs) > 1 else None
        if inputs[0] is None or shape is None:
            return None
        shape = [inputs[0].shape[i] if size == 0 else size for i, size in enumerate(shape)]
        return inputs[0].reshape(shape)

    def _op_Transpose(self, node, inputs):
        if inputs[0] is None:
            return None
        return np.transpose(inputs[0], _attribute(node, "perm", None))

    def _op_Range(self, node, inputs):
        numbers = [_known_ints(array) for array in inputs]
        if any(number is None for number in numbers):
            return None
        start, limit, delta = (number[0] for number in numbers)
        if delta == 0:
            return None
        values = np.arange(start, limit, delta, dtype=np.int64)
        return _as_values(values) if values.size <= MAX_ELEMENTS else None

    def _op_Expand(self, node, inputs):
        shape = _known_ints(inputs[1])
        if inputs[0] is None or shape is None:
            return None
        target = np.broadcast_shapes(inputs[0].shape, tuple(shape))
        return np.broadcast_to(inputs[0], target).copy() if int(np.prod(target)) <= MAX_ELEMENTS else None


# -- the consumers: result dims from shape values ------------------------------------------
def _expand_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    """Expand: numpy broadcasting of the input's dims with the target shape."""
    input_dims, shape = evaluator.dims(node.input[0]), evaluator.values.get(node.input[1])
    if input_dims is None or shape is None or shape.ndim != 1:
        return None
    rank = max(len(input_dims), shape.size)
    left = [1] * (rank - len(input_dims)) + input_dims
    right = [1] * (rank - shape.size) + list(shape)
    return [_broadcast_dim(a, b) for a, b in zip(left, right)]


def _broadcast_dim(a, b):
    if b == 1 and not isinstance(b, bool):
        return a
    if a == 1 and not isinstance(a, bool):
        return b if (_is_int(b) or _is_dim(b)) else None
    if _is_int(a):
        return a  # b is a or 1
    if _is_int(b) and b > 1:
        return b  # a is b or 1
    if _is_dim(a) and a == b:
        return a
    return None


def _reshape_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    """Reshape: 0 copies the input dim (unless allowzero), -1 is what is left. With the input's
    dims unknown the rank is still the shape's length (an old torch export declares `[1, seqlen]`
    for a Reshape to three sizes computed at run time; ONNX's inference gives no rank there)."""
    input_dims, shape = evaluator.dims(node.input[0]), evaluator.values.get(node.input[1])
    if shape is None or shape.ndim != 1:
        return None
    allowzero = _attribute(node, "allowzero", 0)
    if input_dims is None:
        return [size if (_is_int(size) and (size > 0 or allowzero)) or _is_dim(size) else None for size in shape]
    dims = []
    for i, size in enumerate(shape):
        if _is_int(size) and size == 0 and not allowzero:
            dims.append(input_dims[i] if i < len(input_dims) else None)
        elif _is_int(size) and size < -1:
            return None
        else:
            dims.append(size if (_is_int(size) or _is_dim(size)) else None)
    inferred = [i for i, size in enumerate(dims) if _is_int(size) and size == -1]
    if len(inferred) == 1:
        others = dims[: inferred[0]] + dims[inferred[0] + 1 :]
        dims[inferred[0]] = _quotient(input_dims, others)
    elif inferred:
        return None
    return dims


def _quotient(numerator: list, denominator: list):
    """prod(numerator) / prod(denominator) over ints and dim names; None if unknown."""
    if any(dim is None for dim in numerator) or any(dim is None for dim in denominator):
        return None
    names = [dim for dim in numerator if _is_dim(dim)]
    for dim in denominator:
        if _is_dim(dim):
            if dim not in names:
                return None
            names.remove(dim)
    top = int(np.prod([dim for dim in numerator if _is_int(dim)], dtype=np.int64))
    bottom = int(np.prod([dim for dim in denominator if _is_int(dim)], dtype=np.int64))
    if bottom == 0 or top % bottom:
        return None
    count = top // bottom
    if not names:
        return count
    return names[0] if len(names) == 1 and count == 1 else None


def _constant_of_shape_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    shape = evaluator.values.get(node.input[0]) if node.input else None
    if shape is None or shape.ndim != 1:
        return None
    return [size if (_is_int(size) or _is_dim(size)) else None for size in shape]


def _tile_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    input_dims, repeats = evaluator.dims(node.input[0]), evaluator.values.get(node.input[1])
    if input_dims is None or repeats is None or repeats.size != len(input_dims):
        return None
    return [_mul(dim, repeat) for dim, repeat in zip(input_dims, repeats.reshape(-1))]


def _pad_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    """Pad: each padded dim grows by its begin and end pads (opset 2-10: the `pads` attribute)."""
    input_dims = evaluator.dims(node.input[0])
    if input_dims is None:
        return None
    if len(node.input) > 1 and node.input[1]:
        pads = evaluator.values.get(node.input[1])
        pads = None if pads is None else list(pads.reshape(-1))
    else:
        pads = _attribute(node, "pads", None)
    axes = list(range(len(input_dims)))
    if len(node.input) > 3 and node.input[3]:
        axes = _known_ints(evaluator.values.get(node.input[3]))
        if axes is None:
            return None
        axes = [axis + len(input_dims) if axis < 0 else axis for axis in axes]
    if pads is None or len(pads) != 2 * len(axes):
        return None
    dims = list(input_dims)
    for i, axis in enumerate(axes):
        dims[axis] = _add(_add(dims[axis], pads[i]), pads[i + len(axes)])
    return dims


def _slice_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    """Slice: a sliced dim is known when its size and the start, end and step are; a dim the
    slice does not touch, or takes whole (start 0, end past it, step 1), keeps its size or name.

    Decoders compute rotate-half's split point from `Shape` (x.shape[-1] // 2), which ONNX's
    inference does not follow: without this every dim of both halves was unknown."""
    input_dims = evaluator.dims(node.input[0])
    if input_dims is None:
        return None
    if len(node.input) == 1:  # opset < 10: attributes
        starts, ends = _attribute(node, "starts", None), _attribute(node, "ends", None)
        axes, steps = _attribute(node, "axes", None), None
    else:
        starts, ends = _input_ints(evaluator, node, 1), _input_ints(evaluator, node, 2)
        axes, steps = _input_ints(evaluator, node, 3), _input_ints(evaluator, node, 4)
        if (_has_input(node, 3) and axes is None) or (_has_input(node, 4) and steps is None):
            return None
    if starts is None or ends is None or len(starts) != len(ends):
        return None
    rank = len(input_dims)
    axes = list(range(len(starts))) if axes is None else [axis + rank if axis < 0 else axis for axis in axes]
    steps = [1] * len(starts) if steps is None else steps
    dims = list(input_dims)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        size = input_dims[axis]
        if _is_int(size):
            dims[axis] = len(slice_positions(start, end, step, size))
        elif not (start == 0 and step == 1 and end >= _INT64_MAX // 2):
            dims[axis] = None
    return dims


def _has_input(node: onnx.NodeProto, index: int) -> bool:
    return len(node.input) > index and bool(node.input[index])


def _input_ints(evaluator: _Evaluator, node: onnx.NodeProto, index: int) -> list[int] | None:
    if not _has_input(node, index):
        return None
    values = evaluator.values.get(node.input[index])
    return None if values is None else _known_ints(values)


def _range_dims(evaluator: _Evaluator, node: onnx.NodeProto):
    values = evaluator.values.get(node.output[0])
    return None if values is None else [values.size]


_CONSUMERS = {
    "Expand": _expand_dims, "Reshape": _reshape_dims, "ConstantOfShape": _constant_of_shape_dims,
    "Tile": _tile_dims, "Range": _range_dims, "Pad": _pad_dims, "Slice": _slice_dims,
}


# -- writing what was found -------------------------------------------------------------
def refine_types(model: onnx.ModelProto, infer, add_types=()) -> onnx.ModelProto:
    """`model` (typed by `infer`) with consumer result dims made precise by shape values.

    `infer(model) -> model` is the shape inference to re-run after a refinement,
    so that the ops downstream are typed from the refined dims. `add_types` are
    other refinements of the same kind, `model -> bool` (True when they typed
    something), run first in each round: the types of ops `infer` does not know.
    Rounds repeat while something is refined (a refined dim can make another
    Shape known).
    """
    for _ in range(MAX_ROUNDS):
        added = [add(model) for add in add_types]
        if not _refine_once(model) and not any(added):
            return model
        model = infer(model)
    return model


def shape_values_of(model: onnx.ModelProto) -> dict:
    """name -> shape value of each main-graph value that has one (`static_if` reads conditions)."""
    graph = model.graph
    declared = list(graph.input) + list(graph.value_info) + list(graph.output)
    evaluator = _Evaluator(graph, {value.name: value.type for value in declared})
    for node in graph.node:
        evaluator.run(node)
    return evaluator.values


def _refine_once(model: onnx.ModelProto) -> bool:
    graph = model.graph
    declared = {value.name: value for value in list(graph.input) + list(graph.value_info) + list(graph.output)}
    evaluator = _Evaluator(graph, {name: value.type for name, value in declared.items()})
    refined = False
    for node in graph.node:
        evaluator.run(node)
        consumer = _CONSUMERS.get(node.op_type)
        if consumer is None or node.domain not in ("", "ai.onnx") or not node.output or node.output[0] not in declared:
            continue
        try:
            dims = consumer(evaluator, node)
        except (ValueError, IndexError, TypeError):
            dims = None
        if dims is not None and _write_dims(declared[node.output[0]], dims, _graph_dim_names(graph)):
            refined = True
    return refined


def _graph_dim_names(graph: onnx.GraphProto) -> set:
    return {dim.dim_param for value in graph.input for dim in value.type.tensor_type.shape.dim if dim.dim_param}


def _write_dims(value: onnx.ValueInfoProto, dims: list, input_dim_names: set) -> bool:
    """Make `value`'s unknown dims known; True if any changed. Known dims are never changed."""
    tensor_type = value.type.tensor_type
    if not value.type.HasField("tensor_type"):
        return False
    if not tensor_type.HasField("shape"):
        tensor_type.shape.SetInParent()
        for _ in dims:
            tensor_type.shape.dim.add()
    if len(tensor_type.shape.dim) != len(dims):
        return False
    changed = False
    for dim, found in zip(tensor_type.shape.dim, dims):
        if dim.HasField("dim_value") or found is None:
            continue
        if dim.HasField("dim_param") and dim.dim_param in input_dim_names:
            continue  # a named input dim says more than a name we made up
        if _is_int(found) and found >= 0:
            dim.Clear()
            dim.dim_value = int(found)
            changed = True
        elif _is_dim(found) and dim.dim_param != found:
            dim.Clear()
            dim.dim_param = found
            changed = True
    return changed


# -- helpers ---------------------------------------------------------------------------
def _dim_element(dim: onnx.TensorShapeProto.Dimension):
    if dim.HasField("dim_value"):
        return int(dim.dim_value)
    if dim.HasField("dim_param") and dim.dim_param:
        return dim.dim_param
    return None


def _object_array(elements, shape=None) -> np.ndarray:
    if shape == ():
        array = np.empty((), dtype=object)
        array[()] = elements
        return array
    array = np.empty(len(elements), dtype=object)
    for i, element in enumerate(elements):
        array[i] = element
    return array


def _small(dims) -> bool:
    return int(np.prod(list(dims), dtype=np.int64)) <= MAX_ELEMENTS


def _payload(tensor: onnx.TensorProto) -> np.ndarray | None:
    if tensor.external_data or tensor.data_location == onnx.TensorProto.EXTERNAL:
        return None
    try:
        return numpy_helper.to_array(tensor)
    except Exception:  # noqa: BLE001 - a weightless skeleton copy or a malformed tensor: unknown
        return None


def _attribute(node: onnx.NodeProto, name: str, default):
    for attribute in node.attribute:
        if attribute.name == name:
            return onnx.helper.get_attribute_value(attribute)
    return default
