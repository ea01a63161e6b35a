"""What If, Loop and Scan share: the subgraph regions of a node whose own nodes are converted.

The importer makes each subgraph a one-block region of the ONNX op (arguments = the subgraph's
inputs, terminator `torch.operator_terminator` or `onnx.Yield` = its outputs); values of the
enclosing graphs are used directly inside. The conversion walks post-order, so when the If, Loop
or Scan pattern runs, every node of its regions is a torch op already. A pattern then either
*moves* a region into a `torch.prim.If` / `torch.prim.Loop` (`retype_arguments`,
`replace_terminator`), or *inlines* it in front of the node (`inline_block`, which clones the
block so that a loop body can be inlined once per iteration: unrolling).

In the ONNX-dialect spelling the arguments and the yielded values have builtin tensor types;
`to_torch` and `to_original_type` bridge them with `builtin.unrealized_conversion_cast`s that
`finalize-torch-type-conversion` folds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..types import TensorInfo, is_builtin_tensor, tensor_info, to_vtensor_type
from . import lists

UNREALIZED_CAST = "builtin.unrealized_conversion_cast"
TERMINATORS = ("torch.operator_terminator", "onnx.Yield")


def region_block(node: OnnxNode, index: int) -> ir.Block:
    """The single block of region `index`, after checking that every node in it was converted."""
    region = node.op.regions[index]
    blocks = list(region.blocks)
    if len(blocks) != 1:
        node.fail(f"subgraph region {index} has {len(blocks)} blocks, expected one")
    block = blocks[0]
    leftover = _unconverted_node(block)
    if leftover is not None:
        node.fail(f"its subgraph holds a node that could not be converted ({leftover}; see its own error)")
    return block


def _unconverted_node(block: ir.Block) -> str | None:
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        name = op.name
        if name == "torch.operator" or (name.startswith("onnx.") and name not in ("onnx.NoValue", *TERMINATORS)):
            found.append(name if name != "torch.operator" else ir.StringAttr(op.attributes["name"]).value)
            return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    for op in block.operations:
        if op.operation.name in TERMINATORS:
            continue
        op.operation.walk(visit)
        if found:
            return found[0]
    return None


def terminator(block: ir.Block) -> ir.Operation:
    last = list(block.operations)[-1].operation
    if last.name not in TERMINATORS:
        raise RuntimeError(f"subgraph block ends with {last.name}, not a subgraph terminator")
    return last


def to_torch(b: TorchBuilder, value: ir.Value) -> ir.Value:
    """`value` as a `!torch.vtensor` (a builtin tensor of the ONNX dialect spelling is bridged)."""
    if not is_builtin_tensor(value.type):
        return value
    owner = value.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    if isinstance(owner, ir.Operation) and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
        source = owner.operands[0]
        if str(source.type).startswith("!torch.vtensor"):
            return source
    return b.op(UNREALIZED_CAST, to_vtensor_type(value.type), value)


def to_original_type(b: TorchBuilder, value: ir.Value, original: ir.Type) -> ir.Value:
    """A torch `value` as a value of the type `original` that its former users expect (a
    sequence as a `ListConstruct` of the original's list type, see `lists.py`)."""
    if lists.is_container(original):
        if tensor_info(value.type) is not None:  # a sequence carried as a stacked tensor (`stacked.py`)
            return b.op(UNREALIZED_CAST, original, value)
        return lists.as_argument(b, value, original)
    torch_type = to_vtensor_type(original) if is_builtin_tensor(original) else original
    value = fit_to_type(b, value, torch_type)
    if is_builtin_tensor(original):
        value = b.op(UNREALIZED_CAST, original, value)
    return value


def fit_to_type(b: TorchBuilder, value: ir.Value, target: ir.Type) -> ir.Value:
    """`value` retyped to `target`: a static info cast, or a reshape between [] and [1]."""
    if value.type == target:
        return value
    have, want = b.info(value), tensor_info(target)
    if have is not None and want is not None and have.rank is not None and want.rank is not None and have.rank != want.rank:
        value = b.reshape(value, [s if s is not None else -1 for s in want.sizes], want.sizes)
    return b.cast_to(value, target)


def yielded_values(b: TorchBuilder, block: ir.Block) -> list[ir.Value]:
    """The subgraph outputs as torch values (bridges created in front of the terminator)."""
    end = terminator(block)
    inner = TorchBuilder(end, b.location)
    return [to_torch(inner, value) for value in end.operands]


def block_builder(block: ir.Block, location: ir.Location) -> TorchBuilder:
    """A builder that creates ops at the start of `block` (in creation order)."""
    return TorchBuilder(list(block.operations)[0].operation, location)


def retype_arguments(block: ir.Block, new_types: Sequence[ir.Type], location: ir.Location,
                     replacement: Callable[[int, list, TorchBuilder], ir.Value | None]) -> list[ir.Value]:
    """Give `block` the arguments `new_types`; old argument i is replaced by
    `replacement(i, new_arguments, builder)` (a torch value, fitted to the old type), or
    must be unused when that returns None. Returns the new arguments."""
    old = list(block.arguments)
    new = [block.add_argument(t, location) for t in new_types]
    b = block_builder(block, location)
    for index, argument in enumerate(old):
        if not any(True for _ in argument.uses):
            continue
        value = replacement(index, new, b)
        if value is None:
            raise RuntimeError(f"subgraph argument {index} is used but has no replacement")
        argument.replace_all_uses_with(to_original_type(b, value, argument.type))
    for _ in old:
        block.erase_argument(0)
    return list(block.arguments)


def replace_terminator(block: ir.Block, name: str, operands: Sequence[ir.Value], location: ir.Location) -> None:
    terminator(block).erase()
    ir.Operation.create(name, operands=list(operands), loc=location, ip=ir.InsertionPoint(block))


def inline_block(b: TorchBuilder, block: ir.Block, arguments: Sequence[ir.Value],
                 resolve_lists: bool = False) -> list[ir.Value]:
    """A copy of `block`'s ops in front of the node, its arguments bound to the torch values
    `arguments`; returns the copy's outputs (torch values). The block itself is left as it was.
    With `resolve_lists` (a Loop unrolled), the body's list operations are resolved on the copy
    (`lists.resolve`); one left unresolved raises `lists.UnresolvedList`."""
    mapping: dict = {}
    for old, value in zip(block.arguments, arguments):
        mapping[old] = to_original_type(b, value, old.type)
    end = terminator(block)
    copies = []
    for op in block.operations:
        op = op.operation
        if op == end:
            break
        copy = op.clone(ip=ir.InsertionPoint(b.anchor))
        _remap_operands(copy, mapping)
        replacements = lists.resolve(b, copy) if resolve_lists else None
        if replacements is not None:
            copy.erase()
        else:
            copies.append(copy)
        for old, new in zip(op.results, replacements if replacements is not None else copy.results):
            mapping[old] = new
    if resolve_lists:
        lists.check_resolved(copies)
    return [to_torch(b, mapping.get(value, value)) for value in end.operands]


def _remap_operands(root: ir.Operation, mapping: dict) -> None:
    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        for index, operand in enumerate(op.operands):
            replacement = mapping.get(operand)
            if replacement is not None:
                op.operands[index] = replacement
        return ir.WalkResult.ADVANCE

    root.walk(visit)


def join_types(b: TorchBuilder, node: OnnxNode, types: Sequence[ir.Type | None], what: str, rank_hint: str = "") -> ir.Type:
    """The most static `!torch.vtensor` type all `types` fit (a dim that differs becomes `?`).

    Element types must agree; an unranked type takes the others' rank. `rank_hint` ends the
    error for different ranks (the way out, where there is one)."""
    infos = [tensor_info(to_vtensor_type(t) if is_builtin_tensor(t) else t) for t in types if t is not None]
    infos = [info for info in infos if info is not None]
    if not infos:
        node.fail(f"{what} is not a tensor")
    elements = {info.element for info in infos}
    if len(elements) != 1:
        node.fail(f"{what} has different element types ({', '.join(sorted(elements))})")
    ranked = [info for info in infos if info.rank is not None]
    if not ranked:
        node.fail(f"{what} needs a known rank")
    ranks = {info.rank for info in ranked}
    if len(ranks) != 1:
        node.fail(f"{what} has different ranks ({', '.join(map(str, sorted(ranks)))}), which torch cannot carry{rank_hint}")
    sizes = []
    for dim in range(ranked[0].rank):
        seen = {info.sizes[dim] for info in ranked}
        sizes.append(seen.pop() if len(seen) == 1 else None)
    return b.tensor_type(sizes, ranked[0].element)


def loop_carried_type(b: TorchBuilder, node: OnnxNode, index: int, init: ir.Value, argument: ir.Value,
                      output: ir.Value) -> ir.Type:
    """The type a loop carries value `index` in: the most static type its initial value and the
    body's input and output fit. The node's declared result only gives a rank none of those has:
    the loop's result is the initial value or a yield, and a dim the declaration leaves unknown (the
    TorchScript exporter's `Loopy_dim_0` for every carried dim) says nothing against them."""
    types = [value_type(init), argument.type, value_type(output)]
    infos = [tensor_info(to_vtensor_type(t) if is_builtin_tensor(t) else t) for t in types]
    if not any(info is not None and info.rank is not None for info in infos):
        types.append(node.op.results[index].type)
    return join_types(b, node, types, f"loop-carried value {index}")


def value_type(value: ir.Value) -> ir.Type:
    return to_vtensor_type(value.type) if is_builtin_tensor(value.type) else value.type


def literal_bool(value: ir.Value) -> bool | None:
    """True/False if `value` is a one-element boolean `torch.vtensor.literal` (seen through
    static info casts and bridges), else None."""
    while True:
        owner = value.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if not isinstance(owner, ir.Operation):
            return None
        if owner.name in (UNREALIZED_CAST, "torch.tensor_static_info_cast") and len(owner.operands) == 1:
            value = owner.operands[0]
            continue
        if owner.name != "torch.vtensor.literal":
            return None
        attribute = owner.attributes["value"]
        if not isinstance(attribute, ir.DenseElementsAttr):
            try:
                attribute = ir.DenseElementsAttr(attribute)
            except (ValueError, TypeError):
                return None
        info: TensorInfo | None = tensor_info(value.type)
        if info is None or not info.is_bool or not attribute.is_splat:
            return None
        return _splat_truth(attribute)


def _splat_truth(attribute: ir.DenseElementsAttr) -> bool | None:
    splat = attribute.get_splat_value()
    try:
        return bool(ir.IntegerAttr(splat).value)
    except (ValueError, TypeError):
        return None
