"""The `convert-onnx-to-torch` pass: every ONNX op, in either spelling, to torch ops.

Why a plain walk and not MLIR's dialect conversion driver
(`rewrite.apply_partial_conversion` with a `TypeConverter`): each ONNX op is
replaced exactly once, in program order, by a pattern that never needs to be
retried, and no op is ever legalized twice. A walk that creates the
replacement in front of the node, redirects the uses and erases the node does
that with no pattern-set bookkeeping, is several times faster in Python (no
per-op callback through the conversion driver, no rollback journal), and lets
us keep going after a failure so that *every* unconvertible node of a model is
reported in one run, each with its own reason, instead of the driver's single
"failed to legalize operation". Builtin-tensor operands and results of the ONNX
dialect spelling are bridged with `builtin.unrealized_conversion_cast`, exactly
as a type-converting dialect conversion would, and the two type passes after
this one remove the bridges.
"""

from __future__ import annotations

import traceback
from dataclasses import dataclass

import onnx.defs
from torch_mlir import ir

from ... import progress
from .builder import TorchBuilder
from .folding import fold_constant_node
from .node import UNREALIZED_CAST, OnnxNode, UnsupportedNode, location_name, onnx_schema
from .registry import DEFAULT_DOMAIN, display_domain, lookup, normalize_domain, registered_versions
from .types import is_builtin_tensor, is_none_type, is_onnx_container, is_torch_container, is_vtensor, to_vtensor_type

LATEST_ONNX_OPSET = onnx.defs.onnx_opset_version()

# Opset attributes, looked for on the function first, then on the module.
DEFAULT_OPSET_ATTRIBUTES = ("torch.onnx_meta.opset_version", "onnx.opset_version")
DOMAIN_OPSETS_ATTRIBUTES = ("torch.onnx_meta.opset_versions", "onnx.opset_versions", "onnx.opset_import")
NOT_ONNX_OPS = {"onnx.NoValue", "onnx.EntryPoint", "onnx.Return", "onnx.Yield"}
# A module attribute naming the backend the module is compiled for (see OnnxNode.target); the
# conversion reads it and removes it.
TARGET_ATTRIBUTE = "onnx_torch_mlir.target"
# Nodes that read the graph around them by ONNX tensor name (Gradient differentiates the nodes
# between its xs and y, see OnnxGraph): converted before the other nodes of their function, so that
# the nodes they read are still ONNX ops. The importer names tensors in graphs holding one.
GRAPH_READING_NODES = {("ai.onnx.preview.training", "Gradient")}
TENSOR_NAMES_ATTRIBUTE = "onnx_output_names"  # importer/graph.py


@dataclass
class Failure:
    """One node that could not be converted: where, and the full message."""

    location: ir.Location
    message: str

    def __str__(self):
        return f"{self.location}: {self.message}"


def classify(op: ir.Operation):
    """(op_type, domain, spelling) if `op` is an ONNX node in either spelling, else None."""
    name = op.name
    if name == "torch.operator":
        full = ir.StringAttr(op.attributes["name"]).value
        if full.startswith("onnx."):
            return full[len("onnx.") :], DEFAULT_DOMAIN, "torch-onnx"
        domain, _, op_type = full.rpartition(".")
        return (op_type, normalize_domain(domain), "torch-onnx") if domain else None
    if name.startswith("onnx.") and name not in NOT_ONNX_OPS:
        if name == "onnx.Custom":
            domain = ir.StringAttr(op.attributes["domain_name"]).value if "domain_name" in op.attributes else ""
            op_type = ir.StringAttr(op.attributes["function_name"]).value
            return op_type, normalize_domain(domain), "onnx"
        op_type = name[len("onnx.") :]
        return op_type, _dialect_domain(op_type), "onnx"
    return None


ML_DOMAIN = "ai.onnx.ml"


def _dialect_domain(op_type: str) -> str:
    """The ONNX dialect spells ai.onnx.ml operators like default-domain ones (`onnx.Binarizer`)."""
    if not onnx.defs.has(op_type) and onnx.defs.has(op_type, ML_DOMAIN):
        return ML_DOMAIN
    return DEFAULT_DOMAIN


def _read_opsets(attributes, opsets: dict) -> None:
    for key in DEFAULT_OPSET_ATTRIBUTES:
        if key in attributes and DEFAULT_DOMAIN not in opsets:
            opsets[DEFAULT_DOMAIN] = ir.IntegerAttr(attributes[key]).value
    for key in DOMAIN_OPSETS_ATTRIBUTES:
        if key in attributes:
            for named in ir.DictAttr(attributes[key]):
                opsets.setdefault(normalize_domain(named.name), ir.IntegerAttr(named.attr).value)


def model_opsets(function: ir.Operation, module_op: ir.Operation) -> dict:
    """domain -> opset, from the function's torch.onnx_meta attributes or the module's."""
    opsets: dict = {}
    _read_opsets(function.attributes, opsets)
    _read_opsets(module_op.attributes, opsets)
    return opsets


def opset_for(opsets: dict, domain: str) -> int:
    """The model's opset for `domain`; unrecorded: the newest ONNX opset (default domain) or 1."""
    if domain in opsets:
        return opsets[domain]
    return LATEST_ONNX_OPSET if domain == DEFAULT_DOMAIN else 1


def _collect_onnx_ops(root: ir.Operation) -> list:
    found = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        kind = classify(op)
        if kind is not None:
            found.append((op, kind))
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.POST_ORDER)
    return found


def convert_onnx_to_torch(module_op: ir.Operation) -> list[Failure]:
    """Convert every ONNX op under `module_op` in place; returns the nodes that failed.

    A failed node stays in the IR unchanged; conversion goes on with the next one.
    """
    failures: list[Failure] = []
    target = None
    if TARGET_ATTRIBUTE in module_op.attributes:
        target = ir.StringAttr(module_op.attributes[TARGET_ATTRIBUTE]).value
        del module_op.attributes[TARGET_ATTRIBUTE]
    functions = [op.operation for op in module_op.regions[0].blocks[0].operations if op.operation.name == "func.func"]
    onnx_ops = [_collect_onnx_ops(function) for function in functions]
    total, done = sum(len(ops) for ops in onnx_ops), 0
    for function, ops in zip(functions, onnx_ops):
        opsets = model_opsets(function, module_op)
        ops.sort(key=lambda item: (item[1][1], item[1][0]) not in GRAPH_READING_NODES)  # stable: those first
        for op, (op_type, domain, spelling) in ops:
            node = OnnxNode(op, op_type, domain, opset_for(opsets, domain), spelling, target)
            failure = convert_node(node)
            if failure is not None and not _in_untaken_branch(op, opsets, target):
                failures.append(failure)
            done += 1
            progress.advance(done, total)
        if target is not None:
            failures += _container_signature_failures(function, target)
        _erase_unused_no_values(function)
    return failures


class OnnxGraph:
    """The ONNX graph around a node (its block and the enclosing ones) by tensor name, for a node
    that names tensors instead of taking them as operands (`OnnxNode.graph()`).

    A graph input is named by its `onnx.name` or location, a node's result by the importer's
    TENSOR_NAMES_ATTRIBUTE (kept only in graphs holding a GRAPH_READING_NODES node: other importers'
    IR names no intermediate tensor). The nodes read are unconverted ONNX ops (GRAPH_READING_NODES
    are converted first), seen through `OnnxNode` views: a value a pattern builds on stays valid
    when its producer is converted later (its uses are redirected).
    """

    def __init__(self, node: OnnxNode):
        self.node = node
        function = node.op.parent
        while function is not None and function.name != "func.func":
            function = function.parent
        self.opsets = model_opsets(function, function.parent) if function is not None else {}

    def tensor(self, name: str) -> ir.Value | None:
        """The value of ONNX tensor `name`, or None when the IR does not name it."""
        op = self.node.op
        while op is not None and op.name != "func.func":  # the node's block, then the enclosing ones
            op = op.operation
            for argument in op.block.arguments:
                if _argument_name(argument) == name:
                    return argument
            for other in op.block.operations:
                other = other.operation
                if TENSOR_NAMES_ATTRIBUTE in other.attributes:
                    names = [ir.StringAttr(each).value for each in ir.ArrayAttr(other.attributes[TENSOR_NAMES_ATTRIBUTE])]
                    if name in names:
                        return other.results[names.index(name)]
            op = op.parent
        return None

    def producer(self, value: ir.Value) -> OnnxNode | None:
        """A view of the ONNX node producing `value` (not yet converted), else None (a graph input,
        a literal, an op that is not an ONNX node)."""
        owner = value.owner
        if not isinstance(owner, (ir.Operation, ir.OpView)):
            return None
        owner = owner.operation
        kind = classify(owner)
        if kind is None:
            return None
        op_type, domain, spelling = kind
        return OnnxNode(owner, op_type, domain, opset_for(self.opsets, domain), spelling, self.node.target)

    def result_index(self, value: ir.Value) -> int:
        """Which result of its producer `value` is."""
        return next(i for i, result in enumerate(value.owner.results) if result == value)

    def torch_value(self, value: ir.Value) -> ir.Value:
        """`value` as a `!torch.vtensor` (an ONNX dialect tensor is bridged in front of the node)."""
        if not is_builtin_tensor(value.type):
            return value
        return ir.Operation.create(
            UNREALIZED_CAST, results=[to_vtensor_type(value.type)], operands=[value], loc=self.node.location,
            ip=ir.InsertionPoint(self.node.op),
        ).result


def _argument_name(argument: ir.BlockArgument) -> str | None:
    """A function argument's `onnx.name` (both spellings of a graph holding a Gradient have it), else
    its location's name (a subgraph's inputs; lost when the IR went through text)."""
    owner = argument.owner.owner
    owner = owner.operation if owner is not None else None
    if owner is not None and owner.name == "func.func" and "arg_attrs" in owner.attributes:
        attributes = ir.DictAttr(ir.ArrayAttr(owner.attributes["arg_attrs"])[argument.arg_number])
        if "onnx.name" in attributes:
            return ir.StringAttr(attributes["onnx.name"]).value
    return location_name(argument.location)


def _in_untaken_branch(op: ir.Operation, opsets: dict, target) -> bool:
    """True if `op` lies in the branch of an ONNX If that a literal condition does not take: the
    If pattern inlines the other branch and erases this one, so its failures do not count (a
    function body's If on the rank of an input holds a branch typed for another rank)."""
    current = op
    parent = current.parent
    while parent is not None and parent.name != "func.func":
        parent = parent.operation if hasattr(parent, "operation") else parent
        kind = classify(parent)
        if kind is not None and kind[0] == "If" and kind[1] == DEFAULT_DOMAIN:
            condition = OnnxNode(parent, "If", DEFAULT_DOMAIN, opset_for(opsets, DEFAULT_DOMAIN), kind[2], target)
            literal = condition.constant_input(0)
            if literal is not None:
                taken = bool(literal.reshape(-1)[0])
                then_index = 1 if kind[2] == "torch-onnx" else 0
                index = next(i for i, region in enumerate(parent.regions) if any(b == current.block for b in region.blocks))
                if (index == then_index) != taken:
                    return True
        current, parent = parent, parent.parent
    return False


def convert_node(node: OnnxNode) -> Failure | None:
    """Convert one node with its registered pattern (or its function body); None on success."""
    from .functions import expand_function, has_function_body
    from .result_inference import refined_result_types

    registration = lookup(node.domain, node.op_type, node.opset)
    try:
        with node.location:  # the default location (and context) for anything a pattern creates
            builder = TorchBuilder(node.op, node.location)
            node.refine_result_types(refined_result_types(node))
            # Only tensor arithmetic folds: a sequence or optional operand is never a literal.
            all_tensors = all(node.input_is_tensor(i) for i in range(node.num_inputs) if node.has_input(i))
            folded = fold_constant_node(node, builder) if all_tensors else None
            if folded is not None:
                replacements = folded
            elif registration is not None:
                replacements = registration.pattern(node, builder)
            elif has_function_body(node):
                replacements = expand_function(node)
            else:
                raise UnsupportedNode(_no_pattern_reason(node))
            _replace(node, replacements)
    except UnsupportedNode as error:
        return Failure(node.location, f"{node.describe()}: {error}")
    except Exception as error:  # a bug in a pattern: still name the node, keep going
        where = registration.pattern.__qualname__ if registration else "function expansion"
        detail = "".join(traceback.format_exception_only(type(error), error)).strip()
        return Failure(node.location, f"{node.describe()}: internal error in {where}: {detail}")
    return None


def _no_pattern_reason(node: OnnxNode) -> str:
    versions = registered_versions(node.domain, node.op_type)
    if versions:
        return (
            f"no conversion for opset {node.opset}: {node.op_type} is converted from opset "
            f"{versions[0]} on (registered since_versions: {', '.join(map(str, versions))})"
        )
    if onnx_schema(node.op_type, node.opset, node.domain) is None:
        return f"'{node.op_type}' is not an operator of domain '{display_domain(node.domain)}' at opset {node.opset}"
    return f"{node.op_type} has no conversion to torch yet"


def _replace(node: OnnxNode, replacements) -> None:
    op = node.op
    if replacements is None:
        replacements = []
    elif isinstance(replacements, ir.Value):
        replacements = [replacements]
    else:
        replacements = list(replacements)
    if len(replacements) > node.num_results:
        raise RuntimeError(f"pattern returned {len(replacements)} values for {node.num_results} results")
    replacements += [None] * (node.num_results - len(replacements))
    for index, new in enumerate(replacements):
        if new is None and node.result_is_used(index):
            node.fail(f"output {index} is used but this conversion does not produce it")
        old = op.results[index]
        if new is not None and is_torch_container(old.type) and old.type != new.type:
            # torch has no cast between list (or optional) types: a pattern builds the declared type
            node.fail(f"output {index} is declared {old.type} but converts to {new.type}")
    for old, new in zip(op.results, replacements):
        if new is None or is_none_type(old.type):
            continue
        if is_builtin_tensor(old.type) or is_onnx_container(old.type):
            declared = to_vtensor_type(old.type) if is_builtin_tensor(old.type) else None
            if declared is not None and is_vtensor(new.type) and new.type != declared:
                # a more (or less) static type than declared: the bridge pair folds only on equal types
                new = ir.Operation.create(
                    "torch.tensor_static_info_cast", results=[declared], operands=[new],
                    loc=node.location, ip=ir.InsertionPoint(op),
                ).result
            new = ir.Operation.create(
                UNREALIZED_CAST, results=[old.type], operands=[new], loc=node.location, ip=ir.InsertionPoint(op)
            ).result
        elif old.type != new.type:
            new = ir.Operation.create(
                "torch.tensor_static_info_cast", results=[old.type], operands=[new],
                loc=node.location, ip=ir.InsertionPoint(op),
            ).result
        old.replace_all_uses_with(new)
    op.erase()


def _container_signature_failures(function: ir.Operation, target: str) -> list[Failure]:
    """Sequence and optional graph inputs and outputs: a backend's functions take and return tensors."""
    function_type = ir.FunctionType(ir.TypeAttr(function.attributes["function_type"]).value)
    failures = []
    for kind, types in (("input", function_type.inputs), ("output", function_type.results)):
        for index, graph_type in enumerate(types):
            if is_torch_container(graph_type) or is_onnx_container(graph_type):
                what = "an optional" if "optional<" in str(graph_type) or "Opt<" in str(graph_type) else "a sequence"
                failures.append(Failure(function.location, (
                    f"graph {kind} {index} is {what} ({graph_type}): {target} functions take and return "
                    "tensors only, so sequence and optional graph inputs and outputs are not supported; keep "
                    "sequences and optionals inside the graph (ConcatFromSequence or SequenceAt give tensors), or "
                    "specialize them to tensors for given values with onnx_torch_mlir.sequence_io.specialize"
                )))
    return failures


def _erase_unused_no_values(function: ir.Operation) -> None:
    dead = []

    def visit(op):
        op = op.operation if hasattr(op, "operation") else op
        if op.name == "onnx.NoValue" and not any(True for _ in op.results[0].uses):
            dead.append(op)
        return ir.WalkResult.ADVANCE

    function.walk(visit)
    for op in dead:
        op.erase()
