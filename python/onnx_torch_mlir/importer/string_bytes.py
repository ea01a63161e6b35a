"""String tensors compiled as bytes: a string input of shape S becomes a uint8 input of shape S + [W].

torch has no string tensors, and text models (skl2onnx's TfidfVectorizer and CountVectorizer
pipelines: StringNormalizer, com.microsoft Tokenizer, TfIdfVectorizer on a string pool) take one.
In the torch-ONNX form each string is held as its UTF-8 bytes, zero-padded to a width W fixed at
compile time (`string_bytes`, `--string-bytes`, default 256), so a string input `[N, 1]` is the
program's argument `[N, 1, W]` of uint8 (runtime/string_inputs.py encodes numpy strings so, and
refuses a string longer than W). This rewrite of the ONNX graph, before shape inference, puts
default-domain nodes on those bytes in place of each string op (onnxruntime runs the rewritten
graph too, which is how test_string_bytes.py checks it):

- StringNormalizer: LOWER/UPPER map the ASCII letters by a 256-entry table (what onnxruntime does
  with locale "C"; with another locale it also changes non-ASCII letters, which stay as they are
  here, with a warning). Stopwords would remove strings, a size the data decides: refused.
- Tokenizer (com.microsoft): string_tokenizer.py; its padded result may reach only Identity,
  Flatten and TfIdfVectorizer, which cannot tell its extra pad tokens from onnxruntime's.
- TfIdfVectorizer on `pool_strings`: each string becomes the int64 id of the equal pool string (-1
  for none) by a hash of its bytes and an exact comparison with the candidate, and the node counts
  ids with `pool_int64s` (tfidf_vectorizer.py).
- Reshape, Flatten and Identity move the strings with their bytes.

Any other node that reads a string, and a string graph output, is refused by name.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ..errors import ImportError_, OnnxTorchMlirWarning
from .node_structure import node_label
from .string_emitter import INT64, UINT8, NodeEmitter
from .string_tokenizer import PatternError, pattern_minimum, token_count, tokenize, tokenizer_problem
from .validation import describe_type, schema_input_problem

STRING = TensorProto.STRING
C_LOCALES = {"", "C", "POSIX", "C.UTF-8", "C.utf8"}
# The ops that only exist on strings, compiled by this rewrite (list-ops names them so).
STRING_OPS = {("", "StringNormalizer"), ("com.microsoft", "Tokenizer")}


@dataclass(frozen=True)
class StringValue:
    """A string tensor held as bytes: its dims before the byte axis (None: not known here), and the
    pad of a Tokenizer's result (None for any other string)."""

    dims: tuple | None
    pad: bytes | None = None


def strings_as_bytes(model: onnx.ModelProto, width: int, model_name: str = "<model>") -> onnx.ModelProto:
    """`model`, or a copy whose string inputs are bytes and string ops byte ops (module docstring)."""
    graph = model.graph
    if not any(_is_string(value) for value in graph.input):
        return model
    if not 1 <= width <= 65536:
        raise ImportError_(f"{model_name}: --string-bytes {width}: expected a width from 1 to 65536 bytes")
    rewritten = onnx.ModelProto()
    rewritten.CopyFrom(model)
    _GraphRewrite(rewritten, width, model_name).run()
    return rewritten


def _is_string(value: onnx.ValueInfoProto) -> bool:
    return value.type.WhichOneof("value") == "tensor_type" and value.type.tensor_type.elem_type == STRING


def _dims(value: onnx.ValueInfoProto) -> tuple | None:
    tensor_type = value.type.tensor_type
    if not tensor_type.HasField("shape"):
        return None
    return tuple(dim.dim_value if dim.HasField("dim_value") else None for dim in tensor_type.shape.dim)


class _GraphRewrite:
    def __init__(self, model: onnx.ModelProto, width: int, model_name: str):
        self.model = model
        self.graph = model.graph
        self.width = width
        self.model_name = model_name
        self.opset = self._default_opset()
        self.strings: dict[str, StringValue] = {}
        self.constants: dict[str, onnx.TensorProto] = {}

    def run(self) -> None:
        for value in self.graph.input:
            if _is_string(value):
                self.strings[value.name] = StringValue(_dims(value))
                _as_bytes_type(value, self.width)
        nodes = []
        for index, node in enumerate(self.graph.node):
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
                for attribute in node.attribute:
                    if attribute.name == "value":
                        self.constants[node.output[0]] = attribute.t
            nodes.extend(self._rewrite(index, node))
        del self.graph.node[:]
        self.graph.node.extend(nodes)
        for value in self.graph.output:
            if value.name in self.strings:
                raise ImportError_(f"{self.model_name}: graph output '{value.name}' is a string tensor: strings are "
                                   "compiled as bytes only on the way to a number (importer/string_bytes.py)")
        kept = [value for value in self.graph.value_info if value.name not in self.strings]
        del self.graph.value_info[:]
        self.graph.value_info.extend(kept)
        for value in self.graph.input:
            if value.name in self.strings:
                warnings.warn(OnnxTorchMlirWarning(
                    f"{self.model_name}: string input '{value.name}' is the program's uint8 argument "
                    f"{describe_type(value.type)}: each string's UTF-8 bytes, zero-padded (--string-bytes; "
                    "run, verify and onnx_torch_mlir.runtime.string_inputs encode numpy strings so)"), stacklevel=3)

    def constant_ints(self, name: str) -> list[int] | None:
        """The values of `name` when an initializer or an earlier Constant node gives them."""
        for tensor in self.graph.initializer:
            if tensor.name == name:
                return [int(item) for item in numpy_helper.to_array(tensor).reshape(-1)]
        tensor = self.constants.get(name)
        return None if tensor is None else [int(item) for item in numpy_helper.to_array(tensor).reshape(-1)]

    def _default_opset(self) -> int:
        versions = {opset.domain: opset.version for opset in self.model.opset_import}
        version = versions.get("", versions.get("ai.onnx"))
        if version is None:
            self.model.opset_import.append(helper.make_opsetid("", 13))
            return 13
        return version

    def _rewrite(self, index: int, node: onnx.NodeProto) -> list:
        read = [name for name in node.input if name in self.strings]
        self._check_subgraphs(index, node)
        if not read:
            return [node]
        label = f"{self.model_name}: {node_label(index, node)}"
        emit = NodeEmitter(self.opset, f"string_bytes/{node.name or node.output[0]}")
        rewrite = _REWRITES.get(("" if node.domain == "ai.onnx" else node.domain, node.op_type))
        if rewrite is None or node.input[0] not in self.strings or len(read) > 1:
            string_type = helper.make_tensor_type_proto(STRING, None)
            problem = schema_input_problem(node, self.opset, {name: string_type for name in read})
            if problem:
                raise ImportError_(f"{label}: {problem}")
            raise ImportError_(f"{label} reads the string tensor '{read[0]}': strings are compiled as bytes "
                               "(importer/string_bytes.py) only through StringNormalizer, Tokenizer, TfIdfVectorizer, "
                               "Reshape, Flatten and Identity")
        try:
            result = rewrite(self, emit, node, self.strings[node.input[0]])
        except PatternError as error:
            raise ImportError_(f"{label}: tokenexp {error}: only one character class repeated is compiled") from None
        except _Refused as refusal:
            raise ImportError_(f"{label}: {refusal}") from None
        if result is not None:
            self.strings[node.output[0]] = result
        return emit.nodes

    def _check_subgraphs(self, index: int, node: onnx.NodeProto) -> None:
        for attribute in node.attribute:
            for subgraph in [attribute.g] if attribute.type == onnx.AttributeProto.GRAPH else list(attribute.graphs):
                for inner in subgraph.node:
                    named = [name for name in inner.input if name in self.strings]
                    if named:
                        raise ImportError_(f"{self.model_name}: {node_label(index, node)} reads the string tensor "
                                           f"'{named[0]}' in a subgraph: strings held as bytes stay in the main graph")


class _Refused(Exception):
    """A string op with attributes the byte form does not compile (the message says which)."""


def _as_bytes_type(value: onnx.ValueInfoProto, width: int) -> None:
    tensor_type = value.type.tensor_type
    shape = None
    if tensor_type.HasField("shape"):
        shape = [dim.dim_param or (dim.dim_value if dim.HasField("dim_value") else None) for dim in tensor_type.shape.dim]
        shape.append(width)
    value.type.CopyFrom(helper.make_tensor_type_proto(UINT8, shape))


def _attributes(node: onnx.NodeProto) -> dict:
    return {attribute.name: helper.get_attribute_value(attribute) for attribute in node.attribute}


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _string_normalizer(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> StringValue:
    attributes = _attributes(node)
    if attributes.get("stopwords"):
        raise _Refused("stopwords remove strings, a count the data decides, which the byte form does not "
                       "compile yet")
    action = _text(attributes.get("case_change_action", b"NONE"))
    if action == "NONE":
        emit.op("Identity", [node.input[0]], output=node.output[0])
        return value
    if action not in ("LOWER", "UPPER"):
        raise _Refused(f"case_change_action '{action}' is not LOWER, UPPER or NONE")
    locale = _text(attributes.get("locale", b""))
    if locale not in C_LOCALES:
        warnings.warn(OnnxTorchMlirWarning(
            f"{rewrite.model_name}: node '{node.name}' (StringNormalizer): case is changed for ASCII letters only, "
            f"as with locale C; onnxruntime with locale '{locale}' also changes non-ASCII letters"), stacklevel=2)
    table = np.arange(256, dtype=np.uint8)
    letters = np.arange(ord("A"), ord("Z") + 1) if action == "LOWER" else np.arange(ord("a"), ord("z") + 1)
    table[letters] = letters + (32 if action == "LOWER" else -32)
    codes = emit.cast(node.input[0], INT64, "codes")
    emit.op("Gather", [emit.constant(table, "case_table"), codes], output=node.output[0], axis=0)
    return value


def _tokenizer(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> StringValue:
    attributes = _attributes(node)
    problem = tokenizer_problem(attributes)
    if rewrite.opset < 11:
        problem = (f"its tokens are found with default-domain ops of opset 11 or later (GatherElements, Equal on "
                   f"floats), and the model imports opset {rewrite.opset}")
    if problem:
        raise _Refused(problem)
    table, minimum = pattern_minimum(_text(attributes["tokenexp"]), int(attributes.get("mincharnum", 1)))
    pad = attributes.get("pad_value", b"#")
    pad = pad if isinstance(pad, bytes) else str(pad).encode()
    if len(pad) > rewrite.width:
        raise _Refused(f"pad_value is longer than the {rewrite.width} bytes a string is compiled with")
    tokens = tokenize(emit, node.input[0], rewrite.width, table, minimum, pad)
    emit.op("Identity", [tokens], output=node.output[0])
    count = token_count(rewrite.width, minimum)
    return StringValue(None if value.dims is None else (*value.dims, count), pad)


def _identity(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> StringValue:
    emit.op("Identity", [node.input[0]], output=node.output[0])
    return value


def _reshape(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> StringValue:
    if value.pad is not None:
        raise _Refused("reshapes a Tokenizer's result, whose token count is onnxruntime's largest per row and is "
                       "compiled larger here")
    width = emit.constant(np.asarray([rewrite.width], np.int64), "width")
    shape = emit.op("Concat", [node.input[1], width], "shape_with_bytes", axis=0)
    emit.op("Reshape", [node.input[0], shape], output=node.output[0], **_attributes(node))
    target = rewrite.constant_ints(node.input[1])
    if target is None:
        return StringValue(None)
    return StringValue(_reshaped_dims(value.dims, target, bool(_attributes(node).get("allowzero", 0))))


def _reshaped_dims(dims: tuple | None, target: list[int], allow_zero: bool) -> tuple:
    """A Reshape's result dims from its constant target (None where they are not known here)."""
    result = []
    for index, size in enumerate(target):
        if size == 0 and not allow_zero:
            result.append(dims[index] if dims is not None and index < len(dims) else None)
        else:
            result.append(None if size < 0 else size)
    if -1 in target and dims is not None and None not in dims and None not in result[:target.index(-1)] + \
            result[target.index(-1) + 1:]:
        rest = _product([size for size in result if size is not None])
        result[target.index(-1)] = _product(dims) // rest if rest else None
    return tuple(result)


def _flatten(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> StringValue:
    if value.dims is None:
        raise _Refused("flattens strings of an unknown rank")
    rank = len(value.dims)
    axis = int(_attributes(node).get("axis", 1))
    axis = axis + rank if axis < 0 else axis
    if value.pad is not None and (axis >= rank or any(dim != 1 for dim in value.dims[axis:-1])):
        raise _Refused("flattens a Tokenizer's result with more than its token axis into one row, which would "
                       "join tokens across rows onnxruntime pads differently")
    flat = emit.op("Flatten", [node.input[0]], "flat_bytes", axis=axis)
    shape = emit.constant(np.asarray([0, -1, rewrite.width], np.int64), "flat_shape")
    emit.op("Reshape", [flat, shape], output=node.output[0])
    leading, trailing = value.dims[:axis], value.dims[axis:]
    return StringValue((_product(leading), _product(trailing)), value.pad)


def _product(dims) -> int | None:
    if any(dim is None for dim in dims):
        return None
    return int(np.prod(dims, dtype=np.int64))


def _tfidf_vectorizer(rewrite: _GraphRewrite, emit: NodeEmitter, node, value: StringValue) -> None:
    attributes = _attributes(node)
    pool = list(attributes.get("pool_strings") or [])
    if not pool:
        raise _Refused("reads strings but has no 'pool_strings'")
    if value.pad is not None and value.pad in pool:
        raise _Refused(f"the pool holds the Tokenizer's pad_value '{_text(value.pad)}', which onnxruntime counts "
                       "as often as it pads: a count this form does not reproduce")
    ids, pool_ids = _string_ids(emit, node.input[0], rewrite.width, pool)
    kept = [helper.make_attribute(name, item) for name, item in attributes.items() if name != "pool_strings"]
    vectorizer = helper.make_node("TfIdfVectorizer", [ids], list(node.output), name=node.name, domain=node.domain)
    vectorizer.attribute.extend([*kept, helper.make_attribute("pool_int64s", pool_ids)])
    emit.nodes.append(vectorizer)
    return None


def _string_ids(emit: NodeEmitter, x: str, width: int, pool: list[bytes]) -> tuple[str, list[int]]:
    """Nodes giving, for each string of `x`, the id of the equal pool string (-1 for none), and the
    pool as ids. A string matches by a hash of its bytes, then by comparing all its bytes with the
    one candidate the hash points to (so a hash collision never gives a wrong id)."""
    unique: dict[bytes, int] = {}
    for item in pool:
        unique.setdefault(item, len(unique))
    matchable = [(item, index) for item, index in unique.items() if len(item) <= width]
    codes = emit.cast(x, INT64, "codes")
    minus_one = emit.constant(np.int64(-1), "minus_one")
    if not matchable:
        zero = emit.constant(np.int64(0), "zero")
        hashed = emit.reduce_sum(emit.op("Mul", [codes, zero]), -1, "nothing")
        return emit.op("Add", [hashed, minus_one], "ids"), [unique[item] for item in pool]
    rows = np.zeros((len(matchable), width), np.int64)
    for row, (item, _) in enumerate(matchable):
        rows[row, :len(item)] = np.frombuffer(item, np.uint8)
    weights, pool_hashes = _distinct_hashes(rows)
    hashes = emit.reduce_sum(emit.op("Mul", [codes, emit.constant(weights, "hash_weights")]), -1, "hashes")
    pool_hash = emit.constant(pool_hashes, "pool_hashes")
    equal = emit.as_float(emit.op("Equal", [emit.unsqueeze(hashes, -1), pool_hash]), "hash_equal")
    best = emit.op("ArgMax", [equal], "candidate", axis=-1, keepdims=0)
    same_hash = emit.op("Equal", [emit.op("Gather", [pool_hash, best], axis=0), hashes], "same_hash")
    candidate = emit.op("Gather", [emit.constant(rows, "pool_codes"), best], "candidate_codes", axis=0)
    difference = emit.reduce_sum(emit.op("Abs", [emit.op("Sub", [candidate, codes])]), -1, "difference")
    exact = emit.op("Equal", [difference, emit.constant(np.int64(0), "zero")], "exact")
    found = emit.op("And", [same_hash, exact], "found")
    matched_ids = emit.op("Gather", [emit.constant(np.asarray([index for _, index in matchable], np.int64), "ids"),
                                     best], "matched_ids", axis=0)
    return emit.op("Where", [found, matched_ids, minus_one], "string_ids"), [unique[item] for item in pool]


def _distinct_hashes(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weights in [1, 2^31) for a weighted sum of bytes (exact in int64 for W <= 65536), chosen so
    that no two pool strings share a hash."""
    for seed in range(64):
        weights = np.random.default_rng(seed).integers(1, 2**31, rows.shape[1], dtype=np.int64)
        hashes = rows @ weights
        if len(np.unique(hashes)) == len(hashes):
            return weights, hashes
    raise ImportError_("no hash of the TfIdfVectorizer pool strings without a collision was found")


_REWRITES = {
    ("", "StringNormalizer"): _string_normalizer,
    ("com.microsoft", "Tokenizer"): _tokenizer,
    ("", "TfIdfVectorizer"): _tfidf_vectorizer,
    ("", "Identity"): _identity,
    ("", "Reshape"): _reshape,
    ("", "Flatten"): _flatten,
}
