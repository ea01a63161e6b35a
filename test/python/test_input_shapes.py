"""`input_shapes=` / `--input-shape INPUT=D0xD1`: an input's whole shape fixed at compile time.

The model mimics optimum's merged decoders: the new tokens `x` and the attention `mask` share the
dim name `seq`, but at run time the mask is longer (past plus new tokens). `--dim seq=...` cannot
fix both, and TOSA's reshape of `x` to heads needs static sizes; fixing each input's shape does.
Results are checked against onnxruntime at rtol 1e-5, atol 1e-6 (fp32, no reassociation).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.runtime.iree import compile_with_iree

BIN = Path(sys.executable).parent
SIZES = {"x": (2, 5, 8), "mask": (2, 12)}


def _shared_name_model() -> onnx.ModelProto:
    """x [batch, seq, 8] -> Reshape to [batch, seq, 2, 4] (target from Shape) and the token
    positions 0..seq-1 (a Range to the size read from the Shape); mask [batch, seq] -> its sum over
    the tokens."""
    const = lambda name, value: helper.make_node(  # noqa: E731
        "Constant", [], [name], value=numpy_helper.from_array(np.array(value, dtype=np.int64)))
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"], end=2),
        const("heads", [2, 4]),
        helper.make_node("Concat", ["shape", "heads"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["by_head"]),
        const("tokens", [1]),
        helper.make_node("ReduceSum", ["mask", "tokens"], ["total"], keepdims=0),
        const("zero", 0), const("one", 1),
        helper.make_node("Gather", ["shape", "one"], ["length"], axis=0),
        helper.make_node("Range", ["zero", "length", "one"], ["steps"]),
        helper.make_node("Cast", ["steps"], ["positions"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "shared_dim_name",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8]),
         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])],
        [helper.make_tensor_value_info("by_head", TensorProto.FLOAT, ["batch", "seq", 2, 4]),
         helper.make_tensor_value_info("total", TensorProto.FLOAT, ["batch"]),
         helper.make_tensor_value_info("positions", TensorProto.FLOAT, ["seq"])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _inputs() -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    return [rng.standard_normal(SIZES[name]).astype(np.float32) for name in ("x", "mask")]


def _check(program, model: onnx.ModelProto) -> None:
    inputs = _inputs()
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, dict(zip(("x", "mask"), inputs)))
    got = program(*inputs)
    assert len(got) == len(expected)
    for result, reference in zip(got, expected):
        np.testing.assert_allclose(result, reference, rtol=1e-5, atol=1e-6)


def test_a_shared_dim_name_on_tosa_points_to_input_shape():
    with pytest.raises(OnnxTorchMlirError, match=r"--input-shape INPUT=D0xD1"):
        onnx_torch_mlir.compile(_shared_name_model(), "tosa", dims={"batch": 2})


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_fixed_input_shapes_run_on_tosa(consumer):
    model = _shared_name_model()
    module = onnx_torch_mlir.compile(model, "tosa", input_shapes=SIZES)
    program = runtime.compile_for_cpu(module, input_dialect="tosa") if consumer == "reference" \
        else compile_with_iree(module, "tosa")
    _check(program, model)


def test_question_mark_keeps_a_dim_dynamic():
    module = onnx_torch_mlir.compile(_shared_name_model(), "torch", input_shapes=["x=2x?x8", "mask=2x12"])
    text = str(module)
    assert "!torch.vtensor<[2,?,8],f32>" in text
    assert "!torch.vtensor<[2,12],f32>" in text


def test_torch_mlir_importer_takes_input_shapes_too():
    module = onnx_torch_mlir.compile(
        _shared_name_model(), "torch", importer="torch-mlir", converter="torch-mlir", input_shapes=SIZES
    )
    assert "!torch.vtensor<[2,12],f32>" in str(module)


def test_the_model_is_not_modified():
    model = _shared_name_model()
    before = model.SerializeToString()
    onnx_torch_mlir.compile(model, "torch", input_shapes=SIZES)
    assert model.SerializeToString() == before


@pytest.mark.parametrize(
    "shapes, message",
    [
        ({"y": (2, 5, 8)}, r"--input-shape y: the model has no input of that name \(inputs: x, mask\)"),
        ({"mask": (2, 12, 1)}, r"--input-shape mask=2x12x1: the input has rank 2 \(declared shape \[batch, seq\]\), not 3"),
        ({"x": (2, 5, 9)}, r"--input-shape x=2x5x9: dim 2 is declared 8"),
        (["x=2xAx8"], r"--input-shape x=2xAx8: each size must be a non-negative integer or \?"),
        (["x"], r"--input-shape 'x': expected INPUT=D0xD1"),
    ],
)
def test_bad_input_shapes_say_what_is_wrong(shapes, message):
    with pytest.raises(OnnxTorchMlirError, match=message):
        onnx_torch_mlir.compile(_shared_name_model(), "torch", input_shapes=shapes)


def test_command_line_input_shape(tmp_path):
    model_path = tmp_path / "model.onnx"
    onnx.save(_shared_name_model(), model_path)
    output = tmp_path / "model.mlir"
    result = subprocess.run(
        [str(BIN / "onnx-torch-mlir"), "compile", str(model_path), "--to", "tosa", "-o", str(output),
         "--input-shape", "x=2x5x8", "--input-shape", "mask=2x12"],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "tensor<2x5x2x4xf32>" in output.read_text()


def test_command_line_bad_input_shape_is_one_line(tmp_path):
    model_path = tmp_path / "model.onnx"
    onnx.save(_shared_name_model(), model_path)
    result = subprocess.run(
        [str(BIN / "onnx-torch-mlir"), "compile", str(model_path), "--input-shape", "mask=2x12x1"],
        capture_output=True, text=True,
    )
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    assert "--input-shape mask=2x12x1: the input has rank 2" in result.stderr


def test_verify_fixes_the_shapes_at_compile_time_too(tmp_path):
    """`verify --to tosa` with the shapes fixed compiles the static program and checks it against
    onnxruntime on made-up inputs of those shapes; without them it reports the dynamic form."""
    model_path = tmp_path / "model.onnx"
    onnx.save(_shared_name_model(), model_path)
    command = [str(BIN / "onnx-torch-mlir"), "verify", str(model_path), "--to", "tosa"]
    fixed = subprocess.run(command + ["--input-shape", "x=2x5x8", "--input-shape", "mask=2x12"],
                           capture_output=True, text=True)
    assert fixed.returncode == 0, fixed.stderr
    assert "MISMATCH" not in fixed.stdout
    dynamic = subprocess.run(command + ["--dim", "batch=2"], capture_output=True, text=True)
    assert dynamic.returncode != 0
    assert "--input-shape INPUT=D0xD1" in dynamic.stderr + dynamic.stdout
