"""Einsums fed by sizes an exporter computed in floating point keep their static types.

transformers' FunnelModel, exported by the TorchScript exporter with static shapes, builds its
relative positions as `Range(Cast(Add(float constants), int64), Cast(Sub(...)), -1)` and
gathers embedding rows with them. The importer's shape values followed integers only, so the
Range was typed `[?]` and everything after it, up to the Einsums `td,dnh->tnh` and
`binh,tnh->bnit`, carried a `?` that is really 16. torch-mlir's simplification then folded the
Range to 16 and decomposed the first Einsum from its now static operand into its declared `?`
result: a permute `[16,2,16] -> [?,2,16]`, read by the second Einsum's permute. torch-mlir's
Linalg lowering of that pair builds an invalid `linalg.transpose` (result dim 16 over an input
dim `?`), TorchToTosa left an `aten.size.int` it could not legalize. Two importer mechanisms
now type that Range `[16]`: the fold of small constant subexpressions when a dim is undetermined
(`importer/constant_folding.py`, for all-constant chains like Funnel's), and the shape values,
which hold known floats too (`importer/shape_value_elements.py`) and so also follow a float size
computed from a dim that only their own refinement rounds determine.

A genuinely dynamic dim through the same two Einsums (every type `?` consistently) lowers and
runs correctly on Linalg; `test_genuinely_dynamic_letter_runs_on_linalg` keeps it that way. The
fault needs a static tensor typed `?`; in Torch alone (torch-mlir at this pin):
    %1 = torch.aten.permute %arg0 [0,1,2] : [16,2,16] -> [?,2,16]
    %3 = torch.aten.permute %1 [1,2,0] : [?,2,16] -> [2,16,?]
through torch-to-linalg gives "'linalg.transpose' op dim(result, 2) = 16 doesn't match
dim(input, permutation[2]) = -9223372036854775808". Our Einsum conversion cannot avoid it (at
conversion time its operands and result are consistently `?`; torch-mlir refines the operands
afterwards); transforms/linalg/static_views.py now guards it, giving such a permute its operand's static
sizes before the Linalg lowering (test_dynamic_exports.py runs that Torch pair).
"""

from __future__ import annotations

import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import expected

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
RTOL, ATOL = 1e-5, 1e-5


def _constant(name: str, value) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(value), name))


def _einsum_pair() -> list[onnx.NodeProto]:
    """Funnel's relative-position attention: rows of a table, projected, against the queries."""
    return [
        helper.make_node("Gather", ["table", "positions"], ["rows"], axis=0),
        helper.make_node("Einsum", ["rows", "kernel"], ["r"], equation="td,dnh->tnh"),
        helper.make_node("Einsum", ["q", "r"], ["y"], equation="binh,tnh->bnit"),
    ]


def _float_range_model() -> onnx.ModelProto:
    """Funnel's positions: Range(int(-1.0 + 8.0), int(-1.0 - 8.0), -1), 16 of them, all static."""
    nodes = [
        _constant("minus_one", np.float32(-1.0)), _constant("eight", np.float32(8.0)), _constant("step", np.int64(-1)),
        helper.make_node("Add", ["minus_one", "eight"], ["start_f"]),
        helper.make_node("Sub", ["minus_one", "eight"], ["limit_f"]),
        helper.make_node("Cast", ["start_f"], ["start"], to=TensorProto.INT64),
        helper.make_node("Cast", ["limit_f"], ["limit"], to=TensorProto.INT64),
        helper.make_node("Range", ["start", "limit", "step"], ["positions"]),
    ] + _einsum_pair()
    inputs = [
        helper.make_tensor_value_info("q", TensorProto.FLOAT, [2, 8, 2, 16]),
        helper.make_tensor_value_info("table", TensorProto.FLOAT, [32, 32]),
        helper.make_tensor_value_info("kernel", TensorProto.FLOAT, [32, 2, 16]),
    ]
    graph = helper.make_graph(nodes, "funnel_positions", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _dynamic_positions_model() -> onnx.ModelProto:
    """The same Einsums with the positions a graph input of symbolic length."""
    inputs = [
        helper.make_tensor_value_info("q", TensorProto.FLOAT, [2, 8, 2, 16]),
        helper.make_tensor_value_info("table", TensorProto.FLOAT, [32, 32]),
        helper.make_tensor_value_info("kernel", TensorProto.FLOAT, [32, 2, 16]),
        helper.make_tensor_value_info("positions", TensorProto.INT64, ["t"]),
    ]
    graph = helper.make_graph(_einsum_pair(), "dynamic_positions", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _float_inputs(rng) -> dict:
    return {
        "q": rng.standard_normal((2, 8, 2, 16)).astype(np.float32),
        "table": rng.standard_normal((32, 32)).astype(np.float32),
        "kernel": rng.standard_normal((32, 2, 16)).astype(np.float32),
    }


def test_torch_output_of_the_static_graph_has_no_dynamic_dim():
    text = str(onnx_torch_mlir.compile(_float_range_model(), "torch"))
    assert "!torch.vtensor<[2,2,8,16],f32>" in text  # the function's result, i.e. t = 16
    dynamic = re.findall(r"!torch\.vtensor<\[[^\]]*\?[^\]]*\]", text)
    assert not dynamic, f"dims lost their static size: {sorted(set(dynamic))}"


def test_importer_types_the_float_computed_range():
    """The import itself (before any folding of the conversion) gives the Range its 16."""
    text = str(onnx_torch_mlir.import_onnx(_float_range_model()))
    assert re.search(r'"onnx\.Range".*-> !torch\.vtensor<\[16\],si64>', text), text
    assert "?" not in text


def test_float_sizes_follow_onnx_cast_and_division():
    """Cast truncates toward zero (-2.5 -> -2, 16.5 -> 16) and Div on floats is true division, in
    the tensors' own precision: Range(int(-2.5), int(33 / 2), 1) has 18 elements, and float32 0.7
    (0.699999988) times 10 is 7.0 in float32 (onnxruntime) but 6.99999988 in float64, which casts to 6."""
    nodes = [
        _constant("a", np.float32(-2.5)), _constant("b", np.float32(33.0)), _constant("two", np.float32(2.0)),
        _constant("seven_tenths", np.float32(0.7)), _constant("ten", np.float32(10.0)), _constant("one", np.int64(1)),
        helper.make_node("Cast", ["a"], ["start"], to=TensorProto.INT64),
        helper.make_node("Div", ["b", "two"], ["half"]),
        helper.make_node("Cast", ["half"], ["limit"], to=TensorProto.INT64),
        helper.make_node("Range", ["start", "limit", "one"], ["range"]),
        helper.make_node("Mul", ["seven_tenths", "ten"], ["seven_f"]),
        helper.make_node("Cast", ["seven_f"], ["seven"], to=TensorProto.INT64),
        helper.make_node("Range", ["one", "seven", "one"], ["range_seven"]),
    ]
    outputs = [helper.make_tensor_value_info(name, TensorProto.INT64, None) for name in ("range", "range_seven")]
    model = helper.make_model(helper.make_graph(nodes, "float_sizes", [], outputs),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    want = [array.shape for array in expected(model, [])]
    assert want == [(18,), (6,)]
    text = str(onnx_torch_mlir.import_onnx(model))
    assert "-> (!torch.vtensor<[18],si64>, !torch.vtensor<[6],si64>)" in text, text


def test_float_size_of_a_dim_known_only_after_refinement_is_typed():
    """`int(e.shape[1] / 2.0)` where `e = Expand(x, Concat(Shape(q)[:1], [32]))` has a dynamic batch:
    ONNX's inference leaves `e` as `[?,?]`, the shape values make it `[batch,32]` in a later round,
    and only they then follow the width through the float Div (the fold of constant subexpressions
    cannot: its inputs are not constants). The Range is `[16]` and so is the Einsums' letter."""
    nodes = [
        _constant("two", np.float32(2.0)), _constant("zero", np.int64(0)), _constant("one", np.int64(1)),
        _constant("first", np.array([0], np.int64)), _constant("second", np.int64(1)),
        _constant("width", np.array([32], np.int64)),
        helper.make_node("Shape", ["q"], ["q_shape"]),
        helper.make_node("Gather", ["q_shape", "first"], ["batch"], axis=0),
        helper.make_node("Concat", ["batch", "width"], ["target"], axis=0),
        helper.make_node("Expand", ["x", "target"], ["e"]),
        helper.make_node("Shape", ["e"], ["e_shape"]),
        helper.make_node("Gather", ["e_shape", "second"], ["w"], axis=0),
        helper.make_node("Cast", ["w"], ["w_f"], to=TensorProto.FLOAT),
        helper.make_node("Div", ["w_f", "two"], ["half_f"]),
        helper.make_node("Cast", ["half_f"], ["half"], to=TensorProto.INT64),
        helper.make_node("Range", ["zero", "half", "one"], ["positions"]),
    ] + _einsum_pair()
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1]),
        helper.make_tensor_value_info("q", TensorProto.FLOAT, ["batch", 8, 2, 16]),
        helper.make_tensor_value_info("table", TensorProto.FLOAT, [32, 32]),
        helper.make_tensor_value_info("kernel", TensorProto.FLOAT, [32, 2, 16]),
    ]
    outputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, None) for name in ("y", "e")]
    model = helper.make_model(helper.make_graph(nodes, "refined_width", inputs, outputs),
                              opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    text = str(onnx_torch_mlir.import_onnx(model))
    assert re.search(r'"onnx\.Range".*-> !torch\.vtensor<\[16\],si64>', text), text
    assert "-> (!torch.vtensor<[?,2,8,16],f32>, !torch.vtensor<[?,32],f32>)" in text, text
    rng = np.random.default_rng(2)
    feeds = {"x": rng.standard_normal((1, 1)).astype(np.float32)} | _float_inputs(rng)
    feeds["q"] = rng.standard_normal((3, 8, 2, 16)).astype(np.float32)
    want = expected(model, list(feeds.values()))
    got = program(onnx_torch_mlir.compile(model, "linalg-on-tensors"), "linalg-on-tensors", "reference")(*feeds.values())
    for got_array, want_array in zip(got, want):
        np.testing.assert_allclose(got_array, want_array, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_float_computed_positions_match_onnxruntime(backend, consumer):
    model = _float_range_model()
    feeds = _float_inputs(np.random.default_rng(0))
    (want,) = expected(model, list(feeds.values()))
    (got,) = program(onnx_torch_mlir.compile(model, backend), backend, consumer)(*feeds.values())
    assert got.shape == want.shape == (2, 2, 8, 16)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("consumer", ["reference", "iree"])
def test_genuinely_dynamic_letter_runs_on_linalg(consumer):
    """`t` symbolic: torch-mlir's Linalg lowering of the Einsums' permutes is right when the dim is
    `?` everywhere (the fault needs a static tensor typed `?`)."""
    model = _dynamic_positions_model()
    rng = np.random.default_rng(1)
    feeds = _float_inputs(rng) | {"positions": rng.integers(0, 32, size=(5,), dtype=np.int64)}
    (want,) = expected(model, list(feeds.values()))
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert "tensor<2x2x8x?xf32>" in str(module)
    (got,) = program(module, "linalg-on-tensors", consumer)(*feeds.values())
    assert got.shape == want.shape == (2, 2, 8, 5)
    np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)
