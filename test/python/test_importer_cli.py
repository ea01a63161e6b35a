"""`onnx-torch-mlir import`: output choices, options, quiet when piped."""

import subprocess
import sys

import onnx

from onnx_torch_mlir.tools.main import main

from importer_models import linear_model


def test_text_to_stdout_and_file(tmp_path, capsys):
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    assert main(["import", str(path)]) == 0
    stdout = capsys.readouterr().out
    assert 'torch.operator "onnx.Gemm"' in stdout
    output = tmp_path / "linear.mlir"
    assert main(["import", str(path), "--form", "onnx", "-o", str(output)]) == 0
    assert '"onnx.EntryPoint"() {func = @main_graph}' in output.read_text()


def test_locations_are_printed_on_request(tmp_path, capsys):
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    assert main(["import", str(path), "--print-locations"]) == 0
    assert 'loc("gemm"(' in capsys.readouterr().out


def test_expand_ops_option(tmp_path, capsys):
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4, 4])
    graph = helper.make_graph([helper.make_node("MeanVarianceNormalization", ["x"], ["y"])], "g", [x], [y])
    path = tmp_path / "mvn.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]), str(path))
    assert main(["import", str(path), "--expand-ops", "none"]) == 0
    assert '"onnx.MeanVarianceNormalization"' in capsys.readouterr().out
    assert main(["import", str(path)]) == 0
    assert '"onnx.MeanVarianceNormalization"' not in capsys.readouterr().out


def test_quiet_when_piped(tmp_path):
    path = tmp_path / "linear.onnx"
    onnx.save(linear_model(), str(path))
    result = subprocess.run(
        [sys.executable, "-m", "onnx_torch_mlir.tools.main", "import", str(path), "-o", str(tmp_path / "out.mlir")],
        capture_output=True, text=True,
    )
    assert result.returncode == 0
    assert result.stderr == "" and result.stdout == ""
