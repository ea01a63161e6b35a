"""TreeEnsembleClassifier (domain `ai.onnx.ml`, versions 1 and 3; 3 adds the `*_as_tensor`
spellings of the float attributes), as onnxruntime computes it (`tree_ensemble_aggregator.h`,
`TreeAggregatorClassifier`).

The forest is the regressor's encoding with `class_*` in place of `target_*` and one target per
class label (`forest.py` walks it). Per row, s[c] is the sum of the weights for class c of the
leaves reached, h[c] whether any leaf reached has a weight for c.

More than two classes: base_values[c] is added, the label is the class of the largest score among
the classes with a weight reached or a base value (the first on a tie), the scores are
post_transform(s).

Two classes follow onnxruntime 1.31's binary rules (checked against it on every combination of
weighted classes, base values, weight signs and post transforms). `binary`: the weights name one
class only (what skl2onnx writes for binary trees and boosting: that weight is the positive
class's score, whatever its id). With base values B:
- |B| = 2: if h[1], s1 = B1 + s0 and s0 = -s1; else s0 += B0; |B| = 1: s0 += B0;
- then a class no weight reached scores 0 (base value or not);
- the positive weight is s1 if h[1], else s0. If `binary`, the label is classlabels[1] when it is
  > 0.5 (all weights >= 0) or > 0 (some weight < 0), else classlabels[0]; otherwise onnxruntime's
  label is the int 1 when it is > 0, else 0 (not the labels);
- with h[1] or |B| = 2 the two scores are post-transformed as a row; otherwise the one score s0
  becomes [sigmoid(-s), sigmoid(s)] (LOGISTIC), [1 - s, s] (`binary`, all weights >= 0),
  [s, 0] (not `binary`, |B| = 1) or [-s, s].

The aggregate is always the sum. String class labels fail: torch has no string tensors.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .forest import aggregate, check_features, floats_or_tensor, leaf_rows, regressor_forest, walk_forest
from .scores import (ML, LOGISTIC, PROBIT, best_labels, binary_columns, column, concat_columns,
                     int_labels, post_transform, post_transform_code, single_score_probit)

SUM = 1


def _where(b: TorchBuilder, condition: ir.Value, if_true: ir.Value, if_false: ir.Value) -> ir.Value:
    return b.op("aten.where.self", b.type_like(if_true), condition, if_true, if_false)


def _add_constant(b: TorchBuilder, x: ir.Value, value: float) -> ir.Value:
    return b.scalar_op("aten.add.Scalar", x, float(value))


@converts("TreeEnsembleClassifier", since=1, domain=ML)
def tree_ensemble_classifier(node: OnnxNode, b: TorchBuilder):
    """(label [N], scores [N, classes]): summed class weights of the leaves reached (module docstring)."""
    labels = int_labels(node, "classlabels_int64s", "classlabels_strings")
    classes = len(labels)
    info = node.input_info(0)
    if info.rank != 2:
        node.fail(f"input 'X' must be [N, F] (rank 2), not rank {info.rank}")
    # A double input is compared with the (double) thresholds in double, as onnxruntime does.
    element = "f64" if info.element == "f64" else "f32"
    x = b.to_dtype(node.input(0), element)
    forest, weights, has = regressor_forest(node, "class", classes)
    check_features(node, forest)
    walk, leaves = walk_forest(b, x, forest, element)
    scores = aggregate(node, walk, leaves, weights, has, SUM, element)
    rows = b.info(scores).sizes[0]
    reached = b.op("aten.any.dim", b.tensor_type([rows, classes], "i1"), leaf_rows(walk, leaves, has, "i1"),
                   b.constant_int(1), b.constant_bool(False))
    base = floats_or_tensor(node, "base_values")
    base = np.zeros(0) if base is None else base
    transform = post_transform_code(node)
    if classes > 2:
        if len(base):
            if len(base) > classes:
                node.fail(f"'base_values' has {len(base)} entries for {classes} classes")
            padded = np.zeros(classes, dtype=np.float32)
            padded[: len(base)] = base
            scores = b.binary("aten.add.Tensor", scores, b.literal(padded.astype(np.float64 if element == "f64" else
                                                                                np.float32), element))
            named = np.zeros((1, classes), dtype=bool)
            named[0, : len(base)] = True
            reached = b.binary("aten.logical_or", reached, b.literal(named, "i1"))
        candidates = b.op("aten.where.ScalarOther", b.type_like(scores), reached, scores, b.constant_float(-np.inf))
        label = best_labels(b, candidates, labels)
        probabilities = post_transform(node, b, scores, transform)
    else:
        label, probabilities = _binary(node, b, scores, reached, weights, has, base, labels, transform)
    return [b.cast_to(label, node.result_type(0)), b.cast_to(b.to_dtype(probabilities, "f32"), node.result_type(1))]


def _binary(node: OnnxNode, b: TorchBuilder, scores, reached, weights, has, base, labels, transform: int):
    """onnxruntime's two-class rules (module docstring): (label [N], scores [N, 2])."""
    if len(labels) != 2:
        node.fail(f"{len(labels)} class labels: a classifier needs at least two")
    if transform == PROBIT and len(base) != 2 and not has[:, 1].all():
        single_score_probit(node)  # a row that reaches no class-1 weight has one score
    weighted_classes = {int(c) for c in np.flatnonzero(has.any(axis=0))}
    binary = len(weighted_classes) == 1
    all_positive = bool((weights[has] >= 0).all())
    rows = b.info(scores).sizes[0]
    first, second = column(b, scores, 0), column(b, scores, 1)
    has_first, has_second = column(b, reached, 0), column(b, reached, 1)
    if len(base) == 2:
        combined = _add_constant(b, first, base[1])
        first = _where(b, has_second, b.unary("aten.neg", combined), _add_constant(b, first, base[0]))
        second = _where(b, has_second, combined, second)
    elif len(base) == 1:
        first = _add_constant(b, first, base[0])
    # A class no weight reached scores 0, base value or not.
    two_first = b.op("aten.where.ScalarOther", b.type_like(first), has_first, first, b.constant_float(0.0))
    two_second = b.op("aten.where.ScalarOther", b.type_like(second), has_second, second, b.constant_float(0.0))
    two_columns = has_second if len(base) != 2 else None
    positive_weight = _where(b, has_second, two_second, two_first)
    if binary:
        threshold = 0.5 if all_positive else 0.0
        positive = b.op("aten.gt.Scalar", b.tensor_type([rows, 1], "i1"), positive_weight, b.constant_float(threshold))
        label = b.op("aten.where.Scalar", b.tensor_type([rows, 1], "si64"), positive, b.constant_int(int(labels[1])),
                     b.constant_int(int(labels[0])))
    else:
        positive = b.op("aten.gt.Scalar", b.tensor_type([rows, 1], "i1"), positive_weight, b.constant_float(0.0))
        label = b.op("aten.where.Scalar", b.tensor_type([rows, 1], "si64"), positive, b.constant_int(1),
                     b.constant_int(0))
    label = b.reshape(label, [b.dim(scores, 0)], [rows])
    pair = post_transform(node, b, concat_columns(b, [two_first, two_second]), transform)
    if two_columns is None:
        return label, pair
    # One score: onnxruntime's second column.
    if transform == LOGISTIC:
        single = binary_columns(b, two_first, "logistic")
    elif binary and all_positive:
        single = binary_columns(b, two_first, "complement")
    elif not binary and len(base) == 1:
        # No second column is written: onnxruntime leaves it as it was (0 here).
        single = concat_columns(b, [two_first, b.scalar_op("aten.mul.Scalar", two_first, 0.0)])
    else:
        single = binary_columns(b, two_first, "negate")
    return label, _where(b, two_columns, pair, single)

