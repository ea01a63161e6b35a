"""NonMaxSuppression, Det, Col2Im, MaxUnpool and CenterCropPad compiled with our importer and
conversion, run on the reference CPU runner (IREE for a few) and compared with onnxruntime.

NonMaxSuppression's result has as many rows as boxes are selected: Linalg compiles the model
with that count unknown (read at run time), TOSA and StableHLO with it declared (the count
onnxruntime selects), as a static model declares it. Scores have ties, boxes overlap at many
IoUs and some are degenerate or flipped. Tolerance: rtol 1e-4, atol 1e-5.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import runtime
from onnx_torch_mlir.runtime.iree import compile_with_iree

BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
ONNX_TYPES = {np.float32: TensorProto.FLOAT, np.int64: TensorProto.INT64}
RTOL, ATOL = 1e-4, 1e-5


@dataclass
class Case:
    node: onnx.NodeProto
    inputs: dict  # name -> (array, dims with symbolic names)
    output_dims: list  # of the one output; None for a size only known at run time
    output_type: int = TensorProto.FLOAT
    opset: int = 22
    constants: dict = field(default_factory=dict)  # initializers
    known_failures: dict = field(default_factory=dict)  # backend -> reason
    # MaxUnpool with output_shape: ONNX's reference (and the conformance data) scatter into the
    # unpooled shape and zero-pad it to output_shape; onnxruntime reads the indices as positions
    # in output_shape. These cases compare with ONNX's reference.
    onnx_reference: bool = False

    def _model(self, inputs, output_dims) -> onnx.ModelProto:
        outputs = [helper.make_tensor_value_info("y", self.output_type, output_dims)]
        initializers = [onnx.numpy_helper.from_array(value, name) for name, value in self.constants.items()]
        graph = helper.make_graph([self.node], "detection", inputs, outputs, initializer=initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=10)

    def model(self, static: bool) -> onnx.ModelProto:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape) if static else dims)
            for name, (array, dims) in self.inputs.items()
        ]
        return self._model(inputs, list(self.expected()[0].shape) if static else self.output_dims)

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def expected(self) -> list:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape))
            for name, (array, _) in self.inputs.items()
        ]
        model = self._model(inputs, None)
        if self.onnx_reference:
            return ReferenceEvaluator(model).run(None, {name: array for name, (array, _) in self.inputs.items()})
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, {name: array for name, (array, _) in self.inputs.items()})


def _nms(center_point_box: int, with_score_threshold: bool, max_boxes: int, batches=2, classes=3, count=12):
    def build():
        rng = np.random.default_rng(center_point_box * 100 + max_boxes)
        corners = rng.uniform(0, 10, (batches, count, 2, 2)).round(1)
        if center_point_box:
            centers, extents = corners[:, :, 0], np.abs(corners[:, :, 1] - corners[:, :, 0]) / 2
            boxes = np.concatenate([centers, extents], axis=2)
        else:
            boxes = corners.reshape(batches, count, 4)  # unordered corners: flipped boxes
        boxes[0, 3] = boxes[0, 2]  # an identical box
        boxes[-1, 5, 2:] = boxes[-1, 5, :2] if not center_point_box else 0  # a degenerate box
        scores = rng.choice([0.1, 0.3, 0.5, 0.7, 0.9], (batches, classes, count)).astype(np.float32)  # ties
        inputs = {
            "boxes": (boxes.astype(np.float32), [batches, count, 4]), "scores": (scores, [batches, classes, count]),
            "max_output_boxes_per_class": (np.array([max_boxes], dtype=np.int64), [1]),
            "iou_threshold": (np.array([0.2], dtype=np.float32), [1]),
        }
        if with_score_threshold:
            inputs["score_threshold"] = (np.array([0.4], dtype=np.float32), [1])
        node = helper.make_node("NonMaxSuppression", list(inputs), ["y"], center_point_box=center_point_box)
        return Case(node, inputs, [None, 3], output_type=TensorProto.INT64, opset=11)

    return build


def _det(shape, singular=False):
    def build():
        rng = np.random.default_rng(len(shape))
        x = rng.standard_normal(shape).astype(np.float32)
        if singular:
            x[..., 1, :] = x[..., 0, :] * 2
        dims = ["batch", *shape[1:]] if len(shape) > 2 else list(shape)
        return Case(helper.make_node("Det", ["x"], ["y"]), {"x": (x, dims)}, dims[:-2])

    return build


def _col2im():
    rng = np.random.default_rng(3)
    image_shape, block_shape = np.array([6, 7], dtype=np.int64), np.array([2, 3], dtype=np.int64)
    # 2 channels, padded [1, 0] x [1, 2], strides [2, 1], dilations [1, 2]: blocks 3 x 6.
    x = rng.standard_normal((2, 2 * 6, 3 * 6)).astype(np.float32)
    node = helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"], pads=[1, 1, 0, 2], strides=[2, 1],
                            dilations=[1, 2])
    return Case(node, {"x": (x, ["batch", 12, 18])}, ["batch", 2, 6, 7], opset=18,
                constants={"image_shape": image_shape, "block_shape": block_shape})


def _col2im_run_time_block_shape(block_shape):
    """block_shape is a graph input: [1, 5] and [5, 1] both fit [1, 5, 5] -> [1, 1, 5, 5], and the
    one given is selected at run time."""
    def build():
        x = np.random.default_rng(6).standard_normal((1, 5, 5)).astype(np.float32)
        inputs = {"x": (x, [1, 5, 5]), "block_shape": (np.array(block_shape, dtype=np.int64), [2])}
        node = helper.make_node("Col2Im", ["x", "image_shape", "block_shape"], ["y"])
        return Case(node, inputs, [1, 1, 5, 5], opset=18, constants={"image_shape": np.array([5, 5], dtype=np.int64)})

    return build


def _max_unpool(with_output_shape: bool):
    def build():
        rng = np.random.default_rng(4)
        x = rng.standard_normal((2, 3, 3, 4)).astype(np.float32)
        # MaxPool's indices (kernel 2, stride 2 over [2, 3, 6, 8]): one position per 2x2 window.
        rows = np.arange(3)[:, None] * 2 + rng.integers(0, 2, (2, 3, 3, 4))
        columns = np.arange(4)[None, :] * 2 + rng.integers(0, 2, (2, 3, 3, 4))
        planes = np.arange(6).reshape(2, 3, 1, 1)
        indices = (planes * 48 + rows * 8 + columns).astype(np.int64)
        inputs = {"x": (x, ["batch", 3, 3, 4]), "indices": (indices, ["batch", 3, 3, 4])}
        constants = {"output_shape": np.array([2, 3, 7, 9], dtype=np.int64)} if with_output_shape else {}
        node = helper.make_node("MaxUnpool", ["x", "indices"] + (["output_shape"] if with_output_shape else []), ["y"],
                                kernel_shape=[2, 2], strides=[2, 2])
        # indices are over the whole tensor, so the batch is static here.
        inputs = {name: (array, list(array.shape)) for name, (array, _) in inputs.items()}
        return Case(node, inputs, [2, 3, 7, 9] if with_output_shape else [2, 3, 6, 8], constants=constants,
                    onnx_reference=with_output_shape)

    return build


def _center_crop_pad(axes):
    def build():
        rng = np.random.default_rng(5)
        x = rng.standard_normal((7, 4, 3)).astype(np.float32)
        shape = np.array([4, 7] if axes else [4, 7, 3], dtype=np.int64)
        node = helper.make_node("CenterCropPad", ["x", "shape"], ["y"], **({"axes": axes} if axes else {}))
        return Case(node, {"x": (x, [7, 4, 3])}, [4, 7, 3], opset=18, constants={"shape": shape})

    return build


CASES = {
    f"NonMaxSuppression-center{center}-threshold{int(threshold)}-max{limit}": _nms(center, threshold, limit)
    for center, threshold, limit in [(0, True, 3), (0, False, 100), (1, True, 2), (1, False, 0)]
}
# Beyond 64 boxes, Linalg runs the greedy loop as a torch.prim.Loop.
CASES["NonMaxSuppression-100-boxes-loop"] = _nms(0, True, 40, batches=1, classes=2, count=100)
CASES.update({
    "Det-2x2": _det((2, 2)), "Det-batch-4x4": _det((3, 4, 4)), "Det-batch-3x3-singular": _det((2, 3, 3), singular=True),
    "Det-5x5": _det((5, 5)),
    "Col2Im-pads-strides-dilations": _col2im,
    "Col2Im-run-time-block_shape-1x5": _col2im_run_time_block_shape([1, 5]),
    "Col2Im-run-time-block_shape-5x1": _col2im_run_time_block_shape([5, 1]),
    "MaxUnpool": _max_unpool(False), "MaxUnpool-output_shape": _max_unpool(True),
    "CenterCropPad": _center_crop_pad(None), "CenterCropPad-axes": _center_crop_pad([0, -2]),
})
STATIC_CASES = [
    "NonMaxSuppression-center0-threshold1-max3", "NonMaxSuppression-center1-threshold1-max2", "Det-batch-4x4",
    "Col2Im-pads-strides-dilations", "Col2Im-run-time-block_shape-1x5", "MaxUnpool-output_shape", "CenterCropPad-axes",
]


def _params():
    for name in CASES:
        yield pytest.param(name, "linalg-on-tensors", id=f"{name}-linalg-on-tensors")
    for name, backend in itertools.product(STATIC_CASES, BACKENDS[1:]):
        known = CASES[name]().known_failures.get(backend)
        marks = [pytest.mark.xfail(strict=True, reason=known)] if known else []
        yield pytest.param(name, backend, marks=marks, id=f"{name}-{backend}")


def _assert_matches(outputs, expected):
    assert len(outputs) == len(expected)
    for got, want in zip(outputs, expected):
        assert got.shape == want.shape and got.dtype == want.dtype, (got.shape, want.shape, got.dtype, want.dtype)
        np.testing.assert_allclose(got, want, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name, backend", list(_params()))
def test_matches_onnxruntime(name, backend):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=backend != "linalg-on-tensors"), backend)
    _assert_matches(runtime.run(module, case.arrays(), input_dialect=backend), case.expected())


@pytest.mark.parametrize("name", ["NonMaxSuppression-center0-threshold0-max100", "Det-batch-4x4"])
def test_iree_matches_onnxruntime(name):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=False), "linalg-on-tensors")
    _assert_matches(compile_with_iree(module, "linalg-on-tensors")(*case.arrays()), case.expected())


def test_iree_max_unpool_on_stablehlo():
    case = CASES["MaxUnpool-output_shape"]()
    module = onnx_torch_mlir.compile(case.model(static=True), "stablehlo")
    _assert_matches(compile_with_iree(module, "stablehlo")(*case.arrays()), case.expected())


def test_nms_without_a_static_count_runs_on_tosa():
    """Without a declared count, TOSA's padded rows are cut to the run-time count after its
    pipeline (transforms/torch/dynamic_rows.py)."""
    case = CASES["NonMaxSuppression-center0-threshold1-max3"]()
    module = onnx_torch_mlir.compile(case.model(static=False), "tosa")
    _assert_matches(runtime.run(module, case.arrays(), input_dialect="tosa"), case.expected())
