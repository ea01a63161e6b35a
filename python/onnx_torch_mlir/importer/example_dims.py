"""`--dims-from INPUTS.npz`: every dynamic dim of the graph's inputs fixed at the size of an example.

Fixing a KV-cache decoder's dims by hand takes a `--dim` per name and an `--input-shape` per dim
without one, and the names are exporters' expressions (`past_sequence_length + sequence_length`).
Example inputs already say every size: each input's array gives its whole shape
(`input_shapes`), and each named dim the size it has there (`dims`, so the outputs and
value_info that carry the name are fixed too). A name the model gives to dims of several inputs
must have one size in the examples, else the error names both inputs (optimum's older merged
decoders call both the new tokens and the longer attention mask `sequence_length`: fix those
inputs with `--input-shape`). `--dim` and `--input-shape` given as well must agree with the
examples.
"""

from __future__ import annotations

import onnx

from ..errors import ImportError_
from .fixed_dims import parse_dim_options, parse_input_shape_options, without_negative_dims


def dims_from_examples(model: onnx.ModelProto, shapes: dict[str, tuple], source: str = "--dims-from"
                       ) -> tuple[dict[str, int], dict[str, list[int]]]:
    """(`dims`, `input_shapes`) as `compile` takes them, from the example shape of each input
    named in `shapes`; `source` ("--dims-from FILE") starts every error."""
    model = without_negative_dims(model)
    initializers = {initializer.name for initializer in model.graph.initializer}
    named: dict[str, tuple[int, str]] = {}  # dim name -> (size, the input that gave it)
    input_shapes = {}
    for value in model.graph.input:
        if value.name in initializers or value.name not in shapes:
            continue
        shape = [int(size) for size in shapes[value.name]]
        _check_declared_shape(value, shape, source)
        for dim, size in zip(_dims(value), shape):
            if dim.HasField("dim_param"):
                _bind_name(named, dim.dim_param, size, value.name, source)
        input_shapes[value.name] = shape
    return {name: size for name, (size, _) in named.items()}, input_shapes


def merge_with_options(example_dims: dict[str, int], example_shapes: dict[str, list[int]], dims=None,
                       input_shapes=None, source: str = "--dims-from") -> tuple[dict[str, int], dict[str, list]]:
    """The examples' dims and shapes with `--dim` / `--input-shape` options (`dims`, `input_shapes`)
    added; an option that disagrees with an example is refused."""
    merged_dims = dict(example_dims)
    for name, size in parse_dim_options(dims).items():
        if merged_dims.get(name, size) != size:
            raise ImportError_(f"{source}: dim '{name}' is {merged_dims[name]} there, but --dim {name}={size}")
        merged_dims[name] = size
    merged_shapes = {name: list(shape) for name, shape in example_shapes.items()}
    for name, sizes in parse_input_shape_options(input_shapes).items():
        example = merged_shapes.get(name)
        if example is not None and (len(example) != len(sizes) or any(
                size is not None and size != given for size, given in zip(sizes, example))):
            written = "x".join("?" if size is None else str(size) for size in sizes)
            raise ImportError_(f"{source}: input '{name}' has shape {_spelled(example)} there, "
                               f"but --input-shape {name}={written}")
        merged_shapes[name] = example if example is not None else sizes
    return merged_dims, merged_shapes


def _check_declared_shape(value: onnx.ValueInfoProto, shape: list[int], source: str) -> None:
    """The example's shape keeps the input's declared rank and static sizes."""
    if not value.type.HasField("tensor_type"):
        raise ImportError_(f"{source}: input '{value.name}' is not a tensor; its dims cannot come from an array")
    if not value.type.tensor_type.HasField("shape"):
        return
    dims = _dims(value)
    declared = "[" + ", ".join(str(dim.dim_value) if dim.HasField("dim_value") else dim.dim_param or "?"
                               for dim in dims) + "]"
    if len(dims) != len(shape):
        raise ImportError_(f"{source}: input '{value.name}' has shape {_spelled(shape)} there, but the model "
                           f"declares rank {len(dims)} ({declared})")
    for axis, (dim, size) in enumerate(zip(dims, shape)):
        if dim.HasField("dim_value") and dim.dim_value != size:
            raise ImportError_(f"{source}: input '{value.name}' has shape {_spelled(shape)} there, but the model "
                               f"declares dim {axis} {dim.dim_value} ({declared})")


def _bind_name(named: dict, name: str, size: int, input_name: str, source: str) -> None:
    earlier_size, earlier_input = named.setdefault(name, (size, input_name))
    if earlier_size != size:
        raise ImportError_(
            f"{source}: dim '{name}' is {earlier_size} in input '{earlier_input}' but {size} in input "
            f"'{input_name}' (one name, one size: inputs that differ at run time under one name need "
            f"an --input-shape each, not --dims-from)")


def _spelled(shape) -> str:
    return "x".join(str(size) for size in shape) if shape else "() (a scalar)"


def _dims(value: onnx.ValueInfoProto):
    if value.type.HasField("tensor_type") and value.type.tensor_type.HasField("shape"):
        return value.type.tensor_type.shape.dim
    return []
