"""NonZero and Compress over a number of elements known only at run time, on StableHLO, run on the
reference CPU runner and on IREE and compared with onnxruntime (Linalg on the reference runner too,
as the peer that always took them).

On StableHLO the positions of the true elements are computed padded to the run-time number of
elements (a prefix count and a binary search in a fixed number of steps, whatever that number) and
cut to the run-time count; the ops after the cut that read the rows together (a Gather by them,
NonMaxSuppression) find the padded rows, of a run-time size here. TOSA's shapes are compile-time
constants, so there the element count must be fixed with --dim. One compiled module runs on inputs
of different lengths that select different numbers of elements, none included. XLA compiles
static shapes only and is not asked.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import compiled_beside_onnxruntime, program

PROGRAMS = [("stablehlo", "reference"), ("stablehlo", "iree"), ("linalg-on-tensors", "reference")]


def _model(nodes, inputs, outputs, constants=None, opset: int = 13) -> onnx.ModelProto:
    initializers = [numpy_helper.from_array(value, name) for name, value in (constants or {}).items()]
    graph = helper.make_graph(nodes, "non_zero", inputs, outputs, initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _gather_model() -> onnx.ModelProto:
    """y = x[NonZero(x)] of a 1-D x of run-time length: NonZero [1, count], Gather along 0 [1, count]."""
    return _model([helper.make_node("NonZero", ["x"], ["positions"]),
                   helper.make_node("Gather", ["x", "positions"], ["y"], axis=0)],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None])])


def _gather_nd_model() -> onnx.ModelProto:
    """The coordinates of the elements of a [2, n] x above 0.5 (NonZero, Transpose) and their values
    (GatherND), as YOLOv8's post-processing picks its candidates on a dynamic image size."""
    n = helper.make_node
    return _model([n("Greater", ["x", "half"], ["passes"]), n("NonZero", ["passes"], ["positions"]),
                   n("Transpose", ["positions"], ["index"], perm=[1, 0]), n("GatherND", ["x", "index"], ["y"])],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "n"])],
                  [helper.make_tensor_value_info("index", TensorProto.INT64, [None, 2]),
                   helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
                  {"half": np.array(0.5, np.float32)})


def _compress_model() -> onnx.ModelProto:
    """The columns of a [3, n] x whose condition (of run-time length n) holds, and their sum."""
    n = helper.make_node
    return _model([n("Compress", ["x", "condition"], ["y"], axis=1),
                   n("ReduceSum", ["y", "one"], ["total"], keepdims=0)],
                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, "n"]),
                   helper.make_tensor_value_info("condition", TensorProto.BOOL, ["n"])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, None]),
                   helper.make_tensor_value_info("total", TensorProto.FLOAT, [3])],
                  {"one": np.array([1], np.int64)})


def _gather_feeds():
    for length, kept in ((9, 0.5), (1, 1.0), (40, 0.2), (6, 0.0)):
        rng = np.random.default_rng(length)
        yield {"x": (rng.uniform(1, 2, length) * (rng.uniform(0, 1, length) < kept)).astype(np.float32)}


def _gather_nd_feeds():
    for length, scale in ((7, 1.0), (33, 0.7), (1, 1.0), (12, 0.3)):
        yield {"x": (np.random.default_rng(length).uniform(0, 1, (2, length)) * scale).astype(np.float32)}


def _compress_feeds():
    for length, kept in ((5, 0.5), (17, 0.8), (3, 0.0)):
        rng = np.random.default_rng(length)
        yield {"x": rng.standard_normal((3, length)).astype(np.float32), "condition": rng.uniform(0, 1, length) < kept}


CASES = {"gather": (_gather_model, _gather_feeds), "gather-nd": (_gather_nd_model, _gather_nd_feeds),
         "compress": (_compress_model, _compress_feeds)}


@pytest.mark.parametrize("name, backend, consumer", [(name, *p) for name in CASES for p in PROGRAMS])
def test_run_time_element_count_matches_onnxruntime(name, backend, consumer):
    build, feeds_list = CASES[name]
    compiled, session = compiled_beside_onnxruntime(build(), backend, consumer)
    counts = set()
    for feeds in feeds_list():
        expected = session.run(None, feeds)
        got = compiled(*feeds.values())
        for value, want in zip(got, expected):
            value = np.asarray(value)
            assert value.shape == want.shape and value.dtype == want.dtype, (value.shape, want.shape)
            np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)
        counts.add(expected[0].shape[-1] if name != "gather-nd" else expected[0].shape[0])
    assert 0 in counts and len(counts) >= 3  # the count really changes with the data


def test_tosa_still_needs_the_element_count():
    """TOSA's shapes are compile-time constants: the padded positions need a static element count."""
    with pytest.raises(Exception, match="NonZero.*--dim NAME=SIZE"):
        onnx_torch_mlir.compile(_gather_model(), "tosa")


def _nms_without_a_limit_model() -> onnx.ModelProto:
    """The boxes of a run-time count N whose score passes 0.5 (NonZero, Gather), then
    NonMaxSuppression without a limit (max_output_boxes_per_class the largest int64, as ultralytics
    and torchvision export it): its greedy loop runs up to a run-time number of steps."""
    n = helper.make_node
    nodes = [n("Greater", ["scores", "threshold"], ["passes"]),  # [1, 1, N]
             n("NonZero", ["passes"], ["positions"]),  # [3, K]
             n("Gather", ["positions", "two"], ["columns"], axis=0),  # [K]
             n("Gather", ["boxes", "columns"], ["candidate_boxes"], axis=1),  # [1, K, 4]
             n("Gather", ["scores", "columns"], ["candidate_scores"], axis=2),  # [1, 1, K]
             n("NonMaxSuppression", ["candidate_boxes", "candidate_scores", "limit", "iou"], ["selected"])]
    return _model(nodes, [helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, "n", 4]),
                          helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, "n"])],
                  [helper.make_tensor_value_info("selected", TensorProto.INT64, [None, 3])],
                  {"threshold": np.array(0.5, np.float32), "two": np.array(2, np.int64),
                   "limit": np.array([2**63 - 1], np.int64), "iou": np.array([0.5], np.float32)})


def _nms_feeds():
    for count in (60, 13):
        rng = np.random.default_rng(count)
        corner = rng.uniform(0, 100, (1, count, 2))
        boxes = np.concatenate([corner, corner + rng.uniform(10, 40, (1, count, 2))], axis=2).astype(np.float32)
        yield {"boxes": boxes, "scores": rng.uniform(0, 1, (1, 1, count)).astype(np.float32)}


def test_nms_without_a_limit_on_a_run_time_box_count_on_stablehlo_matches_onnxruntime():
    model = _nms_without_a_limit_model()
    compiled = program(onnx_torch_mlir.compile(model, "stablehlo"), "stablehlo", "reference")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    for feeds in _nms_feeds():
        (want,) = session.run(None, feeds)
        (got,) = compiled(*feeds.values())
        np.testing.assert_array_equal(np.asarray(got), want)


def test_iree_refuses_nms_without_a_limit_on_a_run_time_box_count_on_stablehlo():
    """IREE 3.13's blocker (the reproducer of test_iree_loop_forms.py's FLAGGED_WHILE): the greedy
    loop carries the boxes each group kept, [groups, N] for N boxes (one per step, and no limit bounds
    the steps), whose run-time dim the body's `where` takes from a value outside the loop (the step
    numbers, an iota of N; torch-mlir's StableHLO lowering takes a result's dim from its first
    dynamic operand). Taking the dim from the carried value instead (an iota of the carried value's
    dim, or the update written as picked - (picked - best) * write) compiles, but IREE then gives
    wrong boxes (measured; the reference runner right), so the form stays one that IREE refuses.
    With a limit (a static number of steps) or on Linalg, IREE runs it right."""
    from onnx_torch_mlir.runtime.iree import IreeError

    module = onnx_torch_mlir.compile(_nms_without_a_limit_model(), "stablehlo")
    with pytest.raises(IreeError, match="unresolved target materialization"):
        program(module, "stablehlo", "iree")
