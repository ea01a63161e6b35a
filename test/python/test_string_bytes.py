"""String inputs compiled as bytes (importer/string_bytes.py, string_tokenizer.py,
runtime/string_inputs.py): the rewritten graph against the original in onnxruntime, then compiled
on each backend against onnxruntime."""

import re

import numpy as np
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from onnx_torch_mlir.errors import ImportError_, OnnxTorchMlirWarning, RunnerError
from onnx_torch_mlir.importer.string_bytes import strings_as_bytes
from onnx_torch_mlir.importer.string_emitter import NodeEmitter
from onnx_torch_mlir.importer.string_tokenizer import PatternError, byte_class, pattern_minimum, tokenize
from onnx_torch_mlir.runtime.backend import OnnxTorchMlirBackend
from onnx_torch_mlir.runtime.string_inputs import encode_strings

WORDS = ["the", "movie", "was", "good", "bad", "Plot", "GREAT", "not", "a", "i", "ok", "x_1", "été", "naïve",
         "#", "don't", "e-mail", "42", "\u2014", "ß"]
POOL = ["the", "movie", "good", "bad", "plot", "great", "not", "été", "x_1", "42"]


def _model(nodes, inputs, outputs, opset=15):
    graph = helper.make_graph(nodes, "strings", inputs, outputs)
    return helper.make_model(graph, ir_version=8, opset_imports=[
        helper.make_opsetid("", opset), helper.make_opsetid("com.microsoft", 1)])


def _run(model, feeds):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _sentences(rng, count, separators=(" ", " ", ", ", "  ", "; ")):
    texts = []
    for _ in range(count):
        words = [WORDS[i] for i in rng.integers(0, len(WORDS), rng.integers(0, 9))]
        texts.append("".join(word + separators[rng.integers(0, len(separators))] for word in words).strip())
    return texts


def _tokenizer_in_bytes(width, pattern, mincharnum, pad):
    """A model of the nodes `tokenize` writes: uint8 [N, W] in, uint8 [N, T, W] out."""
    emit = NodeEmitter(15, "test")
    table, minimum = pattern_minimum(pattern, mincharnum)
    tokens = tokenize(emit, "x", width, table, minimum, pad)
    emit.op("Identity", [tokens], output="y")
    return _model(emit.nodes, [helper.make_tensor_value_info("x", TensorProto.UINT8, ["N", width])],
                  [helper.make_tensor_value_info("y", TensorProto.UINT8, None)])


@pytest.mark.parametrize("pattern,mincharnum", [
    ("[a-zA-Z0-9_]+", 1), (r"\w\w+", 1), (r"\b\w\w+\b", 1), ("[^ ,;]+", 2), (r"\S+", 1), ("[a-z]+", 3),
    (r"[^\s,]+", 1),
])
def test_tokens_are_onnxruntime_tokens(pattern, mincharnum):
    rng = np.random.default_rng(len(pattern) + mincharnum)
    texts = _sentences(rng, 40)
    tokenizer = helper.make_node("Tokenizer", ["x"], ["y"], domain="com.microsoft", mark=0, mincharnum=mincharnum,
                                 pad_value="#", tokenexp=pattern)
    original = _model([tokenizer], [helper.make_tensor_value_info("x", TensorProto.STRING, None)],
                      [helper.make_tensor_value_info("y", TensorProto.STRING, None)])
    expected = _run(original, {"x": np.array(texts, dtype=object)})[0]
    width = 96
    ours = _run(_tokenizer_in_bytes(width, pattern, mincharnum, b"#"), {"x": encode_strings(np.array(texts), width)})[0]
    decoded = [[bytes(token).rstrip(b"\0").decode() for token in row] for row in ours]
    for text, want, got in zip(texts, expected.tolist(), decoded):
        assert got[:len(want)] == want, text
        assert set(got[len(want):]) <= {"#"}, text


@pytest.mark.parametrize("pattern,reason", [
    ("[a-z]+|[0-9]+", "'|'"), ("(ab)+", "'('"), ("[a-z]*", "ending with '+'"), ("[é]+", "non-ASCII"),
    (r"\b[a-z]+\b", r"'\b'"), ("[a-z][0-9]+", "one character class"),
])
def test_patterns_outside_one_class_are_refused(pattern, reason):
    with pytest.raises(PatternError, match=re.escape(reason)):
        byte_class(pattern)


def _text_pipeline(*, stopwords=(), case="LOWER", locale="C", flatten_axis=1, pool=POOL, pad="#", output_tokens=False):
    """skl2onnx's TfidfVectorizer(ngram_range=(1, 2)) graph, with a hand-made pool."""
    pool = list(pool)
    bigrams = [pool[0], pool[1], pool[6], pool[2], pool[4], pool[3]]
    strings = pool + bigrams
    nodes = [
        helper.make_node("Reshape", ["text", "shape"], ["flat"]),
        helper.make_node("StringNormalizer", ["flat"], ["normal"], case_change_action=case, is_case_sensitive=0,
                         locale=locale, **({"stopwords": list(stopwords)} if stopwords else {})),
        helper.make_node("Tokenizer", ["normal"], ["tokens"], domain="com.microsoft", mark=0, mincharnum=1,
                         pad_value=pad, tokenexp="[^ ,;]+"),
        helper.make_node("Flatten", ["tokens"], ["token_rows"], axis=flatten_axis),
        helper.make_node("TfIdfVectorizer", ["token_rows"], ["counts"], mode="TF", min_gram_length=1,
                         max_gram_length=2, max_skip_count=0, ngram_counts=[0, len(pool)],
                         ngram_indexes=list(range(len(pool) + len(bigrams) // 2)), pool_strings=strings),
        helper.make_node("Mul", ["counts", "scale"], ["scores"]),
    ]
    initializers = [helper.make_tensor("shape", TensorProto.INT64, [1], [-1]),
                    helper.make_tensor("scale", TensorProto.FLOAT, [], [0.5])]
    outputs = [helper.make_tensor_value_info("scores", TensorProto.FLOAT, None)]
    if output_tokens:
        outputs.append(helper.make_tensor_value_info("tokens", TensorProto.STRING, None))
    model = _model(nodes, [helper.make_tensor_value_info("text", TensorProto.STRING, ["N", 1])], outputs)
    model.graph.initializer.extend(initializers)
    return model


def test_rewritten_pipeline_matches_onnxruntime():
    model = _text_pipeline()
    texts = np.array(_sentences(np.random.default_rng(3), 30), dtype=object).reshape(-1, 1)
    expected = _run(model, {"text": texts})[0]
    rewritten = strings_as_bytes(model, 128, "pipeline.onnx")
    got = _run(rewritten, {"text": encode_strings(texts, 128)})[0]
    np.testing.assert_array_equal(got, expected)
    assert expected.any()


@pytest.mark.parametrize("backend", ["linalg-on-tensors", "stablehlo", "tosa"])
def test_text_pipeline_compiles_on_each_backend(backend):
    model = _text_pipeline()
    texts = np.array(_sentences(np.random.default_rng(5), 6), dtype=object).reshape(-1, 1)
    expected = _run(model, {"text": texts})[0]
    shapes = {"input_shapes": {"text": (6, 1)}} if backend == "tosa" else {}
    prepared = OnnxTorchMlirBackend.prepare(model, backend=backend, string_bytes=64, **shapes)
    np.testing.assert_allclose(prepared.run([texts])[0], expected, rtol=1e-6)


@pytest.mark.parametrize("changes,message", [
    ({"stopwords": ["the"]}, "stopwords remove strings"),
    ({"flatten_axis": 0}, "flattens a Tokenizer's result"),
    ({"pool": ["#", *POOL[1:]]}, "holds the Tokenizer's pad_value '#'"),
    ({"output_tokens": True}, "graph output 'tokens' is a string tensor"),
    ({"case": "TITLE"}, "case_change_action 'TITLE'"),
])
def test_string_forms_not_compiled_are_refused_by_name(changes, message):
    with pytest.raises(ImportError_, match=message):
        strings_as_bytes(_text_pipeline(**changes), 64, "pipeline.onnx")


def test_other_ops_on_strings_are_refused_by_name():
    node = helper.make_node("Concat", ["a", "a"], ["b"], name="join", axis=0)
    model = _model([node], [helper.make_tensor_value_info("a", TensorProto.STRING, [2])],
                   [helper.make_tensor_value_info("b", TensorProto.STRING, [4])])
    with pytest.raises(ImportError_, match=r"m.onnx: node 'join' \(Concat\) reads the string tensor 'a'"):
        strings_as_bytes(model, 16, "m.onnx")


def test_another_locale_warns_that_only_ascii_changes_case():
    with pytest.warns(OnnxTorchMlirWarning, match="ASCII letters only"):
        strings_as_bytes(_text_pipeline(locale="en_US.UTF-8"), 64, "pipeline.onnx")


def test_encoding_refuses_a_string_longer_than_the_width():
    np.testing.assert_array_equal(encode_strings(np.array(["ab", "é"]), 3), [[97, 98, 0], [0xC3, 0xA9, 0]])
    with pytest.raises(RunnerError, match="a string of 5 bytes is longer than the 4 bytes.*--string-bytes 8"):
        encode_strings(np.array([["abcde"]], dtype=object), 4)
