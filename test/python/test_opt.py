"""`onnx-mlir-opt` and `onnx-torch-mlir compile`: outputs, exit codes, all errors reported."""

import onnx
import pytest
from onnx import TensorProto, helper

from onnx_torch_mlir.tools import main as cli
from onnx_torch_mlir.tools import opt

GOOD = """
func.func @main_graph(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.Abs"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""
BAD = """
func.func @bad(%arg0: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "onnx.NoSuchOp"(%arg0) : (tensor<4xf32>) -> tensor<4xf32>
  %1 = "onnx.AlsoMissing"(%0) : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
"""


def test_pipeline_to_linalg(tmp_path):
    source, output = tmp_path / "in.mlir", tmp_path / "out.mlir"
    source.write_text(GOOD)
    assert opt.main([str(source), "--convert-onnx-to-torch-pipeline", "--convert-torch-to-linalg", "-o", str(output)]) == 0
    assert "linalg.generic" in output.read_text()


def test_errors_name_every_node_and_leave_no_output(tmp_path, capsys):
    source, output = tmp_path / "in.mlir", tmp_path / "out.mlir"
    source.write_text(BAD)
    assert opt.main([str(source), "--convert-onnx-to-torch-pipeline", "-o", str(output)]) == 1
    err = capsys.readouterr().err
    assert f"{source}:3:8: error: unnamed node (NoSuchOp" in err
    assert f"{source}:4:8: error: unnamed node (AlsoMissing" in err
    assert not output.exists()


def test_split_input_file_keeps_going(tmp_path, capsys):
    source = tmp_path / "in.mlir"
    source.write_text(BAD + "\n// -----\n" + GOOD)
    assert opt.main([str(source), "--split-input-file", "--convert-onnx-to-torch-pipeline"]) == 1
    captured = capsys.readouterr()
    assert "torch.aten.abs" in captured.out
    assert "NoSuchOp" in captured.err


def test_bytecode_round_trip(tmp_path, capsys):
    source, bytecode = tmp_path / "in.mlir", tmp_path / "out.mlirbc"
    source.write_text(GOOD)
    assert opt.main([str(source), "--convert-onnx-to-torch-pipeline", "--emit-bytecode", "-o", str(bytecode)]) == 0
    assert bytecode.read_bytes().startswith(b"ML\xefR")
    assert opt.main([str(bytecode)]) == 0
    assert "torch.aten.abs" in capsys.readouterr().out


def _model(path, node):
    graph = helper.make_graph(
        [node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 20)]), path)


def test_compile_command(tmp_path):
    model, output = tmp_path / "m.onnx", tmp_path / "m.mlir"
    _model(model, helper.make_node("Relu", ["x"], ["y"]))
    assert cli.main(["compile", str(model), "--to", "linalg-on-tensors", "-o", str(output)]) == 0
    assert "linalg.generic" in output.read_text()


def test_compile_command_reports_the_reason(tmp_path, capsys):
    model = tmp_path / "m.onnx"
    _model(model, helper.make_node("Gelu", ["x"], ["y"], name="g0", approximate="erf"))
    assert cli.main(["compile", str(model), "-o", str(tmp_path / "m.mlir")]) == 1
    err = capsys.readouterr().err
    assert "node 'g0' (Gelu, domain 'ai.onnx', opset 20): approximate 'erf' is not one of 'none', 'tanh'" in err


# Bad MLIR (issue 12 item 4): each a clear `file:line:col: error:` (or one-line) message, exit 1, no
# output file, never an internal error or a crash.
TORCH_ONNX = """
func.func @main_graph(%arg0: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],{result}>
    attributes {{torch.onnx_meta.opset_version = 17 : si64}} {{
  %0 = {op}
  return %0 : !torch.vtensor<[3,4],{result}>
}}
"""
BAD_MLIR = {
    "garbage": ("this is not MLIR {{", ":1:1: error: custom op 'this' is unknown"),
    "unknown ONNX op": (
        TORCH_ONNX.format(result="f32", op='torch.operator "onnx.NoSuchOp"(%arg0) : (!torch.vtensor<[3,4],f32>) -> '
                          "!torch.vtensor<[3,4],f32>"),
        ":4:8: error: unnamed node (NoSuchOp, domain 'ai.onnx', opset 17): 'NoSuchOp' is not an operator",
    ),
    "op of an unknown dialect": (
        TORCH_ONNX.format(result="f32", op='"mystery.op"(%arg0) : (!torch.vtensor<[3,4],f32>) -> '
                          "!torch.vtensor<[3,4],f32>"),
        ":4:8: error: found an op that was marked as backend illegal",
    ),
    "torch-ONNX attribute of the wrong type": (
        TORCH_ONNX.format(result="f32", op='torch.operator "onnx.Softmax"(%arg0) {torch.onnx.axis = "last"} : '
                          "(!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32>"),
        ":4:8: error: unnamed node (Softmax, domain 'ai.onnx', opset 17): attribute 'axis' must be an integer, not 'last'",
    ),
    "torch-ONNX op without its required torch.onnx attribute": (
        TORCH_ONNX.format(result="si64", op='torch.operator "onnx.Cast"(%arg0) : (!torch.vtensor<[3,4],f32>) -> '
                          "!torch.vtensor<[3,4],si64>"),
        ":4:8: error: unnamed node (Cast, domain 'ai.onnx', opset 17): required attribute 'to' is missing",
    ),
    "ONNX dialect attributes of the wrong types": (
        """
func.func @main_graph(%arg0: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %0 = "onnx.Softmax"(%arg0) {axis = 1.5 : f32} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %1 = "onnx.Transpose"(%0) {perm = "no"} : (tensor<3x4xf32>) -> tensor<4x3xf32>
  return %1 : tensor<4x3xf32>
}
""",
        ":4:8: error: unnamed node (Transpose, domain 'ai.onnx', opset 28): attribute 'perm' must be a list of integers",
    ),
    "torch op with a wrong attribute": (
        "func.func @f() -> !torch.int {\n  %0 = torch.constant.int \"seven\"\n  return %0 : !torch.int\n}\n",
        ":2:27: error: custom op 'torch.constant.int' expected integer value",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_MLIR))
def test_bad_mlir_is_a_clear_error(tmp_path, capsys, case):
    text, expected = BAD_MLIR[case]
    source, output = tmp_path / "in.mlir", tmp_path / "out.mlir"
    source.write_text(text)
    status = opt.main([str(source), "--convert-onnx-to-torch-pipeline", "--convert-torch-to-linalg", "-o", str(output)])
    err = capsys.readouterr().err
    assert status == 1, err
    assert f"{source}{expected}" in err
    assert "internal error" not in err and "Traceback" not in err
    assert not output.exists()


@pytest.mark.parametrize("data, expected", [
    (b"\xff\xfe\x00binary", "not MLIR: neither bytecode nor UTF-8 text (byte 0 is 0xff)"),
    (b"ML\xefR\x00\x01truncated", "error: bytecode version"),
], ids=["not UTF-8", "truncated bytecode"])
def test_bad_bytes_are_a_clear_error(tmp_path, capsys, data, expected):
    source = tmp_path / "in.mlir"
    source.write_bytes(data)
    assert opt.main([str(source), "--convert-onnx-to-torch-pipeline"]) == 1
    err = capsys.readouterr().err
    assert expected in err and str(source) in err and "internal error" not in err


def test_bad_mlir_through_the_command_line_is_not_a_crash(tmp_path):
    """The installed command (isolated in a child process) gives the same one-line errors."""
    import subprocess
    import sys
    from pathlib import Path

    source = tmp_path / "in.mlir"
    source.write_text(BAD_MLIR["torch-ONNX op without its required torch.onnx attribute"][0])
    result = subprocess.run([str(Path(sys.executable).parent / "onnx-mlir-opt"), str(source),
                             "--convert-onnx-to-torch-pipeline"], capture_output=True, text=True)
    assert result.returncode == 1
    assert "required attribute 'to' is missing" in result.stderr and "internal error" not in result.stderr
