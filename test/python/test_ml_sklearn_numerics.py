"""ai.onnx.ml models as skl2onnx and onnxmltools write them (the same ops, attributes and opsets,
built with onnx.helper from seeded numbers), compiled to each backend, run on the reference CPU
runner (and IREE for a few) and compared with onnxruntime: labels exactly, scores at float32
tolerance.

The graphs declare only the types of the graph inputs and the element types of the outputs, as
skl2onnx does: every other type comes from our inference of ai.onnx.ml results
(importer/ml_types.py). Linalg compiles with a symbolic batch dim; TOSA and StableHLO static.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnx_torch_mlir.errors import OnnxTorchMlirError

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
ML = "ai.onnx.ml"
ROWS, FEATURES = 12, 4
FLOAT, INT64 = TensorProto.FLOAT, TensorProto.INT64


def _model(nodes, inputs, outputs, ml_opset=1, static=True, initializers=()):
    batch = ROWS if static else "N"
    graph = helper.make_graph(
        nodes, "sklearn",
        [helper.make_tensor_value_info(name, element, [batch, *dims]) for name, element, dims in inputs],
        [helper.make_tensor_value_info(name, element, None) for name, element in outputs], list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, ml_opset)],
                             ir_version=8)


def _x(seed: int = 0, nan: bool = False) -> np.ndarray:
    x = np.round(np.random.default_rng(seed).normal(size=(ROWS, FEATURES)), 1).astype(np.float32)
    if nan:
        x[::4, 2] = np.nan
    return x


def _check(build, arrays, backend, consumer="reference", rtol=1e-5, atol=1e-5):
    """`build(static)` -> model; compare our outputs with onnxruntime's (integers exactly)."""
    session = onnxruntime.InferenceSession(build(True).SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {value.name: array for value, array in zip(session.get_inputs(), arrays)}
    wanted = session.run(None, feeds)
    module = onnx_torch_mlir.compile(build(backend != "linalg-on-tensors"), output_type=backend)
    actual = program(module, backend, consumer)(*arrays)
    assert len(actual) == len(wanted)
    for ours, theirs in zip(actual, wanted):
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        if np.issubdtype(theirs.dtype, np.integer):
            np.testing.assert_array_equal(ours, theirs)
        else:
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)


# -- models ---------------------------------------------------------------------------------
def preprocessing(static):
    """SimpleImputer -> StandardScaler -> Normalizer(l2) -> Binarizer, one pipeline."""
    rng = np.random.default_rng(1)
    nodes = [
        helper.make_node("Imputer", ["X"], ["imputed"], domain=ML, imputed_value_floats=[0.5, -1.0, 2.0, 0.0],
                         replaced_value_float=float("nan")),
        helper.make_node("Scaler", ["imputed"], ["scaled"], domain=ML, offset=list(rng.normal(size=4)),
                         scale=list(rng.uniform(0.5, 2, size=4))),
        helper.make_node("Normalizer", ["scaled"], ["normalized"], domain=ML, norm="L2"),
        helper.make_node("Normalizer", ["scaled"], ["by_max"], domain=ML, norm="MAX"),
        helper.make_node("Binarizer", ["normalized"], ["binary"], domain=ML, threshold=0.1),
    ]
    return _model(nodes, [("X", FLOAT, [FEATURES])], [("normalized", FLOAT), ("by_max", FLOAT), ("binary", FLOAT)],
                  static=static)


def _linear_classifier(classes: int, intercepts: int, post: str, normalizer: str | None):
    def build(static):
        rng = np.random.default_rng(classes)
        node = helper.make_node(
            "LinearClassifier", ["X"], ["label", "scores"], domain=ML, classlabels_ints=list(range(10, 10 + classes)),
            coefficients=list(np.round(rng.normal(size=intercepts * FEATURES), 3)),
            intercepts=list(np.round(rng.normal(size=intercepts), 3)), multi_class=int(classes > 2),
            post_transform=post)
        nodes = [node]
        if normalizer:
            node.output[1] = "raw"
            nodes.append(helper.make_node("Normalizer", ["raw"], ["scores"], domain=ML, norm=normalizer))
        return _model(nodes, [("X", FLOAT, [FEATURES])], [("label", INT64), ("scores", FLOAT)], static=static)

    return build


def linear_regressor(static):
    rng = np.random.default_rng(3)
    node = helper.make_node("LinearRegressor", ["X"], ["variable"], domain=ML, targets=2,
                            coefficients=list(rng.normal(size=2 * FEATURES)), intercepts=[0.5, -2.0])
    return _model([node], [("X", FLOAT, [FEATURES])], [("variable", FLOAT)], static=static)


def _svm_classifier(classes: int, kernel: str, probabilities: bool, vectors=(3, 2, 4, 2)):
    """libsvm's SVC as skl2onnx writes it: vectors_per_class, coefficients [classes - 1, vectors]."""

    def build(static):
        rng = np.random.default_rng(classes * 10 + len(kernel))
        counts = list(vectors[:classes])
        total = sum(counts)
        pairs = classes * (classes - 1) // 2
        attributes = dict(
            classlabels_ints=list(range(classes)), vectors_per_class=counts, kernel_type=kernel,
            kernel_params=[0.3, 0.5, 3.0], support_vectors=list(np.round(rng.normal(size=total * FEATURES), 3)),
            coefficients=list(np.round(rng.uniform(-1, 1, size=(classes - 1) * total), 3)),
            rho=list(np.round(rng.normal(size=pairs) * 0.3, 3)), post_transform="NONE")
        if probabilities:
            attributes["prob_a"] = list(np.round(rng.uniform(-3, -0.5, size=pairs), 3))
            attributes["prob_b"] = list(np.round(rng.normal(size=pairs) * 0.1, 3))
        node = helper.make_node("SVMClassifier", ["X"], ["label", "probabilities"], domain=ML, **attributes)
        return _model([node], [("X", FLOAT, [FEATURES])], [("label", INT64), ("probabilities", FLOAT)], static=static)

    return build


def _svm_regressor(kernel: str, supports: int):
    def build(static):
        rng = np.random.default_rng(supports)
        attributes = dict(kernel_type=kernel, kernel_params=[0.25, 0.1, 2.0], n_supports=supports, rho=[1.5],
                          coefficients=list(np.round(rng.uniform(-1, 1, size=supports or FEATURES), 3)),
                          post_transform="NONE")
        if supports:
            attributes["support_vectors"] = list(np.round(rng.normal(size=supports * FEATURES), 3))
        node = helper.make_node("SVMRegressor", ["X"], ["variable"], domain=ML, **attributes)
        return _model([node], [("X", FLOAT, [FEATURES])], [("variable", FLOAT)], static=static)

    return build


MODES = ["BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ"]


def _forest(rng, trees: int, modes: list[str], depth: int = 3):
    """Per tree, interior nodes (ids from 0) then its leaves, as skl2onnx numbers them; returns the
    node columns and the list of (tree, leaf id)."""
    columns = {name: [] for name in ("nodes_treeids", "nodes_nodeids", "nodes_featureids", "nodes_modes",
                                     "nodes_values", "nodes_truenodeids", "nodes_falsenodeids",
                                     "nodes_missing_value_tracks_true", "nodes_hitrates")}
    leaves = []
    for tree in range(trees):
        nodes = []

        def build(level):
            index = len(nodes)
            nodes.append(None)
            if level == depth or (level > 1 and rng.random() < 0.3):
                nodes[index] = dict(mode="LEAF")
                return index
            true, false = build(level + 1), build(level + 1)
            nodes[index] = dict(mode=str(rng.choice(modes)), feature=int(rng.integers(FEATURES)),
                                value=float(np.round(rng.normal(), 1)), true=true, false=false,
                                tracks=int(rng.integers(2)))
            return index

        build(0)
        for index, entry in enumerate(nodes):
            leaf = entry["mode"] == "LEAF"
            for name, value in (("nodes_treeids", tree), ("nodes_nodeids", index),
                                ("nodes_featureids", 0 if leaf else entry["feature"]), ("nodes_modes", entry["mode"]),
                                ("nodes_values", 0.0 if leaf else entry["value"]),
                                ("nodes_truenodeids", 0 if leaf else entry["true"]),
                                ("nodes_falsenodeids", 0 if leaf else entry["false"]),
                                ("nodes_missing_value_tracks_true", 0 if leaf else entry["tracks"]),
                                ("nodes_hitrates", 1.0)):
                columns[name].append(value)
            if leaf:
                leaves.append((tree, index))
    return columns, leaves


def _tree_classifier(kind: str, ml_opset: int = 1):
    """skl2onnx's forms: `tree2` a binary decision tree (one class id, weights in [0, 1]);
    `boost2` binary gradient boosting (one class id, signed weights, base_values [b], LOGISTIC);
    `forest3` a random forest (every class at every leaf, weights / trees); `boost3` multi-class
    boosting (one class per tree, base_values, SOFTMAX). ml_opset 3 writes the *_as_tensor forms."""

    def build(static):
        rng = np.random.default_rng(len(kind) + ml_opset)
        trees = {"tree2": 1, "boost2": 3, "forest3": 3, "boost3": 6}[kind]
        columns, leaves = _forest(rng, trees, MODES if kind != "tree2" else ["BRANCH_LEQ"])
        classes = 3 if kind.endswith("3") else 2
        weights = {name: [] for name in ("class_treeids", "class_nodeids", "class_ids", "class_weights")}
        for tree, leaf in leaves:
            if kind == "forest3":
                share = rng.dirichlet(np.ones(classes))
                targets = [(c, share[c] / trees) for c in range(classes)]
            elif kind == "boost3":
                targets = [(tree % classes, rng.normal() * 0.3)]
            elif kind == "tree2":
                targets = [(0, rng.uniform())]
            else:
                targets = [(0, rng.normal() * 0.3)]
            for target, weight in targets:
                for name, value in (("class_treeids", tree), ("class_nodeids", leaf), ("class_ids", target),
                                    ("class_weights", float(np.round(weight, 4)))):
                    weights[name].append(value)
        attributes = dict(columns, **weights, classlabels_int64s=[4, 7, 9][:classes],
                          post_transform={"boost2": "LOGISTIC", "boost3": "SOFTMAX"}.get(kind, "NONE"))
        if kind.startswith("boost"):
            attributes["base_values"] = list(np.round(rng.normal(size=1 if classes == 2 else classes), 3))
        if ml_opset >= 3:
            for name in ("nodes_values", "class_weights", "base_values", "nodes_hitrates"):
                if name in attributes:
                    attributes[f"{name}_as_tensor"] = numpy_helper.from_array(
                        np.asarray(attributes.pop(name), np.float32))
        node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "probabilities"], domain=ML, **attributes)
        return _model([node], [("X", FLOAT, [FEATURES])], [("label", INT64), ("probabilities", FLOAT)],
                      ml_opset=ml_opset, static=static)

    return build


def encoders(static):
    """OneHotEncoder per column and LabelEncoder (int64), FeatureVectorizer, ArrayFeatureExtractor."""
    nodes = [
        helper.make_node("ArrayFeatureExtractor", ["C", "first"], ["c0"], domain=ML),
        helper.make_node("ArrayFeatureExtractor", ["C", "second"], ["c1"], domain=ML),
        helper.make_node("OneHotEncoder", ["c0"], ["h0"], domain=ML, cats_int64s=[1, 3, 5], zeros=1),
        helper.make_node("OneHotEncoder", ["c1"], ["h1"], domain=ML, cats_int64s=[2, 4], zeros=1),
        helper.make_node("LabelEncoder", ["c1"], ["relabeled"], domain=ML, keys_int64s=[2, 4, 6],
                         values_int64s=[20, 40, 60], default_int64=-7),
        helper.make_node("Squeeze", ["h0", "axis"], ["s0"]),
        helper.make_node("Squeeze", ["h1", "axis"], ["s1"]),
        helper.make_node("Cast", ["relabeled"], ["relabeled_float"], to=FLOAT),
        helper.make_node("FeatureVectorizer", ["s0", "s1", "relabeled_float"], ["features"], domain=ML,
                         inputdimensions=[3, 2, 1]),
    ]
    initializers = [numpy_helper.from_array(np.array([0], np.int64), "first"),
                    numpy_helper.from_array(np.array([1], np.int64), "second"),
                    numpy_helper.from_array(np.array([1], np.int64), "axis")]
    return _model(nodes, [("C", INT64, [2])], [("features", FLOAT), ("relabeled", INT64)], ml_opset=2,
                  static=static, initializers=initializers)


def _categories() -> np.ndarray:
    rng = np.random.default_rng(5)
    return np.stack([rng.choice([1, 3, 5, 7], ROWS), rng.choice([2, 4, 6], ROWS)], axis=1).astype(np.int64)


CASES = {
    "preprocessing": (preprocessing, lambda: [_x(nan=True)]),
    "linear-binary-logistic": (_linear_classifier(2, 2, "LOGISTIC", None), lambda: [_x()]),
    "linear-svc-one-intercept": (_linear_classifier(2, 1, "NONE", None), lambda: [_x()]),
    "linear-multiclass-softmax-l1": (_linear_classifier(3, 3, "SOFTMAX", "L1"), lambda: [_x()]),
    "linear-regressor": (linear_regressor, lambda: [_x()]),
    "svc-binary-rbf": (_svm_classifier(2, "RBF", False), lambda: [_x()]),
    "svc-3-poly": (_svm_classifier(3, "POLY", False), lambda: [_x()]),
    "svc-4-linear": (_svm_classifier(4, "LINEAR", False), lambda: [_x()]),
    "svc-3-rbf-probabilities": (_svm_classifier(3, "RBF", True), lambda: [_x()]),
    "svc-4-sigmoid-probabilities": (_svm_classifier(4, "SIGMOID", True), lambda: [_x()]),
    "svc-binary-rbf-probabilities": (_svm_classifier(2, "RBF", True), lambda: [_x()]),
    "svr-rbf": (_svm_regressor("RBF", 5), lambda: [_x()]),
    "svr-linear-form": (_svm_regressor("LINEAR", 0), lambda: [_x()]),
    "tree-binary": (_tree_classifier("tree2"), lambda: [_x()]),
    "boosting-binary-v3": (_tree_classifier("boost2", ml_opset=3), lambda: [_x(nan=True)]),
    "forest-3": (_tree_classifier("forest3"), lambda: [_x(nan=True)]),
    "boosting-3-v3": (_tree_classifier("boost3", ml_opset=3), lambda: [_x(nan=True)]),
    "encoders": (encoders, lambda: [_categories()]),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_sklearn_form_matches_onnxruntime(name, backend):
    build, arrays = CASES[name]
    _check(build, arrays(), backend)


IREE_CELLS = [("svc-3-rbf-probabilities", backend) for backend in BACKENDS] + [
    ("boosting-binary-v3", "linalg-on-tensors"), ("linear-multiclass-softmax-l1", "stablehlo")]


@pytest.mark.parametrize("name,backend", IREE_CELLS)
def test_sklearn_form_on_iree(name, backend):
    pytest.importorskip("iree.compiler")
    build, arrays = CASES[name]
    _check(build, arrays(), backend, consumer="iree")


def _single(op, attributes, element, output_element, ml_opset=1):
    def build(static):
        node = helper.make_node(op, ["X"], ["Y"], domain=ML, **attributes)
        return _model([node], [("X", element, [3])], [("Y", output_element)], ml_opset=ml_opset, static=static)

    return build


INTEGERS = np.array([[1, -1, 3], [0, 5, -1]] * 6, np.int64)
NAN_KEYS = np.array([[0.5, np.nan, 1.0]] * ROWS, np.float32)
OTHER_TYPES = {
    "imputer-int64": (_single("Imputer", dict(imputed_value_int64s=[7, 8, 9], replaced_value_int64=-1), INT64, INT64),
                      INTEGERS),
    "normalizer-max-int64": (_single("Normalizer", dict(norm="MAX"), INT64, FLOAT), INTEGERS),
    # A NaN key matches NaN from LabelEncoder 4 on; before, as in onnxruntime, nothing equals NaN.
    "label-encoder-2-nan-key": (_single("LabelEncoder", dict(keys_floats=[0.5, float("nan")], values_int64s=[3, 4],
                                                             default_int64=9), FLOAT, INT64, ml_opset=2), NAN_KEYS),
    "label-encoder-4-nan-key": (_single("LabelEncoder", dict(keys_floats=[0.5, float("nan")], values_int64s=[3, 4],
                                                             default_int64=9), FLOAT, INT64, ml_opset=4), NAN_KEYS),
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", sorted(OTHER_TYPES))
def test_integer_inputs_and_nan_keys_match_onnxruntime(name, backend):
    build, array = OTHER_TYPES[name]
    _check(build, [array], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_many_support_vectors_match_onnxruntime(backend):
    """300 RBF support vectors of 16 features: distances by one product, not [N, V, F] differences."""
    rng = np.random.default_rng(11)
    vectors, width = 300, 16
    attributes = dict(
        classlabels_ints=[0, 1, 2], vectors_per_class=[100, 120, 80], kernel_type="RBF", kernel_params=[0.05, 0.0, 3.0],
        support_vectors=list(np.round(rng.normal(size=vectors * width), 3)),
        coefficients=list(np.round(rng.uniform(-1, 1, size=2 * vectors), 3)), rho=[0.1, -0.2, 0.05],
        prob_a=[-2.0, -1.5, -2.5], prob_b=[0.1, 0.0, -0.1])

    def build(static):
        node = helper.make_node("SVMClassifier", ["X"], ["label", "probabilities"], domain=ML, **attributes)
        return _model([node], [("X", FLOAT, [width])], [("label", INT64), ("probabilities", FLOAT)], static=static)

    x = np.round(np.random.default_rng(12).normal(size=(ROWS, width)), 2).astype(np.float32)
    _check(build, [x], backend, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_double_input_meets_double_thresholds(backend):
    """TreeEnsembleClassifier 3 on a double input with double thresholds (what skl2onnx writes for
    float64 data) compares in double: float32(0.1) is above the threshold 0.1, 0.1 is not."""
    attributes = dict(
        nodes_treeids=[0] * 5, nodes_nodeids=list(range(5)), nodes_featureids=[0, 0, 1, 0, 0],
        nodes_modes=["BRANCH_LEQ", "LEAF", "BRANCH_LT", "LEAF", "LEAF"], nodes_truenodeids=[1, 0, 3, 0, 0],
        nodes_falsenodeids=[2, 0, 4, 0, 0],
        nodes_values_as_tensor=numpy_helper.from_array(np.array([0.1, 0, 0.7, 0, 0], np.float64)),
        class_treeids=[0] * 9, class_nodeids=[1, 1, 1, 3, 3, 3, 4, 4, 4], class_ids=[0, 1, 2] * 3,
        class_weights_as_tensor=numpy_helper.from_array(np.array([0.2, 0.3, 0.5, 0.6, 0.3, 0.1, 0.1, 0.1, 0.8])),
        classlabels_int64s=[0, 1, 2])

    def build(static):
        node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "scores"], domain=ML, **attributes)
        return _model([node], [("X", TensorProto.DOUBLE, [2])], [("label", INT64), ("scores", FLOAT)], ml_opset=3,
                      static=static)

    x = np.array([[0.1, 0.7], [np.float32(0.1), 0.2], [0.3, 0.7], [0.3, np.float32(0.7)]] * 3, np.float64)
    _check(build, [x], backend)


# -- types and errors --------------------------------------------------------------------------
def test_results_are_typed_without_declarations():
    """skl2onnx's graphs leave the scores' shape (and SVM's and Scaler's types) to inference."""
    from onnx_torch_mlir.importer.contrib_inference import type_contrib_results

    model = _svm_classifier(3, "RBF", False)(False)
    scaler = helper.make_node("Scaler", ["X"], ["scaled"], domain=ML, offset=[0.0], scale=[2.0])
    model.graph.node[0].input[0] = "scaled"
    model.graph.node.insert(0, scaler)
    while type_contrib_results(model):
        pass
    types = {value.name: value.type.tensor_type for value in [*model.graph.value_info, *model.graph.output]}

    def dims(name):
        return [dim.dim_value or dim.dim_param for dim in types[name].shape.dim]

    assert types["scaled"].elem_type == FLOAT and dims("scaled") == ["N", FEATURES]
    assert types["label"].elem_type == INT64 and dims("label") == ["N"]
    assert dims("probabilities") == ["N", 3]  # one decision per pair of classes


def _error(model) -> str:
    with pytest.raises(OnnxTorchMlirError) as raised:
        onnx_torch_mlir.compile(model, output_type="linalg-on-tensors")
    return str(raised.value)


def test_zipmap_read_by_a_node_is_refused_naming_the_option():
    """(A ZipMap giving a graph output is compiled as its dense input: test_zipmap_outputs.py.)"""
    model = _linear_classifier(2, 2, "LOGISTIC", None)(True)
    model.graph.node.append(helper.make_node("ZipMap", ["scores"], ["zipped"], domain=ML,
                                             classlabels_int64s=[10, 11]))
    model.graph.node.append(helper.make_node("Identity", ["zipped"], ["output_probability"]))
    del model.graph.output[1:]
    model.graph.output.append(helper.make_value_info(
        "output_probability", helper.make_sequence_type_proto(helper.make_map_type_proto(INT64, helper.make_tensor_type_proto(FLOAT, [])))))
    message = _error(model)
    assert "ZipMap (ai.onnx.ml opset 1)" in message and "zipmap=False" in message
    assert len(message.strip().splitlines()) == 1


def test_map_inputs_are_refused():
    node = helper.make_node("CastMap", ["M"], ["Y"], domain=ML, cast_to="TO_FLOAT", map_form="DENSE")
    graph = helper.make_graph(
        [node], "cast_map", [helper.make_value_info("M", helper.make_map_type_proto(INT64, helper.make_tensor_type_proto(FLOAT, [])))],
        [helper.make_tensor_value_info("Y", FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)], ir_version=8)
    message = _error(model)
    assert "CastMap (ai.onnx.ml opset 1) reads a map" in message and len(message.strip().splitlines()) == 1


def test_string_class_labels_are_a_clear_error():
    model = _linear_classifier(2, 2, "LOGISTIC", None)(True)
    node = model.graph.node[0]
    del node.attribute[[a.name for a in node.attribute].index("classlabels_ints")]
    node.attribute.append(helper.make_attribute("classlabels_strings", ["no", "yes"]))
    model.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    message = _error(model)
    assert "LinearClassifier" in message and "string" in message and len(message.strip().splitlines()) == 1


def test_probit_of_one_score_is_a_clear_error():
    message = _error(_linear_classifier(2, 1, "PROBIT", None)(True))
    assert "PROBIT" in message and "LinearClassifier" in message and "opset 1" in message


@pytest.mark.parametrize("backend", BACKENDS)
def test_probit_matches_onnxruntime(backend):
    """onnxruntime's closed-form erfinv; scores outside (0, 1) are NaN on both sides."""
    _check(_linear_classifier(3, 3, "PROBIT", None), [_x()], backend)
