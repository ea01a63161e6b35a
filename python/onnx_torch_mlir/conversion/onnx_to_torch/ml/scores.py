"""What the ai.onnx.ml classifiers and regressors share: the float [N, F] input, products with
constant matrices, the post transforms and the labels of the best scores.

The post transforms are onnxruntime's (`core/providers/cpu/ml/ml_common.h`), applied per row:
NONE, LOGISTIC (sigmoid), SOFTMAX, SOFTMAX_ZERO (softmax over the nonzero scores; zeros stay 0),
PROBIT (sqrt(2) erfinv(2s - 1) with onnxruntime's closed-form erfinv, Winitzki's approximation
with a = 0.147: torch-mlir lowers no erfinv, and this is the function onnxruntime computes). A
single score per row (the binary classifiers) becomes two columns as onnxruntime writes them
(`binary_columns`).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode

ML = "ai.onnx.ml"
NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT = range(5)
POST_TRANSFORM_NAMES = {"NONE": NONE, "SOFTMAX": SOFTMAX, "LOGISTIC": LOGISTIC, "SOFTMAX_ZERO": SOFTMAX_ZERO,
                        "PROBIT": PROBIT}


def float_rows(node: OnnxNode, b: TorchBuilder, index: int = 0) -> ir.Value:
    """Input `index` as float32 [N, F] (an [F] input is one row), as onnxruntime's kernels read it."""
    info = node.input_info(index)
    if info.rank not in (1, 2):
        node.fail(f"input {index} must be [N, F] or [F], not rank {info.rank}")
    x = b.to_dtype(node.input(index), "f32")
    return b.unsqueeze(x, 0) if info.rank == 1 else x


def check_width(node: OnnxNode, count: int, what: str) -> None:
    """Fail when X's static feature count is not `count` (what the attributes give)."""
    width = node.input_info(0).sizes[-1]
    if width is not None and width != count:
        node.fail(f"input 'X' has {width} features, {what} {count}")


def times_constant(b: TorchBuilder, x: ir.Value, matrix: np.ndarray) -> ir.Value:
    """x [N, K] @ matrix [K, M] (float32)."""
    rows = b.info(x).sizes[0]
    literal = b.literal(np.asarray(matrix, dtype=np.float32), "f32")
    return b.op("aten.mm", b.tensor_type([rows, matrix.shape[1]], "f32"), x, literal)


def plus_constant(b: TorchBuilder, x: ir.Value, row: np.ndarray) -> ir.Value:
    """x [N, M] + row [M]."""
    return b.binary("aten.add.Tensor", x, b.literal(np.asarray(row, dtype=np.float32).reshape(-1), "f32"))


def post_transform_code(node: OnnxNode) -> int:
    name = node.attr_string("post_transform", "NONE")
    if name not in POST_TRANSFORM_NAMES:
        node.fail(f"post_transform '{name}' is not one of {', '.join(POST_TRANSFORM_NAMES)}")
    return POST_TRANSFORM_NAMES[name]


def post_transform(node: OnnxNode, b: TorchBuilder, scores: ir.Value, transform: int) -> ir.Value:
    """The transform of each row of [N, M] scores."""
    if transform == NONE:
        return scores
    if transform == LOGISTIC:
        return b.unary("aten.sigmoid", scores)
    none = b.constant_none()
    if transform == SOFTMAX:
        return b.op("aten.softmax.int", b.type_like(scores), scores, b.constant_int(1), none)
    if transform == SOFTMAX_ZERO:
        nonzero = b.op("aten.ne.Scalar", b.tensor_type(b.info(scores).sizes, "i1"), scores, b.constant_float(0.0))
        lowest = b.op("aten.where.ScalarOther", b.type_like(scores), nonzero, scores, b.constant_float(-np.inf))
        largest = b.op("aten.amax", b.reduced_type(scores, [1], True), lowest, b.int_list([1]), b.constant_bool(True))
        exponent = b.unary("aten.exp", b.binary("aten.sub.Tensor", scores, largest))
        kept = b.op("aten.where.ScalarOther", b.type_like(scores), nonzero, exponent, b.constant_float(0.0))
        total = b.op("aten.sum.dim_IntList", b.reduced_type(scores, [1], True), kept, b.int_list([1]),
                     b.constant_bool(True), none)
        # A row of zeros stays zeros: 0 / max(total, tiny) is 0.
        total = b.op("aten.clamp_min", b.type_like(total), total, b.constant_float(1e-30))
        return b.binary("aten.div.Tensor", kept, total)
    if transform == PROBIT:
        return probit(b, scores)
    node.fail(f"post_transform {transform} is not one of NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO, PROBIT (0..4)")


def probit(b: TorchBuilder, scores: ir.Value) -> ir.Value:
    """sqrt(2) erfinv(2s - 1), erfinv(x) = sign(x) sqrt(sqrt(v^2 - ln(1 - x^2) / a) - v) with
    v = 2 / (pi a) + ln(1 - x^2) / 2, a = 0.147, pi as onnxruntime spells it (3.14159)."""
    x = b.scalar_op("aten.sub.Scalar", b.scalar_op("aten.mul.Scalar", scores, 2.0), 1.0)
    logarithm = b.unary("aten.log", b.op("aten.rsub.Scalar", b.type_like(x), b.binary("aten.mul.Tensor", x, x),
                                         b.constant_float(1.0), b.constant_int(1)))
    v = b.scalar_op("aten.add.Scalar", b.scalar_op("aten.mul.Scalar", logarithm, 0.5),
                    float(np.float32(2) / (np.float32(3.14159) * np.float32(0.147))))
    inner = b.binary("aten.sub.Tensor", b.binary("aten.mul.Tensor", v, v),
                     b.scalar_op("aten.mul.Scalar", logarithm, float(np.float32(1) / np.float32(0.147))))
    root = b.unary("aten.sqrt", b.binary("aten.sub.Tensor", b.unary("aten.sqrt", inner), v))
    negative = b.op("aten.lt.Scalar", b.tensor_type(b.info(x).sizes, "i1"), x, b.constant_float(0.0))
    signed = b.op("aten.where.self", b.type_like(root), negative, b.unary("aten.neg", root), root)
    return b.scalar_op("aten.mul.Scalar", signed, float(np.float32(1.41421356)))


def single_score_probit(node: OnnxNode) -> None:
    """onnxruntime's PROBIT on one score per row writes the first column only: refused."""
    node.fail("post_transform PROBIT with one score per row is not supported: onnxruntime writes the probit "
              "of the score into the first of the two columns and leaves the second unset")


def concat_columns(b: TorchBuilder, columns: list[ir.Value]) -> ir.Value:
    """[N, 1] columns side by side."""
    rows = b.info(columns[0]).sizes[0]
    width = sum(b.info(column).sizes[1] for column in columns)
    element = b.info(columns[0]).element
    return b.op("aten.cat", b.tensor_type([rows, width], element), b.tensor_list(columns), b.constant_int(1))


def binary_columns(b: TorchBuilder, score: ir.Value, form: str) -> ir.Value:
    """One score per row [N, 1] as onnxruntime's two columns: `complement` [1 - s, s], `negate`
    [-s, s], `logistic` [sigmoid(-s), sigmoid(s)]."""
    if form == "complement":
        first = b.op("aten.rsub.Scalar", b.type_like(score), score, b.constant_float(1.0), b.constant_int(1))
        return concat_columns(b, [first, score])
    negated = b.unary("aten.neg", score)
    if form == "negate":
        return concat_columns(b, [negated, score])
    return concat_columns(b, [b.unary("aten.sigmoid", negated), b.unary("aten.sigmoid", score)])


def column(b: TorchBuilder, x: ir.Value, index: int) -> ir.Value:
    """x[:, index:index + 1]."""
    rows = b.info(x).sizes[0]
    one = b.constant_int(1)
    return b.op("aten.slice.Tensor", b.tensor_type([rows, 1], b.info(x).element), x, one, b.constant_int(index),
                b.constant_int(index + 1), one)


def labels_at(b: TorchBuilder, labels: np.ndarray, indices: ir.Value) -> ir.Value:
    """labels[indices] for si64 indices [N]: the int64 labels picked by index."""
    literal = b.literal(np.asarray(labels, dtype=np.int64).reshape(-1), "si64")
    return b.op("aten.index_select", b.tensor_type(b.info(indices).sizes, "si64"), literal, b.constant_int(0), indices)


def best_labels(b: TorchBuilder, scores: ir.Value, labels: np.ndarray) -> ir.Value:
    """The label of each row's largest score (the first on a tie), [N] si64."""
    rows = b.info(scores).sizes[0]
    best = b.op("aten.argmax", b.tensor_type([rows], "si64"), scores, b.constant_int(1), b.constant_bool(False))
    return labels_at(b, labels, best)


def choose(b: TorchBuilder, condition: ir.Value, if_true: int, if_false: int) -> ir.Value:
    """A si64 tensor shaped like the i1 `condition`: `if_true` where it holds, else `if_false`."""
    return b.op("aten.where.Scalar", b.tensor_type(b.info(condition).sizes, "si64"), condition,
                b.constant_int(if_true), b.constant_int(if_false))


def int_labels(node: OnnxNode, ints: str, strings: str) -> np.ndarray:
    """The class labels as int64; string labels fail (torch has no string tensors)."""
    if node.attr_strings(strings, None):
        node.fail(f"the class labels are strings ('{strings}'), and torch has no string tensors; "
                  "fitting the model on integer class labels gives int64 labels")
    values = node.attr_ints(ints, None)
    if not values:
        node.fail(f"'{ints}' (or '{strings}') is required")
    return np.asarray(values, dtype=np.int64)
