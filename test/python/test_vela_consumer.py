"""Vela (Arm's Ethos-U compiler) as a consumer of our TOSA: onnx_torch_mlir.runtime.vela and the zoo's
column of it (docs/consumers-tosa.md, "Vela (Ethos-U)")."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.runtime.vela import VelaError, VelaPlacement, compile_with_vela, placement_from_summary, refusal

needs_vela = pytest.mark.skipif(shutil.which("vela") is None and not (Path(sys.executable).parent / "vela").is_file(),
                                reason="ethos-u-vela is not installed")


def _integer_qdq_model() -> onnx.ModelProto:
    """x -> QuantizeLinear (int8) -> DequantizeLinear -> MaxPool 2x2 -> QuantizeLinear -> DequantizeLinear -> y."""
    scale, zero = numpy_helper.from_array(np.array(0.05, np.float32), "s"), numpy_helper.from_array(np.array(0, np.int8), "z")
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d"]),
             helper.make_node("MaxPool", ["d"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("QuantizeLinear", ["p", "s", "z"], ["qp"]),
             helper.make_node("DequantizeLinear", ["qp", "s", "z"], ["y"])]
    graph = helper.make_graph(nodes, "qdq", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4, 8, 8])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4, 4, 4])], [scale, zero])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _float_model() -> onnx.ModelProto:
    graph = helper.make_graph([helper.make_node("Add", ["x", "x"], ["s"], name="add"), helper.make_node("Relu", ["s"], ["y"])], "float",
                              [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 4])],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 4])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@needs_vela
def test_an_integer_qdq_model_is_all_on_the_npu(tmp_path):
    module = onnx_torch_mlir.compile(_integer_qdq_model(), "tosa", quantized_io="int8")
    placement = compile_with_vela(module, output_directory=tmp_path)
    assert placement == VelaPlacement("ethos-u85-256", npu_operators=2, cpu_operators=0)
    assert placement.every_operator_on_the_npu
    assert placement.summary() == "CPU operators = 0 (0.0%), NPU operators = 2 (100.0%)"
    assert list(tmp_path.glob("*_vela.tflite"))  # the command stream Vela wrote


@needs_vela
def test_a_float_model_is_refused_naming_the_operators():
    with pytest.raises(VelaError) as refused:
        compile_with_vela(onnx_torch_mlir.compile(_float_model(), "tosa"))
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("Vela (ethos-u85-256): Validation error: Add: Input data type not supported")
    assert "Clamp: Input data type not supported for this operator" in message
    assert message.endswith("operators compute in f32, which Vela takes on no unit (the first: tosa.add from "
                            "node 'add'); ops a quantizer left in float stay in float"), message


def test_the_summary_and_the_refusal_are_parsed():
    stdout = ("Network summary for m\n\nCPU operators = 6 (6.2%)\n   CPU: Gather = g (outputs [1, 4])\n"
              "NPU operators = 90 (93.8%)\n   NPU: Conv2D = c (outputs [1, 4])\n")
    placement = placement_from_summary(stdout, "ethos-u85-256")
    assert (placement.npu_operators, placement.cpu_operators) == (90, 6) and not placement.every_operator_on_the_npu
    assert placement.summary() == ("CPU operators = 6 (6.2%), NPU operators = 90 (93.8%); "
                                   "on the CPU: Gather = g (outputs [1, 4])")
    with pytest.raises(VelaError, match="no 'CPU operators' line"):
        placement_from_summary("Network summary for m\n", "ethos-u85-256")
    assert refusal("Warning: x\nTraceback (most recent call last):\n  File 'v.py'\nRuntimeError: Unknown data type\n") \
        == "Unknown data type"
    assert refusal("RuntimeError: Compilation failed: TOSA FB Reader error:\n - Unknown data type\n") \
        == "TOSA FB Reader error: Unknown data type"
    assert refusal("RuntimeError: Compilation failed: Validation error:\nConst:\n - Invalid argument output\n"
                   " - Output data type not supported\nConst:\n - Output data type not supported\n") \
        == "Validation error: Const: Output data type not supported"  # Vela's repeated entries once


def _zoo_modules():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models"))
    import build_zoo
    import run_zoo
    import zoo_document
    import zoo_report

    return build_zoo, run_zoo, zoo_document, zoo_report


def test_the_zoo_runs_vela_on_tosa_for_quantized_models_only(tmp_path):
    build_zoo, run_zoo, _, zoo_report = _zoo_modules()
    assert zoo_report.consumers_of("tosa").count("vela") == 1 and "vela" not in zoo_report.consumers_of("stablehlo")
    onnx.save(_integer_qdq_model(), tmp_path / "qdq.onnx")
    onnx.save(_float_model(), tmp_path / "float.onnx")
    assert run_zoo.statically_quantized(tmp_path / "qdq.onnx")
    assert not run_zoo.statically_quantized(tmp_path / "float.onnx")
    quantized = build_zoo.BuildResult("q", True, tmp_path, tmp_path / "qdq.onnx")
    floating = build_zoo.BuildResult("f", True, tmp_path, tmp_path / "float.onnx")
    assert run_zoo.job_consumers(quantized, "tosa", zoo_report.CONSUMERS) == ["reference", "iree", "tosa-reference", "vela"]
    assert run_zoo.job_consumers(floating, "tosa", zoo_report.CONSUMERS) == ["reference", "iree", "tosa-reference"]
    assert run_zoo.job_consumers(quantized, "linalg-on-tensors", ["vela"]) == []


@needs_vela
def test_a_zoo_cell_of_vela_records_the_placement(tmp_path):
    build_zoo, run_zoo, _, _ = _zoo_modules()
    onnx.save(_integer_qdq_model(), tmp_path / "model.onnx")
    x = np.random.default_rng(0).standard_normal((1, 4, 8, 8)).astype(np.float32)
    np.savez(tmp_path / "reference.npz", **{"input.0": x, "output.0": np.zeros((1, 4, 4, 4), np.float32)})
    build = build_zoo.BuildResult("tiny-qdq", True, tmp_path, tmp_path / "model.onnx")
    model = type("Model", (), {"name": "tiny-qdq", "rtol": 1e-3, "atol": 1e-4, "selector_inputs": ()})
    [cell] = run_zoo.run_job(model, build, "ours", "tosa", ["vela"], 300, tmp_path)
    assert (cell.consumer, cell.outcome, cell.error) == ("vela", "pass", "")
    assert (cell.npu_operators, cell.cpu_operators) == (2, 0) and cell.consumer_compile_seconds > 0


def test_the_report_shows_the_placement_and_no_vela_column_for_float_models(tmp_path):
    _, _, zoo_document, zoo_report = _zoo_modules()
    import zoo_models

    quantized, floating = "resnet50-qdq", "helper-mlp"
    cells = [zoo_report.Cell(quantized, "ours", "tosa", "vela", "pass", "consumer compile", npu_operators=96,
                             cpu_operators=0),
             zoo_report.Cell(quantized, "ours", "tosa", "tosa-reference", "pass", "compare"),
             zoo_report.Cell(floating, "ours", "tosa", "tosa-reference", "pass", "compare")]
    zoo_report.write_cells(tmp_path / "ours.tsv", cells)
    assert [(c.npu_operators, c.cpu_operators) for c in zoo_report.read_cells(tmp_path / "ours.tsv")] \
        == [(None, None), (None, None), (96, 0)]
    text = zoo_document.render(zoo_models.MODELS, {}, {"ours": cells})
    quantized_row = text.split(f"### {quantized}", 1)[1].split("| tosa | ours |", 1)[1].split("\n", 1)[0]
    assert quantized_row.endswith("| not run | not run |  | **pass** | **pass** (NPU 96, CPU 0) |")
    floating_row = text.split(f"### {floating}", 1)[1].split("| tosa | ours |", 1)[1].split("\n", 1)[0]
    assert floating_row.endswith("| not run | not run |  | **pass** |  |")  # no Vela cell: not "not run"
