"""Object detection: NonMaxSuppression (opset 10; 11 changed nothing it reads). MaxRoiPool is in nn_pool.

NonMaxSuppression is a greedy loop with a data-dependent number of results; here it is a fixed
number of tensor steps. For each batch and class, box t *precedes* box s when its score is
higher, or equal with a lower index (ONNX's reference's order; the specification leaves the order
of equal scores open, and onnxruntime's CPU kernel takes them as its `std::priority_queue`, whose
comparator reads the score only, pops them: another order, which no index rule reproduces).
The greedy choice is the fixed point of
    keep[s] = candidate[s] and no box t that precedes s is kept and suppresses s (IoU > threshold),
and iterating it from keep = candidate settles the box of precedence rank k after k steps, so
num_boxes - 1 steps give exactly the greedy result. Each step is one batched matrix product
(how many kept boxes precede and suppress each box), which every backend lowers. A box is
selected when it is kept and fewer than max_output_boxes_per_class kept boxes precede it.

Beyond UNROLL_LIMIT boxes (a YOLO head's 8400), or with a box count known only at run time, the
fixed point's [boxes, boxes] matrices are too large, and the greedy loop itself runs instead
(_greedy_steps): a tensor loop, which every backend takes, each step keeping every group's best
box still alive, as many steps as the most boxes a group keeps. A box count known only at run time
(boxes selected by NonZero or Compress) is taken as it is on Linalg; on StableHLO and TOSA, which
need the loop's shapes static, the boxes are taken padded as their producer computed them, with
the run-time count masking the padding out (padded_rows.py); a box count that is a dynamic graph
input has no bound there and needs --dim.

The result lists the selected (batch, class, box) triples ordered by batch, class and precedence.
In the fixed point, each selected box's row is the number of selected boxes before it (a product
with a triangular matrix), and output row k sums the literal triple of the box whose row is k (a
matrix product again). The greedy loop records each group's kept boxes in order, and output row k
reads the one of its group at k minus the group's first row.

The number of rows is the declared result's when it is static (a model that declares a wrong
count gets zero rows or loses rows). Else it is the number selected, known only at run time: on
StableHLO and TOSA the rows are computed padded to the most that can be selected (groups x
min(boxes, max_output_boxes_per_class)) and cut to the count read with `aten.item`, one
`aten.slice.Tensor` with a run-time end. StableHLO lowers it as `stablehlo.real_dynamic_slice`.
TOSA's shapes are compile-time constants: there the ops after it run on the padded rows (static)
and each result is cut to the count by a `tensor.extract_slice` outside TOSA
(transforms/torch/dynamic_rows.py); a padding row is the triple (0, 0, 0), one NMS can select, so
the ops after it compute on padding what they would on a real row. Linalg computes just the rows
selected (an `arange` of the run-time count).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import INT64_MAX, TorchBuilder, broadcast_sizes
from .node import OnnxNode
from .padded_rows import padded_rows, same_count
from .registry import converts

# Greedy suppression as a fixed point, one step per box, up to UNROLL_LIMIT boxes; more boxes, or a
# box count known only at run time, run the greedy loop itself (_greedy_steps).
UNROLL_LIMIT = 64
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
    if len(boxes_sizes) != 3 or len(scores_sizes) != 3:
        node.fail(f"boxes {boxes_sizes} and scores {scores_sizes} must be 3-D: [B, S, 4] and [B, C, S]")
    batches, count, corners = boxes_sizes
    classes = scores_sizes[1]
    if corners != 4 or scores_sizes[0] != batches or scores_sizes[2] != count:
        node.fail(f"boxes {boxes_sizes} and scores {scores_sizes} do not match: [B, S, 4] and [B, C, S]")
    if batches is None or classes is None:
        node.fail(f"boxes {boxes_sizes} and scores {scores_sizes}: the batch and class counts must be static (fix "
                  "them with --dim NAME=SIZE); the box count may be dynamic")
    center_point_box = node.attr_int("center_point_box")
    if center_point_box not in (0, 1):
        node.fail(f"center_point_box {center_point_box} is not 0 or 1")
    t = _Tensors(b)
    result_sizes = node.static_result_sizes()
    if not node.has_input(2):  # no max_output_boxes_per_class: nothing is selected
        return _empty_or_zero_rows(b, node, result_sizes)
    boxes = b.to_dtype(node.input(0), "f32")
    scores = b.to_dtype(node.input(1), "f32")
    if count is None or count > UNROLL_LIMIT:
        valid = None
        if count is None and node.target in PADDED_ROW_TARGETS:
            boxes, scores, valid = _padded_boxes(node, b, boxes, scores)
        return _greedy_steps(node, b, boxes, scores, center_point_box, valid, result_sizes)
    groups = batches * classes
    precedes = _precedes(b, t, scores, batches, classes, count)  # [B*C, S(t), S(s)] float
    suppresses = _suppresses(node, b, t, boxes, center_point_box, classes)  # [B*C, S, S] float
    candidate = _candidates(node, b, t, scores)  # [B*C, 1, S] float
    blockers = t.binary("aten.mul.Tensor", precedes, suppresses)
    keep = candidate
    for _ in range(count - 1):
        blocked = _bmm(b, keep, blockers)
        keep = t.binary("aten.mul.Tensor", candidate, t.as_float(t.compare("eq", blocked, 0.0)))
    before = _bmm(b, keep, precedes)  # kept boxes preceding each box: its rank among those kept
    limit = b.to_dtype(b.reshape(node.input(2), []), "f32")
    selected = t.binary("aten.mul.Tensor", keep, t.as_float(t.compare("lt", before, limit)))
    return _selected_triples(node, b, t, selected, before, groups, classes, count, result_sizes)


def _padded_boxes(node: OnnxNode, b: TorchBuilder, boxes, scores):
    """(boxes, scores, count): the box count is known only at run time, so on StableHLO and TOSA the
    boxes are taken padded (`padded_rows`: the rows of a NonZero, Compress or NonMaxSuppression
    before their cut) with the run-time count, which masks the padding out."""
    padded_boxes, padded_scores = padded_rows(b, boxes), padded_rows(b, scores)
    if (padded_boxes is None or padded_scores is None or padded_boxes.axis != 1 or padded_scores.axis != 2
            or not same_count(padded_boxes.count, padded_scores.count)):
        node.fail("the box count is known only at run time and does not come from a data-dependent count "
                  f"(NonZero, Compress, NonMaxSuppression) this conversion can bound: {node.target} needs it bounded; "
                  "fix the dims it comes from with --dim NAME=SIZE, or compile to linalg-on-tensors")
    return padded_boxes.padded, padded_scores.padded, padded_boxes.count


def _greedy_steps(node: OnnxNode, b: TorchBuilder, boxes, scores, center_point_box: int, valid, result_sizes):
    """NonMaxSuppression as the greedy loop itself, for many boxes or a run-time box count: each step
    takes, in every (batch, class) group, the best box still alive (the first on equal scores: the
    precedence order), keeps it and removes it and the boxes it suppresses. O(groups x boxes) work
    and memory per step (the fixed point's matrices are O(boxes^2)); the loop stops when no group has
    a box alive or every group kept max_output_boxes_per_class, so it runs as many steps as the most
    boxes a group keeps. A tensor loop (its condition a 0-d tensor), which every backend takes
    (StableHLO's and TOSA's while loops: transforms/torch/control_flow.py). `valid` (a 0-d count)
    masks padded boxes out."""
    batches = b.info(boxes).sizes[0]
    classes = b.info(scores).sizes[1]
    groups = batches * classes
    count = b.info(boxes).sizes[1]
    boxes_dim = b.dim(boxes, 1)
    steps = None if count is None else _most_selected_per_group(node, count)
    if steps is None and node.constant_input(2) is not None and node.constant_input(2).size == 1:
        steps = max(0, int(node.constant_input(2).reshape(-1)[0]))
        steps = None if steps > 2**20 else steps  # no more steps than boxes: the run-time count
    steps_dim = boxes_dim if steps is None else steps
    t = _Tensors(b)
    corner_values, area = _corners(b, t, boxes, center_point_box)
    per_group = [_per_group(b, value, classes, boxes_dim) for value in (*corner_values, area)]
    group_scores = b.reshape(scores, [groups, boxes_dim], [groups, count])
    mask_type = b.tensor_type([groups, count], "i1")
    if node.has_input(4):
        threshold = b.to_dtype(b.reshape(node.input(4), []), "f32")
        alive = b.op("aten.gt.Tensor", mask_type, group_scores, threshold)
    else:
        alive = b.op("aten.ne.Tensor", mask_type, group_scores, group_scores)  # false, except NaN
        alive = b.op("aten.logical_not", mask_type, b.op("aten.logical_and", mask_type, alive, alive))
    # The aranges are si64, then cast: an si32 `aten.arange` lowers its length through i32 (trunci,
    # index_cast), a dim IREE cannot match with the box count's, and the picked boxes the loop
    # carries would change dim in the body, which IREE's stream conversion refuses
    # (test_iree_loop_forms.py). si64 keeps the box count's own dim.
    positions = b.unsqueeze(b.to_dtype(b.arange(boxes_dim, count), "si32"), 0)  # [1, S]
    if valid is not None:
        inside = b.op("aten.lt.Tensor", b.tensor_type([1, count], "i1"), positions, b.to_dtype(valid, "si32"))
        alive = b.op("aten.logical_and", mask_type, alive, inside)
    limit = b.to_dtype(b.reshape(node.input(2), []), "si64")
    bound = (b.scalar_tensor_literal(steps, "si64") if steps is not None
             else b.op("prim.NumToTensor.Scalar", b.tensor_type([], "si64"), boxes_dim))
    limit = b.to_dtype(b.op("aten.minimum", limit.type, limit, bound), "si32")  # the most steps (int64's largest: all)
    picked = b.full([groups, steps_dim], 0, "si32")  # [G, R]: the box each group kept at each step
    kept = b.full([groups, 1], 0, "si32")
    step = b.scalar_tensor_literal(0, "si32")
    # The loop carries the boxes removed so far (all false at first), and each step reads the boxes
    # alive as the candidates not removed. Carrying the candidate mask itself, IREE 3.13 packed its
    # initial value into one buffer with other results and read it in the first step at a constant
    # offset, not its own (the wild yolov8n-ultralytics-nms: 470 of 815 boxes alive after one step
    # instead of 814); a mask that starts as a constant gets a buffer of its own. The form can go
    # back when IREE's stream IR passes the carried mask's offset into the loop.
    candidates = alive
    removed_so_far = b.full([groups, boxes_dim], 0, "i1")
    carried = [removed_so_far, picked, kept, step]
    loop = ir.Operation.create(
        "torch.prim.Loop", results=[value.type for value in carried],
        operands=[b.constant_int(INT64_MAX), _truth(b, _goes_on(b, step, limit, alive)), *carried],
        regions=1, loc=b.location, ip=ir.InsertionPoint(b.anchor),
    )
    types = [b.type("!torch.int")] + [value.type for value in carried]
    body = loop.regions[0].blocks.append(*types, arg_locs=[b.location] * len(types))
    # The condition's operands are placeholders until the body is built.
    condition = ir.Operation.create("torch.prim.Loop.condition", operands=[body.arguments[1], *body.arguments[1:]],
                                    loc=b.location, ip=ir.InsertionPoint(body))
    inner = TorchBuilder(condition, b.location)
    it = _Tensors(inner)
    removed_so_far, picked, kept, step = body.arguments[1:]
    alive = inner.op("aten.logical_and", mask_type, candidates, inner.op("aten.logical_not", mask_type, removed_so_far))
    lowest = inner.scalar_tensor_literal(float(np.finfo(np.float32).min), "f32")
    open_scores = inner.op("aten.where.self", group_scores.type, alive, group_scores, lowest)
    best = inner.op("aten.argmax", inner.tensor_type([groups, 1], "si64"), open_scores, inner.constant_int(1),
                    inner.constant_bool(True))
    alive_count = inner.op("aten.sum.dim_IntList", inner.tensor_type([groups, 1], "si32"),
                           inner.to_dtype(alive, "si32"), inner.int_list([1]), inner.constant_bool(True),
                           inner.dtype("si32"))
    has = inner.op("aten.gt.Scalar", inner.tensor_type([groups, 1], "i1"), alive_count, inner.constant_int(0))
    chosen = [inner.op("aten.gather", inner.tensor_type([groups, 1], "f32"), value, inner.constant_int(1), best,
                       inner.constant_bool(False)) for value in per_group]
    suppressed = _suppressed_by(node, inner, it, per_group, chosen)
    best = inner.to_dtype(best, "si32")
    is_best = inner.op("aten.eq.Tensor", mask_type, positions, best)
    removed = inner.op("aten.logical_or", mask_type, suppressed, is_best)
    removed_so_far = inner.op("aten.logical_or", mask_type, removed_so_far, removed)
    alive = inner.op("aten.logical_and", mask_type, alive, inner.op("aten.logical_not", mask_type, removed))
    columns = inner.unsqueeze(inner.to_dtype(inner.arange(steps_dim, steps), "si32"), 0)  # [1, R]
    write = inner.op("aten.logical_and", inner.tensor_type([groups, steps], "i1"),
                     inner.op("aten.eq.Tensor", inner.tensor_type([1, steps], "i1"), columns, step), has)
    picked = inner.op("aten.where.self", picked.type, write, best, picked)
    kept = inner.binary("aten.add.Tensor", kept, inner.to_dtype(has, "si32"))
    step = inner.op("aten.add.Scalar", step.type, step, inner.constant_int(1), inner.constant_int(1))
    condition.operands[0] = _truth(inner, _goes_on(inner, step, limit, alive))
    for position, value in enumerate([removed_so_far, picked, kept, step]):
        condition.operands[position + 1] = inner.cast_to(value, body.arguments[position + 1].type)
    _, picked, kept, _ = loop.results
    return _kept_triples(node, b, picked, kept, groups, classes, steps, steps_dim, result_sizes)


def _truth(b: TorchBuilder, flag) -> ir.Value:
    return b.op("aten.Bool.int", b.type("!torch.bool"), b.item(flag))


def _goes_on(b: TorchBuilder, step, limit, alive):
    """[] i1: another step is needed (fewer steps than the limit, and a box alive somewhere)."""
    flag_type = b.tensor_type([], "i1")
    remaining = b.op("aten.sum", b.tensor_type([], "si32"), b.to_dtype(alive, "si32"), b.dtype("si32"))
    return b.op("aten.logical_and", flag_type, b.op("aten.lt.Tensor", flag_type, step, limit),
                b.op("aten.gt.Scalar", flag_type, remaining, b.constant_int(0)))


def _corners(b: TorchBuilder, t: _Tensors, boxes, center_point_box: int):
    """((y_min, x_min, y_max, x_max), area), each [B, S]."""
    sides = [_select(b, boxes, 2, i) for i in range(4)]
    if center_point_box:
        x_center, y_center, width, height = sides
        half_w, half_h = t.arith("mul", width, 0.5), t.arith("mul", height, 0.5)
        x_min, x_max = t.arith("sub", x_center, half_w), t.arith("add", x_center, half_w)
        y_min, y_max = t.arith("sub", y_center, half_h), t.arith("add", y_center, half_h)
    else:
        y1, x1, y2, x2 = sides
        y_min, y_max = t.binary("aten.minimum", y1, y2), t.binary("aten.maximum", y1, y2)
        x_min, x_max = t.binary("aten.minimum", x1, x2), t.binary("aten.maximum", x1, x2)
    area = t.arith("mul", t.arith("sub", x_max, x_min), t.arith("sub", y_max, y_min))
    return (y_min, x_min, y_max, x_max), area


def _per_group(b: TorchBuilder, value, classes: int, boxes_dim):
    """[B, S] -> [B*C, S]: each batch's row repeated for its classes."""
    batches, count = b.info(value).sizes
    spread = b.op("aten.broadcast_to", b.tensor_type([batches, classes, count], "f32"), b.unsqueeze(value, 1),
                  b.int_list([batches, classes, boxes_dim]))
    return b.reshape(spread, [batches * classes, boxes_dim], [batches * classes, count])


def _suppressed_by(node: OnnxNode, b: TorchBuilder, t: _Tensors, boxes, chosen):
    """[G, S] i1: the boxes (each side [G, S]) that each group's chosen box ([G, 1] each) suppresses:
    IoU above iou_threshold (ONNX's test: degenerate boxes and empty intersections never suppress)."""
    y_min, x_min, y_max, x_max, area = boxes
    chosen_y_min, chosen_x_min, chosen_y_max, chosen_x_max, chosen_area = chosen
    overlap_w = t.arith("sub", t.binary("aten.minimum", x_max, chosen_x_max),
                        t.binary("aten.maximum", x_min, chosen_x_min))
    overlap_h = t.arith("sub", t.binary("aten.minimum", y_max, chosen_y_max),
                        t.binary("aten.maximum", y_min, chosen_y_min))
    intersection = t.arith("mul", overlap_w, overlap_h)
    union = t.arith("sub", t.arith("add", area, chosen_area), intersection)
    positive_union = t.compare("gt", union, 0.0)
    iou = t.arith("div", intersection, t.where(positive_union, union, b.full([1], 1.0, "f32")))
    threshold = b.to_dtype(b.reshape(node.input(3), []), "f32") if node.has_input(3) else 0.0
    return t.both(t.compare("gt", overlap_w, 0.0), t.compare("gt", overlap_h, 0.0), t.compare("gt", intersection, 0.0),
                  t.compare("gt", area, 0.0), t.compare("gt", chosen_area, 0.0), positive_union,
                  t.compare("gt", iou, threshold))


def _kept_triples(node: OnnxNode, b: TorchBuilder, picked, kept, groups: int, classes: int, steps, steps_dim,
                  result_sizes):
    """The [rows, 3] result of the greedy loop: group g's kept boxes are picked[g, :kept[g]], after
    the groups before it. Output row k belongs to the first group whose rows end after k (a [rows, G]
    comparison: G is small), at step k - start[g]. Rows: the declared count, else the number kept
    (Linalg), else (StableHLO, TOSA) padded to G x steps and cut to it; a row past the number kept is
    the triple (0, 0, 0), one NonMaxSuppression can select."""
    counts = b.reshape(kept, [groups], [groups])  # si32
    inclusive = np.tril(np.ones((groups, groups), dtype=np.float32))
    ends = b.op("aten.mm", b.tensor_type([groups, 1], "f32"), b.literal(inclusive, "f32"), b.to_dtype(kept, "f32"))
    ends = b.to_dtype(b.reshape(ends, [groups], [groups]), "si32")
    starts = b.binary("aten.sub.Tensor", ends, counts)
    total = b.op("aten.sum", b.tensor_type([], "si64"), counts, b.dtype("si64"))
    padded = False
    if result_sizes is not None:
        if result_sizes[1:] != [3]:
            node.fail(f"selected_indices is declared {result_sizes}, not [num_selected, 3]")
        rows = rows_dim = result_sizes[0]
    elif node.target not in PADDED_ROW_TARGETS:
        rows, rows_dim = None, b.item(total)
    else:  # padded; to a run-time number on StableHLO for boxes padded to a run-time number
        rows, rows_dim = (None if steps is None else groups * steps), b.dim_mul(groups, steps_dim)
        padded = True
    if rows == 0:
        return b.cast_to(b.full([0, 3], 0, "si64"), node.result_type())
    row = b.to_dtype(b.arange(rows_dim, rows), "si32")  # [rows]; an si64 arange (see _greedy_steps's)
    ended = b.op("aten.le.Tensor", b.tensor_type([rows, groups], "i1"), b.unsqueeze(ends, 0), b.unsqueeze(row, 1))
    group = b.op("aten.sum.dim_IntList", b.tensor_type([rows], "si32"), b.to_dtype(ended, "si32"), b.int_list([1]),
                 b.constant_bool(False), b.dtype("si32"))
    group = b.op("aten.clamp", group.type, group, b.constant_int(0), b.constant_int(groups - 1))
    group_index = b.to_dtype(group, "si64")
    start = b.op("aten.index_select", group.type, starts, b.constant_int(0), group_index)
    step = b.op("aten.clamp", group.type, b.binary("aten.sub.Tensor", row, start), b.constant_int(0),
                b.dim_value(b.dim_sub(steps_dim, 1)))
    group_start = b.op("aten.mul.Scalar", group.type, group, b.dim_value(steps_dim))
    flat_position = b.binary("aten.add.Tensor", group_start, step)
    box = b.op("aten.index_select", group.type, b.flatten(picked), b.constant_int(0), b.to_dtype(flat_position, "si64"))
    group_triples = np.stack([np.arange(groups) // classes, np.arange(groups) % classes], axis=1).astype(np.int64)
    batch_class = b.op("aten.index_select", b.tensor_type([rows, 2], "si64"), b.literal(group_triples, "si64"),
                       b.constant_int(0), group_index)
    triples = b.op("aten.cat", b.tensor_type([rows, 3], "si64"),
                   b.tensor_list([batch_class, b.unsqueeze(b.to_dtype(box, "si64"), 1)]), b.constant_int(1))
    if result_sizes is not None or padded:
        real = b.op("aten.lt.Tensor", b.tensor_type([rows, 1], "i1"), b.unsqueeze(b.to_dtype(row, "si64"), 1), total)
        triples = b.op("aten.where.self", triples.type, real, triples, b.full([1, 1], 0, "si64"))
    if padded:
        triples = b.op("aten.slice.Tensor", b.tensor_type([None, 3], "si64"), triples, b.constant_int(0),
                       b.constant_int(0), b.item(total), b.constant_int(1))
    return b.cast_to(triples, node.result_type())


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
    `aten.item` of an integer 0-d tensor, which `transforms/stablehlo/torch_forms.py` makes an
    `aten.Int.Tensor`) and TOSA as a `tensor.extract_slice` after the ops that read the rows
    (`transforms/torch/dynamic_rows.py`). Elsewhere (Linalg) the rows are exactly the number
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
