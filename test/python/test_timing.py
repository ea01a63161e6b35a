"""Per-stage timing: onnx_torch_mlir.timing and `onnx-torch-mlir compile --timing`."""

import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir import timing
from onnx_torch_mlir.tools.main import main


def test_nested_stages_are_exclusive_and_repeated_stages_add_up():
    with timing.record() as times:
        with timing.stage("outer"):
            time.sleep(0.02)
            with timing.stage("inner"):
                time.sleep(0.05)
        with timing.stage("inner"):
            time.sleep(0.01)
    assert 0.015 < times.seconds["outer"] < 0.045  # the inner 0.05 s is not counted in it
    assert times.seconds["inner"] >= 0.06


def test_stages_outside_a_record_cost_nothing_and_record_nothing():
    with timing.stage("alone"):
        pass
    with timing.record() as times:
        pass
    assert times.seconds == {}


def test_compile_timing_prints_every_stage(tmp_path, capsys):
    weight = numpy_helper.from_array(np.ones((4, 3), dtype=np.float32), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["m"]), helper.make_node("Relu", ["m"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [weight],
    )
    model = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    output = tmp_path / "out.mlirbc"
    assert main(["compile", str(model), "--to", "linalg-on-tensors", "--emit-bytecode", "-o", str(output), "--timing"]) == 0
    report = capsys.readouterr().err
    assert output.stat().st_size > 0
    assert "execution time report" in report and "Peak Resident Memory" in report
    for stage in ("import", "conversion", "backend pipeline", "writing", "Total"):
        assert f"  {stage}" in report, stage


def test_compile_without_timing_prints_no_report(tmp_path, capsys):
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    model = tmp_path / "model.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), model)
    assert main(["compile", str(model), "-o", str(tmp_path / "out.mlir")]) == 0
    assert "execution time report" not in capsys.readouterr().err
