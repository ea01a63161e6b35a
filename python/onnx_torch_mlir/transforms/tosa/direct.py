"""TOSA ops emitted directly into the Torch module, for forms torch-mlir's TOSA lowering takes only
with static shapes but TOSA itself (and its lowering to Linalg, in the reference runner and in
IREE) takes with dynamic dims. Each sits between `torch_c.to_builtin_tensor` and
`torch_c.from_builtin_tensor`, which torch-mlir's TOSA pipeline folds away (as for custom ops,
transforms/torch/custom_ops.py). Used by transforms/tosa/dynamic.py.
"""

from torch_mlir import ir

from ..torch.custom_ops import builtin_tensor_type
from ..torch.rewriting import OpsInFrontOf, constant_int, vtensor_sizes


class _Tosa(OpsInFrontOf):
    """TOSA ops in front of `op`, at its location."""

    op = OpsInFrontOf.create

    def builtin(self, value: ir.Value) -> ir.Value:
        return self.op("torch_c.to_builtin_tensor", builtin_tensor_type(value.type), [value])

    def shape(self, values: list) -> ir.Value:
        attribute = ir.Attribute.parse(f"dense<[{', '.join(map(str, values))}]> : tensor<{len(values)}xindex>")
        return self.op("tosa.const_shape", ir.Type.parse(f"!tosa.shape<{len(values)}>"), [], {"values": attribute})

    def reshape(self, value: ir.Value, sizes: list, element: str) -> ir.Value:
        """`value` reshaped to `sizes` (None: the one dynamic size, -1)."""
        if sizes.count(None) > 1:
            raise ValueError("a TOSA reshape takes at most one dynamic size")
        return self.op("tosa.reshape", _tensor_type(sizes, element),
                       [value, self.shape([-1 if size is None else size for size in sizes])])

    def transpose(self, value: ir.Value, sizes: list, element: str, permutation: list) -> ir.Value:
        attribute = ir.DenseI32ArrayAttr.get(permutation)
        return self.op("tosa.transpose", _tensor_type([sizes[axis] for axis in permutation], element), [value],
                       {"perms": attribute})

    def replace(self, op: ir.Operation, builtin: ir.Value) -> None:
        result = self.op("torch_c.from_builtin_tensor", op.results[0].type, [builtin])
        op.results[0].replace_all_uses_with(result)
        op.erase()


def _tensor_type(sizes: list, element: str) -> ir.Type:
    dims = "x".join("?" if size is None else str(size) for size in sizes)
    return ir.Type.parse(f"tensor<{dims + 'x' if dims else ''}{element}>")


def _builtin_element(element: str) -> str:
    return element[1:] if element.startswith(("si", "ui")) else element


# --------------------------------------------------------------------------------------------------
# slices


def slice_as_tosa_slice(op: ir.Operation) -> bool:
    """`slice.Tensor` with constant bounds and step 1 along a static dim of a tensor with a dynamic
    dim, as `tosa.slice` with size -1 on the dynamic dims (TOSA's lowering to tensor takes that;
    torch-mlir's lowering of the slice takes only static shapes). Bridged with torch_c casts,
    which the backend pipeline folds away."""
    x = op.operands[0]
    sizes, _ = vtensor_sizes(x.type)
    result_sizes, _ = vtensor_sizes(op.results[0].type)
    dim, start, end, step = (constant_int(operand) for operand in list(op.operands)[1:5])
    if sizes is None or result_sizes is None or None not in sizes or None in (dim, start, step) or step != 1:
        return False
    dim %= len(sizes)
    if sizes[dim] is None:
        return False
    length = sizes[dim]
    end = length if end is None else end
    start, end = (min(max(value + length if value < 0 else value, 0), length) for value in (start, end))
    count = max(end - start, 0)
    if result_sizes[dim] != count:
        return False
    builtin_input, builtin_result = builtin_tensor_type(x.type), builtin_tensor_type(op.results[0].type)
    if builtin_input is None or builtin_result is None:
        return False
    tosa = _Tosa(op)
    starts = [start if axis == dim else 0 for axis in range(len(sizes))]
    counts = [count if axis == dim else (-1 if size is None else size) for axis, size in enumerate(sizes)]
    sliced = tosa.op("tosa.slice", builtin_result, [tosa.builtin(x), tosa.shape(starts), tosa.shape(counts)])
    tosa.replace(op, sliced)
    return True



# --------------------------------------------------------------------------------------------------
# casts


def cast_as_tosa_cast(op: ir.Operation) -> bool:
    """`to.dtype` of a tensor with a dynamic dim as `tosa.cast` where the two agree: between
    integers and booleans of any width, integer or boolean to float, float to float, anything to
    boolean (x != 0). A float to an integer is left alone: torch truncates, TOSA rounds."""
    x = op.operands[0]
    sizes, source = vtensor_sizes(x.type)
    result_sizes, target = vtensor_sizes(op.results[0].type)
    if sizes is None or result_sizes is None or None not in sizes or len(op.operands) != 5:
        return False
    if any(element.startswith("ui") or element.startswith("!") or element.startswith("complex")
           for element in (source, target)):
        return False
    if source.startswith(("f", "bf")) and not target.startswith(("f", "bf")) and target != "i1":
        return False
    tosa = _Tosa(op)
    tosa.replace(op, tosa.op("tosa.cast", builtin_tensor_type(op.results[0].type), [tosa.builtin(x)]))
    return True


# --------------------------------------------------------------------------------------------------
# gathers


def index_select_as_tosa_gather(op: ir.Operation) -> bool:
    """`index_select(x, dim, indices)` along a static dim, with one dynamic dim among x's other dims
    and the indices, as `tosa.gather`: x's dim moved first and the rest flattened to
    [1, K, rest] (one -1), the indices (cast to i32, as TOSA wants them) [1, W], the gathered
    [1, W, rest] reshaped and moved back. Embedding lookups of run-time token ids and the
    row/column picks of an image Resize on a dynamic batch take this form."""
    x, dim_value, indices = op.operands
    sizes, element = vtensor_sizes(x.type)
    index_sizes, index_element = vtensor_sizes(indices.type)
    dim = constant_int(dim_value)
    if sizes is None or index_sizes is None or dim is None or len(index_sizes) != 1 or not sizes:
        return False
    dim %= len(sizes)
    rest = [size for axis, size in enumerate(sizes) if axis != dim]
    width = index_sizes[0]
    dynamic = rest.count(None) + (width is None)
    if sizes[dim] is None or dynamic != 1 or index_element not in ("si64", "si32"):
        return False
    element = _builtin_element(element)
    tosa = _Tosa(op)
    permutation = [dim] + [axis for axis in range(len(sizes)) if axis != dim]
    moved = tosa.transpose(tosa.builtin(x), sizes, element, permutation) if dim else tosa.builtin(x)
    flat = None if None in rest else _product(rest)
    values = tosa.reshape(moved, [1, sizes[dim], flat], element)
    index_tensor = tosa.builtin(indices)
    if index_element != "si32":
        index_tensor = tosa.op("tosa.cast", _tensor_type([width], "i32"), [index_tensor])
    rows = tosa.reshape(index_tensor, [1, width], "i32")
    gathered = tosa.op("tosa.gather", _tensor_type([1, width, flat], element), [values, rows])
    unflat = tosa.reshape(gathered, [width] + rest, element)
    inverse = [permutation.index(axis) for axis in range(len(sizes))]
    result = tosa.transpose(unflat, [width] + rest, element, inverse) if dim else unflat
    tosa.replace(op, result)
    return True


def _product(values) -> int:
    result = 1
    for value in values:
        result *= value
    return result
