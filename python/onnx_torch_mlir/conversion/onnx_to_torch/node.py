"""`OnnxNode`: one view of an ONNX node in either spelling.

The torch-ONNX spelling (`torch.operator "onnx.Add"`, attributes
`torch.onnx.<name>`, `!torch.vtensor` operands, `torch.constant.none` for an
absent input) and the ONNX dialect spelling (`"onnx.Add"`, attributes with ONNX
names, builtin `tensor` operands, `"onnx.NoValue"` for an absent input) read
the same through this class. Operands always come back as `!torch.vtensor`
values: a builtin-tensor operand is bridged with an
`builtin.unrealized_conversion_cast`, which `finalize-torch-type-conversion`
folds away once every producer and the signature speak torch types.

Attribute readers fall back to the ONNX schema's default for the model's
opset, so a pattern spells a default only where it wants a different one.
A node that names tensors instead of taking them as operands (Gradient) reads
the graph around it by ONNX tensor name with `node.graph()`.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING

import numpy as np
import onnx
import onnx.defs
from onnx import helper
from torch_mlir import ir

from ...errors import ConversionError
from .builder import same_pads
from .constants import MAX_BOOL_BLOB_ELEMENTS, NUMPY_DTYPES, literal_value, read_resource, shaped_type
# NUMPY_DTYPES, literal_value: node-view API too (trip_count.py reads a Loop's carried initial values).
from .registry import display_domain
from .types import (
    defining_op,
    TensorInfo, is_builtin_tensor, is_none_type, is_onnx_container, is_torch_container, onnx_dtype_to_element,
    shape_known_source, tensor_info, to_torch_type, to_vtensor_type,
)

if TYPE_CHECKING:
    from .builder import TorchBuilder

TORCH_ATTRIBUTE_PREFIX = "torch.onnx."
UNREALIZED_CAST = "builtin.unrealized_conversion_cast"
# Targets whose torch-mlir lowering takes no torch.prim.Loop/If: loops are unrolled there (OnnxNode.target).
LOOPLESS_TARGETS = ("tosa", "stablehlo")
# A module attribute (array of strings) holding the backend-legal Torch ops during the conversion
# (OnnxNode.is_backend_legal); conversion/passes.py sets it and removes it afterwards.
BACKEND_LEGAL_ATTRIBUTE = "onnx_torch_mlir.backend_legal_ops"
_REQUIRED = object()  # sentinel: "use the schema's default, fail if there is none"
# A name location `loc("add0")`, possibly around a file location or inside a fused one.
_NAME_LOC = re.compile(r'^loc\((?:fused\[)?"((?:[^"\\]|\\.)*)"(?!:\d)')


class UnsupportedNode(ConversionError):
    """A pattern cannot convert this form of the node; the message is the reason only."""


@functools.lru_cache(maxsize=None)
def onnx_schema(op_type: str, opset: int, domain: str):
    """The ONNX schema of `op_type` in force at `opset`, or None if ONNX has none."""
    try:
        return onnx.defs.get_schema(op_type, opset, domain)
    except onnx.defs.SchemaError:
        return None


@functools.lru_cache(maxsize=None)
def schema_default(op_type: str, opset: int, domain: str, name: str):
    """(found, value): the schema default of attribute `name`; found is False if it has none."""
    schema = onnx_schema(op_type, opset, domain)
    if schema is None or name not in schema.attributes:
        return False, None
    attribute = schema.attributes[name]
    if attribute.default_value is None or attribute.default_value.type == onnx.AttributeProto.UNDEFINED:
        return False, None
    return True, helper.get_attribute_value(attribute.default_value)


def _producer(value, name: str):
    """The op named `name` that produces `value`, else None."""
    owner = defining_op(value)
    return owner if owner is not None and owner.name == name else None


def _constant_int_or_value(value: ir.Value):
    """A `!torch.int` as a Python int when a `torch.constant.int` gives it, else the value."""
    constant = _producer(value, "torch.constant.int")
    return ir.IntegerAttr(constant.attributes["value"]).value if constant is not None else value


def location_name(location: ir.Location) -> str | None:
    match = _NAME_LOC.match(str(location))
    return match.group(1) if match else None


def _attribute_python_value(attribute: ir.Attribute):
    attribute = attribute.maybe_downcast()
    if isinstance(attribute, ir.BoolAttr):
        return bool(attribute.value)
    if isinstance(attribute, ir.IntegerAttr):
        return attribute.value
    if isinstance(attribute, ir.FloatAttr):
        return attribute.value
    if isinstance(attribute, ir.StringAttr):
        return attribute.value
    if isinstance(attribute, ir.ArrayAttr):
        return [_attribute_python_value(element) for element in attribute]
    if isinstance(attribute, ir.TypeAttr):
        return attribute.value
    if isinstance(attribute, (ir.DenseIntElementsAttr, ir.DenseFPElementsAttr, ir.DenseElementsAttr)):
        return np.array(attribute)
    return attribute


def backend_legal_ops(op: ir.Operation) -> tuple[str, ...]:
    """The backend-legal Torch ops recorded on the module holding `op` (BACKEND_LEGAL_ATTRIBUTE)."""
    while op is not None and op.name != "builtin.module":
        op = op.parent
    if op is None or BACKEND_LEGAL_ATTRIBUTE not in op.attributes:
        return ()
    return tuple(ir.StringAttr(name).value for name in ir.ArrayAttr(op.attributes[BACKEND_LEGAL_ATTRIBUTE]))


_KIND_NAMES = {"int": "an integer", "float": "a float", "string": "a string", "ints": "a list of integers",
               "floats": "a list of floats", "strings": "a list of strings"}
_INTEGER, _REAL = (int, np.integer), (int, float, np.integer, np.floating)


def _is_kind(value, kind: str) -> bool:
    """Whether an attribute's Python value (_attribute_python_value) is of ONNX attribute `kind`."""
    if kind in ("ints", "floats", "strings"):
        if isinstance(value, np.ndarray):
            return value.ndim == 1 and kind != "strings"
        return isinstance(value, (list, tuple)) and all(_is_kind(item, kind[:-1]) for item in value)
    if isinstance(value, np.ndarray):
        return False
    return isinstance(value, {"int": _INTEGER, "float": _REAL, "string": (str, bytes)}[kind])


class OnnxNode:
    """A typed view of one ONNX op: operands, attributes with defaults, result types, name."""

    def __init__(self, op: ir.Operation, op_type: str, domain: str, opset: int, spelling: str, target: str | None = None):
        self.op = op
        self.op_type = op_type
        self.domain = domain
        self.opset = opset
        self.spelling = spelling  # "torch-onnx" or "onnx"
        # The backend the module is compiled for ("linalg-on-tensors", "tosa", "stablehlo"), or None
        # (plain Torch output): where a backend's lowering cannot take a form, a pattern emits another.
        self.target = target
        self.location = op.location
        self._attribute_prefix = TORCH_ATTRIBUTE_PREFIX if spelling == "torch-onnx" else ""
        self._bridged: dict[int, ir.Value] = {}
        self._refined_results: dict[int, ir.Type] = {}

    # -- identity ---------------------------------------------------------------
    @property
    def name(self) -> str | None:
        """The ONNX node name: `onnx_node_name` attribute, else the location's name."""
        if "onnx_node_name" in self.op.attributes:
            return ir.StringAttr(self.op.attributes["onnx_node_name"]).value
        return location_name(self.location)

    def describe(self) -> str:
        """`node 'add0' (Add, domain 'ai.onnx', opset 17)`: how diagnostics name a node."""
        name = f"node '{self.name}'" if self.name else "unnamed node"
        return f"{name} ({self.op_type}, domain '{display_domain(self.domain)}', opset {self.opset})"

    def fail(self, reason: str):
        """Stop converting this node; `reason` becomes the diagnostic (the node is named for you)."""
        raise UnsupportedNode(reason)

    def graph(self):
        """The ONNX graph around the node by tensor name (driver.OnnxGraph: `tensor(name)`, `producer(value)`,
        `torch_value(value)`); a node of driver.GRAPH_READING_NODES is converted first, its graph still ONNX."""
        from .driver import OnnxGraph  # the driver imports this module
        return OnnxGraph(self)

    def is_backend_legal(self, torch_op: str) -> bool:
        """Whether the user declared `torch_op` ("aten.layer_norm") backend-legal. A pattern with a
        composite torch form emits that op then (not a decomposition of it), so it reaches the
        backend as the custom op the user asked for (docs/custom-ops.md)."""
        return torch_op in backend_legal_ops(self.op)

    # -- operands ---------------------------------------------------------------
    @property
    def num_inputs(self) -> int:
        """The number of operand slots, absent optional ones included (trailing ones may be omitted)."""
        return len(self.op.operands)

    def _raw_operand(self, index: int) -> ir.Value | None:
        if index >= len(self.op.operands) or is_none_type(self.op.operands[index].type):
            return None
        return self.op.operands[index]

    def has_input(self, index: int) -> bool:
        return self._raw_operand(index) is not None

    def optional_input(self, index: int) -> ir.Value | None:
        """Operand `index` as a `!torch.vtensor` value, or None if absent."""
        if index in self._bridged:
            return self._bridged[index]
        value = self._raw_operand(index)
        if value is None:
            return None
        value = self._bridge_to_vtensor(value) if is_builtin_tensor(value.type) else shape_known_source(value)
        self._bridged[index] = value
        return value

    def input(self, index: int) -> ir.Value:
        """Operand `index` as a `!torch.vtensor` value; the node fails if it is absent."""
        value = self.optional_input(index)
        if value is None:
            self.fail(f"input {index} is required but absent")
        return value

    def inputs(self) -> list[ir.Value]:
        """All present operands, in order (for variadic ops such as Sum or Concat)."""
        return [self.optional_input(i) for i in range(self.num_inputs) if self.has_input(i)]

    def input_info(self, index: int) -> TensorInfo:
        """Shape and element type of operand `index` (reads the type only: creates nothing)."""
        value = self._bridged.get(index) or self._raw_operand(index)
        if value is None:
            self.fail(f"input {index} is required but absent")
        value = (self._converted_source(value) or value) if is_builtin_tensor(value.type) else shape_known_source(value)
        info = tensor_info(value.type)
        if info is None:
            self.fail(f"input {index} has type {value.type}, not a tensor")
        return info

    def constant_input(self, index: int) -> np.ndarray | None:
        """The value of operand `index` if a literal produces it (dense, or a small `dense_resource`).

        Only looks: no bridging cast is created for an operand that is not constant."""
        value = self._bridged.get(index) or self._raw_operand(index)
        if value is not None:
            value = self._converted_source(value) if is_builtin_tensor(value.type) else shape_known_source(value)
        return literal_value(value)

    # -- sequences and optionals: `!torch.list<...>` and `!torch.optional<...>` values ---------
    def input_is_tensor(self, index: int) -> bool:
        """Whether operand `index` is present and a tensor (not a sequence or an optional)."""
        value = self._bridged.get(index) or self._raw_operand(index)
        return value is not None and tensor_info(value.type) is not None

    def container_input(self, index: int) -> ir.Value | None:
        """Operand `index` as a torch sequence or optional (`!torch.list<...>`, `!torch.optional<...>`),
        or None if absent; the node fails if it is a tensor. An ONNX dialect `!onnx.Seq`/`!onnx.Opt`
        operand is bridged as a tensor operand is."""
        value = self._raw_operand(index)
        if value is None:
            return None
        if is_onnx_container(value.type):
            owner = value.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if isinstance(owner, ir.Operation) and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
                if is_torch_container(owner.operands[0].type):
                    return owner.operands[0]
            return ir.Operation.create(
                UNREALIZED_CAST, results=[to_torch_type(value.type)], operands=[value], loc=self.location,
                ip=ir.InsertionPoint(self.op),
            ).result
        if not is_torch_container(value.type):
            self.fail(f"input {index} has type {value.type}, not a sequence or an optional")
        return value

    def result_container_type(self, index: int = 0) -> ir.Type:
        """The `!torch.list<...>` or `!torch.optional<...>` type of result `index`, from its declared type."""
        declared = self.op.results[index].type
        converted = to_torch_type(declared)
        if converted is None or not is_torch_container(converted):
            self.fail(f"output {index} has type {declared}, not a sequence or an optional")
        return converted

    # -- numbers in operands: read at conversion time when literal, else as torch ops -------
    # Shape-like operands (Reshape's shape, Slice's starts, Pad's pads, ...) come back as
    # dims (see TorchBuilder: a Python int when known, else a `!torch.int` value).
    def constant_ints(self, index: int, what: str) -> list[int] | None:
        """A 1-D operand that must be a literal, as ints (None if absent); fails naming `what`."""
        if not self.has_input(index):
            return None
        constant = self.constant_input(index)
        if constant is None:
            self.fail(f"'{what}' must be a constant")
        return [int(v) for v in constant.reshape(-1)]

    def dim_elements(self, index: int) -> list | None:
        """A 1-D (or 0-d) integer operand made of dims (a literal, `TorchBuilder.dims_tensor`'s
        `aten.tensor` of a list, as `Shape` gives on a dynamic input, or one dim's
        `prim.NumToTensor`) as dims: ints where known, `!torch.int` values elsewhere; None for
        any other operand. Only looks."""
        constant = self.constant_input(index)
        if constant is not None:
            integral = np.issubdtype(constant.dtype, np.integer) and constant.ndim <= 1
            return [int(v) for v in constant.reshape(-1)] if integral else None
        value = self._bridged.get(index) or self._raw_operand(index)
        if value is not None and is_builtin_tensor(value.type):
            value = self._converted_source(value)
        scalar = _producer(value, "torch.prim.NumToTensor.Scalar")
        if scalar is not None and scalar.operands[0].type == ir.Type.parse("!torch.int", self.op.context):
            return [_constant_int_or_value(scalar.operands[0])]  # one dim, as a 0-d tensor
        made = _producer(value, "torch.aten.tensor")
        listed = _producer(made.operands[0], "torch.prim.ListConstruct") if made is not None else None
        info = tensor_info(value.type) if listed is not None else None
        if info is None or info.rank != 1:
            return None
        return [_constant_int_or_value(element) for element in listed.operands]

    def int_elements(self, index: int, b: TorchBuilder, what: str) -> list:
        """A 1-D integer operand as dims: ints when a literal, else one `aten.item` per element
        (which needs a static length; fails naming `what` otherwise)."""
        constant = self.constant_input(index)
        if constant is not None:
            return [int(v) for v in constant.reshape(-1)]
        listed = self.dim_elements(index)
        if listed is not None:
            return listed
        tensor = self.input(index)
        info = b.info(tensor)
        if info.sizes is None or len(info.sizes) != 1 or info.sizes[0] is None:
            self.fail(f"'{what}' must be a constant or a 1-D tensor of static length")
        element_type = b.tensor_type([], info.element)
        elements = []
        for i in range(info.sizes[0]):
            selected = b.op("aten.select.int", element_type, tensor, b.constant_int(0), b.constant_int(i))
            elements.append(b.op("aten.item", b.type("!torch.int"), selected))
        return elements

    def scalar_input(self, index: int, b: TorchBuilder):
        """A one-element operand as a Python number (float or int, as its element type) when a
        literal, else `b.item` of it (a `!torch.float` or `!torch.int`)."""
        constant = self.constant_input(index)
        if constant is not None:
            number = constant.reshape(-1)[0]
            return float(number) if np.issubdtype(constant.dtype, np.floating) else int(number)
        return b.item(self.input(index))

    @staticmethod
    def _converted_source(value: ir.Value) -> ir.Value | None:
        """The torch value behind a builtin-tensor value whose producer was converted already."""
        owner = value.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if isinstance(owner, ir.Operation) and owner.name == UNREALIZED_CAST and len(owner.operands) == 1:
            source = owner.operands[0]
            if str(source.type).startswith("!torch.vtensor"):
                return shape_known_source(source)
        return None

    def _bridge_to_vtensor(self, value: ir.Value) -> ir.Value:
        # The producer was converted already: use its torch value, not a cast of a cast.
        source = self._converted_source(value)
        if source is not None:
            return source
        target = to_vtensor_type(value.type)
        return ir.Operation.create(
            UNREALIZED_CAST, results=[target], operands=[value], loc=self.location, ip=ir.InsertionPoint(self.op)
        ).result

    # -- results ----------------------------------------------------------------
    @property
    def num_results(self) -> int:
        return len(self.op.results)

    def refine_result_types(self, refined: dict) -> None:
        """index -> a type more precise than declared, for `result_type` (result_inference.py)."""
        self._refined_results = dict(refined)

    def input_is_refined(self, index: int) -> bool:
        """Whether the conversion knows input `index`'s shape better than its declared type."""
        raw = self._raw_operand(index)
        return raw is not None and tensor_info(raw.type) != self.input_info(index)

    def result_type(self, index: int = 0) -> ir.Type:
        """The `!torch.vtensor` type of result `index`, from the node's declared type (or the
        more precise one `refine_result_types` gave)."""
        if index in self._refined_results:
            return self._refined_results[index]
        declared = self.op.results[index].type
        converted = to_vtensor_type(declared)
        if converted is None:
            self.fail(f"output {index} has type {declared}, which has no torch tensor equivalent")
        return converted

    def result_info(self, index: int = 0) -> TensorInfo:
        return tensor_info(self.result_type(index))

    def result_is_used(self, index: int) -> bool:
        return not is_none_type(self.op.results[index].type) and any(True for _ in self.op.results[index].uses)

    def legacy_broadcast_input(self, b: TorchBuilder) -> ir.Value:
        """Input 1 of an opset<7 binary op, reshaped so that numpy broadcasting gives ONNX's result.

        With `broadcast=1` and `axis`, B's dims are placed at A's dims axis..axis+rank(B)-1:
        trailing size-1 dims are appended to B (with builder `b`). Without `axis` suffix
        matching is numpy's own rule; with `broadcast=0` the shapes are equal.
        """
        rhs = self.input(1)
        if not self.attr_int("broadcast", 0) or not self.has_attr("axis"):
            return rhs
        lhs_rank, rhs_rank = self.input_info(0).rank, self.input_info(1).rank
        if lhs_rank is None or rhs_rank is None:
            self.fail("broadcast with 'axis' needs ranked inputs")
        axis = self.attr_int("axis")
        axis = axis + lhs_rank if axis < 0 else axis
        trailing = lhs_rank - axis - rhs_rank
        if axis < 0 or trailing < 0:
            self.fail(f"axis {self.attr_int('axis')} does not place a rank-{rhs_rank} B inside a rank-{lhs_rank} A")
        for _ in range(trailing):
            rhs = b.unsqueeze(rhs, -1)
        return rhs

    # -- shapes and spatial attributes --------------------------------------------
    def input_sizes(self, index: int, what: str = "input") -> list:
        """The sizes of input `index` (None per dynamic dim); the node fails if it is unranked."""
        info = self.input_info(index)
        if info.rank is None:
            self.fail(f"{what} {index} needs a static rank")
        return list(info.sizes)

    def rank(self, index: int = 0) -> int:
        """The rank of input `index`; the node fails if it is unranked."""
        return len(self.input_sizes(index))

    def axis(self, axis: int, rank: int, what: str = "axis") -> int:
        """`axis` in [-rank, rank) as a dim index in [0, rank); the node fails naming `what` otherwise."""
        if not -rank <= axis < rank:
            self.fail(f"{what} {axis} is out of range for rank {rank}")
        return axis + rank if axis < 0 else axis

    def static_result_sizes(self, index: int = 0) -> list[int] | None:
        """The declared sizes of result `index` if all static (what a shape computed at run time
        must produce: a pattern can build them as constants), else None."""
        info = self.result_info(index)
        return list(info.sizes) if info.is_static else None

    def spatial_ints(self, name: str, count: int, default: int) -> list[int]:
        """An ints attribute with one value per spatial dim (`strides`, `dilations`), checked."""
        values = self.attr_ints(name, None)
        if values is None:
            return [default] * count
        if len(values) != count:
            self.fail(f"attribute '{name}' has {len(values)} values for {count} spatial dims")
        return values

    def resolve_pads(self, spatial_sizes, kernel, strides, dilations, b=None, x=None) -> tuple[list, list]:
        """(begins, ends) per spatial dim from `auto_pad` and `pads` (Conv and the pools).

        SAME_UPPER/SAME_LOWER give output size ceil(in / stride); with stride 1 the padding does
        not depend on the input size. Otherwise a dynamic spatial size needs the builder `b` and
        the input `x`: its pads are then dims computed at run time (`TorchBuilder.same_pads`).
        """
        count = len(kernel)
        auto_pad = self.attr_string("auto_pad", "NOTSET") or "NOTSET"
        if auto_pad == "NOTSET":
            pads = self.attr_ints("pads", None) or [0] * (2 * count)
            if len(pads) != 2 * count:
                self.fail(f"attribute 'pads' has {len(pads)} values for {count} spatial dims")
            return list(pads[:count]), list(pads[count:])
        if auto_pad == "VALID":
            return [0] * count, [0] * count
        if auto_pad not in ("SAME_UPPER", "SAME_LOWER"):
            self.fail(f"auto_pad '{auto_pad}' is not supported")
        begins, ends = [], []
        for i in range(count):
            if kernel[i] is None:
                self.fail(f"auto_pad {auto_pad} needs a static kernel size")
            effective = (kernel[i] - 1) * dilations[i] + 1
            size = 1 if strides[i] == 1 else spatial_sizes[i]  # stride 1: the total is effective - 1
            if size is None and b is None:
                self.fail(f"auto_pad {auto_pad} with stride {strides[i]} needs a static spatial size (dim {i + 2})")
            if size is None:
                size = b.dim(x, i + 2)
            begin, end = same_pads(b, size, effective, strides[i], auto_pad == "SAME_UPPER")
            begins.append(begin)
            ends.append(end)
        return begins, ends

    # -- attributes -------------------------------------------------------------
    def has_attr(self, name: str) -> bool:
        return (self._attribute_prefix + name) in self.op.attributes

    def _attr(self, name: str, default):
        key = self._attribute_prefix + name
        if key in self.op.attributes:
            return _attribute_python_value(self.op.attributes[key])
        if default is not _REQUIRED:
            return default
        found, value = schema_default(self.op_type, self.opset, self.domain, name)
        if found:
            return value
        schema = onnx_schema(self.op_type, self.opset, self.domain)
        if schema is not None and name in schema.attributes and not schema.attributes[name].required:
            return None
        self.fail(f"required attribute '{name}' is missing")

    def _attr_of_kind(self, name: str, default, kind: str):
        """`_attr`, failing by name when the attribute is not of `kind` ("int", "ints", ...):
        a model whose Softmax `axis` is a string gets that error, not a pattern's TypeError."""
        value = self._attr(name, default)
        if value is None or _is_kind(value, kind):
            return value
        shown = f"{value!r}"[:40] if isinstance(value, (int, float, str, bytes, list)) else type(value).__name__
        self.fail(f"attribute '{name}' must be {_KIND_NAMES[kind]}, not {shown}")

    def attr_int(self, name: str, default=_REQUIRED) -> int | None:
        value = self._attr_of_kind(name, default, "int")
        return None if value is None else int(value)

    def attr_float(self, name: str, default=_REQUIRED) -> float | None:
        value = self._attr_of_kind(name, default, "float")
        return None if value is None else float(value)

    def attr_string(self, name: str, default=_REQUIRED) -> str | None:
        value = self._attr_of_kind(name, default, "string")
        return value.decode() if isinstance(value, bytes) else value

    def attr_ints(self, name: str, default=_REQUIRED) -> list[int] | None:
        value = self._attr_of_kind(name, default, "ints")
        return None if value is None else [int(v) for v in value]

    def attr_floats(self, name: str, default=_REQUIRED) -> list[float] | None:
        value = self._attr_of_kind(name, default, "floats")
        return None if value is None else [float(v) for v in value]

    def attr_strings(self, name: str, default=_REQUIRED) -> list[str] | None:
        value = self._attr_of_kind(name, default, "strings")
        return None if value is None else [v.decode() if isinstance(v, bytes) else v for v in value]

    def attr_tensor(self, name: str, default=_REQUIRED) -> np.ndarray | None:
        """A TENSOR attribute as numpy (dense elements, or a `dense_resource` blob of integers, f32 or f64
        of up to MAX_BOOL_BLOB_ELEMENTS, as the importer stores tensor attributes: a forest's node tables
        are read whole); fails on forms numpy cannot read."""
        value = self._attr(name, default)
        if value is None or isinstance(value, np.ndarray):
            return value
        if isinstance(value, onnx.TensorProto):
            return onnx.numpy_helper.to_array(value)
        if isinstance(value, ir.Attribute) and (blob := read_resource(value, MAX_BOOL_BLOB_ELEMENTS)) is not None:
            return blob
        if isinstance(value, ir.Attribute) and (shaped := shaped_type(value)) is not None:
            self.fail(f"attribute '{name}' is a resource blob of {shaped.element_type} ({shaped}), which this "
                      f"conversion cannot read (it reads blobs of up to {MAX_BOOL_BLOB_ELEMENTS} integers, f32 or f64)")
        self.fail(f"attribute '{name}' is a {type(value).__name__}, which this conversion cannot read")

    def attr_literal(self, name: str, b: TorchBuilder) -> ir.Value:
        """A TENSOR attribute as a `torch.vtensor.literal` of the result's type (`Constant`'s `value`).

        The attribute is kept as it is (a weight's `dense_resource` blob is never read), except
        where a literal must change form: signless integers of the ONNX dialect become signed
        (small ones are read), and a boolean blob becomes dense elements (neither MLIR's lowering
        to LLVM nor IREE reads i1 resource blobs: the dynamo exporter stores a static causal mask
        as one; up to MAX_BOOL_BLOB_ELEMENTS elements)."""
        attribute = self.raw_attribute(name).maybe_downcast()
        result = self.result_info()
        shaped = shaped_type(attribute)
        if shaped is None:
            self.fail(f"attribute '{name}' ({attribute}) is not a tensor this conversion can read")
        element = str(shaped.element_type)
        if "onnx.String" in element or "!torch.str" in element:
            self.fail(f"string tensors ('{name}' of element type string) have no torch equivalent")
        if element.startswith("i") and element != "i1":  # ONNX dialect: signless integers become signed
            values = np.array(attribute) if isinstance(attribute, ir.DenseElementsAttr) else read_resource(attribute)
            if values is not None:
                return b.literal(values.astype(NUMPY_DTYPES[element]), result.element)
        if element == "i1" and not isinstance(attribute, ir.DenseElementsAttr):
            values = read_resource(attribute, limit=MAX_BOOL_BLOB_ELEMENTS)
            if values is None:
                count = int(np.prod(shaped.shape)) if shaped.rank else 1
                self.fail(f"a boolean constant of {count} elements stored as a resource blob is too large to make "
                          f"dense (at most {MAX_BOOL_BLOB_ELEMENTS}); no backend lowers boolean blobs")
            return b.literal(values.astype(np.bool_), "i1")
        return b.op("vtensor.literal", self.result_type(), attributes={"value": attribute})

    def attr_element_type(self, name: str, default=_REQUIRED) -> str | None:
        """A type attribute (`to`) as a torch-mlir element spelling: int code or TypeAttr alike."""
        value = self._attr(name, default)
        if value is None:
            return None
        if isinstance(value, ir.Type):
            info = tensor_info(ir.Type.parse(f"tensor<{value}>", value.context))
            return info.element
        if isinstance(value, str):  # Cast-1 spelled the type as its name ("FLOAT")
            if value not in onnx.TensorProto.DataType.keys():
                self.fail(f"attribute '{name}' names unknown ONNX data type '{value}'")
            value = onnx.TensorProto.DataType.Value(value)
        if not _is_kind(value, "int"):
            self.fail(f"attribute '{name}' must be an ONNX data type, not {str(value)[:40]}")
        element = onnx_dtype_to_element(int(value))
        if element is None:
            self.fail(f"attribute '{name}' names ONNX data type {value}, which has no torch equivalent")
        return element

    def raw_attribute(self, name: str) -> ir.Attribute | None:
        """The MLIR attribute itself (for forms the typed readers do not cover)."""
        key = self._attribute_prefix + name
        return self.op.attributes[key] if key in self.op.attributes else None
