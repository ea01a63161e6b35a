"""Sequences and optionals compiled to each backend, run on the reference CPU runner (and on
IREE for a few), compared with onnxruntime.

Graph inputs and outputs are tensors; sequences and optionals live in between, built in the
graph (SplitToSequence, SequenceConstruct, SequenceEmpty, Optional), so every sequence has a
length known at compile time and no list reaches a backend. Linalg compiles the model with a
symbolic dim where the case has one; TOSA and StableHLO with every dim fixed.

Sequence- or optional-typed graph inputs and outputs are refused at compile time with a clear
error (the compiled functions take and return tensors; the runners have no list values):
`test_sequence_graph_*` check that error. `onnx_torch_mlir.sequence_io.specialize` makes such a
model's inputs and outputs tensors for given values (`test_specialize*`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.errors import OnnxTorchMlirError
from onnx_torch_mlir.runtime.iree import compile_with_iree
from onnx_torch_mlir.sequence_io import specialize

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
FLOAT, INT64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
ONNX_TYPES = {np.float32: FLOAT, np.int64: INT64}


@dataclass
class Case:
    nodes: list
    inputs: dict  # name -> (array, dims: ints and symbolic names)
    outputs: list  # (name, onnx element type)
    initializers: dict = field(default_factory=dict)
    opset: int = 18

    def model(self, static: bool) -> onnx.ModelProto:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape) if static else dims)
            for name, (array, dims) in self.inputs.items()
        ]
        outputs = [helper.make_tensor_value_info(name, element, None) for name, element in self.outputs]
        initializers = [numpy_helper.from_array(array, name) for name, array in self.initializers.items()]
        graph = helper.make_graph(self.nodes, "sequences", inputs, outputs, initializer=initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=8)

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def expected(self) -> list:
        session = onnxruntime.InferenceSession(
            self.model(static=True).SerializeToString(), providers=["CPUExecutionProvider"]
        )
        return session.run(None, {name: array for name, (array, _) in self.inputs.items()})


def _normal(seed: int, *shape):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def _node(op_type, inputs, outputs, **attributes):
    return helper.make_node(op_type, inputs, outputs, name=f"{op_type}_{outputs[0]}", **attributes)


def _int64(value):
    return np.array(value, dtype=np.int64)


def _split_insert_concat():
    """SplitToSequence (every row), SequenceAt, SequenceInsert (appended), ConcatFromSequence, SequenceLength."""
    nodes = [
        _node("SplitToSequence", ["x"], ["rows"], axis=0),
        _node("SequenceAt", ["rows", "one"], ["row1"]),
        _node("SequenceInsert", ["rows", "row1"], ["more"]),
        _node("ConcatFromSequence", ["more"], ["y"], axis=0),
        _node("SequenceLength", ["more"], ["n"]),
    ]
    return Case(nodes, {"x": (_normal(1, 3, 4), [3, "width"])}, [("y", FLOAT), ("n", INT64)],
                initializers={"one": _int64(1)})


def _split_sizes_insert_front():
    """SplitToSequence by sizes, SequenceInsert at a negative position, ConcatFromSequence along axis 1."""
    nodes = [
        _node("SplitToSequence", ["x", "sizes"], ["parts"], axis=1),
        _node("SequenceInsert", ["parts", "x", "minus_one"], ["inserted"]),
        _node("ConcatFromSequence", ["inserted"], ["y"], axis=1),
    ]
    return Case(nodes, {"x": (_normal(2, 2, 5), ["batch", 5])}, [("y", FLOAT)],
                initializers={"sizes": _int64([2, 3]), "minus_one": _int64(-1)})


def _split_chunks_stack():
    """SplitToSequence by a scalar chunk size (the last chunk smaller), SequenceErase, then stacking."""
    nodes = [
        _node("SplitToSequence", ["x", "chunk"], ["chunks"], axis=0),
        _node("SequenceErase", ["chunks"], ["even"]),
        _node("ConcatFromSequence", ["even"], ["y"], axis=-1, new_axis=1),
    ]
    return Case(nodes, {"x": (_normal(3, 7, 3), [7, 3])}, [("y", FLOAT)], initializers={"chunk": _int64(3)})


def _split_no_keepdims_erase_stack():
    """SplitToSequence with keepdims=0, SequenceErase at position 0, stacking at axis 0."""
    nodes = [
        _node("SplitToSequence", ["x"], ["columns"], axis=1, keepdims=0),
        _node("SequenceErase", ["columns", "zero"], ["rest"]),
        _node("ConcatFromSequence", ["rest"], ["y"], axis=0, new_axis=1),
    ]
    return Case(nodes, {"x": (_normal(4, 3, 4), ["rows", 4])}, [("y", FLOAT)], initializers={"zero": _int64(0)})


def _construct_different_shapes():
    """SequenceConstruct of tensors of different shapes; SequenceAt(-1); ConcatFromSequence."""
    nodes = [
        _node("SequenceConstruct", ["a", "b", "a"], ["abc"]),
        _node("SequenceAt", ["abc", "minus_two"], ["second"]),
        _node("ConcatFromSequence", ["abc"], ["y"], axis=0),
    ]
    inputs = {"a": (_normal(5, 2, 3), [2, 3]), "b": (_normal(6, 4, 3), [4, 3])}
    return Case(nodes, inputs, [("second", FLOAT), ("y", FLOAT)], initializers={"minus_two": _int64(-2)})


def _empty_then_insert():
    """SequenceEmpty, two SequenceInserts (the second at the front), Identity of the sequence, concat."""
    nodes = [
        _node("SequenceEmpty", [], ["empty"], dtype=FLOAT),
        _node("SequenceInsert", ["empty", "x"], ["one"]),
        _node("Neg", ["x"], ["negated"]),
        _node("SequenceInsert", ["one", "negated", "zero"], ["two"]),
        _node("Identity", ["two"], ["same"]),
        _node("ConcatFromSequence", ["same"], ["y"], axis=0),
        _node("SequenceLength", ["same"], ["n"]),
    ]
    return Case(nodes, {"x": (_normal(7, 2, 2), [2, 2])}, [("y", FLOAT), ("n", INT64)],
                initializers={"zero": _int64(0)})


def _at_run_time_position():
    """SequenceAt with a position known only at run time (negative: from the back)."""
    nodes = [
        _node("SplitToSequence", ["x"], ["rows"], axis=0),
        _node("SequenceAt", ["rows", "position"], ["y"]),
    ]
    inputs = {"x": (_normal(8, 4, 3), [4, 3]), "position": (_int64(-3), [])}
    return Case(nodes, inputs, [("y", FLOAT)])


def _insert_erase_at_run_time(insert_at: int, erase_at: int):
    """SequenceInsert and SequenceErase at positions known only at run time (elements of one type)."""
    def build():
        nodes = [
            _node("SplitToSequence", ["x"], ["rows"], axis=0),
            _node("SequenceInsert", ["rows", "row", "insert_at"], ["inserted"]),
            _node("SequenceErase", ["inserted", "erase_at"], ["erased"]),
            _node("ConcatFromSequence", ["erased"], ["y"], axis=0),
        ]
        inputs = {"x": (_normal(16, 3, 2), [3, 2]), "row": (_normal(17, 1, 2), [1, 2]),
                  "insert_at": (_int64(insert_at), []), "erase_at": (_int64(erase_at), [])}
        return Case(nodes, inputs, [("y", FLOAT)])

    return build


def _sequence_map():
    """SequenceMap over a sequence and a tensor, two outputs; the body is unrolled per element."""
    body = helper.make_graph(
        [_node("Mul", ["element", "scale"], ["scaled"]), _node("ReduceSum", ["element"], ["total"], keepdims=1)],
        "body",
        [helper.make_tensor_value_info("element", FLOAT, None), helper.make_tensor_value_info("scale", FLOAT, None)],
        [helper.make_tensor_value_info("scaled", FLOAT, None), helper.make_tensor_value_info("total", FLOAT, None)],
    )
    nodes = [
        _node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
        _node("SequenceMap", ["rows", "scale"], ["scaled_rows", "totals"], body=body),
        _node("ConcatFromSequence", ["scaled_rows"], ["y"], axis=0, new_axis=1),
        _node("ConcatFromSequence", ["totals"], ["sums"], axis=0),
    ]
    inputs = {"x": (_normal(9, 3, 4), [3, "width"]), "scale": (_normal(10, 4), ["width"])}
    return Case(nodes, inputs, [("y", FLOAT), ("sums", FLOAT)])


def _optionals():
    """Optional of a tensor and of a sequence, an empty Optional, OptionalHasElement, OptionalGetElement."""
    nodes = [
        _node("Optional", ["x"], ["maybe_x"]),
        _node("OptionalHasElement", ["maybe_x"], ["has_x"]),
        _node("OptionalGetElement", ["maybe_x"], ["got_x"]),
        _node("Add", ["got_x", "x"], ["doubled"]),
        _node("Optional", [], ["nothing"], type=helper.make_tensor_type_proto(FLOAT, [2])),
        _node("OptionalHasElement", ["nothing"], ["has_nothing"]),
        _node("SplitToSequence", ["x"], ["rows"], axis=0),
        _node("Optional", ["rows"], ["maybe_rows"]),
        _node("OptionalGetElement", ["maybe_rows"], ["got_rows"]),
        _node("ConcatFromSequence", ["got_rows"], ["y"], axis=1),
    ]
    outputs = [("has_x", BOOL), ("doubled", FLOAT), ("has_nothing", BOOL), ("y", FLOAT)]
    return Case(nodes, {"x": (_normal(11, 2, 3), [2, "width"])}, outputs)


CASES = {
    "split-insert-concat": _split_insert_concat,
    "split-sizes-insert-front": _split_sizes_insert_front,
    "split-chunks-stack": _split_chunks_stack,
    "split-no-keepdims-erase-stack": _split_no_keepdims_erase_stack,
    "construct-different-shapes": _construct_different_shapes,
    "empty-then-insert": _empty_then_insert,
    "at-run-time-position": _at_run_time_position,
    "insert-erase-at-run-time": _insert_erase_at_run_time(-1, 0),
    "insert-at-end-erase-last-at-run-time": _insert_erase_at_run_time(3, -1),
    "insert-first-erase-at-run-time": _insert_erase_at_run_time(0, 2),
    "sequence-map": _sequence_map,
    "optionals": _optionals,
}


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, got.dtype, want.shape, want.dtype)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", list(CASES))
def test_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    _assert_matches(runtime.run(module, case.arrays(), input_dialect=backend), case.expected())


@pytest.mark.parametrize("name, backend", [("split-insert-concat", "linalg-on-tensors"), ("sequence-map", "tosa"),
                                           ("optionals", "stablehlo"), ("at-run-time-position", "stablehlo"),
                                           ("insert-erase-at-run-time", "tosa")])
def test_iree_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    _assert_matches(compile_with_iree(module, backend)(*case.arrays()), case.expected())


def _sequence_identity_model():
    sequence = helper.make_tensor_sequence_value_info
    graph = helper.make_graph([_node("Identity", ["s"], ["t"])], "g", [sequence("s", FLOAT, [2])],
                              [sequence("t", FLOAT, [2])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def test_sequence_graph_input_and_output_are_refused_clearly():
    with pytest.raises(OnnxTorchMlirError) as error:
        onnx_torch_mlir.compile(_sequence_identity_model(), "linalg-on-tensors")
    message = str(error.value)
    assert "graph input 0 is a sequence" in message and "graph output 0 is a sequence" in message


def test_sequence_graph_input_is_kept_in_torch_output():
    """With Torch output there is no backend: the list-typed signature stays."""
    module = onnx_torch_mlir.compile(_sequence_identity_model(), "torch")
    assert "!torch.list<vtensor<[2],f32>>" in str(module)


def test_run_time_split_is_refused_naming_the_node():
    nodes = [_node("SplitToSequence", ["x", "split"], ["parts"], axis=0),
             _node("ConcatFromSequence", ["parts"], ["y"], axis=0)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", FLOAT, [4]),
                                           helper.make_tensor_value_info("split", INT64, [])],
                              [helper.make_tensor_value_info("y", FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    with pytest.raises(OnnxTorchMlirError, match=r"node 'SplitToSequence_parts' \(SplitToSequence.*'split' must be "
                                                r"a constant, or a 1-D tensor of static length"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def _split_sizes_at_run_time_model():
    nodes = [_node("SplitToSequence", ["x", "split"], ["parts"], axis=1),
             _node("SequenceAt", ["parts", "one"], ["second"]),
             _node("ConcatFromSequence", ["parts"], ["y"], axis=1)]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", FLOAT, [2, 5]),
                                           helper.make_tensor_value_info("split", INT64, [2])],
                              [helper.make_tensor_value_info("second", FLOAT, None),
                               helper.make_tensor_value_info("y", FLOAT, None)],
                              initializer=[numpy_helper.from_array(_int64(1), "one")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def test_split_sizes_at_run_time_on_linalg():
    """A 1-D run-time `split` of static length: two elements whose sizes are read at run time
    (one compiled module, two different splits)."""
    model = _split_sizes_at_run_time_model()
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = _normal(18, 2, 5)
    for split in (_int64([3, 2]), _int64([1, 4])):
        _assert_matches(runtime.run(module, [x, split]), session.run(None, {"x": x, "split": split}))


@pytest.mark.parametrize("backend", ["tosa"])  # StableHLO takes it: test_stablehlo_run_time_sizes_numerics.py
def test_split_sizes_at_run_time_are_refused_where_item_has_no_lowering(backend):
    with pytest.raises(OnnxTorchMlirError, match=f"a run-time 'split' is read with aten.item, which {backend} cannot lower"):
        onnx_torch_mlir.compile(_split_sizes_at_run_time_model(), backend)


# -- sequence- and optional-typed graph inputs and outputs, specialized to tensors (sequence_io) -------
def _sequence_io_model():
    sequence = helper.make_tensor_sequence_value_info
    zero = helper.make_tensor("zero", INT64, [], [0])
    nodes = [_node("SequenceInsert", ["s", "t", "zero"], ["inserted"]),
             _node("ConcatFromSequence", ["inserted"], ["joined"], axis=0)]
    graph = helper.make_graph(nodes, "g", [sequence("s", FLOAT, ["n"]), helper.make_tensor_value_info("t", FLOAT, [3])],
                              [sequence("inserted", FLOAT, None), helper.make_tensor_value_info("joined", FLOAT, None)],
                              initializer=[zero])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


@pytest.mark.parametrize("backend", BACKENDS)
def test_specialized_sequence_io_matches_onnxruntime(backend):
    """A sequence input of two elements becomes two tensor inputs, a sequence output its length and elements."""
    model = _sequence_io_model()
    inputs = [[_normal(12, 3), _normal(13, 2)], _normal(14, 3)]
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"s": inputs[0], "t": inputs[1]})
    specialization = specialize(model, inputs, expected)
    assert [value.name for value in specialization.model.graph.input] == ["s.0", "s.1", "t"]
    module = onnx_torch_mlir.compile(specialization.model, backend)
    outputs = runtime.run(module, specialization.inputs(inputs), input_dialect=backend)
    _assert_matches(outputs, specialization.expected(expected))
    assert int(outputs[0]) == 3


def _optional_io_model():
    optional = helper.make_tensor_type_proto(FLOAT, [2])
    graph = helper.make_graph(
        [_node("OptionalHasElement", ["o"], ["has"]), _node("Identity", ["o"], ["same"])], "g",
        [helper.make_value_info("o", helper.make_optional_type_proto(optional))],
        [helper.make_tensor_value_info("has", BOOL, []),
         helper.make_value_info("same", helper.make_optional_type_proto(optional))])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


@pytest.mark.parametrize("present", [True, False])
def test_specialized_optional_io(present):
    """An optional input present (one tensor input) or absent (none); an optional output's presence and value.
    The expected values are written out (whether it holds a value, and the value itself): neither
    onnxruntime's Python API nor ONNX's reference evaluator takes an empty optional."""
    model = _optional_io_model()
    inputs = [_normal(15, 2) if present else None]
    expected = [np.array(present), inputs[0]]
    specialization = specialize(model, inputs, expected)
    module = onnx_torch_mlir.compile(specialization.model, "linalg-on-tensors")
    outputs = runtime.run(module, specialization.inputs(inputs))
    _assert_matches(outputs, specialization.expected(expected))
    assert len(outputs) == (3 if present else 2)  # has, same's presence (and value)


def test_specialize_refuses_a_non_list_for_a_sequence_input():
    with pytest.raises(ValueError, match="graph input 's' is a sequence: give a list of arrays"):
        specialize(_sequence_io_model(), [_normal(1, 3), _normal(2, 3)], [[], _normal(3, 3)])
