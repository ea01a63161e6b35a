"""If: `torch.prim.If` with the two subgraphs as its regions.

If-1 to If-23 differ only in the types a branch may yield (If-11 lets the branches yield
different shapes, If-13 sequences, If-16 optionals): one pattern serves them all. A sequence
output must be built in each branch with the same length: the If then yields its elements (each
as a tensor output) and the sequence is rebuilt after it; an optional output fails the node.

The condition is a one-element boolean tensor; `torch.prim.If` takes a `!torch.bool`, read with
`aten.item` (`aten.Bool.int`). Each result's type is the most static type both branches fit (a
dim where they differ becomes `?`, each branch's value is cast to it), and the declared output
type is restored after the If. On TOSA and StableHLO (no `prim.If`, no `aten.item`) both
branches are computed and `aten.where` selects; see the package docstring.
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import LOOPLESS_TARGETS, OnnxNode
from ..registry import converts
from ..types import tensor_info
from . import lists
from .regions import (
    fit_to_type,
    inline_block,
    join_types,
    region_block,
    replace_terminator,
    terminator,
    value_type,
    yielded_values,
)



@converts("If", since=1)
def if_(node: OnnxNode, b: TorchBuilder):
    """outputs = then_branch() if cond else else_branch()."""
    # The torch-ONNX spelling orders regions by attribute name (else_branch, then_branch).
    then_index, else_index = (1, 0) if node.spelling == "torch-onnx" else (0, 1)
    constant = node.constant_input(0)
    if constant is not None:  # only the branch taken is converted and inlined (the driver ignores the other)
        taken = then_index if bool(constant.reshape(-1)[0]) else else_index
        values = inline_block(b, _checked_block(node, taken), [])
        flat, _, layout = _expanded(node, values, values)
        return _collapsed(node, b, flat, layout)
    then_block, else_block = _checked_block(node, then_index), _checked_block(node, else_index)
    for index in range(node.num_results):
        declared = node.op.results[index].type
        if tensor_info(declared) is None and not str(lists.to_torch_type(declared)).startswith("!torch.list<"):
            node.fail(f"output {index} has type {declared}: only tensor and sequence outputs are supported")
    info = node.input_info(0)
    if info.sizes is not None and None not in info.sizes and len(info.sizes) and max(info.sizes) != 1:
        node.fail(f"the condition has shape {list(info.sizes)}, not one element")
    if node.target in LOOPLESS_TARGETS:
        return _select_computed_branches(node, b, then_block, else_block)
    return _prim_if(node, b, then_block, else_block)


def _checked_block(node: OnnxNode, index: int) -> ir.Block:
    block = region_block(node, index)
    count = len(terminator(block).operands)
    if count != node.num_results:
        name = "then_branch" if index == (1 if node.spelling == "torch-onnx" else 0) else "else_branch"
        node.fail(f"{name} yields {count} values for {node.num_results} outputs")
    return block


def _prim_if(node: OnnxNode, b: TorchBuilder, then_block: ir.Block, else_block: ir.Block) -> list[ir.Value]:
    """`torch.prim.If`, except for outputs both branches only pick (a value from outside or a
    literal): those are an `aten.where` in front. torch-mlir's Linalg pipeline would turn them
    into an `arith.select` of tensors (scf's canonicalization), which its backend contract rejects."""
    then_values, else_values, layout = _expanded(node, yielded_values(b, then_block), yielded_values(b, else_block))
    types = [
        join_types(b, node, [value_type(t), value_type(e)], f"output {i}")
        for i, (t, e) in enumerate(zip(then_values, else_values))
    ]
    results: list = [None] * len(types)
    kept = []
    for index, (then_value, else_value) in enumerate(zip(then_values, else_values)):
        picked = _picked_outside(b, then_value, then_block), _picked_outside(b, else_value, else_block)
        if all(p is not None for p in picked) and b.info(picked[0]).sizes == b.info(picked[1]).sizes:
            results[index] = b.op("aten.where.self", types[index], _condition_tensor(node, b), *picked)
        else:
            kept.append(index)
    if not kept:
        return _collapsed(node, b, results, layout)
    condition = b.op("aten.Bool.int", b.type("!torch.bool"), b.item(node.input(0)))
    op = ir.Operation.create(
        "torch.prim.If", results=[types[i] for i in kept], operands=[condition], regions=2, loc=b.location,
        ip=ir.InsertionPoint(b.anchor),
    )
    for region, block, values in ((op.regions[0], then_block, then_values), (op.regions[1], else_block, else_values)):
        inner = TorchBuilder(terminator(block), b.location)
        fitted = [fit_to_type(inner, values[i], types[i]) for i in kept]
        replace_terminator(block, "torch.prim.If.yield", fitted, b.location)
        block.append_to(region)
    for index, value in zip(kept, op.results):
        results[index] = value
    return _collapsed(node, b, results, layout)


def _condition_tensor(node: OnnxNode, b: TorchBuilder) -> ir.Value:
    condition = node.input(0)
    return b.reshape(condition, [], []) if b.info(condition).rank else condition


def _picked_outside(b: TorchBuilder, value: ir.Value, block: ir.Block) -> ir.Value | None:
    """`value` made available in front of the node if the branch computes nothing for it (it
    is defined outside, or a literal, possibly cast); else None."""
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if isinstance(owner, ir.Block):
        return None if owner == block else value
    if owner.block != block:
        return value
    if owner.name in ("torch.vtensor.literal",) and not owner.operands:
        return owner.clone(ip=ir.InsertionPoint(b.anchor)).result
    if owner.name in ("torch.tensor_static_info_cast", "builtin.unrealized_conversion_cast") and len(owner.operands) == 1:
        source = _picked_outside(b, owner.operands[0], block)
        if source is None:
            return None
        copy = owner.clone(ip=ir.InsertionPoint(b.anchor))
        copy.operands[0] = source
        return copy.result
    return None


def _select_computed_branches(node: OnnxNode, b: TorchBuilder, then_block: ir.Block, else_block: ir.Block):
    """Both branches inlined, `aten.where(cond, then, else)` per output: needs equal static shapes."""
    then_values, else_values, layout = _expanded(node, inline_block(b, then_block, []), inline_block(b, else_block, []))
    condition = _condition_tensor(node, b)
    results = []
    for index, (then_value, else_value) in enumerate(zip(then_values, else_values)):
        then_info, else_info = b.info(then_value), b.info(else_value)
        if not (then_info.is_static and then_info == else_info):
            node.fail(
                f"on {node.target} an If with a run-time condition computes both branches and selects, which needs "
                f"the same static shape in both; output {index} is {then_value.type} or {else_value.type} "
                "(torch-mlir lowers torch.prim.If only to linalg-on-tensors)"
            )
        else_value = fit_to_type(b, else_value, then_value.type)
        results.append(b.op("aten.where.self", then_value.type, condition, then_value, else_value))
    return _collapsed(node, b, results, layout)


def _expanded(node: OnnxNode, then_values, else_values):
    """The branches' outputs with each sequence replaced by its elements; and the layout (per
    output: None for a tensor, the length for a sequence) that `_collapsed` rebuilds them by."""
    flat_then, flat_else, layout = [], [], []
    for index, (then_value, else_value) in enumerate(zip(then_values, else_values)):
        if not lists.is_container(node.op.results[index].type):
            flat_then.append(then_value)
            flat_else.append(else_value)
            layout.append(None)
            continue
        constructs = lists.list_construct(then_value), lists.list_construct(else_value)
        if any(construct is None for construct in constructs):
            node.fail(f"output {index} is a sequence that a branch does not build (SequenceConstruct, ...): its "
                      "length would only be known at run time")
        lengths = [len(construct.operands) for construct in constructs]
        if lengths[0] != lengths[1]:
            node.fail(f"output {index} is a sequence of {lengths[0]} elements in one branch and {lengths[1]} in the "
                      "other: its length would depend on the run-time condition")
        flat_then += list(constructs[0].operands)
        flat_else += list(constructs[1].operands)
        layout.append(lengths[0])
    return flat_then, flat_else, layout


def _collapsed(node: OnnxNode, b: TorchBuilder, values, layout) -> list[ir.Value]:
    """The outputs from `_expanded`'s flat values: each sequence rebuilt as its declared list type."""
    outputs, position = [], 0
    for index, count in enumerate(layout):
        if count is None:
            outputs.append(values[position])
            position += 1
            continue
        list_type = node.result_container_type(index)
        element_type = lists.container_element_type(list_type)
        try:
            elements = [lists.fit_element(b, value, element_type) for value in values[position : position + count]]
        except lists.UnresolvedList as error:
            node.fail(f"output {index}: {error}")
        outputs.append(b.op(lists.LIST_CONSTRUCT, list_type, *elements))
        position += count
    return outputs
