"""The shape family on forms the ONNX node tests do not cover (old opsets, negative
steps, pads with axes, uneven splits, ...): compiled with our importer and conversion to
Linalg, run on the reference CPU runner, compared with onnx.reference."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime

rng = np.random.default_rng(0)
F = T.FLOAT

def model(op, inputs, outputs, opset, initializers=(), **attrs):
    node = helper.make_node(op, [i[0] for i in inputs] + [i.name for i in initializers], [o[0] for o in outputs], **attrs)
    graph = helper.make_graph([node], "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], initializer=list(initializers))
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return onnx.shape_inference.infer_shapes(m)

def const(name, values, dtype=np.int64):
    return numpy_helper.from_array(np.array(values, dtype=dtype), name)

x234 = rng.standard_normal((2, 3, 4)).astype(np.float32)
x1841 = rng.standard_normal((1, 8, 4, 1)).astype(np.float32)
x1244 = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
x2346 = rng.standard_normal((2, 3, 4, 6)).astype(np.float32)
cases = {
 "squeeze11": (model("Squeeze", [("x", F, [1, 3, 1])], [("y", F, None)], 11, axes=[0, -1]), [rng.standard_normal((1, 3, 1)).astype(np.float32)]),
 "squeeze11_noaxes": (model("Squeeze", [("x", F, [1, 3, 1])], [("y", F, None)], 11), [rng.standard_normal((1, 3, 1)).astype(np.float32)]),
 "unsqueeze11": (model("Unsqueeze", [("x", F, [2, 3, 4])], [("y", F, None)], 11, axes=[-1, 1]), [x234]),
 "split2": (model("Split", [("x", F, [2, 3, 4])], [("a", F, None), ("b", F, None)], 2, axis=2, split=[1, 3]), [x234]),
 "split11_equal": (model("Split", [("x", F, [2, 6])], [("a", F, None), ("b", F, None), ("c", F, None)], 11, axis=-1), [rng.standard_normal((2, 6)).astype(np.float32)]),
 "split18_uneven": (model("Split", [("x", F, [7, 2])], [("a", F, None), ("b", F, None), ("c", F, None)], 18, num_outputs=3), [rng.standard_normal((7, 2)).astype(np.float32)]),
 "slice1": (model("Slice", [("x", F, [2, 3, 4])], [("y", F, None)], 1, starts=[1, -3], ends=[1000, -1], axes=[1, 2]), [x234]),
 "slice1_noaxes": (model("Slice", [("x", F, [2, 3, 4])], [("y", F, None)], 1, starts=[0, 1], ends=[1, 3]), [x234]),
 "slice13_negstep": (model("Slice", [("x", F, [2, 3, 4])], [("y", F, None)], 13, initializers=[const("s", [-1, 2]), const("e", [-1000, 0]), const("a", [2, 1]), const("st", [-2, -1])]), [x234]),
 "slice13_negstep_clamp": (model("Slice", [("x", F, [2, 3, 4])], [("y", F, None)], 13, initializers=[const("s", [100]), const("e", [-100]), const("a", [-1]), const("st", [-3])]), [x234]),
 "pad2_reflect": (model("Pad", [("x", F, [2, 3, 4])], [("y", F, None)], 2, mode="reflect", pads=[0, 1, 2, 0, 2, 1]), [x234]),
 "pad2_edge": (model("Pad", [("x", F, [2, 3, 4])], [("y", F, None)], 2, mode="edge", pads=[1, 0, 3, 0, 2, 1]), [x234]),
 "pad2_constant_neg": (model("Pad", [("x", F, [2, 3, 4])], [("y", F, None)], 2, pads=[0, 1, 1, 1, 0, 2], value=2.5), [x234]),
 "pad19_wrap": (model("Pad", [("x", F, [2, 3, 4])], [("y", F, None)], 19, mode="wrap", initializers=[const("p", [0, 2, 3, 0, 1, 2])]), [x234]),
 "pad18_axes": (model("Pad", [("x", F, [2, 3, 4])], [("y", F, None)], 18, mode="constant", initializers=[const("p", [1, 2, 3, 4]), const("v", 1.5, np.float32), const("a", [-1, 0])]), [x234]),
 "concat4": (model("Concat", [("x", F, [2, 3, 4]), ("z", F, [2, 3, 4])], [("y", F, None)], 4, axis=1), [x234, x234 * 2]),
 "depthtospace1": (model("DepthToSpace", [("x", F, [1, 8, 4, 1])], [("y", F, None)], 1, blocksize=2), [x1841]),
 "depthtospace13_crd": (model("DepthToSpace", [("x", F, [1, 8, 4, 1])], [("y", F, None)], 13, blocksize=2, mode="CRD"), [x1841]),
 "spacetodepth1": (model("SpaceToDepth", [("x", F, [1, 2, 4, 4])], [("y", F, None)], 1, blocksize=2), [x1244]),
 "spacetodepth28_dcr": (model("SpaceToDepth", [("x", F, [2, 3, 4, 6])], [("y", F, None)], 28, blocksize=2, mode="DCR"), [x2346]),
 "spacetodepth28_crd": (model("SpaceToDepth", [("x", F, [2, 3, 4, 6])], [("y", F, None)], 28, blocksize=2, mode="CRD"), [x2346]),
 "depthtospace28_crd": (model("DepthToSpace", [("x", F, [1, 8, 4, 1])], [("y", F, None)], 28, blocksize=2, mode="CRD"), [x1841]),
 "reshape5": (model("Reshape", [("x", F, [2, 3, 4])], [("y", F, None)], 5, initializers=[const("s", [0, -1])]), [x234]),
 # Several dynamic input dims: torch-mlir's Linalg lowering of a reshape guessed the grouping wrong.
 "reshape14_dynamic_dims": (model("Reshape", [("x", F, ["a", "b", "c", 4])], [("y", F, None)], 14, initializers=[const("s", [-1, 4])]), [rng.standard_normal((4, 5, 6, 4)).astype(np.float32)]),
 "flatten9_0": (model("Flatten", [("x", F, [2, 3, 4])], [("y", F, None)], 9, axis=0), [x234]),
 "flatten11_neg": (model("Flatten", [("x", F, [2, 3, 4])], [("y", F, None)], 11, axis=-3), [x234]),
 "flatten13_rank": (model("Flatten", [("x", F, [2, 3, 4])], [("y", F, None)], 13, axis=3), [x234]),
 "dropout7_mask": (model("Dropout", [("x", F, [2, 3, 4])], [("y", F, None), ("m", F, None)], 7, ratio=0.3), [x234]),
 "dropout10_mask": (model("Dropout", [("x", F, [2, 3, 4])], [("y", F, None), ("m", T.BOOL, None)], 10), [x234]),
 "shape15": (model("Shape", [("x", F, [2, 3, 4])], [("y", T.INT64, None)], 15, start=-2), [x234]),
 "size": (model("Size", [("x", F, [2, 3, 4])], [("y", T.INT64, None)], 13), [x234]),
 "tile6": (model("Tile", [("x", F, [2, 3, 4])], [("y", F, None)], 6, initializers=[const("r", [2, 1, 3])]), [x234]),
 "expand8": (model("Expand", [("x", F, [3, 1])], [("y", F, None)], 8, initializers=[const("s", [2, 1, 4])]), [rng.standard_normal((3, 1)).astype(np.float32)]),
 "transpose1": (model("Transpose", [("x", F, [2, 3, 4])], [("y", F, None)], 1, perm=[1, 2, 0]), [x234]),
 "eyelike9_neg": (model("EyeLike", [("x", T.INT32, [3, 5])], [("y", F, None)], 9, k=-1, dtype=1), [np.zeros((3, 5), np.int32)]),
 "constantofshape9": (model("ConstantOfShape", [], [("y", T.INT64, None)], 9, initializers=[const("s", [2, 3])], value=numpy_helper.from_array(np.array([5], np.int64))), []),
 "trilu14": (model("Trilu", [("x", F, [3, 4])], [("y", F, None)], 14, upper=0, initializers=[const("k", 1)]), [rng.standard_normal((3, 4)).astype(np.float32)]),
 "range11": (model("Range", [], [("y", F, None)], 11, initializers=[const("a", 1.0, np.float32), const("l", 4.5, np.float32), const("d", 0.5, np.float32)]), []),
}

# Pads as a graph input (computed at run time) with a declared static result.
pads_runtime = np.array([0, 1, 2, 0, 1, 2], dtype=np.int64)
for mode, pads_values, out in (
    ("reflect", pads_runtime, [2, 5, 8]),
    ("edge", pads_runtime, [2, 5, 8]),
    ("wrap", np.array([0, 2, 5, 0, 1, 3], dtype=np.int64), [2, 6, 12]),
    ("constant", pads_runtime, [2, 5, 8]),
):
    cases[f"pad19_runtime_{mode}"] = (
        model("Pad", [("x", F, [2, 3, 4]), ("p", T.INT64, [6])], [("y", F, out)], 19, mode=mode),
        [x234, pads_values],
    )
cases["pad19_runtime_constant_value_axes"] = (
    model("Pad", [("x", F, [2, 3, 4]), ("p", T.INT64, [4]), ("v", F, []), ("a", T.INT64, [2])], [("y", F, [2, 6, 7])], 19),
    [x234, np.array([1, 0, 2, 3], dtype=np.int64), np.array(-2.5, dtype=np.float32), np.array([1, -1], dtype=np.int64)],
)
cases["slice13_runtime_axes_steps"] = (
    model("Slice", [("x", F, [2, 3, 4]), ("s", T.INT64, [2]), ("e", T.INT64, [2]), ("a", T.INT64, [2]), ("st", T.INT64, [2])], [("y", F, [2, 2, 2])], 13),
    [x234, np.array([-1, 0], dtype=np.int64), np.array([-100, 100], dtype=np.int64), np.array([2, -2], dtype=np.int64), np.array([-2, 2], dtype=np.int64)],
)


def _graph_inputs(m):
    initializers = {t.name for t in m.graph.initializer}
    return [i.name for i in m.graph.input if i.name not in initializers]


def _run(m, inputs, backend="linalg-on-tensors"):
    got = runtime.run(onnx_torch_mlir.compile(m, backend), inputs, input_dialect=backend)
    return got if isinstance(got, (list, tuple)) else [got]


@pytest.mark.parametrize("name", sorted(cases))
def test_matches_onnx_reference(name):
    m, inputs = cases[name]
    expected = ReferenceEvaluator(m).run(None, dict(zip(_graph_inputs(m), inputs)))
    for want, got in zip(expected, _run(m, inputs)):
        assert np.shape(want) == np.shape(got)
        np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), atol=1e-6)


# The block rearrangements in both orders, on every backend (SpaceToDepth's CRD mode was
# once read as DCR).
BLOCK_MODE_CASES = ["depthtospace1", "depthtospace13_crd", "spacetodepth1", "spacetodepth28_dcr", "spacetodepth28_crd", "depthtospace28_crd"]


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "tosa", "stablehlo"])
@pytest.mark.parametrize("name", BLOCK_MODE_CASES)
def test_block_modes_match_onnx_reference(name, backend):
    m, inputs = cases[name]
    (want,) = ReferenceEvaluator(m).run(None, dict(zip(_graph_inputs(m), inputs)))
    (got,) = _run(m, inputs, backend)
    np.testing.assert_array_equal(got, want)


def test_spacetodepth_mode_before_opset_28_is_refused():
    """Before opset 28 SpaceToDepth has no `mode`: a 'CRD' there must not be read as DCR."""
    m = model("SpaceToDepth", [("x", F, [2, 3, 4, 6])], [("y", F, None)], 13, blocksize=2, mode="CRD")
    # The importer checks nodes against their schemas, so the refusal comes before the conversion.
    with pytest.raises(onnx_torch_mlir.errors.OnnxTorchMlirError,
                       match="node 'SpaceToDepth:y' .SpaceToDepth.: attribute 'mode' is not an attribute of SpaceToDepth-13"):
        _run(m, [x2346])


def test_concat_opset1_default_axis_is_1():
    m = model("Concat", [("x", F, [2, 3, 4]), ("z", F, [2, 3, 4])], [("y", F, None)], 1)
    (got,) = _run(m, [x234, x234 * 2])
    np.testing.assert_array_equal(got, np.concatenate([x234, x234 * 2], axis=1))
