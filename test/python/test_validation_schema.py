"""Nodes checked against their ONNX schemas before any pattern sees them (issue 12, "never crash,
never lie"): each form below reached a pattern (or ONNX's C++ inference) and failed there with a
Python exception reported as an internal error, or a crash; the fuzzer found them
(docs/robustness.md). Each is now a one-line error naming the file, the node, its op type and the
offending input or attribute.

Classes: node structure (input/output counts, empty required inputs, required, unknown and
wrongly-kinded attributes, subgraph bodies' input/output counts; importer/node_structure.py),
input ranks the spec requires where ONNX's inference is silent (importer/input_ranks.py), and what
ONNX's own per-node inference refuses (importer/validation.py).
"""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.errors import ImportError_
from onnx_torch_mlir.importer.input_ranks import RANK_RULES
from onnx_torch_mlir.tools.main import main

F, I64 = TensorProto.FLOAT, TensorProto.INT64


def value(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


def model_of(nodes, inputs, outputs, initializers=(), opset=19, extra_opsets=()):
    graph = helper.make_graph(nodes, "g", inputs, outputs, initializer=list(initializers))
    opsets = [helper.make_opsetid("", opset), *extra_opsets]
    return helper.make_model(graph, opset_imports=opsets)


def refusal(model) -> str:
    with pytest.raises(ImportError_) as raised:
        import_onnx(model)
    message = str(raised.value)
    assert "\n" not in message and "internal error" not in message
    return message


# -- structure ------------------------------------------------------------------------------


def test_empty_required_input_is_named():
    """seed 1 mutation 486: a Div whose B was made empty (an AttributeError in the pattern)."""
    node = helper.make_node("Div", ["x", ""], ["y"], name="div0")
    message = refusal(model_of([node], [value("x", F, [3])], [value("y", F, [3])]))
    assert "node 'div0' (Div): input 1 (B) is required by Div-14 but its name is empty" in message


def test_input_count_out_of_range():
    node = helper.make_node("Relu", ["x", "x"], ["y"], name="r")
    message = refusal(model_of([node], [value("x", F, [3])], [value("y", F, [3])]))
    assert "node 'r' (Relu): it has 2 inputs, Relu-14 takes 1" in message


def test_output_count_out_of_range():
    node = helper.make_node("TopK", ["x", "k"], ["v"], name="top")
    k = numpy_helper.from_array(np.array([1], np.int64), "k")
    message = refusal(model_of([node], [value("x", F, [3])], [value("v", F, [1])], [k]))
    assert "node 'top' (TopK): it has 1 outputs, TopK-11 takes 2" in message


def test_required_graph_attribute_missing():
    """seed 1 mutation 927: an Attention retyped to Scan has no body (an IndexError in the pattern)."""
    node = helper.make_node("Scan", ["x"], ["y"], name="scan0", num_scan_inputs=1)
    message = refusal(model_of([node], [value("x", F, [2, 3])], [value("y", F, [2, 3])]))
    assert "node 'scan0' (Scan): required attribute 'body' of Scan-19 is missing" in message


@pytest.mark.parametrize("replacement, spelled", [
    (helper.make_attribute("body", 1.0), "a float"),
    (helper.make_attribute("body", helper.make_tensor("t", F, [1], [1.0])), "a tensor"),
])
def test_graph_attribute_of_another_kind(replacement, spelled):
    """seed 1 mutations 646 and 2524: a SequenceMap whose body is a float or a tensor."""
    node = helper.make_node("SequenceMap", ["s"], ["t"], name="map0")
    node.attribute.append(replacement)
    sequence = helper.make_tensor_sequence_value_info
    message = refusal(model_of([node], [sequence("s", F, [3])], [sequence("t", F, [3])]))
    assert f"node 'map0' (SequenceMap): attribute 'body' is {spelled}, but SequenceMap-17 defines it as a graph" in message


def test_string_attribute_of_another_kind():
    """seed 1 mutation 2170: SoftmaxCrossEntropyLoss `reduction` as floats (an AssertionError in the
    function expansion)."""
    node = helper.make_node("SoftmaxCrossEntropyLoss", ["x", "labels"], ["loss"], name="sce", reduction=[0.5])
    inputs = [value("x", F, [2, 3]), value("labels", I64, [2])]
    message = refusal(model_of([node], inputs, [value("loss", F, [])]))
    assert "attribute 'reduction' is a list of floats, but SoftmaxCrossEntropyLoss-13 defines it as a string" in message


def test_unknown_attribute():
    """seed 1 mutation 2949: a Pad retyped to OneHot keeps its `mode` (OneHot has none)."""
    node = helper.make_node("Relu", ["x"], ["y"], name="r", mode="constant")
    message = refusal(model_of([node], [value("x", F, [3])], [value("y", F, [3])]))
    assert "node 'r' (Relu): attribute 'mode' is not an attribute of Relu-14" in message


def test_ml_domain_node_with_empty_input():
    """seed 1 mutation 3104: a LabelEncoder whose input was made empty faulted ONNX's inference."""
    node = helper.make_node(
        "LabelEncoder", [""], ["y"], name="enc", domain="ai.onnx.ml", keys_strings=["a"], values_int64s=[1],
    )
    model = model_of([node], [], [value("y", I64, [1])], extra_opsets=[helper.make_opsetid("ai.onnx.ml", 4)])
    assert "node 'enc' (ai.onnx.ml.LabelEncoder): input 0 (X) is required by LabelEncoder-4" in refusal(model)


def _loop(body_inputs, body_outputs):
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), helper.make_node("Neg", ["v"], ["v_out"])], "body",
        body_inputs, body_outputs,
    )
    return helper.make_node("Loop", ["m", "cond", "v0"], ["v_final"], name="loop0", body=body)


LOOP_INPUTS = [value("m", I64, []), value("cond", TensorProto.BOOL, []), value("v0", F, [2])]
BODY_INPUTS = [value("i", I64, []), value("c", TensorProto.BOOL, []), value("v", F, [2])]
BODY_OUTPUTS = [value("c_out", TensorProto.BOOL, []), value("v_out", F, [2])]


def test_loop_body_with_an_extra_input():
    node = _loop(BODY_INPUTS + [value("extra", F, [2])], BODY_OUTPUTS)
    message = refusal(model_of([node], LOOP_INPUTS, [value("v_final", F, [2])]))
    assert "node 'loop0' (Loop): its 'body' graph has 4 inputs, Loop-19 needs 3 here" in message


def test_loop_body_with_a_missing_output():
    node = _loop(BODY_INPUTS, BODY_OUTPUTS[:1])
    message = refusal(model_of([node], LOOP_INPUTS, [value("v_final", F, [2])]))
    assert "node 'loop0' (Loop): its 'body' graph has 1 outputs, Loop-19 needs 2 here" in message


def test_loop_body_of_another_element_type_is_refused_by_onnx_inference():
    body_inputs = BODY_INPUTS[:2] + [value("v", TensorProto.INT32, [2])]
    node = _loop(body_inputs, BODY_OUTPUTS[:1] + [value("v_out", TensorProto.INT32, [2])])
    message = refusal(model_of([node], LOOP_INPUTS, [value("v_final", F, [2])]))
    assert "node 'loop0' (Loop): ONNX's Loop-19 inference refuses it" in message
    assert "'v0' float[2]" in message


def test_if_branch_output_count():
    then_branch = helper.make_graph([helper.make_node("Neg", ["x"], ["a"])], "then", [], [value("a", F, [2])])
    else_branch = helper.make_graph([], "else", [], [])
    node = helper.make_node("If", ["cond"], ["y"], name="if0", then_branch=then_branch, else_branch=else_branch)
    inputs = [value("cond", TensorProto.BOOL, []), value("x", F, [2])]
    message = refusal(model_of([node], inputs, [value("y", F, [2])]))
    assert "node 'if0' (If): its 'else_branch' graph has 0 outputs, If-19 needs 1 here" in message


def test_node_inside_a_subgraph_is_checked():
    """A Split whose num_outputs exceeds its outputs aborted ONNX's inference, in a body too."""
    split = helper.make_node("Split", ["v"], ["p", "q"], name="split0", axis=0, num_outputs=3)
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), split, helper.make_node("Concat", ["p", "q"], ["v_out"], axis=0)],
        "body", BODY_INPUTS, BODY_OUTPUTS,
    )
    node = helper.make_node("Loop", ["m", "cond", "v0"], ["v_final"], name="loop0", body=body)
    message = refusal(model_of([node], LOOP_INPUTS, [value("v_final", F, [2])], opset=18))
    assert (
        "node 'split0' (Split) in the 'body' of node 'loop0' (Loop): attribute 'num_outputs' is 3 but the node "
        "has 2 outputs"
    ) in message


# -- ranks and ONNX's inference ---------------------------------------------------------------


def test_resize_scales_of_rank_zero():
    """seed 1 mutation 61: an IndexError in the Resize pattern."""
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], name="rs", mode="nearest")
    inputs = [value("x", F, [1, 1, 2, 2]), value("scales", F, [])]
    message = refusal(model_of([node], inputs, [value("y", F, None)]))
    assert "node 'rs' (Resize): input 'scales' (scales) has rank 0, but Resize needs it 1-D" in message


def test_slice_starts_of_rank_two():
    node = helper.make_node("Slice", ["x", "starts", "ends"], ["y"], name="sl")
    inputs = [value("x", F, [4]), value("starts", I64, [1, 1]), value("ends", I64, [1])]
    message = refusal(model_of([node], inputs, [value("y", F, None)]))
    assert "input 'starts' (starts) has rank 2, but Slice needs it 1-D" in message


def test_range_start_that_is_not_a_scalar():
    node = helper.make_node("Range", ["a", "b", "c"], ["y"], name="rg")
    inputs = [value("a", F, [3]), value("b", F, []), value("c", F, [])]
    message = refusal(model_of([node], inputs, [value("y", F, None)]))
    assert "input 'a' (start) has rank 1, but Range needs it a scalar (rank 0, or 1-D of one element)" in message


def test_conv_weight_of_another_rank_than_the_input():
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="ct")
    inputs = [value("x", F, [1, 1, 4, 4]), value("w", F, [1, 1, 3])]
    message = refusal(model_of([node], inputs, [value("y", F, None)]))
    assert "node 'ct' (ConvTranspose)" in message and "input 'w' (W) has rank 3" in message


def test_one_hot_depth_of_rank_two_is_refused_by_onnx_inference():
    """seed 1 mutation 2118: an IndexError in the OneHot pattern."""
    node = helper.make_node("OneHot", ["i", "depth", "values"], ["y"], name="oh")
    inputs = [value("i", I64, [3]), value("depth", I64, [2, 2]), value("values", F, [2])]
    message = refusal(model_of([node], inputs, [value("y", F, None)]))
    assert "node 'oh' (OneHot): ONNX's OneHot-11 inference refuses it: Input 'depth' must be a scalar or rank 1 tensor" in message
    assert "'depth' int64[2,2]" in message


def test_negative_kernel_shape_is_refused_by_onnx_inference():
    """seed 1 mutation 237: the pattern built a type with a negative size (an MLIR parse error)."""
    node = helper.make_node("AveragePool", ["x"], ["y"], name="pool", kernel_shape=[-(2**31), 2])
    message = refusal(model_of([node], [value("x", F, [1, 1, 5, 5])], [value("y", F, None)]))
    assert "node 'pool' (AveragePool): ONNX's AveragePool-19 inference refuses it: Attribute kernel_shape must only" in message


def test_rank_rules_name_real_formal_inputs():
    """A misspelled formal name would silently check nothing."""
    for op_type, rules in RANK_RULES.items():
        schema = onnx.defs.get_schema(op_type, onnx.defs.onnx_opset_version(), "")
        formals = {formal.name for formal in schema.inputs}
        assert set(rules) <= formals, (op_type, set(rules) - formals)
        for rule in rules.values():
            if isinstance(rule, tuple):
                assert rule[1] in formals


def test_valid_forms_are_accepted():
    """1-D scales, a 1-element vector as a scalar, a scalar Range: no refusal."""
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest"),
        helper.make_node("Range", ["a", "b", "c"], ["r"]),
    ]
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales")
    inputs = [value("x", F, [1, 1, 2, 2]), value("a", F, [1]), value("b", F, []), value("c", F, [])]
    import_onnx(model_of(nodes, inputs, [value("y", F, [1, 1, 4, 4]), value("r", F, None)], [scales]))


def test_command_line_names_the_file_and_leaves_no_output(tmp_path, capsys):
    node = helper.make_node("Div", ["x", ""], ["y"], name="div0")
    path = tmp_path / "model.onnx"
    path.write_bytes(model_of([node], [value("x", F, [3])], [value("y", F, [3])]).SerializeToString())
    output = tmp_path / "out.mlir"
    assert main(["compile", str(path), "--to", "linalg-on-tensors", "-o", str(output)]) == 1
    error = capsys.readouterr().err
    assert error.startswith(f"onnx-torch-mlir: error: {path}: node 'div0' (Div): input 1 (B)") and error.count("\n") == 1
    assert sorted(entry.name for entry in tmp_path.iterdir()) == ["model.onnx"]


def test_reshape_that_changes_the_element_count():
    """A [2,0] input reshaped to a constant [2,3] compiled, to zeros (ONNX's inference lets it through)."""
    shape = numpy_helper.from_array(np.array([2, 3], np.int64), "s")
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="r")
    message = refusal(model_of([node], [value("x", F, [2, 0])], [value("y", F, [2, 3])], [shape]))
    assert "node 'r' (Reshape): input 'x' has 0 elements (float[2,0]) but the result 'y' has 6 (float[2,3])" in message


def test_cast_to_a_data_type_that_does_not_exist():
    """seed 1 mutation 349: ONNX's per-node inference raised ValueError (an internal error)."""
    node = helper.make_node("Cast", ["x"], ["y"], name="cast0", to=2**40)
    message = refusal(model_of([node], [value("x", F, [3])], [value("y", F, [3])]))
    assert "node 'cast0' (Cast): ONNX's Cast-19 inference refuses it: Invalid tensor data type" in message


@pytest.mark.parametrize("data_type, dims, spelled", [
    (TensorProto.INT32, [3], "int32[3]"),  # seed 1 mutation 190: ONNX's inference named neither
    (F, [1, 3], "float[1,3]"),  # seed 1 mutation 691: "differ in rank: (4) vs (3)"
])
def test_initializer_that_contradicts_its_graph_input(data_type, dims, spelled):
    weight = helper.make_tensor("w", data_type, dims, [1] * 3)
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    model = model_of([node], [value("x", F, [3]), value("w", F, [3])], [value("y", F, [3])], [weight])
    assert f"graph input 'w' is declared float[3] but its initializer is {spelled}" in refusal(model)


def test_negative_dim_is_unknown_to_the_element_count_check():
    """seed 1 mutation 3983: a dim of -5 is read as unknown by the importer, not as a count."""
    shape = numpy_helper.from_array(np.array([1, 36, 4], np.int64), "s")
    node = helper.make_node("Reshape", ["x", "s"], ["y"], name="r")
    import_onnx(model_of([node], [value("x", F, [1, 9, -5, 4])], [value("y", F, [1, 36, 4])], [shape]))
