"""Nearest Resize / Upsample by whole-number factors on dynamic image sizes (a YOLO neck, PP-OCR's
detector, diffusers' UNet and VAE) as repeats (indexing_resize/repeats.py): IREE could not compile
torch-mlir's interpolation before a padded convolution ("'iree_codegen.workgroup_count_hint' op
failed to resolve workgroup count hint in terms of workload ordinals": its output size is computed
in float). Opset 9/10/11/13/19 forms, scales and sizes from Shape(x); Linalg and StableHLO with
the batch and image size dynamic (compiled once, run at two sizes), TOSA with them fixed; reference
runner and IREE against onnxruntime. Factors that are not whole numbers keep the interpolation."""

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import onnx_torch_mlir
from consumers import program
from onnxruntime_reference import assert_matches, expected

SIZES = [(2, 5, 6), (1, 3, 4)]  # (batch, height, width) at run time


def _tensor(name, values, dtype=np.float32):
    return numpy_helper.from_array(np.array(values, dtype), name)


def _shape_times_two():
    return [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("Mul", ["shape", "factors"], ["sizes"])], \
        [_tensor("factors", [1, 1, 2, 2], np.int64)]


def _halves_times_two():
    """Concat(Shape(x)[:2], Shape(x)[2:] * 2)."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Slice", ["shape", "zero", "two"], ["kept"]),
             helper.make_node("Slice", ["shape", "two", "four"], ["spatial"]),
             helper.make_node("Mul", ["spatial", "factors"], ["doubled"]),
             helper.make_node("Concat", ["kept", "doubled"], ["sizes"], axis=0)]
    return nodes, [_tensor("zero", [0], np.int64), _tensor("two", [2], np.int64), _tensor("four", [4], np.int64),
                   _tensor("factors", [2, 2], np.int64)]


def _form(name):
    """(opset, nodes, initializers) computing y from x."""
    nearest_floor = {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    if name == "resize13-yolo":
        return 13, [helper.make_node("Resize", ["x", "", "scales"], ["y"], **nearest_floor)], \
            [_tensor("scales", [1, 1, 2, 2])]
    if name == "resize11-half-pixel":
        return 11, [helper.make_node("Resize", ["x", "roi", "scales"], ["y"], mode="nearest")], \
            [_tensor("roi", []), _tensor("scales", [1, 1, 2, 2])]
    if name == "resize19-factor-3":
        return 19, [helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                                     coordinate_transformation_mode="half_pixel_symmetric")], \
            [_tensor("scales", [1, 1, 3, 2])]
    if name == "resize13-shape-sizes":
        nodes, initializers = _shape_times_two()
        return 13, nodes + [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **nearest_floor)], initializers
    if name == "resize13-concat-sizes":
        nodes, initializers = _halves_times_two()
        return 13, nodes + [helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode="nearest")], initializers
    if name == "resize10":
        return 10, [helper.make_node("Resize", ["x", "scales"], ["y"], mode="nearest")], [_tensor("scales", [1, 1, 2, 2])]
    if name == "upsample9":
        return 9, [helper.make_node("Upsample", ["x", "scales"], ["y"], mode="nearest")], [_tensor("scales", [1, 1, 2, 2])]
    if name == "factor-1.5":  # not a whole number: the interpolation
        return 13, [helper.make_node("Resize", ["x", "", "scales"], ["y"], **nearest_floor)], \
            [_tensor("scales", [1, 1, 1.5, 2])]
    raise ValueError(name)


FORMS = ["resize13-yolo", "resize11-half-pixel", "resize19-factor-3", "resize13-shape-sizes", "resize13-concat-sizes",
         "resize10", "upsample9", "factor-1.5"]


def _model(form, padded_convolution=False, static=False):
    """The form on x [N, 3, H, W]; with `padded_convolution` a 3x3 convolution padded by 1 after it
    (what IREE failed to compile)."""
    opset, nodes, initializers = _form(form)
    if padded_convolution:
        nodes[-1].output[0] = "upsampled"
        nodes.append(helper.make_node("Conv", ["upsampled", "w"], ["y"], pads=[1, 1, 1, 1]))
        weight = np.random.default_rng(0).standard_normal((4, 3, 3, 3)).astype(np.float32)
        initializers.append(numpy_helper.from_array(weight, "w"))
    shape = [2, 3, 5, 6] if static else ["N", 3, "H", "W"]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7)


def _check(model, backend, consumer, sizes, dims=None):
    module = onnx_torch_mlir.compile(model, output_type=backend, dims=dims)
    run = program(module, backend, consumer)
    rng = np.random.default_rng(1)
    for batch, height, width in sizes:
        x = rng.standard_normal((batch, 3, height, width)).astype(np.float32)
        assert_matches(run(x), expected(model, [x]), rtol=1e-4, atol=1e-5)
    return module


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
@pytest.mark.parametrize("form", FORMS)
def test_dynamic_image_size(form, backend, consumer):
    if backend == "stablehlo" and form == "factor-1.5":
        pytest.skip("StableHLO refuses a dynamic interpolation by name (test_stablehlo_run_time_sizes_numerics)")
    module = _check(_model(form), backend, consumer, SIZES)
    text = str(module)
    if backend == "linalg-on-tensors":  # no gather (a tensor.extract in a linalg.generic): collapsed repeats
        assert ("tensor.collapse_shape" in text) == (form != "factor-1.5")
        assert ("tensor.extract " in text) == (form == "factor-1.5")
    else:
        assert "gather" not in text


@pytest.mark.parametrize("consumer", ["reference", "iree"])
@pytest.mark.parametrize("form", FORMS)
def test_tosa_with_the_dims_fixed(form, consumer):
    _check(_model(form), "tosa", consumer, SIZES[:1], dims={"N": 2, "H": 5, "W": 6})


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo"])
def test_padded_convolution_after_the_upsampling_on_iree(backend):
    """YOLOv8's neck, reduced: the form IREE refused on Linalg."""
    _check(_model("resize13-yolo", padded_convolution=True), backend, "iree", SIZES)


@pytest.mark.parametrize("backend", ["tosa", "stablehlo"])
@pytest.mark.parametrize("form", ["resize10", "upsample9"])
def test_static_legacy_forms_by_taps(form, backend):
    """Resize-10 and Upsample-9 of a static 5x6 image by 2: torch-mlir's TOSA interpolation came out
    wrong and its StableHLO one did not legalize; both are taps now."""
    _check(_model(form, static=True), backend, "reference", SIZES[:1])
