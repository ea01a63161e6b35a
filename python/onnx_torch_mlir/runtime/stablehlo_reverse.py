"""`stablehlo.reverse` of a dynamically shaped tensor as a `tensor.generate`, for the reference runner.

`stablehlo-legalize-to-linalg` lowers a reverse only when its shape is static; with a `?` the op
stayed and the runner stopped at a left-over `bufferization.to_tensor`. torch-mlir emits one for
`aten.flip` (Slice with a negative step on a dynamic dim). IREE lowers it itself.

Element i of the result is the operand's element at i with each reversed index d replaced by
size_d - 1 - i_d.
"""

from torch_mlir import ir

from onnx_torch_mlir.ir_walk import ops_named
from onnx_torch_mlir.runtime.tensor_building import create, dim_size, index_constant


def dynamic_reverses_to_generates(module: ir.Module) -> int:
    """Rewrite the `stablehlo.reverse` ops of `module` whose operand has a dynamic dim; the count."""
    rewritten = 0
    with module.context, ir.Location.unknown():
        for op in ops_named(module, {"stablehlo.reverse"}):
            operand = op.operands[0]
            if isinstance(operand.type, ir.RankedTensorType) and not operand.type.has_static_shape:
                _rewrite(op, operand)
                rewritten += 1
    return rewritten


def _rewrite(op: ir.Operation, operand: ir.Value) -> None:
    ip = ir.InsertionPoint(op)
    tensor_type = operand.type
    rank = tensor_type.rank
    index = ir.IndexType.get()
    reversed_dims = {int(dim) for dim in ir.DenseI64ArrayAttr(op.attributes["dimensions"])}
    sizes = [dim_size(operand, dim, ip) for dim in range(rank)]
    one = index_constant(1, ip)
    lasts = {dim: create("arith.subi", [sizes[dim], one], index, ip) for dim in reversed_dims}
    dynamic = [sizes[dim] for dim in range(rank) if tensor_type.is_dynamic_dim(dim)]
    generate = ir.Operation.create("tensor.generate", results=[op.results[0].type], operands=dynamic, regions=1, ip=ip)
    block = generate.regions[0].blocks.append(*([index] * rank))
    body = ir.InsertionPoint(block)
    positions = [
        create("arith.subi", [lasts[dim], block.arguments[dim]], index, body) if dim in reversed_dims else block.arguments[dim]
        for dim in range(rank)
    ]
    element = create("tensor.extract", [operand, *positions], tensor_type.element_type, body)
    ir.Operation.create("tensor.yield", operands=[element], ip=body)
    op.results[0].replace_all_uses_with(generate.results[0])
    op.erase()
