"""If: `torch.prim.If` with the two subgraphs as its regions.

If-1 to If-23 differ only in the types a branch may yield (If-11 lets the branches yield
different shapes, If-13 sequences, If-16 optionals): one pattern serves them all. A sequence
output must be built in each branch with the same length: the If then yields its elements (each
as a tensor output) and the sequence is rebuilt after it. An optional output is built by
Optional in each branch: its content is yielded the same way, and where only one branch holds a
value the other yields zeros in its place and the optional carries the condition as the flag
OptionalHasElement reads (`_collapsed`).

The condition is a one-element boolean tensor; `torch.prim.If` takes a `!torch.bool`, read with
`aten.item` (`aten.Bool.int`). Each result's type is the most static type both branches fit (a
dim where they differ becomes `?`, each branch's value is cast to it), and the declared output
type is restored after the If. On TOSA and StableHLO (no `prim.If`, no `aten.item` in torch-mlir's
lowerings) both branches are computed and `aten.where` selects when the outputs have one static
shape; otherwise the `torch.prim.If` becomes the backend's own if (see the package docstring).
"""

from __future__ import annotations

import numpy as np
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
        flat, _, layout = _expanded(node, values, values, (b, b))
        return _collapsed(node, b, flat, layout, None)
    then_block, else_block = _checked_block(node, then_index), _checked_block(node, else_index)
    for index in range(node.num_results):
        declared = node.op.results[index].type
        if tensor_info(declared) is None and not lists.is_container(declared):
            node.fail(f"output {index} has type {declared}: only tensor, sequence and optional outputs are supported")
    info = node.input_info(0)
    if info.sizes is not None and None not in info.sizes and len(info.sizes) and max(info.sizes) != 1:
        node.fail(f"the condition has shape {list(info.sizes)}, not one element")
    declared_branch = _branch_of_declared_ranks(node, then_block, else_block)
    if declared_branch is not None:
        return _checked_branch(node, b, declared_branch, then_block, else_block)
    if node.target in LOOPLESS_TARGETS and _selectable(node, b, then_block, else_block):
        return _select_computed_branches(node, b, then_block, else_block)
    return _prim_if(node, b, then_block, else_block)


def _selectable(node: OnnxNode, b: TorchBuilder, then_block: ir.Block, else_block: ir.Block) -> bool:
    """True if every output is a tensor of one static shape in both branches: then TOSA and StableHLO
    compute both branches and select (no control flow for their consumers to lower); else the If
    stays a `torch.prim.If`, which `transforms/torch/control_flow.py` makes their own `if`."""
    if any(lists.is_container(result.type) for result in node.op.results):
        return True  # sequences and optionals are expanded per branch: only the select form builds them
    for then_value, else_value in zip(terminator(then_block).operands, terminator(else_block).operands):
        then_info, else_info = tensor_info(value_type(then_value)), tensor_info(value_type(else_value))
        if then_info is None or not (then_info.is_static and then_info == else_info):
            return False
    return True


def _ranks(block: ir.Block) -> list:
    return [info.rank if info is not None else None
            for info in (tensor_info(value_type(value)) for value in terminator(block).operands)]


def _branch_of_declared_ranks(node: OnnxNode, then_block: ir.Block, else_block: ir.Block) -> bool | None:
    """True (then) or False (else) when the branches yield different ranks and the If's results
    are declared with the ranks of exactly that branch (the importer gives them the one rank the
    rest of the graph can take, `importer/if_ranks.py`, or the model declares it); else None."""
    then_ranks, else_ranks = _ranks(then_block), _ranks(else_block)
    if then_ranks == else_ranks or None in then_ranks + else_ranks:
        return None
    declared = [info.rank if info is not None else None
                for info in (tensor_info(result.type) for result in node.op.results)]
    if declared == then_ranks:
        return True
    if declared == else_ranks:
        return False
    return None


def _checked_branch(node: OnnxNode, b: TorchBuilder, taken: bool, then_block: ir.Block, else_block: ir.Block):
    """The branch whose ranks the If's results have, inlined, after a run-time check that the
    condition selects it: torch cannot carry a rank decided at run time, and the other branch's
    rank makes the rest of the graph invalid, so a valid run never takes it.

    The check (`b.check_at_run_time`) reads `ok`, the condition (or its negation) as a 0-d boolean
    tensor, on Linalg and StableHLO. TOSA
    refuses the node: no TOSA consumer is given a check (fixing the dims the condition reads
    decides it at import)."""
    names = {True: "then_branch", False: "else_branch"}
    ranks = _ranks(then_block), _ranks(else_block)
    index = next(i for i, (t, e) in enumerate(zip(*ranks)) if t != e)
    if node.target == "tosa":
        node.fail(
            f"output {index} has rank {ranks[0][index]} in then_branch and {ranks[1][index]} in else_branch, and the "
            f"condition is known only at run time; only {names[taken]} makes the rest of the graph valid, which "
            f"{node.target} cannot check at run time (linalg-on-tensors and stablehlo can; fixing the dynamic dims "
            "the condition reads with --dim or --input-shape decides it at import)"
        )
    ok = _condition_tensor(node, b)
    if not taken:
        ok = b.op("aten.logical_not", ok.type, ok)
    message = (
        f"If '{node.name}': the condition selects {names[not taken]}, whose output {index} has rank "
        f"{ranks[int(taken)][index]}; the program was compiled for {names[taken]} (rank {ranks[int(not taken)][index]}), "
        "the only rank the rest of the graph takes"
    )
    b.check_at_run_time(ok, message)
    values = inline_block(b, then_block if taken else else_block, [])
    flat, _, layout = _expanded(node, values, values, (b, b))
    return _collapsed(node, b, flat, layout, None)


def _checked_block(node: OnnxNode, index: int) -> ir.Block:
    block = region_block(node, index)
    count = len(terminator(block).operands)
    if count != node.num_results:
        name = "then_branch" if index == (1 if node.spelling == "torch-onnx" else 0) else "else_branch"
        node.fail(f"{name} yields {count} values for {node.num_results} outputs")
    return block


# An If whose condition the importer can decide (a rank, sizes it knows) is its branch by now.
_RUN_TIME_CONDITION = (
    "; the condition is known only at run time (fixing the dynamic dims it reads with --dim or --input-shape "
    "can decide it at import)"
)


def _prim_if(node: OnnxNode, b: TorchBuilder, then_block: ir.Block, else_block: ir.Block) -> list[ir.Value]:
    """`torch.prim.If`, except for outputs both branches only pick (a value from outside or a
    literal): those are an `aten.where` in front. torch-mlir's Linalg pipeline would turn them
    into an `arith.select` of tensors (scf's canonicalization), which its backend contract rejects."""
    builders = TorchBuilder(terminator(then_block), b.location), TorchBuilder(terminator(else_block), b.location)
    then_values, else_values, layout = _expanded(
        node, yielded_values(b, then_block), yielded_values(b, else_block), builders)
    types = [
        join_types(b, node, [value_type(t), value_type(e)], f"output {i}", _RUN_TIME_CONDITION)
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
        return _collapsed(node, b, results, layout, lambda: _condition_tensor(node, b))
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
    return _collapsed(node, b, results, layout, lambda: _condition_tensor(node, b))


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
    then_values, else_values, layout = _expanded(
        node, inline_block(b, then_block, []), inline_block(b, else_block, []), (b, b))
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
    return _collapsed(node, b, results, layout, lambda: condition)


def _expanded(node: OnnxNode, then_values, else_values, builders):
    """The branches' outputs with each sequence replaced by its elements and each optional by its
    content's; and the layout (per output: None for a tensor, else how to rebuild it) that
    `_collapsed` reads. `builders` create values in front of each branch's end (or of the node)."""
    flat_then, flat_else, layout = [], [], []
    for index, (then_value, else_value) in enumerate(zip(then_values, else_values)):
        declared = node.op.results[index].type
        if not lists.is_container(declared):
            flat_then.append(then_value)
            flat_else.append(else_value)
            layout.append(None)
        elif lists.is_optional(declared):
            layout.append(_expanded_optional(node, index, (then_value, else_value), builders, flat_then, flat_else))
        else:
            constructs = lists.list_construct(then_value), lists.list_construct(else_value)
            if any(construct is None for construct in constructs):
                node.fail(f"output {index} is a sequence that a branch does not build (SequenceConstruct, ...): its "
                          "length would only be known at run time")
            then_elements, else_elements = (list(construct.operands) for construct in constructs)
            _same_length(node, index, then_elements, else_elements)
            flat_then += then_elements
            flat_else += else_elements
            layout.append(("sequence", len(then_elements)))
    return flat_then, flat_else, layout


def _same_length(node: OnnxNode, index: int, then_elements, else_elements) -> None:
    if len(then_elements) != len(else_elements):
        node.fail(f"output {index} is a sequence of {len(then_elements)} elements in one branch and "
                  f"{len(else_elements)} in the other: its length would depend on the run-time condition")


def _expanded_optional(node: OnnxNode, index: int, values, builders, flat_then: list, flat_else: list):
    """An optional output: its content's elements (a branch whose optional is empty yields zeros
    of the other branch's types in their place); its layout entry says which branches hold one."""
    parts = [lists.optional_parts(value) for value in values]
    if any(part is None for part in parts):
        node.fail(f"output {index} is an optional that a branch does not build (Optional)")
    holds = tuple(part[0] for part in parts)
    contents = [lists.content_elements(part[1]) if part[0] else None for part in parts]
    if any(content is None for content, held in zip(contents, holds) if held):
        node.fail(f"output {index} is an optional of a sequence that a branch does not build")
    if not any(holds):
        return ("optional", holds, 0, False)
    model = contents[0] if holds[0] else contents[1]
    for side, (content, builder) in enumerate(zip(contents, builders)):
        if content is None:
            contents[side] = ([_zeros_like(node, builder, element) for element in model[0]], model[1])
    _same_length(node, index, contents[0][0], contents[1][0])
    flat_then += contents[0][0]
    flat_else += contents[1][0]
    return ("optional", holds, len(model[0]), model[1])


_ZERO_DTYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_, "si8": np.int8, "ui8": np.uint8,
                "si16": np.int16, "si32": np.int32, "si64": np.int64}


def _zeros_like(node: OnnxNode, b: TorchBuilder, value: ir.Value) -> ir.Value:
    """Zeros of `value`'s static type: a literal where the element type allows (a branch yielding
    only literals becomes an `aten.where`, see `_prim_if`), else `aten.full`."""
    info = b.info(value)
    if info is None or not info.is_static:
        node.fail(f"an optional that only one branch holds needs content of a static shape, not {value.type}")
    if info.element in _ZERO_DTYPES and info.rank:
        return b.cast_to(b.literal(np.zeros(info.sizes, _ZERO_DTYPES[info.element]), info.element), value.type)
    return b.cast_to(b.full(list(info.sizes), 0, info.element), value.type)


def _collapsed(node: OnnxNode, b: TorchBuilder, values, layout, condition) -> list[ir.Value]:
    """The outputs from `_expanded`'s flat values: each sequence rebuilt as its declared list type,
    each optional as its declared optional type. An optional that only one branch holds is
    marked with whether it holds a value (`condition()`, or its negation) for OptionalHasElement and
    OptionalGetElement (`sequences.py`) to read: a bridge of the flag and the optional."""
    outputs, position = [], 0
    for index, entry in enumerate(layout):
        if entry is None:
            outputs.append(values[position])
            position += 1
            continue
        if entry[0] == "sequence":
            list_type = node.result_container_type(index)
            outputs.append(_rebuilt_list(node, b, index, values[position : position + entry[1]], list_type))
            position += entry[1]
            continue
        _, holds, count, is_sequence = entry
        optional_type = node.result_container_type(index)
        if not any(holds):
            outputs.append(b.op("derefine", optional_type, b.constant_none()))
            continue
        content_type = lists.container_element_type(optional_type)
        elements = values[position : position + count]
        position += count
        content = (_rebuilt_list(node, b, index, elements, content_type) if is_sequence
                   else fit_to_type(b, elements[0], content_type))
        wrapped = b.op("derefine", optional_type, content)
        if all(holds):
            outputs.append(wrapped)
            continue
        flag = condition()
        flag = flag if holds[0] else b.op("aten.logical_not", flag.type, flag)
        outputs.append(b.op(lists.UNREALIZED_CAST, optional_type, flag, wrapped))
    return outputs


def _rebuilt_list(node: OnnxNode, b: TorchBuilder, index: int, values, list_type: ir.Type) -> ir.Value:
    element_type = lists.container_element_type(list_type)
    try:
        elements = [lists.fit_element(b, value, element_type) for value in values]
    except lists.UnresolvedList as error:
        node.fail(f"output {index}: {error}")
    return b.op(lists.LIST_CONSTRUCT, list_type, *elements)
