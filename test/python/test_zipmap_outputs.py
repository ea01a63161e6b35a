"""ai.onnx.ml ZipMap at a classifier's output (skl2onnx's default export): the graph output is
compiled as ZipMap's dense [N, C] input, columns in the order of its class labels, with a one-line
warning and the labels recorded on the module; `verify` turns onnxruntime's list of dicts into the
same array. A ZipMap that another node reads stays refused."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from consumers import program
from onnx_torch_mlir.errors import OnnxTorchMlirError, OnnxTorchMlirWarning
from onnx_torch_mlir.importer.zipmap import LABELS_ATTRIBUTE, dense_probabilities

ML = "ai.onnx.ml"
FEATURES = 4


def _classifier_with_zipmap(labels: dict, batch="N") -> onnx.ModelProto:
    """LinearClassifier (softmax over 3 classes) -> ZipMap with `labels` (classlabels_int64s or
    classlabels_strings), as skl2onnx writes it: outputs label and output_probability."""
    rng = np.random.default_rng(0)
    classifier = helper.make_node(
        "LinearClassifier", ["X"], ["label", "probabilities"], domain=ML, classlabels_ints=[12, 10, 11],
        coefficients=list(np.round(rng.normal(size=3 * FEATURES), 3)), intercepts=[0.1, -0.2, 0.3], multi_class=1,
        post_transform="SOFTMAX")
    zipmap = helper.make_node("ZipMap", ["probabilities"], ["output_probability"], name="zip", domain=ML, **labels)
    key = TensorProto.STRING if "classlabels_strings" in labels else TensorProto.INT64
    maps = helper.make_sequence_type_proto(helper.make_map_type_proto(key, helper.make_tensor_type_proto(TensorProto.FLOAT, [])))
    graph = helper.make_graph(
        [classifier, zipmap], "sklearn", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [batch, FEATURES])],
        [helper.make_tensor_value_info("label", TensorProto.INT64, None),
         helper.make_value_info("output_probability", maps)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid(ML, 1)],
                             ir_version=8)


CASES = {
    "int-labels": {"classlabels_int64s": [12, 10, 11]},
    "string-labels": {"classlabels_strings": ["setosa", "versicolor", "virginica"]},
}


@pytest.mark.parametrize("backend,consumer", [("linalg-on-tensors", "reference"), ("linalg-on-tensors", "iree"),
                                              ("stablehlo", "reference"), ("tosa", "reference")])
@pytest.mark.parametrize("case", CASES)
def test_zipmap_output_is_the_dense_probabilities(case, backend, consumer):
    model = _classifier_with_zipmap(CASES[case], batch="N" if backend == "linalg-on-tensors" else 5)
    labels = next(iter(CASES[case].values()))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = onnx_torch_mlir.compile(model, backend)
    said = [str(warning.message) for warning in caught if issubclass(warning.category, OnnxTorchMlirWarning)]
    assert len(said) == 1 and "ZipMap output 'output_probability'" in said[0] and str(labels) in said[0], said
    recorded = module.operation.attributes[LABELS_ATTRIBUTE]
    assert str(recorded).count(",") == len(labels) - 1 and all(str(label) in str(recorded) for label in labels)
    x = np.random.default_rng(1).normal(size=(5, FEATURES)).astype(np.float32)
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    label, maps = session.run(None, {"X": x})
    ours_label, ours_probabilities = program(module, backend, consumer)(x)
    np.testing.assert_array_equal(ours_label, label)
    expected = dense_probabilities(maps, labels)
    assert ours_probabilities.shape == (5, 3)
    np.testing.assert_allclose(ours_probabilities, expected, rtol=1e-5, atol=1e-6)


def test_verify_compares_zipmap_outputs_by_label_order(tmp_path):
    path = tmp_path / "zipmap.onnx"
    onnx.save(_classifier_with_zipmap(CASES["int-labels"]), path)
    result = subprocess.run([str(Path(sys.executable).parent / "onnx-torch-mlir"), "verify", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "output_probability: ok" in result.stdout and "2 of 2 outputs match" in result.stdout


def test_zipmap_read_by_another_node_is_refused():
    model = _classifier_with_zipmap(CASES["int-labels"])
    model.graph.node.append(helper.make_node("Identity", ["output_probability"], ["copied"], name="copy"))
    model.graph.output[1].name = "copied"
    with pytest.raises(OnnxTorchMlirError) as raised:
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
    message = str(raised.value)
    assert len(message.strip().splitlines()) == 1
    assert "node 'zip'" in message and "another node reads" in message and "zipmap=False" in message
