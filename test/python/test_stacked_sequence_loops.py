"""A Loop of a run-time trip count that appends to a loop-carried sequence (the TorchScript export of
`for step in range(x.size(0)): ...; states.append(h)` then `torch.stack(states)`): the sequence is
carried as a stacked tensor grown by one row per iteration and read after the loop by
ConcatFromSequence, SequenceAt and SequenceLength (`control_flow/stacked.py`). Compiled with our
conversion, run on the reference CPU runner and on IREE, compared with onnxruntime. TOSA lowers
no loop whose carried tensor grows: there the dims are fixed with `dims=` and the loop unrolls.
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree
from onnxruntime_reference import assert_matches, expected

FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
WIDTH = 4
rng = np.random.default_rng(23)


def _info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _sequence(name, element, shape=None):
    return helper.make_value_info(name, helper.make_sequence_type_proto(helper.make_tensor_type_proto(element, shape)))


def _const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def appending_loop(row_width=WIDTH, output_sequence: bool = False, insert_at_length: bool = False):
    """x [steps, batch, width] (both dims symbolic): h = tanh(x[i] + h) for i < steps, each h appended
    to a sequence (or inserted at its SequenceLength); after the loop ConcatFromSequence with
    new_axis 1 (axis 0 and 2) and 0 (axis 1), SequenceLength and SequenceAt(-1)."""
    insert = (
        [helper.make_node("SequenceLength", ["states_in"], ["end"]),
         helper.make_node("SequenceInsert", ["states_in", "h_out", "end"], ["states_out"])]
        if insert_at_length else [helper.make_node("SequenceInsert", ["states_in", "h_out"], ["states_out"])]
    )
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
            helper.make_node("Add", ["row", "h_in"], ["sum"]),
            helper.make_node("Tanh", ["sum"], ["h_out"]),
            *insert,
        ],
        "body",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), _info("h_in", FLOAT, ["batch", row_width]),
         _sequence("states_in", FLOAT)],
        [_info("cond_out", BOOL, []), _info("h_out", FLOAT, ["batch", row_width]), _sequence("states_out", FLOAT)],
    )
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        _const("zero", np.int64(0)), _const("one", np.int64(1)), _const("true", np.array(True)),
        helper.make_node("Gather", ["shape", "zero"], ["steps"], axis=0),
        helper.make_node("Gather", ["x", "zero"], ["first"], axis=0),
        helper.make_node("Mul", ["first", "first"], ["h0"]),
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        helper.make_node("Loop", ["steps", "true", "h0", "empty"], ["h", "states"], body=body),
        helper.make_node("ConcatFromSequence", ["states"], ["stacked"], axis=0, new_axis=1),
        helper.make_node("ConcatFromSequence", ["states"], ["stacked_last"], axis=-1, new_axis=1),
        helper.make_node("ConcatFromSequence", ["states"], ["joined"], axis=1),
        helper.make_node("SequenceLength", ["states"], ["count"]),
        _const("last", np.int64(-1)),
        helper.make_node("SequenceAt", ["states", "last"], ["final"]),
    ]
    outputs = [_info("h", FLOAT, ["batch", row_width]), _info("stacked", FLOAT, ["steps", "batch", row_width]),
               _info("stacked_last", FLOAT, ["batch", row_width, "steps"]), _info("joined", FLOAT, ["batch", None]),
               _info("count", INT64, []), _info("final", FLOAT, ["batch", row_width])]
    if output_sequence:
        outputs.append(_sequence("states", FLOAT))
    graph = helper.make_graph(nodes, "stacked_sequence_loop", [_info("x", FLOAT, ["steps", "batch", row_width])],
                              outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _inputs(steps, batch=3):
    return [rng.standard_normal((steps, batch, WIDTH)).astype(np.float32)]


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_a_run_time_trip_count_matches_onnxruntime(backend):
    model = appending_loop()
    module = onnx_torch_mlir.compile(model, backend)
    for steps in (1, 5):
        arrays = _inputs(steps)
        assert_matches(runtime.run(module, arrays, input_dialect=backend), expected(model, arrays))
    program = compile_with_iree(module, backend)
    arrays = _inputs(4, batch=2)
    assert_matches(program(*arrays), expected(model, arrays))


def test_an_insert_at_the_sequence_length_is_an_append():
    model = appending_loop(insert_at_length=True)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    arrays = _inputs(3)
    assert_matches(runtime.run(module, arrays, input_dialect="linalg-on-tensors"), expected(model, arrays))


def test_tosa_unrolls_it_once_the_dims_are_fixed():
    model = appending_loop()
    module = onnx_torch_mlir.compile(model, "tosa", dims={"steps": 3, "batch": 2})
    arrays = _inputs(3, batch=2)
    assert_matches(runtime.run(module, arrays, input_dialect="tosa"), expected(model, arrays))
    assert_matches(compile_with_iree(module, "tosa")(*arrays), expected(model, arrays))
    with pytest.raises(Exception, match="on tosa a Loop that appends to a sequence is unrolled, which needs a number "
                                        "of iterations known at conversion time .fix the dims"):
        onnx_torch_mlir.compile(model, "tosa")


def test_a_sequence_that_reaches_a_graph_output_keeps_the_unrolled_form():
    with pytest.raises(Exception, match="the trip count .input 0. is only known at run time.*would be carried as a "
                                        "stacked tensor, but loop-carried sequence 1 reaches a graph output"):
        onnx_torch_mlir.compile(appending_loop(output_sequence=True), "linalg-on-tensors")


def test_the_scripted_recurrence_with_run_time_steps_and_batch():
    """The zoo's scripted-sequence-loop-torchscript-dynamic (torch.stack and torch.cat of the list),
    exported here and run with two step counts."""
    pytest.importorskip("torch", reason="the TorchScript exporter needs torch (a test-only dependency)")
    import sys
    import tempfile
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "models"))
    import onnx
    import zoo_control

    with tempfile.TemporaryDirectory() as directory:
        model = onnx.load(str(zoo_control.build_scripted_sequence_loop(Path(directory), dynamic=True)))
    for backend in ("linalg-on-tensors", "stablehlo"):
        module = onnx_torch_mlir.compile(model, backend)
        for steps, batch in ((2, 3), (6, 1)):
            arrays = [rng.standard_normal((steps, batch, zoo_control.SEQUENCE_FEATURES)).astype(np.float32)]
            assert_matches(runtime.run(module, arrays, input_dialect=backend), expected(model, arrays))


def growing_elements_read_by_sequence_at():
    """ONNX's test_loop13_seq with its sequence read by SequenceAt: the body appends x[:i+1], an
    element one longer each iteration, with a run-time trip count."""
    body = helper.make_graph(
        [
            helper.make_node("Identity", ["cond_in"], ["cond_out"]),
            _const("one", np.array([1], np.int64)), _const("start", np.array([0], np.int64)),
            helper.make_node("Unsqueeze", ["i", "axes"], ["i_1d"]),
            helper.make_node("Add", ["i_1d", "one"], ["end"]),
            helper.make_node("Slice", ["x", "start", "end"], ["part"]),
            helper.make_node("SequenceInsert", ["states_in", "part"], ["states_out"]),
        ],
        "body", [_info("i", INT64, []), _info("cond_in", BOOL, []), _sequence("states_in", FLOAT)],
        [_info("cond_out", BOOL, []), _sequence("states_out", FLOAT)],
    )
    nodes = [
        _const("x", np.arange(1, 6, dtype=np.float32)), _const("axes", np.array([0], np.int64)),
        _const("true", np.array(True)), _const("second", np.int64(1)),
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        helper.make_node("Loop", ["steps", "true", "empty"], ["states"], body=body),
        helper.make_node("SequenceAt", ["states", "second"], ["element"]),
    ]
    graph = helper.make_graph(nodes, "growing", [_info("steps", INT64, [])], [_info("element", FLOAT, [None])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_elements_that_may_change_shape_are_refused_not_stacked(backend):
    """Stacked, every element would have the first one's shape (x[:1]); refused with the reason."""
    with pytest.raises(Exception, match="loop-carried sequence 0 is read by SequenceAt after the loop, and dim 0 of "
                                        "its elements is only known at run time"):
        onnx_torch_mlir.compile(growing_elements_read_by_sequence_at(), backend)
