"""SVMClassifier and SVMRegressor (domain `ai.onnx.ml`, version 1), as onnxruntime computes them
(`svmclassifier.cc`, `svmregressor.cc`, `ml_common.h`), in float32.

Kernels of X against the support vectors [V, F] (`kernel_params` = gamma, coef0, degree):
LINEAR x.v, POLY (gamma x.v + coef0)^degree, RBF exp(-gamma |x - v|^2) (`_squared_distances`:
large sets of support vectors by one matrix product), SIGMOID tanh(gamma x.v + coef0).

SVMClassifier with support vectors (libsvm's one-vs-one form): for each pair of classes i < j
(in order: (0,1), (0,2), ..., (1,2), ...) the decision
    s_ij = sum_{v in class i} coefficients[j-1, v] K[v] + sum_{v in class j} coefficients[i, v] K[v] + rho_ij
is one product K @ W with a constant W [V, pairs]. s_ij > 0 votes for i, else for j; the label
is the class with the most votes (the first on a tie), with or without probabilities. Scores:
- without `prob_a`: the decisions [N, pairs] after the post transform; two classes give
  [-s, s] (post transform NONE) or [1 - s, s] (any other: onnxruntime applies none);
- with `prob_a`/`prob_b`: pairwise probabilities r_ij = clip(sigmoid(-(s_ij a + b)), 1e-7,
  1 - 1e-7), coupled into class probabilities by libsvm's iterative method (Wu, Lin and Weng
  2004) exactly as onnxruntime runs it: from 1/K, rounds of Gauss-Seidel updates until the largest
  |(Qp)_i - p'Qp| is below 0.005 / K, each row stopping on its own. The rounds are unrolled:
  `PROBABILITY_ROUNDS` of them (onnxruntime allows 100; in 3000 random trials over 2 to 10
  classes no row needed more than 4), so a row not converged by then keeps that round's estimate.
Without support vectors (liblinear's form) the scores are X @ coefficients^T + rho[0] per class.

SVMRegressor: Y = K @ coefficients + rho[0] (X @ coefficients + rho[0] without support vectors);
`one_class` gives 1 where Y > 0, else -1. onnxruntime applies no post transform.
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .scores import (ML, NONE, PROBIT, best_labels, binary_columns, choose, column, check_width, float_rows, int_labels,
                     labels_at, plus_constant, post_transform, post_transform_code, single_score_probit, times_constant)

PROBABILITY_ROUNDS = 12
BROADCAST_LIMIT = 4096  # support vector values up to which RBF distances are summed from differences
KERNELS = ("LINEAR", "POLY", "RBF", "SIGMOID")


def _kernel_values(node: OnnxNode, b: TorchBuilder, x: ir.Value, vectors: np.ndarray) -> ir.Value:
    """K [N, V] of the rows of x against the support vectors [V, F]."""
    kernel = node.attr_string("kernel_type", "LINEAR")
    if kernel not in KERNELS:
        node.fail(f"kernel_type '{kernel}' is not one of {', '.join(KERNELS)}")
    params = list(node.attr_floats("kernel_params", None) or []) + [0.0, 0.0, 0.0]
    gamma, coef0, degree = params[:3]
    if kernel == "RBF":
        return b.unary("aten.exp", b.scalar_op("aten.mul.Scalar", _squared_distances(b, x, vectors), -gamma))
    dots = times_constant(b, x, vectors.T)
    if kernel == "LINEAR":
        return dots
    dots = b.op("aten.add.Scalar", b.type_like(dots), b.scalar_op("aten.mul.Scalar", dots, gamma),
                b.constant_float(coef0), b.constant_int(1))
    if kernel == "SIGMOID":
        return b.unary("aten.tanh", dots)
    if float(degree).is_integer() and 1 <= degree <= 8:
        # Repeated products: a float power of a negative base lowers through log and exp.
        power = dots
        for _ in range(int(degree) - 1):
            power = b.binary("aten.mul.Tensor", power, dots)
        return power
    return b.op("aten.pow.Tensor_Scalar", b.type_like(dots), dots, b.constant_float(degree))


def _squared_distances(b: TorchBuilder, x: ir.Value, vectors: np.ndarray) -> ir.Value:
    """|x - v|^2 [N, V]. Summed over the broadcast differences [N, V, F] as onnxruntime does while
    V * F is at most `BROADCAST_LIMIT`; beyond, |x|^2 - 2 x.v + |v|^2 by one product (memory N x V,
    not N x V x F; a rounding of the order of 1e-7 |x|^2 where x is close to v)."""
    rows = b.info(x).sizes[0]
    distance_type = b.tensor_type([rows, len(vectors)], "f32")
    if vectors.size <= BROADCAST_LIMIT:
        difference = b.binary("aten.sub.Tensor", b.unsqueeze(x, 1), b.literal(vectors.astype(np.float32)[None], "f32"))
        squares = b.binary("aten.mul.Tensor", difference, difference)
        return b.op("aten.sum.dim_IntList", distance_type, squares, b.int_list([2]), b.constant_bool(False),
                    b.constant_none())
    x_norms = b.op("aten.sum.dim_IntList", b.tensor_type([rows, 1], "f32"), b.binary("aten.mul.Tensor", x, x),
                   b.int_list([1]), b.constant_bool(True), b.constant_none())
    cross = times_constant(b, x, -2.0 * vectors.T)
    vector_norms = (vectors.astype(np.float64) ** 2).sum(axis=1)
    distance = plus_constant(b, b.binary("aten.add.Tensor", cross, x_norms), vector_norms)
    return b.op("aten.clamp_min", distance_type, distance, b.constant_float(0.0))


def _attribute_array(node: OnnxNode, name: str) -> np.ndarray:
    return np.asarray(node.attr_floats(name, None) or [], dtype=np.float64)


def _pairs(classes: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(classes - 1) for j in range(i + 1, classes)]


def _decisions(node: OnnxNode, b: TorchBuilder, kernels: ir.Value, counts: list[int], coefficients: np.ndarray,
               rho: np.ndarray) -> ir.Value:
    """The one-vs-one decisions [N, pairs]: K @ W + rho."""
    classes, vectors = len(counts), sum(counts)
    if coefficients.size < (classes - 1) * vectors:
        node.fail(f"{coefficients.size} coefficients for {classes - 1} rows of {vectors} support vectors")
    coefficients = coefficients[: (classes - 1) * vectors].reshape(classes - 1, vectors)
    starts = np.concatenate([[0], np.cumsum(counts)])
    pairs = _pairs(classes)
    if len(rho) < len(pairs):
        node.fail(f"'rho' has {len(rho)} values for {len(pairs)} pairs of classes")
    weights = np.zeros((vectors, len(pairs)))
    for index, (i, j) in enumerate(pairs):
        weights[starts[i]:starts[i + 1], index] = coefficients[j - 1, starts[i]:starts[i + 1]]
        weights[starts[j]:starts[j + 1], index] = coefficients[i, starts[j]:starts[j + 1]]
    return plus_constant(b, times_constant(b, kernels, weights), rho[: len(pairs)])


def _voted_labels(b: TorchBuilder, decisions: ir.Value, classes: int, labels: np.ndarray) -> ir.Value:
    """The label with the most votes (s_ij > 0 votes for i, else j; the first class on a tie)."""
    pairs = _pairs(classes)
    first, second = np.zeros((len(pairs), classes)), np.zeros((len(pairs), classes))
    for index, (i, j) in enumerate(pairs):
        first[index, i] = second[index, j] = 1.0
    positive = b.op("aten.gt.Scalar", b.tensor_type(b.info(decisions).sizes, "i1"), decisions, b.constant_float(0.0))
    for_first = b.to_dtype(positive, "f32")
    for_second = b.op("aten.rsub.Scalar", b.type_like(for_first), for_first, b.constant_float(1.0), b.constant_int(1))
    votes = b.binary("aten.add.Tensor", times_constant(b, for_first, first), times_constant(b, for_second, second))
    return best_labels(b, votes, labels)


def _pairwise_probabilities(node: OnnxNode, b: TorchBuilder, decisions: ir.Value, pairs: int) -> ir.Value:
    """r_ij [N, pairs] = clip(sigmoid(-(s_ij a + b)), 1e-7, 1 - 1e-7)."""
    prob_a, prob_b = _attribute_array(node, "prob_a"), _attribute_array(node, "prob_b")
    if len(prob_a) < pairs or len(prob_b) < pairs:
        node.fail(f"'prob_a' and 'prob_b' need {pairs} values (one per pair of classes)")
    scaled = b.binary("aten.mul.Tensor", decisions, b.literal(prob_a[:pairs].astype(np.float32), "f32"))
    shifted = plus_constant(b, scaled, prob_b[:pairs])
    probability = b.unary("aten.sigmoid", b.unary("aten.neg", shifted))
    return b.op("aten.clamp", b.type_like(probability), probability, b.constant_float(1e-7),
                b.constant_float(float(np.float32(1) - np.float32(1e-7))))


def _coupled_probabilities(b: TorchBuilder, pairwise: ir.Value, classes: int) -> ir.Value:
    """libsvm's multiclass_probability as onnxruntime runs it, [N, classes]."""
    pairs = _pairs(classes)
    rows = b.info(pairwise).sizes[0]
    # Q (flattened [N, K*K]): Q_ii = sum of r_ji^2 over j != i, Q_ij = -r_ij r_ji.
    on_first, on_second, off = (np.zeros((len(pairs), classes * classes)) for _ in range(3))
    for index, (i, j) in enumerate(pairs):
        on_first[index, i * classes + i] = 1.0  # r_ji = 1 - r_ij
        on_second[index, j * classes + j] = 1.0  # r_ij for class j
        off[index, i * classes + j] = off[index, j * classes + i] = -1.0
    complement = b.op("aten.rsub.Scalar", b.type_like(pairwise), pairwise, b.constant_float(1.0), b.constant_int(1))
    q = b.binary("aten.add.Tensor", times_constant(b, b.binary("aten.mul.Tensor", complement, complement), on_first),
                 times_constant(b, b.binary("aten.mul.Tensor", pairwise, pairwise), on_second))
    q = b.binary("aten.add.Tensor", q, times_constant(b, b.binary("aten.mul.Tensor", pairwise, complement), off))
    q_matrix = b.reshape(q, [b.dim(q, 0), classes, classes], [rows, classes, classes])
    diagonal = [column(b, q, i * classes + i) for i in range(classes)]
    q_rows = [times_constant(b, q, np.eye(classes * classes)[:, i * classes:(i + 1) * classes]) for i in range(classes)]
    units = [b.literal(np.eye(classes, dtype=np.float32)[i], "f32") for i in range(classes)]

    def add(x, y):
        return b.binary("aten.add.Tensor", x, y)

    def mul(x, y):
        return b.binary("aten.mul.Tensor", x, y)

    def div(x, y):
        return b.binary("aten.div.Tensor", x, y)

    def row_sum(x):
        return b.op("aten.sum.dim_IntList", b.tensor_type([rows, 1], "f32"), x, b.int_list([1]), b.constant_bool(True),
                    b.constant_none())

    p = b.op("aten.broadcast_to", b.tensor_type([rows, classes], "f32"),
             b.literal(np.full((1, classes), 1.0 / classes, dtype=np.float32), "f32"),
             b.int_list([b.dim(pairwise, 0), classes]))
    done = None
    epsilon = float(np.float32(0.005) / np.float32(classes))
    for _ in range(PROBABILITY_ROUNDS):
        qp = b.op("aten.sum.dim_IntList", b.tensor_type([rows, classes], "f32"), mul(q_matrix, b.unsqueeze(p, 1)),
                  b.int_list([2]), b.constant_bool(False), b.constant_none())
        pqp = row_sum(mul(p, qp))
        error = b.unary("aten.abs", b.binary("aten.sub.Tensor", qp, pqp))
        largest = b.op("aten.amax", b.tensor_type([rows, 1], "f32"), error, b.int_list([1]), b.constant_bool(True))
        converged = b.op("aten.lt.Scalar", b.tensor_type([rows, 1], "i1"), largest, b.constant_float(epsilon))
        done = converged if done is None else b.binary("aten.logical_or", done, converged)
        updated = p
        for i in range(classes):
            diff = div(b.binary("aten.sub.Tensor", pqp, column(b, qp, i)), diagonal[i])
            updated = add(updated, mul(diff, units[i]))
            scale = b.op("aten.add.Scalar", b.type_like(diff), diff, b.constant_float(1.0), b.constant_int(1))
            twice = b.scalar_op("aten.mul.Scalar", column(b, qp, i), 2.0)
            pqp = div(div(add(pqp, mul(diff, add(mul(diff, diagonal[i]), twice))), scale), scale)
            qp = div(add(qp, mul(diff, q_rows[i])), scale)
            updated = div(updated, scale)
        p = b.op("aten.where.self", b.type_like(p), done, p, updated)
    return p


@converts("SVMClassifier", since=1, domain=ML)
def svm_classifier(node: OnnxNode, b: TorchBuilder):
    """(label [N], scores): one-vs-one votes and decisions or coupled probabilities (module docstring)."""
    labels = int_labels(node, "classlabels_ints", "classlabels_strings")
    classes = len(labels)
    counts = [int(count) for count in node.attr_ints("vectors_per_class", None) or []]
    coefficients, rho = _attribute_array(node, "coefficients"), _attribute_array(node, "rho")
    transform = post_transform_code(node)
    x = float_rows(node, b)
    if not sum(counts):
        return _linear_svm_classifier(node, b, x, labels, coefficients, rho, transform)
    if len(counts) != classes:
        node.fail(f"'vectors_per_class' has {len(counts)} entries for {classes} class labels")
    vectors = _attribute_array(node, "support_vectors")
    if vectors.size % sum(counts):
        node.fail(f"{vectors.size} support vector values do not split into {sum(counts)} vectors")
    vectors = vectors.reshape(sum(counts), -1)
    check_width(node, vectors.shape[1], "the support vectors have")
    decisions = _decisions(node, b, _kernel_values(node, b, x, vectors), counts, coefficients, rho)
    label = _voted_labels(b, decisions, classes, labels)
    if len(_attribute_array(node, "prob_a")):
        pairwise = _pairwise_probabilities(node, b, decisions, len(_pairs(classes)))
        scores = post_transform(node, b, _coupled_probabilities(b, pairwise, classes), transform)
    elif classes == 2:
        if transform == PROBIT:
            single_score_probit(node)
        scores = binary_columns(b, decisions, "negate" if transform == NONE else "complement")
    else:
        scores = post_transform(node, b, decisions, transform)
    return [b.cast_to(label, node.result_type(0)), b.cast_to(scores, node.result_type(1))]


def _linear_svm_classifier(node: OnnxNode, b: TorchBuilder, x: ir.Value, labels: np.ndarray,
                           coefficients: np.ndarray, rho: np.ndarray, transform: int):
    """No support vectors: scores = X @ coefficients^T + rho[0] per class, the label of the largest
    (two classes: onnxruntime's positive-weight rule)."""
    classes = len(labels)
    if coefficients.size == 0 or coefficients.size % classes:
        node.fail(f"{coefficients.size} coefficients do not split into {classes} classes")
    matrix = coefficients.reshape(classes, -1)
    check_width(node, matrix.shape[1], "the coefficients give")
    scores = times_constant(b, x, matrix.T)
    if len(rho):
        scores = b.op("aten.add.Scalar", b.type_like(scores), scores, b.constant_float(float(rho[0])),
                      b.constant_int(1))
    label = best_labels(b, scores, labels)
    if classes == 2:
        rows = b.info(scores).sizes[0]
        largest = b.op("aten.amax", b.tensor_type([rows], "f32"), scores, b.int_list([1]), b.constant_bool(False))
        threshold = 0.5 if (matrix >= 0).all() else 0.0
        op = "aten.ge.Scalar" if threshold else "aten.gt.Scalar"
        positive = b.op(op, b.tensor_type([rows], "i1"), largest, b.constant_float(threshold))
        best = b.op("aten.argmax", b.tensor_type([rows], "si64"), scores, b.constant_int(1), b.constant_bool(False))
        index = b.op("aten.where.ScalarSelf", b.type_like(best), positive, b.constant_int(1), best)
        label = labels_at(b, labels, index)
    return [b.cast_to(label, node.result_type(0)), b.cast_to(post_transform(node, b, scores, transform),
                                                             node.result_type(1))]


@converts("SVMRegressor", since=1, domain=ML)
def svm_regressor(node: OnnxNode, b: TorchBuilder):
    """Y [N, 1] = K @ coefficients + rho[0] (X @ coefficients + rho[0] without support vectors)."""
    supports = node.attr_int("n_supports", 0)
    coefficients, rho = _attribute_array(node, "coefficients"), _attribute_array(node, "rho")
    x = float_rows(node, b)
    if supports > 0:
        vectors = _attribute_array(node, "support_vectors")
        if vectors.size % supports or coefficients.size < supports:
            node.fail(f"{vectors.size} support vector values and {coefficients.size} coefficients for "
                      f"{supports} support vectors")
        vectors = vectors.reshape(supports, -1)
        check_width(node, vectors.shape[1], "the support vectors have")
        values = times_constant(b, _kernel_values(node, b, x, vectors), coefficients[:supports].reshape(-1, 1))
    else:
        check_width(node, coefficients.size, "the coefficients give")
        values = times_constant(b, x, coefficients.reshape(-1, 1))
    if len(rho):
        values = b.op("aten.add.Scalar", b.type_like(values), values, b.constant_float(float(rho[0])),
                      b.constant_int(1))
    if node.attr_int("one_class", 0):
        positive = b.op("aten.gt.Scalar", b.tensor_type(b.info(values).sizes, "i1"), values, b.constant_float(0.0))
        values = b.to_dtype(choose(b, positive, 1, -1), "f32")
    return b.cast_to(values, node.result_type())
