"""Linalg windowed ops whose input is cut to the extent their windows read.

torch-mlir's Linalg lowering hands a convolution or a pool its whole (padded) input, also where the
windows stop short of its end: a length-4 input, a 3-wide kernel and stride 2 (a voice-activity
detector's encoder) read positions 0..2 only, and the `linalg.conv_1d_ncw_fcw` takes the 4. MLIR's
verifier accepts that (it checks a window index `stride * o + dilation * k` only for not running past
the input), but IREE (3.13) does not compile it: where the output size is 1, its unit-dim folding
makes the window index the kernel loop alone and finds two sizes for it ("'linalg.generic' op
inferred input/output operand #1 has shape's dimension #2 to be 4, but found 3"; with a dynamic
batch, "slice along dimension 2 runs out-of-bounds: 3 >= 3").

So each input that a structured op indexes by a sum of loops (`s * d0 + t * d1 + c`) is cut with a
`tensor.extract_slice` to the extent its windows read, `s * (size0 - 1) + t * (size1 - 1) + c + 1`,
the loop sizes read from the operands that index those loops alone (the output's spatial size, the
kernel's): a constant where those sizes are static (no slice where it is the input's own size),
`tensor.dim` and `arith` on index values where they are not (not at stride 1, where the windows
always reach the end). Cutting rows no window reads changes no result. Can go when torch-mlir's lowering sizes the input itself (StableHLO's path has its own
trim: stablehlo_convolution_padding.py).
"""

from __future__ import annotations

from torch_mlir import ir
from torch_mlir.dialects import linalg

from ...ir_walk import ops_named


def cut_window_inputs_to_their_extent(module: ir.Module) -> int:
    """Cut the windowed inputs of the module's Linalg structured ops (module docstring); the count cut."""
    cut = 0
    with module.context:
        for operation in ops_named(module, None):
            if operation.name.startswith("linalg.") and "operandSegmentSizes" in operation.attributes:
                cut += _cut_inputs(operation)
    return cut


def _sum_of_loops(expression: ir.AffineExpr) -> tuple[list[tuple[int, int]], int] | None:
    """`expression` as ([(coefficient, loop)], constant) when it is a sum of loops times positive
    constants and a non-negative constant with at least two terms; else None."""
    terms: list[tuple[int, int]] = []
    constant = 0
    pending = [expression]
    while pending:
        expr = pending.pop()
        if isinstance(expr, ir.AffineAddExpr):
            pending += [expr.lhs, expr.rhs]
        elif isinstance(expr, ir.AffineDimExpr):
            terms.append((1, expr.position))
        elif isinstance(expr, ir.AffineMulExpr):
            factor, loop = expr.rhs, expr.lhs
            if isinstance(loop, ir.AffineConstantExpr):
                factor, loop = loop, factor
            if not (isinstance(factor, ir.AffineConstantExpr) and isinstance(loop, ir.AffineDimExpr)):
                return None
            coefficient = factor.value
            if coefficient <= 0:
                return None
            terms.append((coefficient, loop.position))
        elif isinstance(expr, ir.AffineConstantExpr) and expr.value >= 0:
            constant += expr.value
        else:
            return None
    return (terms, constant) if len(terms) >= 2 else None


def _loop_sources(operation: ir.Operation, maps: list[ir.AffineMap]) -> dict[int, tuple[ir.Value, int]]:
    """For each loop, an (operand, dim) that the loop alone indexes, a static one preferred."""
    sources: dict[int, tuple[ir.Value, int]] = {}
    for operand, indexing_map in zip(operation.operands, maps):
        if not isinstance(operand.type, ir.RankedTensorType):
            continue
        for dim, result in enumerate(indexing_map.results):
            if not isinstance(result, ir.AffineDimExpr):
                continue
            loop = result.position
            static = not ir.ShapedType.is_dynamic_size(operand.type.shape[dim])
            if loop not in sources or (static and _is_dynamic(sources[loop])):
                sources[loop] = (operand, dim)
    return sources


def _is_dynamic(source: tuple[ir.Value, int]) -> bool:
    operand, dim = source
    return ir.ShapedType.is_dynamic_size(operand.type.shape[dim])


def _cut_inputs(operation: ir.Operation) -> int:
    try:
        maps = [ir.AffineMapAttr(attribute).value for attribute in linalg.get_indexing_maps(operation)]
    except Exception:  # noqa: BLE001 - not a structured op the bindings know
        return 0
    input_count = ir.DenseI32ArrayAttr(operation.attributes["operandSegmentSizes"])[0]
    if len(maps) != len(operation.operands):
        return 0
    sources = _loop_sources(operation, maps)
    output_loops = {result.position for indexing_map in maps[input_count:] for result in indexing_map.results
                    if isinstance(result, ir.AffineDimExpr)}
    cut = 0
    for position in range(input_count):
        operand = operation.operands[position]
        if not isinstance(operand.type, ir.RankedTensorType):
            continue
        windows = {dim: _sum_of_loops(result) for dim, result in enumerate(maps[position].results)}
        windows = {dim: window for dim, window in windows.items() if window is not None}
        if not windows or any(loop not in sources for terms, _ in windows.values() for _, loop in terms):
            continue
        extents = {dim: _static_extent(window, sources) for dim, window in windows.items()}
        # At stride 1 the output is as long as the windows leave room for: they reach the end.
        exact = [dim for dim, (terms, _) in windows.items()
                 if extents[dim] is None and any(coefficient == 1 and loop in output_loops for coefficient, loop in terms)]
        windows = {dim: window for dim, window in windows.items() if dim not in exact}
        extents = {dim: extent for dim, extent in extents.items() if dim not in exact}
        if not windows:
            continue
        shape = operand.type.shape
        if all(extent is not None and extent == shape[dim] for dim, extent in extents.items()):
            continue
        if any(extent is not None and (extent <= 0 or not ir.ShapedType.is_dynamic_size(shape[dim]) and extent > shape[dim])
               for dim, extent in extents.items()):
            continue  # an empty output: nothing to cut for
        operation.operands[position] = _slice(operation, operand, windows, extents, sources)
        cut += 1
    return cut


def _static_extent(window: tuple[list[tuple[int, int]], int], sources) -> int | None:
    terms, constant = window
    extent = constant + 1
    for coefficient, loop in terms:
        if _is_dynamic(sources[loop]):
            return None
        operand, dim = sources[loop]
        extent += coefficient * (operand.type.shape[dim] - 1)
    return extent


def _slice(operation: ir.Operation, operand: ir.Value, windows, extents, sources) -> ir.Value:
    """`tensor.extract_slice` of `operand` from 0 to each window's extent (the whole dim elsewhere)."""
    index = ir.IndexType.get()
    ip = ir.InsertionPoint(operation)
    location = operation.location
    constants: dict[int, ir.Value] = {}

    def constant(value: int) -> ir.Value:
        if value not in constants:
            constants[value] = ir.Operation.create("arith.constant", results=[index], ip=ip, loc=location,
                                                   attributes={"value": ir.IntegerAttr.get(index, value)}).result
        return constants[value]

    def arith(name: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        return ir.Operation.create(f"arith.{name}", results=[index], operands=[lhs, rhs], ip=ip, loc=location).result

    def dim_size(value: ir.Value, dim: int) -> ir.Value:
        return ir.Operation.create("tensor.dim", results=[index], operands=[value, constant(dim)], ip=ip,
                                   loc=location).result

    def run_time_extent(window, dim: int) -> ir.Value:
        """offset + 1 + sum of coefficient * (size - 1), the static sizes folded into one constant, at
        most the input's size (an empty output's windows would reach past it)."""
        terms, offset = window
        folded, extent = offset + 1, None
        for coefficient, loop in terms:
            source, source_dim = sources[loop]
            if not _is_dynamic(sources[loop]):
                folded += coefficient * (source.type.shape[source_dim] - 1)
                continue
            folded -= coefficient
            term = dim_size(source, source_dim)
            term = term if coefficient == 1 else arith("muli", term, constant(coefficient))
            extent = term if extent is None else arith("addi", extent, term)
        extent = arith("addi", extent, constant(folded))
        if folded < 0:
            extent = arith("maxsi", extent, constant(0))
        size = operand.type.shape[dim]
        return arith("minsi", extent, constant(size) if not ir.ShapedType.is_dynamic_size(size) else dim_size(operand, dim))

    shape = list(operand.type.shape)
    dynamic = ir.ShapedType.get_dynamic_size()
    static_sizes, dynamic_sizes = [], []
    for dim, size in enumerate(shape):
        if dim in extents and extents[dim] is not None:
            static_sizes.append(extents[dim])
        elif dim in windows:
            static_sizes.append(dynamic)
            dynamic_sizes.append(run_time_extent(windows[dim], dim))
        elif ir.ShapedType.is_dynamic_size(size):
            static_sizes.append(dynamic)
            dynamic_sizes.append(dim_size(operand, dim))
        else:
            static_sizes.append(size)
    result_type = ir.RankedTensorType.get(static_sizes, operand.type.element_type, operand.type.encoding,
                                          loc=location)
    rank = len(shape)
    return ir.Operation.create(
        "tensor.extract_slice", results=[result_type], operands=[operand, *dynamic_sizes], ip=ip, loc=location,
        attributes={
            "static_offsets": ir.DenseI64ArrayAttr.get([0] * rank),
            "static_sizes": ir.DenseI64ArrayAttr.get(static_sizes),
            "static_strides": ir.DenseI64ArrayAttr.get([1] * rank),
            "operandSegmentSizes": ir.DenseI32ArrayAttr.get([1, 0, len(dynamic_sizes), 0]),
        },
    ).result
