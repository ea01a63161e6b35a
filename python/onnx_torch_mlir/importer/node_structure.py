"""A node's structure against its ONNX schema, before any inference runs.

ONNX's C++ shape inference assumes what its schemas require: a required input that is
present, an attribute of the declared kind, a `body` graph on a Scan. Given a node that breaks
one of those, it can abort or fault the process (a Split whose `num_outputs` exceeds its
outputs; a LabelEncoder whose input is empty), and a pattern meeting it later fails with a
Python exception instead of a message. So every node of a schema domain (`ai.onnx`,
`ai.onnx.ml`, ...) is checked here, in the main graph and in every subgraph body, against the
schema in force at the model's opset for its domain:

- its input and output counts are within the schema's range;
- a required (single) input is not the empty name;
- every required attribute is present, every attribute is one the schema defines, of the kind
  the schema defines (the checker's and onnxruntime's rules);
- a Split's `num_outputs` equals its output count;
- an If's branches, a Loop's, Scan's or SequenceMap's body have as many inputs and outputs as
  the node needs;
- an ai.onnx.ml op of maps (ZipMap, CastMap, DictVectorizer) is refused with what to do instead:
  neither spelling has map types (`ml_types.map_problem`).

Each problem is one line naming the file, the node (name or position, op type, and the
subgraph it is in) and the offending input or attribute.
"""

from __future__ import annotations

import functools

import onnx
import onnx.defs
from onnx import AttributeProto

from ..errors import ImportError_
from . import ordering
from .ml_types import map_problem

SCHEMA_DOMAINS = ("", "ai.onnx")
ML_DOMAIN = "ai.onnx.ml"
_KIND_NAMES = {
    AttributeProto.UNDEFINED: "of no kind",
    AttributeProto.FLOAT: "a float",
    AttributeProto.INT: "an integer",
    AttributeProto.STRING: "a string",
    AttributeProto.TENSOR: "a tensor",
    AttributeProto.GRAPH: "a graph",
    AttributeProto.SPARSE_TENSOR: "a sparse tensor",
    AttributeProto.TYPE_PROTO: "a type",
    AttributeProto.FLOATS: "a list of floats",
    AttributeProto.INTS: "a list of integers",
    AttributeProto.STRINGS: "a list of strings",
    AttributeProto.TENSORS: "a list of tensors",
    AttributeProto.GRAPHS: "a list of graphs",
    AttributeProto.SPARSE_TENSORS: "a list of sparse tensors",
    AttributeProto.TYPE_PROTOS: "a list of types",
}


def opset_versions(model: onnx.ModelProto) -> dict[str, int]:
    """Domain -> the model's opset version for it (the default domain as "")."""
    versions = {}
    for opset in model.opset_import:
        versions["" if opset.domain in SCHEMA_DOMAINS else opset.domain] = opset.version
    return versions


def node_schema(node: onnx.NodeProto, versions: dict[str, int]):
    """The ONNX schema of `node` at the model's opset for its domain, or None (unknown op, or a
    domain ONNX has no schemas for, such as com.microsoft)."""
    domain = "" if node.domain in SCHEMA_DOMAINS else node.domain
    if domain not in versions:
        return None
    return schema_at(node.op_type, versions[domain], domain)


@functools.lru_cache(maxsize=None)
def schema_at(op_type: str, version: int, domain: str):
    """`onnx.defs.get_schema`, or None; cached (a lookup costs about 0.1 ms, once per node)."""
    try:
        return onnx.defs.get_schema(op_type, version, domain)
    except onnx.defs.SchemaError:
        return None


def node_label(index: int, node: onnx.NodeProto, scope: str = "") -> str:
    """`node 'add0' (Add)`, `node 'Resize:Y' (Resize)` for an unnamed node (as the importer's
    locations name it: op type and first output), `node 'x' (ai.onnx.ml.LabelEncoder) in the
    'body' of node 'loop' (Loop)`."""
    label = f"node '{ordering.node_label(node, index)}'"
    domain = f"{node.domain}." if node.domain not in SCHEMA_DOMAINS else ""
    return f"{label} ({domain}{node.op_type}){scope}"


def check_graph_structure(graph: onnx.GraphProto, versions: dict[str, int], model_name: str, scope: str = "") -> None:
    """Raise ImportError_ on the first node of `graph` (or of a subgraph in it) whose structure
    its schema forbids."""
    for index, node in enumerate(graph.node):
        label = node_label(index, node, scope)
        schema = node_schema(node, versions)
        problem = _structure_problem(schema, node) if schema is not None else None
        if node.domain == ML_DOMAIN:
            problem = problem or map_problem(node.op_type, versions.get(ML_DOMAIN))
        if problem:
            raise ImportError_(f"{model_name}: {label}: {problem}")
        for attribute in node.attribute:
            for body in _graphs(attribute):
                check_graph_structure(body, versions, model_name, f" in the '{attribute.name}' of {label}")


def _graphs(attribute: onnx.AttributeProto) -> list[onnx.GraphProto]:
    if attribute.type == AttributeProto.GRAPH and attribute.HasField("g"):
        return [attribute.g]
    if attribute.type == AttributeProto.GRAPHS:
        return list(attribute.graphs)
    return []


def _structure_problem(schema, node: onnx.NodeProto) -> str | None:
    return (
        _count_problem(schema, node)
        or _empty_required_input(schema, node)
        or _attribute_problem(schema, node)
        or _split_problem(node)
        or _subgraph_problem(schema, node)
    )


def _spelled(schema) -> str:
    return f"{schema.name}-{schema.since_version}"


def _count_problem(schema, node: onnx.NodeProto) -> str | None:
    for what, count, low, high in (
        ("inputs", len(node.input), schema.min_input, schema.max_input),
        ("outputs", len(node.output), schema.min_output, schema.max_output),
    ):
        if not low <= count <= high:
            expected = f"{low}" if low == high else f"{low} to {high}" if high < 2**31 - 1 else f"at least {low}"
            return f"it has {count} {what}, {_spelled(schema)} takes {expected}"
    return None


def _empty_required_input(schema, node: onnx.NodeProto) -> str | None:
    for position, (formal, name) in enumerate(zip(schema.inputs, node.input)):
        if not name and formal.option == onnx.defs.OpSchema.FormalParameterOption.Single:
            return f"input {position} ({formal.name}) is required by {_spelled(schema)} but its name is empty"
    return None


@functools.lru_cache(maxsize=None)
def _declared_attributes(schema) -> dict[str, tuple[int, bool]]:
    """Attribute name -> (kind, required): `schema.attributes` builds its dict anew on each access."""
    return {name: (int(declared.type), declared.required) for name, declared in schema.attributes.items()}


def _attribute_problem(schema, node: onnx.NodeProto) -> str | None:
    declared_attributes = _declared_attributes(schema)
    present = set()
    for attribute in node.attribute:
        present.add(attribute.name)
        if attribute.ref_attr_name:
            continue  # a function body's reference, resolved where the function is called
        declared = declared_attributes.get(attribute.name)
        if declared is None:
            return f"attribute '{attribute.name}' is not an attribute of {_spelled(schema)}"
        if attribute.type != declared[0]:
            return (
                f"attribute '{attribute.name}' is {_KIND_NAMES.get(attribute.type, f'of kind {attribute.type}')}, "
                f"but {_spelled(schema)} defines it as {_KIND_NAMES.get(declared[0], f'kind {declared[0]}')}"
            )
    for name, (_, required) in declared_attributes.items():
        if required and name not in present:
            return f"required attribute '{name}' of {_spelled(schema)} is missing"
    return None


def _split_problem(node: onnx.NodeProto) -> str | None:
    """ONNX's inference indexes the outputs by `num_outputs` (and aborts past them)."""
    if node.op_type != "Split":
        return None
    for attribute in node.attribute:
        if attribute.name == "num_outputs" and attribute.i != len(node.output):
            return f"attribute 'num_outputs' is {attribute.i} but the node has {len(node.output)} outputs"
    return None


def _graph_attribute(node: onnx.NodeProto, name: str) -> onnx.GraphProto | None:
    for attribute in node.attribute:
        if attribute.name == name and attribute.type == AttributeProto.GRAPH:
            return attribute.g
    return None


def _subgraph_problem(schema, node: onnx.NodeProto) -> str | None:
    """The bodies' input and output counts against what the node passes and takes."""
    expected = _expected_body_counts(schema, node)
    for name, (inputs, outputs) in expected.items():
        body = _graph_attribute(node, name)
        if body is None:
            continue
        for what, count, needed in (("inputs", len(body.input), inputs), ("outputs", len(body.output), outputs)):
            if needed is not None and count != needed:
                return f"its '{name}' graph has {count} {what}, {_spelled(schema)} needs {needed} here"
    return None


def _expected_body_counts(schema, node: onnx.NodeProto) -> dict[str, tuple[int | None, int | None]]:
    """Attribute name -> (body inputs, body outputs) the node requires; None where free."""
    inputs, outputs = len(node.input), len(node.output)
    if node.op_type == "If":
        return {"then_branch": (None, outputs), "else_branch": (None, outputs)}
    if node.op_type == "Loop":
        # (iteration, condition, N carried) in; (condition, N carried, K scanned) out.
        return {"body": (inputs, 1 + outputs)}
    if node.op_type == "Scan":
        # Scan-8 takes an optional sequence_lens first; the body sees states and scan slices.
        passed = inputs - 1 if schema.since_version < 9 else inputs
        return {"body": (passed, outputs)}
    if node.op_type == "SequenceMap":
        return {"body": (inputs, outputs)}
    return {}
