"""What `tosa.cond_if` and `tosa.while_loop` share when their regions are isolated from above.

The TOSA specification has a control-flow op's regions see only their block arguments. Both
isolation steps (isolated_conditionals.py, isolated_loops.py) find the reads of outside values, clone
constants into the region that reads them, and pass every other value in as one more operand; only
how the op is rebuilt with those operands differs, and that stays in each step.
"""

from __future__ import annotations

from torch_mlir import ir

from ..torch.rewriting import as_operation

_CONSTANTS = ("tosa.const", "tosa.const_shape", "arith.constant")


def _inside(value: ir.Value, container: ir.Operation) -> bool:
    owner = value.owner
    operation = as_operation(owner.owner) if isinstance(owner, ir.Block) else as_operation(owner)
    while operation is not None:
        if operation == container:
            return True
        parent = operation.parent
        operation = as_operation(parent) if parent is not None else None
    return False


def reads_from_outside(container: ir.Operation) -> list[tuple[ir.Operation, int, int]]:
    """(reader, operand number, region index) of every operand of an op inside `container` defined outside."""
    found = []
    for index, region in enumerate(container.regions):
        def collect(operation: ir.Operation, index=index) -> ir.WalkResult:
            for number, operand in enumerate(operation.operands):
                if not _inside(operand, container):
                    found.append((operation, number, index))
            return ir.WalkResult.ADVANCE

        for block in region.blocks:
            for operation in block.operations:
                as_operation(operation).walk(collect)
    return found


def values_to_pass_in(container: ir.Operation, reads) -> tuple[list[ir.Value], list[tuple]]:
    """Constants among `reads` cloned into the reading region's entry block (the reads rewired to the
    clones); the other values, each once, with (reader, operand number, region index, position among
    them) for every read that must be rewired to a new block argument."""
    taken_in: list[ir.Value] = []
    passed_in = []
    clones: dict = {}
    for reader, number, index in reads:
        value = reader.operands[number]
        producer = None if isinstance(value.owner, ir.Block) else as_operation(value.owner)
        if producer is not None and producer.name in _CONSTANTS:
            key = (index, producer)
            if key not in clones:
                block = container.regions[index].blocks[0]
                clones[key] = producer.clone(ip=ir.InsertionPoint.at_block_begin(block)).results[0]
            reader.operands[number] = clones[key]
            continue
        position = next((k for k, kept in enumerate(taken_in) if kept == value), None)
        if position is None:
            position = len(taken_in)
            taken_in.append(value)
        passed_in.append((reader, number, index, position))
    return taken_in, passed_in


def rewire_to_arguments(passed_in, arguments: list[list[ir.Value]]) -> None:
    """Each read of `passed_in` reads its region's new block argument instead."""
    for reader, number, index, position in passed_in:
        reader.operands[number] = arguments[index][position]
