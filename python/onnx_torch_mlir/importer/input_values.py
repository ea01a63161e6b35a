"""`--input-value NAME=VALUE`: a graph input fixed to a value at compile time.

Some inputs choose which network runs rather than carry data: Silero VAD's `sr` (16000 or 8000)
picks one of two networks with an If, and each network is valid only for its own chunk size. With
the sizes fixed (`--dim`), the other rate's network cannot be typed, and TOSA, which has no
conditional it can check, needs the If decided. A user who compiles for one sample rate knows it,
as one who compiles for one shape knows the sizes. The input then becomes a `Constant` of that value
at the head of the graph, so an If on it is decided at import (`static_if`), and it is no longer
an argument of the compiled program: a caller cannot pass another value to a program built for this
one.

The value must fit the input's declared type: its element type (ints for integer inputs, `true`/
`false` or 1/0 for booleans) and a static shape; one value fills the shape, or there is one per
element (comma-separated, row-major).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from ..errors import ImportError_


def parse_input_value_options(options) -> dict[str, str]:
    """{input: value text} from ["sr=16000"] or a dict (values as given)."""
    if not options:
        return {}
    if isinstance(options, dict):
        return {str(name): _text(value) for name, value in options.items()}
    parsed = {}
    for option in options:
        name, separator, value = str(option).partition("=")
        if not separator or not name.strip() or not value.strip():
            raise ImportError_(f"--input-value {option}: expected INPUT=VALUE (e.g. sr=16000, or scale=0.5,0.25)")
        parsed[name.strip()] = value.strip()
    return parsed


def _text(value) -> str:
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(str(item) for item in np.asarray(value).reshape(-1).tolist())
    return str(value)


def fix_input_values(model: onnx.ModelProto, values: dict[str, str], model_name: str = "<model>") -> onnx.ModelProto:
    """`model`, or a copy where each input of `values` is a Constant of its value (module docstring)."""
    if not values:
        return model
    fixed = onnx.ModelProto()
    fixed.CopyFrom(model)
    graph = fixed.graph
    initializers = {tensor.name for tensor in graph.initializer}
    inputs = {value.name: value for value in graph.input if value.name not in initializers}
    constants = []
    for name, text in values.items():
        if name not in inputs:
            raise ImportError_(f"{model_name}: --input-value {name}: the model has no input of that name "
                               f"(its inputs: {', '.join(inputs) or 'none'})")
        constants.append(helper.make_node("Constant", [], [name], name=f"input_value_{name}",
                                          value=_tensor(inputs[name], text, model_name)))
    kept = [value for value in graph.input if value.name not in values]
    del graph.input[:]
    graph.input.extend(kept)
    nodes = constants + list(graph.node)
    del graph.node[:]
    graph.node.extend(nodes)
    return fixed


def _tensor(value: onnx.ValueInfoProto, text: str, model_name: str) -> onnx.TensorProto:
    where = f"{model_name}: --input-value {value.name}={text}"
    tensor_type = value.type.tensor_type
    if value.type.WhichOneof("value") != "tensor_type" or not tensor_type.elem_type:
        raise ImportError_(f"{where}: the input is not a tensor of a known element type")
    dims = list(tensor_type.shape.dim) if tensor_type.HasField("shape") else None
    if dims is None or any(not dim.HasField("dim_value") for dim in dims):
        raise ImportError_(f"{where}: the input's shape is not static; fix it too with --input-shape")
    shape = [dim.dim_value for dim in dims]
    dtype = helper.tensor_dtype_to_np_dtype(tensor_type.elem_type)
    items = [_item(item.strip(), dtype, where) for item in text.split(",")]
    count = int(np.prod(shape)) if shape else 1
    if len(items) not in (1, count):
        raise ImportError_(f"{where}: {len(items)} values for the input's shape {shape} ({count} elements)")
    array = np.full(shape, items[0], dtype=dtype) if len(items) == 1 else np.array(items, dtype=dtype).reshape(shape)
    return numpy_helper.from_array(array, value.name)


def _item(text: str, dtype: np.dtype, where: str):
    try:
        if dtype == np.bool_:
            if text.lower() in ("true", "1"):
                return True
            if text.lower() in ("false", "0"):
                return False
            raise ValueError(text)
        if np.issubdtype(dtype, np.integer):
            return int(text)
        return float(text)
    except ValueError:
        raise ImportError_(f"{where}: '{text}' is not a value of the input's element type {np.dtype(dtype).name}") from None
