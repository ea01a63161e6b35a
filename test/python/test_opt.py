"""`onnx-mlir-opt` and `onnx-torch-mlir compile`: outputs, exit codes, all errors reported."""

import onnx
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
