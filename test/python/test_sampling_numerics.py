"""GridSample, AffineGrid, RoiAlign and DeformConv (the sampling family) compiled with our importer and
conversion, run on the reference CPU runner (IREE for a few) and compared with onnxruntime.

Grids reach beyond [-1, 1] so that every padding mode matters, and one grid puts nearest samples
exactly half-way between pixels (ties round to even). Linalg compiles the models with symbolic
batch and output dims; TOSA and StableHLO with every dim fixed (they need static shapes).
Tolerance: rtol 1e-4, atol 1e-5 (the kernels sum the taps in another order).
"""

from __future__ import annotations

import itertools
import zlib
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
    output_dims: list  # dims of the one output, symbolic names allowed
    opset: int = 22
    constants: dict = field(default_factory=dict)  # initializers
    # onnxruntime's cubic GridSample pads each tap as torch does, where ONNX's reference (and the
    # conformance data) first clamps or mirrors the coordinate: those cases compare with ONNX's.
    onnx_reference: bool = False

    def model(self, static: bool) -> onnx.ModelProto:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape) if static else dims)
            for name, (array, dims) in self.inputs.items()
        ]
        dims = self.output_dims if not static else [d if isinstance(d, int) else None for d in self.output_dims]
        if static:
            dims = list(self.expected()[0].shape)
        outputs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, dims)]
        initializers = [onnx.numpy_helper.from_array(value, name) for name, value in self.constants.items()]
        graph = helper.make_graph([self.node], "sampling", inputs, outputs, initializer=initializers)
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=10)

    def arrays(self) -> list:
        return [array for array, _ in self.inputs.values()]

    def expected(self) -> list:
        inputs = [
            helper.make_tensor_value_info(name, ONNX_TYPES[array.dtype.type], list(array.shape))
            for name, (array, _) in self.inputs.items()
        ]
        initializers = [onnx.numpy_helper.from_array(value, name) for name, value in self.constants.items()]
        graph = helper.make_graph([self.node], "sampling", inputs, [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  initializer=initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)], ir_version=10)
        feeds = {name: array for name, (array, _) in self.inputs.items()}
        if self.onnx_reference:
            return ReferenceEvaluator(model).run(None, feeds)
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, feeds)


def _grid_sample(mode, padding, align_corners, opset=22, spatial=2, tie_grid=False, dynamic_image=False):
    def build():
        rng = np.random.default_rng(zlib.crc32(f"{mode}{padding}{align_corners}{spatial}".encode()))
        image = rng.standard_normal((2, 3, *([5, 6, 4][:spatial]))).astype(np.float32)
        out = [4, 3, 2][:spatial]
        grid = rng.uniform(-1.4, 1.4, (2, *out, spatial)).astype(np.float32)
        if tie_grid:  # with align_corners, x = (g + 1) / 2 * (size - 1): g = k / (size - 1) - 1 + 1 / (size - 1) hits k + 0.5
            sizes = image.shape[2:][::-1]
            ticks = [(np.arange(-1, 2 * size) + 0.5) * 2 / (size - 1) - 1 for size in sizes]
            grid = np.stack(np.meshgrid(*[t[: o] for t, o in zip(ticks, out[::-1])], indexing="xy"), -1)
            grid = np.broadcast_to(grid[None], (2, *out, spatial)).astype(np.float32)
        node = helper.make_node("GridSample", ["x", "grid"], ["y"], mode=mode, padding_mode=padding,
                                align_corners=align_corners)
        image_dims = [f"i{i}" for i in range(spatial)] if dynamic_image else list(image.shape[2:])
        inputs = {"x": (image, ["n", 3, *image_dims]), "grid": (grid, ["n", *(f"o{i}" for i in range(spatial)), spatial])}
        cubic_padded = mode in ("cubic", "bicubic") and padding != "zeros"
        return Case(node, inputs, ["n", 3, *(f"o{i}" for i in range(spatial))], opset=opset, onnx_reference=cubic_padded)

    return build


def _affine_grid(spatial, align_corners):
    def build():
        rng = np.random.default_rng(spatial * 10 + align_corners)
        theta = rng.standard_normal((2, spatial, spatial + 1)).astype(np.float32)
        size = np.array([2, 3, 4, 5, 6][: spatial + 2], dtype=np.int64)
        node = helper.make_node("AffineGrid", ["theta", "size"], ["y"], align_corners=align_corners)
        return Case(node, {"theta": (theta, ["n", spatial, spatial + 1])}, ["n", *size[2:].tolist(), spatial],
                    opset=20, constants={"size": size})

    return build


def _roi_align(mode, coordinate_mode, opset=16):  # onnxruntime has no RoiAlign-22 kernel
    def build():
        rng = np.random.default_rng(7)
        image = rng.standard_normal((2, 3, 10, 12)).astype(np.float32)
        corners = rng.uniform(-2, 13, (5, 2, 2))
        rois = np.concatenate([corners.min(1), corners.max(1)], axis=1).astype(np.float32)
        rois[0] = [3.2, 4.1, 3.6, 4.3]  # smaller than a pixel
        batch_indices = np.array([0, 1, 1, 0, 1], dtype=np.int64)
        attributes = dict(mode=mode, output_height=3, output_width=4, sampling_ratio=2, spatial_scale=0.9)
        if coordinate_mode is not None:
            attributes["coordinate_transformation_mode"] = coordinate_mode
        node = helper.make_node("RoiAlign", ["x", "rois", "batch_indices"], ["y"], **attributes)
        inputs = {"x": (image, ["n", 3, 10, 12]), "rois": (rois, ["r", 4]), "batch_indices": (batch_indices, ["r"])}
        return Case(node, inputs, ["r", 3, 3, 4], opset=opset)

    return build


# Every mode with every padding mode; align_corners alternates (the conformance cases cover both).
def _deform_conv():
    """onnxruntime's DeformConv kernel is newer than some installs: ONNX's reference is the judge."""
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 4, 6, 5)).astype(np.float32)
    weight = rng.standard_normal((6, 2, 2, 3)).astype(np.float32)  # group 2
    offset = (rng.standard_normal((2, 2 * 6 * 2, 3, 2)) * 1.5).astype(np.float32)  # offset_group 2, outputs 3 x 2
    bias = rng.standard_normal(6).astype(np.float32)
    mask = rng.uniform(0, 1, (2, 2 * 6, 3, 2)).astype(np.float32)
    node = helper.make_node("DeformConv", ["x", "w", "offset", "b", "mask"], ["y"], group=2, offset_group=2,
                            pads=[1, 0, 0, 1], strides=[2, 1], dilations=[1, 2])
    inputs = {"x": (x, ["n", 4, 6, 5]), "w": (weight, [6, 2, 2, 3]), "offset": (offset, ["n", 24, 3, 2]),
              "b": (bias, [6]), "mask": (mask, ["n", 12, 3, 2])}
    return Case(node, inputs, ["n", 6, 3, 2], opset=19, onnx_reference=True)


CASES = {
    f"GridSample-{mode}-{padding}-align{align}": _grid_sample(mode, padding, align)
    for (mode, padding), align in zip(
        itertools.product(("linear", "nearest", "cubic"), ("zeros", "border", "reflection")), itertools.cycle((0, 1))
    )
}
CASES.update({
    "GridSample-16-bicubic-zeros": _grid_sample("bicubic", "zeros", 0, opset=16),
    "GridSample-16-bilinear-reflection": _grid_sample("bilinear", "reflection", 1, opset=16),
    "GridSample-3d-linear-reflection": _grid_sample("linear", "reflection", 0, spatial=3),
    "GridSample-3d-nearest-zeros-align": _grid_sample("nearest", "zeros", 1, spatial=3),
    "GridSample-nearest-ties": _grid_sample("nearest", "zeros", 1, tie_grid=True),
    "GridSample-dynamic-image-cubic-reflection": _grid_sample("cubic", "reflection", 1, dynamic_image=True),
    "GridSample-dynamic-image-linear-border": _grid_sample("linear", "border", 0, dynamic_image=True),
    "AffineGrid-2d": _affine_grid(2, 0),
    "AffineGrid-3d-align": _affine_grid(3, 1),
    "RoiAlign-avg-half_pixel": _roi_align("avg", "half_pixel"),
    "RoiAlign-max-output_half_pixel": _roi_align("max", "output_half_pixel"),
    "RoiAlign-10-avg": _roi_align("avg", None, opset=10),
    "DeformConv-groups-mask-bias": _deform_conv,
})
# TOSA and StableHLO get a slice: each family of forms once.
STATIC_CASES = [
    "GridSample-linear-zeros-align0", "GridSample-nearest-reflection-align1", "GridSample-cubic-border-align1",
    "GridSample-3d-nearest-zeros-align", "AffineGrid-3d-align", "RoiAlign-max-output_half_pixel", "RoiAlign-10-avg",
    "DeformConv-groups-mask-bias",
]
IREE_CASES = ["GridSample-cubic-reflection-align0", "RoiAlign-avg-half_pixel"]


def _params():
    for name in CASES:
        yield pytest.param(name, "linalg-on-tensors", id=f"{name}-linalg-on-tensors")
    for name, backend in itertools.product(STATIC_CASES, BACKENDS[1:]):
        yield pytest.param(name, backend, id=f"{name}-{backend}")


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


@pytest.mark.parametrize("name", IREE_CASES)
def test_iree_matches_onnxruntime(name):
    case = CASES[name]()
    module = onnx_torch_mlir.compile(case.model(static=False), "linalg-on-tensors")
    _assert_matches(compile_with_iree(module, "linalg-on-tensors")(*case.arrays()), case.expected())


def test_grid_sample_16_refuses_a_volumetric_input():
    case = _grid_sample("bilinear", "zeros", 0, opset=16, spatial=3)()
    with pytest.raises(Exception, match="GridSample-16 takes a 4-D input"):
        onnx_torch_mlir.compile(case.model(static=True), "linalg-on-tensors")


def test_roi_align_refuses_an_adaptive_sampling_ratio():
    case = _roi_align("avg", "half_pixel")()
    for attribute in case.node.attribute:
        if attribute.name == "sampling_ratio":
            attribute.i = 0
    with pytest.raises(Exception, match="sampling_ratio 0"):
        onnx_torch_mlir.compile(case.model(static=True), "linalg-on-tensors")
