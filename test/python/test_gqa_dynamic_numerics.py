"""GroupQueryAttention (com.microsoft) with a KV cache and dynamic dims, compiled once and run at
several sizes against onnxruntime, in the form onnxruntime-genai's decoders have it: packed QKV,
rotary, seqlens_k = ReduceSum(attention_mask) - 1 and total_sequence_length =
Shape(attention_mask)[1], both cast to int32. The present length max(total, past) is then a
run-time size made of two dims, which StableHLO takes (reference runner and IREE); TOSA cannot
build a tensor of a run-time length and says so, pointing to --dim (with the lengths fixed, the
batch stays dynamic there).

The sizes cover the cases onnxruntime's contract allows: a subsequent prompt (batch 1, seq > 1,
total = past + seq), decoding (seq 1) of a right-padded batch, a shared buffer (past longer than
total: the present is the past's length), and a first prompt over an empty past.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import ConversionError
from onnx_torch_mlir.runtime.iree import compile_with_iree

HEADS, KV_HEADS, HEAD = 4, 2, 16  # onnxruntime's rotary kernel needs head % 16 == 0
MAX_POSITIONS = 32
RTOL, ATOL = 1e-4, 1e-5


def _decoder_attention(total_from_shape: bool = True) -> onnx.ModelProto:
    """One GroupQueryAttention node fed as onnxruntime-genai feeds it (or, without
    total_from_shape, with total_sequence_length a graph input: a data value)."""
    hidden = (HEADS + 2 * KV_HEADS) * HEAD
    rng = np.random.default_rng(5)
    angles = rng.standard_normal((MAX_POSITIONS, HEAD // 2)).astype(np.float32)
    initializers = [
        numpy_helper.from_array(np.cos(angles), "cos_cache"), numpy_helper.from_array(np.sin(angles), "sin_cache"),
        numpy_helper.from_array(np.array([1], np.int64), "one"), numpy_helper.from_array(np.array(1, np.int64), "dim1"),
    ]
    nodes = [
        helper.make_node("ReduceSum", ["attention_mask", "one"], ["lengths"], keepdims=0),
        helper.make_node("Sub", ["lengths", "one"], ["last"]),
        helper.make_node("Cast", ["last"], ["seqlens_k"], to=TensorProto.INT32),
    ]
    inputs = [
        helper.make_tensor_value_info("qkv", TensorProto.FLOAT, ["batch", "sequence", hidden]),
        helper.make_tensor_value_info("past_key", TensorProto.FLOAT, ["batch", KV_HEADS, "past", HEAD]),
        helper.make_tensor_value_info("past_value", TensorProto.FLOAT, ["batch", KV_HEADS, "past", HEAD]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "total"]),
    ]
    if total_from_shape:
        nodes += [
            helper.make_node("Shape", ["attention_mask"], ["mask_shape"]),
            helper.make_node("Gather", ["mask_shape", "dim1"], ["total64"], axis=0),
            helper.make_node("Cast", ["total64"], ["total_sequence_length"], to=TensorProto.INT32),
        ]
    else:
        inputs.append(helper.make_tensor_value_info("total_sequence_length", TensorProto.INT32, []))
    nodes.append(helper.make_node(
        "GroupQueryAttention",
        ["qkv", "", "", "past_key", "past_value", "seqlens_k", "total_sequence_length", "cos_cache", "sin_cache"],
        ["y", "present_key", "present_value"], domain="com.microsoft", name="gqa",
        num_heads=HEADS, kv_num_heads=KV_HEADS, do_rotary=1,
    ))
    present = ["batch", KV_HEADS, "present", HEAD]
    outputs = [
        helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "sequence", HEADS * HEAD]),
        helper.make_tensor_value_info("present_key", TensorProto.FLOAT, present),
        helper.make_tensor_value_info("present_value", TensorProto.FLOAT, present),
    ]
    graph = helper.make_graph(nodes, "decoder_attention", inputs, outputs, initializer=initializers)
    opsets = [helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=10)


def _step(batch: int, sequence: int, past: int, mask_rows: list[int], seed: int) -> list[np.ndarray]:
    """Inputs of one step: each entry's attention mask is `mask_rows[b]` ones, right-padded with
    zeros to the longest (the total length)."""
    rng = np.random.default_rng(seed)
    hidden = (HEADS + 2 * KV_HEADS) * HEAD
    total = max(mask_rows)
    mask = np.array([[1] * ones + [0] * (total - ones) for ones in mask_rows], np.int64)
    return [
        rng.standard_normal((batch, sequence, hidden)).astype(np.float32),
        rng.standard_normal((batch, KV_HEADS, past, HEAD)).astype(np.float32),
        rng.standard_normal((batch, KV_HEADS, past, HEAD)).astype(np.float32),
        mask,
    ]


STEPS = {
    "subsequent_prompt": _step(1, 5, 7, [12], 1),  # the zoo decoder's step: 5 new tokens after 7
    "decode_padded_batch": _step(2, 1, 6, [7, 4], 2),
    "shared_buffer": _step(2, 1, 10, [7, 5], 3),  # present length 10 = the past's, not total's 7
    "first_prompt": _step(2, 4, 0, [4, 4], 4),
}


def _expected(arrays: list[np.ndarray]) -> list[np.ndarray]:
    session = onnxruntime.InferenceSession(
        _decoder_attention().SerializeToString(), providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    return session.run(None, dict(zip(names, arrays)))


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for index, (got, want) in enumerate(zip(outputs, expected)):
        assert got.shape == want.shape, (index, got.shape, want.shape)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL, err_msg=f"output {index}")


def test_the_reference_has_the_present_length_of_the_contract():
    """onnxruntime's present length is max(total, past): the shared buffer keeps the past's 10."""
    assert _expected(STEPS["shared_buffer"])[1].shape == (2, KV_HEADS, 10, HEAD)
    assert _expected(STEPS["subsequent_prompt"])[1].shape == (1, KV_HEADS, 12, HEAD)


@pytest.mark.parametrize("backend", ["stablehlo", "linalg-on-tensors"])
def test_one_dynamic_compile_runs_every_step_on_the_reference_runner(backend):
    module = onnx_torch_mlir.compile(_decoder_attention(), backend)
    text = str(module)
    assert "?x2x?x16xf32" in text  # the present length stays a run-time size
    for name, arrays in STEPS.items():
        try:
            _assert_matches(runtime.run(module, arrays, input_dialect=backend), _expected(arrays))
        except AssertionError as error:
            raise AssertionError(f"step {name}: {error}") from error


def test_one_dynamic_stablehlo_compile_runs_every_step_on_iree():
    program = compile_with_iree(onnx_torch_mlir.compile(_decoder_attention(), "stablehlo"), "stablehlo")
    for name, arrays in STEPS.items():
        try:
            _assert_matches(program(*arrays), _expected(arrays))
        except AssertionError as error:
            raise AssertionError(f"step {name}: {error}") from error


def test_tosa_refuses_the_run_time_present_length_and_points_to_dim():
    with pytest.raises(ConversionError, match=r"present length .* must be static on tosa, and here it is a "
                                              r"run-time size, which tosa cannot express .* --dim NAME=SIZE"):
        onnx_torch_mlir.compile(_decoder_attention(), "tosa")


def test_tosa_with_the_dims_fixed_matches():
    arrays = STEPS["decode_padded_batch"]
    dims = {"batch": 2, "sequence": 1, "past": 6, "total": 7}
    module = onnx_torch_mlir.compile(_decoder_attention(), "tosa", dims=dims)
    _assert_matches(runtime.run(module, arrays, input_dialect="tosa"), _expected(arrays))


def test_tosa_with_the_lengths_fixed_keeps_the_batch_dynamic():
    """With the sequence, past and total fixed, the batch stays dynamic on TOSA (the new rows are
    placed by selects: torch-mlir's TOSA gather takes no dynamic batch)."""
    dims = {"sequence": 1, "past": 6, "total": 7}
    module = onnx_torch_mlir.compile(_decoder_attention(), "tosa", dims=dims)
    assert "tensor<?x2x7x16xf32>" in str(module)
    for arrays in (STEPS["decode_padded_batch"], _step(3, 1, 6, [7, 5, 7], 6)):
        _assert_matches(runtime.run(module, arrays, input_dialect="tosa"), _expected(arrays))


def test_a_total_length_given_as_data_is_refused_on_stablehlo_with_the_reason():
    """A total_sequence_length fed as a graph input is a value, not a dim: a size read from data,
    which StableHLO cannot express (Linalg reads it at run time)."""
    with pytest.raises(ConversionError, match=r"its value is data here, and a size read from data is not "
                                              r"expressible on stablehlo"):
        onnx_torch_mlir.compile(_decoder_attention(total_from_shape=False), "stablehlo")
