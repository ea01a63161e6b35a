"""Function ops: ONNX ops defined by a function body, expanded when no pattern exists.

An ONNX schema may define its op as a function of other ONNX ops, either one
fixed body per opset (`schema.function_body`) or a body built for the node's
attributes and input types (`has_context_dependent_function`). When the
registry has no pattern for such an op at the model's opset, the driver calls
`expand_function`, which:

1. rebuilds the node as an ONNX `NodeProto` (attributes from the node, schema
   defaults for the rest) and asks the schema for the body;
2. binds the body's attribute references (`ref_attr_name`) to those values;
3. infers every intermediate type with ONNX shape inference on a one-node-body
   model whose inputs carry the node's operand types;
4. creates the body's nodes in front of the node (torch-ONNX spelling, at the
   node's location) and converts each of them with the driver, so a body that
   uses another function op expands recursively, and a body node without a
   conversion fails the expansion with that node's reason.

Body nodes are converted at the opset their function body imports, which is
the opset the body was written for.
"""

from __future__ import annotations

import functools

import numpy as np
import onnx
import onnx.defs
import onnx.shape_inference
from onnx import AttributeProto, helper, numpy_helper
from torch_mlir import ir

from .function_regions import add_region_placeholders, inline_region, placeholder_index
from .node import OnnxNode, UnsupportedNode, _attribute_python_value, onnx_schema
from .registry import DEFAULT_DOMAIN, lookup, normalize_domain
from .types import ONNX_TO_TORCH_ELEMENT, TensorInfo, is_none_type, tensor_info, vtensor_type

ELEMENT_TO_ONNX = {element: code for code, element in ONNX_TO_TORCH_ELEMENT.items()}
TORCH_ATTRIBUTE_PREFIX = "torch.onnx."


# -- which ops expand ---------------------------------------------------------------
def _body_version(versions, opset: int, since: int) -> int | None:
    """The body for `opset`: the newest one not above it, else (an op newer than its first
    body's opset cannot have one) the oldest one at or above the op's since_version."""
    versions = sorted(versions)
    below = [v for v in versions if v <= opset]
    if below:
        return below[-1]
    above = [v for v in versions if v >= since]
    return above[0] if above else None


def _function_kind(schema, opset: int):
    """("plain" | "context", body version) for the schema at `opset`, or None if it has no body."""
    if schema is None:
        return None
    plain = _body_version(schema.function_opset_versions, opset, schema.since_version) if schema.has_function else None
    context = (
        _body_version(schema.context_dependent_function_opset_versions, opset, schema.since_version)
        if schema.has_context_dependent_function else None
    )
    if plain is not None and (context is None or plain >= context):
        return "plain", plain
    if context is not None:
        return "context", context
    return None


def has_function_body(node: OnnxNode) -> bool:
    return _function_kind(onnx_schema(node.op_type, node.opset, node.domain), node.opset) is not None


@functools.lru_cache(maxsize=None)
def expandable_ops(opset: int, domain: str = DEFAULT_DOMAIN) -> list[str]:
    """Ops of `domain` that, at `opset`, have no pattern and convert by expanding their function body.

    (An expansion converts when every op of its body does; the body is listed, not tried.)
    """
    domain = normalize_domain(domain)
    names = sorted({s.name for s in onnx.defs.get_all_schemas_with_history() if normalize_domain(s.domain) == domain})
    ops = []
    for name in names:
        schema = onnx_schema(name, opset, domain)
        if schema is None or schema.deprecated or lookup(domain, name, opset) is not None:
            continue
        if _function_kind(schema, opset) is not None:
            ops.append(name)
    return ops


# -- node -> NodeProto -------------------------------------------------------------------
def onnx_type_proto(info: TensorInfo | None, name: str) -> onnx.TypeProto:
    if info is None or info.element not in ELEMENT_TO_ONNX:
        return onnx.TypeProto()
    shape = None
    if info.sizes is not None:
        shape = [size if size is not None else f"{name}_d{index}" for index, size in enumerate(info.sizes)]
    return helper.make_tensor_type_proto(ELEMENT_TO_ONNX[info.element], shape)


def _attribute_proto(node: OnnxNode, name: str, schema_attribute) -> AttributeProto | None:
    raw = node.raw_attribute(name)
    if raw is None:
        return None
    try:
        return _typed_attribute_proto(node, name, schema_attribute.type, _attribute_python_value(raw))
    except (TypeError, ValueError):  # helper.make_attribute refuses a value of another kind
        node.fail(f"attribute '{name}' must be of type {AttributeProto.AttributeType.Name(schema_attribute.type)}, "
                  f"not {str(raw)[:40]}")


def _typed_attribute_proto(node: OnnxNode, name: str, kind, value) -> AttributeProto:
    if kind == AttributeProto.TENSOR:
        return helper.make_attribute(name, numpy_helper.from_array(np.asarray(node.attr_tensor(name))))
    if kind == AttributeProto.INT:
        if isinstance(value, ir.Type):  # a TypeAttr: an ONNX data type code
            element = tensor_info(ir.Type.parse(f"tensor<{value}>", value.context)).element
            value = ELEMENT_TO_ONNX[element]
        if not isinstance(value, (int, np.integer)):
            raise TypeError(f"not an integer: {value!r}")
        return helper.make_attribute(name, int(value), attr_type=kind)
    if kind in (AttributeProto.FLOAT, AttributeProto.STRING, AttributeProto.INTS, AttributeProto.FLOATS,
                AttributeProto.STRINGS):
        return helper.make_attribute(name, value, attr_type=kind)
    node.fail(f"attribute '{name}' of type {AttributeProto.AttributeType.Name(kind)} cannot be passed to its function body")


# Attributes whose absent value the operator's spec defines from an input's type, where the
# function body's builder picks a fixed type instead: Attention's softmax runs "in the same
# precision as the input of softmax (Q and K)", but the body casts to float32 when the attribute
# is absent (float16 and bfloat16 Attention were a unit in the last place off the reference).
_TYPE_OF_INPUT_DEFAULTS = {("", "Attention", "softmax_precision"): 0}


def _spec_default(node: OnnxNode, name: str) -> AttributeProto | None:
    """The value the spec gives an absent attribute from an input's element type, if it does."""
    index = _TYPE_OF_INPUT_DEFAULTS.get((normalize_domain(node.domain), node.op_type, name))
    if index is None or not node.has_input(index):
        return None
    element = node.input_info(index).element
    return helper.make_attribute(name, ELEMENT_TO_ONNX[element]) if element in ELEMENT_TO_ONNX else None


def node_proto(node: OnnxNode, schema) -> onnx.NodeProto:
    inputs = [f"in{i}" if node.has_input(i) else "" for i in range(node.num_inputs)]
    outputs = [f"out{i}" if not is_none_type(node.op.results[i].type) else "" for i in range(node.num_results)]
    proto = helper.make_node(node.op_type, inputs, outputs, domain=node.domain)
    for name, schema_attribute in schema.attributes.items():
        attribute = _attribute_proto(node, name, schema_attribute) or _spec_default(node, name)
        if attribute is None and schema_attribute.default_value.type != AttributeProto.UNDEFINED:
            attribute = AttributeProto()
            attribute.CopyFrom(schema_attribute.default_value)
            attribute.name = name
        if attribute is not None:
            proto.attribute.append(attribute)
    return proto


def _function_proto(node: OnnxNode, schema, proto: onnx.NodeProto, input_types) -> onnx.FunctionProto:
    kind, version = _function_kind(schema, node.opset)
    if kind == "plain":
        serialized = schema.get_function_with_opset_version(version)
    else:
        serialized = schema.get_context_dependent_function_with_opset_version(
            version, proto.SerializeToString(), [t.SerializeToString() for t in input_types]
        )
    if not serialized:
        node.fail("ONNX cannot build its function body for these input types")
    body = onnx.FunctionProto()
    body.ParseFromString(serialized)
    return body


def _bind_attributes(node: onnx.NodeProto, values: dict) -> None:
    """Replace attribute references (`ref_attr_name`) by the node's values, in subgraphs too."""
    bound = []
    for attribute in node.attribute:
        if attribute.ref_attr_name:
            if attribute.ref_attr_name in values:
                value = AttributeProto()
                value.CopyFrom(values[attribute.ref_attr_name])
                value.name = attribute.name
                bound.append(value)
            continue
        for graph in [attribute.g] if attribute.type == AttributeProto.GRAPH else attribute.graphs:
            for inner in graph.node:
                _bind_attributes(inner, values)
        bound.append(attribute)
    del node.attribute[:]
    node.attribute.extend(bound)


def _bind(body: onnx.FunctionProto, proto: onnx.NodeProto):
    """The body's nodes with formal names renamed (inputs in<i>, outputs out<i>, the rest
    prefixed) and attribute references replaced by the node's values; and the renaming,
    which subgraphs (still in formal names) need when they are inlined."""
    values = {attribute.name: attribute for attribute in proto.attribute}
    names = {"": ""}
    for formal, actual in zip(body.input, proto.input):
        names[formal] = actual
    for formal, actual in zip(body.output, proto.output):
        names[formal] = actual if actual else f"unused_{formal}"

    def rename(name):
        return names.setdefault(name, f"body_{name}")

    nodes = []
    for inner in body.node:
        bound = onnx.NodeProto()
        bound.CopyFrom(inner)
        del bound.input[:], bound.output[:]
        bound.input.extend(rename(name) for name in inner.input)
        bound.output.extend(rename(name) for name in inner.output)
        _bind_attributes(bound, values)
        nodes.append(bound)
    return nodes, names


def _has_subgraph(node: onnx.NodeProto) -> bool:
    return any(a.type in (AttributeProto.GRAPH, AttributeProto.GRAPHS) for a in node.attribute)


def _inline_decided_ifs(nodes, known: dict, names: dict):
    """Replace each If whose condition is now known by its branch (one level: a branch with
    subgraphs of its own stays an If). Returns (nodes, whether anything changed)."""
    result, changed = [], False
    for index, inner in enumerate(nodes):
        if inner.op_type != "If" or inner.input[0] not in known:
            result.append(inner)
            continue
        branches = {a.name: a.g for a in inner.attribute}
        branch = branches["then_branch" if bool(np.asarray(known[inner.input[0]]).reshape(-1)[0]) else "else_branch"]
        if any(_has_subgraph(node) for node in branch.node):
            result.append(inner)
            continue
        prefix = f"if{index}_"
        local = {name for node in branch.node for name in node.output if name}

        def rename(name, local=local, prefix=prefix):
            if not name:
                return name
            return prefix + name if name in local else names.get(name, name)

        for node in branch.node:
            copy = onnx.NodeProto()
            copy.CopyFrom(node)
            del copy.input[:], copy.output[:]
            copy.input.extend(rename(name) for name in node.input)
            copy.output.extend(rename(name) for name in node.output)
            result.append(copy)
        for output, if_output in zip(branch.output, inner.output):
            if if_output:
                result.append(helper.make_node("Identity", [rename(output.name)], [if_output]))
        changed = True
    return result, changed


def _infer_types(nodes, proto: onnx.NodeProto, input_types, opsets: dict) -> dict:
    """name -> TypeProto for every value of the bound body, by ONNX shape inference."""
    graph = helper.make_graph(
        nodes, "expansion",
        [helper.make_value_info(name, t) for name, t in zip(proto.input, input_types) if name],
        [helper.make_value_info(name, onnx.TypeProto()) for name in proto.output if name],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid(d, v) for d, v in opsets.items()])
    model.ir_version = 10
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    types = {value.name: value.type for value in (*inferred.graph.input, *inferred.graph.value_info)}
    types.update((value.name, value.type) for value in inferred.graph.output if value.type.HasField("tensor_type"))
    return types


# -- folding what the node's static types decide ---------------------------------------------
MAX_FOLDED_ELEMENTS = 1 << 16
NOT_FOLDED = ("Random", "Bernoulli", "Multinomial")


def _static_sizes(type_proto: onnx.TypeProto | None):
    if type_proto is None or not type_proto.HasField("tensor_type") or not type_proto.tensor_type.HasField("shape"):
        return None
    dims = type_proto.tensor_type.shape.dim
    if not all(d.HasField("dim_value") for d in dims):
        return None
    return [d.dim_value for d in dims]


def _fold(nodes, types: dict, opsets: dict) -> dict:
    """name -> numpy value for the body values computable now: constants, shapes of static
    operands, and whatever depends only on those (axes lists, ranks, scale factors)."""
    from onnx.reference import ReferenceEvaluator

    known: dict = {}
    for inner in nodes:
        if (inner.op_type.startswith(NOT_FOLDED) or normalize_domain(inner.domain) != DEFAULT_DOMAIN
                or placeholder_index(inner) is not None):
            continue
        if inner.op_type in ("Shape", "Size") and inner.input and inner.input[0] not in known:
            sizes = _static_sizes(types.get(inner.input[0]))
            if sizes is None:
                continue
            if inner.op_type == "Size":
                known[inner.output[0]] = np.array(int(np.prod(sizes)), dtype=np.int64)
            else:
                attributes = {a.name: a.i for a in inner.attribute}
                start, end = attributes.get("start", 0), attributes.get("end", len(sizes))
                known[inner.output[0]] = np.array(sizes[start:end], dtype=np.int64)
            continue
        if not all(name == "" or name in known for name in inner.input):
            continue
        try:
            evaluator = ReferenceEvaluator(inner, opsets=dict(opsets))
            results = evaluator.run(None, {name: known[name] for name in inner.input if name})
        except Exception:  # noqa: BLE001 - not foldable: it is converted instead
            continue
        for name, result in zip(inner.output, results):
            if name and isinstance(result, np.ndarray) and result.size <= MAX_FOLDED_ELEMENTS:
                known[name] = result
    return known


# -- creating and converting the body --------------------------------------------------------
def _mlir_attribute(attribute: AttributeProto, context: ir.Context) -> ir.Attribute:
    si64 = ir.IntegerType.get_signed(64, context)
    f32 = ir.F32Type.get(context)
    kind = attribute.type
    if kind == AttributeProto.INT:
        return ir.IntegerAttr.get(si64, attribute.i)
    if kind == AttributeProto.FLOAT:
        return ir.FloatAttr.get(f32, attribute.f)
    if kind == AttributeProto.STRING:
        return ir.StringAttr.get(attribute.s.decode("utf-8", "replace"), context)
    if kind == AttributeProto.INTS:
        return ir.ArrayAttr.get([ir.IntegerAttr.get(si64, v) for v in attribute.ints], context)
    if kind == AttributeProto.FLOATS:
        return ir.ArrayAttr.get([ir.FloatAttr.get(f32, v) for v in attribute.floats], context)
    if kind == AttributeProto.STRINGS:
        return ir.ArrayAttr.get([ir.StringAttr.get(v.decode("utf-8", "replace"), context) for v in attribute.strings], context)
    if kind == AttributeProto.TENSOR:
        return _dense_attribute(numpy_helper.to_array(attribute.t), attribute.t.data_type, context)
    raise UnsupportedNode(f"its function body has an attribute '{attribute.name}' of type "
                          f"{AttributeProto.AttributeType.Name(kind)}, which is not expanded")


def _dense_attribute(array: np.ndarray, onnx_type: int, context: ir.Context) -> ir.Attribute:
    element = ONNX_TO_TORCH_ELEMENT.get(onnx_type)
    if element is None:
        raise UnsupportedNode(f"its function body has a tensor of ONNX type {onnx_type}")
    if element == "i1":
        element_type = ir.IntegerType.get_signless(1, context)
        array = array.astype(np.bool_)
    elif element.startswith("si"):
        element_type = ir.IntegerType.get_signed(int(element[2:]), context)
    elif element.startswith("ui"):
        element_type = ir.IntegerType.get_unsigned(int(element[2:]), context)
    else:
        element_type = ir.Type.parse(element, context)
    tensor_type = ir.RankedTensorType.get(list(array.shape), element_type)
    if array.size == 1:
        value = array.reshape(-1)[0]
        if element == "i1":
            scalar = ir.IntegerAttr.get(element_type, int(bool(value)))
        elif isinstance(element_type, ir.IntegerType):
            scalar = ir.IntegerAttr.get(element_type, int(value))
        else:
            scalar = ir.FloatAttr.get(element_type, float(value))
        return ir.DenseElementsAttr.get_splat(tensor_type, scalar)
    return ir.DenseElementsAttr.get(np.ascontiguousarray(array), type=tensor_type)


def torch_result_type(type_proto: onnx.TypeProto | None, context: ir.Context) -> ir.Type | None:
    if type_proto is None or not type_proto.HasField("tensor_type"):
        return None
    tensor = type_proto.tensor_type
    element = ONNX_TO_TORCH_ELEMENT.get(tensor.elem_type)
    if element is None:
        return None
    sizes = None
    if tensor.HasField("shape"):
        sizes = [d.dim_value if d.HasField("dim_value") else None for d in tensor.shape.dim]
    return vtensor_type(TensorInfo(None if sizes is None else tuple(sizes), element), context)


def _create_op(node: OnnxNode, inner: onnx.NodeProto, values: dict, types: dict, declared: dict) -> ir.Operation:
    """The body node `inner` as a `torch.operator` in front of `node`; records its results in `values`."""
    context = node.op.context
    none_type = ir.Type.parse("!torch.none", context)
    anchor = ir.InsertionPoint(node.op)
    operands = []
    for name in inner.input:
        if name and name not in values:
            raise UnsupportedNode(f"its function body reads '{name}' before defining it")
        operands.append(values[name] if name else None)
    while operands and operands[-1] is None:
        operands.pop()
    if any(operand is None for operand in operands):
        none_value = ir.Operation.create("torch.constant.none", results=[none_type], loc=node.location, ip=anchor).result
        operands = [none_value if operand is None else operand for operand in operands]
    result_types = []
    for name in inner.output:
        if not name:
            result_types.append(none_type)
            continue
        inferred = torch_result_type(types.get(name), context)
        if name in declared and (inferred is None or tensor_info(declared[name]).rank is not None):
            inferred = declared[name]
        if inferred is None:
            raise UnsupportedNode(f"ONNX shape inference gives no tensor type for '{name}' "
                                  f"({inner.op_type}) of its function body")
        result_types.append(inferred)
    domain = normalize_domain(inner.domain)
    attributes = {"name": ir.StringAttr.get(f"{domain or 'onnx'}.{inner.op_type}", context)}
    for attribute in inner.attribute:
        attributes[TORCH_ATTRIBUTE_PREFIX + attribute.name] = _mlir_attribute(attribute, context)
    op = ir.Operation.create("torch.operator", results=result_types, operands=operands, attributes=attributes,
                             loc=node.location, ip=anchor)
    for name, result in zip(inner.output, op.results):
        if name:
            values[name] = result
    return op


def _folded_nodes(nodes, known: dict, outputs) -> list[onnx.NodeProto]:
    """The body with every node whose outputs are all known replaced by Constants (for the read ones)."""
    read = {name for inner in nodes for name in inner.input} | set(outputs)
    result = []
    for inner in nodes:
        if inner.output and all(not name or name in known for name in inner.output):
            result += [
                helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(known[name])))
                for name in inner.output if name and name in read
            ]
        else:
            result.append(inner)
    return result


def _convert_body_op(node: OnnxNode, op: ir.Operation, inner: onnx.NodeProto | None, opsets: dict):
    """Convert a created body op (or a copied subgraph op still in ONNX form); a Failure or None."""
    from .driver import classify, convert_node, opset_for

    if inner is None:  # from the model's own subgraph: at the model's opsets
        kind = classify(op)
        if kind is None:
            return None
        return convert_node(OnnxNode(op, kind[0], kind[1], opset_for(_model_opsets(node), kind[1]), kind[2], node.target))
    domain = normalize_domain(inner.domain)
    opset = opsets.get(domain, node.opset if domain == node.domain else 1)
    return convert_node(OnnxNode(op, inner.op_type, domain, opset, "torch-onnx", node.target))


def _model_opsets(node: OnnxNode) -> dict:
    """domain -> opset of the model the node is in (its function's or module's attributes)."""
    from .driver import model_opsets

    function = node.op.operation.parent
    while function is not None and function.operation.name != "func.func":
        function = function.operation.parent
    if function is None or function.operation.parent is None:
        return {}
    return model_opsets(function.operation, function.operation.parent.operation)


def _body_opsets(node: OnnxNode, body: onnx.FunctionProto) -> dict:
    """domain -> opset for the body's nodes: what the body imports; a domain it uses without
    importing it (a preview op's body of default-domain ops) at the model's opset for it."""
    from .driver import opset_for

    opsets = {normalize_domain(entry.domain): entry.version for entry in body.opset_import}
    if DEFAULT_DOMAIN not in opsets:
        opsets[DEFAULT_DOMAIN] = node.opset if node.domain == DEFAULT_DOMAIN else opset_for(_model_opsets(node), DEFAULT_DOMAIN)
    return opsets


def expand_function(node: OnnxNode):
    """Replace `node` by its function body, converted; returns the node's replacement values."""
    schema = onnx_schema(node.op_type, node.opset, node.domain)
    proto = node_proto(node, schema)
    add_region_placeholders(node, schema, proto)
    input_types = [onnx_type_proto(node.input_info(i) if node.has_input(i) else None, f"in{i}")
                   for i in range(node.num_inputs)]
    body = _function_proto(node, schema, proto, input_types)
    opsets = _body_opsets(node, body)
    nodes, names = _bind(body, proto)
    types = _infer_types(nodes, proto, input_types, opsets)
    known = _fold(nodes, types, opsets)
    for _ in range(4):  # an If decided by the static types becomes its branch
        nodes, changed = _inline_decided_ifs(nodes, known, names)
        if not changed:
            break
        types = _infer_types(nodes, proto, input_types, opsets)
        known = _fold(nodes, types, opsets)
    undecided = next((inner for inner in nodes if _has_subgraph(inner)), None)
    if undecided is not None:
        raise UnsupportedNode(f"its function body has a subgraph ({undecided.op_type}) that depends on "
                              "runtime values, which is not expanded")
    nodes = _folded_nodes(nodes, known, proto.output)
    types.update(_infer_types(nodes, proto, input_types, opsets))  # sharper, now that constants are literals
    for name, value in known.items():  # a folded value's type is exact
        types[name] = helper.make_tensor_type_proto(helper.np_dtype_to_tensor_dtype(np.asarray(value).dtype),
                                                    list(np.shape(value)))

    return _create_and_convert(node, nodes, proto, types, opsets)


def expand_into(node: OnnxNode, nodes: list[onnx.NodeProto], opsets: dict):
    """Replace `node` by `nodes`, an expansion a pattern writes in ONNX ops (reading the node's
    inputs as in<i>, defining its outputs as out<i>), converted; the node's replacement values.
    The expansion's types come from ONNX shape inference, as a function body's do."""
    proto = helper.make_node(node.op_type, [f"in{i}" if node.has_input(i) else "" for i in range(node.num_inputs)],
                             [f"out{i}" if not is_none_type(node.op.results[i].type) else ""
                              for i in range(node.num_results)], domain=node.domain)
    input_types = [onnx_type_proto(node.input_info(i) if node.has_input(i) else None, f"in{i}")
                   for i in range(node.num_inputs)]
    types = _infer_types(nodes, proto, input_types, opsets)
    return _create_and_convert(node, nodes, proto, types, opsets)


def _create_and_convert(node: OnnxNode, nodes, proto: onnx.NodeProto, types: dict, opsets: dict):
    """The ops of `nodes` in front of `node`, each converted; the values of proto's outputs."""
    values = {f"in{i}": node.optional_input(i) for i in range(node.num_inputs) if node.has_input(i)}
    declared = {f"out{i}": node.result_type(i) for i in range(node.num_results)
                if not is_none_type(node.op.results[i].type)}
    created: list[tuple[ir.Operation, onnx.NodeProto | None]] = []  # None: a copied subgraph op
    converted_count = 0
    placeholder = None
    try:
        for inner in nodes:
            if placeholder_index(inner) is not None:
                result_type = torch_result_type(types.get(inner.output[0]), node.op.context)
                created += [(op, None) for op in inline_region(node, inner, values, result_type)]
            else:
                created.append((_create_op(node, inner, values, types, declared), inner))
        missing = [name for name in proto.output if name and name not in values]
        if missing:
            raise UnsupportedNode(f"its function body does not define output '{missing[0]}'")
        outputs = [values[name] if name else None for name in proto.output]
        # Converting a body op replaces its results; a placeholder use follows the outputs through that.
        present = [value for value in outputs if value is not None]
        placeholder = ir.Operation.create("builtin.unrealized_conversion_cast", results=[v.type for v in present],
                                          operands=present, loc=node.location, ip=ir.InsertionPoint(node.op))
        for op, inner in created:
            failure = _convert_body_op(node, op, inner, opsets)
            if failure is not None:
                raise UnsupportedNode(f"in its function body: {failure.message}")
            converted_count += 1
        converted = iter(list(placeholder.operands))
        return [next(converted) if value is not None else None for value in outputs]
    finally:
        if placeholder is not None:
            placeholder.erase()
        # On failure the node stays as it was: drop the body ops not converted yet.
        for op, _ in reversed(created[converted_count:]):
            op.erase()
