"""Rows of a data-dependent count, found again padded: for ops that cannot compute on a run-time size.

On StableHLO and TOSA a result whose size depends on the data (NonZero's positions, Compress's
slices, NonMaxSuppression's selected boxes) is computed padded to the most there can be, with the
count as a 0-d integer tensor, and cut to it by `aten.slice.Tensor(padded, dim, 0, aten.item(count),
1)`. The ops that read the cut rows one by one run on the padded rows in the end too (TOSA:
transforms/torch/dynamic_rows.py), but an op that reads the rows together (NonMaxSuppression
comparing every box with every other, a Gather picking rows of them) needs the padded rows and the
count at conversion time, to mask the padding itself. `padded_rows(value)` finds them: it follows
`value` back through the ops from the cut that compute row by row and builds the same ops again on
the padded rows (static types), whose first `count` rows are those of `value`.

A padding row is one its producer could give (NonZero's repeats the last position), so an op
computing on it reads nothing out of bounds; the ops built here keep that true.

The padded rows are static but on StableHLO, where NonZero and Compress over a number of elements
known only at run time pad to that number: there the padded rows have a run-time size along the
rows (their other dims static), which the ops built here keep (`_padded_dims`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .constants import literal_value
from .types import defining_op, tensor_info


# The backends whose data-dependent counts are computed padded, then cut to the run-time count.
PADDED_COUNT_TARGETS = ("tosa", "stablehlo")


@dataclass(frozen=True)
class PaddedRows:
    """`padded` (static sizes, but along `axis` on StableHLO) holds the rows of a value along `axis`;
    the first `count` (a 0-d integer tensor) are the value's rows."""

    padded: ir.Value
    count: ir.Value
    axis: int


# Same-shape ops of one tensor operand (and scalars): computed on padded rows as they are.
_UNARY = {"torch.aten.to.dtype", "torch.aten.neg", "torch.aten.abs", "torch.aten.logical_not", "torch.aten.add.Scalar",
          "torch.aten.sub.Scalar", "torch.aten.mul.Scalar", "torch.aten.lt.Scalar", "torch.aten.le.Scalar",
          "torch.aten.gt.Scalar", "torch.aten.ge.Scalar", "torch.aten.eq.Scalar", "torch.aten.ne.Scalar",
          "torch.aten.clamp", "torch.aten.remainder.Scalar", "torch.aten.floor", "torch.aten.sigmoid"}
# Elementwise ops of several tensors, numpy-broadcast.
_ELEMENTWISE = {"torch.aten.where.self", "torch.aten.add.Tensor", "torch.aten.sub.Tensor", "torch.aten.mul.Tensor",
                "torch.aten.div.Tensor", "torch.aten.logical_and", "torch.aten.logical_or", "torch.aten.minimum",
                "torch.aten.maximum", "torch.aten.lt.Tensor", "torch.aten.le.Tensor", "torch.aten.gt.Tensor",
                "torch.aten.ge.Tensor", "torch.aten.eq.Tensor", "torch.aten.ne.Tensor",
                "torch.aten.where.ScalarOther", "torch.aten.where.ScalarSelf"}


def padded_rows(b: TorchBuilder, value: ir.Value) -> PaddedRows | None:
    """The padded rows of `value`, built again in front of the node `b` converts, or None when
    `value` does not come from a cut to a run-time count through row-wise ops."""
    return _Finder(b).find(value)


def same_count(first: ir.Value, second: ir.Value, depth: int = 40) -> bool:
    """Whether two counts are the same number: the same value, or values computed by the same ops
    from the same values (two Compress nodes with one condition each count its true elements)."""
    if first == second:
        return True
    first_op, second_op = defining_op(first), defining_op(second)
    if depth == 0 or first_op is None or second_op is None or first_op.name != second_op.name:
        return False
    if first.type != second.type or len(first_op.operands) != len(second_op.operands) or first_op.regions:
        return False
    if len(first_op.results) != 1 or len(second_op.results) != 1:
        return False
    if _attributes(first_op) != _attributes(second_op):
        return False
    return all(same_count(a, b, depth - 1) for a, b in zip(first_op.operands, second_op.operands))


def _attributes(op: ir.Operation) -> dict:
    named = [op.attributes[index] for index in range(len(op.attributes))]
    return {attribute.name: str(attribute.attr) for attribute in named}


def _sizes(value: ir.Value):
    info = tensor_info(value.type)
    return None if info is None or info.sizes is None else list(info.sizes)


def _constant_int(value: ir.Value):
    op = defining_op(value)
    if op is None or op.name != "torch.constant.int":
        return None
    return ir.IntegerAttr(op.attributes["value"]).value


def _is_tensor(value: ir.Value) -> bool:
    return str(value.type).startswith("!torch.vtensor")


class _Finder:
    def __init__(self, b: TorchBuilder):
        self.b = b
        self.found: dict = {}

    def find(self, value: ir.Value) -> PaddedRows | None:
        if value not in self.found:
            self.found[value] = self._find(value)
        return self.found[value]

    def _find(self, value: ir.Value) -> PaddedRows | None:
        sizes = _sizes(value)
        op = defining_op(value)
        if sizes is None or sizes.count(None) != 1 or op is None:
            return None
        if op.name in ("torch.tensor_static_info_cast", "builtin.unrealized_conversion_cast"):
            source = op.operands[0]
            if not _is_tensor(source) or _sizes(source) is None or len(_sizes(source)) != len(sizes):
                return None
            return self.find(source)
        if op.name == "torch.aten.slice.Tensor":
            return self._cut(op, sizes) or self._slice_other_dim(op, sizes) or self._first_rows(op, sizes)
        rule = _RULES.get(op.name)
        if rule is not None:
            return rule(self, op, sizes)
        if op.name in _UNARY:
            return self._rebuilt(op, sizes, {0})
        if op.name in _ELEMENTWISE:
            return self._rebuilt(op, sizes, {index for index, operand in enumerate(op.operands) if _is_tensor(operand)})
        return None

    def _rebuilt(self, op: ir.Operation, sizes: list, tensor_operands: set, axis: int | None = None):
        """`op` again, on the padded rows of its operands in `tensor_operands` (the others must be
        static and not span the rows: broadcast along them)."""
        axis = sizes.index(None) if axis is None else axis
        rank = len(sizes)
        operands = list(op.operands)
        count = None
        rows_found = False
        for index in tensor_operands:
            operand = operands[index]
            operand_sizes = _sizes(operand)
            if operand_sizes is None:
                return None
            aligned = axis - (rank - len(operand_sizes))
            if None in operand_sizes:
                rows = self.find(operand)
                if rows is None or rows.axis != aligned or (count is not None and not same_count(rows.count, count)):
                    return None
                count, operands[index], rows_found = rows.count, rows.padded, True
            elif 0 <= aligned < len(operand_sizes) and operand_sizes[aligned] != 1:
                return None
        if not rows_found:
            return None
        for index, operand in enumerate(operands):
            if index not in tensor_operands and self._sizes_rows(operand):
                return None  # a size of the rows: their count, which the padded rows do not have
        padded_sizes = list(sizes)
        padded_sizes[axis] = self._rows_of(operands, tensor_operands, axis, rank)
        result_type = self.b.tensor_type(padded_sizes, tensor_info(op.results[0].type).element)
        result = self.b.op(op.name.removeprefix("torch."), result_type, *operands)
        return PaddedRows(result, count, axis)

    def _sizes_rows(self, value: ir.Value) -> bool:
        """Whether the scalar `value` is `aten.size.int` along the rows of a value (their count, which
        the padded rows do not have). A size of another run-time dim (the data's, by which a
        Gather's negative indices wrap) is a number like any other."""
        size = defining_op(value)
        if size is None or size.name != "torch.aten.size.int":
            return False
        sized, dim = size.operands[0], _constant_int(size.operands[1])
        sized_sizes = _sizes(sized)
        if dim is None or sized_sizes is None:
            return True
        rows = self.find(sized)
        return rows is not None and rows.axis == dim % len(sized_sizes)

    def _rows_of(self, operands, tensor_operands, axis, rank):
        for index in tensor_operands:
            operand_sizes = _sizes(operands[index])
            aligned = axis - (rank - len(operand_sizes))
            if 0 <= aligned < len(operand_sizes) and operand_sizes[aligned] != 1:
                return operand_sizes[aligned]
        raise AssertionError("no operand along the rows")

    def _cut(self, op: ir.Operation, sizes: list):
        x, dim, start, end, step = list(op.operands)[:5]
        item = defining_op(end)
        x_sizes = _sizes(x)
        if item is None or item.name != "torch.aten.item" or x_sizes is None:
            return None
        if _constant_int(start) != 0 or _constant_int(step) != 1 or _constant_int(dim) is None:
            return None
        if any(size is None for position, size in enumerate(x_sizes) if position != _constant_int(dim) % len(x_sizes)):
            return None  # padded along the rows only
        count_info = tensor_info(item.operands[0].type)
        if count_info is None or count_info.sizes != () or count_info.element not in ("si64", "si32"):
            return None
        return PaddedRows(x, item.operands[0], _constant_int(dim) % len(x_sizes))

    def _slice_other_dim(self, op: ir.Operation, sizes: list):
        dim = _constant_int(op.operands[1])
        if dim is None or dim % len(sizes) == sizes.index(None):
            return None
        if any(_constant_int(bound) is None and defining_op(bound).name != "torch.constant.none"
               for bound in list(op.operands)[2:5]):
            return None
        return self._rebuilt(op, sizes, {0})

    def _first_rows(self, op: ir.Operation, sizes: list):
        """`x[:end]` along the rows with a constant end (`selected[:max_det]`): the first min(rows,
        end) padded rows, min(count, end) of them real."""
        x, dim, start, end, step = list(op.operands)[:5]
        rows = self.find(x)
        end = _constant_int(end)
        if rows is None or _constant_int(dim) is None or _constant_int(dim) % len(sizes) != rows.axis:
            return None
        if _constant_int(start) != 0 or _constant_int(step) != 1 or end is None or end < 0:
            return None
        if _sizes(rows.padded)[rows.axis] is None:
            return None  # the first min(rows, end) of a run-time number of rows: not a static size
        kept = min(_sizes(rows.padded)[rows.axis], end)
        result = self.b.slice_range(rows.padded, rows.axis, 0, kept)
        count_element = tensor_info(rows.count.type).element
        count = self.b.op("aten.minimum", rows.count.type, rows.count, self.b.scalar_tensor_literal(kept, count_element))
        return PaddedRows(result, count, rows.axis)

    def _cat(self, op: ir.Operation, sizes: list):
        """A concatenation along another dim of pieces with the same rows."""
        construct = defining_op(op.operands[0])
        dim = _constant_int(op.operands[1])
        axis = sizes.index(None)
        if construct is None or construct.name != "torch.prim.ListConstruct" or dim is None or dim % len(sizes) == axis:
            return None
        pieces = [self.find(piece) for piece in construct.operands]
        if any(piece is None or piece.axis != axis or not same_count(piece.count, pieces[0].count) for piece in pieces):
            return None
        padded_sizes = list(sizes)
        padded_sizes[axis] = _sizes(pieces[0].padded)[axis]
        if any(_sizes(piece.padded)[axis] != padded_sizes[axis] for piece in pieces):
            return None
        result = self.b.op("aten.cat", self.b.tensor_type(padded_sizes, tensor_info(op.results[0].type).element),
                           self.b.tensor_list([piece.padded for piece in pieces]), op.operands[1])
        return PaddedRows(result, pieces[0].count, axis)

    def _transpose(self, op: ir.Operation, sizes: list):
        x = op.operands[0]
        rows = self.find(x)
        first, second = _constant_int(op.operands[1]), _constant_int(op.operands[2])
        if rows is None or first is None or second is None:
            return None
        rank = len(sizes)
        permutation = list(range(rank))
        permutation[first % rank], permutation[second % rank] = permutation[second % rank], permutation[first % rank]
        axis = permutation.index(rows.axis)
        padded_sizes = [_sizes(rows.padded)[position] for position in permutation]
        result = self.b.op("aten.transpose.int", self.b.tensor_type(padded_sizes, tensor_info(x.type).element),
                           rows.padded, op.operands[1], op.operands[2])
        return PaddedRows(result, rows.count, axis)

    def _select(self, op: ir.Operation, sizes: list):
        """`select.int` along another dim, or `squeeze.dim` of another dim."""
        x = op.operands[0]
        rows = self.find(x)
        dim = _constant_int(op.operands[1])
        if rows is None or dim is None or dim % len(_sizes(x)) == rows.axis:
            return None
        dim %= len(_sizes(x))
        padded_sizes = [size for position, size in enumerate(_sizes(rows.padded)) if position != dim]
        result_type = self.b.tensor_type(padded_sizes, tensor_info(x.type).element)
        result = self.b.op(op.name.removeprefix("torch."), result_type, rows.padded, *list(op.operands)[1:])
        return PaddedRows(result, rows.count, rows.axis - (dim < rows.axis))

    def _unsqueeze(self, op: ir.Operation, sizes: list):
        rows = self.find(op.operands[0])
        dim = _constant_int(op.operands[1])
        if rows is None or dim is None:
            return None
        dim %= len(sizes)
        padded_sizes = _sizes(rows.padded)
        padded_sizes.insert(dim, 1)
        result = self.b.op("aten.unsqueeze", self.b.tensor_type(padded_sizes, tensor_info(op.results[0].type).element),
                           rows.padded, op.operands[1])
        return PaddedRows(result, rows.count, rows.axis + (dim <= rows.axis))

    def _index_select(self, op: ir.Operation, sizes: list):
        """Rows of a 1-D index picking from a source static but along the picked dim (a detector's
        boxes on a dynamic image size), or a static pick along another dim."""
        source, dim_value, index = op.operands
        dim = _constant_int(dim_value)
        source_sizes, index_sizes = _sizes(source), _sizes(index)
        if dim is None or source_sizes is None or index_sizes is None:
            return None
        dim %= len(source_sizes)
        if None in index_sizes and None not in source_sizes[:dim] + source_sizes[dim + 1:]:
            rows = self.find(index)
            if rows is None:
                return None
            padded_sizes = list(source_sizes)
            padded_sizes[dim] = _sizes(rows.padded)[0]
            result = self.b.op("aten.index_select", self.b.tensor_type(padded_sizes, tensor_info(source.type).element),
                               source, dim_value, rows.padded)
            return PaddedRows(result, rows.count, dim)
        if None not in index_sizes and sizes.index(None) != dim:
            return self._rebuilt(op, sizes, {0})
        return None

    def _broadcast(self, op: ir.Operation, sizes: list):
        """`broadcast_to`/`expand` along other dims (ONNX Expand): the rows' target size must be
        their own count (-1, or a size of rows of the same count, as an exporter's
        `max(shape(a)[0], shape(b)[0])` is), the other result sizes static."""
        x, target = op.operands[0], op.operands[1]
        rows = self.find(x)
        construct = defining_op(target)
        if rows is None or construct is None or construct.name != "torch.prim.ListConstruct":
            return None
        axis = len(sizes) - len(_sizes(x)) + rows.axis
        padded_sizes = []
        for position, size in enumerate(construct.operands):
            if position == axis:
                if not self._is_row_count(size, rows.count):
                    return None
                padded_sizes.append(_sizes(rows.padded)[rows.axis])
            elif sizes[position] is None:
                return None
            else:
                padded_sizes.append(sizes[position])
        dims = self._padded_dims(padded_sizes, axis, rows)
        result = self.b.op(op.name.removeprefix("torch."), self.b.tensor_type(padded_sizes, tensor_info(x.type).element),
                           rows.padded, self.b.int_list(dims), *list(op.operands)[2:])
        return PaddedRows(result, rows.count, axis)

    def _is_row_count(self, size: ir.Value, count: ir.Value, depth: int = 8) -> bool:
        """Whether the !torch.int `size` is the row count `count` at run time."""
        if _constant_int(size) == -1:
            return True
        op = defining_op(size)
        if op is None or depth == 0:
            return False
        if op.name == "torch.aten.size.int":
            rows = self.find(op.operands[0])
            dim = _constant_int(op.operands[1])
            return (rows is not None and dim is not None and dim % len(_sizes(op.operands[0])) == rows.axis
                    and same_count(rows.count, count))
        if op.name in ("torch.prim.max.int", "torch.prim.min.int"):
            return all(self._is_row_count(operand, count, depth - 1) for operand in op.operands)
        if op.name != "torch.aten.item":
            return False
        return same_count(op.operands[0], count) or self._holds_row_count(op.operands[0], (), count, depth - 1)

    def _holds_row_count(self, tensor: ir.Value, index: tuple, count: ir.Value, depth: int) -> bool:
        """Whether element `index` of the small integer tensor `tensor` is the row count: a shape
        tensor as ONNX computes it (Shape, Gather, Unsqueeze, Concat, Where on a literal mask)."""
        op = defining_op(tensor)
        if op is None or depth == 0:
            return False
        name = op.name
        if name == "torch.aten.select.int" and not index:
            dim, position = _constant_int(op.operands[1]), _constant_int(op.operands[2])
            return dim == 0 and position is not None and \
                self._holds_row_count(op.operands[0], (position,), count, depth - 1)
        if name in ("torch.aten.to.dtype", "torch.aten.view", "torch.aten.reshape", "torch.aten.unsqueeze",
                    "torch.aten.squeeze.dim", "torch.aten.squeeze"):
            source_sizes = _sizes(op.operands[0])
            if source_sizes is None or len(source_sizes) > 1 or len(_sizes(tensor)) > 1:
                return False  # the same flat position in a 0-d or 1-d tensor
            source_index = (index[0] if index else 0,) if source_sizes else ()
            return self._holds_row_count(op.operands[0], source_index, count, depth - 1)
        if name == "torch.prim.NumToTensor.Scalar":
            return self._is_row_count(op.operands[0], count, depth - 1)
        if name == "torch.aten.tensor":
            construct = defining_op(op.operands[0])
            if construct is None or construct.name != "torch.prim.ListConstruct" or len(index) != 1:
                return False
            return self._is_row_count(construct.operands[index[0]], count, depth - 1)
        if name == "torch.aten.cat" and len(index) == 1:
            return self._holds_row_count_in_pieces(op, index[0], count, depth)
        if name == "torch.aten.where.self":
            mask = literal_value(op.operands[0])
            if mask is None:
                return False
            chosen = op.operands[1] if bool(np.broadcast_to(mask, _sizes(tensor))[index]) else op.operands[2]
            return _sizes(chosen) == _sizes(tensor) and self._holds_row_count(chosen, index, count, depth - 1)
        return False

    def _holds_row_count_in_pieces(self, cat: ir.Operation, position: int, count: ir.Value, depth: int) -> bool:
        construct = defining_op(cat.operands[0])
        if construct is None or construct.name != "torch.prim.ListConstruct":
            return False
        for piece in construct.operands:
            piece_sizes = _sizes(piece)
            if piece_sizes is None or len(piece_sizes) != 1 or piece_sizes[0] is None:
                return False
            if position < piece_sizes[0]:
                return self._holds_row_count(piece, (position,), count, depth - 1)
            position -= piece_sizes[0]
        return False

    def _permute(self, op: ir.Operation, sizes: list):
        x = op.operands[0]
        rows = self.find(x)
        construct = defining_op(op.operands[1])
        if rows is None or construct is None or construct.name != "torch.prim.ListConstruct":
            return None
        permutation = [_constant_int(value) for value in construct.operands]
        if None in permutation:
            return None
        rank = len(sizes)
        permutation = [position % rank for position in permutation]
        padded_sizes = [_sizes(rows.padded)[position] for position in permutation]
        result = self.b.op("aten.permute", self.b.tensor_type(padded_sizes, tensor_info(x.type).element), rows.padded,
                           op.operands[1])
        return PaddedRows(result, rows.count, permutation.index(rows.axis))

    def _reshape(self, op: ir.Operation, sizes: list):
        """A reshape that keeps the rows a dim of their own: the dims before and after them regroup,
        their products unchanged, so each row stays one contiguous block."""
        x = op.operands[0]
        rows = self.find(x)
        if rows is None:
            return None
        padded_sizes = _sizes(rows.padded)
        axis = sizes.index(None)
        before, after = padded_sizes[:rows.axis], padded_sizes[rows.axis + 1:]
        if int(np.prod(before)) != int(np.prod(sizes[:axis])) or int(np.prod(after)) != int(np.prod(sizes[axis + 1:])):
            return None
        result_sizes = list(sizes)
        result_sizes[axis] = padded_sizes[rows.axis]
        result = self.b.reshape(rows.padded, self._padded_dims(result_sizes, axis, rows), result_sizes)
        return PaddedRows(result, rows.count, axis)

    def _padded_dims(self, sizes: list, axis: int, rows: PaddedRows) -> list:
        """`sizes` as a size list: along the rows, their padded number (a run-time size of the
        padded rows on StableHLO)."""
        dims = list(sizes)
        dims[axis] = self.b.dim(rows.padded, rows.axis)
        return dims


_RULES = {
    "torch.aten.broadcast_to": _Finder._broadcast,
    "torch.aten.expand": _Finder._broadcast,
    "torch.aten.cat": _Finder._cat,
    "torch.aten.permute": _Finder._permute,
    "torch.aten.reshape": _Finder._reshape,
    "torch.aten.view": _Finder._reshape,
    "torch.aten._unsafe_view": _Finder._reshape,
    "torch.aten.transpose.int": _Finder._transpose,
    "torch.aten.select.int": _Finder._select,
    "torch.aten.squeeze.dim": _Finder._select,
    "torch.aten.unsqueeze": _Finder._unsqueeze,
    "torch.aten.index_select": _Finder._index_select,
}
