"""Convolutions: Conv, ConvTranspose, both as `aten.convolution`.

torch pads symmetrically; ONNX `pads` may differ at the two ends of a dim. Conv pads the
input explicitly for the asymmetric part. ConvTranspose's pads *crop* the full output, so
it runs with the symmetric part and crops (or zero-extends, then adds the bias) the rest.
"""

from __future__ import annotations


from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _kernel(node: OnnxNode, weight_sizes: list) -> list:
    """Spatial kernel sizes: the weight's (None if dynamic), checked against `kernel_shape`."""
    kernel = list(weight_sizes[2:])
    declared = node.attr_ints("kernel_shape", None)
    if declared is None:
        return kernel
    if len(declared) != len(kernel):
        node.fail(f"attribute 'kernel_shape' {declared} does not match the weight's rank {len(weight_sizes)}")
    for i, (size, wanted) in enumerate(zip(kernel, declared)):
        if size is not None and size != wanted:
            node.fail(f"attribute 'kernel_shape' {declared} does not match the weight's spatial sizes {kernel}")
    return list(declared)


def _convolution(b, result_type, x, weight, bias, strides, padding, dilations, transposed, output_padding, group):
    return b.op(
        "aten.convolution", result_type, x, weight, bias if bias is not None else b.constant_none(),
        b.int_list(strides), b.int_list(padding), b.int_list(dilations), b.constant_bool(transposed),
        b.int_list(output_padding), b.constant_int(group),
    )


def _convolution_geometry(node: OnnxNode):
    """Input and weight sizes, spatial dim count, kernel, strides and dilations of Conv/ConvTranspose."""
    x_sizes, weight_sizes = node.input_sizes(0), node.input_sizes(1)
    count = len(x_sizes) - 2
    if count < 1 or len(weight_sizes) != len(x_sizes):
        node.fail(f"input rank {len(x_sizes)} and weight rank {len(weight_sizes)} do not form a convolution")
    kernel = _kernel(node, weight_sizes)
    strides = node.spatial_ints("strides", count, 1)
    dilations = node.spatial_ints("dilations", count, 1)
    return x_sizes, weight_sizes, count, kernel, strides, dilations


@converts("Conv", since=1)
def conv(node: OnnxNode, b: TorchBuilder):
    """Y = conv(X, W) + B with strides, dilations, group and pads (or auto_pad)."""
    x, weight, bias = node.input(0), node.input(1), node.optional_input(2)
    x_sizes, weight_sizes, count, kernel, strides, dilations = _convolution_geometry(node)
    begins, ends = node.resolve_pads(x_sizes[2:], kernel, strides, dilations, b, x)
    if None in [b.static_dim(pad) for pad in begins + ends]:
        # auto_pad SAME with a stride on a dynamic size: pads computed at run time, padded explicitly.
        x, begins, ends = b.pad_spatial(x, begins, ends, 0.0), [0] * count, [0] * count
    padding = [min(p, q) for p, q in zip(begins, ends)]
    if begins != ends:
        x = b.pad_spatial(x, [p - s for p, s in zip(begins, padding)], [q - s for q, s in zip(ends, padding)], 0.0)
    group = node.attr_int("group")
    if group < 1:
        node.fail(f"group must be at least 1, not {group}")
    static_channels = None not in (b.info(x).sizes[1], weight_sizes[0])
    if group == 1 or count < 3 or not static_channels or node.result_info().rank is None:
        return _convolution(
            b, node.result_type(), x, weight, bias, strides, padding, dilations, False, [0] * count, group
        )
    # Grouped 3-D convolution, one group at a time: TOSA and Linalg lower only some grouped 3-D forms.
    group_inputs, group_outputs = b.info(x).sizes[1] // group, weight_sizes[0] // group
    result = node.result_info()
    parts = []
    for g in range(group):
        part_x = b.slice_range(x, 1, g * group_inputs, (g + 1) * group_inputs)
        part_weight = b.slice_range(weight, 0, g * group_outputs, (g + 1) * group_outputs)
        part_bias = None if bias is None else b.slice_range(bias, 0, g * group_outputs, (g + 1) * group_outputs)
        part_type = b.tensor_type([result.sizes[0], group_outputs] + list(result.sizes[2:]), result.element)
        parts.append(
            _convolution(
                b, part_type, part_x, part_weight, part_bias, strides, padding, dilations, False, [0] * count, 1
            )
        )
    return b.op("aten.cat", node.result_type(), b.tensor_list(parts), b.constant_int(1))


def _transpose_pads(node: OnnxNode, x_sizes, kernel, strides, dilations, output_padding):
    """(begins, ends): pads cropped from the full transposed-convolution output.

    `output_shape` (or SAME_*) fixes the total; SAME_UPPER puts the larger half at the end,
    anything else at the beginning (ONNX's rule). A negative pad extends the output.
    """
    count = len(kernel)
    auto_pad = node.attr_string("auto_pad", "NOTSET") or "NOTSET"
    output_shape = node.attr_ints("output_shape", None)
    if output_shape is None and auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
        if auto_pad not in ("NOTSET", "VALID"):
            node.fail(f"auto_pad '{auto_pad}' is not supported")
        pads = node.attr_ints("pads", None) if auto_pad == "NOTSET" else None
        pads = pads or [0] * (2 * count)
        if len(pads) != 2 * count:
            node.fail(f"attribute 'pads' has {len(pads)} values for {count} spatial dims")
        return list(pads[:count]), list(pads[count:])
    if output_shape is not None:
        output_shape = list(output_shape[-count:])
        if len(output_shape) != count:
            node.fail(f"attribute 'output_shape' {output_shape} has fewer values than {count} spatial dims")
    begins, ends = [], []
    for i in range(count):
        if kernel[i] is None:
            node.fail("output_shape or auto_pad SAME needs a static kernel size")
        effective = (kernel[i] - 1) * dilations[i] + 1
        if output_shape is None:
            # Output = input * stride: the total does not depend on the input size.
            total = output_padding[i] + effective - strides[i]
        else:
            if x_sizes[i] is None:
                node.fail(f"attribute 'output_shape' needs a static spatial input size (dim {i + 2})")
            total = strides[i] * (x_sizes[i] - 1) + output_padding[i] + effective - output_shape[i]
        small, large = total // 2, total - total // 2
        begins.append(small if auto_pad == "SAME_UPPER" else large)
        ends.append(large if auto_pad == "SAME_UPPER" else small)
    return begins, ends


@converts("ConvTranspose", since=1)
def conv_transpose(node: OnnxNode, b: TorchBuilder):
    """Transposed convolution; W is [C, M/group, k...] like torch's. With group > 1 each group
    is convolved on its own and the results concatenated: torch-mlir's backends mis-lower
    grouped transposed convolutions."""
    x, weight, bias = node.input(0), node.input(1), node.optional_input(2)
    x_sizes, weight_sizes, count, kernel, strides, dilations = _convolution_geometry(node)
    output_padding = node.spatial_ints("output_padding", count, 0)
    begins, ends = _transpose_pads(node, x_sizes[2:], kernel, strides, dilations, output_padding)
    window = (kernel, strides, dilations, output_padding, begins, ends)
    group = node.attr_int("group")
    if group < 1:
        node.fail(f"group must be at least 1, not {group}")
    bias_sizes = node.input_sizes(2) if bias is not None else None
    if bias_sizes and None not in (bias_sizes[0], weight_sizes[1]) and bias_sizes != [weight_sizes[1] * group]:
        node.fail(f"bias of shape {bias_sizes} for {weight_sizes[1] * group} output channels (weight {weight_sizes}, "
                  f"group {group})")
    if group == 1:
        return b.cast_to(_conv_transpose(node, b, x, weight, bias, *window), node.result_type())
    channels, group_outputs = x_sizes[1], weight_sizes[1]
    if channels is None or group_outputs is None or weight_sizes[0] is None:
        node.fail(f"group {group} needs static input channels and weight sizes")
    if channels % group or weight_sizes[0] != channels:
        node.fail(f"group {group} does not divide the {channels} input channels of a weight of {weight_sizes[0]}")
    group_inputs = channels // group
    parts = []
    for g in range(group):
        part_x = b.slice_range(x, 1, g * group_inputs, (g + 1) * group_inputs)
        part_weight = b.slice_range(weight, 0, g * group_inputs, (g + 1) * group_inputs)
        part_bias = None if bias is None else b.slice_range(bias, 0, g * group_outputs, (g + 1) * group_outputs)
        parts.append(_conv_transpose(node, b, part_x, part_weight, part_bias, *window))
    sizes = list(b.info(parts[0]).sizes)
    sizes[1] = group_outputs * group
    joined = b.op("aten.cat", b.tensor_type(sizes, b.info(parts[0]).element), b.tensor_list(parts), b.constant_int(1))
    return b.cast_to(joined, node.result_type())


def _conv_transpose(node, b, x, weight, bias, kernel, strides, dilations, output_padding, begins, ends):
    """One group's transposed convolution with ONNX pads (crop) and output_padding (extend)."""
    x_sizes, weight_sizes = list(b.info(x).sizes), list(b.info(weight).sizes)
    count = len(kernel)
    element = node.result_info().element
    # The common padding, not beyond where output_padding extends the end: the rows it would
    # crop there hold contributions that the extension must keep.
    padding = [max(0, min(p, q - op)) for p, q, op in zip(begins, ends, output_padding)]
    torch_fits = all(
        p == q >= 0 and op < max(s, d) for p, q, op, s, d in zip(begins, ends, output_padding, strides, dilations)
    )
    sizes = [x_sizes[0], weight_sizes[1]]
    for i in range(count):
        if x_sizes[i + 2] is None or kernel[i] is None:
            sizes.append(None)
        else:
            full = strides[i] * (x_sizes[i + 2] - 1) + (kernel[i] - 1) * dilations[i] + 1
            sizes.append(full + output_padding[i] - begins[i] - ends[i] if torch_fits else full - 2 * padding[i])
    direct_padding = [None if k is None else (k - 1) * d - p for k, d, p in zip(kernel, dilations, begins)]
    if torch_fits and set(strides) == {1} and max(dilations) > 1 and not any(output_padding):
        if all(p is not None and p >= 0 for p in direct_padding):
            # With stride 1 it is a direct convolution with the flipped, transposed kernel;
            # TOSA lowers no dilated transposed convolution.
            weight_info = b.info(weight)
            swapped = [weight_info.sizes[1], weight_info.sizes[0]] + list(weight_info.sizes[2:])
            weight = b.op(
                "aten.transpose.int", b.tensor_type(swapped, weight_info.element), weight, b.constant_int(0),
                b.constant_int(1),
            )
            weight = b.op("aten.flip", weight.type, weight, b.int_list(list(range(2, count + 2))))
            return _convolution(
                b, b.tensor_type(sizes, element), x, weight, bias, strides, direct_padding, dilations, False,
                [0] * count, 1,
            )
    if torch_fits:
        return _convolution(
            b, b.tensor_type(sizes, element), x, weight, bias, strides, begins, dilations, True, output_padding, 1
        )

    # torch pads symmetrically by the common part; crop or extend each end for the rest.
    y = _convolution(
        b, b.tensor_type(sizes, element), x, weight, None, strides, padding, dilations, True, [0] * count, 1
    )
    for i in range(count):
        start = begins[i] - padding[i]  # < 0 only if begins[i] < 0: extend at the front
        trailing = ends[i] - padding[i] - output_padding[i]  # < 0: extend at the end
        y = b.slice_dim(y, i + 2, max(start, 0), max(trailing, 0))
        if start < 0 or trailing < 0:
            front, back = [0] * count, [0] * count
            front[i], back[i] = max(-start, 0), max(-trailing, 0)
            y = b.pad_spatial(y, front, back, 0.0)
    if bias is not None:
        y = b.binary("aten.add.Tensor", y, b.unsqueeze_trailing(bias, count))
    return y
