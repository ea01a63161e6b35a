"""Run-time control flow on StableHLO and TOSA (`transforms/torch/control_flow.py`): Ifs and Loops
that neither the select form nor unrolling can take become `stablehlo.if`/`stablehlo.while` and
`tosa.cond_if`/`tosa.while_loop`, run on the reference runner and on IREE, compared with
onnxruntime. TOSA refuses the while loops whose scan outputs grow at run time (`TOSA_REFUSED`). The recurrent ops over a run-time length are in test_recurrent_numerics.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree
from onnxruntime_reference import assert_matches, expected
from test_control_flow_numerics import scan_dynamic_length, scan_running_sum

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
OPS = {"stablehlo": ("stablehlo.if", "stablehlo.while"), "tosa": ("tosa.cond_if", "tosa.while_loop")}


def _info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def _model(nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "control_flow", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def if_on_data_with_dynamic_batch(positive: bool, batch: int = 3):
    """y = x * 2 if sum(x) > 0 else x - 1, x of [N, 4] (N symbolic): both branches [N, 4], which the
    select form refuses (its shapes must be static)."""
    then_g = helper.make_graph([_const("two", np.float32(2)), helper.make_node("Mul", ["x", "two"], ["t"])], "then", [],
                               [_info("t", FLOAT, ["N", 4])])
    else_g = helper.make_graph([_const("one", np.float32(1)), helper.make_node("Sub", ["x", "one"], ["e"])], "else", [],
                               [_info("e", FLOAT, ["N", 4])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        _const("zero", np.float32(0)),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    x = np.abs(np.random.default_rng(batch).standard_normal((batch, 4))).astype(np.float32)
    return _model(nodes, [_info("x", FLOAT, ["N", 4])], [_info("y", FLOAT, ["N", 4])]), [x if positive else -x]


def if_branch_shapes_differ(cond: bool):
    """An If on an input flag whose branches are [2, 3] and [4, 3]: the output is [?, 3]."""
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["t"])], "then", [], [_info("t", FLOAT, [2, 3])])
    else_g = helper.make_graph([helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], "else", [],
                               [_info("e", FLOAT, [4, 3])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    x = np.random.default_rng(1).standard_normal((2, 3)).astype(np.float32)
    return _model(nodes, [_info("c", BOOL, []), _info("x", FLOAT, [2, 3])], [_info("y", FLOAT, [None, 3])]), [
        np.array(cond), x]


def loop_runtime_trip_count_with_exit(trip_count: int, limit: float, scan_output: bool):
    """for i < M while sum(v) < limit: v = v * 1.5 + i; the trip count is an input and the body's
    condition depends on the data, so the loop may stop on either. With `scan_output`, the sum of
    each iteration is gathered too (StableHLO only: on TOSA the gathered rows grow at run time)."""
    body_nodes = [
        _const("scale", np.float32(1.5)),
        helper.make_node("Cast", ["i"], ["fi"], to=FLOAT),
        helper.make_node("Mul", ["v_in", "scale"], ["scaled"]),
        helper.make_node("Add", ["scaled", "fi"], ["v_out"]),
        helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
        helper.make_node("Less", ["s", "limit"], ["cond_out"]),
    ]
    body_outputs = [_info("cond_out", BOOL, []), _info("v_out", FLOAT, [3])]
    outputs = [_info("v", FLOAT, [3])]
    if scan_output:
        body_outputs.append(_info("s", FLOAT, []))
        outputs.append(_info("sums", FLOAT, [None]))
    body = helper.make_graph(body_nodes, "body",
                             [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("v_in", FLOAT, [3])], body_outputs)
    nodes = [_const("true", np.array(True)),
             helper.make_node("Loop", ["M", "true", "v0"], [o.name for o in outputs], body=body)]
    inputs = [_info("M", INT64, []), _info("v0", FLOAT, [3]), _info("limit", FLOAT, [])]
    arrays = [np.array(trip_count, np.int64), np.array([0.5, 1.0, -0.25], np.float32), np.array(limit, np.float32)]
    return _model(nodes, inputs, outputs), arrays


def scan_over_run_time_length(reverse_input: int, reverse_output: int, input_axis: int, output_axis: int):
    """Scan-11's running sum over x [2, T, 3] (input axis 1) or [T, 4, 3] (axis 0), T symbolic, with
    directions and output axes (`test_control_flow_numerics.scan_running_sum` with a run-time length)."""
    model, arrays = scan_running_sum(reverse_input, reverse_output, input_axis, output_axis)
    for value in model.graph.input:
        if value.name == "x":
            value.type.tensor_type.shape.dim[input_axis].dim_param = "T"
    for value in model.graph.output:
        if value.name == "ys":
            value.type.tensor_type.shape.dim[output_axis].dim_param = "T"
    return model, arrays


CASES = {
    "If-dynamic-batch-then": lambda: if_on_data_with_dynamic_batch(True),
    "If-dynamic-batch-else": lambda: if_on_data_with_dynamic_batch(False, batch=5),
    "If-shapes-differ-then": lambda: if_branch_shapes_differ(True),
    "If-shapes-differ-else": lambda: if_branch_shapes_differ(False),
    "Loop-exits-on-condition": lambda: loop_runtime_trip_count_with_exit(10, 20.0, False),
    "Loop-exits-on-trip-count": lambda: loop_runtime_trip_count_with_exit(3, 1000.0, False),
    "Loop-no-iteration": lambda: loop_runtime_trip_count_with_exit(0, 1000.0, False),
    "Loop-scan-output": lambda: loop_runtime_trip_count_with_exit(10, 20.0, True),
    "Scan-run-time-length": scan_dynamic_length,
    "Scan-run-time-length-reverse-in-axis1-out": lambda: scan_over_run_time_length(1, 0, 1, 1),
    "Scan-run-time-length-reverse-out-axis0": lambda: scan_over_run_time_length(0, 1, 0, 2),
}
# On TOSA a while loop's scan outputs would grow at run time: refused by name (below).
TOSA_REFUSED = {"Loop-scan-output": "scan outputs grow by a row per iteration",
                "Scan-run-time-length": "scan outputs grow by a row per iteration",
                "Scan-run-time-length-reverse-in-axis1-out": "scan outputs grow by a row per iteration",
                "Scan-run-time-length-reverse-out-axis0": "scan outputs grow by a row per iteration"}
RUNS = [(name, backend) for name in CASES for backend in ("stablehlo", "tosa")
        if backend == "stablehlo" or name not in TOSA_REFUSED]


def _compiled(name: str, backend: str):
    model, arrays = CASES[name]()
    module = onnx_torch_mlir.compile(model, backend)
    text = str(module)
    assert any(op in text for op in OPS[backend]), f"no {backend} control flow in the output"
    return module, arrays, expected(model, arrays)


@pytest.mark.parametrize("name, backend", RUNS, ids=[f"{n}-{b}" for n, b in RUNS])
def test_reference_runner_matches_onnxruntime(name, backend):
    module, arrays, wanted = _compiled(name, backend)
    assert_matches(runtime.run(module, arrays, input_dialect=backend), wanted)


@pytest.mark.parametrize("name, backend", RUNS, ids=[f"{n}-{b}" for n, b in RUNS])
def test_iree_matches_onnxruntime(name, backend):
    module, arrays, wanted = _compiled(name, backend)
    assert_matches(compile_with_iree(module, backend)(*arrays), wanted)


@pytest.mark.parametrize("name", list(TOSA_REFUSED))
def test_tosa_refuses_a_while_loop_with_scan_outputs_by_name(name):
    model, _ = CASES[name]()
    with pytest.raises(Exception, match=TOSA_REFUSED[name]):
        onnx_torch_mlir.compile(model, "tosa")
