"""Linear algebra: Det (opset 11) and AffineGrid (opset 20, an affine map of a coordinate grid).

torch-mlir has no lowering of `aten.linalg_det` on any backend, so the determinant is computed
here by Gaussian elimination with partial pivoting, unrolled over the (static) matrix size:
at step k the row with the largest |A[i, k]| (i >= k) is swapped into row k (the sign flips when
it is another row), the pivot multiplies the determinant, and the rows below are reduced. The
pivot search is `aten.argmax` and the swap and reduction are elementwise arithmetic with one-hot
masks, which every backend lowers. A zero pivot column gives 0 (the pivot is replaced by 1 in
the division so that no inf or NaN reaches the later steps).
"""

from __future__ import annotations

import numpy as np

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


@converts("Det", since=11)
def det(node: OnnxNode, b: TorchBuilder):
    """Y[...] = det(X[..., :, :]) for square trailing matrices."""
    sizes = node.input_sizes(0)
    if len(sizes) < 2 or sizes[-1] is None or sizes[-1] != sizes[-2]:
        node.fail(f"input of shape {sizes} is not a batch of square matrices of static size")
    info = node.input_info(0)
    if not info.is_float:
        node.fail(f"element type {info.element} is not a float type")
    size = sizes[-1]
    element = "f64" if info.element == "f64" else "f32"
    batch_dims = b.dims(node.input(0))[:-2]
    batch = b.dim_product(batch_dims)
    matrices = b.reshape(b.to_dtype(node.input(0), element), [batch, size, size])
    determinant = _eliminate(b, matrices, size, element)
    result = b.reshape(determinant, batch_dims, node.result_info().sizes)
    return b.to_dtype(result, node.result_info().element)


def _eliminate(b: TorchBuilder, a, size: int, element: str):
    """det of each [size, size] matrix of a [B, size, size] batch: a [B] tensor."""
    batch = b.static_dim(b.dim(a, 0))
    matrix_type = b.tensor_type([batch, size, size], element)
    vector_type = b.tensor_type([batch, size], element)
    scalar_type = b.tensor_type([batch], element)
    determinant = None
    for k in range(size):
        column = _select(b, a, 2, k, vector_type)  # [B, size]
        # Rows above k are out of the search: their magnitude is pushed below every other one.
        above = b.literal(np.arange(size) < k, "i1")
        magnitude = b.op("aten.abs", vector_type, column)
        magnitude = b.op("aten.where.ScalarSelf", vector_type, above, b.constant_float(-1.0), magnitude)
        pivot_row = b.op("aten.argmax", b.tensor_type([batch], "si64"), magnitude, b.constant_int(1), b.constant_bool(False))
        pivot_one_hot = _one_hot(b, pivot_row, size, element)  # [B, size]
        row_k_one_hot = b.literal(np.eye(size, dtype=np.float32)[k], element)  # [size]
        row_k = _select(b, a, 1, k, vector_type)  # [B, size]
        pivot_values = b.op("aten.bmm", b.tensor_type([batch, 1, size], element), b.unsqueeze(pivot_one_hot, 1), a)
        pivot_values = b.reshape(pivot_values, [b.dim(a, 0), size], [batch, size])
        # Swap: a += (e_k - e_p) (row_p - row_k)^T; a no-op when p == k.
        direction = b.binary("aten.sub.Tensor", b.unsqueeze(row_k_one_hot, 0), pivot_one_hot, vector_type)
        difference = b.binary("aten.sub.Tensor", pivot_values, row_k, vector_type)
        a = b.binary("aten.add.Tensor", a, b.binary("aten.mul.Tensor", b.unsqueeze(direction, 2), b.unsqueeze(difference, 1), matrix_type))
        swapped = b.op("aten.ne.Scalar", b.tensor_type([batch], "i1"), pivot_row, b.constant_int(k))
        sign = b.op("aten.where.Scalar", scalar_type, swapped, b.constant_float(-1.0), b.constant_float(1.0))
        pivot = _select(b, pivot_values, 1, k, scalar_type)
        factor = b.binary("aten.mul.Tensor", sign, pivot, scalar_type)
        determinant = factor if determinant is None else b.binary("aten.mul.Tensor", determinant, factor, scalar_type)
        if k == size - 1:
            break
        zero = b.op("aten.eq.Scalar", b.tensor_type([batch], "i1"), pivot, b.constant_float(0.0))
        safe_pivot = b.op("aten.where.ScalarSelf", scalar_type, zero, b.constant_float(1.0), pivot)
        column = _select(b, a, 2, k, vector_type)
        below = b.literal((np.arange(size) > k).astype(np.float32), element)
        factors = b.binary("aten.mul.Tensor", b.binary("aten.div.Tensor", column, b.unsqueeze(safe_pivot, 1), vector_type), b.unsqueeze(below, 0), vector_type)
        a = b.binary("aten.sub.Tensor", a, b.binary("aten.mul.Tensor", b.unsqueeze(factors, 2), b.unsqueeze(pivot_values, 1), matrix_type))
    return determinant


@converts("AffineGrid", since=20)
def affine_grid(node: OnnxNode, b: TorchBuilder):
    """grid[n, *p, :] = theta[n] @ (x_p, y_p, [z_p,] 1): the normalized coordinates of every output
    position (innermost dim first; -1 + (2i + 1) / size, or -1 + 2i / (size - 1) with
    align_corners) through each batch entry's affine matrix, as one `aten.bmm`. The spatial
    sizes come from `size` when it is a constant, else from the declared result's shape."""
    theta_sizes = node.input_sizes(0)
    if len(theta_sizes) != 3 or theta_sizes[1] not in (2, 3) or theta_sizes[2] != theta_sizes[1] + 1:
        node.fail(f"theta of shape {theta_sizes} is not [N, 2, 3] or [N, 3, 4]")
    spatial = theta_sizes[1]
    size = node.constant_input(1)
    if size is not None:
        extents = [int(v) for v in size.reshape(-1)[2:]]
    else:
        extents = list(node.result_info().sizes or [])[1:-1]
        if len(extents) != spatial or None in extents:
            node.fail("'size' must be a constant, or the result's spatial dims static")
    if len(extents) != spatial:
        node.fail(f"'size' has {len(extents) + 2} values for a {spatial}-D theta")
    align_corners = bool(node.attr_int("align_corners"))
    axes = []
    for extent in extents:
        positions = np.arange(extent, dtype=np.float64)
        if align_corners:
            axes.append(-1 + 2 * positions / (extent - 1) if extent > 1 else np.full(extent, -1.0))
        else:
            axes.append(-1 + (2 * positions + 1) / extent)
    mesh = np.meshgrid(*axes, indexing="ij")
    points = int(np.prod(extents))
    homogeneous = np.stack([coordinate.reshape(-1) for coordinate in reversed(mesh)] + [np.ones(points)], axis=1)
    element = "f64" if node.input_info(0).element == "f64" else "f32"
    theta = b.to_dtype(node.input(0), element)
    batch = b.dim(theta, 0)
    static_batch = b.static_dim(batch)
    base = b.literal(homogeneous.astype(np.float64 if element == "f64" else np.float32), element)
    base = b.op(
        "aten.broadcast_to", b.tensor_type([static_batch, points, spatial + 1], element), b.unsqueeze(base, 0),
        b.int_list([batch, points, spatial + 1]),
    )
    transposed = b.op(
        "aten.transpose.int", b.tensor_type([static_batch, spatial + 1, spatial], element), theta, b.constant_int(1),
        b.constant_int(2),
    )
    grid = b.op("aten.bmm", b.tensor_type([static_batch, points, spatial], element), base, transposed)
    grid = b.reshape(grid, [batch, *extents, spatial], node.result_info().sizes)
    return b.to_dtype(grid, node.result_info().element)


def _select(b: TorchBuilder, x, dim: int, index: int, result_type):
    return b.op("aten.select.int", result_type, x, b.constant_int(dim), b.constant_int(index))


def _one_hot(b: TorchBuilder, indices, size: int, element: str):
    """[B] indices as [B, size] rows of 0 and 1."""
    positions = b.literal(np.arange(size, dtype=np.int64), "si64")
    equal = b.op("aten.eq.Tensor", b.tensor_type([b.info(indices).sizes[0], size], "i1"), b.unsqueeze(indices, 1), positions)
    return b.to_dtype(equal, element)
