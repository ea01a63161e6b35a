"""Model-local functions and ONNX function ops (ops the ONNX schemas define by a function body).

Model-local functions are either inlined before types are inferred (with
ONNX's own inliner), or kept as functions: `specialize_function` makes, for
each call signature, a typed model of the body that the importer emits as a
private `func.func` called with `func.call`.

ONNX function ops are expanded in the skeleton model:
- a node of an op named in `expand_ops` gets its schema's function body at the
  model's opset (context-dependent bodies are built for the node's input
  types), registered as a model-local function private to that node, and is
  then inlined the same way.
By default `expand_ops` is torch-mlir's own choice (`MeanVarianceNormalization`)
plus the function ops torch-mlir's conversion has no pattern for but whose
bodies it lowers (`Attention`, `Swish`: measured on the conformance cases).
"""

import onnx
import onnx.defs
import onnx.inliner

from ..errors import ImportError_

DEFAULT_EXPAND_OPS = frozenset({"MeanVarianceNormalization", "Attention", "Swish"})
EXPANSION_DOMAIN = "onnx_torch_mlir.expanded"
DEFAULT_DOMAINS = ("", "ai.onnx")


def inline_local_functions(model: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    if not model.functions:
        return model
    try:
        return onnx.inliner.inline_local_functions(model)
    except Exception as error:
        raise ImportError_(f"{model_name}: cannot inline model-local functions: {_first_line(error)}") from None


def inline_expansions(model: onnx.ModelProto, model_name: str) -> onnx.ModelProto:
    """Inline the bodies `expand_function_ops` registered, and only those."""
    expansions = [(function.domain, function.name) for function in model.functions if function.domain == EXPANSION_DOMAIN]
    try:
        inlined = onnx.inliner.inline_selected_functions(model, expansions, exclude=False)
    except Exception as error:
        raise ImportError_(f"{model_name}: cannot expand function ops: {_first_line(error)}") from None
    kept = [function for function in inlined.functions if function.domain != EXPANSION_DOMAIN]
    del inlined.functions[:]
    inlined.functions.extend(kept)
    opsets = [opset for opset in inlined.opset_import if opset.domain != EXPANSION_DOMAIN]
    del inlined.opset_import[:]
    inlined.opset_import.extend(opsets)
    return inlined


def expand_function_ops(model: onnx.ModelProto, expand_ops, model_name: str) -> bool:
    """Replace main-graph nodes of `expand_ops` by their schema function body, in place.

    Returns whether any node was expanded (the caller then infers types again).
    `expand_ops` is a set of op types, or "all" for every op with a function body.
    """
    opset = next((entry.version for entry in model.opset_import if entry.domain in DEFAULT_DOMAINS), None)
    if opset is None or not expand_ops:
        return False
    candidates = [
        (index, node)
        for index, node in enumerate(model.graph.node)
        if node.domain in DEFAULT_DOMAINS and (expand_ops == "all" or node.op_type in expand_ops)
    ]
    if not candidates:
        return False
    types = {value.name: value.type for value in (*model.graph.input, *model.graph.value_info, *model.graph.output)}
    expanded = False
    for index, node in candidates:
        body = _function_body(node, opset, types)
        if body is None or not _rebase_opset(body, opset):
            continue
        body.name = f"{node.op_type}_{index}"
        body.domain = EXPANSION_DOMAIN
        model.functions.append(body)
        node.domain = EXPANSION_DOMAIN
        node.op_type = body.name
        expanded = True
    if expanded:
        model.opset_import.add(domain=EXPANSION_DOMAIN, version=1)
    return expanded


def _function_body(node: onnx.NodeProto, opset: int, types: dict) -> onnx.FunctionProto | None:
    try:
        schema = onnx.defs.get_schema(node.op_type, opset, "")
    except onnx.defs.SchemaError:
        return None
    plain = max((v for v in schema.function_opset_versions if v <= opset), default=None)
    dependent = max((v for v in schema.context_dependent_function_opset_versions if v <= opset), default=None)
    if plain is not None and (dependent is None or plain >= dependent):
        serialized = schema.get_function_with_opset_version(plain)
    elif dependent is not None:
        input_types = [types.get(name, onnx.TypeProto()).SerializeToString() for name in node.input]
        serialized = schema.get_context_dependent_function_with_opset_version(
            dependent, node.SerializeToString(), input_types
        )
    else:
        return None
    if not serialized:
        return None
    body = onnx.FunctionProto()
    body.ParseFromString(serialized)
    values = {name: attribute.default_value for name, attribute in schema.attributes.items() if attribute.default_value.type}
    values.update((attribute.name, attribute) for attribute in node.attribute)
    for inner in body.node:
        _bind_attributes(inner, values)
    del body.attribute[:]
    return body


def specialize_function(function, node: onnx.NodeProto, input_types, output_types, local_functions) -> onnx.ModelProto:
    """The body of `function` for the call `node`, as a model with the call's types and attributes bound.

    `local_functions`: the model's functions, which the body may call in turn.
    """
    values = {attribute.name: attribute for attribute in function.attribute_proto}
    values.update((attribute.name, attribute) for attribute in node.attribute)
    model = onnx.ModelProto(ir_version=onnx.IR_VERSION)
    model.opset_import.extend(function.opset_import)
    model.functions.extend(local_functions)
    graph = model.graph
    for name, type_proto in zip(function.input, input_types):
        graph.input.add(name=name).type.CopyFrom(type_proto)
    for name, type_proto in zip(function.output, output_types):
        graph.output.add(name=name).type.CopyFrom(type_proto)
    for inner in function.node:
        bound = graph.node.add()
        bound.CopyFrom(inner)
        _bind_attributes(bound, values)
    return model


def _rebase_opset(body: onnx.FunctionProto, opset: int) -> bool:
    """Make `body` use the model's opset, if every op in it means the same there; else False.

    A function body is written against the opset of the op's version; inlined,
    it runs at the model's opset, which is only sound when no op it uses changed
    in between.
    """
    entry = next((entry for entry in body.opset_import if entry.domain in DEFAULT_DOMAINS), None)
    if entry is None or entry.version == opset:
        return True
    for inner in body.node:
        if inner.domain not in DEFAULT_DOMAINS:
            continue
        written = _since_version(inner.op_type, entry.version)
        if written is None or written != _since_version(inner.op_type, opset):
            return False
    entry.version = opset
    return True


def _since_version(op_type: str, opset: int) -> int | None:
    try:
        return onnx.defs.get_schema(op_type, opset, "").since_version
    except onnx.defs.SchemaError:
        return None


def _bind_attributes(node: onnx.NodeProto, values: dict) -> None:
    """Replace attribute references (`ref_attr_name`) by the caller's value or the schema default."""
    bound = []
    for attribute in node.attribute:
        if not attribute.ref_attr_name:
            bound.append(attribute)
        elif attribute.ref_attr_name in values:
            value = onnx.AttributeProto()
            value.CopyFrom(values[attribute.ref_attr_name])
            value.name = attribute.name
            bound.append(value)
    del node.attribute[:]
    node.attribute.extend(bound)


def _first_line(error: Exception) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
