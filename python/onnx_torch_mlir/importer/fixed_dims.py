"""`--dim NAME=SIZE`: a model's symbolic dims fixed at compile time.

A named dim (an ONNX `dim_param`, "batch", "sequence") of the graph's inputs, outputs and
value_info becomes the given size before shape inference, so every shape computed from it is
static: what a backend needs where a form takes no dynamic size (TOSA's lowering of size
queries, convolutions with dynamic image sizes on StableHLO's consumers).
"""

import onnx

from ..errors import ImportError_
from .shape_inference import copy_field


def parse_dim_options(options) -> dict[str, int]:
    """`["batch=2", "sequence=16"]` (or a mapping) -> {"batch": 2, "sequence": 16}."""
    if not options:
        return {}
    if isinstance(options, dict):
        items = list(options.items())
    else:
        items = []
        for option in options:
            name, equals, size = str(option).partition("=")
            if not equals or not name.strip():
                raise ImportError_(f"--dim '{option}': expected NAME=SIZE (a symbolic dim of the model and its size)")
            items.append((name.strip(), size.strip()))
    dims = {}
    for name, size in items:
        try:
            value = int(size)
        except (TypeError, ValueError):
            value = -1
        if value < 0:
            raise ImportError_(f"--dim {name}={size}: the size must be a non-negative integer")
        dims[name] = value
    return dims


def symbolic_dim_names(model: onnx.ModelProto) -> list[str]:
    """The named dims of the graph's inputs, in order of first appearance."""
    names: list[str] = []
    for value in model.graph.input:
        for dim in _dims(value):
            if dim.dim_param and dim.dim_param not in names:
                names.append(dim.dim_param)
    return names


def fix_symbolic_dims(model: onnx.ModelProto, dims: dict[str, int], model_name: str = "<model>") -> onnx.ModelProto:
    """A copy of `model` with every dim named in `dims` set to its size (`model` is untouched).

    The copy holds whatever `model` holds: the importer calls this on the skeleton without the
    large initializer payloads."""
    if not dims:
        return model
    known = symbolic_dim_names(model)
    unknown = [name for name in dims if name not in known]
    if unknown:
        listing = ", ".join(known) if known else "none"
        raise ImportError_(
            f"{model_name}: --dim {unknown[0]}: the model's inputs have no dim of that name "
            f"(their symbolic dims: {listing})"
        )
    result = _shallow_copy(model)
    for values in (result.graph.input, result.graph.output, result.graph.value_info):
        for value in values:
            for dim in _dims(value):
                if dim.dim_param in dims:
                    dim.dim_value = dims[dim.dim_param]
    return result


def _shallow_copy(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with its own graph inputs, outputs and value_info; other fields copied as they are."""
    result = onnx.ModelProto()
    for descriptor, value in model.ListFields():
        if descriptor.name != "graph":
            copy_field(result, descriptor, value)
    for descriptor, value in model.graph.ListFields():
        copy_field(result.graph, descriptor, value)
    return result




def _dims(value: onnx.ValueInfoProto):
    if value.type.HasField("tensor_type") and value.type.tensor_type.HasField("shape"):
        return value.type.tensor_type.shape.dim
    return []
