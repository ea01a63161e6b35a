"""Types checked before MLIR sees the model: declarations against ONNX's inference, inputs against op schemas.

A model may declare, in `graph.output` or `graph.value_info`, a type its nodes
cannot produce (a Min of two uint64 tensors declared uint8 or float). Imported
as declared, such a value gives IR whose types contradict its ops: torch-mlir
then crashes, or compiles a program that lies. So each declaration is compared
with the type ONNX's inference derives from the graph inputs alone, on a
weightless copy with every declaration removed. A genuine contradiction (a
different element type, a different rank (both known), a static dim that
differs from an inferred static dim) is refused, except that an intermediate
value's shape alone is ignored with a warning, as onnxruntime does. A
declaration more precise than the inference (a static dim where inference has a
symbol or nothing, a type where inference has none) is not a contradiction.

Then, once the importer's inference has typed every value, each default-domain
node's inputs are checked against its schema's type constraints (that inference
runs with ONNX's type checking off): a type the constraint does not allow (Relu
of uint8), or two inputs bound to one type parameter with different types (Add
of float and int32), is refused. Subgraph bodies are not checked. Both checks
cost tens of milliseconds on BERT-base (one extra inference on the skeleton).
"""

import warnings

import onnx

from ..errors import ImportError_, OnnxTorchMlirWarning
from .shape_inference import _infer

SCHEMA_DOMAINS = ("", "ai.onnx")
# Element types whose admission by each op's schema is not checked (see _newer_than_schemas).
LATE_TYPE_PREFIXES = ("FLOAT8", "FLOAT4", "INT4", "UINT4", "INT2", "UINT2")


def check_declared_types(model: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    """Raise ImportError_ on the first declared type that contradicts the inferred one.

    A `value_info` entry (an intermediate value, not part of the model's interface) whose
    element type agrees but whose shape contradicts the inference is removed from `model` with
    an `OnnxTorchMlirWarning`: onnxruntime merges such entries leniently and runs the model, and
    exporters write them (onnxruntime-genai declares a [1] Constant as a scalar). A graph output
    that contradicts, or any element type that does, is refused.

    `model` should already be weightless (`shape_inference.skeleton`). Returns it, or a copy
    without the ignored entries (the user's model is never changed). Runs one inference, only
    when something is declared.
    """
    declared = _declarations(model.graph)
    if not declared:
        return model
    inferred = _inferred_types(model, model_name)
    producers = _producers(model.graph)
    outputs = {value.name for value in model.graph.output}
    ignored = set()
    for name, declared_type in declared:
        found = inferred.get(name)
        if found is None or not _contradicts(declared_type, found):
            continue
        problem = (
            f"{model_name}: {_where(name, producers)}: value '{name}' is declared {describe_type(declared_type)} "
            f"but ONNX type inference gives {describe_type(found)}"
        )
        if name in outputs or not _only_shapes_differ(declared_type, found):
            raise ImportError_(problem)
        warnings.warn(f"{problem}; the declaration is ignored", OnnxTorchMlirWarning, stacklevel=2)
        ignored.add(name)
    if not ignored:
        return model
    kept = onnx.ModelProto()
    kept.CopyFrom(model)
    del kept.graph.value_info[:]
    kept.graph.value_info.extend(value for value in model.graph.value_info if value.name not in ignored)
    return kept


def check_node_structure(model: onnx.ModelProto, model_name: str) -> None:
    """What ONNX's C++ inference assumes and would abort on: a Split's `num_outputs` equals its
    output count."""
    for index, node in enumerate(model.graph.node):
        if node.op_type != "Split" or node.domain not in SCHEMA_DOMAINS:
            continue
        for attribute in node.attribute:
            if attribute.name == "num_outputs" and attribute.i != len(node.output):
                raise ImportError_(
                    f"{model_name}: {_node_label(index, node)}: attribute 'num_outputs' is {attribute.i} but the "
                    f"node has {len(node.output)} outputs"
                )


def _only_shapes_differ(declared: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    """Both tensors of one element type (their shapes then contradict)."""
    if declared.WhichOneof("value") != "tensor_type" or inferred.WhichOneof("value") != "tensor_type":
        return False
    return declared.tensor_type.elem_type == inferred.tensor_type.elem_type


def check_schema_input_types(typed: onnx.ModelProto, model_name: str) -> None:
    """Each default-domain node's inputs against its schema's type constraints.

    `typed`: the model after `infer_types` (every value it could type in value_info), so no
    inference runs here.
    """
    types = _graph_input_types(typed.graph)
    for value in list(typed.graph.value_info) + list(typed.graph.output):
        if value.HasField("type"):
            types.setdefault(value.name, value.type)
    opsets = {opset.domain or "": opset.version for opset in typed.opset_import}
    version = opsets.get("", opsets.get("ai.onnx"))
    if version is None:
        return
    for index, node in enumerate(typed.graph.node):
        if node.domain not in SCHEMA_DOMAINS:
            continue
        try:
            schema = onnx.defs.get_schema(node.op_type, version, "")
        except onnx.defs.SchemaError:
            continue  # unknown ops are reported by the importer, with the node
        problem = _schema_input_problem(schema, node, types)
        if problem:
            raise ImportError_(f"{model_name}: {_node_label(index, node)}: {problem}")


def _declarations(graph: onnx.GraphProto) -> list[tuple[str, onnx.TypeProto]]:
    values = list(graph.output) + list(graph.value_info)
    return [(value.name, value.type) for value in values if value.type.WhichOneof("value") is not None]


def _inferred_types(model: onnx.ModelProto, model_name: str) -> dict[str, onnx.TypeProto]:
    """name -> the type inference gives each value from the graph inputs alone."""
    bare = onnx.ModelProto()
    bare.CopyFrom(model)
    del bare.graph.value_info[:]
    for output in bare.graph.output:
        output.ClearField("type")
    result = _infer(bare, model_name)
    types = {value.name: value.type for value in result.graph.value_info if value.HasField("type")}
    for output in result.graph.output:
        if output.HasField("type") and output.type.WhichOneof("value") is not None:
            types.setdefault(output.name, output.type)
    return types


def _graph_input_types(graph: onnx.GraphProto) -> dict[str, onnx.TypeProto]:
    types = {value.name: value.type for value in graph.input if value.HasField("type")}
    for tensor in graph.initializer:
        types.setdefault(tensor.name, onnx.helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims)))
    return types


def _producers(graph: onnx.GraphProto) -> dict[str, tuple[int, onnx.NodeProto]]:
    return {output: (index, node) for index, node in enumerate(graph.node) for output in node.output if output}


def _where(name: str, producers: dict) -> str:
    if name not in producers:
        return "graph"
    return _node_label(*producers[name])


def _node_label(index: int, node: onnx.NodeProto) -> str:
    label = f"node '{node.name}'" if node.name else f"node #{index}"
    domain = f"{node.domain}." if node.domain not in SCHEMA_DOMAINS else ""
    return f"{label} ({domain}{node.op_type})"


def _contradicts(declared: onnx.TypeProto, inferred: onnx.TypeProto) -> bool:
    kind, inferred_kind = declared.WhichOneof("value"), inferred.WhichOneof("value")
    if kind is None or inferred_kind is None:
        return False
    if kind != inferred_kind:
        return True
    if kind == "tensor_type":
        return _tensor_contradicts(declared.tensor_type, inferred.tensor_type)
    if kind in ("sequence_type", "optional_type"):
        declared_element, inferred_element = getattr(declared, kind), getattr(inferred, kind)
        if declared_element.HasField("elem_type") and inferred_element.HasField("elem_type"):
            return _contradicts(declared_element.elem_type, inferred_element.elem_type)
    return False


def _tensor_contradicts(declared, inferred) -> bool:
    # An element type ONNX does not know is left to the importer's own error, which names its source.
    known = _is_known(declared.elem_type) and _is_known(inferred.elem_type)
    if known and declared.elem_type != inferred.elem_type:
        return True
    if not declared.HasField("shape") or not inferred.HasField("shape"):
        return False
    if len(declared.shape.dim) != len(inferred.shape.dim):
        return True
    return any(
        dim.HasField("dim_value") and proof.HasField("dim_value") and dim.dim_value != proof.dim_value
        for dim, proof in zip(declared.shape.dim, inferred.shape.dim)
    )


def _is_known(elem_type: int) -> bool:
    return elem_type != onnx.TensorProto.UNDEFINED and elem_type in onnx.TensorProto.DataType.values()


def describe_type(type_proto: onnx.TypeProto) -> str:
    """`uint8[3,batch,?]`, `float (rank unknown)`, `sequence(int64[2])`."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        return _describe_tensor(type_proto.tensor_type)
    if kind in ("sequence_type", "optional_type"):
        inner = getattr(type_proto, kind)
        element = describe_type(inner.elem_type) if inner.HasField("elem_type") else "?"
        return f"{kind.removesuffix('_type')}({element})"
    return kind or "untyped"


def _describe_tensor(tensor) -> str:
    element = _element_name(tensor.elem_type)
    if not tensor.HasField("shape"):
        return f"{element} (rank unknown)"
    dims = ",".join(
        str(dim.dim_value) if dim.HasField("dim_value") else (dim.dim_param or "?") for dim in tensor.shape.dim
    )
    return f"{element}[{dims}]"


def _element_name(elem_type: int) -> str:
    if not elem_type:
        return "?"
    try:
        return onnx.TensorProto.DataType.Name(elem_type).lower()
    except ValueError:
        return f"element type {elem_type}"


def _schema_input_problem(schema, node: onnx.NodeProto, types: dict) -> str | None:
    constraints = {constraint.type_param_str: constraint for constraint in schema.type_constraints}
    bound: dict[str, tuple[str, str]] = {}  # type parameter -> (input name, type string)
    for formal, name in _formal_inputs(schema, node):
        type_proto = types.get(name)
        spelled = _type_string(type_proto) if type_proto is not None else None
        if spelled is None:
            continue
        constraint = constraints.get(formal.type_str)
        allowed = list(constraint.allowed_type_strs) if constraint else [formal.type_str]
        if spelled not in allowed and not _newer_than_schemas(type_proto):
            label = f"type parameter {formal.type_str}" if constraint else "it"
            return (
                f"input '{name}' ({formal.name}) is {spelled}, which {schema.name}-{schema.since_version} "
                f"does not allow for {label} (allowed: {', '.join(allowed)})"
            )
        if constraint is None or not formal.is_homogeneous and _is_variadic(formal):
            continue
        first = bound.setdefault(formal.type_str, (name, spelled))
        if first[1] != spelled:
            return (
                f"inputs '{first[0]}' and '{name}' share {schema.name}-{schema.since_version}'s type parameter "
                f"{formal.type_str} but are {first[1]} and {spelled}"
            )
    return None


def _newer_than_schemas(type_proto: onnx.TypeProto) -> bool:
    """Sub-byte and 8-bit float types: schemas admit them opset by opset, exporters use them earlier."""
    if type_proto.WhichOneof("value") != "tensor_type":
        return False
    return onnx.TensorProto.DataType.Name(type_proto.tensor_type.elem_type).startswith(LATE_TYPE_PREFIXES)


def _is_variadic(formal) -> bool:
    return formal.option == onnx.defs.OpSchema.FormalParameterOption.Variadic


def _formal_inputs(schema, node: onnx.NodeProto):
    """(formal parameter, actual input name) pairs, skipping omitted optional inputs."""
    formals = list(schema.inputs)
    for position, name in enumerate(node.input):
        if not name:
            continue
        if position < len(formals):
            yield formals[position], name
        elif formals and _is_variadic(formals[-1]):
            yield formals[-1], name


def _type_string(type_proto: onnx.TypeProto) -> str | None:
    """ONNX's spelling of a type (`tensor(float)`, `seq(tensor(int64))`), None where not fully known."""
    kind = type_proto.WhichOneof("value")
    if kind == "tensor_type":
        elem_type = type_proto.tensor_type.elem_type
        return f"tensor({onnx.TensorProto.DataType.Name(elem_type).lower()})" if _is_known(elem_type) else None
    if kind in ("sequence_type", "optional_type"):
        inner = getattr(type_proto, kind)
        element = _type_string(inner.elem_type) if inner.HasField("elem_type") else None
        prefix = "seq" if kind == "sequence_type" else "optional"
        return f"{prefix}({element})" if element else None
    return None
