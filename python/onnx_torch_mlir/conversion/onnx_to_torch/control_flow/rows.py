"""How a scan output of a Loop or Scan gathers its per-iteration values ("rows") in a
`torch.prim.Loop`: loop-carried values that become a [count, ...] tensor after the loop.

- *buffer*: the trip count is known before the loop, and the row's dims at conversion time or
  before the loop (`first_row_sizes`: read from a copy of the body's first iteration, which only
  its sizes are taken from): a [trip count, ...] buffer written at the row's position
  (`aten.slice_scatter`; `aten.index_put` in the tensor-only loop of StableHLO). The loop stays
  for-like: IREE compiles that form (`scf.for`) and fails on an `scf.while` whose carried tensor
  has a run-time dim defined differently before the loop and in its body
  (`test_iree_loop_forms.py`);
- *grow*: the row's dims are known but not the number of iterations (a while-like loop): a
  [?, ...] tensor grown by one row per iteration (`aten.cat`, in front for a reverse Scan output);
- *first-row*: the row's dims are only known at run time (inside the body): a [?, ?...] tensor
  that the first iteration replaces by its row (a `torch.prim.If` on the iteration number) and
  the others grow by `aten.cat` (an output of no iteration is [0, ...] with 0 for each run-time
  dim), only when the number of iterations is not known before the loop; such a loop is
  while-like (`needs_while_loop`). Not a 1-D tensor
  reshaped after the loop: that reshape to several run-time dims becomes a `tensor.reshape`,
  on which IREE's compiler crashed.
"""

from __future__ import annotations

from torch_mlir import ir

from ..builder import TorchBuilder
from ..types import tensor_info
from .regions import fit_to_type, inline_block


def first_row_sizes(b: TorchBuilder, block: ir.Block, inits, row_types, first_scan_output: int) -> list[list]:
    """Each scan output's row dims as ints and `!torch.int`s computed before the loop: a run-time
    dim is read (`aten.size.int`) from a copy of the body's first iteration, on the loop's initial
    values (ONNX requires every iteration's row to have the same shape). Only sizes are read from
    the copy: the Linalg lowering resolves them to the inputs' dims and drops the copy."""
    if all(tensor_info(t).is_static for t in row_types):
        return [list(tensor_info(t).sizes) for t in row_types]
    first = [b.scalar_tensor_literal(0, "si64"), b.scalar_tensor_literal(True, "i1"), *inits]
    outputs = inline_block(b, block, first)
    sizes = []
    for k, row_type in enumerate(row_types):
        row = fit_to_type(b, outputs[first_scan_output + k], row_type)
        sizes.append([b.dim(row, d) if size is None else size for d, size in enumerate(tensor_info(row_type).sizes)])
    return sizes


class RowCollector:
    @staticmethod
    def needs_while_loop(row_types) -> bool:
        """True if a row's dims are only known at run time: then the loop must be while-like
        (IREE miscompiles an `scf.for` whose carried tensor changes shape: it returned the
        initial [0, 0] tensor; `scf.while` is right)."""
        return any(not tensor_info(t).is_static for t in row_types)

    def __init__(self, row_type: ir.Type, know_trip_count: bool, reverse: bool = False, row_sizes=None):
        """`row_sizes`: the row's dims before the loop (`first_row_sizes`), for a buffer of a row
        whose dims are only known at run time."""
        info = tensor_info(row_type)
        self.row_type, self.sizes, self.element, self.reverse = row_type, list(info.sizes), info.element, reverse
        self.row_sizes = row_sizes if row_sizes is not None else self.sizes
        if know_trip_count and (info.is_static or row_sizes is not None):
            self.mode = "buffer"
        else:
            self.mode = "grow" if info.is_static else "first-row"

    def initial(self, b: TorchBuilder, trip_count) -> list[ir.Value]:
        """The loop-carried value before the first iteration."""
        if self.mode == "buffer":
            buffer = b.full([trip_count, *self.row_sizes], 0, self.element)
            return [b.cast_to(buffer, b.tensor_type([b.static_dim(trip_count), *self.sizes], self.element))]
        # first-row: 0 for each run-time dim, the static dims kept (else no cast to the grown type)
        sizes = self.sizes if self.mode == "grow" else [0 if size is None else size for size in self.sizes]
        return [b.cast_to(b.full([0, *sizes], 0, self.element), self._grown_type(b))]

    def step(self, b: TorchBuilder, carried: list[ir.Value], value: ir.Value, position, iteration) -> list[ir.Value]:
        """The carried value after this iteration's row `value` (written at `position` in buffer mode)."""
        row = fit_to_type(b, value, self.row_type)
        buffer = carried[0]
        if self.mode == "buffer":
            return [b.op(
                "aten.slice_scatter", buffer.type, buffer, b.unsqueeze(row, 0), b.constant_int(0),
                b.dim_value(position), b.dim_value(b.dim_add(position, 1)), b.constant_int(1),
            )]
        piece = b.cast_to(b.unsqueeze(row, 0), self._grown_type(b))
        pieces = [piece, buffer] if self.reverse else [buffer, piece]
        if self.mode == "grow":
            return [b.op("aten.cat", buffer.type, b.tensor_list(pieces), b.constant_int(0))]
        first = b.op("aten.eq.int", b.type("!torch.bool"), b.dim_value(iteration), b.constant_int(0))
        choice = ir.Operation.create("torch.prim.If", results=[buffer.type], operands=[first], regions=2,
                                     loc=b.location, ip=ir.InsertionPoint(b.anchor))
        then_block, else_block = choice.regions[0].blocks.append(), choice.regions[1].blocks.append()
        ir.Operation.create("torch.prim.If.yield", operands=[piece], loc=b.location, ip=ir.InsertionPoint(then_block))
        grow = ir.Operation.create("torch.prim.If.yield", operands=[buffer], loc=b.location,
                                   ip=ir.InsertionPoint(else_block))
        inner = TorchBuilder(grow, b.location)
        grow.operands[0] = inner.op("aten.cat", buffer.type, inner.tensor_list(pieces), inner.constant_int(0))
        return [choice.result]

    def result(self, b: TorchBuilder, results: list[ir.Value], count) -> ir.Value:
        return results[0]

    def _grown_type(self, b: TorchBuilder) -> ir.Type:
        return b.tensor_type([None, *self.sizes], self.element)

    @property
    def carried_count(self) -> int:
        return 1
