"""The time loop of a recurrent layer for StableHLO when the sequence length is only known at run time.

StableHLO's loop (`stablehlo.while`, made from a `torch.prim.Loop` by
`transforms/torch/control_flow.py`) carries tensors only, and torch-mlir's StableHLO lowering
takes no `aten.item`, so this loop computes no scalar: the step number is a [] si64 tensor
carried with the states (from T-1 down for the reverse direction), the step's input row is
`aten.index_select` at it, and Y is a [T, B, H] buffer that each step writes one row of
(`aten.index_put` at the step number), instead of the Linalg loop's `aten.slice_scatter` at a
`!torch.int`. The `torch.prim.Loop` is for-like: its trip count is T (`aten.size.int` of X,
before the loop) and its conditions the constant true, which that pass makes the counting
`stablehlo.while` (a counter compared with T in the condition region, no carried flag).

That is the form IREE compiles. IREE (3.13) raises such a counting `stablehlo.while` to an
`scf.for`; any other while loop stays an `scf.while`, which IREE's stream conversion fails on
("failed to legalize unresolved target materialization from ('index') to
('!stream.resource<*>', 'index')", or a verifier error on the `scf.while`) when a carried tensor
has a run-time dim that the body computes from a value outside the loop and that is a different
SSA value than the initial value's dim (the states' batch dim: X's in the body, the initial
state input's before the loop; `test_iree_loop_forms.py` keeps the reproducer). And on its
`scf.for` a carried tensor must keep its shape: a Y grown by `aten.cat` came back as the empty
initial tensor (the same miscompile `control_flow/rows.py` notes), so Y is a buffer of its final
size.
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder


def run_tensor_loop(layer, direction: int, projection: ir.Value, initial_states: tuple, step, want_y: bool):
    """One direction over the sequence: (Y [T, B, H] or None, final states), as `_run_loop` of
    `sequence.RecurrentLayer` returns them."""
    b = layer.b
    forward = layer.directions[direction] == "forward"
    counter_type = b.tensor_type([], "si64")
    steps = b.op("prim.NumToTensor.Scalar", counter_type, b.dim_value(layer.steps))
    first = (b.scalar_tensor_literal(0, "si64") if forward
             else b.op("aten.sub.Scalar", counter_type, steps, b.constant_int(1), b.constant_int(1)))
    carried = [*initial_states]
    batch = layer.batch if isinstance(layer.batch, int) else None
    steps_size = layer.steps if isinstance(layer.steps, int) else None
    y_type = b.tensor_type([steps_size, batch, layer.hidden], layer.element)
    if want_y:
        carried.append(b.cast_to(b.full([layer.steps, layer.batch, layer.hidden], 0.0, layer.element), y_type))
    carried.append(first)
    true = b.constant_bool(True)
    loop = ir.Operation.create(
        "torch.prim.Loop", results=[value.type for value in carried],
        operands=[b.dim_value(layer.steps), true, *carried],
        regions=1, loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    types = [b.type("!torch.int")] + [value.type for value in carried]
    body = loop.regions[0].blocks.append(*types, arg_locs=[b.location] * len(types))
    arguments = list(body.arguments[1:])
    condition = ir.Operation.create("torch.prim.Loop.condition", operands=[true, *arguments],
                                    loc=b.location, ip=ir.InsertionPoint(body))
    inner = TorchBuilder(condition, b.location)
    t = arguments[-1]
    old_states = tuple(arguments[: len(initial_states)])
    projected = _row(inner, projection, t)
    new_states = tuple(inner.cast_to(new, old.type)
                       for new, old in zip(step(inner, direction, projected, old_states, t), old_states))
    output, states = _masked(layer, inner, t, new_states, old_states)
    yielded = list(states)
    if want_y:
        yielded.append(_write_row(inner, arguments[-2], output, t))
    yielded.append(inner.op("aten.add.Scalar" if forward else "aten.sub.Scalar", counter_type, t,
                            inner.constant_int(1), inner.constant_int(1)))
    for position, value in enumerate(yielded):
        condition.operands[position + 1] = value
    results = list(loop.results)
    y = results[len(initial_states)] if want_y else None
    return y, tuple(results[: len(initial_states)])


def _write_row(b: TorchBuilder, buffer: ir.Value, row: ir.Value, t: ir.Value) -> ir.Value:
    """buffer[t] = row, `t` a [] si64 tensor (`aten.index_put` with one index tensor [1])."""
    return b.op("aten.index_put.hacked_twin", buffer.type, buffer, b.tensor_list([b.unsqueeze(t, 0)]),
                b.unsqueeze(row, 0), b.constant_bool(False))


def _row(b: TorchBuilder, value: ir.Value, t: ir.Value) -> ir.Value:
    """value[t] along dim 0, `t` a [] si64 tensor (`aten.index_select`, then the dim dropped)."""
    info = b.info(value)
    index = b.unsqueeze(t, 0)
    picked = b.op("aten.index_select", b.tensor_type([1, *info.sizes[1:]], info.element), value,
                  b.constant_int(0), index)
    return b.op("aten.squeeze.dim", b.tensor_type(info.sizes[1:], info.element), picked, b.constant_int(0))


def _masked(layer, b: TorchBuilder, t: ir.Value, new_states: tuple, old_states: tuple):
    """(output, states) of a step: entries whose length is <= t keep their state and output 0
    (`sequence.RecurrentLayer._masked` with `t` a tensor)."""
    if layer.lengths is None:
        return new_states[0], new_states
    lengths_info = b.info(layer.lengths)
    valid = b.op("aten.gt.Tensor", b.tensor_type(lengths_info.sizes, "i1"), layer.lengths, t)
    valid = b.unsqueeze(valid, 1)
    states = tuple(b.op("aten.where.self", old.type, valid, new, old) for new, old in zip(new_states, old_states))
    output = b.op("aten.where.ScalarOther", old_states[0].type, valid, new_states[0], b.constant_float(0.0))
    return output, states

