"""Backend-legal Torch ops (and kept ONNX ops) as each backend's custom op.

The contract is docs/custom-ops.md; in short, after torch-mlir's backend
contract each kept op `torch.aten.X` (and each kept ONNX op, carried through the
Torch pipeline as `func.call @onnx.Y`, see custom_ops_onnx.py) becomes

- TOSA: `tosa.custom` with `operator_name = "aten.X"`, `domain_name = "torch"`
  (or `"Y"`, `"onnx"`) and `implementation_attrs`;
- StableHLO: `stablehlo.custom_call @torch.aten.X(...)` with `backend_config`;
- Linalg: `func.call @torch.aten.X(...)` to a private declaration a user links an
  implementation to (the call carries `implementation_attrs`).

Two encodings of the op's arguments:

- "operands" (the default, seed 003): every argument, in order, is an operand;
  tensors pass through, constant scalars and lists become constant tensors of the
  backend (bool -> tensor<i1>, int -> tensor<i64>, float -> tensor<f32>, lists
  -> 1-D tensors of those), `None` becomes the placeholder custom op
  `torch.constant.none` (no operands, one tensor<i1> result);
- "attributes": only tensor arguments are operands, in order; every other
  argument goes by name into a JSON object in the attribute.

Pass placement: torch-mlir's backend pipelines would fail on an undecomposed
op they cannot lower, so `convert-backend-legal-to-custom-ops` runs first, on
the Torch backend contract, bridging types with torch_c.to_builtin_tensor /
from_builtin_tensor; the backend pipeline then lowers the rest and folds the
bridges away. TOSA's and StableHLO's contract verifiers accept the result
(tosa.custom and stablehlo.custom_call are ops of their dialects). Linalg's
verifier rejects any func.call, so the Linalg path runs the pipeline's passes
without `torch-verify-linalg-on-tensors-backend-contract` and then runs that
verifier on a copy of the module in which each custom call is replaced by a
tensor.empty of its result type: everything but the custom calls is still held
to the full contract.
"""

from __future__ import annotations

import difflib
import inspect
import json
import math
import re
from dataclasses import dataclass
from functools import lru_cache

from torch_mlir import ir
from torch_mlir.dialects import arith, func
from torch_mlir.passmanager import PassManager

from ...errors import ConversionError, PipelineError
from ...mlir_passes import TORCH_TO_BACKEND

ENCODINGS = ("operands", "attributes")
BACKENDS = ("linalg-on-tensors", "tosa", "stablehlo")
NONE_PLACEHOLDER = "torch.constant.none"
# The attributes of a kept ONNX op's carrier declaration: its ONNX attributes (JSON) and op type.
ONNX_ATTRIBUTES = "onnx.attributes"
ONNX_OP_TYPE = "onnx.op_type"
# The attribute on a Linalg custom call that holds the JSON (TOSA's name for it).
LINALG_ATTRIBUTES = "implementation_attrs"
CUSTOM_CALL_MARKER = "otm.custom_op"  # unit attribute on the declarations Linalg custom calls call

_LINALG_VERIFIER = "torch-verify-linalg-on-tensors-backend-contract"
_VTENSOR = re.compile(r"^!torch\.vtensor<\[([^\]]*)\],(.+)>$")


# -- The names of Torch ops ---------------------------------------------------------------------


@lru_cache(maxsize=1)
def torch_op_classes() -> dict[str, type]:
    """'aten.layer_norm' -> the generated op class, for every op of the Torch dialect."""
    from torch_mlir.dialects import _torch_ops_gen

    classes = {}
    for value in vars(_torch_ops_gen).values():
        name = getattr(value, "OPERATION_NAME", None)
        if isinstance(value, type) and name and name.startswith("torch.") and not name.endswith("Adaptor"):
            classes.setdefault(name[len("torch.") :], value)
    return classes


def normalize_backend_legal_ops(names) -> tuple[str, ...]:
    """`names` as torch-mlir spells them ('aten.layer_norm'); 'torch.aten.layer_norm' is accepted too.

    An unknown name raises ConversionError listing the closest Torch op names.
    """
    known = torch_op_classes()
    normalized, unknown = [], []
    for name in names:
        name = name.strip()
        if not name:
            continue
        short = name[len("torch.") :] if name.startswith("torch.") else name
        if short in known:
            if short not in normalized:
                normalized.append(short)
        else:
            unknown.append(name)
    if unknown:
        details = []
        for name in unknown:
            close = difflib.get_close_matches(name.removeprefix("torch."), list(known), n=4, cutoff=0.6)
            hint = f" (close matches: {', '.join(close)})" if close else " (no Torch op has a similar name)"
            details.append(f"'{name}'{hint}")
        raise ConversionError(f"unknown backend-legal op {'; '.join(details)}")
    return tuple(normalized)


def argument_names(op_name: str, count: int) -> list[str]:
    """The names of the operands of Torch op `op_name` ('aten.layer_norm'), from its ODS builder."""
    op_class = torch_op_classes().get(op_name)
    names = []
    if op_class is not None:
        for parameter in list(inspect.signature(op_class.__init__).parameters.values())[1:]:
            if parameter.kind is parameter.KEYWORD_ONLY:
                break
            annotation = str(parameter.annotation)
            if "Value" in annotation:
                names.append(parameter.name)
    if len(names) != count:
        names = [f"arg{index}" for index in range(count)]
    return names


# -- Types ---------------------------------------------------------------------------------------


def builtin_tensor_type(torch_type: ir.Type) -> ir.Type | None:
    """!torch.vtensor<[4,?],si64> -> tensor<4x?xi64>; None if not a ranked vtensor with a dtype."""
    match = _VTENSOR.match(str(torch_type))
    if not match:
        return None
    sizes, element = match.group(1), match.group(2)
    if element == "unk":
        return None
    element = re.sub(r"^[su]i(\d+)$", r"i\1", element)
    dims = [dim.strip() for dim in sizes.split(",") if dim.strip()]
    shape = "x".join("?" if dim in ("-1", "?") else dim for dim in dims)
    return ir.Type.parse(f"tensor<{shape + 'x' if shape else ''}{element}>")


def _is_tensor(value: ir.Value) -> bool:
    return str(value.type).startswith("!torch.vtensor")


# -- Reading the constant arguments --------------------------------------------------------------


class Rejected(Exception):
    """An argument the contract cannot encode; the message says which and why."""


def _defining_op_name(value: ir.Value) -> str | None:
    if isinstance(value.owner, ir.Block):
        return None
    return value.owner.operation.name


def constant_value(value: ir.Value):
    """The Python value of a constant non-tensor argument, or Rejected saying why not."""
    kind = str(value.type)
    producer = _defining_op_name(value)
    if producer is None:
        raise Rejected(f"is a {kind} function argument, known only at run time")
    operation = value.owner.operation
    if producer == "torch.constant.none":
        return None
    if producer in ("torch.constant.int", "torch.constant.float", "torch.constant.bool", "torch.constant.number"):
        attribute = operation.attributes["value"]
        if isinstance(attribute, ir.BoolAttr):
            return bool(attribute.value)
        if isinstance(attribute, ir.IntegerAttr):
            integer = attribute.value
            return bool(integer) if producer == "torch.constant.bool" else integer
        return float(ir.FloatAttr(attribute).value)
    if producer == "torch.constant.str":
        return ir.StringAttr(operation.attributes["value"]).value
    if producer == "torch.constant.device":
        return ir.StringAttr(operation.attributes["value"]).value
    if producer == "torch.prim.ListConstruct":
        if kind.startswith("!torch.list<vtensor") or kind.startswith("!torch.list<optional<vtensor"):
            raise Rejected(
                f"is a tensor list ({kind}); the contract has no encoding for a variable number of tensors "
                "in one argument yet"
            )
        elements = []
        for element in operation.operands:
            try:
                elements.append(constant_value(element))
            except Rejected as why:
                raise Rejected(f"is a list with an element that {why}") from None
        return elements
    raise Rejected(f"is a {kind} computed at run time by {producer}; only compile-time constants are encoded")


def _element_kind(kind: str, python_value) -> str:
    """'bool', 'int' or 'float' for a scalar or list type spelling."""
    for name in ("bool", "int", "float"):
        if kind in (f"!torch.{name}", f"!torch.list<{name}>"):
            return name
    if isinstance(python_value, bool):
        return "bool"
    if isinstance(python_value, int):
        return "int"
    if isinstance(python_value, float):
        return "float"
    if isinstance(python_value, list) and python_value and all(isinstance(item, bool) for item in python_value):
        return "bool"
    if isinstance(python_value, list) and all(isinstance(item, int) for item in python_value):
        return "int"
    if isinstance(python_value, list) and all(isinstance(item, (int, float)) for item in python_value):
        return "float"
    raise Rejected(f"is a {kind} whose value {python_value!r} has no tensor form")


_ELEMENT_TYPE = {"bool": "i1", "int": "i64", "float": "f32"}


def _literal(kind: str, item) -> str:
    if kind == "bool":
        return "true" if item else "false"
    if kind == "int":
        return str(int(item))
    item = float(item)
    if math.isfinite(item):
        return f"{item:.17e}"
    import numpy as np

    return "0x%08X" % int(np.array(item, np.float32).view(np.uint32))


def dense_constant(kind: str, python_value) -> ir.DenseElementsAttr:
    """A scalar as a rank-0 tensor, a list as a 1-D tensor, of the contract's element type."""
    element = _ELEMENT_TYPE[_element_kind(kind, python_value)]
    ekind = _element_kind(kind, python_value)
    if isinstance(python_value, list):
        body = "[" + ", ".join(_literal(ekind, item) for item in python_value) + "]"
        return ir.Attribute.parse(f"dense<{body}> : tensor<{len(python_value)}x{element}>")
    return ir.Attribute.parse(f"dense<{_literal(ekind, python_value)}> : tensor<{element}>")


def json_value(python_value):
    """A JSON-representable form: non-finite floats become the strings "inf", "-inf", "nan"."""
    if isinstance(python_value, float) and not math.isfinite(python_value):
        return "nan" if math.isnan(python_value) else ("inf" if python_value > 0 else "-inf")
    if isinstance(python_value, list):
        return [json_value(item) for item in python_value]
    return python_value


def to_json(mapping: dict) -> str:
    return json.dumps(mapping, separators=(",", ":"), sort_keys=False)


# -- Building the backend's ops ------------------------------------------------------------------


class _Builder:
    """Creates one backend's constants and custom ops before a given op."""

    def __init__(self, backend: str, module_op: ir.Operation):
        self.backend = backend
        self.module_op = module_op
        self.declarations: dict[str, dict[str, str]] = {}  # full name -> {signature: symbol}

    def constant(self, attribute: ir.DenseElementsAttr) -> ir.Value:
        if self.backend == "tosa":
            return ir.Operation.create("tosa.const", results=[attribute.type], attributes={"values": attribute}).result
        if self.backend == "stablehlo":
            return ir.Operation.create(
                "stablehlo.constant", results=[attribute.type], attributes={"value": attribute}
            ).result
        return arith.ConstantOp(attribute.type, attribute).result

    def custom(self, domain: str, name: str, operands, result_types, attributes_json: str | None) -> ir.Operation:
        """The custom op `domain.name` (e.g. torch, aten.layer_norm)."""
        full = f"{domain}.{name}"
        if self.backend == "tosa":
            from torch_mlir.dialects import tosa  # here: a compile to another backend need not load it

            return tosa.CustomOp(result_types, name, domain, attributes_json or "", operands).operation
        if self.backend == "stablehlo":
            attributes = {"call_target_name": ir.StringAttr.get(full)}
            if attributes_json is not None:
                attributes["backend_config"] = ir.StringAttr.get(attributes_json)
            return ir.Operation.create("stablehlo.custom_call", results=result_types, operands=operands,
                                       attributes=attributes)
        symbol = self._declaration(full, [value.type for value in operands], result_types)
        call = func.CallOp(result_types, ir.FlatSymbolRefAttr.get(symbol), operands).operation
        if attributes_json is not None:
            call.attributes[LINALG_ATTRIBUTES] = ir.StringAttr.get(attributes_json)
        return call

    def _declaration(self, full: str, operand_types, result_types) -> str:
        """The private function a Linalg custom call calls: the op's name for its first signature,
        `<name>.1`, `<name>.2`, ... for further signatures in the same module."""
        signature = f"({', '.join(map(str, operand_types))}) -> ({', '.join(map(str, result_types))})"
        known = self.declarations.setdefault(full, {})
        if signature in known:
            return known[signature]
        symbol = full if not known else f"{full}.{len(known)}"
        known[signature] = symbol
        with ir.InsertionPoint.at_block_begin(self.module_op.regions[0].blocks[0]):
            declaration = func.FuncOp(symbol, (list(operand_types), list(result_types)), visibility="private")
            declaration.operation.attributes[CUSTOM_CALL_MARKER] = ir.UnitAttr.get()
        return symbol

    def none_placeholder(self) -> ir.Value:
        return self.custom("torch", "constant.none", [], [ir.Type.parse("tensor<i1>")], None).results[0]


def _to_builtin(value: ir.Value) -> ir.Value:
    builtin = builtin_tensor_type(value.type)
    if builtin is None:
        raise Rejected(f"is a {value.type} without a known dtype and rank")
    return ir.Operation.create("torch_c.to_builtin_tensor", results=[builtin], operands=[value]).result


@dataclass
class Failure:
    location: ir.Location
    message: str


def _collect(region_holder: ir.Operation, wanted, found: list) -> None:
    for region in region_holder.regions:
        for block in region.blocks:
            for op in block.operations:
                if wanted(op.operation):
                    found.append(op.operation)
                _collect(op.operation, wanted, found)


def onnx_carrier_declarations(module_op: ir.Operation) -> dict[str, ir.Operation]:
    """symbol -> declaration, for the carrier declarations of kept ONNX ops."""
    declarations = {}
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.func" and ONNX_OP_TYPE in op.attributes:
            declarations[ir.StringAttr(op.attributes["sym_name"]).value] = op
    return declarations


def _carrier_test(module_op: ir.Operation):
    carriers = onnx_carrier_declarations(module_op)
    return lambda op: op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value in carriers


def module_has_custom_op_candidates(module: ir.Module, kept_ops=()) -> bool:
    """Whether the module holds an op of `kept_ops` or a kept ONNX op."""
    wanted_names = {f"torch.{name}" for name in kept_ops}
    is_carrier = _carrier_test(module.operation)
    found: list = []
    _collect(module.operation, lambda op: op.name in wanted_names or is_carrier(op), found)
    return bool(found)


def convert_to_custom_ops(module_op: ir.Operation, backend: str, kept_ops, encoding: str = "operands") -> list[Failure]:
    """Rewrite every op of `kept_ops` ('aten.x') and every kept ONNX op into `backend`'s custom op.

    Returns one Failure per op that cannot be encoded (the IR of the others is rewritten).
    """
    if encoding not in ENCODINGS:
        raise PipelineError(f"unknown custom-op encoding '{encoding}': expected one of {', '.join(ENCODINGS)}")
    wanted_names = {f"torch.{name}" for name in kept_ops}
    carriers = onnx_carrier_declarations(module_op)
    is_carrier = _carrier_test(module_op)
    ops: list[ir.Operation] = []
    _collect(module_op, lambda op: op.name in wanted_names or is_carrier(op), ops)
    failures: list[Failure] = []
    if not ops:
        return failures
    builder = _Builder(backend, module_op)
    for op in ops:
        try:
            with op.location, ir.InsertionPoint(op):
                if is_carrier(op):
                    _rewrite_onnx(op, builder, carriers[ir.FlatSymbolRefAttr(op.attributes["callee"]).value])
                else:
                    _rewrite_torch(op, builder, encoding)
        except Rejected as why:
            failures.append(Failure(op.location, str(why)))
    if not failures:
        for declaration in carriers.values():
            declaration.erase()
    return failures


def _replace(op: ir.Operation, custom: ir.Operation) -> None:
    for old, new in zip(op.results, custom.results):
        bridge = ir.Operation.create("torch_c.from_builtin_tensor", results=[old.type], operands=[new])
        old.replace_all_uses_with(bridge.result)
    op.erase()


def _result_types(op: ir.Operation, what: str) -> list[ir.Type]:
    types = []
    for index, result in enumerate(op.results):
        builtin = builtin_tensor_type(result.type)
        if builtin is None:
            raise Rejected(
                f"cannot make {what} a custom op: result {index} is a {result.type}; custom ops return "
                "tensors of known dtype and rank only"
            )
        types.append(builtin)
    return types


def _rewrite_torch(op: ir.Operation, builder: _Builder, encoding: str) -> None:
    name = op.name[len("torch.") :]
    what = f"{op.name}"
    result_types = _result_types(op, what)
    names = argument_names(name, len(op.operands))
    operands, attributes = [], {}
    # Build everything before touching the IR is not needed: a rejected op leaves only dead
    # constants behind, which the backend pipeline's canonicalizer removes.
    for argument, value in zip(names, op.operands):
        try:
            if _is_tensor(value):
                operands.append(_to_builtin(value))
                continue
            python_value = constant_value(value)
            kind = str(value.type)
            if kind.startswith("!torch.Generator") or kind.startswith("!torch.optional<Generator"):
                raise Rejected(f"is a random-number generator ({kind}); it has no encoding")
            if encoding == "attributes":
                attributes[argument] = json_value(python_value)
                continue
            if python_value is None:
                operands.append(builder.none_placeholder())
            elif isinstance(python_value, str):
                raise Rejected(
                    f"is a string or device ({kind}, {python_value!r}); it has no tensor form: use the "
                    "attributes encoding"
                )
            elif isinstance(python_value, list) and any(item is None for item in python_value):
                raise Rejected(f"is a list holding None ({kind}); it has no tensor form: use the attributes encoding")
            else:
                operands.append(builder.constant(dense_constant(kind, python_value)))
        except Rejected as why:
            raise Rejected(f"cannot make {what} a custom op: argument '{argument}' {why}") from None
    attributes_json = to_json(attributes) if encoding == "attributes" else None
    custom = builder.custom("torch", name, operands, result_types, attributes_json)
    _replace(op, custom)


def _rewrite_onnx(op: ir.Operation, builder: _Builder, declaration: ir.Operation) -> None:
    name = ir.StringAttr(declaration.attributes[ONNX_OP_TYPE]).value
    result_types = _result_types(op, f"ONNX op {name}")
    operands = []
    for index, value in enumerate(op.operands):
        if _is_tensor(value):
            operands.append(_to_builtin(value))
        elif str(value.type) == "!torch.none":
            operands.append(builder.none_placeholder())
        else:
            raise Rejected(f"cannot keep ONNX op {name}: input {index} is a {value.type}, not a tensor")
    attributes_json = ir.StringAttr(declaration.attributes[ONNX_ATTRIBUTES]).value
    custom = builder.custom("onnx", name, operands, result_types, attributes_json)
    _replace(op, custom)


# -- Passes and pipelines ------------------------------------------------------------------------


def load_backend_dialects(context: ir.Context) -> None:
    """Load torch_c, TOSA, StableHLO (not in the context's registry: passes load them as dependencies)."""
    with context:
        empty = ir.Module.parse("module {}")
        PassManager.parse(
            "builtin.module(func.func(convert-torch-to-tosa,convert-torch-to-stablehlo,convert-torch-to-linalg))"
        ).run(empty.operation)


@lru_cache(maxsize=None)
def _pipeline_text(backend: str) -> str:
    """A backend pipeline's constituent passes, as text (needs a context to parse)."""
    from ...mlir_context import make_context

    with make_context():
        text = str(PassManager.parse(f"builtin.module({TORCH_TO_BACKEND[backend]})"))
    return text[len("builtin.module(") : -1]


def linalg_pipeline_without_verifier() -> str:
    text = _pipeline_text("linalg-on-tensors")
    suffix = "," + _LINALG_VERIFIER
    if not text.endswith(suffix):
        raise PipelineError(f"torch-mlir's Linalg pipeline no longer ends with {_LINALG_VERIFIER}: {text[-120:]}")
    return text[: -len(suffix)]


def custom_declarations(module_op: ir.Operation) -> set[str]:
    """The symbols of the private declarations Linalg custom calls call."""
    return {
        ir.StringAttr(op.operation.attributes["sym_name"]).value
        for op in module_op.regions[0].blocks[0].operations
        if op.operation.name == "func.func" and CUSTOM_CALL_MARKER in op.operation.attributes
    }


def verify_linalg_contract_around_custom_calls(module_op: ir.Operation) -> list[str]:
    """Run torch-mlir's Linalg contract verifier on a copy whose custom calls are tensor.empty ops.

    Returns the verifier's messages (empty: the module is in the contract, custom calls aside).
    """
    copy = module_op.clone()
    declarations = custom_declarations(copy)
    calls: list[ir.Operation] = []
    _collect(copy, lambda op: op.name == "func.call" and ir.FlatSymbolRefAttr(op.attributes["callee"]).value
             in declarations, calls)
    for call in calls:
        with call.location, ir.InsertionPoint(call):
            for result in call.results:
                tensor_type = ir.RankedTensorType(result.type)
                sizes = [
                    arith.ConstantOp(ir.IndexType.get(), 1).result
                    for dim in range(tensor_type.rank)
                    if tensor_type.is_dynamic_dim(dim)
                ]
                empty = ir.Operation.create("tensor.empty", results=[tensor_type], operands=sizes)
                result.replace_all_uses_with(empty.result)
        call.erase()
    for op in list(copy.regions[0].blocks[0].operations):
        if op.operation.name == "func.func" and CUSTOM_CALL_MARKER in op.operation.attributes:
            op.operation.erase()
    try:
        PassManager.parse(f"builtin.module({_LINALG_VERIFIER})").run(copy)
    except ir.MLIRError as error:
        return [f"{d.location}: {d.message}" for d in error.error_diagnostics] or [str(error)]
    finally:
        copy.erase()
    return []


def _python_pass(function, argument: str, description: str):
    def run(op, pass_):
        failures = function(op)
        for failure in failures:
            if isinstance(failure, str):
                ir.Location.unknown(op.context).emit_error(failure)
            else:
                failure.location.emit_error(failure.message)
        if failures:
            pass_.signal_pass_failure()

    run.__name__ = argument.replace("-", "_")
    return run, argument, description


def custom_op_passes(backend: str, kept_ops=(), encoding: str = "operands") -> list:
    """The steps from the Torch backend contract to `backend` with custom ops: a list of
    textual pipeline elements and (callable, argument, description) Python passes."""
    kept_ops = tuple(kept_ops)
    convert = _python_pass(
        lambda op: convert_to_custom_ops(op, backend, kept_ops, encoding),
        "convert-backend-legal-to-custom-ops",
        f"Backend-legal Torch ops and kept ONNX ops to {backend} custom ops",
    )
    if backend != "linalg-on-tensors":
        return [convert, TORCH_TO_BACKEND[backend]]
    verify = _python_pass(
        verify_linalg_contract_around_custom_calls,
        "verify-linalg-on-tensors-backend-contract-around-custom-calls",
        "torch-mlir's Linalg contract verifier on a copy without the custom calls",
    )
    return [convert, linalg_pipeline_without_verifier(), verify]


def add_steps(manager: PassManager, steps) -> None:
    for step in steps:
        if isinstance(step, tuple):
            function, argument, description = step
            manager.add(function, name=argument, argument=argument, description=description)
        else:
            manager.add(step)


def lower_with_custom_ops(module: ir.Module, backend: str, kept_ops=(), encoding: str = "operands") -> None:
    """Torch backend contract -> `backend`, kept ops as custom ops; PipelineError with every failure."""
    from ...mlir_passes import format_diagnostics

    with module.context:
        manager = PassManager("builtin.module")
        add_steps(manager, custom_op_passes(backend, kept_ops, encoding))
        try:
            manager.run(module.operation)
        except ir.MLIRError as error:
            raise PipelineError(
                f"torch-to-{backend}: {format_diagnostics(error, limit=len(error.error_diagnostics))}"
            ) from None
