"""Resize on random inputs, every mode and coordinate transformation, 1-D, 2-D and 3-D, up and
down (with fractional output lengths), antialias, exclude_outside, cubic_coeff_a,
keep_aspect_ratio_policy, axes, tf_crop_and_resize: compiled with our importer and conversion
to each backend, run on the reference CPU runner, compared with onnx.reference (with
onnxruntime for tf_half_pixel_for_nn, which onnx.reference does not implement).

onnxruntime differs from onnx.reference (and from ONNX's own Resize cases) for align_corners
with scales: ONNX maps by the fractional length in * scale (onnx/onnx#2462), onnxruntime by
the integer output length. Forms that need torch-mlir's interpolate lowering (run-time scales,
dynamic extents) are checked to be right or refused with a reason."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto as T
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

import onnx_torch_mlir
from onnx_torch_mlir import errors, runtime

BACKENDS = ["linalg-on-tensors", "tosa", "stablehlo"]
rng = np.random.default_rng(7)


def _model(x_shape, *, scales=None, sizes=None, roi=None, opset=19, element=T.FLOAT, runtime_input=(), y_shape=None,
           **attributes):
    """Resize of x with constant roi/scales/sizes (those named in runtime_input graph inputs)."""
    initializers, inputs, names = [], [helper.make_tensor_value_info("x", element, x_shape)], ["x"]
    for name, value, dtype in (("roi", roi, np.float32), ("scales", scales, np.float32), ("sizes", sizes, np.int64)):
        if value is None:
            names.append("")
            continue
        names.append(name)
        if name in runtime_input:
            inputs.append(helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(np.dtype(dtype)), [len(value)]))
        else:
            initializers.append(numpy_helper.from_array(np.array(value, dtype), name))
    while names[-1] == "":
        names.pop()
    graph = helper.make_graph(
        [helper.make_node("Resize", names, ["y"], **attributes)], "g", inputs,
        [helper.make_tensor_value_info("y", element, y_shape)], initializer=initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    return onnx.shape_inference.infer_shapes(model)


def _expected(model, feeds):
    if any(a.name == "coordinate_transformation_mode" and a.s == b"tf_half_pixel_for_nn" for a in model.graph.node[0].attribute):
        import onnxruntime

        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        return session.run(None, feeds)[0]
    return ReferenceEvaluator(model).run(None, feeds)[0]


def _check(model, backend, x, extra=(), expected_model=None):
    feeds = {"x": x}
    for name, value in extra:
        feeds[name] = value
    want = _expected(expected_model or model, feeds)
    (got,) = runtime.run(onnx_torch_mlir.compile(model, backend), [x] + [v for _, v in extra], input_dialect=backend,
                         result_dtypes=[x.dtype])
    assert got.shape == want.shape
    if x.dtype.kind in "iu" or model.graph.node[0].attribute and _mode(model) == "nearest":
        np.testing.assert_array_equal(got, want)
    else:
        tolerance = 2e-3 if x.dtype == np.float16 else 1e-5
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=tolerance, atol=tolerance)


def _mode(model) -> str:
    for attribute in model.graph.node[0].attribute:
        if attribute.name == "mode":
            return attribute.s.decode()
    return "nearest"


# (input shape, scales or sizes): 1-D, 2-D, 3-D; up and down with fractional output lengths.
GEOMETRIES = {
    "1d_down": ([1, 2, 8], {"scales": [1, 1, 0.6]}),
    "1d_up": ([1, 2, 5], {"scales": [1, 1, 2.5]}),
    "2d_down": ([1, 2, 4, 6], {"scales": [1, 1, 0.6, 0.5]}),
    "2d_up": ([1, 2, 4, 6], {"scales": [1, 1, 1.7, 2.0]}),
    "2d_far_down": ([1, 2, 8, 7], {"scales": [1, 1, 0.25, 0.3]}),
    "3d_mixed": ([1, 1, 3, 4, 5], {"scales": [1, 1, 0.7, 1.5, 0.5]}),
    "2d_sizes_down": ([1, 2, 8, 7], {"sizes": [1, 2, 3, 5]}),
    "2d_sizes_up": ([1, 2, 4, 6], {"sizes": [1, 2, 7, 9]}),
    "1d_sizes_to_one": ([2, 1, 9], {"sizes": [2, 1, 1]}),
}
COORDINATE_MODES = ["half_pixel", "half_pixel_symmetric", "pytorch_half_pixel", "align_corners", "asymmetric"]


# Every geometry on Linalg; on TOSA and StableHLO (which share the computation) a few.
PLACES = [("linalg-on-tensors", g) for g in sorted(GEOMETRIES)] + [
    (backend, g) for backend in BACKENDS[1:] for g in ("2d_far_down", "3d_mixed")
]


@pytest.mark.parametrize("backend, geometry", PLACES, ids=[f"{g}-{b}" for b, g in PLACES])
@pytest.mark.parametrize("coordinate_mode", COORDINATE_MODES)
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_matches_onnx_reference(mode, coordinate_mode, geometry, backend):
    shape, size_spec = GEOMETRIES[geometry]
    model = _model(shape, mode=mode, coordinate_transformation_mode=coordinate_mode, **size_spec)
    expected_model = None
    if coordinate_mode == "pytorch_half_pixel" and geometry == "1d_sizes_to_one":
        # ONNX (and onnxruntime) read a length-1 output at 0, as align_corners does; onnx.reference
        # reads at -0.5, which only cubic tells apart.
        expected_model = _model(shape, mode=mode, coordinate_transformation_mode="align_corners", **size_spec)
    _check(model, backend, rng.standard_normal(shape).astype(np.float32), expected_model=expected_model)


@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_pytorch_half_pixel_to_one_matches_onnxruntime(mode):
    """Scales 0.25 of 6 make a fractional length 1.5 and one output: read at 0, as ONNX says and
    onnxruntime does (onnx.reference reads at (0 + 0.5) / 0.25 - 0.5 = 1.5)."""
    import onnxruntime

    shape = [1, 1, 4, 6]
    x = rng.standard_normal(shape).astype(np.float32)
    model = _model(shape, scales=[1, 1, 1, 0.25], mode=mode, coordinate_transformation_mode="pytorch_half_pixel")
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (got,) = runtime.run(onnx_torch_mlir.compile(model, "linalg-on-tensors"), [x])
    np.testing.assert_allclose(got, session.run(None, {"x": x})[0], rtol=1e-6, atol=1e-6)


VARIANTS = {
    # nearest rounding
    "nearest_floor": ([1, 1, 5, 7], dict(scales=[1, 1, 1.5, 0.6], mode="nearest", nearest_mode="floor")),
    "nearest_ceil": ([1, 1, 5, 7], dict(scales=[1, 1, 1.5, 0.6], mode="nearest", nearest_mode="ceil")),
    "nearest_round_prefer_ceil": ([1, 1, 4, 6], dict(scales=[1, 1, 2.0, 0.5], mode="nearest", nearest_mode="round_prefer_ceil", coordinate_transformation_mode="asymmetric")),
    "nearest_tf_half_pixel_for_nn": ([1, 2, 4, 6], dict(scales=[1, 1, 1.5, 0.5], mode="nearest", coordinate_transformation_mode="tf_half_pixel_for_nn", opset=13)),
    # antialias, exclude_outside, cubic coefficient
    "linear_antialias_down": ([1, 2, 9, 8], dict(scales=[1, 1, 0.4, 0.6], mode="linear", antialias=1)),
    "linear_antialias_up": ([1, 2, 3, 4], dict(scales=[1, 1, 2.0, 1.5], mode="linear", antialias=1)),
    "cubic_antialias_down": ([1, 2, 9, 8], dict(scales=[1, 1, 0.4, 0.6], mode="cubic", antialias=1)),
    "cubic_antialias_sizes": ([1, 1, 10, 10], dict(sizes=[1, 1, 3, 4], mode="cubic", antialias=1)),
    "linear_antialias_3d": ([1, 1, 6, 5, 7], dict(scales=[1, 1, 0.5, 0.8, 0.4], mode="linear", antialias=1)),
    "cubic_exclude_outside": ([1, 2, 4, 5], dict(scales=[1, 1, 0.8, 1.6], mode="cubic", exclude_outside=1, cubic_coeff_a=-0.5)),
    "cubic_a_half_align": ([1, 2, 4, 5], dict(scales=[1, 1, 0.6, 1.4], mode="cubic", cubic_coeff_a=-0.5, coordinate_transformation_mode="align_corners")),
    "cubic_antialias_exclude": ([1, 1, 9, 8], dict(scales=[1, 1, 0.3, 0.5], mode="cubic", antialias=1, exclude_outside=1)),
    # keep_aspect_ratio_policy and axes
    "not_larger": ([1, 2, 4, 6], dict(sizes=[7, 8], axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="linear")),
    "not_smaller": ([1, 2, 4, 6], dict(sizes=[7, 8], axes=[2, 3], keep_aspect_ratio_policy="not_smaller", mode="cubic")),
    "not_larger_nearest": ([1, 1, 5, 3], dict(sizes=[2, 9], axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="nearest")),
    "axes_reversed": ([1, 2, 4, 6], dict(scales=[0.5, 1.5], axes=[3, 2], mode="linear", coordinate_transformation_mode="align_corners")),
    "axes_last_only": ([2, 3, 5], dict(sizes=[8], axes=[2], mode="cubic")),
    "resize_channels": ([1, 4, 3, 3], dict(scales=[1, 0.5, 2, 1], mode="linear")),
    "resize_batch_nearest": ([3, 2, 2], dict(sizes=[5, 2, 3], mode="nearest")),
    # tf_crop_and_resize with extrapolation
    "crop_linear": ([1, 1, 4, 4], dict(roi=[0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], sizes=[1, 1, 3, 3], mode="linear", coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0)),
    "crop_nearest_axes": ([1, 1, 4, 4], dict(roi=[0.4, 0.6, 0.6, 0.8], sizes=[3, 3], axes=[2, 3], mode="nearest", coordinate_transformation_mode="tf_crop_and_resize")),
    "crop_cubic_one": ([1, 1, 5, 4], dict(roi=[0, 0, 0.2, 0.1, 1, 1, 0.9, 0.8], sizes=[1, 1, 1, 2], mode="cubic", coordinate_transformation_mode="tf_crop_and_resize")),
    # older opsets
    "opset11_linear_sizes": ([1, 2, 4, 6], dict(roi=[], scales=[], sizes=[1, 2, 3, 8], mode="linear", opset=11)),
    "opset13_cubic_align": ([1, 2, 4, 6], dict(scales=[1, 1, 0.6, 0.5], mode="cubic", coordinate_transformation_mode="align_corners", opset=13)),
    "opset18_nearest_sym": ([1, 2, 4, 6], dict(scales=[1, 1, 0.6, 1.5], mode="nearest", coordinate_transformation_mode="pytorch_half_pixel", opset=18)),
}


# Every variant on Linalg; on TOSA and StableHLO a few that use each kind of op.
VARIANT_PLACES = [("linalg-on-tensors", v) for v in sorted(VARIANTS)] + [
    (backend, v) for backend in BACKENDS[1:] for v in ("crop_linear", "cubic_antialias_down", "resize_channels", "not_larger_nearest")
]


@pytest.mark.parametrize("backend, variant", VARIANT_PLACES, ids=[f"{v}-{b}" for b, v in VARIANT_PLACES])
def test_resize_variant_matches_onnx_reference(variant, backend):
    shape, attributes = VARIANTS[variant]
    attributes = dict(attributes)
    size_spec = {key: attributes.pop(key) for key in ("scales", "sizes", "roi", "opset") if key in attributes}
    model = _model(shape, **size_spec, **attributes)
    _check(model, backend, rng.standard_normal(shape).astype(np.float32))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_other_element_types(mode, backend):
    shape = [1, 2, 4, 6]
    model = _model(shape, element=T.FLOAT16, scales=[1, 1, 0.6, 1.5], mode=mode)
    _check(model, backend, rng.standard_normal(shape).astype(np.float16))
    if mode == "nearest":  # a gather: exact for integers
        model = _model(shape, element=T.UINT8, scales=[1, 1, 0.6, 1.5], mode=mode, coordinate_transformation_mode="align_corners")
        _check(model, backend, rng.integers(0, 256, size=shape, dtype=np.uint8))


def test_resize_interpolation_of_integers_is_refused():
    model = _model([1, 1, 4, 4], element=T.UINT8, scales=[1, 1, 0.6, 1.5], mode="linear")
    with pytest.raises(errors.ConversionError, match="interpolation needs a float input"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


# Scales, sizes or roi known only at run time, with a static declared result (as in ONNX's own
# Resize cases): the same taps, their coordinates computed at run time in float32.
RUNTIME_GEOMETRIES = {
    "2d_down": ([1, 2, 4, 6], [1, 1, 0.6, 0.5], [1, 2, 2, 3]),
    "3d_mixed": ([1, 1, 3, 4, 5], [1, 1, 0.7, 1.5, 0.5], [1, 1, 2, 6, 2]),
}
RUNTIME_PLACES = [("linalg-on-tensors", g) for g in ("2d_down", "3d_mixed")] + [(b, "2d_down") for b in BACKENDS[1:]]


@pytest.mark.parametrize("backend, geometry", RUNTIME_PLACES, ids=[f"{g}-{b}" for b, g in RUNTIME_PLACES])
@pytest.mark.parametrize("coordinate_mode", COORDINATE_MODES)
@pytest.mark.parametrize("mode", ["nearest", "linear", "cubic"])
def test_resize_runtime_scales_static_result(mode, coordinate_mode, geometry, backend):
    shape, scales, y_shape = RUNTIME_GEOMETRIES[geometry]
    model = _model(shape, scales=scales, runtime_input=("scales",), y_shape=y_shape, mode=mode,
                   coordinate_transformation_mode=coordinate_mode, exclude_outside=int(mode == "cubic"))
    _check(model, backend, rng.standard_normal(shape).astype(np.float32), extra=[("scales", np.array(scales, np.float32))])


@pytest.mark.parametrize("backend", BACKENDS)
def test_resize_runtime_roi_and_sizes(backend):
    shape = [1, 1, 4, 4]
    roi, sizes = [0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], [1, 1, 3, 3]
    model = _model(shape, roi=roi, sizes=sizes, runtime_input=("roi", "sizes"), y_shape=sizes, mode="linear",
                   coordinate_transformation_mode="tf_crop_and_resize", extrapolation_value=10.0)
    _check(model, backend, rng.standard_normal(shape).astype(np.float32),
           extra=[("roi", np.array(roi, np.float32)), ("sizes", np.array(sizes, np.int64))])
    model = _model([1, 2, 4, 6], sizes=[7, 8], axes=[2, 3], runtime_input=("sizes",), y_shape=[1, 2, 7, 11],
                   keep_aspect_ratio_policy="not_smaller", mode="cubic")
    _check(model, backend, rng.standard_normal([1, 2, 4, 6]).astype(np.float32), extra=[("sizes", np.array([7, 8], np.int64))])


# Without a static plan: scales computed at run time go through torch-mlir's interpolate
# lowering, which is right for these forms ...
@pytest.mark.parametrize("mode, coordinate_mode", [("nearest", "asymmetric"), ("nearest", "half_pixel"), ("linear", "half_pixel"),
                                                   ("linear", "pytorch_half_pixel"), ("cubic", "half_pixel")])
def test_resize_runtime_scales(mode, coordinate_mode):
    shape = [1, 2, 4, 6]
    model = _model(shape, scales=[1, 1, 2.0, 0.5], runtime_input=("scales",), mode=mode, coordinate_transformation_mode=coordinate_mode)
    _check(model, "linalg-on-tensors", rng.standard_normal(shape).astype(np.float32),
           extra=[("scales", np.array([1, 1, 2.0, 0.5], np.float32))])


# ... and refuses the ones it gets wrong.
@pytest.mark.parametrize("mode, coordinate_mode, reason", [
    ("linear", "align_corners", "'align_corners' with scales needs static input extents"),
    ("nearest", "align_corners", "mode 'nearest' with coordinate_transformation_mode 'align_corners' needs static input extents"),
    ("nearest", "half_pixel_symmetric", "mode 'nearest' with coordinate_transformation_mode 'half_pixel_symmetric' needs"),
])
def test_resize_runtime_scales_refused(mode, coordinate_mode, reason):
    model = _model([1, 2, 4, 6], scales=[1, 1, 2.0, 0.5], runtime_input=("scales",), mode=mode, coordinate_transformation_mode=coordinate_mode)
    with pytest.raises(errors.ConversionError, match=reason):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def test_resize_linear_1d_runtime_scales_refused():
    model = _model([1, 2, 8], scales=[1, 1, 0.5], runtime_input=("scales",), mode="linear")
    with pytest.raises(errors.ConversionError, match="mode 'linear' over 1 spatial dimensions needs static input extents"):
        onnx_torch_mlir.compile(model, "linalg-on-tensors")


def test_resize_negative_axes():
    """onnx.reference takes no negative axes: compare with the same model spelled with positive ones."""
    shape = [1, 1, 5, 3]
    x = rng.standard_normal(shape).astype(np.float32)
    negative = _model(shape, sizes=[2, 9], axes=[-2, -1], keep_aspect_ratio_policy="not_larger", mode="linear")
    positive = _model(shape, sizes=[2, 9], axes=[2, 3], keep_aspect_ratio_policy="not_larger", mode="linear")
    (got,) = runtime.run(onnx_torch_mlir.compile(negative, "linalg-on-tensors"), [x])
    np.testing.assert_allclose(got, ReferenceEvaluator(positive).run(None, {"x": x})[0], rtol=1e-5, atol=1e-5)
