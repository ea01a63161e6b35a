"""Graph attributes of a function op (FlexAttention's score_mod, prob_mod) in its expansion.

The import turns a GRAPH attribute into a region of the op (regions sorted by attribute name,
the names recorded in `torch.onnx_meta.region_names` for an op outside the default domain).
ONNX's body builder inlines each subgraph into the function body, so the body is asked for
with a placeholder subgraph per region: one `Identity` per subgraph output, named
`onnx_torch_mlir_region_<region>_<output>`. The builder keeps the node name (with a suffix)
and wires the Identity between the body values the subgraph reads and defines. When the
body's ops are created, each placeholder becomes a copy of the region's ops (already
converted by the driver, which converts nested ops first) with the region's arguments bound
to the placeholder's operands; the copy's result is cast to the type ONNX inferred for it.
"""

from __future__ import annotations

import re

import onnx
from onnx import AttributeProto, helper
from torch_mlir import ir

from .node import OnnxNode, UnsupportedNode
from .types import tensor_info

REGION_NAMES_ATTRIBUTE = "torch.onnx_meta.region_names"
PLACEHOLDER = re.compile(r"onnx_torch_mlir_region_(\d+)_(\d+)")
TERMINATORS = ("torch.operator_terminator", "onnx.Yield")


def _region_names(node: OnnxNode, schema) -> list[str]:
    """The GRAPH attribute name of each region of the node."""
    regions = len(node.op.operation.regions)
    attributes = node.op.operation.attributes
    if REGION_NAMES_ATTRIBUTE in attributes:
        names = [ir.StringAttr(name).value for name in ir.ArrayAttr(attributes[REGION_NAMES_ATTRIBUTE])]
        if len(names) == regions:
            return names
    graphs = sorted(name for name, attribute in schema.attributes.items() if attribute.type == AttributeProto.GRAPH)
    if len(graphs) == regions:  # every subgraph attribute present: the regions are in name order
        return graphs
    node.fail(f"it has {regions} subgraph region(s) but the import did not record which of its graph "
              f"attributes ({', '.join(graphs)}) each one is; re-import the model with onnx-torch-mlir")


def _region_block(node: OnnxNode, index: int) -> ir.Block:
    blocks = list(node.op.operation.regions[index].blocks)
    if len(blocks) != 1:
        node.fail(f"its subgraph region {index} has {len(blocks)} blocks, expected one")
    return blocks[0]


def _terminator(block: ir.Block) -> ir.Operation:
    last = list(block.operations)[-1].operation
    if last.name not in TERMINATORS:
        raise UnsupportedNode(f"a subgraph region ends with {last.name}, not a terminator")
    return last


def _placeholder_graph(node: OnnxNode, index: int, name: str) -> onnx.GraphProto:
    from .functions import onnx_type_proto

    block = _region_block(node, index)
    outputs = len(_terminator(block).operands)
    arguments = list(block.arguments)
    if outputs > len(arguments):
        node.fail(f"its subgraph '{name}' has more outputs ({outputs}) than inputs ({len(arguments)}), "
                  "which the expansion does not handle")
    inputs = [helper.make_value_info(f"x{j}", onnx_type_proto(tensor_info(arg.type), f"x{j}"))
              for j, arg in enumerate(arguments)]
    nodes = [helper.make_node("Identity", [f"x{j}"], [f"y{j}"], name=f"onnx_torch_mlir_region_{index}_{j}")
             for j in range(outputs)]
    results = [helper.make_value_info(f"y{j}", onnx.TypeProto()) for j in range(outputs)]
    return helper.make_graph(nodes, f"region_{name}", inputs, results)


def add_region_placeholders(node: OnnxNode, schema, proto: onnx.NodeProto) -> None:
    """Give `proto` a placeholder subgraph for each region of the node."""
    if not len(node.op.operation.regions):
        return
    for index, name in enumerate(_region_names(node, schema)):
        proto.attribute.append(helper.make_attribute(name, _placeholder_graph(node, index, name)))


def placeholder_index(inner: onnx.NodeProto) -> tuple[int, int] | None:
    """(region, output) if `inner` is a region placeholder of the body."""
    found = PLACEHOLDER.match(inner.name) if inner.op_type == "Identity" else None
    return (int(found.group(1)), int(found.group(2))) if found else None


def inline_region(node: OnnxNode, inner: onnx.NodeProto, values: dict, result_type: ir.Type | None) -> list:
    """The region's ops copied in front of the node for placeholder `inner`, its output bound in
    `values`; returns the copies (those still ONNX ops are converted by the caller)."""
    region, output = placeholder_index(inner)
    block = _region_block(node, region)
    arguments = list(block.arguments)
    operand = values[inner.input[0]]
    # The placeholder for output j reads the body value bound to argument j; the other arguments
    # are bound by their own placeholders (FlexAttention's subgraphs have one of each).
    mapping = [(arguments[output], operand)]

    def mapped(value):
        return next((new for old, new in mapping if old == value), value)

    anchor = ir.InsertionPoint(node.op)
    copies = []
    for op in list(block.operations):
        op = op.operation
        if op.name in TERMINATORS:
            result = mapped(op.operands[output])
            break
        if any(other == value for value in op.operands for other in arguments if other != arguments[output]):
            raise UnsupportedNode("a subgraph reads more than one of its inputs, which the expansion does not bind")
        copy = op.clone(ip=anchor)
        for position, value in enumerate(copy.operands):
            replacement = mapped(value)
            if replacement != value:
                copy.operands[position] = replacement
        mapping += list(zip(op.results, copy.results))
        copies.append(copy)
    if result_type is not None and result.type != result_type:
        if tensor_info(result.type).element != tensor_info(result_type).element:
            raise UnsupportedNode(f"its subgraph gives {result.type} where the body expects {result_type}")
        cast = ir.Operation.create("torch.tensor_static_info_cast", results=[result_type], operands=[result],
                                   loc=node.location, ip=anchor)
        copies.append(cast)
        result = cast.result
    values[inner.output[0]] = result
    return copies
