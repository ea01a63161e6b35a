"""Backend-legal ops and kept ONNX ops as custom ops (docs/custom-ops.md), and running them."""

import json
import re
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.errors import ConversionError, PipelineError, RunnerError
from onnx_torch_mlir.runtime import compile_for_cpu

BACKENDS = ["linalg-on-tensors", pytest.param("tosa", marks=pytest.mark.requires_path("tosa")),
            pytest.param("stablehlo", marks=pytest.mark.requires_path("stablehlo"))]
ENCODINGS = ["operands", "attributes"]


def layer_norm_model(with_bias=True) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, [3, 4])
    weight = numpy_helper.from_array(np.linspace(0.5, 2, 4).astype(np.float32), "weight")
    initializers = [weight]
    inputs = ["y", "weight"]
    if with_bias:
        initializers.append(numpy_helper.from_array(np.full(4, 0.25, np.float32), "bias"))
        inputs.append("bias")
    nodes = [
        helper.make_node("Relu", ["x"], ["y"]),
        helper.make_node("LayerNormalization", inputs, ["n"], axis=-1, epsilon=1e-5),
        helper.make_node("Add", ["n", "x"], ["z"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [z], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def expected(x, with_bias=True):
    y = np.maximum(x, 0)
    n = (y - y.mean(-1, keepdims=True)) / np.sqrt(y.var(-1, keepdims=True) + 1e-5) * np.linspace(0.5, 2, 4)
    return (n + (0.25 if with_bias else 0) + x).astype(np.float32)


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_layer_norm_custom_op_runs_with_rest_of_module(backend, encoding):
    module = onnx_torch_mlir.compile(layer_norm_model(), backend, backend_legal_ops=["aten.native_layer_norm"],
                                     custom_op_encoding=encoding)
    text = str(module)
    assert "torch." not in text.replace("torch.aten.native_layer_norm", "")
    assert {"tosa": "tosa.custom", "stablehlo": "stablehlo.custom_call @torch.aten.native_layer_norm",
            "linalg-on-tensors": "call @torch.aten.native_layer_norm"}[backend] in text
    x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
    (out,) = compile_for_cpu(module, input_dialect=backend)(x)
    np.testing.assert_allclose(out, expected(x), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_user_implementation_overrides_and_sees_arguments(backend):
    module = onnx_torch_mlir.compile(layer_norm_model(with_bias=False), backend,
                                     backend_legal_ops=["aten.native_layer_norm"])
    seen = {}

    def fake(x, normalized_shape, weight, bias, eps):
        seen.update(shape=normalized_shape.tolist(), bias=bias, eps=float(eps))
        return np.zeros_like(x), np.zeros((3, 1), np.float32), np.zeros((3, 1), np.float32)

    x = np.ones((3, 4), np.float32)
    (out,) = compile_for_cpu(module, input_dialect=backend, custom_ops={"aten.native_layer_norm": fake})(x)
    np.testing.assert_allclose(out, x)  # zeros + x
    assert seen["shape"] == [4] and seen["bias"] is None and abs(seen["eps"] - 1e-5) < 1e-9


def test_none_placeholder_in_each_backend():
    model = layer_norm_model(with_bias=False)
    tosa = str(onnx_torch_mlir.compile(model, "linalg-on-tensors", backend_legal_ops=["aten.native_layer_norm"]))
    assert "call @torch.constant.none() : () -> tensor<i1>" in tosa


def test_attributes_encoding_json_names_every_non_tensor_argument():
    module = onnx_torch_mlir.compile(layer_norm_model(with_bias=False), "linalg-on-tensors",
                                     backend_legal_ops=["aten.native_layer_norm"], custom_op_encoding="attributes")
    (config,) = re.findall(r'implementation_attrs = "(.*?)"', str(module))
    attributes = json.loads(config.replace("\\22", '"'))
    assert attributes == {"normalized_shape": [4], "bias": None, "eps": pytest.approx(1e-5)}


@pytest.mark.parametrize("backend", BACKENDS)
def test_kept_onnx_op_runs_by_onnx_reference(backend):
    module = onnx_torch_mlir.compile(layer_norm_model(), backend, keep_onnx_ops=["LayerNormalization"])
    assert "LayerNormalization" in str(module)
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    (out,) = compile_for_cpu(module, input_dialect=backend)(x)
    np.testing.assert_allclose(out, expected(x), rtol=1e-5, atol=1e-5)


def test_unknown_backend_legal_op_lists_close_matches():
    with pytest.raises(ConversionError, match=r"'aten.layer_nrm' \(close matches: aten.layer_norm"):
        onnx_torch_mlir.compile(layer_norm_model(), "torch", backend_legal_ops=["aten.layer_nrm"])


def test_unknown_onnx_op_to_keep_lists_close_matches():
    with pytest.raises(ConversionError, match=r"'LayerNorm' \(close matches: LayerNormalization"):
        onnx_torch_mlir.compile(layer_norm_model(), "torch", keep_onnx_ops=["LayerNorm"])


def test_unknown_encoding_is_refused():
    with pytest.raises(PipelineError, match="unknown custom-op encoding 'json'"):
        onnx_torch_mlir.compile(layer_norm_model(), "linalg-on-tensors", custom_op_encoding="json")


def test_missing_implementation_is_a_runner_error():
    module = onnx_torch_mlir.compile(layer_norm_model(), "linalg-on-tensors", backend_legal_ops=["aten.relu"])
    with pytest.raises(RunnerError, match=r"custom op torch.aten.relu has no implementation"):
        compile_for_cpu(module)


def test_implementation_error_surfaces_after_the_call():
    module = onnx_torch_mlir.compile(layer_norm_model(), "linalg-on-tensors", backend_legal_ops=["aten.relu"])

    def broken(x):
        raise ValueError("boom")

    program = compile_for_cpu(module, custom_ops={"aten.relu": broken})
    with pytest.raises(RunnerError, match="custom op torch.aten.relu failed: ValueError: boom"):
        program(np.ones((3, 4), np.float32))


def test_cli_compile_with_custom_ops(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(layer_norm_model(), path)
    command = [sys.executable, "-m", "onnx_torch_mlir.tools.main", "compile", str(path), "--to", "linalg-on-tensors",
               "--backend-legal-ops", "aten.native_layer_norm", "--custom-op-encoding", "attributes"]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "call @torch.aten.native_layer_norm" in done.stdout and "implementation_attrs" in done.stdout
    bad = subprocess.run(command[:-4] + ["--backend-legal-ops", "aten.layernorm"], capture_output=True, text=True)
    assert bad.returncode == 1 and "close matches: aten.layer_norm" in bad.stderr
