"""Types checked before MLIR sees the model: declarations against ONNX's inference, inputs against op schemas.

A model may declare, in `graph.output` or `graph.value_info`, a type its nodes
cannot produce (a Min of two uint64 tensors declared uint8 or float). Imported
as declared, such a value gives IR whose types contradict its ops: torch-mlir
then crashes, or compiles a program that lies. So each declaration is compared
with the type ONNX's inference derives from the graph inputs alone, on a
weightless copy with every declaration removed. Another element type is
refused; a contradiction in the shape alone (a different rank, both known, or a
static dim that differs from an inferred static dim) is ignored with a warning,
for an intermediate value and a graph output alike, as onnxruntime does (it
merges shapes leniently, runs the model and returns what the graph computes; it
refuses another element type). A
declaration more precise than the inference (a static dim where inference has a
symbol or nothing, a type where inference has none) is not a contradiction.
Inference from the graph inputs alone may not know a rank that the importer's
own inference finds (an If its shape values decide): after that inference,
`release_contradicted_declarations` compares the declarations again (an old
torch export declares `[1, seqlen]` for an output the graph computes with rank 3).

Then, once the importer's inference has typed every value, each default-domain
node's inputs are checked against its schema's type constraints (that inference
runs with ONNX's type checking off): a type the constraint does not allow (Relu
of uint8), or two inputs bound to one type parameter with different types (Add
of float and int32), is refused; so is an input of a rank the op's spec forbids where ONNX's
inference is silent (`input_ranks`: a Resize `scales` that is not 1-D), and whatever ONNX's own
inference function of the node refuses given those types (run per node, in strict form: a OneHot
`depth` of rank 2, a `kernel_shape` of -2^31, a Loop body whose types disagree with the node).
Subgraph bodies are checked through their node's inference. Before any of it, every node of
every graph is checked against its schema's structure (`node_structure`). All of it costs tens
of milliseconds on BERT-base (one extra inference on the skeleton, one per-node call per node).
"""

import re
import warnings

import numpy as np
import onnx

from ..errors import ImportError_, OnnxTorchMlirWarning
from .input_ranks import rank_problem
from .node_structure import SCHEMA_DOMAINS, check_graph_structure, node_label, opset_versions, schema_at
from .shape_inference import _infer, infer_types

# Element types whose admission by each op's schema is not checked (see _newer_than_schemas).
LATE_TYPE_PREFIXES = ("FLOAT8", "FLOAT4", "INT4", "UINT4", "INT2", "UINT2")
# Initializers up to this size are given to ONNX's per-node inference with their values.
SMALL_CONSTANT_BYTES = 1024
_PAYLOAD_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def check_declared_types(model: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    """Raise ImportError_ on the first declared type that contradicts the inferred one.

    A `value_info` entry (an intermediate value, not part of the model's interface) whose
    element type agrees but whose shape contradicts the inference is removed from `model` with
    an `OnnxTorchMlirWarning`: onnxruntime merges such entries leniently and runs the model, and
    exporters write them (onnxruntime-genai declares a [1] Constant as a scalar). A graph output
    that contradicts, or any element type that does, is refused.

    A graph output whose shape alone contradicts keeps its element type and loses its shape,
    with the same warning: onnxruntime returns what the graph computes.

    `model` should already be weightless (`shape_inference.skeleton`). Returns it, or a copy
    without the ignored entries (the user's model is never changed). Runs one inference, only
    when something is declared.
    """
    declared = _declarations(model.graph)
    if not declared:
        return model
    inferred = _inferred_types(model, model_name)
    producers = _producers(model.graph)
    ignored = set()
    for name, declared_type in declared:
        found = inferred.get(name)
        if found is None or not _contradicts(declared_type, found):
            continue
        if _ignored_contradiction(model_name, name, declared_type, found, producers):
            ignored.add(name)
    return _without_declared_shapes(model, ignored) if ignored else model


def release_contradicted_declarations(model: onnx.ModelProto, typed: onnx.ModelProto, model_name: str) -> onnx.ModelProto | None:
    """A copy of `model` without the declared shapes (of graph outputs and value_info) that
    contradict what `typed` (`model` after the importer's whole inference) computes for them,
    each with a warning; None when none does. Another element type is refused, as in
    `check_declared_types`.

    `typed` keeps a declaration where ONNX's inference cannot merge it, so the declared values
    are inferred once more without their declarations, from the values `typed` knows."""
    declared = {
        value.name: value.type for value in list(model.graph.output) + list(model.graph.value_info)
        if value.type.WhichOneof("value") == "tensor_type" and value.type.tensor_type.HasField("shape")
    }
    if not declared:
        return None
    bare = onnx.ModelProto()
    bare.CopyFrom(typed)
    kept = [value for value in bare.graph.value_info if value.name not in declared]
    del bare.graph.value_info[:]
    bare.graph.value_info.extend(kept)
    for output in bare.graph.output:
        if output.name in declared:
            output.type.tensor_type.ClearField("shape")
    try:
        inferred = infer_types(bare, model_name).graph  # whole: a rank only shape values give (a Reshape)
    except ImportError_:  # the model was typed with its declarations; this second look is only a check
        return None
    found_types = {value.name: value.type for value in list(inferred.value_info) + list(inferred.output)}
    producers = _producers(model.graph)
    contradicted = set()
    for name, declared_type in declared.items():
        found = found_types.get(name)
        if found is None or not found.tensor_type.HasField("shape") or not _contradicts(declared_type, found):
            continue
        if _ignored_contradiction(model_name, name, declared_type, found, producers):
            contradicted.add(name)
    return _without_declared_shapes(model, contradicted) if contradicted else None


def _ignored_contradiction(model_name: str, name: str, declared: onnx.TypeProto, found: onnx.TypeProto, producers) -> bool:
    """Warn and return True for a contradiction in the shape alone; raise for any other."""
    problem = (
        f"{model_name}: {_where(name, producers)}: value '{name}' is declared {describe_type(declared)} "
        f"but ONNX type inference gives {describe_type(found)}"
    )
    if not _only_shapes_differ(declared, found):
        raise ImportError_(problem)
    warnings.warn(f"{problem}; the declaration is ignored", OnnxTorchMlirWarning, stacklevel=3)
    return True


def _without_declared_shapes(model: onnx.ModelProto, names: set) -> onnx.ModelProto:
    """A copy of `model` without the value_info entries in `names`, and whose graph outputs in
    `names` keep only their element type."""
    kept = onnx.ModelProto()
    kept.CopyFrom(model)
    del kept.graph.value_info[:]
    kept.graph.value_info.extend(value for value in model.graph.value_info if value.name not in names)
    for output in kept.graph.output:
        if output.name in names:
            output.type.tensor_type.ClearField("shape")
    return kept


def check_node_structure(model: onnx.ModelProto, model_name: str) -> None:
    """What ONNX's C++ inference assumes and could abort on, in every graph of the model: input
    and output counts, required inputs, attributes and subgraph bodies against the schemas
    (`node_structure`)."""
    check_graph_structure(model.graph, opset_versions(model), model_name)
    _check_initializer_declarations(model.graph, model_name)


def _check_initializer_declarations(graph: onnx.GraphProto, model_name: str) -> None:
    """A graph input that an initializer gives a default is declared with the initializer's type
    (ONNX's inference otherwise stops at "Inferred elem type differs from existing elem type",
    naming neither)."""
    declared = {value.name: value.type for value in graph.input if value.type.WhichOneof("value") == "tensor_type"}
    for tensor in graph.initializer:
        if tensor.name not in declared:
            continue
        own = onnx.helper.make_tensor_type_proto(tensor.data_type, list(tensor.dims))
        if _contradicts(declared[tensor.name], own):
            raise ImportError_(
                f"{model_name}: graph input '{tensor.name}' is declared {describe_type(declared[tensor.name])} but its "
                f"initializer is {describe_type(own)}"
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
    data = _small_constants(typed.graph)
    for index, node in enumerate(typed.graph.node):
        if node.domain not in SCHEMA_DOMAINS:
            continue
        schema = schema_at(node.op_type, version, "")
        if schema is None:
            continue  # unknown ops are reported by the importer, with the node
        problem = (
            _schema_input_problem(schema, node, types)
            or rank_problem(node.op_type, _bound_inputs(schema, node), lambda name: _sizes(types.get(name)))
            or _inference_problem(schema, node, types, data, typed)
            or _element_count_problem(node, types)
        )
        if problem:
            raise ImportError_(f"{model_name}: {node_label(index, node)}: {problem}")


def _bound_inputs(schema, node: onnx.NodeProto) -> dict[str, list[str]]:
    """Formal input name -> the present actual inputs bound to it."""
    bound: dict[str, list[str]] = {}
    for formal, name in _formal_inputs(schema, node):
        bound.setdefault(formal.name, []).append(name)
    return bound


def _sizes(type_proto: onnx.TypeProto | None) -> list | None:
    """A tensor's dims (None per unknown dim: a negative dim_value too, as the importer reads it),
    or None when it is not a tensor of known rank."""
    if type_proto is None or type_proto.WhichOneof("value") != "tensor_type":
        return None
    tensor = type_proto.tensor_type
    if not tensor.HasField("shape"):
        return None
    return [dim.dim_value if dim.HasField("dim_value") and dim.dim_value >= 0 else None for dim in tensor.shape.dim]


def _small_constants(graph: onnx.GraphProto) -> dict[str, onnx.TensorProto]:
    """The initializers the skeleton kept whole (shapes, axes, scales): what ONNX's inference
    reads values from. Stripped and external ones carry no data and are left out."""
    return {
        tensor.name: tensor
        for tensor in graph.initializer
        if tensor.data_location != onnx.TensorProto.EXTERNAL
        and tensor.ByteSize() <= SMALL_CONSTANT_BYTES
        and (tensor.raw_data or _typed_payload(tensor) or 0 in tensor.dims)
    }


def _typed_payload(tensor: onnx.TensorProto) -> bool:
    return any(len(getattr(tensor, field)) for field in _PAYLOAD_FIELDS)


def _inference_problem(schema, node: onnx.NodeProto, types: dict, data: dict, typed: onnx.ModelProto) -> str | None:
    """What ONNX's own inference function of the node refuses, given its inputs' types: ranks
    (a OneHot `depth` of rank 2), attribute values (a `kernel_shape` of -2^31), subgraph bodies
    whose types disagree with the node). Only nodes whose present inputs all have types ONNX
    knows (an element type it does not know is the importer's own error)."""
    present = [name for name in node.input if name]
    if any(name not in types or _type_string(types[name]) is None for name in present):
        return None
    inputs = {name: types[name] for name in present}
    try:
        onnx.shape_inference.infer_node_outputs(
            schema, node, inputs, {name: data[name] for name in present if name in data},
            opset_imports=list(typed.opset_import), ir_version=typed.ir_version or onnx.IR_VERSION,
        )
    except (onnx.shape_inference.InferenceError, onnx.checker.ValidationError, RuntimeError, ValueError) as error:
        # ValueError: a data type the node names is not one (a Cast `to` of 2^40); the inputs'
        # types were checked above.
        reason = _inference_reason(str(error))
        described = ", ".join(f"'{name}' {describe_type(inputs[name])}" for name in dict.fromkeys(present))
        return f"ONNX's {schema.name}-{schema.since_version} inference refuses it: {reason} (inputs: {described or 'none'})"
    return None


def _element_count_problem(node: onnx.NodeProto, types: dict) -> str | None:
    """A Reshape keeps the element count; ONNX's inference does not check it (a [2,0] input
    reshaped to a constant [2,3] compiled, to zeros)."""
    if node.op_type != "Reshape" or len(node.output) != 1:
        return None
    before, after = _sizes(types.get(node.input[0])), _sizes(types.get(node.output[0]))
    if before is None or after is None or None in before or None in after:
        return None
    count, result_count = int(np.prod(before, dtype=np.int64)), int(np.prod(after, dtype=np.int64))
    if count == result_count:
        return None
    return (
        f"input '{node.input[0]}' has {count} elements ({describe_type(types[node.input[0]])}) but the result "
        f"'{node.output[0]}' has {result_count} ({describe_type(types[node.output[0]])}); a reshape keeps the count"
    )


def _inference_reason(message: str) -> str:
    """ONNX's message without its nested `[ShapeInferenceError] Inference error(s): ...` wrapping."""
    lines = [line.strip() for line in message.strip().splitlines() if line.strip()]
    reason = lines[-1] if lines else "no reason given"
    reason = re.sub(r"^(\[\w+\] |Inference error\(s\): |\(op_type:[^)]*\): )+", "", reason)
    return reason.rstrip(".")


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
    return node_label(*producers[name])


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


def schema_input_problem(node: onnx.NodeProto, version: int, types: dict) -> str | None:
    """What the schema of default-domain `node` at opset `version` says against its inputs' types
    (`types`: name -> TypeProto, the inputs known), or None."""
    schema = schema_at(node.op_type, version, "") if node.domain in SCHEMA_DOMAINS else None
    return None if schema is None else _schema_input_problem(schema, node, types)


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
