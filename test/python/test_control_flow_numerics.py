"""If, Loop and Scan compiled with our importer and conversion, run on the reference CPU runner
(and on IREE), compared with onnxruntime.

Each case is a small model built with onnx.helper (opset 17 unless a case says otherwise). On
Linalg the control flow stays control flow (`torch.prim.If` / `torch.prim.Loop` to `scf`). On
TOSA and StableHLO a run-time If whose branches have one static shape computes both and selects,
and a Loop or Scan of a small static length is unrolled; other Ifs and Loops become the backend's
own `if` / `while` (`transforms/torch/control_flow.py`). TOSA refuses a while loop with scan
outputs by name (`TOSA_REFUSED`: they grow at run time).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree
from onnxruntime_reference import assert_matches, expected

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL


def _info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def _model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "control_flow", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _graph(name, nodes, inputs, outputs):
    return helper.make_graph(nodes, name, inputs, outputs)


rng = np.random.default_rng(7)
X23 = rng.standard_normal((2, 3)).astype(np.float32)


def if_data_dependent(cond: bool):
    """y = x + x if sum(x) > 0 else x * x (the condition computed in the graph)."""
    then_g = _graph("then", [helper.make_node("Add", ["x", "x"], ["t"])], [], [_info("t", FLOAT, [2, 3])])
    else_g = _graph("else", [helper.make_node("Mul", ["x", "x"], ["e"])], [], [_info("e", FLOAT, [2, 3])])
    nodes = [
        helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
        _const("zero", np.float32(0)),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g),
    ]
    x = np.abs(X23) if cond else -np.abs(X23)
    return _model(nodes, [_info("x", FLOAT, [2, 3])], [_info("y", FLOAT, [2, 3])]), [x]


def if_literal_condition():
    """A literal condition: the chosen branch is inlined (every backend)."""
    then_g = _graph("then", [helper.make_node("Neg", ["x"], ["t"])], [], [_info("t", FLOAT, [2, 3])])
    else_g = _graph("else", [helper.make_node("Abs", ["x"], ["e"])], [], [_info("e", FLOAT, [2, 3])])
    nodes = [_const("c", np.array(False)), helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    return _model(nodes, [_info("x", FLOAT, [2, 3])], [_info("y", FLOAT, [2, 3])]), [X23]


def if_branch_shapes_differ(cond: bool):
    """The branches yield [2, 3] and [4, 3]: the If's result is [?, 3]."""
    then_g = _graph("then", [helper.make_node("Relu", ["x"], ["t"])], [], [_info("t", FLOAT, [2, 3])])
    else_g = _graph("else", [helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], [], [_info("e", FLOAT, [4, 3])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    inputs = [_info("c", BOOL, []), _info("x", FLOAT, [2, 3])]
    return _model(nodes, inputs, [_info("y", FLOAT, [None, 3])]), [np.array(cond), X23]


def loop_trip_count(literal: bool):
    """for i < M: acc = acc * 0.5 + x * i; scan output acc (cond absent: a for-like loop)."""
    body = _graph(
        "body",
        [
            helper.make_node("Cast", ["i"], ["fi"], to=FLOAT),
            helper.make_node("Mul", ["x", "fi"], ["xi"]),
            _const("half", np.float32(0.5)),
            helper.make_node("Mul", ["acc_in", "half"], ["scaled"]),
            helper.make_node("Add", ["scaled", "xi"], ["acc_out"]),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Identity", ["acc_out"], ["row"]),
        ],
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("acc_in", FLOAT, [2, 3])],
        [_info("cond_out", BOOL, []), _info("acc_out", FLOAT, [2, 3]), _info("row", FLOAT, [2, 3])],
    )
    nodes = [helper.make_node("Loop", ["M", "", "acc0"], ["acc", "rows"], body=body)]
    inputs = [_info("x", FLOAT, [2, 3]), _info("acc0", FLOAT, [2, 3])]
    arrays = [X23, np.ones((2, 3), np.float32)]
    if literal:
        nodes.insert(0, _const("M", np.int64(4)))
    else:
        inputs.insert(0, _info("M", INT64, []))
        arrays.insert(0, np.array(4, np.int64))
    outputs = [_info("acc", FLOAT, [2, 3]), _info("rows", FLOAT, [4 if literal else None, 2, 3])]
    return _model(nodes, inputs, outputs), arrays


def loop_while_condition(with_trip_count: bool):
    """while sum(v) < limit (and i < M): v = v * 2; scan output: i. The loop may stop on either."""
    body = _graph(
        "body",
        [
            _const("two", np.float32(2)),
            helper.make_node("Mul", ["v_in", "two"], ["v_out"]),
            helper.make_node("ReduceSum", ["v_out"], ["s"], keepdims=0),
            helper.make_node("Less", ["s", "limit"], ["cond_out"]),
            helper.make_node("Identity", ["i"], ["i_row"]),
        ],
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("v_in", FLOAT, [3])],
        [_info("cond_out", BOOL, []), _info("v_out", FLOAT, [3]), _info("i_row", INT64, [])],
    )
    nodes = [
        helper.make_node("ReduceSum", ["v0"], ["s0"], keepdims=0),
        helper.make_node("Less", ["s0", "limit"], ["c0"]),
        helper.make_node("Loop", ["M" if with_trip_count else "", "c0", "v0"], ["v", "steps"], body=body),
    ]
    inputs = [_info("v0", FLOAT, [3]), _info("limit", FLOAT, [])]
    arrays = [np.array([0.5, 1.0, 0.25], np.float32), np.array(40.0, np.float32)]
    if with_trip_count:
        inputs.append(_info("M", INT64, []))
        arrays.append(np.array(3, np.int64))
    return _model(nodes, inputs, [_info("v", FLOAT, [3]), _info("steps", INT64, [None])]), arrays


def if_inside_loop():
    """A Loop whose body holds an If on the iteration number, using an outer-scope value."""
    then_g = _graph("then", [helper.make_node("Add", ["acc_in", "x"], ["t"])], [], [_info("t", FLOAT, [3])])
    else_g = _graph("else", [helper.make_node("Sub", ["acc_in", "x"], ["e"])], [], [_info("e", FLOAT, [3])])
    body = _graph(
        "body",
        [
            _const("two", np.int64(2)),
            helper.make_node("Mod", ["i", "two"], ["parity"]),
            _const("zero", np.int64(0)),
            helper.make_node("Equal", ["parity", "zero"], ["even"]),
            helper.make_node("If", ["even"], ["acc_out"], then_branch=then_g, else_branch=else_g),
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
        ],
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("acc_in", FLOAT, [3])],
        [_info("cond_out", BOOL, []), _info("acc_out", FLOAT, [3])],
    )
    nodes = [_const("M", np.int64(5)), _const("true", np.array(True)),
             helper.make_node("Loop", ["M", "true", "acc0"], ["acc"], body=body)]
    inputs = [_info("x", FLOAT, [3]), _info("acc0", FLOAT, [3])]
    arrays = [np.array([1.0, -2.0, 0.5], np.float32), np.zeros(3, np.float32)]
    return _model(nodes, inputs, [_info("acc", FLOAT, [3])]), arrays


def scan_running_sum(reverse_input: int, reverse_output: int, input_axis: int, output_axis: int):
    """Scan-11: a running sum over axis `input_axis` of x [2, 4, 3], with directions and axes."""
    row_shape = [2, 3] if input_axis == 1 else [4, 3]
    body = _graph(
        "body",
        [helper.make_node("Add", ["sum_in", "x_t"], ["sum_out"]), helper.make_node("Identity", ["sum_out"], ["y_t"])],
        [_info("sum_in", FLOAT, row_shape), _info("x_t", FLOAT, row_shape)],
        [_info("sum_out", FLOAT, row_shape), _info("y_t", FLOAT, row_shape)],
    )
    length = 4 if input_axis == 1 else 2
    out_shape = list(row_shape)
    out_shape.insert(output_axis, length)
    nodes = [helper.make_node(
        "Scan", ["init", "x"], ["sum", "ys"], body=body, num_scan_inputs=1, scan_input_axes=[input_axis],
        scan_input_directions=[reverse_input], scan_output_axes=[output_axis], scan_output_directions=[reverse_output],
    )]
    inputs = [_info("init", FLOAT, row_shape), _info("x", FLOAT, [2, 4, 3])]
    arrays = [np.zeros(row_shape, np.float32), rng.standard_normal((2, 4, 3)).astype(np.float32)]
    return _model(nodes, inputs, [_info("sum", FLOAT, row_shape), _info("ys", FLOAT, out_shape)], opset=11), arrays


def scan8_batched(batch: int):
    """Scan-8: a running sum over axis 1 of x [batch, 3, 2], one batch entry per body run."""
    body = _graph(
        "body",
        [helper.make_node("Add", ["sum_in", "x_t"], ["sum_out"]), helper.make_node("Identity", ["sum_out"], ["y_t"])],
        [_info("sum_in", FLOAT, [2]), _info("x_t", FLOAT, [2])],
        [_info("sum_out", FLOAT, [2]), _info("y_t", FLOAT, [2])],
    )
    nodes = [helper.make_node("Scan", ["", "init", "x"], ["sum", "ys"], body=body, num_scan_inputs=1, directions=[1])]
    inputs = [_info("init", FLOAT, [batch, 2]), _info("x", FLOAT, [batch, 3, 2])]
    arrays = [rng.standard_normal((batch, 2)).astype(np.float32), rng.standard_normal((batch, 3, 2)).astype(np.float32)]
    return _model(nodes, inputs, [_info("sum", FLOAT, [batch, 2]), _info("ys", FLOAT, [batch, 3, 2])], opset=8), arrays


CASES = {
    "If-true": lambda: if_data_dependent(True),
    "If-false": lambda: if_data_dependent(False),
    "If-literal": if_literal_condition,
    "If-shapes-differ-then": lambda: if_branch_shapes_differ(True),
    "If-shapes-differ-else": lambda: if_branch_shapes_differ(False),
    "Loop-literal-trip-count": lambda: loop_trip_count(True),
    "Loop-input-trip-count": lambda: loop_trip_count(False),
    "Loop-while": lambda: loop_while_condition(False),
    "Loop-while-and-trip-count": lambda: loop_while_condition(True),
    "Loop-with-If": if_inside_loop,
    "Scan-forward-axis0": lambda: scan_running_sum(0, 0, 1, 0),
    "Scan-reverse-in-axis1-out": lambda: scan_running_sum(1, 0, 1, 1),
    "Scan-reverse-out-axis0": lambda: scan_running_sum(0, 1, 0, 2),
    "Scan8-batch2": lambda: scan8_batched(2),
    "Scan8-batch1": lambda: scan8_batched(1),
}

# A while loop's scan outputs grow at run time, which torch-mlir's TOSA lowering cannot take.
TOSA_REFUSED = {
    "Loop-input-trip-count": "its scan outputs grow by a row per iteration",
    "Loop-while": "its scan outputs grow by a row per iteration",
    "Loop-while-and-trip-count": "its scan outputs grow by a row per iteration",
}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_onnxruntime(name, backend):
    model, arrays = CASES[name]()
    if backend == "tosa" and name in TOSA_REFUSED:
        with pytest.raises(Exception, match=TOSA_REFUSED[name]):
            onnx_torch_mlir.compile(model, backend)
        return
    module = onnx_torch_mlir.compile(model, backend)
    assert_matches(runtime.run(module, arrays, input_dialect=backend), expected(model, arrays))


@pytest.mark.parametrize("name, backend", [
    *((name, "linalg-on-tensors") for name in ["If-true", "If-shapes-differ-else", "Loop-input-trip-count",
                                               "Loop-while-and-trip-count", "Loop-with-If",
                                               "Scan-reverse-in-axis1-out", "Scan8-batch2"]),
    ("If-shapes-differ-then", "stablehlo"), ("If-shapes-differ-else", "tosa"),
    ("Loop-input-trip-count", "stablehlo"), ("Loop-while-and-trip-count", "stablehlo"),
])
def test_iree_matches_onnxruntime(name, backend):
    model, arrays = CASES[name]()
    module = onnx_torch_mlir.compile(model, backend)
    assert_matches(compile_with_iree(module, backend)(*arrays), expected(model, arrays))


def test_a_loop_without_trip_count_or_condition_is_refused():
    body = _graph("body", [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
                           helper.make_node("Identity", ["v_in"], ["v_out"])],
                  [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("v_in", FLOAT, [2])],
                  [_info("cond_out", BOOL, []), _info("v_out", FLOAT, [2])])
    model = _model([helper.make_node("Loop", ["", "", "x"], ["y"], body=body)],
                   [_info("x", FLOAT, [2])], [_info("y", FLOAT, [2])])
    with pytest.raises(Exception, match="neither a trip count nor a condition never ends"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def scan_dynamic_length():
    """Scan-9 over a length known only at run time (x is [T, 3]); the rows are [3]."""
    body = _graph(
        "body",
        [helper.make_node("Mul", ["p_in", "x_t"], ["p_out"]), helper.make_node("Identity", ["p_out"], ["y_t"])],
        [_info("p_in", FLOAT, [3]), _info("x_t", FLOAT, [3])],
        [_info("p_out", FLOAT, [3]), _info("y_t", FLOAT, [3])],
    )
    nodes = [helper.make_node("Scan", ["init", "x"], ["p", "ys"], body=body, num_scan_inputs=1)]
    inputs = [_info("init", FLOAT, [3]), _info("x", FLOAT, ["T", 3])]
    outputs = [_info("p", FLOAT, [3]), _info("ys", FLOAT, ["T", 3])]
    arrays = [np.ones(3, np.float32), rng.standard_normal((5, 3)).astype(np.float32)]
    return _model(nodes, inputs, outputs, opset=11), arrays


def if_dynamic_rows(cond: bool):
    """An If on x of [N, 3] (N symbolic): x + x, or x concatenated with itself ([2N, 3])."""
    then_g = _graph("then", [helper.make_node("Add", ["x", "x"], ["t"])], [], [_info("t", FLOAT, ["N", 3])])
    else_g = _graph("else", [helper.make_node("Concat", ["x", "x"], ["e"], axis=0)], [], [_info("e", FLOAT, [None, 3])])
    nodes = [helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    inputs = [_info("c", BOOL, []), _info("x", FLOAT, ["N", 3])]
    return _model(nodes, inputs, [_info("y", FLOAT, [None, 3])]), [np.array(cond), X23]


@pytest.mark.parametrize("name, build", [
    ("Scan-dynamic-length", scan_dynamic_length), ("If-dynamic-then", lambda: if_dynamic_rows(True)),
    ("If-dynamic-else", lambda: if_dynamic_rows(False)),
])
def test_dynamic_dims_on_linalg(name, build):
    model, arrays = build()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert_matches(runtime.run(module, arrays), expected(model, arrays))


def loop_growing_carried_value():
    """A loop-carried value that grows each iteration (Concat): ONNX's inference leaves the body
    untyped; the importer types it from the initial value and makes the dim that changes `?`."""
    body = _graph(
        "body",
        [helper.make_node("Concat", ["v_in", "x"], ["v_out"], axis=0),
         helper.make_node("Identity", ["cond_in"], ["cond_out"])],
        [_info("i", INT64, []), _info("cond_in", BOOL, []), helper.make_empty_tensor_value_info("v_in")],
        [_info("cond_out", BOOL, []), helper.make_empty_tensor_value_info("v_out")],
    )
    nodes = [_const("M", np.int64(3)), helper.make_node("Loop", ["M", "", "x"], ["v"], body=body)]
    x = np.array([1.0, 2.0], np.float32)
    return _model(nodes, [_info("x", FLOAT, [2])], [_info("v", FLOAT, [None])]), [x]


def if_branch_reshapes_with_outer_shape():
    """A branch reshapes with a shape constant of the enclosing graph: the branch is typed from
    the constant's value (the importer infers each subgraph with the enclosing constants)."""
    then_g = _graph("then", [helper.make_node("Reshape", ["x", "shape"], ["t0"]), helper.make_node("Relu", ["t0"], ["t"])],
                    [], [helper.make_empty_tensor_value_info("t")])
    else_g = _graph("else", [helper.make_node("Reshape", ["x", "shape"], ["e0"]), helper.make_node("Neg", ["e0"], ["e"])],
                    [], [helper.make_empty_tensor_value_info("e")])
    nodes = [_const("shape", np.array([3, 2], np.int64)),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    return _model(nodes, [_info("c", BOOL, []), _info("x", FLOAT, [2, 3])], [_info("y", FLOAT, [3, 2])]), [np.array(False), X23]


@pytest.mark.parametrize("name, build", [
    ("Loop-growing-carried-value", loop_growing_carried_value),
    ("If-outer-shape-constant", if_branch_reshapes_with_outer_shape),
])
def test_subgraph_types_from_the_enclosing_graph(name, build):
    model, arrays = build()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert_matches(runtime.run(module, arrays), expected(model, arrays))


def loop_dynamic_rows(while_like: bool):
    """Scan outputs whose per-iteration dims are only known at run time (x is [N], N symbolic):
    the rows x * i, for a trip count (for-like) or while i < 3 (while-like)."""
    nodes = [
        helper.make_node("Cast", ["i"], ["fi"], to=FLOAT),
        helper.make_node("Mul", ["x", "fi"], ["row"]),
        helper.make_node("Identity", ["cond_in"], ["keep"]),
    ]
    if while_like:
        nodes[-1] = helper.make_node("Less", ["i", "two"], ["keep"])
        nodes.insert(0, _const("two", np.int64(2)))
    body = _graph("body", nodes, [_info("i", INT64, []), _info("cond_in", BOOL, [])],
                  [_info("keep", BOOL, []), _info("row", FLOAT, [None])])
    loop_inputs = ["", "c"] if while_like else ["M", ""]
    graph_nodes = [_const("M", np.int64(3)), _const("c", np.array(True)),
                   helper.make_node("Loop", loop_inputs, ["rows"], body=body)]
    model = _model(graph_nodes, [_info("x", FLOAT, ["N"])], [_info("rows", FLOAT, [None, None])])
    return model, [np.array([1.0, -2.0, 0.5, 4.0], np.float32)]


def scan_dynamic_rows():
    """Scan-11 over axis 0 of x [3, N] (N symbolic), its output written from the end."""
    body = _graph(
        "body",
        [helper.make_node("Add", ["s_in", "x_t"], ["s_out"]), helper.make_node("Identity", ["s_out"], ["y_t"])],
        [_info("s_in", FLOAT, [None]), _info("x_t", FLOAT, [None])],
        [_info("s_out", FLOAT, [None]), _info("y_t", FLOAT, [None])],
    )
    nodes = [helper.make_node("Scan", ["init", "x"], ["s", "ys"], body=body, num_scan_inputs=1,
                              scan_output_directions=[1])]
    inputs = [_info("init", FLOAT, ["N"]), _info("x", FLOAT, [3, "N"])]
    arrays = [np.zeros(4, np.float32), rng.standard_normal((3, 4)).astype(np.float32)]
    return _model(nodes, inputs, [_info("s", FLOAT, ["N"]), _info("ys", FLOAT, [3, "N"])], opset=11), arrays


# IREE's compiler rejects the Scan form ("failed to legalize unresolved source materialization
# from ('index') to ('i64')": the step number carried by the while-loop indexes the scan input),
# so that case runs on the reference runner only.
@pytest.mark.parametrize("name, build, on_iree", [
    ("Loop-dynamic-rows-for", lambda: loop_dynamic_rows(False), True),
    ("Loop-dynamic-rows-while", lambda: loop_dynamic_rows(True), True),
    ("Scan-dynamic-rows-reverse", scan_dynamic_rows, False),
])
def test_dynamic_rows_on_linalg(name, build, on_iree):
    model, arrays = build()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    wanted = expected(model, arrays)
    assert_matches(runtime.run(module, arrays), wanted)
    if on_iree:
        assert_matches(compile_with_iree(module, "linalg-on-tensors")(*arrays), wanted)
