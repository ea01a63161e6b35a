"""Linalg-on-tensors while loops as a guarded do-while, for IREE.

torch-mlir lowers every while-like `torch.prim.Loop` (`convert-torch-to-scf`) to an `scf.while`
whose "before" region only tests the loop's condition, an `i1` argument, and hands the other
arguments to the "after" region, the body:

    %r = scf.while (%c = %init, %t = %x) : (i1, T) -> T {
      scf.condition(%c) %t : T
    } do {
    ^bb0(%t: T):
      ...body...
      scf.yield %next_c, %next_t : i1, T
    }

IREE's `iree-stream-conversion` (IREE 3.13.0rc20261016) gives the after region the before region's
argument types, position by position: here the tensor `%t` is materialized from the `i1` and the
conversion fails ("failed to legalize unresolved target materialization from ('i1') to
('!stream.resource<*>', 'index')"; reproducer in docs/models.md, scripted-loop-torchscript).
Forwarding the condition too (`scf.condition(%c) %c, %t`, so that both regions take `(i1, T)`) is
not enough: IREE's canonicalizer, run before the stream conversion, finds the forwarded `i1` unused
in the after region and drops it again (measured: the loop reaches `iree-stream-conversion` in its
original form). IREE converts the loop where its loop-invariant code motion first rotates it to a
do-while, so that is the form written here:

    %r = scf.if %init -> T {
      %w = scf.while (%t = %x) : (T) -> T {
        ...body...
        scf.condition(%next_c) %next_t : T
      } do {
      ^bb0(%t: T):
        scf.yield %t : T
      }
      scf.yield %w : T
    } else {
      scf.yield %x : T
    }

Both regions of the new loop take the same types, and no canonicalization undoes it. The values
computed are the same: the body runs while the condition holds, first tested before any iteration.
Only loops of exactly the form above are rewritten (a before region that tests one of its
arguments and forwards all the others, in order).
"""

from __future__ import annotations

from torch_mlir import ir

from ...ir_walk import ops_named


def rotate_while_loops(module: ir.Module) -> int:
    """Rewrite each `scf.while` of torch-mlir's while-loop form (module docstring) as a guarded
    do-while; the count rewritten."""
    rewritten = 0
    with module.context:
        for loop in ops_named(module, {"scf.while"}):  # post-order: inner loops first
            position = _tested_argument_position(loop)
            if position is not None:
                _rotate(loop, position)
                rewritten += 1
    return rewritten


def _last_operation(block: ir.Block) -> ir.Operation:
    return block.operations[len(block.operations) - 1].operation


def _tested_argument_position(loop: ir.Operation) -> int | None:
    """The position of the before-region argument the loop tests, when the before region is just
    `scf.condition(%arg_p) <the other arguments, in order>`; else None."""
    before = loop.regions[0].blocks[0]
    if len(before.operations) != 1:
        return None
    condition_op = _last_operation(before)
    condition, forwarded = condition_op.operands[0], list(condition_op.operands)[1:]
    if not isinstance(condition, ir.BlockArgument) or condition.owner != before:
        return None
    position = condition.arg_number
    others = [argument for index, argument in enumerate(before.arguments) if index != position]
    if len(forwarded) != len(others) or any(value != argument for value, argument in zip(forwarded, others)):
        return None
    return position


def _rotate(loop: ir.Operation, position: int) -> None:
    """Replace `loop` by `scf.if %init { do { body } while (next condition) } else { initial values }`."""
    location = loop.location
    initial = list(loop.operands)
    initial_condition = initial.pop(position)
    types = [result.type for result in loop.results]
    guard = ir.Operation.create("scf.if", results=types, operands=[initial_condition], regions=2, loc=location,
                                ip=ir.InsertionPoint(loop))
    then_block = ir.Block.create_at_start(guard.regions[0], [])
    do_while = ir.Operation.create("scf.while", results=types, operands=initial, regions=2, loc=location,
                                   ip=ir.InsertionPoint(then_block))
    _move_body_into_before_region(loop.regions[1].blocks[0], do_while, types, position)
    forward = ir.Block.create_at_start(do_while.regions[1], types, [location] * len(types))
    _yield(list(forward.arguments), forward, location)
    _yield(list(do_while.results), then_block, location)
    _yield(initial, ir.Block.create_at_start(guard.regions[1], []), location)
    for old, new in zip(loop.results, guard.results):
        old.replace_all_uses_with(new)
    loop.erase()


def _move_body_into_before_region(body: ir.Block, do_while: ir.Operation, types: list, position: int) -> None:
    """The old after region's ops, moved into the new loop's before region, whose terminator becomes
    `scf.condition` of the next condition (the `scf.yield` operand at `position`)."""
    location = do_while.location
    before = ir.Block.create_at_start(do_while.regions[0], types, [location] * len(types))
    for old, new in zip(list(body.arguments), list(before.arguments)):
        old.replace_all_uses_with(new)
    for operation in list(body.operations):
        before.append(operation.operation)
    old_yield = _last_operation(before)
    values = list(old_yield.operands)
    next_condition = values.pop(position)
    ir.Operation.create("scf.condition", operands=[next_condition, *values], loc=old_yield.location,
                        ip=ir.InsertionPoint(old_yield))
    old_yield.erase()


def _yield(values: list, block: ir.Block, location: ir.Location) -> None:
    ir.Operation.create("scf.yield", operands=values, loc=location, ip=ir.InsertionPoint(block))
