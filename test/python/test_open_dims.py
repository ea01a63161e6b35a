"""A TOSA error caused by a dynamic dim names the graph input dims still open and the flags that
fix them (importer/open_dims.py), and `--dims-from INPUTS.npz` fixes every one from example inputs
(importer/example_dims.py); issue 26 point 3.

The model mimics a KV-cache GPT-2: `input_ids` [batch, seq] and an `attention_mask` whose second
dim is the expression "past + seq", as optimum writes `past_sequence_length + sequence_length`.
The positions 0..past+seq-1 are a Range to the mask's length, which TOSA cannot size at run time:
with `--dim batch=2 --dim seq=4` the one dim still open is the mask's.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir.errors import DynamicDimsError
from onnx_torch_mlir.importer.open_dims import OpenDim, describe_open_dims, open_input_dims, suggest_fixes

BIN = Path(sys.executable).parent


def _const(name, value):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value, dtype=np.int64)))


def _kv_cache_like_model(mask_dims=("batch", "past + seq"), reshape: bool = False) -> onnx.ModelProto:
    """ids2 = input_ids + input_ids; masked = attention_mask * Range(0, mask length) (the
    positions); with `reshape`, also the mask reshaped to its own Shape (two run-time sizes)."""
    nodes = [
        helper.make_node("Shape", ["attention_mask"], ["shape"]),
        _const("one", 1), _const("zero", 0),
        helper.make_node("Gather", ["shape", "one"], ["total"], axis=0),
        helper.make_node("Range", ["zero", "total", "one"], ["positions"]),
        helper.make_node("Mul", ["attention_mask", "positions"], ["masked"]),
        helper.make_node("Add", ["input_ids", "input_ids"], ["ids2"]),
    ]
    outputs = [helper.make_tensor_value_info("masked", TensorProto.INT64, None),
               helper.make_tensor_value_info("ids2", TensorProto.INT64, None)]
    if reshape:
        nodes = [helper.make_node("Shape", ["attention_mask"], ["shape"]),
                 helper.make_node("Reshape", ["attention_mask", "shape"], ["reshaped"]),
                 helper.make_node("Add", ["reshaped", "reshaped"], ["masked"]),
                 helper.make_node("Add", ["input_ids", "input_ids"], ["ids2"])]
    graph = helper.make_graph(
        nodes, "kv_cache_like",
        [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info("attention_mask", TensorProto.INT64, list(mask_dims))],
        outputs,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _compile(model_path: Path, *flags: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BIN / "onnx-torch-mlir"), "compile", str(model_path), "--to", "tosa", *flags],
                          capture_output=True, text=True)


def _saved(tmp_path: Path, model: onnx.ModelProto) -> Path:
    path = tmp_path / "model.onnx"
    onnx.save(model, path)
    return path


def _one_error_line(result: subprocess.CompletedProcess) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_the_error_names_the_open_expression_dim_and_its_flag(tmp_path):
    """The issue's case: batch and seq fixed, the mask's `past + seq` open; a Range (not a
    reshape) needs it, so no word about reshapes."""
    error = _one_error_line(_compile(_saved(tmp_path, _kv_cache_like_model()), "--dim", "batch=2", "--dim", "seq=4"))
    assert "'aten.arange.start_step' needs the run-time size of dim 1" in error
    assert "'past + seq' (dim 1 of 'attention_mask')" in error
    assert "--dim 'past + seq=N'" in error
    assert "--dims-from INPUTS.npz" in error
    assert "reshape" not in error
    assert "'batch'" not in error and "'seq'" not in error  # fixed by the user: not open


def test_following_the_suggested_flag_compiles(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model())
    error = _one_error_line(_compile(model_path, "--dim", "batch=2", "--dim", "seq=4"))
    suggested = re.findall(r"--dim '([^']+)=N'", error)
    assert suggested == ["past + seq"]
    result = _compile(model_path, "--dim", "batch=2", "--dim", "seq=4", "--dim", f"{suggested[0]}=10")
    assert result.returncode == 0, result.stderr
    assert "tensor<2x10xi64>" in result.stdout


def test_every_open_dim_is_listed_with_the_inputs_sharing_it(tmp_path):
    error = _one_error_line(_compile(_saved(tmp_path, _kv_cache_like_model())))
    assert "'batch' (dim 0 of 'input_ids', 'attention_mask')" in error
    assert "'seq' (dim 1 of 'input_ids')" in error
    assert "--dim batch=N --dim seq=N --dim 'past + seq=N'" in error


def test_a_dim_without_a_name_points_to_the_inputs_whole_shape(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model(mask_dims=("batch", None)))
    error = _one_error_line(_compile(model_path, "--dim", "batch=2", "--dim", "seq=4"))
    assert "dim 1 of 'attention_mask' (no name)" in error
    assert "--input-shape 'attention_mask=?xD1'" in error  # ? keeps the batch --dim fixes
    result = _compile(model_path, "--dim", "batch=2", "--dim", "seq=4", "--input-shape", "attention_mask=?x10")
    assert result.returncode == 0, result.stderr


def test_the_reshape_explanation_only_for_a_reshape(tmp_path):
    error = _one_error_line(_compile(_saved(tmp_path, _kv_cache_like_model(reshape=True))))
    assert "'aten.view' needs the run-time size" in error
    assert "a reshape takes at most one -1" in error
    assert "'past + seq' (dim 1 of 'attention_mask')" in error


def test_the_python_api_raises_the_same_error():
    with pytest.raises(DynamicDimsError, match=r"'past \+ seq' \(dim 1 of 'attention_mask'\).*--dim 'past \+ seq=N'"):
        onnx_torch_mlir.compile(_kv_cache_like_model(), "tosa", dims={"batch": 2, "seq": 4})


def test_input_shapes_close_dims_too():
    model = _kv_cache_like_model()
    assert open_input_dims(model) == [OpenDim("input_ids", 0, "batch"), OpenDim("input_ids", 1, "seq"),
                                      OpenDim("attention_mask", 0, "batch"), OpenDim("attention_mask", 1, "past + seq")]
    assert open_input_dims(model, dims=["batch=2"], input_shapes={"attention_mask": (2, 10)}) == [
        OpenDim("input_ids", 1, "seq")]


def test_many_inputs_sharing_a_name_are_counted():
    opened = [OpenDim(f"past.{index}", 0, "batch") for index in range(6)]
    assert "'batch' (dim 0 of 'past.0', 'past.1', 'past.2' and 3 more inputs)" in describe_open_dims(opened)


# --------------------------------------------------------------------------------------------------
# --dims-from


def _examples(tmp_path: Path, name: str = "inputs.npz", positional: bool = False, batch_of_mask: int = 2) -> Path:
    ids, mask = np.ones((2, 4), np.int64), np.ones((batch_of_mask, 10), np.int64)
    path = tmp_path / name
    if positional:
        np.savez(path, ids, mask)
    else:
        np.savez(path, input_ids=ids, attention_mask=mask)
    return path


@pytest.mark.parametrize("positional", [False, True], ids=["by-name", "in-input-order"])
def test_dims_from_example_inputs_compiles_to_static_tosa(tmp_path, positional):
    examples = _examples(tmp_path, positional=positional)
    result = _compile(_saved(tmp_path, _kv_cache_like_model()), "--dims-from", str(examples))
    assert result.returncode == 0, result.stderr
    signature = next(line for line in result.stdout.splitlines() if "func.func" in line)
    assert "%arg0: tensor<2x4xi64>, %arg1: tensor<2x10xi64>" in signature
    assert "?" not in signature


def test_dims_from_fixes_a_dim_without_a_name(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model(mask_dims=("batch", None)))
    result = _compile(model_path, "--dims-from", str(_examples(tmp_path)))
    assert result.returncode == 0, result.stderr
    assert "tensor<2x10xi64>" in result.stdout


def test_dims_from_refuses_a_shared_name_of_two_sizes(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model())
    examples = _examples(tmp_path, batch_of_mask=3)
    error = _one_error_line(_compile(model_path, "--dims-from", str(examples)))
    assert f"--dims-from {examples}: dim 'batch' is 2 in input 'input_ids' but 3 in input 'attention_mask'" in error


@pytest.mark.parametrize("flags, message", [
    (["--dim", "batch=3"], "dim 'batch' is 2 there, but --dim batch=3"),
    (["--input-shape", "attention_mask=2x11"],
     "input 'attention_mask' has shape 2x10 there, but --input-shape attention_mask=2x11"),
])
def test_dims_from_refuses_options_that_disagree(tmp_path, flags, message):
    model_path = _saved(tmp_path, _kv_cache_like_model())
    error = _one_error_line(_compile(model_path, "--dims-from", str(_examples(tmp_path)), *flags))
    assert message in error


def test_dims_from_refuses_an_example_of_another_rank(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model())
    path = tmp_path / "rank.npz"
    np.savez(path, attention_mask=np.ones((2, 10, 1), np.int64))
    error = _one_error_line(_compile(model_path, "--dims-from", str(path)))
    assert "input 'attention_mask' has shape 2x10x1 there, but the model declares rank 2 ([batch, past + seq])" in error


def test_dims_from_refuses_an_array_that_is_no_input(tmp_path):
    model_path = _saved(tmp_path, _kv_cache_like_model())
    path = tmp_path / "other.npz"
    np.savez(path, mask=np.ones((2, 10), np.int64))
    error = _one_error_line(_compile(model_path, "--dims-from", str(path)))
    assert f"--dims-from {path}: array 'mask' is not an input of the model" in error


def test_run_takes_dims_from_for_made_up_inputs(tmp_path):
    """`run --to tosa --dims-from`: the static program runs on made-up inputs of the examples' shapes."""
    result = subprocess.run(
        [str(BIN / "onnx-torch-mlir"), "run", str(_saved(tmp_path, _kv_cache_like_model())), "--to", "tosa",
         "--dims-from", str(_examples(tmp_path))],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "masked: int64[2, 10]" in result.stdout
    assert "ids2: int64[2, 4]" in result.stdout


def test_verify_takes_dims_from_the_inputs_it_runs_on(tmp_path):
    examples = str(_examples(tmp_path))
    result = subprocess.run(
        [str(BIN / "onnx-torch-mlir"), "verify", str(_saved(tmp_path, _kv_cache_like_model())), "--to", "tosa",
         "--input", examples, "--dims-from", examples],
        capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr
    assert "2 of 2 outputs match onnxruntime (tosa)" in result.stdout


def test_a_node_that_needs_static_sizes_lists_the_open_dims_too(tmp_path):
    """A conversion error that points to --dim (ceil mode's last window on a dynamic image size)
    gets a last line with the dims still open and their flags; following it compiles."""
    node = helper.make_node("AveragePool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 2, 2],
                            ceil_mode=1)
    graph = helper.make_graph(
        [node], "pool", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, "height", "width"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model_path = _saved(tmp_path, helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8))
    result = _compile(model_path, "--dim", "batch=1")
    assert result.returncode != 0 and "Traceback" not in result.stderr
    assert "ceil_mode with end pad 2" in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert "'height' (dim 2 of 'x'), 'width' (dim 3 of 'x')" in last
    assert "--dim height=N --dim width=N" in last
    fixed = _compile(model_path, "--dim", "batch=1", "--dim", "height=9", "--dim", "width=9")
    assert fixed.returncode == 0, fixed.stderr


def test_an_input_without_a_declared_shape_is_offered_its_whole_shape():
    model = _kv_cache_like_model()
    model.graph.input[1].type.tensor_type.ClearField("shape")
    opened = open_input_dims(model, dims={"batch": 2, "seq": 4})
    assert opened == [OpenDim("attention_mask", None, None)]
    assert "the shape of 'attention_mask' (no name)" in describe_open_dims(opened)
    assert "--input-shape attention_mask=D0xD1" in suggest_fixes(opened, {})
