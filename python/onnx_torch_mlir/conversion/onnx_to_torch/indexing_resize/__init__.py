"""Resize (opsets 10, 11, 13, 18, 19) and Upsample (opsets 7, 9; deprecated from 10).

From opset 11, when the extents of the resized axes are static and the output size is known at
compile time (constant scales or sizes, or a static declared result with sizes), Resize is built
here as ONNX defines it, one axis at a time: each output position is a weighted sum of a few input
positions along the axis (its taps), whose indices and weights are computed at compile time in
float64 by the formulas of the ONNX specification (and its reference implementation), or by the
same formulas as float32 torch ops for scales or a roi given at run time (`torch_arrays`). Every mode,
coordinate transformation, nearest rounding, antialias, exclude_outside, cubic coefficient,
extrapolation value, keep_aspect_ratio_policy, axes and rank comes out exact, and the result is an
`index_select`, `mul` and `add` per tap that every backend lowers the same way.

A dynamic dim the Resize leaves as it is (a dynamic batch, the sizes Concat(Shape(x)[:2], [H, W])
of an export with a dynamic batch; constant scales of 1 there) stays dynamic in that form. It is
used so on TOSA and StableHLO, whose torch-mlir lowerings have no interpolation of dynamic shape
(also for Resize-10 and Upsample-9), and on Linalg for the forms its interpolation cannot express.
On TOSA with more than one dynamic dim, where TorchToTosa's gather takes one, each resized axis
is instead a matmul with its constant [out, in] interpolation matrix built from the same taps.

A nearest Resize or Upsample by whole-number factors along a dynamic spatial dim (a YOLO neck's
scales (1, 1, 2, 2), sizes Shape(x) * 2), where each output position k*i + r reads input position i,
is per axis an unsqueeze, an expand and a collapse on every backend (`repeats.py`): no gather, no
size computed in float (which IREE could not compile before a padded convolution).

Otherwise (dynamic extents, scales computed at run time), and for Resize-10 and Upsample, the
op becomes `aten.__interpolate.size_list_scale_list` over the spatial dimensions (2 and up).
torch-mlir's lowering of that op reads the ONNX coordinate transformation and nearest rounding
from the mode string: `<mode>[_<coordinate_transformation_mode>][,<nearest_mode>]` where mode is
`nearest`, `bilinear` or `cubic`; the coordinate mode is omitted when it is the mode's own default
(`asymmetric` for nearest, `half_pixel` for bilinear and cubic) and `align_corners` for bilinear is
the `align_corners` operand instead. Forms that lowering gets wrong or cannot express are refused
by name: antialias, tf_crop_and_resize, a cubic coefficient other than -0.75, exclude_outside,
nearest with a coordinate mode other than half_pixel and asymmetric, align_corners with scales
(ONNX maps by the fractional length in * scale, the lowering by the integer output length),
linear or cubic over other than two spatial dimensions, resizing the batch or channel dimension.
"""

from . import patterns  # noqa: F401
