"""A crash inside torch-mlir's passes is an internal error with the step and a reproducer, never a
bare abort (onnx_torch_mlir.isolation).

The crash is a real one: torch-mlir's Linalg lowering of `aten.to.dtype` to uint16 ends the
process with `LLVM ERROR: unhandled type for getTypeForScalarType` (SIGABRT). Our Cast pattern
refuses that form by name, so the tests switch the refusal off (in the test process, which the
forked child inherits) or feed the Torch IR to onnx-mlir-opt directly.
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import onnx
import pytest
from onnx import TensorProto, helper

import onnx_torch_mlir
from onnx_torch_mlir.conversion.onnx_to_torch import math_functions
from onnx_torch_mlir.errors import ConversionError, InternalCompilerError

BIN = Path(sys.executable).parent
CAST_TO_UINT16 = """
func.func @g(%arg0: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],ui16> {
  %false = torch.constant.bool false
  %none = torch.constant.none
  %int27 = torch.constant.int 27
  %0 = torch.aten.to.dtype %arg0, %int27, %false, %false, %none : !torch.vtensor<[3],f32>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3],ui16>
  return %0 : !torch.vtensor<[3],ui16>
}
"""


def _model(node, output_type=TensorProto.FLOAT):
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", output_type, [3])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


CAST_MODEL = _model(helper.make_node("Cast", ["x"], ["y"], name="cast0", to=TensorProto.UINT16), TensorProto.UINT16)
_REPRODUCER = re.compile(r"reproducer \(the step's input IR\): (\S+\.mlir)")


def _reproducer(message: str) -> Path:
    match = _REPRODUCER.search(message)
    assert match, message
    path = Path(match.group(1))
    assert path.exists()
    return path


def test_opt_crash_is_an_internal_error_with_a_reproducer(tmp_path):
    source, output = tmp_path / "cast.mlir", tmp_path / "out.mlir"
    source.write_text(CAST_TO_UINT16)
    result = subprocess.run(
        [str(BIN / "onnx-mlir-opt"), str(source), "--convert-torch-to-linalg", "-o", str(output)],
        capture_output=True, text=True,
    )
    assert result.returncode == 3
    last = result.stderr.strip().splitlines()[-1]
    assert last.startswith("onnx-mlir-opt: error: internal error: the compiler crashed (SIGABRT) in pipeline step")
    assert "LLVM ERROR: unhandled type for getTypeForScalarType" in last
    reproducer = _reproducer(last)
    try:
        text = reproducer.read_text()
        assert "--convert-torch-to-linalg" in text.splitlines()[1]
        assert "torch.aten.to.dtype" in text
    finally:
        reproducer.unlink()
    assert not output.exists() and result.stdout == ""


def test_compile_command_names_the_step_and_the_reproducer_runs_it(tmp_path):
    model = tmp_path / "cast.onnx"
    onnx.save(CAST_MODEL, model)
    script = (
        "import sys; from onnx_torch_mlir.conversion.onnx_to_torch import math_functions;"
        "math_functions._NO_LINALG_DTYPE.clear(); from onnx_torch_mlir.tools.main import main; sys.exit(main())"
    )
    result = subprocess.run(
        [sys.executable, "-c", script, "compile", str(model), "--to", "linalg-on-tensors", "-o", str(tmp_path / "o")],
        capture_output=True, text=True,
    )
    assert result.returncode == 3, result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "in pipeline step 'torch-to-linalg-on-tensors'" in last
    reproducer = _reproducer(last)
    try:
        assert 'loc("cast0"' in reproducer.read_text()  # the node's location is kept
        # The printed command runs the step on the reproducer and crashes the same way, reported.
        command = last.split(" (onnx-mlir-opt ", 1)[1].split(");", 1)[0]
        flags = re.findall(r"'([^']*)'", command)
        rerun = subprocess.run(
            [str(BIN / "onnx-mlir-opt"), str(reproducer), "--pass-pipeline", flags[0]], capture_output=True, text=True
        )
        assert rerun.returncode == 3 and "internal error: the compiler crashed (SIGABRT)" in rerun.stderr
        for path in set(re.findall(r"/\S+onnx-torch-mlir-crash-[^ ;)]+\.mlir", rerun.stderr)):
            os.unlink(path)
    finally:
        reproducer.unlink()
    assert not (tmp_path / "o").exists()


def test_python_api_raises_internal_compiler_error(monkeypatch):
    monkeypatch.setattr(math_functions, "_NO_LINALG_DTYPE", {})
    with pytest.raises(InternalCompilerError) as raised:
        onnx_torch_mlir.compile(CAST_MODEL, "linalg-on-tensors", isolated=True)
    assert raised.value.step == "torch-to-linalg-on-tensors"
    assert "SIGABRT" in str(raised.value)
    try:
        assert "torch.aten.to.dtype" in Path(raised.value.reproducer).read_text()
    finally:
        os.unlink(raised.value.reproducer)


def test_python_api_isolated_gives_the_same_module_and_the_same_errors():
    relu = _model(helper.make_node("Relu", ["x"], ["y"]))
    assert str(onnx_torch_mlir.compile(relu, "tosa", isolated=True)) == str(onnx_torch_mlir.compile(relu, "tosa"))
    gelu = _model(helper.make_node("Gelu", ["x"], ["y"], name="g0", approximate="erf"))
    with pytest.raises(ConversionError, match="node 'g0'"):
        onnx_torch_mlir.compile(gelu, isolated=True)
