"""Scan: a `torch.prim.Loop` over the scan axis (on TOSA and StableHLO unrolled when its length is
known and small, else the tensor-only while loop of `tensor_loops.py`).

Scan-9 and later: inputs are N initial states then M scan inputs; each iteration t gives the body
the states and slice t of every scan input along its axis (`scan_input_axes`, counted from the
end when negative, from Scan-11), walked backwards where `scan_input_directions` is 1; the body
yields the new states and K per-iteration values, stacked along `scan_output_axes` (written
from the end where `scan_output_directions` is 1). The loop is for-like over the scan length;
each scan output is a [length, ...] buffer written row by row (`aten.slice_scatter`), moved to
its axis after the loop.

Scan-8 has a batch axis 0 on every input and output and an optional `sequence_lens`; the body
sees one batch entry. It is an outer loop over the batch around the Scan-9 form (scan axis 1
of the batched inputs, `directions` per scan input, outputs along axis 1). `sequence_lens` is
supported only when it is absent or a literal equal to the scan length everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import LOOPLESS_TARGETS, OnnxNode
from ..registry import converts
from ..types import tensor_info
from .loops import UNROLL_LIMIT, opaque_bool, row_type, stack, write_row
from .rows import RowCollector
from .tensor_loops import INT64_MAX, truth
from .regions import (
    fit_to_type,
    inline_block,
    join_types,
    region_block,
    replace_terminator,
    retype_arguments,
    terminator,
    value_type,
    yielded_values,
)



@converts("Scan", since=9)
def scan(node: OnnxNode, b: TorchBuilder):
    """states, scan_outputs = for t in scan length: states, rows_t = body(states, inputs[t])."""
    block = region_block(node, 0)
    scan_inputs = node.attr_int("num_scan_inputs")
    state_count = node.num_inputs - scan_inputs
    output_count = node.num_results - state_count
    _check_counts(node, block, state_count, scan_inputs, output_count)
    states = [node.input(i) for i in range(state_count)]
    inputs = [node.input(state_count + j) for j in range(scan_inputs)]
    input_axes = [
        node.axis(axis, node.rank(state_count + j), "scan_input_axes")
        for j, axis in enumerate(node.attr_ints("scan_input_axes", None) or [0] * scan_inputs)
    ]
    output_axes = [
        node.axis(axis, _output_rank(node, block, state_count + k), "scan_output_axes")
        for k, axis in enumerate(node.attr_ints("scan_output_axes", None) or [0] * output_count)
    ]
    spec = ScanSpec(
        input_axes, node.attr_ints("scan_input_directions", None) or [0] * scan_inputs,
        output_axes, node.attr_ints("scan_output_directions", None) or [0] * output_count,
    )
    return run_scan(node, b, block, states, inputs, spec, node.target in LOOPLESS_TARGETS)


@converts("Scan", since=8)
def scan_with_batch(node: OnnxNode, b: TorchBuilder):
    """Scan-8: inputs [batch, length, ...], states [batch, ...]; the body sees one batch entry."""
    block = region_block(node, 0)
    scan_inputs = node.attr_int("num_scan_inputs")
    state_count = node.num_inputs - 1 - scan_inputs
    output_count = node.num_results - state_count
    _check_counts(node, block, state_count, scan_inputs, output_count)
    states = [node.input(1 + i) for i in range(state_count)]
    inputs = [node.input(1 + state_count + j) for j in range(scan_inputs)]
    for j in range(scan_inputs):
        if node.rank(1 + state_count + j) < 2:
            node.fail(f"scan input {j} needs a batch and a sequence axis")
    length = b.dim(inputs[0], 1)
    _check_sequence_lens(node, length)
    spec = ScanSpec([0] * scan_inputs, node.attr_ints("directions", None) or [0] * scan_inputs,
                    [0] * output_count, [0] * output_count, batched=True)
    batch = b.dim(inputs[0], 0)
    if node.target in LOOPLESS_TARGETS or batch == 1:
        if not isinstance(batch, int):
            node.fail(f"on {node.target} Scan-8 is unrolled over the batch, which needs a static batch size")
        entries = [run_scan(node, b, block, [_select(b, s, 0, n) for s in states],
                            [_select(b, x, 0, n) for x in inputs], spec, node.target in LOOPLESS_TARGETS)
                   for n in range(batch)]
        return [stack(b, [entry[i] for entry in entries], 0) for i in range(node.num_results)]
    return _batch_loop(node, b, block, states, inputs, spec, batch)


class ScanSpec:
    """Axes and directions of the scan inputs and outputs; `batched`: Scan-8's outputs have a
    batch axis 0 in front of the scan axis."""

    def __init__(self, input_axes, input_directions, output_axes, output_directions, batched=False):
        self.input_axes, self.input_directions = list(input_axes), list(input_directions)
        self.output_axes, self.output_directions = list(output_axes), list(output_directions)
        self.batched = batched


def _check_counts(node: OnnxNode, block: ir.Block, state_count: int, scan_inputs: int, output_count: int) -> None:
    arguments, yields = len(block.arguments), len(terminator(block).operands)
    if state_count < 0 or output_count < 0 or arguments != state_count + scan_inputs or yields != state_count + output_count:
        node.fail(f"the body has {arguments} inputs and {yields} outputs for {state_count} states, {scan_inputs} "
                  f"scan inputs and {output_count} scan outputs")
    if scan_inputs < 1:
        node.fail("num_scan_inputs must be at least 1")
    for index in range(node.num_results):
        if tensor_info(node.op.results[index].type) is None:
            node.fail(f"output {index} has type {node.op.results[index].type}: only tensors are supported")


def _check_sequence_lens(node: OnnxNode, length) -> None:
    if not node.has_input(0):
        return
    lengths = node.constant_input(0)
    if lengths is None or not isinstance(length, int) or any(int(v) != length for v in lengths.reshape(-1)):
        node.fail("sequence_lens is supported only when absent or a literal equal to the scan length for every entry")


def _output_rank(node: OnnxNode, block: ir.Block, index: int) -> int:
    """The rank of Scan output `index` (the body's per-iteration rank + 1)."""
    info = tensor_info(value_type(terminator(block).operands[index]))
    if info is not None and info.rank is not None:
        return info.rank + 1
    declared = node.result_info(index)
    if declared.rank is None:
        node.fail(f"scan output {index} needs a known rank")
    return declared.rank


def _select(b: TorchBuilder, x: ir.Value, axis: int, index) -> ir.Value:
    """x[..., index, ...] along `axis` (the axis removed; `index` a dim)."""
    info = b.info(x)
    sizes = [s for i, s in enumerate(info.sizes) if i != axis]
    return b.op("aten.select.int", b.tensor_type(sizes, info.element), x, b.constant_int(axis), b.dim_value(index))


def _row_types(node: OnnxNode, b: TorchBuilder, block: ir.Block, state_count: int, spec: ScanSpec) -> list[ir.Type]:
    """The per-iteration type of each scan output: the body's, else the declared one without its axis."""
    outputs = terminator(block).operands
    return [
        row_type(node, b, state_count + k, value_type(outputs[state_count + k]), (0, 1) if spec.batched else (axis,))
        for k, axis in enumerate(spec.output_axes)
    ]


def run_scan(node: OnnxNode, b: TorchBuilder, block: ir.Block, states: Sequence[ir.Value], inputs: Sequence[ir.Value],
             spec: ScanSpec, unroll: bool) -> list[ir.Value]:
    """The Scan-9 form in front of `b`'s anchor: final states, then the scan outputs."""
    lengths = [b.dim(x, axis) for x, axis in zip(inputs, spec.input_axes)]
    static_lengths = {length for length in lengths if isinstance(length, int)}
    if len(static_lengths) > 1:
        node.fail(f"the scan inputs have different lengths along their scan axes ({sorted(static_lengths)})")
    length = next(iter(static_lengths)) if static_lengths else lengths[0]
    state_count = len(states)
    row_types = _row_types(node, b, block, state_count, spec)
    if unroll:
        if isinstance(length, int) and length <= UNROLL_LIMIT:
            return _unrolled(b, block, states, inputs, spec, length, row_types)
        if node.target == "tosa" and row_types:
            node.fail("on tosa a Scan over a run-time length (or over the unroll limit) is a while loop, whose scan "
                      "outputs grow by a row per iteration, which torch-mlir's TOSA lowering cannot take: fix the "
                      "length at compile time (--dim NAME=SIZE)")
        return _tensor_scan_loop(node, b, block, states, inputs, spec, length, row_types)
    return _scan_loop(node, b, block, states, inputs, spec, length, row_types)


def _tensor_scan_loop(node: OnnxNode, b: TorchBuilder, block: ir.Block, states, inputs, spec: ScanSpec, length,
                      row_types) -> list[ir.Value]:
    """TOSA and StableHLO: a while-like `torch.prim.Loop` carrying tensors only (see `tensor_loops.py`):
    the step number t is a [] si64 tensor, slice t of a scan input `aten.index_select` at t (or
    length - 1 - t), a scan output grown by one row per step (`aten.cat`, in front where it is
    written from the end)."""
    for k, row in enumerate(row_types):
        if not tensor_info(row).is_static:
            node.fail(f"on {node.target} a Scan of a run-time length is a while loop, and scan output {k} has rows "
                      f"of type {row}, whose dims are only known at run time")
    outputs = terminator(block).operands
    state_count = len(states)
    state_types = [join_types(b, node, [value_type(s), argument.type, value_type(o)], f"state {i}")
                   for i, (s, argument, o) in enumerate(zip(states, block.arguments, outputs))]
    counter_type, flag_type = b.tensor_type([], "si64"), b.tensor_type([], "i1")
    steps = b.op("prim.NumToTensor.Scalar", counter_type, b.dim_value(length))
    last = b.op("aten.sub.Scalar", counter_type, steps, b.constant_int(1), b.constant_int(1))
    grown = [b.tensor_type([None, *tensor_info(row).sizes], tensor_info(row).element) for row in row_types]
    zero = b.scalar_tensor_literal(0, "si64")
    inits = [*(b.cast_to(s, t) for s, t in zip(states, state_types)),
             *(b.cast_to(b.full([0, *tensor_info(row).sizes], 0, tensor_info(row).element), grown_type)
               for row, grown_type in zip(row_types, grown)), zero]
    types = [b.type("!torch.int"), *(value.type for value in inits)]

    def replacement(index: int, new: list, inner: TorchBuilder):
        if index < state_count:
            return new[1 + index]
        j = index - state_count
        step = new[-1]
        if spec.input_directions[j]:
            step = inner.binary("aten.sub.Tensor", last, step, counter_type)
        return _select_at(inner, inputs[j], spec.input_axes[j], step)

    arguments = retype_arguments(block, types, b.location, replacement)
    inner = TorchBuilder(terminator(block), b.location)
    yielded = yielded_values(inner, block)
    next_values = [fit_to_type(inner, v, t) for v, t in zip(yielded[:state_count], state_types)]
    for k, grown_type in enumerate(grown):
        piece = inner.cast_to(inner.unsqueeze(fit_to_type(inner, yielded[state_count + k], row_types[k]), 0), grown_type)
        buffer = arguments[1 + state_count + k]
        pieces = [piece, buffer] if spec.output_directions[k] else [buffer, piece]
        next_values.append(inner.op("aten.cat", grown_type, inner.tensor_list(pieces), inner.constant_int(0)))
    following = inner.op("aten.add.Scalar", counter_type, arguments[-1], inner.constant_int(1), inner.constant_int(1))
    next_values.append(following)
    keep_going = truth(inner, inner.op("aten.lt.Tensor", flag_type, following, steps))
    replace_terminator(block, "torch.prim.Loop.condition", [keep_going, *next_values], b.location)
    op = ir.Operation.create(
        "torch.prim.Loop", results=types[1:],
        operands=[b.constant_int(INT64_MAX), truth(b, b.op("aten.lt.Tensor", flag_type, zero, steps)), *inits],
        regions=1, loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    block.append_to(op.regions[0])
    results = list(op.results)[: state_count + len(row_types)]
    for k, axis in enumerate(spec.output_axes):
        if axis:
            results[state_count + k] = _move_first_axis(b, results[state_count + k], axis)
    return results


def _select_at(b: TorchBuilder, x: ir.Value, axis: int, index: ir.Value) -> ir.Value:
    """x[..., index, ...] along `axis` (the axis removed), `index` a [] si64 tensor."""
    info = b.info(x)
    picked_sizes = list(info.sizes)
    picked_sizes[axis] = 1
    picked = b.op("aten.index_select", b.tensor_type(picked_sizes, info.element), x, b.constant_int(axis),
                  b.unsqueeze(index, 0))
    sizes = [s for i, s in enumerate(info.sizes) if i != axis]
    return b.op("aten.squeeze.dim", b.tensor_type(sizes, info.element), picked, b.constant_int(axis))


def _position(b: TorchBuilder, t, length, reverse: int):
    return b.dim_sub(b.dim_sub(length, 1), t) if reverse else t


def _unrolled(b: TorchBuilder, block: ir.Block, states, inputs, spec: ScanSpec, length: int, row_types) -> list[ir.Value]:
    rows: list[list] = [[None] * length for _ in row_types]
    states = list(states)
    for t in range(length):
        slices = [_select(b, x, axis, _position(b, t, length, reverse))
                  for x, axis, reverse in zip(inputs, spec.input_axes, spec.input_directions)]
        outputs = inline_block(b, block, [*states, *slices])
        states = outputs[: len(states)]
        for k, value in enumerate(outputs[len(states):]):
            rows[k][_position(b, t, length, spec.output_directions[k])] = fit_to_type(b, value, row_types[k])
    results = list(states)
    for k, values in enumerate(rows):
        if values:
            results.append(stack(b, values, spec.output_axes[k]))
        else:
            info = tensor_info(row_types[k])
            sizes = [size or 0 for size in info.sizes]
            sizes.insert(spec.output_axes[k], 0)
            results.append(b.full(sizes, 0, info.element))
    return results


def _scan_loop(node: OnnxNode, b: TorchBuilder, block: ir.Block, states, inputs, spec: ScanSpec, length,
               row_types) -> list[ir.Value]:
    """A for-like `torch.prim.Loop` over the scan length with the body block as its region."""
    outputs = terminator(block).operands
    state_types = [
        join_types(b, node, [value_type(s), argument.type, value_type(o)], f"state {i}")
        for i, (s, argument, o) in enumerate(zip(states, block.arguments, outputs))
    ]
    inits = [b.cast_to(s, t) for s, t in zip(states, state_types)]
    # Rows of run-time dims need a while-like loop (see rows.py); its step number is carried last.
    while_like = RowCollector.needs_while_loop(row_types)
    collectors = [RowCollector(t, know_trip_count=not while_like, reverse=bool(spec.output_directions[k]))
                  for k, t in enumerate(row_types)]
    inits += [value for collector in collectors for value in collector.initial(b, length)]
    if while_like:
        inits.append(b.constant_int(0))
    int_type = b.type("!torch.int")
    types = [int_type, *(value.type for value in inits)]
    state_count = len(states)

    def step_of(arguments):
        return arguments[-1] if while_like else arguments[0]

    def replacement(index: int, new: list, inner: TorchBuilder):
        if index < state_count:
            return new[1 + index]
        j = index - state_count
        position = _position(inner, step_of(new), length, spec.input_directions[j])
        return _select(inner, inputs[j], spec.input_axes[j], position)

    arguments = retype_arguments(block, types, b.location, replacement)
    inner = TorchBuilder(terminator(block), b.location)
    yielded = yielded_values(inner, block)
    next_values = [fit_to_type(inner, v, t) for v, t in zip(yielded[:state_count], state_types)]
    offset = 1 + state_count
    step = step_of(arguments)
    for k, collector in enumerate(collectors):
        position = _position(inner, step, length, spec.output_directions[k])
        carried = arguments[offset : offset + collector.carried_count]
        next_values += collector.step(inner, carried, yielded[state_count + k], position, step)
        offset += collector.carried_count
    keep_going = start = b.constant_bool(True)
    if while_like:
        next_step = inner.dim_add(step, 1)
        next_values.append(next_step)
        keep_going = inner.op("aten.lt.int", inner.type("!torch.bool"), next_step, inner.dim_value(length))
        start = opaque_bool(b, b.op("aten.lt.int", b.type("!torch.bool"), b.constant_int(0), b.dim_value(length)))
    replace_terminator(block, "torch.prim.Loop.condition", [keep_going, *next_values], b.location)
    op = ir.Operation.create(
        "torch.prim.Loop", results=types[1:], operands=[b.dim_value(length), start, *inits], regions=1,
        loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    block.append_to(op.regions[0])
    loop_results = list(op.results)
    results, offset = loop_results[:state_count], state_count
    for collector in collectors:
        results.append(collector.result(b, loop_results[offset : offset + collector.carried_count], length))
        offset += collector.carried_count
    for k, axis in enumerate(spec.output_axes):
        if axis:
            results[state_count + k] = _move_first_axis(b, results[state_count + k], axis)
    return results


def _move_first_axis(b: TorchBuilder, x: ir.Value, axis: int) -> ir.Value:
    info = b.info(x)
    order = list(range(1, info.rank))
    order.insert(axis, 0)
    sizes = [info.sizes[i] for i in order]
    return b.op("aten.permute", b.tensor_type(sizes, info.element), x, b.int_list(order))


def _batch_loop(node: OnnxNode, b: TorchBuilder, block: ir.Block, states, inputs, spec: ScanSpec, batch) -> list:
    """Scan-8 over a batch of more than one entry: an outer for-like loop over the batch whose body
    runs the Scan-9 form on entry n and writes row n of every output."""
    state_count = len(states)
    finals = [b.full(b.dims(s), 0, b.info(s).element) for s in states]
    row_types = _row_types(node, b, block, state_count, spec)
    length = b.dim(inputs[0], 1)
    outputs = []
    for k, row in enumerate(row_types):
        info = tensor_info(row)
        if not info.is_static:
            node.fail(f"scan output {state_count + k} has per-iteration dims not known at conversion time ({row}); "
                      "Scan-8 with a batch of more than one entry needs them")
        outputs.append(b.full([batch, length, *info.sizes], 0, info.element))
    carried = [*finals, *outputs]
    true = b.constant_bool(True)
    op = ir.Operation.create(
        "torch.prim.Loop", results=[v.type for v in carried], operands=[b.dim_value(batch), true, *carried],
        regions=1, loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    types = [b.type("!torch.int")] + [v.type for v in carried]
    body = op.regions[0].blocks.append(*types, arg_locs=[b.location] * len(types))
    condition = ir.Operation.create("torch.prim.Loop.condition", operands=[true, *body.arguments[1:]],
                                    loc=b.location, ip=ir.InsertionPoint(body))
    inner = TorchBuilder(condition, b.location)
    entry = body.arguments[0]
    results = run_scan(node, inner, block, [_select(inner, s, 0, entry) for s in states],
                       [_select(inner, x, 0, entry) for x in inputs], spec, False)
    for position, (buffer, value) in enumerate(zip(body.arguments[1:], results)):
        condition.operands[1 + position] = write_row(inner, buffer, fit_to_type(inner, value, _row_of(inner, buffer)), entry)
    return list(op.results)


def _row_of(b: TorchBuilder, buffer: ir.Value) -> ir.Type:
    info = b.info(buffer)
    return b.tensor_type(info.sizes[1:], info.element)
