"""The time loop of a recurrent layer for StableHLO when the sequence length is only known at run time.

StableHLO's loop (`stablehlo.while`, made from a `torch.prim.Loop` by
`transforms/torch/control_flow.py`) carries tensors only, and torch-mlir's StableHLO lowering
takes no `aten.item`, so this loop computes no scalar: the step number is a [] si64 tensor
carried with the states, the step's input row is `aten.index_select` at it, the loop goes on
while the next step number is in [0, T) (T from `aten.size.int` of X, before the loop), and
Y is grown by one [1, B, H] row per step (`aten.cat`, in front for the reverse direction,
which walks from T-1 down), instead of the Linalg loop's `aten.slice_scatter` at a `!torch.int`.
The `torch.prim.Loop` is while-like: its trip count is "unbounded", the condition is
`aten.Bool.int(aten.item(t))` of a tensor `t` (which that pass traces back to `t`).
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder

INT64_MAX = 2**63 - 1


def run_tensor_loop(layer, direction: int, projection: ir.Value, initial_states: tuple, step, want_y: bool):
    """One direction over the sequence: (Y [T, B, H] or None, final states), as `_run_loop` of
    `sequence.RecurrentLayer` returns them."""
    b = layer.b
    forward = layer.directions[direction] == "forward"
    counter_type, flag_type = b.tensor_type([], "si64"), b.tensor_type([], "i1")
    steps = b.op("prim.NumToTensor.Scalar", counter_type, b.dim_value(layer.steps))
    first = (b.scalar_tensor_literal(0, "si64") if forward
             else b.op("aten.sub.Scalar", counter_type, steps, b.constant_int(1), b.constant_int(1)))
    carried = [*initial_states]
    batch = layer.batch if isinstance(layer.batch, int) else None
    y_type = b.tensor_type([None, batch, layer.hidden], layer.element)
    if want_y:
        carried.append(b.cast_to(b.full([0, layer.batch, layer.hidden], 0.0, layer.element), y_type))
    carried.append(first)
    loop = ir.Operation.create(
        "torch.prim.Loop", results=[value.type for value in carried],
        operands=[b.constant_int(INT64_MAX), _truth(b, _in_range(b, first, steps, flag_type)), *carried],
        regions=1, loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    types = [b.type("!torch.int")] + [value.type for value in carried]
    body = loop.regions[0].blocks.append(*types, arg_locs=[b.location] * len(types))
    arguments = list(body.arguments[1:])
    condition = ir.Operation.create("torch.prim.Loop.condition", operands=[arguments[-1], *arguments],
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
        piece = inner.cast_to(inner.unsqueeze(output, 0), y_type)
        pieces = [arguments[-2], piece] if forward else [piece, arguments[-2]]
        yielded.append(inner.op("aten.cat", y_type, inner.tensor_list(pieces), inner.constant_int(0)))
    following = inner.op("aten.add.Scalar" if forward else "aten.sub.Scalar", counter_type, t,
                         inner.constant_int(1), inner.constant_int(1))
    yielded.append(following)
    condition.operands[0] = _truth(inner, _in_range(inner, following, steps, flag_type))
    for position, value in enumerate(yielded):
        condition.operands[position + 1] = value
    results = list(loop.results)
    y = results[len(initial_states)] if want_y else None
    if y is not None:
        y = b.cast_to(y, b.tensor_type([layer.steps if isinstance(layer.steps, int) else None, batch,
                                        layer.hidden], layer.element))
    return y, tuple(results[: len(initial_states)])


def _in_range(b: TorchBuilder, t: ir.Value, steps: ir.Value, flag_type: ir.Type) -> ir.Value:
    """0 <= t < steps, as a [] i1 tensor."""
    zero = b.scalar_tensor_literal(0, "si64")
    return b.op("aten.logical_and", flag_type, b.op("aten.ge.Tensor", flag_type, t, zero),
                b.op("aten.lt.Tensor", flag_type, t, steps))


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


def _truth(b: TorchBuilder, flag: ir.Value) -> ir.Value:
    return b.op("aten.Bool.int", b.type("!torch.bool"), b.item(flag))
