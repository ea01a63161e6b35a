"""Importer forms that other people's tools write, each in its smallest model built with onnx.helper.

- **An If decided by a rank** (`if x.dim() == 2:` exported as `Equal(Size(Shape(x)), 2)`,
  `Equal(Shape(Shape(x)), [2])`, or onnxscript's `Equal(Size(Shape(x)), CastLike(2.0, rank))`,
  whose constant's dtype comes from the rank's type): the rank is known when the sizes are not, so
  the If is replaced by its taken branch (`importer/static_if`), whose rank may differ.
- **An If whose branches yield one rank with different sizes** gets their common type, `?` where
  they differ (`importer/if_types`), also over a declaration of one branch's sizes (an exporter's
  value_info or a branch output declared with the example's sizes).
- **A declared dim of -1** (paddle2onnx writes `dim_value: -1` for a dynamic dim), or one named "?"
  (paddle2onnx's name for any other dynamic dim), is a dynamic dim without a name: `--input-shape` fixes it, `--dim` fixes the named dims next to it, and the rest
  stays dynamic (`importer/fixed_dims.without_negative_dims`).
- **A declared shape that contradicts the graph** (an old torch export declares `[1, seqlen]` for an
  output the graph computes with rank 3, once an If its shape values decide is resolved): the
  inferred type wins with a one-line warning, as onnxruntime returns what the graph computes
  (`importer/validation.release_contradicted_declarations`); another element type is refused.
- **Slice with a negative step on a dynamic dim** is a flip and a forward slice whose bounds come
  from the run-time size, clamped as ONNX clamps them (INT_MIN and INT_MAX ends included).

Numerics are compared with onnxruntime on each backend (TOSA with the dims fixed), on the reference
runner and on IREE (`consumers.program`).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnx_torch_mlir.errors import OnnxTorchMlirWarning

BACKENDS = ("linalg-on-tensors", "stablehlo", "tosa")
CONSUMERS = ("reference", "iree")


def _expected(model: onnx.ModelProto, feeds: dict) -> list:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _check(model: onnx.ModelProto, backend: str, consumer: str, feeds: dict, rtol=1e-5, atol=1e-5, **options):
    module = onnx_torch_mlir.compile(model, backend, **options)
    outputs = program(module, backend, consumer)(*feeds.values())
    expected = _expected(model, feeds)
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        np.testing.assert_allclose(np.asarray(got), want, rtol=rtol, atol=atol)


# -- declared dims of -1 ---------------------------------------------------------------------
def _paddle_model() -> onnx.ModelProto:
    """x [batch, 3, -1, -1] scaled per channel, Relu, mean over the image: paddle2onnx's -1 dims in
    the input, a value_info and the output."""
    scale = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32).reshape(1, 3, 1, 1), "scale")
    nodes = [
        helper.make_node("Mul", ["x", "scale"], ["scaled"]),
        helper.make_node("Relu", ["scaled"], ["relu"]),
        helper.make_node("ReduceMean", ["relu"], ["y"], axes=[2, 3], keepdims=1),
    ]
    graph = helper.make_graph(
        nodes, "paddle",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, -1, -1])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3, 1, 1])],
        [scale],
        value_info=[helper.make_tensor_value_info("relu", TensorProto.FLOAT, [-1, 3, -1, -1])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _paddle_feeds(shape=(2, 3, 48, 192)) -> dict:
    return {"x": np.random.default_rng(0).standard_normal(shape).astype(np.float32)}


def test_a_declared_minus_one_is_a_dynamic_dim():
    text = str(onnx_torch_mlir.compile(_paddle_model(), "torch"))
    assert "!torch.vtensor<[?,3,?,?],f32>" in text and "-1," not in text
    fixed = str(onnx_torch_mlir.compile(_paddle_model(), "torch", input_shapes={"x": (2, 3, 48, 192)}))
    assert "!torch.vtensor<[2,3,48,192],f32>" in fixed and "?" not in fixed
    named = str(onnx_torch_mlir.compile(_paddle_model(), "torch", dims={"batch": 2}))
    assert "!torch.vtensor<[2,3,?,?],f32>" in named
    assert _paddle_model().graph.input[0].type.tensor_type.shape.dim[2].dim_value == -1  # the caller's model


def test_input_shape_refuses_a_size_against_a_static_dim_next_to_minus_ones():
    with pytest.raises(onnx_torch_mlir.OnnxTorchMlirError, match=r"dim 1 is declared 3 \(declared shape \[batch, 3, \?, \?\]\)"):
        onnx_torch_mlir.compile(_paddle_model(), "torch", input_shapes={"x": (2, 4, 48, 192)})


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_minus_one_dims_fixed_by_input_shape_match_onnxruntime(backend, consumer):
    _check(_paddle_model(), backend, consumer, _paddle_feeds(), input_shapes={"x": (2, 3, 48, 192)})


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", ("linalg-on-tensors", "stablehlo"))
def test_minus_one_dims_left_dynamic_match_onnxruntime(backend, consumer):
    _check(_paddle_model(), backend, consumer, _paddle_feeds((2, 3, 5, 7)))


def test_minus_one_dims_in_subgraph_declarations_are_dynamic():
    """paddle2onnx writes -1 in an If's branch outputs too."""
    branches = [
        helper.make_graph([helper.make_node(op, ["x"], [name])], name, [],
                          [helper.make_tensor_value_info(name, TensorProto.FLOAT, [-1, 3])])
        for op, name in (("Neg", "negated"), ("Relu", "rectified"))
    ]
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["y"], then_branch=branches[0], else_branch=branches[1])], "paddle_if",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [-1, 3])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    module = onnx_torch_mlir.compile(model, "linalg-on-tensors", input_shapes={"x": (2, 3)})
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 3
    run = program(module, "linalg-on-tensors", "reference")
    for flag in (True, False):
        np.testing.assert_array_equal(np.asarray(run(x, np.array(flag))[0]), -x if flag else np.maximum(x, 0))


def _question_mark_dims_model() -> onnx.ModelProto:
    """paddle2onnx's `[-1, 3, "?", "?"]`: is the image square? (two dims named "?" are not one size)"""
    index = lambda name, value: numpy_helper.from_array(np.array(value, np.int64), name)  # noqa: E731
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "two"], ["height"]), helper.make_node("Gather", ["shape", "three"], ["width"]),
        helper.make_node("Equal", ["height", "width"], ["square"]),
        helper.make_node("Cast", ["square"], ["y"], to=TensorProto.FLOAT),
    ]
    graph = helper.make_graph(
        nodes, "paddle_square", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [-1, 3, "?", "?"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])], [index("two", 2), index("three", 3)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("backend", ("linalg-on-tensors", "stablehlo"))
def test_dims_named_question_mark_are_not_one_size(backend):
    model = _question_mark_dims_model()
    run = program(onnx_torch_mlir.compile(model, backend), backend, "reference")
    for height, width in ((48, 192), (8, 8)):
        feeds = {"x": np.zeros((2, 3, height, width), np.float32)}
        np.testing.assert_array_equal(np.asarray(run(feeds["x"])[0]), _expected(model, feeds)[0])


def test_given_inputs_fit_minus_one_and_question_mark_dims(tmp_path):
    from argparse import Namespace

    from onnx_torch_mlir.tools.model_inputs import model_inputs

    np.save(tmp_path / "x.npy", np.zeros((2, 3, 48, 192), np.float32))
    args = Namespace(input=[f"x={tmp_path / 'x.npy'}"], dim=[], input_shape=[], seed=0)
    assert model_inputs(_question_mark_dims_model(), args)[0].shape == (2, 3, 48, 192)


def test_made_up_inputs_give_a_minus_one_dim_size_one():
    from argparse import Namespace

    from onnx_torch_mlir.tools.model_inputs import model_inputs

    args = Namespace(input=[], dim=["batch=2"], input_shape=[], seed=0)
    assert model_inputs(_paddle_model(), args)[0].shape == (2, 3, 1, 1)
    args.input_shape = ["x=?x3x4x5"]
    assert model_inputs(_paddle_model(), args)[0].shape == (2, 3, 4, 5)


# -- Slice with a negative step on a dynamic dim ------------------------------------------------
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
NEGATIVE_STEP_SLICES = [  # starts, ends, axes, steps: one output each
    ([-1], [INT64_MIN], [1], [-1]),  # the whole dim reversed (x[:, ::-1])
    ([INT64_MAX], [INT64_MIN], [1], [-2]),  # INT_MAX start clamped to n - 1
    ([2], [0], [1], [-1]),
    ([-10], [-100], [1], [-1]),  # both below the range: one element, position 0
    ([100], [-100], [1], [-3]),
    ([5, -1], [INT64_MIN, 0], [0, 1], [-2, -1]),  # two axes, a start past the end of axis 0
    ([1], [5], [1], [-1]),  # empty: end above start
]


def _negative_step_model() -> onnx.ModelProto:
    nodes, initializers, outputs = [], [], []
    for index, bounds in enumerate(NEGATIVE_STEP_SLICES):
        names = [f"{part}{index}" for part in ("starts", "ends", "axes", "steps")]
        initializers += [numpy_helper.from_array(np.array(values, np.int64), name) for name, values in zip(names, bounds)]
        nodes.append(helper.make_node("Slice", ["x", *names], [f"y{index}"]))
        outputs.append(helper.make_tensor_value_info(f"y{index}", TensorProto.FLOAT, None))
    graph = helper.make_graph(
        nodes, "negative_steps", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "t"])], outputs, initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _negative_step_feeds() -> dict:
    return {"x": np.arange(4 * 7, dtype=np.float32).reshape(4, 7)}


def test_a_negative_step_on_a_dynamic_dim_is_a_flip_and_a_slice():
    text = str(onnx_torch_mlir.compile(_negative_step_model(), "torch"))
    assert "torch.aten.flip" in text and "!torch.vtensor<[?,?],f32>" in text


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_negative_steps_match_onnxruntime(backend, consumer):
    dims = {"n": 4, "t": 7} if backend == "tosa" else None
    _check(_negative_step_model(), backend, consumer, _negative_step_feeds(), rtol=0, atol=0, dims=dims)


def test_negative_steps_at_other_sizes_on_one_module():
    module = onnx_torch_mlir.compile(_negative_step_model(), "linalg-on-tensors")
    run = program(module, "linalg-on-tensors", "reference")
    for shape in ((1, 1), (6, 3), (2, 12)):
        feeds = {"x": np.arange(np.prod(shape), dtype=np.float32).reshape(shape)}
        for got, want in zip(run(feeds["x"]), _expected(_negative_step_model(), feeds)):
            np.testing.assert_array_equal(np.asarray(got), want)


# -- declared shapes the graph contradicts ------------------------------------------------------
def _constant(name: str, values) -> onnx.NodeProto:
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.array(values, np.int64), name))


def _old_export_model(declare="output", element_type=TensorProto.FLOAT) -> onnx.ModelProto:
    """`if x.dim() == 2: x = x.unsqueeze(-1)` then `x * x`: the If is decided by x's rank (2), so
    the result has rank 3, but `y` (or the intermediate `w`) is declared `[1, seqlen]`."""
    then_branch = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x", "minus_one"], ["unsqueezed"])], "then", [],
        [helper.make_tensor_value_info("unsqueezed", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["same"])], "else", [], [helper.make_tensor_value_info("same", TensorProto.FLOAT, None)],
    )
    nodes = [
        _constant("minus_one", [-1]), _constant("two", 2),
        helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Size", ["shape"], ["rank"]),
        helper.make_node("Equal", ["rank", "two"], ["is_matrix"]),
        helper.make_node("If", ["is_matrix"], ["v"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Mul", ["v", "v"], ["w"], name="square"),
        helper.make_node("Relu", ["w"], ["y"], name="relu"),
    ]
    wrong = helper.make_tensor_value_info("w" if declare == "value_info" else "y", element_type, [1, "seqlen"])
    output = wrong if declare == "output" else helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    graph = helper.make_graph(
        nodes, "old_export", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "seqlen"])], [output],
        value_info=[wrong] if declare == "value_info" else [],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _old_export_feeds() -> dict:
    return {"x": np.random.default_rng(1).standard_normal((1, 5)).astype(np.float32)}


@pytest.mark.parametrize("declare, node, value", [("output", "relu", "y"), ("value_info", "square", "w")])
def test_the_inferred_type_wins_over_a_contradicting_declaration(declare, node, value):
    with pytest.warns(OnnxTorchMlirWarning) as caught:
        text = str(onnx_torch_mlir.compile(_old_export_model(declare), "torch"))
    messages = [str(warning.message) for warning in caught if issubclass(warning.category, OnnxTorchMlirWarning)]
    assert messages == [
        f"<model>: node '{node}' ({'Relu' if value == 'y' else 'Mul'}): value '{value}' is declared float[1,seqlen] "
        "but ONNX type inference gives float[1,seqlen,1]; the declaration is ignored"
    ]
    assert "-> !torch.vtensor<[1,?,1],f32>" in text.splitlines()[1]  # the function's result


def test_a_contradicting_element_type_is_still_refused():
    with pytest.raises(onnx_torch_mlir.OnnxTorchMlirError, match=r"value 'y' is declared int64\[1,seqlen\] but ONNX type"):
        onnx_torch_mlir.compile(_old_export_model("output", TensorProto.INT64), "torch")


@pytest.mark.filterwarnings("ignore::onnx_torch_mlir.errors.OnnxTorchMlirWarning")
@pytest.mark.parametrize("declare", ("output", "value_info"))
@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_contradicted_declarations_match_onnxruntime(backend, consumer, declare):
    dims = {"seqlen": 5} if backend == "tosa" else None
    _check(_old_export_model(declare), backend, consumer, _old_export_feeds(), dims=dims)


def _reshape_to_run_time_sizes_model() -> onnx.ModelProto:
    """ddddocr's CRNN head: `x.view(n, 1, -1)` with `n` a size ONNX's data propagation does not
    follow (a Max here), the result declared `[1, seqlen]`. ONNX's inference gives the Reshape no
    rank; the shape tensor's length (3) does."""
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]), _constant("zero", 0), _constant("one", 1),
        helper.make_node("Gather", ["shape", "zero"], ["rows"], axis=0),
        helper.make_node("Max", ["rows", "one"], ["n"]), _constant("axes", [0]),
        helper.make_node("Unsqueeze", ["n", "axes"], ["n_list"]), _constant("rest", [1, -1]),
        helper.make_node("Concat", ["n_list", "rest"], ["sizes"], axis=0),
        helper.make_node("Reshape", ["x", "sizes"], ["y"], name="view"),
    ]
    graph = helper.make_graph(nodes, "crnn_head", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["t", 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, "seqlen"])])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_a_reshape_to_run_time_sizes_keeps_the_rank_of_its_sizes():
    with pytest.warns(OnnxTorchMlirWarning, match=r"value 'y' is declared float\[1,seqlen\] .*float\[\?,1,\?\]"):
        text = str(onnx_torch_mlir.compile(_reshape_to_run_time_sizes_model(), "torch"))
    assert "-> !torch.vtensor<[?,1,?],f32>" in text.splitlines()[1]


@pytest.mark.filterwarnings("ignore::onnx_torch_mlir.errors.OnnxTorchMlirWarning")
@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_a_reshape_to_run_time_sizes_matches_onnxruntime(backend, consumer):
    _check(_reshape_to_run_time_sizes_model(), backend, consumer,
           {"x": np.random.default_rng(2).standard_normal((5, 8)).astype(np.float32)})


# -- If decided by a rank; If whose branches differ in sizes ------------------------------------
def _rank_if_model(form: str, dims) -> onnx.ModelProto:
    """`if x.dim() == 2: y = -x.unsqueeze(0) else: y = x`, then `y * 2`: the branches differ in rank."""
    then_branch = helper.make_graph(
        [helper.make_node("Unsqueeze", ["x", "zero"], ["unsqueezed"]), helper.make_node("Neg", ["unsqueezed"], ["negated"])],
        "then", [], [helper.make_tensor_value_info("negated", TensorProto.FLOAT, None)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["same"])], "else", [], [helper.make_tensor_value_info("same", TensorProto.FLOAT, None)],
    )
    if form == "size":  # Size(Shape(x)) == 2
        rank = [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Size", ["shape"], ["rank"]), _constant("two", 2)]
    elif form == "castlike":  # onnxscript: Equal(Size(Shape(x)), CastLike(2.0, ...)), the dtype from the rank's type
        two = helper.make_node("Constant", [], ["two_float"], value=numpy_helper.from_array(np.array(2.0, np.float32), "two_float"))
        rank = [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Size", ["shape"], ["rank"]), two,
                helper.make_node("CastLike", ["two_float", "rank"], ["two"])]
    else:  # Shape(Shape(x)) == [2]
        rank = [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Shape", ["shape"], ["rank"]), _constant("two", [2])]
    nodes = [
        _constant("zero", [0]), *rank,
        helper.make_node("Equal", ["rank", "two"], ["is_matrix"]),
        helper.make_node("If", ["is_matrix"], ["v"], then_branch=then_branch, else_branch=else_branch),
        helper.make_node("Add", ["v", "v"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "rank_if", [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 15)], ir_version=8)


@pytest.mark.parametrize("form", ("size", "shape_of_shape", "castlike"))
@pytest.mark.parametrize("dims", (["a", "b"], [None, None]), ids=("named", "unnamed"))
def test_an_if_decided_by_a_rank_is_its_taken_branch(form, dims):
    text = str(onnx_torch_mlir.compile(_rank_if_model(form, dims), "torch"))
    assert "torch.prim.If" not in text and "torch.aten.neg" in text
    assert "-> !torch.vtensor<[1,?,?],f32>" in text.splitlines()[1]


@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_if_decided_by_a_rank_matches_onnxruntime(backend, consumer):
    feeds = {"x": np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)}
    dims = {"a": 3, "b": 5} if backend == "tosa" else None
    _check(_rank_if_model("castlike", ["a", "b"]), backend, consumer, feeds, dims=dims)


def _branch_sizes_model(declare: str) -> onnx.ModelProto:
    """`y = relu(x[:, :2] if flag else x[:, :3])`; `declare`: none, the If's value_info as the
    example's [2, 2], or the else branch's output declared [2, 2] as well."""
    ints = lambda name, values: numpy_helper.from_array(np.array(values, np.int64), name)  # noqa: E731
    branch_type = [2, 2] if declare == "branches" else None
    then_branch = helper.make_graph(
        [helper.make_node("Slice", ["x", "zero", "two", "one"], ["narrow"])], "then", [],
        [helper.make_tensor_value_info("narrow", TensorProto.FLOAT, branch_type)],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Slice", ["x", "zero", "three", "one"], ["wide"])], "else", [],
        [helper.make_tensor_value_info("wide", TensorProto.FLOAT, branch_type)],
    )
    graph = helper.make_graph(
        [helper.make_node("If", ["flag"], ["z"], then_branch=then_branch, else_branch=else_branch, name="pick"),
         helper.make_node("Relu", ["z"], ["y"])],
        "branch_sizes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4]), helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [ints("zero", [0]), ints("one", [1]), ints("two", [2]), ints("three", [3])],
        value_info=[helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 2])] if declare == "value_info" else [],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.filterwarnings("ignore::onnx_torch_mlir.errors.OnnxTorchMlirWarning")
@pytest.mark.parametrize("declare", ("none", "value_info", "branches"))
def test_branches_of_different_sizes_give_the_common_type(declare):
    text = str(onnx_torch_mlir.compile(_branch_sizes_model(declare), "torch"))
    assert "-> !torch.vtensor<[2,?],f32>" in text.splitlines()[1]


def test_a_declared_if_output_of_one_branch_size_is_ignored_with_a_warning():
    with pytest.warns(OnnxTorchMlirWarning, match=(
        r"node 'pick' \(If\): value 'z' is declared float\[2,2\] but its branches yield float\[2,2\] and "
        r"float\[2,3\]; the declaration is ignored")):
        onnx_torch_mlir.compile(_branch_sizes_model("value_info"), "torch")


@pytest.mark.filterwarnings("ignore::onnx_torch_mlir.errors.OnnxTorchMlirWarning")
@pytest.mark.parametrize("declare", ("value_info", "branches"))
@pytest.mark.parametrize("consumer", CONSUMERS)
@pytest.mark.parametrize("backend", BACKENDS)
def test_branches_of_different_sizes_match_onnxruntime(backend, consumer, declare):
    model = _branch_sizes_model(declare)
    x = np.random.default_rng(3).standard_normal((2, 4)).astype(np.float32)
    run = program(onnx_torch_mlir.compile(model, backend), backend, consumer)
    for flag in (True, False):
        feeds = {"x": x, "flag": np.array(flag)}
        (got,), (want,) = run(*feeds.values()), _expected(model, feeds)
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, atol=1e-6)
