"""A Loop for TOSA and StableHLO that cannot be unrolled: a while-like `torch.prim.Loop` that
carries tensors only.

A Loop whose trip count is only known at run time, that may stop early on its condition, or
whose trip count is over the unroll limit stays a loop there. `transforms/torch/control_flow.py`
turns the `torch.prim.Loop` into `stablehlo.while` / `tosa.while_loop`, whose carried values are
tensors: so no `!torch.int` is carried and the body computes no scalar. The iteration number
is a [] si64 tensor carried last (ONNX's `i` input is that tensor, the next is `aten.add.Scalar`),
and the condition the loop sees is the tensor `cond and i + 1 < M` (`aten.lt.Tensor`,
`aten.logical_and`), read as `aten.Bool.int(aten.item(t))` for the `torch.prim.Loop` (which that
pass traces back to `t`). The trip count operand is "unbounded": the bound is in the condition.

Scan outputs grow by one row per iteration (`aten.cat` on a [?, ...] tensor starting empty;
StableHLO only: torch-mlir's TOSA lowering takes no concatenation of a run-time size; on TOSA a
scan output whose declared type fixes its length is a buffer of that length written in place):
their rows' dims must be known at conversion time (a row whose dims are only known at run time
would need the first-row form of `rows.py`, whose `prim.If` on the iteration number these
backends could lower, but whose carried value changes rank-1 dims each iteration; it is refused
by name).
"""

from __future__ import annotations

from collections.abc import Sequence

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..types import tensor_info
from .regions import fit_to_type, join_types, loop_carried_type, replace_terminator, retype_arguments, terminator, value_type, yielded_values

INT64_MAX = 2**63 - 1


def tensor_while_loop(node: OnnxNode, b: TorchBuilder, block: ir.Block, inits: Sequence[ir.Value],
                      scan_count: int, row_type) -> list[ir.Value]:
    """The Loop's outputs (final carried values, then scan outputs) from a tensor-only while loop.
    `row_type(output, body_type)` is one iteration's type of a scan output (`loops.row_type`)."""
    location = b.location
    carried_count = len(inits)
    outputs = terminator(block).operands
    carried_types = [
        loop_carried_type(b, node, index, init, argument, output)
        for index, (init, argument, output) in enumerate(zip(inits, block.arguments[2:], outputs[1:]))
    ]
    rows = [row_type(carried_count + k, value_type(outputs[1 + carried_count + k])) for k in range(scan_count)]
    declared_rows = [None] * len(rows)
    if rows and node.target == "tosa":
        declared_rows = [_declared_length(node, carried_count + k) for k in range(scan_count)]
        if None in declared_rows:
            node.fail("on tosa this Loop is a while loop, and its scan outputs grow by a row per iteration: a "
                      "carried tensor whose size changes at run time, which torch-mlir's TOSA lowering cannot "
                      "take (a trip count known at conversion time unrolls the loop, also a condition that "
                      "counts to a length fixed with --dim NAME=SIZE; a scan output whose declared type fixes its "
                      "length is written in place)")
    for k, row in enumerate(rows):
        if not tensor_info(row).is_static:
            node.fail(f"on {node.target} this Loop is a while loop, and scan output {k} has rows of type {row}, "
                      "whose dims are only known at run time (fix them at compile time with --dim NAME=SIZE)")
    counter_type, flag_type = b.tensor_type([], "si64"), b.tensor_type([], "i1")
    limit = fit_to_type(b, node.input(0), counter_type) if node.has_input(0) else None
    zero = b.scalar_tensor_literal(0, "si64")
    start = fit_to_type(b, node.input(1), flag_type) if node.has_input(1) else None
    if limit is not None:
        started = b.op("aten.lt.Tensor", flag_type, zero, limit)
        start = started if start is None else b.op("aten.logical_and", flag_type, start, started)
    grown = [b.tensor_type([count, *tensor_info(row).sizes], tensor_info(row).element)
             for row, count in zip(rows, declared_rows)]
    empty = [b.cast_to(b.full([count or 0, *tensor_info(row).sizes], 0, tensor_info(row).element), grown_type)
             for row, grown_type, count in zip(rows, grown, declared_rows)]
    loop_inits = [*(b.cast_to(init, t) for init, t in zip(inits, carried_types)), *empty, zero]
    types = [b.type("!torch.int"), *(value.type for value in loop_inits)]

    def replacement(index: int, new: list, inner: TorchBuilder):
        if index == 0:
            return new[-1]
        if index == 1:
            return inner.scalar_tensor_literal(True, "i1")
        return new[index - 1] if index - 2 < carried_count else None

    arguments = retype_arguments(block, types, location, replacement)
    inner = TorchBuilder(terminator(block), location)
    body_outputs = yielded_values(inner, block)
    counter = arguments[-1]
    next_values = [fit_to_type(inner, value, t) for value, t in zip(body_outputs[1 : 1 + carried_count], carried_types)]
    for k, grown_type in enumerate(grown):
        row = fit_to_type(inner, body_outputs[1 + carried_count + k], rows[k])
        buffer = arguments[1 + carried_count + k]
        if declared_rows[k] is not None:
            next_values.append(_written_in_place(inner, buffer, inner.unsqueeze(row, 0), counter, declared_rows[k]))
            continue
        piece = inner.cast_to(inner.unsqueeze(row, 0), grown_type)
        next_values.append(inner.op("aten.cat", grown_type, inner.tensor_list([buffer, piece]), inner.constant_int(0)))
    following = inner.op("aten.add.Scalar", counter_type, counter, inner.constant_int(1), inner.constant_int(1))
    keep = fit_to_type(inner, body_outputs[0], flag_type)
    if limit is not None:
        keep = inner.op("aten.logical_and", flag_type, keep, inner.op("aten.lt.Tensor", flag_type, following, limit))
    replace_terminator(block, "torch.prim.Loop.condition", [truth(inner, keep), *next_values, following], location)
    loop = ir.Operation.create(
        "torch.prim.Loop", results=[value.type for value in loop_inits],
        operands=[b.constant_int(INT64_MAX), truth(b, start), *loop_inits], regions=1, loc=location,
        ip=ir.InsertionPoint(b.anchor),
    )
    block.append_to(loop.regions[0])
    results = list(loop.results)
    return results[:carried_count] + results[carried_count : carried_count + scan_count]


_SHAPE_KEEPING_READERS = ("onnx.Cast", "onnx.Identity")


def _declared_length(node: OnnxNode, index: int) -> int | None:
    """The length of scan output `index` its declared type gives, else the one its only reader gives
    when that reader keeps the shape (a Cast or Identity: an expanded function body's output, such
    as Range's, is declared after the Cast that follows the Loop); None when neither fixes it."""
    sizes = node.result_info(index).sizes
    if sizes and sizes[0] is not None:
        return sizes[0]
    readers = [use.owner for use in node.op.results[index].uses]
    if len(readers) != 1:
        return None
    reader = readers[0].operation if hasattr(readers[0], "operation") else readers[0]
    name = reader.name
    if name == "torch.operator":
        name = ir.StringAttr(reader.attributes["name"]).value
    info = tensor_info(reader.results[0].type) if name in _SHAPE_KEEPING_READERS and len(reader.results) else None
    return info.sizes[0] if info is not None and info.sizes else None


def _written_in_place(b: TorchBuilder, buffer: ir.Value, row: ir.Value, counter: ir.Value, count: int) -> ir.Value:
    """TOSA: `buffer` [count, ...] with row `counter` replaced by `row` [1, ...] (a select on the row
    number): the scan output keeps the length its declared type gives, since torch-mlir's TOSA
    lowering takes no carried tensor whose size changes. A model whose loop runs for fewer
    iterations than it declares leaves zero rows, for more it keeps the first `count`."""
    rank = tensor_info(buffer.type).rank
    positions = b.arange(count, count)
    for _ in range(rank - 1):
        positions = b.unsqueeze(positions, -1)
    hit = b.op("aten.eq.Tensor", b.tensor_type([count] + [1] * (rank - 1), "i1"), positions, counter)
    return b.op("aten.where.self", buffer.type, hit, row, buffer)


def truth(b: TorchBuilder, flag: ir.Value) -> ir.Value:
    """A [] i1 tensor as the `!torch.bool` a `torch.prim.Loop` reads (traced back by the backend pass)."""
    return b.op("aten.Bool.int", b.type("!torch.bool"), b.item(flag))
