"""`--dim NAME=SIZE` and `--input-shape INPUT=D0xD1`: a model's dynamic dims fixed at compile time.

A named dim (an ONNX `dim_param`, "batch", "sequence") of the graph's inputs, outputs and
value_info, and of its subgraphs' (a Loop body's carried values), becomes the given size before
shape inference, so every shape computed from it is static: what a backend needs where a form
takes no dynamic size (TOSA's lowering of size queries, convolutions with dynamic image sizes on
StableHLO's consumers).

`--input-shape` fixes one input's whole shape instead, for dims a name cannot reach: a dim
without a name, or a name the exporter gave to dims of different sizes (optimum's merged
decoders call both the new tokens and the attention mask `sequence_length`).

A declared dim of -1 (paddle2onnx writes `dim_value: -1` for a dynamic dim) is a dynamic dim
without a name: `without_negative_dims` clears it before anything reads the declarations, so
`--input-shape` fixes it and validation compares nothing with it. So is a dim named "?"
(paddle2onnx's name for every other dynamic dim: two dims named "?" are not one size).
"""

UNNAMED_DIM_PARAMS = ("?",)

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
    _fix_graph_dims(result.graph, dims)
    return result


def _fix_graph_dims(graph: onnx.GraphProto, dims: dict[str, int]) -> None:
    """The dims named in `dims` of `graph`'s declared values and of its subgraphs' (a Loop body's
    carried `[batch, 3]` is the graph's batch: left dynamic, the loop would carry a dynamic type)."""
    for value in _declared_values(graph):
        for dim in _dims(value):
            if dim.dim_param in dims:
                dim.dim_value = dims[dim.dim_param]
    for subgraph in _subgraphs(graph):
        _fix_graph_dims(subgraph, dims)


def without_negative_dims(model: onnx.ModelProto) -> onnx.ModelProto:
    """`model`, or a copy whose declared dims of -1 (any negative value) or named "?" are unknown
    dims, in every graph's inputs, outputs and value_info (`model` is untouched)."""
    if not _has_negative_dims(model.graph):
        return model
    result = _shallow_copy(model)
    _clear_negative_dims(result.graph)
    return result


def _declared_values(graph: onnx.GraphProto):
    return list(graph.input) + list(graph.output) + list(graph.value_info)


def _subgraphs(graph: onnx.GraphProto):
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                yield attribute.g
            elif attribute.type == onnx.AttributeProto.GRAPHS:
                yield from attribute.graphs


def _is_unnamed_dynamic(dim: onnx.TensorShapeProto.Dimension) -> bool:
    return (dim.HasField("dim_value") and dim.dim_value < 0) or (dim.HasField("dim_param") and dim.dim_param in UNNAMED_DIM_PARAMS)


def _has_negative_dims(graph: onnx.GraphProto) -> bool:
    if any(_is_unnamed_dynamic(dim) for value in _declared_values(graph) for dim in _dims(value)):
        return True
    return any(_has_negative_dims(subgraph) for subgraph in _subgraphs(graph))


def _clear_negative_dims(graph: onnx.GraphProto) -> None:
    for value in _declared_values(graph):
        for dim in _dims(value):
            if _is_unnamed_dynamic(dim):
                dim.Clear()
    for subgraph in _subgraphs(graph):
        _clear_negative_dims(subgraph)


def parse_input_shape_options(options) -> dict[str, list[int | None]]:
    """`["mask=3x12", "ids=3x?"]` (or {"mask": (3, 12)}) -> {"mask": [3, 12], "ids": [3, None]}.

    `?` (None) keeps a dim as the model declares it; `INPUT=` is a scalar."""
    if not options:
        return {}
    if isinstance(options, dict):
        items = [(name, list(shape)) for name, shape in options.items()]
    else:
        items = []
        for option in options:
            name, equals, shape = str(option).partition("=")
            if not equals or not name.strip():
                raise ImportError_(f"--input-shape '{option}': expected INPUT=D0xD1x... (an input's name and its sizes)")
            items.append((name.strip(), [part.strip() for part in shape.split("x")] if shape.strip() else []))
    shapes = {}
    for name, sizes in items:
        shapes[name] = [_input_shape_size(name, sizes, size) for size in sizes]
    return shapes


def _input_shape_size(name: str, sizes: list, size) -> int | None:
    if size is None or size == "?":
        return None
    try:
        value = int(size)
    except (TypeError, ValueError):
        value = -1
    if value < 0:
        written = "x".join("?" if part is None else str(part) for part in sizes)
        raise ImportError_(f"--input-shape {name}={written}: each size must be a non-negative integer or ?")
    return value


def fix_input_shapes(model: onnx.ModelProto, shapes: dict[str, list[int | None]], model_name: str = "<model>") -> onnx.ModelProto:
    """A copy of `model` whose inputs named in `shapes` have those sizes (`model` is untouched).

    A size must keep the input's rank and agree with a dim the model declares static."""
    if not shapes:
        return model
    initializers = {initializer.name for initializer in model.graph.initializer}
    inputs = [value.name for value in model.graph.input if value.name not in initializers]
    result = _shallow_copy(model)
    by_name = {value.name: value for value in result.graph.input}
    for name, sizes in shapes.items():
        if name not in inputs:
            raise ImportError_(f"{model_name}: --input-shape {name}: the model has no input of that name (inputs: {', '.join(inputs)})")
        _fix_one_input(by_name[name], sizes, model_name)
    return result


def _fix_one_input(value: onnx.ValueInfoProto, sizes: list[int | None], model_name: str) -> None:
    if not value.type.HasField("tensor_type"):
        raise ImportError_(f"{model_name}: --input-shape {value.name}: the input is not a tensor")
    if not value.type.tensor_type.HasField("shape"):  # the rank is unknown: the given one is taken
        value.type.tensor_type.shape.dim.extend(onnx.TensorShapeProto.Dimension() for _ in sizes)
    dims = _dims(value)
    declared = ", ".join(str(dim.dim_value) if dim.HasField("dim_value") else (dim.dim_param or "?") for dim in dims)
    written = "x".join("?" if size is None else str(size) for size in sizes)
    if len(dims) != len(sizes):
        raise ImportError_(
            f"{model_name}: --input-shape {value.name}={written}: the input has rank {len(dims)} "
            f"(declared shape [{declared}]), not {len(sizes)}"
        )
    for axis, (dim, size) in enumerate(zip(dims, sizes)):
        if size is None:
            continue
        if dim.HasField("dim_value") and dim.dim_value != size:
            raise ImportError_(
                f"{model_name}: --input-shape {value.name}={written}: dim {axis} is declared {dim.dim_value} "
                f"(declared shape [{declared}])"
            )
        dim.dim_value = size


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
