"""verify on quantized models: compared in quantization steps, top classes, magnitudes."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir.tools import verify_command
from onnx_torch_mlir.tools.main import main
from onnx_torch_mlir.tools.output_comparison import compare_output
from onnx_torch_mlir.tools.quantization_steps import QuantizationSteps

pytest.importorskip("onnxruntime")

OUTPUT_SCALE = 0.05


def _qdq_classifier(output_zero_point: int = 128, output_scale: float = OUTPUT_SCALE) -> onnx.ModelProto:
    """x -> Q/DQ -> MatMul (float weights, a gain that turns input rounding into output steps) ->
    Q/DQ -> logits [2, 10]: the shape of a QDQ classifier's head. `output_zero_point` and
    `output_scale` are the last DequantizeLinear's (its QuantizeLinear keeps 128 and 0.05): moving
    the zero point by k moves every logit by k steps."""
    rng = np.random.default_rng(0)
    initializers = [
        numpy_helper.from_array(np.array(0.02, np.float32), "x_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "x_zero"),
        numpy_helper.from_array(rng.standard_normal((16, 10)).astype(np.float32), "w"),
        numpy_helper.from_array(np.array(OUTPUT_SCALE, np.float32), "y_scale"),
        numpy_helper.from_array(np.array(128, np.uint8), "y_zero"),
        numpy_helper.from_array(np.array(output_scale, np.float32), "dq_scale"),
        numpy_helper.from_array(np.array(output_zero_point, np.uint8), "dq_zero"),
    ]
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "x_scale", "x_zero"], ["xd"]),
        helper.make_node("MatMul", ["xd", "w"], ["m"]),
        helper.make_node("QuantizeLinear", ["m", "y_scale", "y_zero"], ["mq"]),
        helper.make_node("DequantizeLinear", ["mq", "dq_scale", "dq_zero"], ["logits"]),
    ]
    graph = helper.make_graph(
        nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [2, 10])], initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def _compiled_as(monkeypatch, model: onnx.ModelProto) -> None:
    """verify compiles `model` where it would compile the model given (a deliberately wrong compile)."""
    real = verify_command.prepare_model
    monkeypatch.setattr(verify_command, "prepare_model", lambda _model, args: real(model, args))


@pytest.fixture
def qdq_model(tmp_path):
    path = tmp_path / "qdq.onnx"
    onnx.save(_qdq_classifier(), path)
    rng = np.random.default_rng(3)
    np.savez(tmp_path / "x.npz", x=(rng.standard_normal((2, 16)) * 0.5).astype(np.float32))
    return path, tmp_path / "x.npz"


def test_one_step_of_difference_is_a_match(qdq_model, monkeypatch, capsys):
    """A compile whose logits are one step off (its output zero point moved by one) matches: fails
    before verify knew quantization (0.05 is far beyond atol 1e-5)."""
    path, inputs = qdq_model
    _compiled_as(monkeypatch, _qdq_classifier(output_zero_point=127))
    assert main(["verify", str(path), "--input", str(inputs), "--quiet"]) == 0
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("logits: match within 1 quantization step (scale 0.05)"), line
    assert "max abs 0.05" in line and "1 step," in line and "top class the same in all 2 rows" in line, line


def test_rtol_atol_replace_the_step(qdq_model, monkeypatch, capsys):
    path, inputs = qdq_model
    _compiled_as(monkeypatch, _qdq_classifier(output_zero_point=127))
    assert main(["verify", str(path), "--input", str(inputs), "--atol", "1e-5", "--quiet"]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("logits: MISMATCH 20 of 20 values differ beyond rtol=0.001 atol=1e-05: max abs 0.05, max rel")
    assert line.endswith("1 step"), line


def test_three_steps_off_is_a_mismatch_that_says_by_how_much(qdq_model, monkeypatch, capsys):
    path, inputs = qdq_model
    _compiled_as(monkeypatch, _qdq_classifier(output_zero_point=125))
    assert main(["verify", str(path), "--input", str(inputs), "--quiet"]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("logits: MISMATCH 20 of 20 values differ beyond 1 quantization step (scale 0.05): max abs 0.15, max rel"), line
    assert "3 steps" in line, line


def test_a_perturbed_scale_is_a_mismatch(qdq_model, monkeypatch, capsys):
    path, inputs = qdq_model
    _compiled_as(monkeypatch, _qdq_classifier(output_scale=OUTPUT_SCALE * 1.5))
    assert main(["verify", str(path), "--input", str(inputs), "--quiet"]) == 1
    assert "logits: MISMATCH" in capsys.readouterr().out


def test_each_node_compares_in_steps(qdq_model, monkeypatch, capsys):
    path, inputs = qdq_model
    monkeypatch.setattr("onnx_torch_mlir.tools.first_difference._probe_in_child", _probe_in_process)
    assert main(["verify", str(path), "--input", str(inputs), "--each-node"]) == 0
    assert "node results match onnxruntime" in capsys.readouterr().out


def _probe_in_process(model, expected, inputs, args):
    """first_difference's probe without the child process, one step off on the last result."""
    from onnx_torch_mlir.tools.compile_options import prepare_model

    actual = list(prepare_model(model, args).run(inputs))
    names = [output.name for output in model.graph.output]
    for index, name in enumerate(names):
        got = actual[index] + (OUTPUT_SCALE if name == "logits" else 0)
        matched, text = compare_output(expected[index], got, args.quantization_steps.get(name), args.rtol, args.atol)
        if not matched:
            return f"'{name}' {text}"
    return None


def test_top_class_must_agree():
    theirs = np.array([[0.0, 1.0, 0.0, 0.0]], np.float32)
    ours = np.array([[0.0, 0.0, 0.5, 0.0]], np.float32)
    matched, text = compare_output(theirs, ours, (1.0, False, 0.0), None, None)
    assert matched, text  # 1.0 and 0.5 are within one step; the top class ties within it
    matched, text = compare_output(theirs * 3, ours * 3, (1.0, False, 0.0), None, None)
    assert not matched and "top class differs: ours 2, onnxruntime's 1" in text, text


def test_the_steps_of_a_dynamically_quantized_matmul():
    """DynamicQuantizeLinear -> MatMulInteger -> Cast -> Mul by the scales: one step of the activation
    through the largest weight, in real units; the computed scale is read from the run."""
    weights = np.array([[3, -7], [5, 1]], np.int8)
    nodes = [
        helper.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"]),
        helper.make_node("MatMulInteger", ["xq", "w", "xz"], ["acc"]),
        helper.make_node("Cast", ["acc"], ["accf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["xs", "w_scale"], ["s"]),
        helper.make_node("Mul", ["accf", "s"], ["y"]),
        helper.make_node("Relu", ["y"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes, "dynamic", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [1, 2])],
        [numpy_helper.from_array(weights, "w"), numpy_helper.from_array(np.array(0.1, np.float32), "w_scale")],
    )
    finder = QuantizationSteps(helper.make_model(graph))
    assert finder.quantized and finder.needed == ["xs", "s"]
    steps = finder.steps({"xs": np.float32(0.02), "s": np.float32(0.002)})
    assert steps["out"][0] == pytest.approx(7 * 0.002)
    assert steps["xq"] == (pytest.approx(0.02), True)


def test_a_float_model_has_no_steps():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
    )
    finder = QuantizationSteps(helper.make_model(graph))
    assert not finder.quantized and finder.steps({}) == {}
