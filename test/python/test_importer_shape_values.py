"""Dims that shape tensors determine, but ONNX's data propagation leaves unknown, are typed.

The models are the forms exporters write: the TorchScript exporter's mask broadcast
`Expand(mask, Where(Equal(shape, -1), ones, shape))`, a Reshape whose -1 is a product of
named dims, a ConstantOfShape of a computed shape. Before refinement the mask add below
failed at run time with 'mismatched size for broadcast' (a `?` dim that was really 1).
"""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from onnx_torch_mlir import compile as compile_model
from onnx_torch_mlir import import_onnx
from onnx_torch_mlir.importer.shape_inference import infer_types
from onnx_torch_mlir.runtime import compile_for_cpu

onnxruntime = pytest.importorskip("onnxruntime")


def _constant(name, values):
    """A Constant stored as raw bytes, as exporters write it (imported as a `dense_resource`)."""
    return helper.make_node("Constant", [], [name], value=numpy_helper.from_array(np.asarray(values, dtype=np.int64), name))


def _where_expand_nodes(shape_name: str) -> list:
    """`Expand(mask4d, Where(Equal(shape, -1 * ones), ones, shape))`, as TorchScript writes it."""
    return [
        _constant("rank", [4]),
        helper.make_node("ConstantOfShape", ["rank"], ["ones"], value=helper.make_tensor("one", TensorProto.INT64, [1], [1])),
        _constant("minus_one", -1),
        helper.make_node("Mul", ["ones", "minus_one"], ["minus_ones"]),
        helper.make_node("Equal", [shape_name, "minus_ones"], ["is_minus_one"]),
        helper.make_node("Where", ["is_minus_one", "ones", shape_name], ["target"]),
        _constant("axes", [1, 2]),
        helper.make_node("Unsqueeze", ["mask", "axes"], ["mask4d"]),
        helper.make_node("Expand", ["mask4d", "target"], ["expanded"], name="expand"),
        helper.make_node("Cast", ["expanded"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["scores", "mask_f"], ["y"], name="mask_add"),
    ]


def _static_mask_model() -> onnx.ModelProto:
    nodes = [_constant("shape", [2, 1, 5, 5])] + _where_expand_nodes("shape")
    graph = helper.make_graph(
        nodes, "static_mask",
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 4, 5, 5]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, [2, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _dynamic_mask_model() -> onnx.ModelProto:
    """The target is [batch, 1, sequence, sequence], gathered from the mask's run-time shape."""
    nodes = [
        helper.make_node("Shape", ["mask"], ["mask_shape"]),
        _constant("index0", [0]),
        _constant("index1", [1]),
        helper.make_node("Gather", ["mask_shape", "index0"], ["batch"], axis=0),
        helper.make_node("Gather", ["mask_shape", "index1"], ["sequence"], axis=0),
        _constant("one", [1]),
        helper.make_node("Concat", ["batch", "one", "sequence", "sequence"], ["shape"], axis=0),
    ] + _where_expand_nodes("shape")
    graph = helper.make_graph(
        nodes, "dynamic_mask",
        [helper.make_tensor_value_info("scores", TensorProto.FLOAT, ["batch", 4, "sequence", "sequence"]),
         helper.make_tensor_value_info("mask", TensorProto.INT64, ["batch", "sequence"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _dims(model: onnx.ModelProto, name: str) -> list:
    for value in list(model.graph.value_info) + list(model.graph.output):
        if value.name == name:
            return [d.dim_value if d.HasField("dim_value") else (d.dim_param or None) for d in value.type.tensor_type.shape.dim]
    raise KeyError(name)


def test_plain_inference_leaves_the_expanded_mask_dims_unknown():
    inferred = onnx.shape_inference.infer_shapes(_static_mask_model(), data_prop=True)
    dims = _dims(inferred, "expanded")
    assert dims[0] == 2 and dims[3] == 5
    assert not isinstance(dims[1], int) and not isinstance(dims[2], int)


def test_static_mask_is_typed_statically_and_downstream_follows():
    typed = infer_types(_static_mask_model(), "static_mask")
    assert _dims(typed, "expanded") == [2, 1, 5, 5]
    assert _dims(typed, "mask_f") == [2, 1, 5, 5]
    assert _dims(typed, "y") == [2, 4, 5, 5]


def test_dynamic_mask_keeps_named_dims_and_learns_the_one():
    typed = infer_types(_dynamic_mask_model(), "dynamic_mask")
    assert _dims(typed, "expanded") == ["batch", 1, "sequence", "sequence"]


def test_import_types_the_expand_result():
    text = str(import_onnx(_static_mask_model(), form="torch-onnx"))
    assert 'torch.operator "onnx.Expand"' in text and "-> !torch.vtensor<[2,1,5,5],si64>" in text


@pytest.mark.parametrize("make_model, sizes", [(_static_mask_model, [(2, 5)]), (_dynamic_mask_model, [(2, 5), (3, 7), (1, 1)])])
def test_mask_add_runs_and_matches_onnxruntime(make_model, sizes):
    model = make_model()
    program = compile_for_cpu(compile_model(model, output_type="linalg-on-tensors"), input_dialect="linalg-on-tensors")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    generator = np.random.default_rng(0)
    for batch, sequence in sizes:
        scores = generator.standard_normal((batch, 4, sequence, sequence)).astype(np.float32)
        mask = generator.integers(0, 2, (batch, sequence)).astype(np.int64)
        (ours,) = program(scores, mask)
        (reference,) = session.run(None, {"scores": scores, "mask": mask})
        np.testing.assert_allclose(ours, reference, rtol=1e-6, atol=1e-6)


def test_reshape_minus_one_is_the_quotient_of_named_dims():
    """[batch, sequence, 8] -> [batch, sequence, 2, -1]: the -1 is 4; ONNX leaves it unknown."""
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        _constant("first_two", [0]),
        _constant("two", [2]),
        helper.make_node("Slice", ["x_shape", "first_two", "two"], ["leading"]),
        _constant("heads", [2, -1]),
        helper.make_node("Concat", ["leading", "heads"], ["shape"], axis=0),
        helper.make_node("Mul", ["shape", "ones"], ["shape_again"]),  # data propagation stops here
        helper.make_node("Reshape", ["x", "shape_again"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "reshape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "sequence", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("ones", TensorProto.INT64, [4], [1, 1, 1, 1])],
    )
    typed = infer_types(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "reshape")
    assert _dims(typed, "y") == ["batch", "sequence", 2, 4]


def test_a_shape_read_from_a_runtime_tensor_stays_unknown():
    """Nothing is guessed: an Expand to a shape given as a graph input keeps unknown dims."""
    graph = helper.make_graph(
        [helper.make_node("Expand", ["x", "shape"], ["y"])], "runtime_shape",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    typed = infer_types(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "runtime_shape")
    dims = _dims(typed, "y")
    assert len(dims) == 2 and not isinstance(dims[0], int)


def test_reversed_slice_of_a_shape():
    """Reshape x [2, 3, 4] to its shape reversed ([4, 3, 2]) through Slice with step -1."""
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        helper.make_node("Mul", ["x_shape", "ones"], ["shape_again"]),  # data propagation stops here
        _constant("start", [-1]),
        _constant("end", [-(2**63) + 1]),
        _constant("axis", [0]),
        _constant("step", [-1]),
        helper.make_node("Slice", ["shape_again", "start", "end", "axis", "step"], ["reversed"]),
        helper.make_node("Reshape", ["x", "reversed"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "reversed",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("ones", TensorProto.INT64, [3], [1, 1, 1])],
    )
    typed = infer_types(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "reversed")
    assert _dims(typed, "y") == [4, 3, 2]


def test_pad_with_computed_pads_through_transpose():
    """TorchScript's "same" padding: pads [[0,1],[0,1],[0,0],[0,0]] flipped, transposed, flattened."""
    nodes = [
        _constant("pairs", [[0, 1], [0, 1], [0, 0], [0, 0]]),
        helper.make_node("Mul", ["pairs", "ones"], ["pairs_again"]),  # data propagation stops here
        _constant("start", [-1]),
        _constant("end", [-(2**63) + 1]),
        _constant("axis", [0]),
        _constant("step", [-1]),
        helper.make_node("Slice", ["pairs_again", "start", "end", "axis", "step"], ["flipped"]),
        helper.make_node("Transpose", ["flipped"], ["begins_then_ends"], perm=[1, 0]),
        _constant("flat", [-1]),
        helper.make_node("Reshape", ["begins_then_ends", "flat"], ["pads"]),
        helper.make_node("Pad", ["x", "pads"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "same_padding",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [helper.make_tensor("ones", TensorProto.INT64, [4, 2], [1] * 8)],
    )
    typed = infer_types(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "same_padding")
    assert _dims(typed, "y") == [2, 3, 9, 9]


def test_rotate_half_slices_split_at_a_computed_point():
    """x[..., :d // 2] and x[..., d // 2:] with d read from Shape (LLaMA's rotate_half): ONNX leaves
    every dim of both halves unknown; the halves are [batch, 4, sequence, 8]."""
    nodes = [
        helper.make_node("Shape", ["x"], ["x_shape"]),
        _constant("last", 3),
        helper.make_node("Gather", ["x_shape", "last"], ["d"]),
        _constant("two", 2),
        helper.make_node("Div", ["d", "two"], ["half"]),
        _constant("zero_axis", [0]),
        helper.make_node("Unsqueeze", ["half", "zero_axis"], ["split"]),
        _constant("begin", [0]),
        _constant("end", [2**63 - 1]),
        _constant("axis", [-1]),
        _constant("step", [1]),
        helper.make_node("Slice", ["x", "begin", "split", "axis", "step"], ["low"]),
        helper.make_node("Slice", ["x", "split", "end", "axis"], ["high"]),
        helper.make_node("Neg", ["high"], ["negated"]),
        helper.make_node("Concat", ["negated", "low"], ["y"], axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "rotate_half",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, "sequence", 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    plain = onnx.shape_inference.infer_shapes(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), data_prop=True)
    assert not isinstance(_dims(plain, "low")[3], int)
    typed = infer_types(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), "rotate_half")
    assert _dims(typed, "low") == ["batch", 4, "sequence", 8]
    assert _dims(typed, "high") == ["batch", 4, "sequence", 8]
    assert _dims(typed, "y")[1:4:2] == [4, 16]
