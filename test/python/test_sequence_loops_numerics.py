"""Sequences in control flow: a Loop that appends to a loop-carried sequence (or reads a sequence
at its iteration number) and an If with a sequence or optional output, compiled with our importer and
conversion, run on the reference CPU runner (and on IREE for Linalg), compared with onnxruntime.

torch-mlir lowers no list carried by a `torch.prim.Loop`, so such a loop is unrolled on every
backend (its trip count must be known at conversion time, unless its sequence is only appended to:
then it is carried as a stacked tensor, see test_stacked_sequence_loops.py) and each copy of the body sees the
sequence's elements; an If yields a sequence's elements as tensors and rebuilds it after
(see `control_flow/lists.py`, `control_flow/branches.py`).
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
rng = np.random.default_rng(11)
X34 = rng.standard_normal((3, 4)).astype(np.float32)
X5 = rng.standard_normal(5).astype(np.float32)


def _info(name, element, shape):
    return helper.make_tensor_value_info(name, element, shape)


def _const(name, array):
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name))


def _model(nodes, inputs, outputs, opset=17):
    graph = helper.make_graph(nodes, "sequence_loops", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _sequence(name, element, shape=None):
    return helper.make_value_info(name, helper.make_sequence_type_proto(helper.make_tensor_type_proto(element, shape)))


def _loop(nodes_in_body, body_inputs, body_outputs, trip_count, initial, outputs):
    """Loop(trip_count, cond=true, initial...) whose body keeps its condition."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]), *nodes_in_body], "body",
        [_info("i", INT64, []), _info("cond_in", BOOL, []), *body_inputs], [_info("cond_out", BOOL, []), *body_outputs])
    return [_const("trips", np.int64(trip_count)), _const("true", np.array(True)),
            helper.make_node("Loop", ["trips", "true", *initial], outputs, body=body)]


def loop_appends_rows():
    """h = tanh(x[i] + h); states.append(h) for 4 steps; the states stacked (new_axis=1) and concatenated."""
    body = [
        helper.make_node("Gather", ["x", "i"], ["row"], axis=0),
        helper.make_node("Add", ["row", "h_in"], ["sum"]),
        helper.make_node("Tanh", ["sum"], ["h_out"]),
        helper.make_node("SequenceInsert", ["states_in", "h_out"], ["states_out"]),
    ]
    nodes = [
        _const("h0", np.zeros(4, np.float32)), helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        *_loop(body, [_info("h_in", FLOAT, [4]), _sequence("states_in", FLOAT, [4])],
               [_info("h_out", FLOAT, [4]), _sequence("states_out", FLOAT, [4])], 3, ["h0", "empty"],
               ["h", "states"]),
        helper.make_node("ConcatFromSequence", ["states"], ["stacked"], axis=0, new_axis=1),
        helper.make_node("ConcatFromSequence", ["states"], ["joined"], axis=0),
    ]
    outputs = [_info("h", FLOAT, [4]), _info("stacked", FLOAT, [3, 4]), _info("joined", FLOAT, [12])]
    return _model(nodes, [_info("x", FLOAT, [3, 4])], outputs), [X34]


def loop_appends_growing_slices():
    """Like ONNX's test_loop13_seq with a literal trip count: x[:i + 1] appended in iteration i,
    so the elements differ in length; the last element, one in the middle and the length."""
    body = [
        _const("one", np.int64(1)), _const("zero", np.array([0], np.int64)), _const("axes", np.array([0], np.int64)),
        helper.make_node("Add", ["i", "one"], ["end"]),
        helper.make_node("Unsqueeze", ["end", "axes"], ["ends"]),
        helper.make_node("Slice", ["x", "zero", "ends"], ["piece"]),
        helper.make_node("SequenceInsert", ["pieces_in", "piece"], ["pieces_out"]),
    ]
    nodes = [
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        *_loop(body, [_sequence("pieces_in", FLOAT, [None])], [_sequence("pieces_out", FLOAT, [None])], 5, ["empty"],
               ["pieces"]),
        _const("last", np.int64(-1)), _const("second", np.int64(1)),
        helper.make_node("SequenceAt", ["pieces", "last"], ["y_last"]),
        helper.make_node("SequenceAt", ["pieces", "second"], ["y_second"]),
        helper.make_node("SequenceLength", ["pieces"], ["count"]),
    ]
    outputs = [_info("y_last", FLOAT, [None]), _info("y_second", FLOAT, [None]), _info("count", INT64, [])]
    return _model(nodes, [_info("x", FLOAT, [5])], outputs), [X5]


def loop_reads_sequence_at_iteration():
    """SequenceMap's expansion: a Loop over a sequence of differently shaped elements, reading
    element i (SequenceAt at the iteration number), appending its square and scanning its sum.
    (A Shape of such an element is computed from `?` dims, known only once the loop is unrolled:
    on TOSA and StableHLO that is an `aten.tensor` of sizes, which they do not lower.)"""
    body = [
        helper.make_node("SequenceAt", ["parts", "i"], ["part"]),
        helper.make_node("ReduceSum", ["part"], ["total"], keepdims=0),
        helper.make_node("Mul", ["part", "part"], ["square"]),
        helper.make_node("SequenceInsert", ["squares_in", "square"], ["squares_out"]),
    ]
    nodes = [
        _const("split", np.array([1, 3], np.int64)),
        helper.make_node("SplitToSequence", ["x", "split"], ["parts"], axis=0),
        helper.make_node("SequenceLength", ["parts"], ["count"]),
        _const("true", np.array(True)),
        helper.make_node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        helper.make_node("Loop", ["count", "true", "empty"], ["squares", "totals"], body=helper.make_graph(
            [helper.make_node("Identity", ["cond_in"], ["cond_out"]), *body], "body",
            [_info("i", INT64, []), _info("cond_in", BOOL, []), _sequence("squares_in", FLOAT, [None, 4])],
            [_info("cond_out", BOOL, []), _sequence("squares_out", FLOAT, [None, 4]), _info("total", FLOAT, [])])),
        helper.make_node("ConcatFromSequence", ["squares"], ["all_squares"], axis=0),
    ]
    outputs = [_info("all_squares", FLOAT, [4, 4]), _info("totals", FLOAT, [2])]
    return _model(nodes, [_info("x", FLOAT, [4, 4])], outputs), [rng.standard_normal((4, 4)).astype(np.float32)]


def if_sequence_output(cond: bool):
    """An If whose branches build sequences of two elements (of other shapes in each branch),
    concatenated after it."""
    then_g = helper.make_graph([helper.make_node("Relu", ["x"], ["r"]),
                                helper.make_node("SequenceConstruct", ["x", "r"], ["t"])],
                               "then", [], [_sequence("t", FLOAT, [3, 4])])
    else_g = helper.make_graph([helper.make_node("Neg", ["x"], ["n"]),
                                helper.make_node("SequenceConstruct", ["n", "x"], ["e"])],
                               "else", [], [_sequence("e", FLOAT, [3, 4])])
    nodes = [helper.make_node("If", ["c"], ["pair"], then_branch=then_g, else_branch=else_g),
             helper.make_node("ConcatFromSequence", ["pair"], ["y"], axis=1)]
    return _model(nodes, [_info("c", BOOL, []), _info("x", FLOAT, [3, 4])], [_info("y", FLOAT, [3, 8])]), \
        [np.array(cond), X34]


def insert_at_run_time_position(position: int):
    """SequenceInsert at a run-time position into elements of different lengths: on Linalg each
    result element is chosen by `torch.prim.If`s (its length depends on the position)."""
    nodes = [
        helper.make_node("SequenceConstruct", ["a", "b"], ["pair"]),
        helper.make_node("SequenceInsert", ["pair", "t", "p"], ["triple"]),
        *[node for k in range(3) for node in (
            _const(f"k{k}", np.int64(k)), helper.make_node("SequenceAt", ["triple", f"k{k}"], [f"y{k}"]))],
    ]
    inputs = [_info("a", FLOAT, [4]), _info("b", FLOAT, [2]), _info("t", FLOAT, [3]), _info("p", INT64, [])]
    arrays = [X34[0], X34[1, :2], X34[2, :3], np.array(position, np.int64)]
    return _model(nodes, inputs, [_info(f"y{k}", FLOAT, [None]) for k in range(3)]), arrays


def test_insert_at_a_run_time_position_into_different_shapes_on_linalg():
    for position in (0, 1, -1, 2):
        model, arrays = insert_at_run_time_position(position)
        module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
        assert_matches(runtime.run(module, arrays, input_dialect="linalg-on-tensors"), expected(model, arrays))
    assert_matches(compile_with_iree(module, "linalg-on-tensors")(*arrays), expected(model, arrays))
    with pytest.raises(Exception, match="a run-time 'position' needs the sequence's elements"):
        onnx_torch_mlir.compile(model, "tosa")


def if_optional_output(cond: bool):
    """An If whose then-branch holds an optional sequence and whose else-branch is empty: whether
    it holds a value is the run-time condition (its value is read only where it holds one, as
    onnxruntime raises on an empty optional)."""
    optional_type = helper.make_optional_type_proto(
        helper.make_sequence_type_proto(helper.make_tensor_type_proto(FLOAT, [3, 4])))
    then_g = helper.make_graph([helper.make_node("Sigmoid", ["x"], ["s"]),
                                helper.make_node("SequenceConstruct", ["s", "x"], ["pair"]),
                                helper.make_node("Optional", ["pair"], ["t"])],
                               "then", [], [helper.make_value_info("t", optional_type)])
    else_g = helper.make_graph([helper.make_node("Optional", [], ["e"], type=optional_type.optional_type.elem_type)],
                               "else", [], [helper.make_value_info("e", optional_type)])
    nodes = [helper.make_node("If", ["c"], ["maybe"], then_branch=then_g, else_branch=else_g),
             helper.make_node("OptionalHasElement", ["maybe"], ["has"])]
    outputs = [_info("has", BOOL, [])]
    if cond:
        nodes += [helper.make_node("OptionalGetElement", ["maybe"], ["pair_out"]),
                  helper.make_node("ConcatFromSequence", ["pair_out"], ["y"], axis=0)]
        outputs.append(_info("y", FLOAT, [6, 4]))
    return _model(nodes, [_info("c", BOOL, []), _info("x", FLOAT, [3, 4])], outputs, opset=18), [np.array(cond), X34]


CASES = {
    "Loop-appends-rows": loop_appends_rows,
    "Loop-appends-growing-slices": loop_appends_growing_slices,
    "Loop-reads-sequence-at-iteration": loop_reads_sequence_at_iteration,
    "If-sequence-true": lambda: if_sequence_output(True),
    "If-sequence-false": lambda: if_sequence_output(False),
    "If-optional-true": lambda: if_optional_output(True),
    "If-optional-false": lambda: if_optional_output(False),
}




@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_onnxruntime(name, backend):
    model, arrays = CASES[name]()
    module = onnx_torch_mlir.compile(model, backend)
    assert_matches(runtime.run(module, arrays, input_dialect=backend), expected(model, arrays))


@pytest.mark.parametrize("name", ["Loop-appends-rows", "Loop-appends-growing-slices", "If-sequence-false",
                                  "If-optional-true"])
def test_iree_matches_onnxruntime(name):
    model, arrays = CASES[name]()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert_matches(compile_with_iree(module, "linalg-on-tensors")(*arrays), expected(model, arrays))


def test_a_sequence_loop_with_a_run_time_trip_count_carries_a_stacked_tensor():
    """With the trip count a graph input the loop is not unrolled: its sequence, only appended to
    and only read by ConcatFromSequence, is carried as a stacked tensor (test_stacked_sequence_loops.py)."""
    model, arrays = loop_appends_rows()
    graph = model.graph
    trips = next(node for node in graph.node if node.output[0] == "trips")
    graph.node.remove(trips)
    graph.input.append(_info("trips", INT64, []))
    arrays = [*arrays, np.array(3, np.int64)]
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    assert_matches(runtime.run(module, arrays, input_dialect="linalg-on-tensors"), expected(model, arrays))
    with pytest.raises(Exception, match="carries a sequence .* needs a number of iterations known at conversion "
                                        "time, but the trip count .input 0. is only known at run time: .* "
                                        "torch-mlir lowers no list carried by a torch.prim.Loop"):
        graph.output.append(_sequence("states", FLOAT, [4]))
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def test_an_if_with_sequences_of_different_lengths_is_refused():
    then_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x"], ["t"])], "then", [],
                               [_sequence("t", FLOAT, [3, 4])])
    else_g = helper.make_graph([helper.make_node("SequenceConstruct", ["x", "x"], ["e"])], "else", [],
                               [_sequence("e", FLOAT, [3, 4])])
    nodes = [helper.make_node("If", ["c"], ["s"], then_branch=then_g, else_branch=else_g),
             helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=0)]
    model = _model(nodes, [_info("c", BOOL, []), _info("x", FLOAT, [3, 4])], [_info("y", FLOAT, [None, 4])])
    with pytest.raises(Exception, match="a sequence of 1 elements in one branch and 2 in the other"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")
