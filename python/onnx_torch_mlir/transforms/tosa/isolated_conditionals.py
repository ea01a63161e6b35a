"""`tosa.cond_if` branches isolated from above, as the TOSA specification wants.

MLIR's TOSA dialect lets the `then` and `else` regions of a `tosa.cond_if` read values defined
outside it (`transforms/torch/control_flow.py` moves an ONNX If's branches into the regions as
they are, reading the graph's values directly), but the TOSA specification has each region see only
its block arguments, which are the cond_if's `input_list` operands: tosa-validate refuses the op
("The 'then' region must be isolated from above") and the TOSA serializer cannot write it ("Failed to
build TosaSerializationOperator"). So each constant read inside is cloned into the region's entry
block, and every other value from outside becomes one more operand of the cond_if, read in both
regions through a new block argument. Conditionals nested in conditionals are isolated first, so
what they take in is, in turn, read from inside the outer one.

The same holds for `tosa.while_loop` (transforms/tosa/isolated_loops.py); either may run first, as
each turns its own region's outside reads into operands of the op, which the other then treats as
any read. It can go when torch-mlir's TOSA lowering of `scf.if`-like control flow (or our
`backend_control_flow`) builds isolated regions itself.

Runs after torch-mlir's TOSA pipeline (after `isolate_while_loops`).
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named
from .region_isolation import reads_from_outside, rewire_to_arguments, values_to_pass_in


def isolate_conditionals(module: ir.Module) -> None:
    """Isolate every `tosa.cond_if` of `module`, innermost first."""
    with module.context:
        for conditional in ops_named(module, {"tosa.cond_if"}):  # post-order: nested ones before their parents
            _isolate(conditional)


def _isolate(conditional: ir.Operation) -> None:
    reads = reads_from_outside(conditional)
    if not reads:
        return
    taken_in, passed_in = values_to_pass_in(conditional, reads)
    if not taken_in:
        return
    arguments = []
    for region in conditional.regions:
        block = region.blocks[0]
        arguments.append([block.add_argument(value.type, conditional.location) for value in taken_in])
    rewire_to_arguments(passed_in, arguments)
    # The operands are the condition then `input_list`; its block arguments are the new ones appended.
    new = ir.Operation.create("tosa.cond_if", results=[result.type for result in conditional.results],
                              operands=[*conditional.operands, *taken_in], regions=2, loc=conditional.location,
                              attributes={named.name: named.attr for named in conditional.attributes},
                              ip=ir.InsertionPoint(conditional))
    for index in range(2):
        conditional.regions[index].blocks[0].append_to(new.regions[index])
    for old, replacement in zip(conditional.results, new.results):
        old.replace_all_uses_with(replacement)
    conditional.erase()
