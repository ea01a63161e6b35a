"""XLA (jax/jaxlib's CPU client) as a consumer of our StableHLO: the form it takes (entry @main,
weights inline, only StableHLO ops, a portable artifact for its older StableHLO) and the errors for
the forms it does not."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.errors import OnnxTorchMlirError

pytest.importorskip("jax")
from onnx_torch_mlir.runtime.xla import XlaError, compile_with_xla  # noqa: E402

from onnxruntime_reference import expected  # noqa: E402


def _model(path, dynamic=False):
    """Conv + AveragePool (torch-mlir leaves its divisor an arith.constant) + an int64 side output."""
    rng = np.random.default_rng(0)
    weight = numpy_helper.from_array(rng.standard_normal((4, 3, 3, 3)).astype(np.float32), "weight")
    offsets = numpy_helper.from_array(np.arange(6, dtype=np.int64).reshape(2, 3) * 10**10, "offsets")
    nodes = [
        helper.make_node("Conv", ["x", "weight"], ["conv"], pads=[1, 1, 1, 1]),
        helper.make_node("AveragePool", ["conv"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Add", ["ids", "offsets"], ["shifted"]),
    ]
    batch = "batch" if dynamic else 1
    graph = helper.make_graph(
        nodes, "conv_graph",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 8, 8]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, [2, 3])],
        [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [batch, 4, 4, 4]),
         helper.make_tensor_value_info("shifted", TensorProto.INT64, [2, 3])],
        [weight, offsets])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return path


def _inputs():
    rng = np.random.default_rng(1)
    return [rng.standard_normal((1, 3, 8, 8)).astype(np.float32), rng.integers(-5, 5, (2, 3)).astype(np.int64)]


def test_xla_runs_the_stablehlo_written_for_it(tmp_path):
    path = _model(str(tmp_path / "m.onnx"))
    module = onnx_torch_mlir.compile(path, output_type="stablehlo", entry_name="main", weights="inline")
    text = str(module)
    assert "func.func @main(" in text and "dense_resource" not in text and "arith.constant" not in text
    outputs = compile_with_xla(module)(*_inputs())
    want = expected(onnx.load(path), _inputs())
    np.testing.assert_allclose(outputs[0], want[0], rtol=1e-5, atol=1e-5)
    assert outputs[1].dtype == np.int64 and np.array_equal(outputs[1], want[1])  # beyond 32 bits


def test_weights_inline_on_every_backend(tmp_path):
    path = _model(str(tmp_path / "m.onnx"))
    for backend in ("torch", "linalg-on-tensors", "tosa", "stablehlo"):
        text = str(onnx_torch_mlir.compile(path, output_type=backend, weights="inline"))
        assert "dense_resource" not in text and "dialect_resources" not in text, backend
        assert "func.func @conv_graph(" in text, backend  # the graph's name unless asked otherwise


@pytest.mark.parametrize("options, reason", [
    ({}, "the entry function is @conv_graph; XLA runs @main"),
    ({"entry_name": "main"}, "keeps its weights as resources"),
])
def test_a_module_not_written_for_xla_is_refused_with_the_option_to_use(tmp_path, options, reason):
    module = onnx_torch_mlir.compile(_model(str(tmp_path / "m.onnx")), output_type="stablehlo", **options)
    with pytest.raises(XlaError, match=reason):
        compile_with_xla(module)


def test_a_dynamic_module_is_refused_with_the_dims_hint(tmp_path):
    path = _model(str(tmp_path / "m.onnx"), dynamic=True)
    module = onnx_torch_mlir.compile(path, output_type="stablehlo", entry_name="main", weights="inline")
    with pytest.raises(XlaError, match="static shapes.*--dim NAME=SIZE"):
        compile_with_xla(module)
    fixed = onnx_torch_mlir.compile(path, output_type="stablehlo", entry_name="main", weights="inline", dims=["batch=1"])
    outputs = compile_with_xla(fixed)(*_inputs())
    np.testing.assert_allclose(outputs[0], expected(onnx.load(path), _inputs())[0], rtol=1e-5, atol=1e-5)


def test_unknown_weights_form_and_taken_entry_name_are_errors(tmp_path):
    path = _model(str(tmp_path / "m.onnx"))
    with pytest.raises(OnnxTorchMlirError, match="unknown weights form 'outside'"):
        onnx_torch_mlir.compile(path, output_type="stablehlo", weights="outside")
    module = onnx_torch_mlir.compile(path, output_type="linalg-on-tensors", entry_name="renamed")
    assert "func.func @renamed(" in str(module)


def _cli(*arguments):
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "onnx_torch_mlir.tools.main", *arguments], capture_output=True, text=True)


def test_the_command_line_writes_a_portable_artifact_xla_runs(tmp_path):
    from jax._src.lib import xla_client
    from jax.extend import backend

    from onnx_torch_mlir.runtime.xla import XlaProgram, xla_stablehlo_version

    path = _model(str(tmp_path / "m.onnx"))
    artifact = tmp_path / "m.vhlo"
    done = _cli("compile", path, "--to", "stablehlo", "--entry-name", "main", "--emit-portable-artifact",
                xla_stablehlo_version(), "-o", str(artifact))
    assert done.returncode == 0, done.stderr
    client = backend.get_backend("cpu")
    executable = client.compile_and_load(artifact.read_bytes(), client.devices()[:1], xla_client.CompileOptions())
    outputs = XlaProgram(executable, client)(*_inputs())
    np.testing.assert_allclose(outputs[0], expected(onnx.load(path), _inputs())[0], rtol=1e-5, atol=1e-5)
    refused = _cli("compile", path, "--to", "tosa", "--emit-portable-artifact", "1.17.0", "-o", str(tmp_path / "t"))
    assert refused.returncode == 1 and "needs --to stablehlo, not tosa" in refused.stderr
    assert not (tmp_path / "t").exists()


def test_generic_tosa_text_loads_in_iree(tmp_path):
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    iree_compile = Path(sys.executable).parent / "iree-compile"
    if not iree_compile.exists() and not shutil.which("iree-compile"):
        pytest.skip("iree-compile is not installed")
    path = _model(str(tmp_path / "m.onnx"))
    text = tmp_path / "m.mlir"
    assert _cli("compile", path, "--to", "tosa", "--print-generic", "-o", str(text)).returncode == 0
    done = subprocess.run([str(iree_compile), str(text), "--iree-input-type=tosa", "--iree-hal-target-device=local",
                           "--iree-hal-local-target-device-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic",
                           "-o", str(tmp_path / "m.vmfb")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[:500]


def test_a_result_sized_by_the_data_is_refused_naming_it_not_the_dims(tmp_path):
    """A static signature's NonZero result: no --dim helps, and the error says so."""
    graph = helper.make_graph(
        [helper.make_node("NonZero", ["x"], ["positions"])], "nonzero",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("positions", TensorProto.INT64, [2, None])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    module = onnx_torch_mlir.compile(model, output_type="stablehlo", entry_name="main", weights="inline")
    with pytest.raises(XlaError, match=r"result 0 \(tensor<2x\?xi64>\) has a size the data decides.*no --dim"):
        compile_with_xla(module)
