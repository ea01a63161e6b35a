"""`tosa.while_loop` bodies isolated from above, as the TOSA specification wants.

MLIR's TOSA dialect lets the condition and body regions of a `tosa.while_loop` read values defined
outside the loop (a graph input a Loop body reads, a constant CSE shared with the function), but the
TOSA specification has each region see only its block arguments: tosa-validate refuses the loop
("requires the 'body' region is isolated from above"). So after the lowering each constant read
inside is cloned into the region's entry block, and every other value from outside becomes one more
loop-carried value, passed through unchanged by the body. Loops nested in loops are isolated first,
so what they carry in is, in turn, read from inside the outer loop.
"""

from __future__ import annotations

from torch_mlir import ir

from ..torch.rewriting import as_operation, ops_named
from .region_isolation import reads_from_outside, rewire_to_arguments, values_to_pass_in


def isolate_while_loops(module: ir.Module) -> int:
    """Isolate every `tosa.while_loop` of `module`; the count of loops changed."""
    changed = 0
    with module.context:
        for loop in ops_named(module, {"tosa.while_loop"}):  # post-order: nested loops before their parents
            changed += _isolate(as_operation(loop))
    return changed


def _isolate(loop: ir.Operation) -> int:
    reads = reads_from_outside(loop)
    if not reads:
        return 0
    carried, passed_in = values_to_pass_in(loop, reads)
    if carried:
        _carry(loop, carried, passed_in)
    return 1


def _carry(loop: ir.Operation, carried: list[ir.Value], passed_in) -> None:
    """`loop` rebuilt with `carried` as extra loop-carried values, read inside through block arguments."""
    count = len(loop.results)
    new = ir.Operation.create("tosa.while_loop", results=[*(r.type for r in loop.results), *(v.type for v in carried)],
                              operands=[*loop.operands, *carried], regions=2, loc=loop.location,
                              ip=ir.InsertionPoint(loop))
    arguments = []
    for index in range(2):
        block = loop.regions[index].blocks[0]
        block.append_to(new.regions[index])
        arguments.append([block.add_argument(value.type, loop.location) for value in carried])
    rewire_to_arguments(passed_in, arguments)
    body = new.regions[1].blocks[0]
    terminator = as_operation(body.operations[len(body.operations) - 1])
    ir.Operation.create("tosa.yield", operands=[*terminator.operands, *arguments[1]], loc=terminator.location,
                        ip=ir.InsertionPoint(terminator))
    terminator.erase()
    for old, replacement in zip(loop.results, list(new.results)[:count]):
        old.replace_all_uses_with(replacement)
    loop.erase()
