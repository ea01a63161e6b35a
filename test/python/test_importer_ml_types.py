"""Result types of ai.onnx.ml operators (importer/ml_types.py): each op alone on an [N, F] input
whose outputs declare nothing, typed by the importer's inference rounds, against the shapes
onnxruntime's kernels write."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir.importer.contrib_inference import type_contrib_results

ML = "ai.onnx.ml"
FLOAT, INT64, STRING, DOUBLE = TensorProto.FLOAT, TensorProto.INT64, TensorProto.STRING, TensorProto.DOUBLE
TREE = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
            nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.5, 0.0, 0.0], nodes_truenodeids=[1, 0, 0],
            nodes_falsenodeids=[2, 0, 0])

# op, attributes, input element type, ml opset, expected (element type, dims) per output
CASES = {
    "scaler": ("Scaler", dict(offset=[0.0], scale=[2.0]), DOUBLE, 1, [(FLOAT, ["N", 4])]),
    "normalizer": ("Normalizer", dict(norm="L2"), INT64, 1, [(FLOAT, ["N", 4])]),
    "binarizer": ("Binarizer", dict(threshold=0.5), DOUBLE, 1, [(DOUBLE, ["N", 4])]),
    "imputer": ("Imputer", dict(imputed_value_int64s=[0], replaced_value_int64=-1), INT64, 1, [(INT64, ["N", 4])]),
    "label-encoder": ("LabelEncoder", dict(keys_int64s=[1], values_floats=[0.5]), INT64, 2, [(FLOAT, ["N", 4])]),
    "label-encoder-tensor": ("LabelEncoder", dict(keys_int64s=[1], values_tensor=numpy_helper.from_array(
        np.array([3], np.int64))), INT64, 4, [(INT64, ["N", 4])]),
    "one-hot-encoder": ("OneHotEncoder", dict(cats_int64s=[1, 2, 3]), INT64, 1, [(FLOAT, ["N", 4, 3])]),
    "linear-classifier": ("LinearClassifier", dict(classlabels_ints=[0, 1, 2], coefficients=[0.0] * 12,
                                                   intercepts=[0.0] * 3), FLOAT, 1, [(INT64, ["N"]), (FLOAT, ["N", 3])]),
    "linear-classifier-one-intercept": ("LinearClassifier", dict(classlabels_ints=[0, 1], coefficients=[0.0] * 4,
                                                                 intercepts=[0.0]), FLOAT, 1,
                                        [(INT64, ["N"]), (FLOAT, ["N", 2])]),
    "linear-regressor": ("LinearRegressor", dict(coefficients=[0.0] * 8, targets=2), FLOAT, 1, [(FLOAT, ["N", 2])]),
    "svm-classifier-pairs": ("SVMClassifier", dict(classlabels_ints=[0, 1, 2, 3], vectors_per_class=[1, 1, 1, 1],
                                                   support_vectors=[0.0] * 16, coefficients=[0.0] * 12, rho=[0.0] * 6),
                             FLOAT, 1, [(INT64, ["N"]), (FLOAT, ["N", 6])]),
    "svm-classifier-probabilities": ("SVMClassifier", dict(classlabels_ints=[0, 1, 2], vectors_per_class=[1, 1, 1],
                                                           support_vectors=[0.0] * 12, coefficients=[0.0] * 6,
                                                           rho=[0.0] * 3, prob_a=[1.0] * 3, prob_b=[0.0] * 3),
                                     FLOAT, 1, [(INT64, ["N"]), (FLOAT, ["N", 3])]),
    "svm-classifier-binary": ("SVMClassifier", dict(classlabels_ints=[0, 1], vectors_per_class=[1, 1],
                                                    support_vectors=[0.0] * 8, coefficients=[0.0] * 2, rho=[0.0]),
                              FLOAT, 1, [(INT64, ["N"]), (FLOAT, ["N", 2])]),
    "svm-regressor": ("SVMRegressor", dict(n_supports=1, support_vectors=[0.0] * 4, coefficients=[1.0], rho=[0.0]),
                      FLOAT, 1, [(FLOAT, ["N", 1])]),
    "tree-classifier-v1": ("TreeEnsembleClassifier", dict(TREE, classlabels_int64s=[3, 4], class_treeids=[0],
                                                          class_nodeids=[1], class_ids=[0], class_weights=[1.0]),
                           FLOAT, 1, [(INT64, ["N"]), (FLOAT, ["N", 2])]),
    "tree-regressor": ("TreeEnsembleRegressor", dict(TREE, n_targets=3, target_treeids=[0], target_nodeids=[1],
                                                     target_ids=[0], target_weights=[1.0]), FLOAT, 3,
                       [(FLOAT, ["N", 3])]),
    "feature-vectorizer": ("FeatureVectorizer", dict(inputdimensions=[4]), INT64, 1, [(FLOAT, ["N", 4])]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_result_types(name):
    op, attributes, element, ml_opset, expected = CASES[name]
    outputs = [f"y{i}" for i in range(len(expected))]
    node = helper.make_node(op, ["X"], outputs, domain=ML, **attributes)
    graph = helper.make_graph([node], name, [helper.make_tensor_value_info("X", element, ["N", 4])],
                              [helper.make_value_info(output, onnx.TypeProto()) for output in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, ml_opset)])
    while type_contrib_results(model):
        pass
    found = {value.name: value.type.tensor_type for value in [*model.graph.value_info, *model.graph.output]}
    for output, (element_type, dims) in zip(outputs, expected):
        tensor = found[output]
        assert tensor.elem_type == element_type
        assert [dim.dim_value or dim.dim_param for dim in tensor.shape.dim] == dims


def test_array_feature_extractor_of_a_vector_is_one_row():
    node = helper.make_node("ArrayFeatureExtractor", ["X", "I"], ["Y"], domain=ML)
    graph = helper.make_graph([node], "afe", [helper.make_tensor_value_info("X", FLOAT, [5]),
                                              helper.make_tensor_value_info("I", INT64, [1, 3])],
                              [helper.make_value_info("Y", onnx.TypeProto())])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)])
    while type_contrib_results(model):
        pass
    (tensor,) = [value.type.tensor_type for value in [*model.graph.value_info, *model.graph.output] if value.name == "Y"]
    assert [dim.dim_value for dim in tensor.shape.dim] == [1, 3]


def test_string_labels_are_typed_as_strings():
    """Typed (the ONNX dialect carries strings); the torch-ONNX import then refuses them in one line."""
    node = helper.make_node("SVMClassifier", ["X"], ["label", "scores"], domain=ML, classlabels_strings=["a", "b"],
                            vectors_per_class=[1, 1], support_vectors=[0.0] * 8, coefficients=[0.0] * 2, rho=[0.0])
    graph = helper.make_graph([node], "svm", [helper.make_tensor_value_info("X", FLOAT, ["N", 4])],
                              [helper.make_value_info(name, onnx.TypeProto()) for name in ("label", "scores")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)])
    while type_contrib_results(model):
        pass
    types = {value.name: value.type.tensor_type.elem_type for value in [*model.graph.value_info, *model.graph.output]}
    assert types["label"] == STRING and types["scores"] == FLOAT


def test_a_result_declared_with_another_element_type_is_refused():
    """skl2onnx declares double scores on a version-1 classifier of a double input; onnxruntime
    refuses the model, and so does the importer, in one line."""
    import onnx_torch_mlir
    from onnx_torch_mlir.errors import OnnxTorchMlirError

    node = helper.make_node("TreeEnsembleClassifier", ["X"], ["label", "scores"], domain=ML, classlabels_int64s=[3, 4],
                            class_treeids=[0], class_nodeids=[1], class_ids=[0], class_weights=[1.0], **TREE)
    graph = helper.make_graph([node], "tree", [helper.make_tensor_value_info("X", DOUBLE, ["N", 4])],
                              [helper.make_tensor_value_info("label", INT64, ["N"]),
                               helper.make_tensor_value_info("scores", DOUBLE, ["N", 2])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)])
    with pytest.raises(OnnxTorchMlirError) as raised:
        onnx_torch_mlir.compile(model, output_type="linalg-on-tensors")
    message = str(raised.value)
    assert "result 'scores' is declared double but TreeEnsembleClassifier gives float" in message
    assert "opset 1" in message and len(message.strip().splitlines()) == 1
