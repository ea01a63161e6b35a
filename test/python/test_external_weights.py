"""Weights outside the module (transforms/external_weights.py): compile(weights="arguments") makes
the large weights trailing arguments of the entry function and writes them to a safetensors file;
weights="parameters" makes the module read IREE parameters and writes an IREE parameter archive.
Checked for each backend: the module's signature, the file's contents, and the numbers on our
runner and on IREE against onnxruntime."""

import json
import re
import subprocess
import sys

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.errors import PipelineError, RunnerError
from onnx_torch_mlir.runtime import compile_for_cpu
from onnx_torch_mlir.runtime.iree import IreeError, compile_with_iree
from onnx_torch_mlir.safetensors_file import read_safetensors, write_safetensors
from onnx_torch_mlir.transforms.external_weights import ExternalWeight, write_weights

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
_rng = np.random.default_rng(7)
WEIGHT = _rng.standard_normal((64, 48)).astype(np.float32)  # 12 KiB: taken out
BIAS = _rng.standard_normal((48,)).astype(np.float32)  # 192 bytes: below the default 1 KiB, stays
# 2304 bytes of uint8: taken out, and stays uint8 in the file. Below 128: IREE 3.13 converts the
# StableHLO route's ui8 to f32 as if signed, with the weights in the module too (not this form's doing).
SCALE = _rng.integers(1, 127, (48, 48), dtype=np.uint8)


def _model() -> onnx.ModelProto:
    """y = relu(x @ W + b) @ float(S) + relu(x @ W + b): W used once, S an uint8 table."""
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["x", "layer/W:0"], ["m"]),
            helper.make_node("Add", ["m", "b"], ["a"]),
            helper.make_node("Relu", ["a"], ["r"]),
            helper.make_node("Cast", ["S"], ["s"], to=TensorProto.FLOAT),
            helper.make_node("MatMul", ["r", "s"], ["p"]),
            helper.make_node("Add", ["p", "r"], ["y"]),
        ],
        "weights_outside",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 64])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 48])],
        [numpy_helper.from_array(WEIGHT, "layer/W:0"), numpy_helper.from_array(BIAS, "b"),
         numpy_helper.from_array(SCALE, "S")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)


X = _rng.standard_normal((3, 64)).astype(np.float32)


def _expected(weight=WEIGHT) -> np.ndarray:
    model = _model()
    if weight is not WEIGHT:
        model.graph.initializer[0].CopyFrom(numpy_helper.from_array(weight, "layer/W:0"))
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": X})[0]


def _weight_arguments(module) -> list[tuple[str, str]]:
    """(type, weight name) of each argument of the entry function that carries a weight name."""
    signature = re.search(r"func\.func @weights_outside\((.*?)\) ->", str(module)).group(1)
    pieces = (re.fullmatch(r"\d+: (.+) \{onnx_torch_mlir\.weight = \"([^\"]+)\"\}", piece.rstrip(", "))
              for piece in signature.split("%arg")[1:])
    return [piece.groups() for piece in pieces if piece]


@pytest.mark.parametrize("backend", BACKENDS)
def test_arguments_form_signature_file_and_numbers_on_both_consumers(backend, tmp_path):
    weights_file = tmp_path / "model.safetensors"
    module = onnx_torch_mlir.compile(_model(), backend, weights="arguments", weights_file=weights_file)
    names = [name for _, name in _weight_arguments(module)]
    assert sorted(names) == ["S", "layer/W:0"]  # the bias, under 1 KiB, stays
    assert "dense_resource<layer_W_0" not in str(module)  # gone from the module, not only unused
    arrays, metadata = read_safetensors(weights_file)
    assert json.loads(metadata["onnx_torch_mlir.arguments"]) == names
    assert metadata["onnx_torch_mlir.entry"] == "weights_outside"
    np.testing.assert_array_equal(arrays["layer/W:0"].reshape(WEIGHT.shape), WEIGHT)  # TOSA adds a leading 1
    assert arrays["S"].dtype == np.uint8  # the model's type, though the module says i8 or ui8
    np.testing.assert_array_equal(arrays["S"].reshape(SCALE.shape), SCALE)
    expected = _expected()
    (ours,) = compile_for_cpu(str(module), input_dialect=backend, weights_file=weights_file)(X)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-3)
    (iree,) = compile_with_iree(module, backend, weights_file=weights_file)(X)
    np.testing.assert_allclose(iree, expected, rtol=1e-4, atol=1e-3)


@pytest.mark.parametrize("backend", BACKENDS)
def test_parameters_form_module_archive_and_numbers_on_iree(backend, tmp_path):
    import iree.runtime as iree_runtime

    archive = tmp_path / "model.irpa"
    module = onnx_torch_mlir.compile(_model(), backend, weights="parameters", weights_file=archive)
    text = str(module)
    assert not _weight_arguments(module)
    for name in ("layer/W:0", "S"):
        assert f'initial_value = #stream.parameter.named<"model"::"{name}">' in text
        assert f'"util.global.load"() {{global = @"{name}"' in text or f'{{global = @{name},' in text
    index = iree_runtime.ParameterIndex()
    index.load(str(archive))
    entries = dict(index.items())
    assert sorted(entries) == ["S", "layer/W:0"]
    stored = iree_runtime.parameter_index_entry_as_numpy_flat_ndarray(entries["layer/W:0"])
    np.testing.assert_array_equal(stored.view(np.float32).reshape(WEIGHT.shape), WEIGHT)
    expected = _expected()
    (result,) = compile_with_iree(module, backend, weights_file=archive)(X)
    np.testing.assert_allclose(result, expected, rtol=1e-4, atol=1e-3)
    # The numbers come from the archive: other values under the same names give other results.
    doubled = tmp_path / "doubled.irpa"
    write_weights([ExternalWeight("layer/W:0", 2 * WEIGHT), ExternalWeight("S", SCALE)], "parameters", doubled)
    (other,) = compile_with_iree(text, backend, weights_file=doubled)(X)
    np.testing.assert_allclose(other, _expected(2 * WEIGHT), rtol=1e-4, atol=1e-3)


def test_the_runner_reads_the_weights_from_the_file_it_is_given(tmp_path):
    weights_file = tmp_path / "model.safetensors"
    module = onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="arguments", weights_file=weights_file)
    other = tmp_path / "other.safetensors"
    write_weights([ExternalWeight("layer/W:0", 2 * WEIGHT), ExternalWeight("S", SCALE)], "arguments", other)
    (result,) = compile_for_cpu(module, weights_file=other)(X)
    np.testing.assert_allclose(result, _expected(2 * WEIGHT), rtol=1e-4, atol=1e-3)
    mapping = {"layer/W:0": WEIGHT, "S": SCALE}  # a mapping of name to array serves as well
    np.testing.assert_allclose(compile_for_cpu(module, weights_file=mapping)(X)[0], _expected(), rtol=1e-4, atol=1e-3)


def test_the_threshold_decides_what_leaves_the_module(tmp_path):
    module = onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="arguments",
                                     weights_file=tmp_path / "w.safetensors", weights_min_bytes=0)
    assert sorted(name for _, name in _weight_arguments(module)) == ["S", "b", "layer/W:0"]
    module = onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="arguments",
                                     weights_file=tmp_path / "none.safetensors", weights_min_bytes=1 << 20)
    assert _weight_arguments(module) == []
    assert read_safetensors(tmp_path / "none.safetensors")[0] == {}


def test_torch_output_takes_weights_as_vtensor_arguments(tmp_path):
    module = onnx_torch_mlir.compile(_model(), "torch", weights="arguments", weights_file=tmp_path / "w.safetensors")
    assert sorted(_weight_arguments(module)) == [("!torch.vtensor<[48,48],ui8>", "S"), ("!torch.vtensor<[64,48],f32>", "layer/W:0")]
    module = onnx_torch_mlir.compile(_model(), "torch", weights="parameters", weights_file=tmp_path / "w.irpa")
    assert '"torch_c.from_builtin_tensor"' in str(module)  # util.global holds a builtin tensor


def test_a_weight_two_nodes_share_is_one_argument(tmp_path):
    weight = _rng.standard_normal((32, 32)).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["h"]), helper.make_node("MatMul", ["h", "w"], ["y"])],
        "weights_outside",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 32])],
        [numpy_helper.from_array(weight, "w")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=10)
    weights_file = tmp_path / "w.safetensors"
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors", weights="arguments", weights_file=weights_file)
    assert [name for _, name in _weight_arguments(module)] == ["w"]
    x = np.ones((2, 32), np.float32)
    np.testing.assert_allclose(compile_for_cpu(module, weights_file=weights_file)(x)[0], x @ weight @ weight, rtol=1e-4)


def test_one_line_refusals(tmp_path):
    with pytest.raises(PipelineError, match="give weights_file"):
        onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="arguments")
    with pytest.raises(PipelineError, match="weights_file is for arguments or parameters"):
        onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights_file=tmp_path / "w.safetensors")
    arguments = onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="arguments",
                                        weights_file=tmp_path / "w.safetensors")
    with pytest.raises(RunnerError, match=r"takes 2 weights as arguments .* pass the safetensors file"):
        compile_for_cpu(arguments)
    write_safetensors(tmp_path / "partial.safetensors", {"S": SCALE})
    with pytest.raises(RunnerError, match="has no weight 'layer/W:0'"):
        compile_for_cpu(arguments, weights_file=tmp_path / "partial.safetensors")
    parameters = onnx_torch_mlir.compile(_model(), "linalg-on-tensors", weights="parameters",
                                         weights_file=tmp_path / "w.irpa")
    with pytest.raises(RunnerError, match="reads its weights as IREE parameters"):
        compile_for_cpu(parameters)
    with pytest.raises(IreeError, match="pass the parameter archive"):
        compile_with_iree(parameters, "linalg-on-tensors")


def test_the_safetensors_package_reads_our_file(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = tmp_path / "w.safetensors"
    arrays = {"f64": np.arange(3.0), "i8": np.arange(5, dtype=np.int8), "f16": np.ones((2, 3), np.float16),
              "u8": SCALE, "f32": WEIGHT}
    write_safetensors(path, arrays, {"note": "kept"})
    loaded = safetensors_numpy.load_file(str(path))
    assert loaded.keys() == arrays.keys()
    for name, array in arrays.items():
        assert loaded[name].dtype == array.dtype
        np.testing.assert_array_equal(loaded[name], array)
    ours, metadata = read_safetensors(path)
    assert metadata == {"note": "kept"} and all(np.array_equal(ours[name], arrays[name]) for name in arrays)


def test_command_line_writes_the_weights_beside_the_module_and_runs_both_forms(tmp_path):
    model_path = tmp_path / "model.onnx"
    onnx.save(_model(), model_path)
    command = [sys.executable, "-m", "onnx_torch_mlir.tools.main"]
    output = tmp_path / "model.mlir"
    subprocess.run([*command, "compile", str(model_path), "--to", "tosa", "--weights", "arguments", "-o", str(output)],
                   check=True, capture_output=True, text=True)
    assert read_safetensors(tmp_path / "model.safetensors")[0].keys() == {"layer/W:0", "S"}
    for form, consumer in (("arguments", "reference"), ("parameters", "iree")):
        verified = subprocess.run([*command, "verify", str(model_path), "--to", "stablehlo", "--weights", form,
                                   "--consumer", consumer, "--quiet"], capture_output=True, text=True)
        assert verified.returncode == 0, verified.stderr
        assert "1 of 1 outputs match onnxruntime" in verified.stdout
    refused = subprocess.run([*command, "run", str(model_path), "--weights", "parameters", "--quiet"],
                             capture_output=True, text=True)
    assert refused.returncode == 1 and len(refused.stderr.strip().splitlines()) == 1
    assert "only IREE runs" in refused.stderr
    to_stdout = subprocess.run([*command, "compile", str(model_path), "--weights", "parameters"],
                               capture_output=True, text=True)
    assert to_stdout.returncode == 1 and "give --weights-file" in to_stdout.stderr
