"""Custom ops on the reference runner: Python (numpy) implementations called from the JIT code.

A program holding custom ops (docs/custom-ops.md: `tosa.custom`,
`stablehlo.custom_call @torch.*` / `@onnx.*`, or a Linalg `func.call` to a
declaration marked `otm.custom_op`) runs when each op has an implementation:

    compile_for_cpu(module, input_dialect="tosa", custom_ops={"torch.aten.layer_norm": my_layer_norm})

An implementation is `f(*arguments, **attributes) -> array or tuple of arrays`:

- operands encoding: one positional argument per operand, a numpy array
  (scalars as 0-d arrays, lists as 1-D arrays), `None` for the None placeholder;
- attributes encoding (Torch ops): the op's arguments in their original order,
  tensors as numpy arrays and the others as the JSON values (decoded) -- the same
  call as the operands encoding would make, with Python values for constants;
- ONNX ops: the inputs positionally (None for a missing optional input) and the
  ONNX attributes as keyword arguments (`onnx.opset_version` excluded).

Results must have static shapes (the runner allocates them before the call) and
are converted to the declared element type. Built in: `torch.aten.layer_norm`,
`torch.aten.native_layer_norm`, and every `onnx.*` op through ONNX's reference
evaluator; `custom_ops=` entries override them. Keys are the full names
("torch.aten.layer_norm", "onnx.NonMaxSuppression").

How: before lowering, each custom op becomes a call to a private
`@otm_custom_op_<k>` (C interface) taking every operand and every result as an
unranked memref (operands by `bufferization.to_buffer read_only`, results
allocated with `memref.alloc` and read back with `bufferization.to_tensor
restrict`); the symbol is a ctypes callback that runs the implementation.
An exception in an implementation is re-raised as RunnerError after the call.
"""

from __future__ import annotations

import ctypes
import json
import re
from collections.abc import Callable

import numpy as np
from torch_mlir import ir
from torch_mlir.dialects import func

from onnx_torch_mlir.errors import RunnerError
from onnx_torch_mlir.runtime.dtypes import numpy_dtype_for
from onnx_torch_mlir.runtime.memref import UnrankedMemRef, copy_out_unranked

CALLBACK_PREFIX = "otm_custom_op_"
_NONE = "torch.constant.none"
_MARKER = "otm.custom_op"


# -- Built-in implementations --------------------------------------------------------------------


def _scalar(value):
    return value.item() if isinstance(value, np.ndarray) else value


def _native_layer_norm(x, normalized_shape, weight, bias, eps):
    count = len(np.asarray(normalized_shape).reshape(-1))
    axes = tuple(range(x.ndim - count, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    inverse_std = 1.0 / np.sqrt(variance + float(_scalar(eps)))
    y = (x - mean) * inverse_std
    if weight is not None:
        y = y * weight
    if bias is not None:
        y = y + bias
    return y, mean, inverse_std


def _layer_norm(x, normalized_shape, weight, bias, eps, cudnn_enable=None):
    return _native_layer_norm(x, normalized_shape, weight, bias, eps)[0]


BUILTIN_IMPLEMENTATIONS: dict[str, Callable] = {
    "torch.aten.native_layer_norm": _native_layer_norm,
    "torch.aten.layer_norm": _layer_norm,
}


def onnx_reference(op_type: str, opset: int | None, result_count: int) -> Callable:
    """An implementation of ONNX op `op_type` by ONNX's reference evaluator (a one-node model)."""

    def run(*inputs, **attributes):
        import onnx
        from onnx import helper
        from onnx.reference import ReferenceEvaluator

        names = [f"in{index}" if value is not None else "" for index, value in enumerate(inputs)]
        outputs = [f"out{index}" for index in range(result_count)]
        node = helper.make_node(op_type, names, outputs, **attributes)
        graph_inputs = [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(value.dtype), value.shape)
            for name, value in zip(names, inputs)
            if value is not None
        ]
        graph_outputs = [helper.make_tensor_value_info(name, onnx.TensorProto.UNDEFINED, None) for name in outputs]
        graph = helper.make_graph([node], op_type, graph_inputs, graph_outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset or 21)])
        feeds = {name: value for name, value in zip(names, inputs) if value is not None}
        return tuple(ReferenceEvaluator(model).run(None, feeds))

    return run


# -- Finding the custom ops ----------------------------------------------------------------------


class _Site:
    """One custom op in the program: its name, JSON attributes and the ops it replaces."""

    def __init__(self, op: ir.Operation, name: str, attributes_json: str):
        self.op = op
        self.name = name
        self.attributes = json.loads(attributes_json) if attributes_json else None


def _string(op: ir.Operation, attribute: str) -> str:
    return ir.StringAttr(op.attributes[attribute]).value if attribute in op.attributes else ""


def _find(module: ir.Module) -> list[_Site]:
    declarations = {
        ir.StringAttr(op.operation.attributes["sym_name"]).value
        for op in module.body.operations
        if op.operation.name == "func.func" and _MARKER in op.operation.attributes
    }
    sites = []

    def visit(holder):
        for region in holder.regions:
            for block in region.blocks:
                for op in block.operations:
                    op = op.operation
                    if op.name == "tosa.custom":
                        name = f"{_string(op, 'domain_name')}.{_string(op, 'operator_name')}"
                        sites.append(_Site(op, name, _string(op, "implementation_attrs")))
                    elif op.name == "stablehlo.custom_call":
                        target = _string(op, "call_target_name")
                        if target.startswith(("torch.", "onnx.")):
                            config = op.attributes["backend_config"] if "backend_config" in op.attributes else None
                            text = ir.StringAttr(config).value if isinstance(config, ir.StringAttr) else ""
                            sites.append(_Site(op, target, text))
                    elif op.name == "func.call":
                        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
                        if callee in declarations:
                            name = re.sub(r"(\.\d+|\$\d+)$", "", callee)
                            sites.append(_Site(op, name, _string(op, "implementation_attrs")))
                    visit(op)

    visit(module.operation)
    return sites


# -- Rewriting them into callbacks ---------------------------------------------------------------


class _Binding:
    """A custom op's callback, what it needs to decode its arguments, and its pending error."""

    def __init__(self, index, name, implementation, input_specs, output_specs, arguments_of):
        self.index = index
        self.name = name
        self.errors: list[str] = []
        signature = ctypes.CFUNCTYPE(None, *[ctypes.POINTER(UnrankedMemRef)] * (len(input_specs) + len(output_specs)))

        def call(*pointers):
            try:
                arrays = [
                    None if dtype is None else copy_out_unranked(pointer.contents, dtype)
                    for pointer, dtype in zip(pointers, input_specs)
                ]
                positional, keywords = arguments_of(arrays)
                results = implementation(*positional, **keywords)
                if not isinstance(results, (tuple, list)):
                    results = (results,)
                if len(results) < len(output_specs):
                    raise RunnerError(f"returned {len(results)} results, {len(output_specs)} expected")
                for pointer, (dtype, shape), value in zip(pointers[len(input_specs) :], output_specs, results):
                    array = np.ascontiguousarray(np.asarray(value).astype(dtype, copy=False))
                    if array.shape != shape:
                        raise RunnerError(f"returned a result of shape {array.shape}, {shape} expected")
                    words = (ctypes.c_int64 * 3).from_address(pointer.contents.descriptor)
                    ctypes.memmove(words[1] + words[2] * dtype.itemsize, array.ctypes.data, array.nbytes)
            except Exception as error:  # noqa: BLE001 - it cannot cross the JIT code; raised after the call
                self.errors.append(f"{type(error).__name__}: {error}")

        self.callback = signature(call)


def _memref_type(tensor_type: ir.RankedTensorType, strided: bool) -> ir.Type:
    shape = "".join(("?" if tensor_type.is_dynamic_dim(d) else str(tensor_type.shape[d])) + "x"
                    for d in range(tensor_type.rank))
    layout = ""
    if strided:
        layout = ", strided<[" + ", ".join("?" for _ in range(tensor_type.rank)) + "], offset: ?>"
    return ir.Type.parse(f"memref<{shape}{tensor_type.element_type}{layout}>")


def _unranked(memref_value: ir.Value, element: ir.Type) -> ir.Value:
    return ir.Operation.create(
        "memref.cast", results=[ir.UnrankedMemRefType.get(element, None)], operands=[memref_value]
    ).result


def bind(module: ir.Module, implementations: dict | None = None) -> list[_Binding]:
    """Rewrite every custom op of `module` into a callback call; returns the callbacks to register."""
    sites = _find(module)
    if not sites:
        return []
    chosen = dict(BUILTIN_IMPLEMENTATIONS)
    for key, value in (implementations or {}).items():
        chosen[key if key.startswith(("torch.", "onnx.")) else f"torch.{key}"] = value
    placeholders = [site for site in sites if site.name == _NONE]
    for site in placeholders:
        with site.op.location, ir.InsertionPoint(site.op):
            false = ir.Operation.create(
                "arith.constant", results=[site.op.results[0].type],
                attributes={"value": ir.Attribute.parse("dense<false> : tensor<i1>")},
            )
        false.attributes["otm.none"] = ir.UnitAttr.get()
        site.op.results[0].replace_all_uses_with(false.result)
        site.op.erase()
    bindings = []
    for index, site in enumerate(site for site in sites if site.name != _NONE):
        bindings.append(_bind_site(module, index, site, chosen))
    erase_unused_declarations(module)
    return bindings


def _arguments_decoder(site: _Site, input_count: int):
    """arrays -> (positional, keyword) arguments of the implementation, per the encoding."""
    if site.name.startswith("onnx."):
        attributes = {k: v for k, v in (site.attributes or {}).items() if k != "onnx.opset_version"}
        return lambda arrays: (arrays, attributes)
    if site.attributes is None:  # operands encoding
        return lambda arrays: (arrays, {})
    from onnx_torch_mlir.transforms.torch.custom_ops import argument_names

    op_name = site.name[len("torch.") :]
    names = argument_names(op_name, input_count + len(site.attributes))

    def decode(arrays):
        tensors = iter(arrays)
        return [site.attributes[name] if name in site.attributes else next(tensors) for name in names], {}

    return decode


def _bind_site(module, index, site: _Site, chosen) -> _Binding:
    op = site.op
    implementation = chosen.get(site.name)
    if implementation is None and site.name.startswith("onnx."):
        opset = (site.attributes or {}).get("onnx.opset_version")
        implementation = onnx_reference(site.name[len("onnx.") :], opset, len(op.results))
    if implementation is None:
        raise RunnerError(
            f"custom op {site.name} has no implementation on the reference runner: pass "
            f"custom_ops={{'{site.name}': function}}"
        )
    input_specs, output_specs = [], []
    for position, value in enumerate(op.operands):
        is_none = not isinstance(value.owner, ir.Block) and "otm.none" in value.owner.operation.attributes
        element = str(ir.RankedTensorType(value.type).element_type)
        input_specs.append(None if is_none else numpy_dtype_for(element, f"operand {position} of {site.name}"))
    for position, result in enumerate(op.results):
        tensor_type = ir.RankedTensorType(result.type)
        if not tensor_type.has_static_shape:
            raise RunnerError(f"result {position} of custom op {site.name} has a dynamic shape ({tensor_type}); "
                              "the runner allocates custom-op results before the call and needs static shapes")
        output_specs.append((numpy_dtype_for(str(tensor_type.element_type), f"result {position} of {site.name}"),
                             tuple(tensor_type.shape)))
    symbol = f"{CALLBACK_PREFIX}{index}"
    with op.location, ir.InsertionPoint(op):
        arguments, allocations = [], []
        for value in op.operands:
            tensor_type = ir.RankedTensorType(value.type)
            buffer = ir.Operation.create(
                "bufferization.to_buffer", results=[_memref_type(tensor_type, strided=True)], operands=[value],
                attributes={"read_only": ir.UnitAttr.get()},
            ).result
            arguments.append(_unranked(buffer, tensor_type.element_type))
        for result in op.results:
            tensor_type = ir.RankedTensorType(result.type)
            allocation = ir.Operation.create(
                "memref.alloc", results=[_memref_type(tensor_type, strided=False)],
                attributes={"operandSegmentSizes": ir.DenseI32ArrayAttr.get([0, 0])},
            ).result
            allocations.append(allocation)
            arguments.append(_unranked(allocation, tensor_type.element_type))
        func.CallOp([], ir.FlatSymbolRefAttr.get(symbol), arguments)
        for result, allocation in zip(op.results, allocations):
            tensor = ir.Operation.create(
                "bufferization.to_tensor", results=[result.type], operands=[allocation],
                attributes={"restrict": ir.UnitAttr.get(), "writable": ir.UnitAttr.get()},
            ).result
            result.replace_all_uses_with(tensor)
    with ir.InsertionPoint(module.body), ir.Location.unknown():
        declaration = func.FuncOp(symbol, ([a.type for a in arguments], []), visibility="private")
        declaration.operation.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()
    op.erase()
    decoder = _arguments_decoder(site, sum(spec is not None for spec in input_specs))
    return _Binding(index, site.name, implementation, input_specs, output_specs, decoder)


def erase_unused_declarations(module: ir.Module) -> None:
    """The custom ops' own declarations, which the runner no longer calls."""
    for op in list(module.body.operations):
        if op.operation.name == "func.func" and _MARKER in op.operation.attributes:
            op.operation.erase()


def symbols(bindings: list[_Binding]) -> dict[str, int]:
    """The callbacks' addresses by the linker names the compiled code calls them by."""
    return {
        f"_mlir_ciface_{CALLBACK_PREFIX}{binding.index}": ctypes.cast(binding.callback, ctypes.c_void_p).value
        for binding in bindings
    }


class ProgramWithCustomOps:
    """A CompiledProgram whose custom-op callbacks stay alive with it and whose errors surface."""

    def __init__(self, program, bindings: list[_Binding]):
        self._program = program
        self._bindings = bindings

    def __getattr__(self, name):
        return getattr(self._program, name)

    def __call__(self, *inputs):
        outputs = self._program(*inputs)
        for binding in self._bindings:
            if binding.errors:
                message = binding.errors[0]
                for other in self._bindings:
                    other.errors.clear()
                raise RunnerError(f"custom op {binding.name} failed: {message}")
        return outputs
