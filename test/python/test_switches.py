"""The path switches (onnx_torch_mlir.config): refusals, CLI flags, environment."""

import os
import subprocess
import sys

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir import config
from onnx_torch_mlir.errors import BackendDisabledError

pytestmark = pytest.mark.ignores_switches


def relu_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.fixture
def switched_off():
    def switch(*paths):
        config.set_disabled_paths(paths)

    yield switch
    config.set_disabled_paths(None)


@pytest.mark.parametrize("path", ["tosa", "stablehlo"])
def test_switched_off_backend_refuses_and_linalg_still_works(switched_off, path):
    switched_off(path)
    with pytest.raises(BackendDisabledError, match=rf"is switched off \('{path}' in ONNX_TORCH_MLIR_DISABLE"):
        onnx_torch_mlir.compile(relu_model(), path)
    assert "linalg.generic" in str(onnx_torch_mlir.compile(relu_model(), "linalg-on-tensors"))


def test_switched_off_torch_mlir_path_refuses(switched_off):
    switched_off("torch")
    with pytest.raises(BackendDisabledError, match="torch-mlir's own ONNX importer"):
        onnx_torch_mlir.compile(relu_model(), "torch", importer="torch-mlir")
    with pytest.raises(BackendDisabledError, match="torch-mlir's own ONNX importer"):
        onnx_torch_mlir.compile(relu_model(), "torch", converter="torch-mlir")
    assert "torch.aten.relu" in str(onnx_torch_mlir.compile(relu_model(), "torch"))


def test_unknown_path_is_refused():
    with pytest.raises(BackendDisabledError, match="unknown path"):
        config.set_disabled_paths(["mhlo"])


def _cli(*arguments, env=None):
    environment = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-m", "onnx_torch_mlir.tools.main", *arguments],
                          capture_output=True, text=True, env=environment)


def test_cli_flag_and_environment_refuse(tmp_path):
    path = tmp_path / "model.onnx"
    onnx.save(relu_model(), path)
    by_flag = _cli("--disable", "tosa", "compile", str(path), "--to", "tosa")
    assert by_flag.returncode == 1
    assert "error: the TOSA backend path is switched off" in by_flag.stderr
    by_environment = _cli("compile", str(path), "--to", "stablehlo", env={"ONNX_TORCH_MLIR_DISABLE": "stablehlo"})
    assert by_environment.returncode == 1 and "StableHLO backend path is switched off" in by_environment.stderr
    still = _cli("--disable", "tosa,stablehlo,torch", "compile", str(path), "--to", "linalg-on-tensors")
    assert still.returncode == 0 and "linalg.generic" in still.stdout


def test_opt_refuses_switched_off_backend(tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text("func.func @f(%a: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32> {\n"
                      "  %0 = torch.aten.relu %a : !torch.vtensor<[2],f32> -> !torch.vtensor<[2],f32>\n"
                      "  return %0 : !torch.vtensor<[2],f32>\n}\n")
    done = subprocess.run([sys.executable, "-m", "onnx_torch_mlir.tools.opt", "--disable", "tosa", str(source),
                           "--convert-torch-to-tosa"], capture_output=True, text=True)
    assert done.returncode == 1 and "TOSA backend path is switched off" in done.stderr


def test_conformance_skips_switched_off_backends():
    done = _cli("--disable", "tosa", "conformance", "--backend", "tosa", "-k", "node/test_relu")
    assert done.returncode == 1 and "TOSA backend path is switched off" in done.stderr
