"""LinearClassifier and LinearRegressor (domain `ai.onnx.ml`, version 1), as onnxruntime computes
them (`linearclassifier.cc`, `linearregressor.cc`): scores = X @ coefficients^T + intercepts in
float32.

LinearClassifier with C = len(intercepts) score columns:
- C > 1: label = classlabels[argmax] (the first on a tie), Z = post_transform(scores);
- C = 1: label = classlabels[1] if the score > 0 else classlabels[0] (1 / 0 unless there are
  two labels); with two labels Z is [1 - s, s] whatever the post transform (onnxruntime applies
  none in that case), else Z is s.
`multi_class` is read by neither onnxruntime nor this pattern.
LinearRegressor: Y = post_transform(scores) over the targets (one target: NONE only).
"""

from __future__ import annotations

import numpy as np

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .scores import (ML, PROBIT, best_labels, binary_columns, check_width, choose, float_rows, int_labels,
                     plus_constant, post_transform, post_transform_code, single_score_probit, times_constant)


def _linear_scores(node: OnnxNode, b: TorchBuilder, count: int):
    """Scores [N, count] = X @ coefficients^T + intercepts."""
    coefficients = np.asarray(node.attr_floats("coefficients"), dtype=np.float64)
    if count == 0 or len(coefficients) % count:
        node.fail(f"{len(coefficients)} coefficients do not split into {count} rows")
    matrix = coefficients.reshape(count, -1)
    x = float_rows(node, b)
    check_width(node, matrix.shape[1], "the coefficients give")
    scores = times_constant(b, x, matrix.T)
    intercepts = node.attr_floats("intercepts", None)
    if intercepts:
        scores = plus_constant(b, scores, np.asarray(intercepts))
    return scores


@converts("LinearClassifier", since=1, domain=ML)
def linear_classifier(node: OnnxNode, b: TorchBuilder):
    """(label [N], scores [N, C]) of X @ coefficients^T + intercepts."""
    labels = int_labels(node, "classlabels_ints", "classlabels_strings")
    intercepts = node.attr_floats("intercepts", None) or []
    count = len(intercepts) or len(labels)
    scores = _linear_scores(node, b, count)
    transform = post_transform_code(node)
    if count == 1:
        label_pair = labels if len(labels) == 2 else np.array([0, 1])
        positive = b.op("aten.gt.Scalar", b.tensor_type(b.info(scores).sizes, "i1"), scores, b.constant_float(0.0))
        label = b.reshape(choose(b, positive, int(label_pair[1]), int(label_pair[0])), [b.dim(scores, 0)])
        if transform == PROBIT:
            single_score_probit(node)
        probabilities = binary_columns(b, scores, "complement") if len(labels) == 2 else scores
    else:
        if len(labels) != count:
            node.fail(f"{len(labels)} class labels for {count} intercepts")
        label = best_labels(b, scores, labels)
        probabilities = post_transform(node, b, scores, transform)
    return [b.cast_to(label, node.result_type(0)), b.cast_to(probabilities, node.result_type(1))]


@converts("LinearRegressor", since=1, domain=ML)
def linear_regressor(node: OnnxNode, b: TorchBuilder):
    """Y [N, targets] = post_transform(X @ coefficients^T + intercepts)."""
    targets = node.attr_int("targets", 1)
    scores = _linear_scores(node, b, targets)
    transform = post_transform_code(node)
    if targets > 1 or transform == PROBIT:  # onnxruntime transforms a single target only with PROBIT
        scores = post_transform(node, b, scores, transform)
    return b.cast_to(scores, node.result_type())
