"""A loop-carried sequence that the body only appends to, carried as a stacked tensor.

`lists.py` unrolls a Loop that carries a sequence (torch-mlir lowers no list carried by a
`torch.prim.Loop`), which needs the number of iterations at conversion time. The recurrent
pattern of scripted PyTorch (`for step in range(x.size(0)): ...; states.append(h)`, then
`torch.stack(states)`) has a run-time trip count, but its sequence has a simpler form:

- in the body the sequence is only appended to (SequenceInsert without `position` or at its
  SequenceLength, that is `aten.append.t` of the body argument, yielded as the next sequence)
  with elements of one rank;
- it starts as a sequence built in the graph (SequenceEmpty, or elements of that rank);
- after the loop it is only read by ConcatFromSequence, SequenceAt and SequenceLength.

Such a sequence is carried as a [n, *element] tensor grown by one row per iteration
(`aten.cat`, the *grow* form of `rows.py`), in a while-like loop (IREE miscompiles an `scf.for`
whose carried tensor changes shape, see `rows.py`), on Linalg and StableHLO (TOSA's lowering takes
no concatenation of a run-time size: there the dims must be fixed with `--dim` so that the loop
unrolls). With element dims known only at run time the empty stack has 0 for them, and the first
iteration takes its row alone (a `torch.prim.If` on ONNX's iteration number, the *first-row* form
of `rows.py`; StableHLO's If conversion traces its condition back to the tensor). The elements
must then have the same dims in every iteration, as for a Loop's scan outputs (a sequence of
growing elements, like ONNX's test_loop13_seq, must not take this form: a reader that could see
elements of different shapes needs the dims it depends on static, see `_readers_needing_static_dims`).
Only a loop that cannot be unrolled (a run-time trip count or condition, or over the unroll limit)
takes this form: one of a known trip count is unrolled as before, each element of its own type.
After the loop the sequence is a bridge (`builtin.unrealized_conversion_cast`) from the stacked
tensor to the sequence's list type, which the sequence patterns read back as the stacked tensor
(see `sequences.py`); `finalize-torch-type-conversion` erases it once they have, and reports it
if anything else kept it.

A sequence that reaches a graph output, or that has any other use, keeps the unrolled form.
"""

from __future__ import annotations

from dataclasses import dataclass

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..types import defining_op, tensor_info
from . import lists
from .regions import terminator, to_torch

READERS = ("onnx.ConcatFromSequence", "onnx.SequenceAt", "onnx.SequenceLength")


@dataclass
class Appended:
    """Loop-carried sequence `index`, appended to by `append` (an `aten.append.t` of the body)."""
    index: int
    append: ir.Operation
    row: ir.Value
    initial_elements: list

    @property
    def stacked_type_sizes(self) -> list:
        return [None, *tensor_info(self.row.type).sizes]


def stackable_sequences(node: OnnxNode, block: ir.Block, inits) -> tuple[list[Appended], str | None]:
    """The loop-carried sequences to carry as stacked tensors, or ([], why not)."""
    _erase_dead_reads(block)
    found = []
    for index, init in enumerate(inits):
        argument = block.arguments[2 + index]
        if not lists.is_container(argument.type) and not lists.is_container(node.op.results[index].type):
            continue
        appended, reason = _appended(node, block, index, init)
        if reason is not None:
            return [], f"loop-carried sequence {index} {reason}"
        found.append(appended)
    others = [op for op in _list_operations(block) if not any(op == a.append for a in found)]
    if others:
        return [], f"its body has the list operation {others[0].name} besides appending to a loop-carried sequence"
    return found, None


_DEAD_IF_UNUSED = (lists.LENGTH, "torch.prim.NumToTensor.Scalar", lists.UNREALIZED_CAST, "torch.tensor_static_info_cast")


def _erase_dead_reads(block: ir.Block) -> None:
    """Erases the body's unused SequenceLength reads (an `aten.len.t` whose value fed only the
    position of a SequenceInsert at the end, which became an append), so they do not count as
    list operations."""
    erased = True
    while erased:
        erased = False
        for op in reversed(list(block.operations)):
            op = op.operation
            if op.name in _DEAD_IF_UNUSED and not any(True for result in op.results for _ in result.uses):
                op.erase()
                erased = True


def _appended(node: OnnxNode, block: ir.Block, index: int, init: ir.Value) -> tuple[Appended | None, str | None]:
    users = _users_after_loop(node, index)
    if users is not None:
        return None, users
    construct = lists.list_construct(init)
    if construct is None:
        return None, "does not start as a sequence built in the graph"
    argument = block.arguments[2 + index]
    uses = _uses_through_bridges(argument)
    if len(uses) != 1 or uses[0][0].name != lists.APPEND or uses[0][1] != 0:
        return None, "is used in the body otherwise than by one SequenceInsert at its end"
    append = uses[0][0]
    yielded = _uses_through_bridges(append.results[0])
    end = terminator(block)
    if len(yielded) != 1 or yielded[0][0] != end or yielded[0][1] != 1 + index:
        return None, "is appended to, but the body uses the appended sequence otherwise than as the next one"
    row = _most_static(append.operands[1])
    info = tensor_info(row.type)
    if info is None or info.sizes is None:
        return None, "has elements of unknown rank"
    elements = list(construct.operands)
    for element in elements:
        element_info = tensor_info(element.type)
        if element_info is None or element_info.rank != info.rank or element_info.element != info.element:
            return None, "starts with elements of another rank or element type than it is appended"
        if any(have is not None and want is not None and have != want
               for have, want in zip(element_info.sizes, info.sizes)):
            return None, "starts with elements of another shape than it is appended"
    varying = _readers_needing_static_dims(node, index, info.sizes)
    if varying is not None:
        return None, varying
    return Appended(index, append, row, elements), None


def _readers_needing_static_dims(node: OnnxNode, index: int, sizes: list) -> str | None:
    """Why a reader after the loop could see elements whose shapes differ between iterations, or
    None. The stack holds rows of one shape, and the body's types cannot tell whether a run-time
    dim changes from one iteration to the next (ONNX's test_loop13_seq appends x[:i+1]). ONNX
    requires the elements that ConcatFromSequence stacks (new_axis=1) to have one shape, and those
    it concatenates (new_axis=0) to agree except along `axis`: such readers vouch for those dims.
    Every other dim a reader depends on (all of them for SequenceAt, `axis` for a concatenation)
    must be static or vouched for by another reader."""
    rank = len(sizes)
    needs, vouched = [], {dim for dim in range(rank) if sizes[dim] is not None}
    for user in _users(node.op.results[index]):
        name = ir.StringAttr(user.attributes["name"]).value
        if name == "onnx.SequenceAt":
            needs.append((name, set(range(rank))))
        elif name == "onnx.ConcatFromSequence" and _int_attribute(user, "new_axis", 0) == 1:
            vouched |= set(range(rank))
        elif name == "onnx.ConcatFromSequence":
            axis = _int_attribute(user, "axis", 0) % max(rank, 1)
            vouched |= set(range(rank)) - {axis}
            needs.append((name, {axis}))
    for name, dims in needs:
        varying = sorted(dims - vouched)
        if varying:
            return (f"is read by {name[5:]} after the loop, and dim {varying[0]} of its elements is only known at "
                    "run time, so it may change from one iteration to the next (which one stacked tensor cannot hold)")
    return None


def _users(value: ir.Value) -> list[ir.Operation]:
    return [use.owner.operation if hasattr(use.owner, "operation") else use.owner for use in value.uses]


def _int_attribute(op: ir.Operation, name: str, default: int) -> int:
    key = f"torch.onnx.{name}"
    return ir.IntegerAttr(op.attributes[key]).value if key in op.attributes else default


def _users_after_loop(node: OnnxNode, index: int) -> str | None:
    """Why Loop output `index` cannot be read as a stacked tensor, or None if it can."""
    for use in node.op.results[index].uses:
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        name = user.name
        if name == "torch.operator":
            name = ir.StringAttr(user.attributes["name"]).value
        if name in ("func.return", "onnx.Return"):
            return "reaches a graph output"
        if name not in READERS or use.operand_number != 0:
            return f"is used after the loop by {name} (only {', '.join(r[5:] for r in READERS)} read a stacked sequence)"
    return None


def _uses_through_bridges(value: ir.Value) -> list[tuple[ir.Operation, int]]:
    """(user, operand number) of `value`, seeing through the ONNX dialect's bridges."""
    found = []
    for use in value.uses:
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        if user.name == lists.UNREALIZED_CAST and len(user.operands) == 1:
            found += _uses_through_bridges(user.results[0])
        else:
            found.append((user, use.operand_number))
    return found


def _most_static(value: ir.Value) -> ir.Value:
    """`value` before the static info casts that made it a list element."""
    owner = defining_op(value)
    while owner is not None and owner.name == "torch.tensor_static_info_cast":
        value = owner.operands[0]
        owner = defining_op(value)
    return value


def _list_operations(block: ir.Block) -> list[ir.Operation]:
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name in lists.LIST_OPERATIONS:
            found.append(op)
        return ir.WalkResult.ADVANCE

    for op in block.operations:
        op.operation.walk(visit)
    return found


def carry_stacked(b: TorchBuilder, block: ir.Block, appended: Appended) -> ir.Value:
    """Rewrites the body so that it grows a stacked tensor instead of appending to the list;
    returns the stacked tensor the loop starts from."""
    info = tensor_info(appended.row.type)
    stacked_type = b.tensor_type(appended.stacked_type_sizes, info.element)
    argument = block.arguments[2 + appended.index]
    append = appended.append
    inner = TorchBuilder(append, b.location)
    buffer = inner.op(lists.UNREALIZED_CAST, stacked_type, argument)
    grown = grow(inner, buffer, appended.row, block.arguments[0], first_row=not appended.initial_elements)
    terminator(block).operands[1 + appended.index] = grown
    _erase_with_bridges(append)
    for use in list(argument.uses):
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        if user.name == lists.UNREALIZED_CAST and user != defining_op(buffer) and not any(True for _ in user.results[0].uses):
            user.erase()
    return initial_stack(b, appended, stacked_type)


def _erase_with_bridges(op: ir.Operation) -> None:
    """Erases `op` (whose results are dead but for bridges) and the bridges after it; then the
    bridges before it that no one else uses."""
    for result in op.results:
        for use in list(result.uses):
            user = use.owner
            _erase_with_bridges(user.operation if hasattr(user, "operation") else user)
    operands = list(op.operands)
    op.erase()
    for operand in operands:
        producer = defining_op(operand)
        if producer is not None and producer.name == lists.UNREALIZED_CAST and not any(True for _ in operand.uses):
            producer.erase()


def grow(b: TorchBuilder, buffer: ir.Value, row: ir.Value, iteration: ir.Value, first_row: bool) -> ir.Value:
    """`buffer` [n, *element] with `row` appended (`aten.cat` along dim 0). With run-time element
    dims and an empty initial stack (`first_row`), the first iteration (`iteration`, ONNX's [] si64
    iteration number, is 0) takes the row alone instead (a `torch.prim.If`): the empty stack has 0
    for those dims, not the row's."""
    piece = b.cast_to(b.unsqueeze(row, 0), buffer.type)
    if not first_row or None not in b.info(row).sizes:
        return b.op("aten.cat", buffer.type, b.tensor_list([buffer, piece]), b.constant_int(0))
    first = b.op("aten.eq.Scalar", b.tensor_type([], "i1"), to_torch(b, iteration), b.constant_int(0))
    choice = ir.Operation.create("torch.prim.If", results=[buffer.type], operands=[_truth(b, first)], regions=2,
                                 loc=b.location, ip=ir.InsertionPoint(b.anchor))
    then_block, else_block = choice.regions[0].blocks.append(), choice.regions[1].blocks.append()
    ir.Operation.create("torch.prim.If.yield", operands=[piece], loc=b.location, ip=ir.InsertionPoint(then_block))
    end = ir.Operation.create("torch.prim.If.yield", operands=[buffer], loc=b.location, ip=ir.InsertionPoint(else_block))
    inner = TorchBuilder(end, b.location)
    end.operands[0] = inner.op("aten.cat", buffer.type, inner.tensor_list([buffer, piece]), inner.constant_int(0))
    return choice.result


def _truth(b: TorchBuilder, flag: ir.Value) -> ir.Value:
    """A [] i1 tensor as a `!torch.bool` (the form the backends' If conversion traces back)."""
    return b.op("aten.Bool.int", b.type("!torch.bool"), b.item(flag))


def initial_stack(b: TorchBuilder, appended: Appended, stacked_type: ir.Type) -> ir.Value:
    """The stacked tensor of the initial elements; an empty one is [0, *element] with 1 for each
    run-time element dim (broadcast to the first row's size by `grow`)."""
    info = tensor_info(stacked_type)
    if not appended.initial_elements:
        sizes = [0, *(0 if size is None else size for size in info.sizes[1:])]
        return b.cast_to(b.full(sizes, 0, info.element), stacked_type)
    row_type = b.tensor_type(info.sizes[1:], info.element)
    elements = [b.cast_to(e, row_type) for e in appended.initial_elements]
    stacked = b.op("aten.stack", b.tensor_type([len(elements), *info.sizes[1:]], info.element),
                   b.tensor_list(elements), b.constant_int(0))
    return b.cast_to(stacked, stacked_type)


def as_sequence(node: OnnxNode, b: TorchBuilder, index: int, stacked: ir.Value) -> ir.Value:
    """Loop output `index` from its stacked tensor: the bridge the sequence patterns read."""
    return b.op(lists.UNREALIZED_CAST, node.result_container_type(index), stacked)
