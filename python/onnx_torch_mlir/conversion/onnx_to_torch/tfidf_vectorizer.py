"""TfIdfVectorizer (since 9): counts of the integer n-grams of a constant pool in each row of X.

The pool (`pool_int64s`, n-grams of length 1, 2, ... starting at the `ngram_counts` offsets; the
k-th n-gram of the pool counts into output column `ngram_indexes[k]`) is constant, so the matching
is tensor ops over shifted slices of X. For a length n in [min_gram_length, max_gram_length] and
a skip s in [0, max_skip_count] (a 1-gram is counted once, whatever the skip), the n-grams of a
row start at i in [0, C - (n-1)(s+1)) and take X[i + j(s+1)], j < n:

    hit[r, i, k] = AND_j (X[r, i + j(s+1)] == pool_n[k, j])     ([N, L, pool_n], one slice per j)
    count[r, k] += sum_i hit[r, i, k]

Then TF is the count, IDF min(count, 1) * weight, TFIDF count * weight, and each pool n-gram's
value goes to its output column (`aten.index_select` with the inverse of `ngram_indexes`; a
column no n-gram maps to is 0). A 1-D X is one row and gives a 1-D result. String pools cannot be
imported (torch has no string tensors).
"""

from __future__ import annotations

import numpy as np
from torch_mlir import ir

from .builder import TorchBuilder
from .node import OnnxNode
from .registry import converts


def _pool_ngrams(node: OnnxNode, length: int) -> np.ndarray:
    """The pool's n-grams of `length`, as an int64 [count, length] array (count may be 0)."""
    pool = node.attr_ints("pool_int64s", None)
    if pool is None:
        node.fail("only 'pool_int64s' is supported: a string pool needs string tensors, which torch has not")
    starts = node.attr_ints("ngram_counts")
    if length > len(starts):
        return np.zeros((0, length), np.int64)
    begin = starts[length - 1]
    end = starts[length] if length < len(starts) else len(pool)
    if not 0 <= begin <= end <= len(pool) or (end - begin) % length:
        node.fail(f"'ngram_counts' gives {length}-grams the pool elements [{begin}, {end}), not whole {length}-grams")
    return np.asarray(pool[begin:end], dtype=np.int64).reshape(-1, length)


def _first_entry(node: OnnxNode, length: int) -> int:
    """The index (among all n-grams of the pool) of the first n-gram of `length`."""
    return sum(len(_pool_ngrams(node, shorter)) for shorter in range(1, length))


def _counts(b: TorchBuilder, x: ir.Value, ngrams: np.ndarray, skip: int) -> ir.Value | None:
    """[N, len(ngrams)] f32: how often each n-gram occurs in each row with this skip."""
    rows, width = b.info(x).sizes
    length = ngrams.shape[1]
    windows = width - (length - 1) * (skip + 1)
    if windows <= 0:
        return None
    hits = None
    for j in range(length):
        start = j * (skip + 1)
        column = b.unsqueeze(b.slice_range(x, 1, start, start + windows), -1)
        pool = b.literal(np.ascontiguousarray(ngrams[:, j]), "si64")
        equal = b.op("aten.eq.Tensor", b.tensor_type([rows, windows, len(ngrams)], "i1"), column, pool)
        hits = equal if hits is None else b.op("aten.logical_and", equal.type, hits, equal)
    return b.op("aten.sum.dim_IntList", b.tensor_type([rows, len(ngrams)], "f32"), hits, b.int_list([1]),
                b.constant_bool(False), b.dtype("f32"))


def _pool_counts(node: OnnxNode, b: TorchBuilder, x: ir.Value) -> tuple[ir.Value, int]:
    """[N, entries] f32 counts of every pool n-gram (those of lengths outside the range stay 0)."""
    shortest, longest = node.attr_int("min_gram_length"), node.attr_int("max_gram_length")
    max_skip = node.attr_int("max_skip_count")
    if not 1 <= shortest <= longest or max_skip < 0:
        node.fail(f"needs 1 <= min_gram_length <= max_gram_length and max_skip_count >= 0, not "
                  f"{shortest}, {longest}, {max_skip}")
    rows = b.info(x).sizes[0]
    total = _first_entry(node, len(node.attr_ints("ngram_counts")) + 1)
    blocks = []
    for length in range(1, len(node.attr_ints("ngram_counts")) + 1):
        ngrams = _pool_ngrams(node, length)
        if not len(ngrams):
            continue
        counts = None
        if shortest <= length <= longest:
            for skip in range(max_skip + 1 if length > 1 else 1):
                found = _counts(b, x, ngrams, skip)
                if found is not None:
                    counts = found if counts is None else b.binary("aten.add.Tensor", counts, found)
        blocks.append(counts if counts is not None else b.full([b.dim(x, 0), len(ngrams)], 0.0, "f32"))
    if not blocks:
        return b.full([b.dim(x, 0), 1], 0.0, "f32"), 0
    joined = blocks[0] if len(blocks) == 1 else b.op(
        "aten.cat", b.tensor_type([rows, total], "f32"), b.tensor_list(blocks), b.constant_int(1))
    return joined, total


def _weighted(node: OnnxNode, b: TorchBuilder, counts: ir.Value, entries: int) -> ir.Value:
    mode = node.attr_string("mode")
    if mode not in ("TF", "IDF", "TFIDF"):
        node.fail(f"mode '{mode}' is not TF, IDF or TFIDF")
    if mode == "TF":
        return counts
    if mode == "IDF":
        counts = b.op("aten.clamp_max", counts.type, counts, b.constant_float(1.0))
    weights = node.attr_floats("weights", None)
    if weights is None:
        return counts
    if len(weights) != entries:
        node.fail(f"'weights' has {len(weights)} entries for {entries} pool n-grams")
    return b.binary("aten.mul.Tensor", counts, b.literal(np.asarray(weights, np.float32), "f32"))


def _columns(node: OnnxNode, b: TorchBuilder, values: ir.Value, entries: int) -> ir.Value:
    """values [N, entries] -> [N, max(ngram_indexes) + 1]: each n-gram's value in its column."""
    indexes = node.attr_ints("ngram_indexes")
    if len(indexes) != entries:
        node.fail(f"'ngram_indexes' has {len(indexes)} entries for {entries} pool n-grams")
    if any(index < 0 for index in indexes) or len(set(indexes)) != len(indexes):
        node.fail("'ngram_indexes' must be distinct non-negative columns")
    width = max(indexes, default=-1) + 1
    declared = node.result_info().sizes
    if declared is not None and declared and declared[-1] not in (None, width):
        node.fail(f"the result is declared with {declared[-1]} columns, but max(ngram_indexes) + 1 is {width}")
    rows = b.info(values).sizes[0]
    # Column `entries` is a zero column for the output columns no n-gram maps to.
    padded = b.op("aten.cat", b.tensor_type([rows, entries + 1], "f32"),
                  b.tensor_list([values, b.full([b.dim(values, 0), 1], 0.0, "f32")]), b.constant_int(1))
    source = np.full(width, entries, np.int64)
    source[np.asarray(indexes, dtype=np.int64)] = np.arange(entries)
    return b.op("aten.index_select", b.tensor_type([rows, width], "f32"), padded, b.constant_int(1),
                b.literal(source, "si64"))


@converts("TfIdfVectorizer", since=9)
def tfidf_vectorizer(node: OnnxNode, b: TorchBuilder):
    """Y[r, ngram_indexes[k]] = weighted count of pool n-gram k in row r of X (1-D X: one row)."""
    info = node.input_info(0)
    if info.rank not in (1, 2) or info.sizes[-1] is None:
        node.fail("input 'X' must be [C] or [N, C] with a static C (the n-gram windows are slices of C)")
    if not info.is_integer:
        node.fail(f"input 'X' has element type {info.element}; only integer inputs are supported")
    x = b.to_dtype(node.input(0), "si64")
    if info.rank == 1:
        x = b.unsqueeze(x, 0)
    counts, entries = _pool_counts(node, b, x)
    if entries == 0:
        node.fail("the pool has no n-grams")
    result = _columns(node, b, _weighted(node, b, counts, entries), entries)
    if info.rank == 1:
        result = b.op("aten.squeeze.dim", b.tensor_type(b.info(result).sizes[1:], "f32"), result, b.constant_int(0))
    return b.cast_to(result, node.result_type())
