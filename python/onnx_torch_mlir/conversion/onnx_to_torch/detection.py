"""Object detection: NonMaxSuppression (opset 10; 11 changed nothing it reads). MaxRoiPool is in nn_pool.

NonMaxSuppression is a greedy loop with a data-dependent number of results; here it is a fixed
number of tensor steps. For each batch and class, box t *precedes* box s when its score is
higher, or equal with a lower index (the order ONNX's reference and onnxruntime visit them in).
The greedy choice is the fixed point of
    keep[s] = candidate[s] and no box t that precedes s is kept and suppresses s (IoU > threshold),
and iterating it from keep = candidate settles the box of precedence rank k after k steps, so
num_boxes - 1 steps give exactly the greedy result. Each step is one batched matrix product
(how many kept boxes precede and suppress each box), which every backend lowers. A box is
selected when it is kept and fewer than max_output_boxes_per_class kept boxes precede it.
Beyond UNROLL_LIMIT boxes, on Linalg, the greedy loop itself runs in a `torch.prim.Loop` over the
precedence ranks (TOSA and StableHLO take no loop: they unroll up to MAX_UNROLLED_BOXES).

The result lists the selected (batch, class, box) triples ordered by batch, class and precedence.
Each selected box's row is the number of selected boxes before it (a product with a triangular
matrix), and output row k sums the literal triple of the box whose row is k (a matrix product
again).

The number of rows is the declared result's when it is static (a model that declares a wrong
count gets zero rows or loses rows). Else it is the number selected, known only at run time: on
StableHLO and TOSA the rows are computed padded to the most that can be selected (groups x
min(boxes, max_output_boxes_per_class)) and cut to the count read with `aten.item`, one
`aten.slice.Tensor` with a run-time end. StableHLO lowers it as `stablehlo.real_dynamic_slice`.
TOSA's shapes are compile-time constants: there the ops after it run on the padded rows (static)
and each result is cut to the count by a `tensor.extract_slice` outside TOSA
(transforms/tosa_dynamic_rows.py); a padding row is the triple (0, 0, 0), one NMS can select, so
the ops after it compute on padding what they would on a real row. Linalg computes just the rows
selected (an `arange` of the run-time count).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder, broadcast_sizes
from .node import LOOPLESS_TARGETS, OnnxNode
from .registry import converts

# Greedy suppression unrolled, one step per box, up to UNROLL_LIMIT boxes (on TOSA and StableHLO,
# which take no loop, up to MAX_UNROLLED_BOXES); more boxes run in a `torch.prim.Loop` (Linalg).
UNROLL_LIMIT = 64
MAX_UNROLLED_BOXES = 256
MAX_EXACT_FLOAT = 2**24
# StableHLO's rows padded to the most that can be selected: a [rows, boxes] matrix of at most this many elements.
MAX_PADDED_MATCHES = 2**24
# The backends whose rows are computed padded to the most that can be selected, then cut to the count.
PADDED_ROW_TARGETS = ("stablehlo", "tosa")


class _Tensors:
    """Elementwise ops on tensors with numpy broadcasting; a right operand may be a Python number."""

    def __init__(self, b: TorchBuilder):
        self.b = b

    @staticmethod
    def _is_tensor(value) -> bool:
        return isinstance(value, ir.Value) and str(value.type).startswith("!torch.vtensor")

    def _scalar(self, value):
        return value if isinstance(value, ir.Value) else self.b.constant_float(float(value))

    def arith(self, name: str, x, y):
        return self.b.arith(name, x, y)

    def compare(self, name: str, x, y):
        b = self.b
        if self._is_tensor(y):
            return b.op(f"aten.{name}.Tensor", b.broadcast_type(x, y, "i1"), x, y)
        return b.op(f"aten.{name}.Scalar", b.tensor_type(b.info(x).sizes, "i1"), x, self._scalar(y))

    def both(self, *masks):
        result = masks[0]
        for mask in masks[1:]:
            result = self.b.op("aten.logical_and", self.b.broadcast_type(result, mask, "i1"), result, mask)
        return result

    def where(self, condition, x, y):
        b = self.b
        sizes = broadcast_sizes(broadcast_sizes(b.info(condition).sizes, b.info(x).sizes), b.info(y).sizes)
        return b.op("aten.where.self", b.tensor_type(sizes, b.info(x).element), condition, x, y)

    def binary(self, name: str, x, y):
        return self.b.binary(name, x, y)

    def as_float(self, mask):
        return self.b.to_dtype(mask, "f32")


@converts("NonMaxSuppression", since=10)
def non_max_suppression(node: OnnxNode, b: TorchBuilder):
    """selected_indices [num_selected, 3] of (batch, class, box); see the module docstring."""
    boxes_sizes, scores_sizes = node.input_sizes(0), node.input_sizes(1)
    if len(boxes_sizes) != 3 or len(scores_sizes) != 3 or None in boxes_sizes or None in scores_sizes:
        node.fail(f"boxes {boxes_sizes} and scores {scores_sizes} must be 3-D with static shapes")
    batches, count, corners = boxes_sizes
    classes = scores_sizes[1]
    if corners != 4 or scores_sizes[0] != batches or scores_sizes[2] != count:
        node.fail(f"boxes {boxes_sizes} and scores {scores_sizes} do not match: [B, S, 4] and [B, C, S]")
    if count > MAX_UNROLLED_BOXES and node.target in LOOPLESS_TARGETS:
        node.fail(f"{count} boxes per class: {node.target} takes no loop, and unrolled greedy suppression is limited "
                  f"to {MAX_UNROLLED_BOXES} boxes")
    center_point_box = node.attr_int("center_point_box")
    if center_point_box not in (0, 1):
        node.fail(f"center_point_box {center_point_box} is not 0 or 1")
    t = _Tensors(b)
    result_sizes = node.static_result_sizes()
    if not node.has_input(2):  # no max_output_boxes_per_class: nothing is selected
        return _empty_or_zero_rows(b, node, result_sizes)
    boxes = b.to_dtype(node.input(0), "f32")
    scores = b.to_dtype(node.input(1), "f32")
    groups = batches * classes
    precedes = _precedes(b, t, scores, batches, classes, count)  # [B*C, S(t), S(s)] float
    suppresses = _suppresses(node, b, t, boxes, center_point_box, classes)  # [B*C, S, S] float
    candidate = _candidates(node, b, t, scores)  # [B*C, 1, S] float
    blockers = t.binary("aten.mul.Tensor", precedes, suppresses)
    if count <= UNROLL_LIMIT or node.target in LOOPLESS_TARGETS:
        keep = candidate
        for _ in range(count - 1):
            blocked = _bmm(b, keep, blockers)
            keep = t.binary("aten.mul.Tensor", candidate, t.as_float(t.compare("eq", blocked, 0.0)))
    else:
        keep = _greedy_loop(b, t, candidate, blockers, precedes, groups, count)
    before = _bmm(b, keep, precedes)  # kept boxes preceding each box: its rank among those kept
    limit = b.to_dtype(b.reshape(node.input(2), []), "f32")
    selected = t.binary("aten.mul.Tensor", keep, t.as_float(t.compare("lt", before, limit)))
    return _selected_triples(node, b, t, selected, before, groups, classes, count, result_sizes)


def _greedy_loop(b: TorchBuilder, t: _Tensors, candidate, blockers, precedes, groups: int, count: int):
    """keep [G, 1, S] by the greedy loop itself: a `torch.prim.Loop` over precedence ranks r whose
    step decides the box of rank r in every group (kept if a candidate and no kept box blocks it),
    O(S) work per step where the fixed point costs O(S^2)."""
    rank = b.op("aten.sum.dim_IntList", b.tensor_type([groups, count], "f32"), precedes, b.int_list([1]),
                b.constant_bool(False), b.constant_none())  # boxes preceding each box
    ranks = b.literal(np.arange(count, dtype=np.float32).reshape(1, count, 1), "f32")
    at_rank = t.as_float(t.compare("eq", b.unsqueeze(rank, 1), ranks))  # [G, r, s]
    boxes = b.literal(np.broadcast_to(np.arange(count, dtype=np.float32).reshape(1, count, 1), (groups, count, 1)).copy(), "f32")
    order = b.to_dtype(b.op("aten.bmm", b.tensor_type([groups, count, 1], "f32"), at_rank, boxes), "si64")  # [G, r, 1]
    keep = b.full([groups, 1, count], 0.0, "f32")
    true = b.constant_bool(True)
    loop = ir.Operation.create(
        "torch.prim.Loop", results=[keep.type], operands=[b.constant_int(count), true, keep], regions=1,
        loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    body = loop.regions[0].blocks.append(b.type("!torch.int"), keep.type, arg_locs=[b.location] * 2)
    step, kept = body.arguments
    condition = ir.Operation.create("torch.prim.Loop.condition", operands=[true, kept], loc=b.location,
                                    ip=ir.InsertionPoint(body))
    inner = TorchBuilder(condition, b.location)
    it = _Tensors(inner)
    box = inner.op("aten.slice.Tensor", inner.tensor_type([groups, 1, 1], "si64"), order, inner.constant_int(1), step,
                   inner.op("aten.add.int", inner.type("!torch.int"), step, inner.constant_int(1)), inner.constant_int(1))
    column_index = inner.op("aten.broadcast_to", inner.tensor_type([groups, count, 1], "si64"), box,
                            inner.int_list([groups, count, 1]))
    column = inner.op("aten.gather", inner.tensor_type([groups, count, 1], "f32"), blockers, inner.constant_int(2),
                      column_index, inner.constant_bool(False))  # blockers[g, t, box]
    blocked = inner.op("aten.bmm", inner.tensor_type([groups, 1, 1], "f32"), kept, column)
    is_candidate = inner.op("aten.gather", inner.tensor_type([groups, 1, 1], "f32"), candidate, inner.constant_int(2), box,
                            inner.constant_bool(False))
    value = it.binary("aten.mul.Tensor", is_candidate, it.as_float(it.compare("eq", blocked, 0.0)))
    positions = inner.literal(np.arange(count, dtype=np.int64).reshape(1, 1, count), "si64")
    one_hot = it.as_float(it.compare("eq", positions, box))  # [G, 1, S]
    updated = it.binary("aten.add.Tensor", kept, it.binary("aten.mul.Tensor", one_hot, value))
    condition.operands[1] = inner.cast_to(updated, kept.type)
    return loop.results[0]


def _empty_or_zero_rows(b: TorchBuilder, node: OnnxNode, result_sizes):
    rows = 0 if result_sizes is None else result_sizes[0]
    return b.cast_to(b.full([rows, 3], 0, "si64"), node.result_type())


def _bmm(b: TorchBuilder, rows, matrices):
    """[G, 1, S] x [G, S, S] -> [G, 1, S]."""
    sizes = b.info(rows).sizes
    return b.op("aten.bmm", b.tensor_type(sizes, "f32"), rows, matrices)


def _precedes(b: TorchBuilder, t: _Tensors, scores, batches, classes, count):
    """[B*C, S, S]: 1 where box t (row) comes before box s (column) in the greedy order."""
    grouped = b.reshape(scores, [batches * classes, count])
    row = b.unsqueeze(grouped, 2)  # score of t
    column = b.unsqueeze(grouped, 1)  # score of s
    earlier = b.literal(np.triu(np.ones((count, count), dtype=bool), 1), "i1")  # t < s
    higher = t.compare("gt", row, column)
    tie = t.both(t.compare("eq", row, column), earlier)
    either = b.op("aten.logical_or", b.broadcast_type(higher, tie, "i1"), higher, tie)
    return t.as_float(either)


def _candidates(node: OnnxNode, b: TorchBuilder, t: _Tensors, scores):
    """[B*C, 1, S]: 1 where the score passes score_threshold (every box without one)."""
    batches, classes, count = b.info(scores).sizes
    grouped = b.reshape(scores, [batches * classes, 1, count])
    if not node.has_input(4):
        return b.full([batches * classes, 1, count], 1.0, "f32")
    threshold = b.to_dtype(b.reshape(node.input(4), []), "f32")
    return t.as_float(t.compare("gt", grouped, threshold))


def _suppresses(node: OnnxNode, b: TorchBuilder, t: _Tensors, boxes, center_point_box: int, classes: int):
    """[B*C, S, S]: 1 where boxes t and s overlap with IoU above iou_threshold (ONNX's test:
    degenerate boxes and empty intersections never suppress)."""
    batches, count, _ = b.info(boxes).sizes
    sides = [_select(b, boxes, 2, i) for i in range(4)]  # [B, S] each
    if center_point_box:
        x_center, y_center, width, height = sides
        half_w, half_h = t.arith("mul", width, 0.5), t.arith("mul", height, 0.5)
        x_min, x_max = t.arith("sub", x_center, half_w), t.arith("add", x_center, half_w)
        y_min, y_max = t.arith("sub", y_center, half_h), t.arith("add", y_center, half_h)
    else:
        y1, x1, y2, x2 = sides
        y_min, y_max = t.binary("aten.minimum", y1, y2), t.binary("aten.maximum", y1, y2)
        x_min, x_max = t.binary("aten.minimum", x1, x2), t.binary("aten.maximum", x1, x2)

    def pairwise(op, values):  # [B, S, 1] op [B, 1, S]
        return t.binary(op, b.unsqueeze(values, 2), b.unsqueeze(values, 1))

    overlap_w = t.arith("sub", pairwise("aten.minimum", x_max), pairwise("aten.maximum", x_min))
    overlap_h = t.arith("sub", pairwise("aten.minimum", y_max), pairwise("aten.maximum", y_min))
    intersection = t.arith("mul", overlap_w, overlap_h)
    area = t.arith("mul", t.arith("sub", x_max, x_min), t.arith("sub", y_max, y_min))  # [B, S]
    area_row, area_column = b.unsqueeze(area, 2), b.unsqueeze(area, 1)
    union = t.arith("sub", t.arith("add", area_row, area_column), intersection)
    positive_union = t.compare("gt", union, 0.0)
    safe_union = t.where(positive_union, union, b.full([1], 1.0, "f32"))
    iou = t.arith("div", intersection, safe_union)
    threshold = b.to_dtype(b.reshape(node.input(3), []), "f32") if node.has_input(3) else 0.0
    suppress = t.both(
        t.compare("gt", overlap_w, 0.0), t.compare("gt", overlap_h, 0.0), t.compare("gt", intersection, 0.0),
        t.compare("gt", area_row, 0.0), t.compare("gt", area_column, 0.0), positive_union,
        t.compare("gt", iou, threshold),
    )
    suppress = t.as_float(suppress)  # [B, S, S]
    suppress = b.unsqueeze(suppress, 1)
    suppress = b.op(
        "aten.broadcast_to", b.tensor_type([batches, classes, count, count], "f32"), suppress,
        b.int_list([batches, classes, count, count]),
    )
    return b.reshape(suppress, [batches * classes, count, count])


def _select(b: TorchBuilder, x, dim: int, index: int):
    info = b.info(x)
    sizes = [size for i, size in enumerate(info.sizes) if i != dim]
    return b.op("aten.select.int", b.tensor_type(sizes, info.element), x, b.constant_int(dim), b.constant_int(index))


def _selected_triples(node, b: TorchBuilder, t: _Tensors, selected, before, groups, classes, count, result_sizes):
    """The [rows, 3] result: row k holds (batch, class, box) of the selected box whose position in
    the (batch, class, precedence) order is k.

    With a declared static row count, that many rows. Else, on StableHLO and TOSA, the rows are
    computed padded to the most that can be selected (every group's min(boxes,
    max_output_boxes_per_class)), then cut to the number selected with a slice whose end is read at
    run time: the only dynamic op, which StableHLO lowers as `real_dynamic_slice` (the count is
    `aten.item` of an integer 0-d tensor, which `transforms/stablehlo_torch_forms.py` makes an
    `aten.Int.Tensor`) and TOSA as a `tensor.extract_slice` after the ops that read the rows
    (`transforms/tosa_dynamic_rows.py`). Elsewhere (Linalg) the rows are exactly the number
    selected: an `arange` of the run-time count."""
    selected = b.reshape(selected, [groups, count])
    before = b.reshape(before, [groups, count])
    per_group = b.op(
        "aten.sum.dim_IntList", b.tensor_type([groups, 1], "f32"), selected, b.int_list([1]), b.constant_bool(True),
        b.constant_none(),
    )
    earlier_groups = b.literal(np.tril(np.ones((groups, groups), dtype=np.float32), -1), "f32")  # [g, g'<g]
    group_start = b.op("aten.mm", b.tensor_type([groups, 1], "f32"), earlier_groups, per_group)
    position = b.flatten(t.arith("add", before, group_start))  # [G*S]
    flags = b.flatten(selected)
    if result_sizes is not None:
        if result_sizes[1:] != [3]:
            node.fail(f"selected_indices is declared {result_sizes}, not [num_selected, 3]")
        rows = result_sizes[0]
        if rows * groups * count >= MAX_EXACT_FLOAT:
            node.fail("too many boxes: the result is computed in float32")
        row_numbers = b.literal(np.arange(rows, dtype=np.float32), "f32")
        return b.cast_to(_triples_at_rows(b, t, row_numbers, position, flags, groups, classes, count, "f32"),
                         node.result_type())
    total = b.item(b.to_dtype(b.op("aten.sum", b.tensor_type([], "f32"), flags, b.constant_none()), "si64"))
    if node.target not in PADDED_ROW_TARGETS:
        row_numbers = b.to_dtype(b.arange(total), "f32")
        return b.cast_to(_triples_at_rows(b, t, row_numbers, position, flags, groups, classes, count, "f32"),
                         node.result_type())
    padded_rows = groups * _most_selected_per_group(node, count)
    if padded_rows * groups * count > MAX_PADDED_MATCHES:
        node.fail(f"up to {padded_rows} selected boxes among {groups * count}: on {node.target} the rows are computed padded "
                  f"to that count, a {padded_rows} x {groups * count} matrix, over the limit of {MAX_PADDED_MATCHES} "
                  "elements: give max_output_boxes_per_class as a smaller literal, declare a static selected_indices "
                  "shape, or compile to linalg-on-tensors")
    if padded_rows == 0:
        return b.cast_to(b.full([0, 3], 0, "si64"), node.result_type())
    row_numbers = b.literal(np.arange(padded_rows, dtype=np.float32), "f32")
    product_element = "si64" if node.target == "stablehlo" else "f32"
    values = _triples_at_rows(b, t, row_numbers, position, flags, groups, classes, count, product_element)
    cut = b.op("aten.slice.Tensor", b.tensor_type([None, 3], "si64"), values, b.constant_int(0), b.constant_int(0),
               total, b.constant_int(1))
    return b.cast_to(cut, node.result_type())


def _most_selected_per_group(node: OnnxNode, count: int) -> int:
    """An upper bound of the boxes one (batch, class) selects: all of them, or fewer when
    max_output_boxes_per_class is a literal."""
    limit = node.constant_input(2)
    if limit is None or limit.size != 1:
        return count
    return max(0, min(count, int(limit.reshape(-1)[0])))


def _triples_at_rows(b: TorchBuilder, t: _Tensors, row_numbers, position, flags, groups, classes, count, element: str):
    """[rows, 3] si64: row k (of `row_numbers`, f32) is the triple of the selected box at `position`
    k, zeros where none is.

    The triples are summed by a matrix product in `element`: f32 (TOSA has no integer product of
    this form), or si64 for StableHLO's padded rows (an f32 product converted to si64 before a
    dynamic slice and a concatenation of its columns fails to compile in IREE: "'memref.alloca' op
    expected no unbounded stack allocations")."""
    matches = t.both(t.compare("eq", b.unsqueeze(row_numbers, 1), b.unsqueeze(position, 0)),
                     b.unsqueeze(t.compare("gt", flags, 0.0), 0))  # [rows, G*S]
    group, box = np.divmod(np.arange(groups * count), count)
    triples = np.stack([group // classes, group % classes, box], axis=1)
    rows = b.info(row_numbers).sizes[0]
    values = b.op("aten.mm", b.tensor_type([rows, 3], element), b.to_dtype(matches, element),
                  b.literal(triples.astype(np.float32 if element == "f32" else np.int64), element))
    return b.to_dtype(values, "si64")
