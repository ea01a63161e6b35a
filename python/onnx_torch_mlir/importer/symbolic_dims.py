"""Arithmetic on dims that may be symbolic: an int, a string (a named dim) or None (unknown).

The same name is the same size; nothing is known of an unknown dim. A result
that the operands do not determine is None. The functions assume a valid model
(broadcast dims are compatible, a concatenation's other dims agree).
"""


def is_int(dim) -> bool:
    return isinstance(dim, int)


def multiply(a, b):
    if is_int(a) and is_int(b):
        return a * b
    if a == 1 or b == 0:
        return b
    if b == 1 or a == 0:
        return a
    return None


def divide(a, b):
    """a / b when it is exact (or b is 1), else None."""
    if b == 1:
        return a
    if is_int(a) and is_int(b) and b != 0 and a % b == 0:
        return a // b
    return None


def add(a, b):
    if is_int(a) and is_int(b):
        return a + b
    if b == 0:
        return a
    if a == 0:
        return b
    return None


def broadcast_dim(a, b):
    """The broadcast of two dims of a valid model: a dim of 1 yields, a known size wins."""
    if a == b or b == 1:
        return a
    if a == 1:
        return b
    if is_int(a):
        return a
    if is_int(b):
        return b
    return None


def broadcast(left: list | None, right: list | None) -> list | None:
    """Numpy broadcasting of two dims lists; None when either rank is unknown."""
    if left is None or right is None:
        return None
    rank = max(len(left), len(right))
    left = [1] * (rank - len(left)) + list(left)
    right = [1] * (rank - len(right)) + list(right)
    return [broadcast_dim(a, b) for a, b in zip(left, right)]


def matmul_dims(left: list | None, right: list | None) -> list | None:
    """numpy.matmul's result dims: 1-D operands are promoted and their added dim dropped."""
    if not left or not right:
        return None
    left_matrix = [1] + left if len(left) == 1 else left
    right_matrix = right + [1] if len(right) == 1 else right
    batch = broadcast(left_matrix[:-2], right_matrix[:-2])
    rows = [] if len(left) == 1 else [left_matrix[-2]]
    columns = [] if len(right) == 1 else [right_matrix[-1]]
    return batch + rows + columns


def concatenated_dims(operands: list, axis: int) -> list | None:
    """The dims of a concatenation of tensors of the `operands` dims along `axis`."""
    if not operands or any(dims is None for dims in operands):
        return None
    rank = len(operands[0])
    if any(len(dims) != rank for dims in operands):
        return None
    axis = axis + rank if axis < 0 else axis
    result = list(operands[0])
    for dims in operands[1:]:
        for index, dim in enumerate(dims):
            result[index] = add(result[index], dim) if index == axis else broadcast_dim(result[index], dim)
    return result


def window_output_size(size, kernel, stride, dilation, pad_begin, pad_end, auto_pad, ceil_mode) -> int | None:
    """The output size of a convolution or pooling window along one spatial dim (ONNX's rules)."""
    if not is_int(size) or not is_int(kernel):
        return None
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        return -(-size // stride)
    extent = dilation * (kernel - 1) + 1
    if auto_pad == "VALID":
        return (size - extent) // stride + 1
    span = size + pad_begin + pad_end - extent
    if not ceil_mode:
        return span // stride + 1
    output = -(-span // stride) + 1
    # A last window that would start in the end padding is dropped.
    return output - 1 if (output - 1) * stride >= size + pad_begin else output
