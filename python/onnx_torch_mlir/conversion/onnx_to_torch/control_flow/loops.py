"""Loop: `torch.prim.Loop` with the body subgraph as its region (or unrolled, see the package).

ONNX's Loop runs `for (i = 0; i < M && cond; ++i) cond, v = body(i, cond, v)`, where the trip
count M and the condition may each be absent (neither: the node fails, the loop would never
end). The body yields the condition, the N loop-carried values and K *scan outputs*, whose
per-iteration values the Loop concatenates along a new axis 0. Loop-1 to Loop-23 differ only in
the types they carry (sequences from 13, optionals from 16): one pattern. A loop that carries a
sequence (or whose body reads one at the iteration number) is unrolled on every target, since
torch-mlir lowers no list in a loop (`lists.py`), unless it cannot be unrolled and its sequences
are only appended to: then they are carried as stacked tensors (`stacked.py`); optionals are not
carried.

torch-mlir lowers a `torch.prim.Loop` whose initial condition is the constant true as *for-like*
(`scf.for` over the trip count; it ignores the condition the body yields, and binds the
iteration number), any other as *while-like* (`scf.while` on the yielded condition; it ignores
the trip count, and its iteration-number argument must be unused). So:

- *for-like*, when M is given and the condition cannot stop the loop early (it is absent, or a
  literal true that the body passes on unchanged or yields as a literal true), or when the
  condition only counts (`trip_count.py`: to a literal, or to a bound only known at run time,
  whose count is then computed before the loop);
- *while-like* otherwise: the iteration number is one more loop-carried `!torch.int`, and the
  condition the loop sees is `cond and i + 1 < M`.

A loop-carried value's type is the most static type its initial value and the body's input and
output fit. Scan outputs are gathered as `rows.py` says (a buffer written row by row when the
number of iterations is known before the loop, also for rows whose dims are only known at run
time; else grown by `aten.cat`).
"""

from __future__ import annotations

from collections.abc import Sequence

from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import LOOPLESS_TARGETS, OnnxNode
from ..registry import converts
from ..types import tensor_info
from . import lists, stacked
from .trip_count import counted_iterations, run_time_iterations
from .rows import RowCollector, first_row_sizes
from .tensor_loops import tensor_while_loop
from .regions import (
    UNREALIZED_CAST,
    fit_to_type,
    inline_block,
    join_types,
    loop_carried_type,
    literal_bool,
    region_block,
    replace_terminator,
    retype_arguments,
    terminator,
    value_type,
    yielded_values,
)

# On TOSA and StableHLO a constant trip count up to this many iterations is unrolled (no loop for
# their consumers to run); other loops there are tensor-only while loops (`tensor_loops.py`).
UNROLL_LIMIT = 256
# How many iterations `trip_count.counted_iterations` runs a counting condition for at most.
COUNT_LIMIT = 1 << 16
INT64_MAX = 2**63 - 1


@converts("Loop", since=1)
def loop(node: OnnxNode, b: TorchBuilder):
    """v_final, scan_outputs = for (i = 0; i < M && cond; ++i) cond, v, scan_i = body(i, cond, v)."""
    block = region_block(node, 0)
    carried_count = len(block.arguments) - 2
    yield_count = len(terminator(block).operands)
    scan_count = yield_count - 1 - carried_count
    if carried_count < 0 or scan_count < 0 or node.num_results != carried_count + scan_count:
        node.fail(
            f"the body has {len(block.arguments)} inputs and {yield_count} outputs for {node.num_results} "
            "Loop outputs (expected 2 + N inputs and 1 + N + K outputs)"
        )
    with_lists = _needs_list_unrolling(node, block, carried_count)
    for index in range(node.num_results):
        if tensor_info(node.op.results[index].type) is None and not (index < carried_count and with_lists):
            node.fail(f"output {index} has type {node.op.results[index].type}: only tensors and loop-carried "
                      "sequences are supported")
    inits = [_carried_input(node, 2 + index) for index in range(carried_count)]
    has_trip_count, has_condition = node.has_input(0), node.has_input(1)
    if not has_trip_count and not has_condition:
        node.fail("a Loop with neither a trip count nor a condition never ends")
    trip_count = node.scalar_input(0, b) if has_trip_count else None
    condition_literal = node.constant_input(1) if has_condition else None
    initially_true = condition_literal is not None and bool(condition_literal.reshape(-1)[0])
    if condition_literal is not None and not initially_true:
        return _zero_iterations(node, b, block, inits, carried_count)
    for_like = has_trip_count and (not has_condition or (initially_true and _body_keeps_condition(block)))
    if not for_like:
        # A condition that only counts (TF's while_loop: `i + 1 < n`) fixes the number of iterations.
        initial_condition = True if not has_condition else initially_true if condition_literal is not None else None
        counted = counted_iterations(block, inits, initial_condition, trip_count if has_trip_count else None,
                                     COUNT_LIMIT)
        if counted is not None:
            trip_count, for_like = counted, True
        else:
            # `i + 1 < n` with n only known at run time: the count is computed before the loop.
            count = run_time_iterations(b, block, inits, node.input(1) if has_condition else None,
                                        trip_count if has_trip_count else None)
            if count is not None:
                trip_count, for_like = b.item(count), True
    if with_lists:
        if for_like and isinstance(trip_count, int) and trip_count <= UNROLL_LIMIT:
            return _unrolled(node, b, block, inits, trip_count, for_like, with_lists=True)
        appended, why_not = stacked.stackable_sequences(node, block, inits)
        if not appended:
            return _unrolled(node, b, block, inits, trip_count, for_like, with_lists=True, why_not_stacked=why_not)
        return _with_stacked_sequences(node, b, block, inits, appended, trip_count)
    if node.target in LOOPLESS_TARGETS:
        if for_like and isinstance(trip_count, int) and trip_count <= UNROLL_LIMIT:
            return _unrolled(node, b, block, inits, trip_count, for_like)
        return tensor_while_loop(node, b, block, inits, scan_count,
                                 lambda output, body_type: row_type(node, b, output, body_type))
    loop_body = LoopBody(node, b, block, inits, scan_count)
    if for_like:
        return loop_body.for_like(trip_count)
    return loop_body.while_like(trip_count, node.input(1) if has_condition else None)


def _with_stacked_sequences(node: OnnxNode, b: TorchBuilder, block: ir.Block, inits, appended, trip_count):
    """The loop with its appended sequences carried as stacked tensors (`stacked.py`): a while-like
    loop on every target (the stacks grow at run time; TOSA takes no such loop)."""
    if node.target == "tosa":
        node.fail("on tosa a Loop that appends to a sequence is unrolled, which needs a number of iterations known "
                  "at conversion time (fix the dims the trip count comes from with --dim NAME=SIZE): carried as a "
                  "stacked tensor, the sequence would grow at run time, which torch-mlir's TOSA lowering cannot take")
    inits = list(inits)
    for entry in appended:
        inits[entry.index] = stacked.carry_stacked(b, block, entry)
    scan_count = node.num_results - len(inits)
    if node.target in LOOPLESS_TARGETS:
        results = tensor_while_loop(node, b, block, inits, scan_count,
                                    lambda output, body_type: row_type(node, b, output, body_type))
    else:
        results = LoopBody(node, b, block, inits, scan_count).while_like(
            trip_count, node.input(1) if node.has_input(1) else None)
    for entry in appended:
        results[entry.index] = stacked.as_sequence(node, b, entry.index, results[entry.index])
    return results


def _needs_list_unrolling(node: OnnxNode, block: ir.Block, carried_count: int) -> bool:
    """True if the loop carries a sequence or its body has list operations (see `lists.py`)."""
    carried = [*block.arguments[2 : 2 + carried_count], *node.op.results[:carried_count]]
    return any(lists.is_container(value.type) for value in carried) or lists.body_has_list_operations(block)


def _carried_input(node: OnnxNode, index: int) -> ir.Value:
    """Initial value `index`: a tensor, or a sequence (a `!torch.list`)."""
    if node.input_is_tensor(index):
        return node.input(index)
    value = node.container_input(index)
    if value is None:
        node.fail(f"input {index} is required but absent")
    return value


def _body_keeps_condition(block: ir.Block) -> bool:
    """True if the body yields its condition input unchanged or a literal true."""
    yielded = terminator(block).operands[0]
    while True:
        if yielded == block.arguments[1]:
            return True
        owner = yielded.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if not isinstance(owner, ir.Operation) or owner.name not in (UNREALIZED_CAST, "torch.tensor_static_info_cast"):
            break
        yielded = owner.operands[0]
    return literal_bool(terminator(block).operands[0]) is True


def _zero_iterations(node: OnnxNode, b: TorchBuilder, block: ir.Block, inits, carried_count: int):
    """A literal false condition: the initial values, and empty scan outputs."""
    outputs = list(inits)
    for index in range(carried_count, node.num_results):
        body_type = value_type(terminator(block).operands[1 + index])
        sizes = tensor_info(row_type(node, b, index, body_type)).sizes
        outputs.append(b.full([0, *(size or 0 for size in sizes)], 0, node.result_info(index).element))
    return outputs


def row_type(node: OnnxNode, b: TorchBuilder, output: int, body_type: ir.Type, removed=(0,)) -> ir.Type:
    """The type of one iteration's value of scan output `output`: the body's, or the declared
    output's without its dims `removed`, whichever is static, else the two joined."""
    declared = node.result_info(output)
    candidates = [body_type] if tensor_info(body_type).rank is not None else []
    if declared.rank is not None and declared.rank > max(removed):
        sizes = [s for i, s in enumerate(declared.sizes) if i not in removed]
        candidates.append(b.tensor_type(sizes, declared.element))
    for candidate in candidates:
        if tensor_info(candidate).is_static:
            return candidate
    return join_types(b, node, candidates or [body_type], f"scan output {output}")


class LoopBody:
    """The body block of a Loop made into the region of a `torch.prim.Loop`."""

    def __init__(self, node: OnnxNode, b: TorchBuilder, block: ir.Block, inits: Sequence[ir.Value], scan_count: int):
        self.node, self.b, self.block = node, b, block
        self.location = b.location
        carried_count = len(inits)
        outputs = terminator(block).operands
        self.carried_types = [
            loop_carried_type(b, node, index, init, argument, output)
            for index, (init, argument, output) in enumerate(zip(inits, block.arguments[2:], outputs[1:]))
        ]
        self.inits = [b.cast_to(init, t) for init, t in zip(inits, self.carried_types)]
        self.row_types = [
            row_type(node, b, carried_count + k, value_type(outputs[1 + carried_count + k])) for k in range(scan_count)
        ]

    def for_like(self, trip_count) -> list[ir.Value]:
        return self._build(trip_count, None, for_like=True)

    def while_like(self, trip_count, condition: ir.Value | None) -> list[ir.Value]:
        return self._build(trip_count, condition, for_like=False)

    def _build(self, trip_count, condition: ir.Value | None, for_like: bool) -> list[ir.Value]:
        """A for-like loop (the trip count bounds it, `condition` is None) or a while-like one
        (the iteration number is carried last, the loop goes on while `cond and i + 1 < M`)."""
        b = self.b
        int_type = b.type("!torch.int")
        row_sizes = [None] * len(self.row_types)
        if for_like:
            row_sizes = first_row_sizes(b, self.block, self.inits, self.row_types, 1 + len(self.carried_types))
        collectors = [RowCollector(t, know_trip_count=for_like, row_sizes=sizes)
                      for t, sizes in zip(self.row_types, row_sizes)]
        collected = [collector.initial(b, trip_count) for collector in collectors]
        counter = [] if for_like else [b.constant_int(0)]
        inits = [*self.inits, *(value for values in collected for value in values), *counter]
        types = [int_type, *(value.type for value in inits)]
        arguments = self._bind_arguments(types, (lambda new: new[0]) if for_like else (lambda new: new[-1]))
        inner = TorchBuilder(terminator(self.block), self.location)
        outputs = yielded_values(inner, self.block)
        iteration = arguments[0] if for_like else arguments[-1]
        carried_count = len(self.carried_types)
        next_values = [fit_to_type(inner, v, t) for v, t in zip(outputs[1 : 1 + carried_count], self.carried_types)]
        offset = 1 + carried_count
        for k, collector in enumerate(collectors):
            carried = arguments[offset : offset + collector.carried_count]
            next_values += collector.step(inner, carried, outputs[1 + carried_count + k], iteration, iteration)
            offset += collector.carried_count
        if for_like:
            keep_going = start = b.constant_bool(True)
        else:
            next_iteration = inner.dim_add(iteration, 1)
            next_values.append(next_iteration)
            keep_going = _truth(inner, outputs[0]) if condition is not None else inner.constant_bool(True)
            start = _truth(b, condition) if condition is not None else b.constant_bool(True)
            if trip_count is not None:
                keep_going = _and(inner, keep_going, inner.op("aten.lt.int", inner.type("!torch.bool"),
                                                              next_iteration, inner.dim_value(trip_count)))
                start = _and(b, start, b.op("aten.lt.int", b.type("!torch.bool"), b.constant_int(0),
                                            b.dim_value(trip_count)))
        replace_terminator(self.block, "torch.prim.Loop.condition", [keep_going, *next_values], self.location)
        # A while-like loop ignores its trip count operand: the bound is in the condition.
        bound = trip_count if trip_count is not None else INT64_MAX
        results = self._emit(bound, start if for_like else opaque_bool(b, start), inits, types[1:])
        count = trip_count if for_like else results[-1]
        outputs = results[:carried_count]
        offset = carried_count
        for collector in collectors:
            outputs.append(collector.result(b, results[offset : offset + collector.carried_count], count))
            offset += collector.carried_count
        return outputs

    def _bind_arguments(self, types, iteration_of) -> list[ir.Value]:
        """The body's arguments become `types`; ONNX's iteration number is `iteration_of(new)`
        as a tensor, its condition input a literal true (the body only runs while it holds)."""
        carried_count = len(self.carried_types)

        def replacement(index: int, new: list, b: TorchBuilder):
            if index == 0:
                return b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), iteration_of(new))
            if index == 1:
                return b.scalar_tensor_literal(True, "i1")
            return new[1 + index - 2] if index - 2 < carried_count else None

        return retype_arguments(self.block, types, self.location, replacement)

    def _emit(self, trip_count, condition, inits, result_types) -> list[ir.Value]:
        b = self.b
        op = ir.Operation.create(
            "torch.prim.Loop", results=list(result_types), operands=[b.dim_value(trip_count), condition, *inits],
            regions=1, loc=self.location, ip=ir.InsertionPoint(b.anchor),
        )
        self.block.append_to(op.regions[0])
        return list(op.results)


def write_row(b: TorchBuilder, buffer: ir.Value, row: ir.Value, index) -> ir.Value:
    """buffer[index] = row (`aten.slice_scatter` along dim 0; `index` a dim)."""
    return b.op(
        "aten.slice_scatter", buffer.type, buffer, b.unsqueeze(row, 0), b.constant_int(0),
        b.dim_value(index), b.dim_value(b.dim_add(index, 1)), b.constant_int(1),
    )


def _truth(b: TorchBuilder, tensor: ir.Value) -> ir.Value:
    """A one-element boolean tensor as a `!torch.bool`."""
    return b.op("aten.Bool.int", b.type("!torch.bool"), b.item(tensor))


def opaque_bool(b: TorchBuilder, value: ir.Value) -> ir.Value:
    """`value` passed through a one-iteration `torch.prim.Loop`, which no canonicalization folds.

    torch-mlir lowers a `prim.Loop` whose initial condition *folds* to the constant true as a
    for-like loop that ignores the condition the body yields (`PrimLoopOp::isForLike`): a
    while-loop starting from a literal true would run its whole trip count (2^63 - 1 without
    one). Its initial condition must stay a value."""
    true = b.constant_bool(True)
    bool_type = b.type("!torch.bool")
    op = ir.Operation.create(
        "torch.prim.Loop", results=[bool_type], operands=[b.constant_int(1), true, value], regions=1,
        loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    body = op.regions[0].blocks.append(b.type("!torch.int"), bool_type, arg_locs=[b.location] * 2)
    ir.Operation.create("torch.prim.Loop.condition", operands=[true, body.arguments[1]], loc=b.location,
                        ip=ir.InsertionPoint(body))
    return op.result


def _and(b: TorchBuilder, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
    return b.op("aten.__and__.bool", b.type("!torch.bool"), lhs, rhs)


def _unrolled(node: OnnxNode, b: TorchBuilder, block: ir.Block, inits, trip_count, for_like: bool,
              with_lists: bool = False, why_not_stacked: str | None = None):
    """The body inlined once per iteration (TOSA, StableHLO; a loop with sequences on every
    target): needs a constant trip count and a condition that cannot stop the loop early."""
    where = (f"on {node.target} a Loop is unrolled" if not with_lists else
             "a Loop that carries a sequence (or reads one at its iteration number) is unrolled")
    if with_lists and (not for_like or not isinstance(trip_count, int)):
        node.fail(f"{where}, which needs a number of iterations known at conversion time, but "
                  f"{_run_time_iterations(node, block, trip_count)}: the sequence's length would only be known "
                  "at run time, and torch-mlir lowers no list carried by a torch.prim.Loop (its backends take a "
                  "list only as a torch.prim.ListConstruct whose length is known at conversion time)"
                  + _not_stacked(why_not_stacked))
    if not for_like or not isinstance(trip_count, int):
        reason = "a trip count known at conversion time" if for_like else "no early exit on its condition"
        node.fail(f"{where}, which needs {reason}; torch-mlir lowers torch.prim.Loop only to linalg-on-tensors")
    if trip_count > UNROLL_LIMIT:
        node.fail(f"{where}, and {trip_count} iterations are over the limit of {UNROLL_LIMIT}"
                  + (_not_stacked(why_not_stacked) if with_lists else ""))
    carried_count = len(inits)
    carried = list(inits)
    rows: list[list] = [[] for _ in range(node.num_results - carried_count)]
    true = b.scalar_tensor_literal(True, "i1")
    for iteration in range(trip_count):
        try:
            outputs = inline_block(b, block, [b.scalar_tensor_literal(iteration, "si64"), true, *carried],
                                   resolve_lists=with_lists)
        except lists.UnresolvedList as error:
            node.fail(f"{where}, and in iteration {iteration}: {error}")
        carried = outputs[1 : 1 + carried_count]
        for k, value in enumerate(outputs[1 + carried_count:]):
            rows[k].append(value)
    results = [_declared_list(node, b, index, value) for index, value in enumerate(carried)]
    for k, values in enumerate(rows):
        index = carried_count + k
        if values:
            results.append(stack(b, values, 0))
        else:
            body_type = value_type(terminator(block).operands[1 + index])
            sizes = tensor_info(row_type(node, b, index, body_type)).sizes
            results.append(b.full([0, *(size or 0 for size in sizes)], 0, node.result_info(index).element))
    return results


def _not_stacked(why_not: str | None) -> str:
    """Why the loop's sequences are not carried as stacked tensors instead, for a diagnostic."""
    if why_not is None:
        return ""
    return ("; a sequence that the body only appends to and that only ConcatFromSequence, SequenceAt or "
            f"SequenceLength read after the loop would be carried as a stacked tensor, but {why_not}")


def _run_time_iterations(node: OnnxNode, block: ir.Block, trip_count) -> str:
    """Why the number of iterations is only known at run time, for a diagnostic."""
    reasons = []
    if trip_count is None:
        reasons.append("there is no trip count (input 0)")
    elif not isinstance(trip_count, int):
        reasons.append("the trip count (input 0) is only known at run time")
    if node.has_input(1) and node.constant_input(1) is None:
        reasons.append("the initial condition (input 1) is only known at run time")
    if node.has_input(1) and not _body_keeps_condition(block):
        reasons.append("the body computes the condition, which may stop the loop early")
    return " and ".join(reasons)


def _declared_list(node: OnnxNode, b: TorchBuilder, index: int, value: ir.Value) -> ir.Value:
    """A carried value after the last iteration; a sequence as a list of output `index`'s type."""
    if not lists.is_container(node.op.results[index].type):
        return value
    try:
        return lists.as_torch_list(b, value, node.result_container_type(index))
    except lists.UnresolvedList as error:
        node.fail(f"output {index}: {error}")


def stack(b: TorchBuilder, values: Sequence[ir.Value], dim: int) -> ir.Value:
    """`aten.stack` of same-shaped tensors along a new dim `dim`."""
    info = b.info(values[0])
    sizes = list(info.sizes)
    sizes.insert(dim, len(values))
    return b.op("aten.stack", b.tensor_type(sizes, info.element), b.tensor_list(list(values)), b.constant_int(dim))


