"""TreeEnsemble (domain `ai.onnx.ml`, version 5) and TreeEnsembleRegressor (versions 1 and 3): a forest
whose structure is all constant attributes.

Every tree is walked for every sample at once, one depth level per step, with gathers over
constant tables. The entries of the tables are the interior nodes `0..M-1` followed by the
leaves `M..M+L-1`; a leaf's successor is itself, so a walk that has reached its leaf stays there,
and `max depth` steps take every walk from its root to its leaf:

    position[n, t] = tree_roots[t]
    repeat depth times:
        x        = X[n, feature[position]]
        go_true  = compare(mode[position], x, split[position]) or (isnan(x) and tracks_true[position])
        position = where(go_true, true_next[position], false_next[position])

The comparisons are BRANCH_LEQ, LT, GTE, GT, EQ, NEQ (with IEEE NaN semantics) and BRANCH_MEMBER:
x equal to one of the node's members (`membership_values`, one NaN-delimited run per MEMBER node,
in node order). Each table lookup is an `aten.index_select` at the flattened positions; the feature
values are an `aten.gather` along dim 1 of X.

The leaf reached in each tree adds its weight to its target (aggregate SUM, AVERAGE: the sum over
the number of trees, MIN, MAX; a target no leaf reaches is 0, as in onnxruntime: ONNX's reference
leaves the type's largest / lowest finite value there for MIN / MAX), then `post_transform`:
NONE, SOFTMAX, LOGISTIC, SOFTMAX_ZERO (softmax over the nonzero scores, zeros stay 0) or PROBIT
(onnxruntime's closed-form approximation of sqrt(2) erfinv(2s - 1); `scores.py`).

The tree structure is checked at conversion time (ids in range, no cycle), which also gives the
depth.

TreeEnsembleRegressor names nodes by (tree id, node id), marks leaves with mode LEAF and attaches
weights by (tree id, node id, target): a leaf may weigh on several targets. Both encodings become
the same tables, and per-leaf weights [leaves, targets] (with whether a leaf weighs on a target, for
MIN and MAX) that are gathered at the leaves reached. The regressor adds `base_values` before the
post transform (its aggregate and transform are named by strings), and its result is float32.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from torch_mlir import ir

from ..builder import TorchBuilder
from ..node import OnnxNode
from ..registry import converts
from .scores import ML, POST_TRANSFORM_NAMES, post_transform

LEQ, LT, GTE, GT, EQ, NEQ, MEMBER = range(7)
COMPARISONS = {LEQ: "aten.le.Tensor", LT: "aten.lt.Tensor", GTE: "aten.ge.Tensor", GT: "aten.gt.Tensor",
               EQ: "aten.eq.Tensor", NEQ: "aten.ne.Tensor"}
AVERAGE, SUM, MIN, MAX = range(4)
NUMPY_TYPES = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "si64": np.int64, "i1": np.bool_}


@dataclass
class Forest:
    """The constant tables over entries (interior nodes, then leaves) and the walk's facts."""

    features: np.ndarray  # int64 [entries]
    splits: np.ndarray  # float64 [entries]
    modes: np.ndarray  # int64 [entries]
    true_next: np.ndarray  # int64 [entries]
    false_next: np.ndarray  # int64 [entries]
    tracks_true: np.ndarray  # bool [entries]
    members: np.ndarray  # float64 [max set size, entries], NaN-padded
    roots: np.ndarray  # int64 [trees]
    depth: int
    leaf_offset: int


def _members(node: OnnxNode, modes: np.ndarray) -> list[list[float]]:
    """One list of members per MEMBER node, in node order, from the NaN-delimited attribute."""
    member_nodes = int(np.sum(modes == MEMBER))
    if member_nodes == 0:
        return []
    values = node.attr_tensor("membership_values", None)
    if values is None:
        node.fail("BRANCH_MEMBER nodes need 'membership_values'")
    runs, current = [], []
    for value in np.asarray(values, dtype=np.float64).reshape(-1):
        if np.isnan(value):
            runs.append(current)
            current = []
        else:
            current.append(float(value))
    if current:
        runs.append(current)
    if len(runs) != member_nodes:
        node.fail(f"'membership_values' has {len(runs)} sets for {member_nodes} BRANCH_MEMBER nodes")
    return runs


def _depth(node: OnnxNode, roots, true_next, false_next, interior: int) -> int:
    """The largest number of interior nodes on a root-to-leaf path; fails on a cycle."""
    depth_of: dict[int, int] = {}

    def visit(entry: int, path: set[int]) -> int:
        if entry >= interior:
            return 0
        if entry in path:
            node.fail(f"the trees have a cycle through node {entry}")
        if entry not in depth_of:
            path.add(entry)
            depth_of[entry] = 1 + max(visit(int(true_next[entry]), path), visit(int(false_next[entry]), path))
            path.discard(entry)
        return depth_of[entry]

    return max((visit(int(root), set()) for root in roots), default=0)


def _forest(node: OnnxNode) -> Forest:
    features = np.asarray(node.attr_ints("nodes_featureids"), dtype=np.int64)
    interior = len(features)
    modes = np.asarray(node.attr_tensor("nodes_modes"), dtype=np.int64).reshape(-1)
    splits = np.asarray(node.attr_tensor("nodes_splits"), dtype=np.float64).reshape(-1)
    true_ids, false_ids = node.attr_ints("nodes_truenodeids"), node.attr_ints("nodes_falsenodeids")
    true_leafs, false_leafs = node.attr_ints("nodes_trueleafs"), node.attr_ints("nodes_falseleafs")
    tracks = node.attr_ints("nodes_missing_value_tracks_true", None) or [0] * interior
    leaves = len(node.attr_ints("leaf_targetids"))
    arrays = {"nodes_modes": modes, "nodes_splits": splits, "nodes_truenodeids": true_ids,
              "nodes_falsenodeids": false_ids, "nodes_trueleafs": true_leafs, "nodes_falseleafs": false_leafs,
              "nodes_missing_value_tracks_true": tracks}
    for name, values in arrays.items():
        if len(values) != interior:
            node.fail(f"'{name}' has {len(values)} entries, 'nodes_featureids' {interior}")
    if np.any((modes < LEQ) | (modes > MEMBER)):
        node.fail(f"'nodes_modes' has a mode outside 0..6: {sorted(set(modes.tolist()))}")

    def successors(ids, is_leaf):
        targets = []
        for index, (target, leaf) in enumerate(zip(ids, is_leaf)):
            limit = leaves if leaf else interior
            if not 0 <= target < limit:
                node.fail(f"node {index} points to {'leaf' if leaf else 'node'} {target}, outside [0, {limit})")
            targets.append(interior + target if leaf else target)
        return np.asarray(targets + list(range(interior, interior + leaves)), dtype=np.int64)

    true_next, false_next = successors(true_ids, true_leafs), successors(false_ids, false_leafs)
    roots = np.asarray(node.attr_ints("tree_roots"), dtype=np.int64)
    if len(roots) == 0 or np.any((roots < 0) | (roots >= interior)):
        node.fail(f"'tree_roots' must be node ids in [0, {interior})")
    return _tables(node, features, modes, splits, true_next, false_next, tracks, _members(node, modes), roots,
                   leaves)


def _tables(node: OnnxNode, features, modes, splits, true_next, false_next, tracks, member_sets, roots,
            leaves: int) -> Forest:
    """The Forest of `interior` nodes (the per-node arrays) followed by `leaves` leaves; `true_next`
    and `false_next` already cover every entry (a leaf's successor is itself)."""
    interior = len(features)
    width = max((len(run) for run in member_sets), default=0)
    members = np.full((width, interior + leaves), np.nan)
    for entry, run in zip(np.flatnonzero(modes == MEMBER), member_sets):
        members[: len(run), entry] = run
    pad = np.zeros(leaves, dtype=np.int64)
    return Forest(
        features=np.concatenate([features, pad]), splits=np.concatenate([splits, pad.astype(np.float64)]),
        modes=np.concatenate([modes, pad]), true_next=true_next, false_next=false_next,
        tracks_true=np.concatenate([np.asarray(tracks, dtype=bool), pad.astype(bool)]), members=members,
        roots=roots, depth=_depth(node, roots, true_next, false_next, interior), leaf_offset=interior,
    )


class _Walk:
    """Lookups in constant per-entry tables at the walk's positions ([N, trees] si64): an
    `aten.index_select` of the 1-D table at the flattened positions (no [N, entries] copy)."""

    def __init__(self, b: TorchBuilder, batch, trees: int):
        self.b, self.batch, self.trees = b, batch, trees
        self._flattened: tuple[ir.Value, ir.Value] | None = None

    def _flat(self, positions: ir.Value) -> ir.Value:
        if self._flattened is None or self._flattened[0] != positions:
            self._flattened = (positions, self.b.flatten(positions))
        return self._flattened[1]

    def lookup(self, table: np.ndarray, element: str, positions: ir.Value) -> ir.Value:
        b = self.b
        flat = self._flat(positions)
        literal = b.literal(table.astype(NUMPY_TYPES[element]), element)
        picked = b.op("aten.index_select", b.tensor_type(b.info(flat).sizes, element), literal, b.constant_int(0),
                      flat)
        return b.reshape(picked, [self.batch, self.trees], [b.static_dim(self.batch), self.trees])

    def compare(self, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.op(op, self.b.tensor_type(self.b.info(x).sizes, "i1"), x, y)

    def both(self, op: str, x: ir.Value, y: ir.Value) -> ir.Value:
        return self.b.op(op, self.b.type_like(x), x, y)


def _goes_true(walk: _Walk, forest: Forest, x: ir.Value, features: ir.Value, positions: ir.Value,
               element: str) -> ir.Value:
    """Whether each walk takes its node's true branch (a leaf's answer does not matter)."""
    present = sorted(set(forest.modes[: forest.leaf_offset].tolist()))
    values = walk.b.op("aten.gather", walk.b.tensor_type(walk.b.info(positions).sizes, element), x,
                       walk.b.constant_int(1), features, walk.b.constant_bool(False))
    mode = walk.lookup(forest.modes, "si64", positions) if len(present) > 1 else None
    split = walk.lookup(forest.splits, element, positions) if set(present) - {MEMBER} else None
    result = None
    for code in present:
        if code == MEMBER:
            decision = None
            for row in forest.members:
                hit = walk.compare("aten.eq.Tensor", values, walk.lookup(row, element, positions))
                decision = hit if decision is None else walk.both("aten.logical_or", decision, hit)
        else:
            decision = walk.compare(COMPARISONS[code], values, split)
        if mode is not None:
            is_mode = walk.b.op("aten.eq.Scalar", walk.b.type_like(decision), mode, walk.b.constant_int(code))
            decision = walk.both("aten.logical_and", decision, is_mode)
        result = decision if result is None else walk.both("aten.logical_or", result, decision)
    if forest.tracks_true.any():
        missing = walk.b.op("aten.isnan", walk.b.type_like(result), values)
        tracked = walk.lookup(forest.tracks_true, "i1", positions)
        result = walk.both("aten.logical_or", result, walk.both("aten.logical_and", missing, tracked))
    return result


def leaf_rows(walk: _Walk, leaves: ir.Value, table: np.ndarray, element: str) -> ir.Value:
    """The rows of a per-leaf table [leaves, targets] at the leaves reached [N, trees]: [N, trees, targets]."""
    b, trees, targets = walk.b, walk.trees, table.shape[1]
    flat = b.flatten(leaves)
    literal = b.literal(table.astype(NUMPY_TYPES[element]), element)
    picked = b.op("aten.index_select", b.tensor_type([b.info(flat).sizes[0], targets], element), literal,
                  b.constant_int(0), flat)
    return b.reshape(picked, [walk.batch, trees, targets], [b.static_dim(walk.batch), trees, targets])


def aggregate(node: OnnxNode, walk: _Walk, leaves: ir.Value, weights: np.ndarray, has: np.ndarray,
               function: int, element: str) -> ir.Value:
    """Leaves reached [N, trees] -> [N, targets] scores, from the per-leaf weights [leaves, targets]
    (`has`: whether a leaf has a weight for a target, which MIN and MAX need)."""
    b, trees, targets = walk.b, walk.trees, weights.shape[1]
    batch = b.static_dim(walk.batch)

    def rows(table: np.ndarray, table_element: str) -> ir.Value:
        return leaf_rows(walk, leaves, table, table_element)

    result_type = b.tensor_type([batch, targets], element)
    false = b.constant_bool(False)
    if function in (AVERAGE, SUM):
        scores = b.op("aten.sum.dim_IntList", result_type, rows(weights, element), b.int_list([1]), false,
                      b.dtype(element))
        return b.scalar_op("aten.div.Scalar", scores, float(trees)) if function == AVERAGE else scores
    if function not in (MIN, MAX):
        node.fail(f"aggregate_function {function} is not one of AVERAGE (0), SUM (1), MIN (2), MAX (3)")
    limits = np.finfo(NUMPY_TYPES[element])
    hit = rows(has, "i1")
    spread = b.op("aten.where.ScalarOther", b.tensor_type([batch, trees, targets], element), hit,
                  rows(weights, element), b.constant_float(float(limits.max if function == MIN else limits.min)))
    extreme = b.op("aten.amin" if function == MIN else "aten.amax", result_type, spread, b.int_list([1]), false)
    reached = b.op("aten.any.dim", b.tensor_type([batch, targets], "i1"), hit, b.constant_int(1), false)
    return b.op("aten.where.ScalarOther", result_type, reached, extreme, b.constant_float(0.0))


@converts("TreeEnsemble", since=5, domain=ML)
def tree_ensemble(node: OnnxNode, b: TorchBuilder):
    """Y[n, t] = aggregate over trees of the weights of the leaves X[n] reaches with target t."""
    x, element = _checked_input(node)
    forest = _forest(node)
    check_features(node, forest)
    target_ids = np.asarray(node.attr_ints("leaf_targetids"), dtype=np.int64)
    n_targets = node.attr_int("n_targets", None)
    if n_targets is None:
        n_targets = int(target_ids.max(initial=-1)) + 1
    if np.any((target_ids < 0) | (target_ids >= n_targets)):
        node.fail(f"'leaf_targetids' must be in [0, {n_targets})")
    leaf_weights = np.asarray(node.attr_tensor("leaf_weights"), dtype=np.float64).reshape(-1)
    if len(leaf_weights) != len(target_ids):
        node.fail(f"'leaf_weights' has {len(leaf_weights)} entries, 'leaf_targetids' {len(target_ids)}")

    weights = np.zeros((len(target_ids), n_targets))
    weights[np.arange(len(target_ids)), target_ids] = leaf_weights
    has = np.zeros(weights.shape, dtype=bool)
    has[np.arange(len(target_ids)), target_ids] = True
    walk, leaves = walk_forest(b, x, forest, element)
    scores = aggregate(node, walk, leaves, weights, has, node.attr_int("aggregate_function"), element)
    return b.cast_to(post_transform(node, b, scores, node.attr_int("post_transform")), node.result_type())


def _checked_input(node: OnnxNode) -> tuple[ir.Value, str]:
    info = node.input_info(0)
    if info.rank != 2:
        node.fail(f"input 'X' must be [N, F] (rank 2), not rank {info.rank}")
    if info.element not in ("f16", "f32", "f64"):
        node.fail(f"input 'X' has element type {info.element}, not a float type")
    return node.input(0), info.element


def check_features(node: OnnxNode, forest: Forest) -> None:
    features_count = node.input_info(0).sizes[1]
    if features_count is not None and forest.features.max(initial=0) >= features_count:
        node.fail(f"a node reads feature {int(forest.features.max())} of an input with {features_count} features")


def walk_forest(b: TorchBuilder, x: ir.Value, forest: Forest, element: str) -> tuple[_Walk, ir.Value]:
    """Every tree walked for every row: the leaf (index among the leaves) each reaches, [N, trees]."""
    batch, trees = b.dim(x, 0), len(forest.roots)
    walk = _Walk(b, batch, trees)
    positions = b.op("aten.broadcast_to", b.tensor_type([b.static_dim(batch), trees], "si64"),
                     b.unsqueeze(b.literal(forest.roots, "si64"), 0), b.int_list([batch, trees]))
    for _ in range(forest.depth):
        features = walk.lookup(forest.features, "si64", positions)
        go_true = _goes_true(walk, forest, x, features, positions, element)
        on_true = walk.lookup(forest.true_next, "si64", positions)
        on_false = walk.lookup(forest.false_next, "si64", positions)
        positions = b.op("aten.where.self", b.type_like(positions), go_true, on_true, on_false)
    leaves = b.op("aten.sub.Scalar", b.type_like(positions), positions, b.constant_int(forest.leaf_offset),
                  b.constant_int(1))
    return walk, leaves


REGRESSOR_MODES = {"BRANCH_LEQ": LEQ, "BRANCH_LT": LT, "BRANCH_GTE": GTE, "BRANCH_GT": GT, "BRANCH_EQ": EQ,
                   "BRANCH_NEQ": NEQ}
AGGREGATE_NAMES = {"AVERAGE": AVERAGE, "SUM": SUM, "MIN": MIN, "MAX": MAX}


def floats_or_tensor(node: OnnxNode, name: str) -> np.ndarray | None:
    """`name` (FLOATS) or, from version 3, `name_as_tensor` (a double tensor)."""
    tensor = node.attr_tensor(f"{name}_as_tensor", None) if node.opset >= 3 else None
    if tensor is not None:
        return np.asarray(tensor, dtype=np.float64).reshape(-1)
    values = node.attr_floats(name, None)
    return None if values is None else np.asarray(values, dtype=np.float64)


def regressor_forest(node: OnnxNode, prefix: str = "target", targets: int | None = None
                     ) -> tuple[Forest, np.ndarray, np.ndarray]:
    """The TreeEnsembleRegressor encoding (nodes named by (tree id, node id), leaves are LEAF nodes,
    weights attached by (tree id, node id, target)) as a Forest and per-leaf weights [leaves, targets]
    (and whether a leaf has a weight for a target). TreeEnsembleClassifier's is the same with the
    prefix `class` and a target per class label."""
    tree_ids, node_ids = node.attr_ints("nodes_treeids", []), node.attr_ints("nodes_nodeids", [])
    count = len(node_ids)
    features, modes = node.attr_ints("nodes_featureids", []), node.attr_strings("nodes_modes", [])
    values = floats_or_tensor(node, "nodes_values")
    values = np.zeros(count) if values is None else values
    true_ids, false_ids = node.attr_ints("nodes_truenodeids", []), node.attr_ints("nodes_falsenodeids", [])
    tracks = node.attr_ints("nodes_missing_value_tracks_true", None) or [0] * count
    for name, array in (("nodes_treeids", tree_ids), ("nodes_featureids", features), ("nodes_modes", modes),
                        ("nodes_values", values), ("nodes_truenodeids", true_ids),
                        ("nodes_falsenodeids", false_ids), ("nodes_missing_value_tracks_true", tracks)):
        if len(array) != count:
            node.fail(f"'{name}' has {len(array)} entries, 'nodes_nodeids' {count}")
    if count == 0:
        node.fail("the ensemble has no nodes")
    unknown = sorted(set(modes) - set(REGRESSOR_MODES) - {"LEAF"})
    if unknown:
        node.fail(f"'nodes_modes' has modes {unknown}, not BRANCH_LEQ/LT/GTE/GT/EQ/NEQ or LEAF")
    index_of = {key: i for i, key in enumerate(zip(tree_ids, node_ids))}
    if len(index_of) != count:
        node.fail("two nodes have the same (tree id, node id)")
    interior = [i for i in range(count) if modes[i] != "LEAF"]
    leaves = [i for i in range(count) if modes[i] == "LEAF"]
    entry_of = {node_index: entry for entry, node_index in enumerate(interior + leaves)}

    def child(i: int, ids) -> int:
        key = (tree_ids[i], ids[i])
        if key not in index_of:
            node.fail(f"node {node_ids[i]} of tree {tree_ids[i]} points to node {ids[i]}, which does not exist")
        return entry_of[index_of[key]]

    self_loops = list(range(len(interior), count))
    true_next = np.asarray([child(i, true_ids) for i in interior] + self_loops, dtype=np.int64)
    false_next = np.asarray([child(i, false_ids) for i in interior] + self_loops, dtype=np.int64)
    children = {(tree_ids[i], ids[i]) for i in interior for ids in (true_ids, false_ids)}
    roots_of: dict[int, list[int]] = {}
    for i in range(count):
        if (tree_ids[i], node_ids[i]) not in children:
            roots_of.setdefault(tree_ids[i], []).append(entry_of[i])
    if any(len(roots) != 1 for roots in roots_of.values()) or set(roots_of) != set(tree_ids):
        node.fail("every tree needs exactly one root (a node no other node points to)")
    roots = np.asarray([roots_of[tree][0] for tree in sorted(roots_of)], dtype=np.int64)
    forest = _tables(
        node, np.asarray([features[i] for i in interior], dtype=np.int64),
        np.asarray([REGRESSOR_MODES[modes[i]] for i in interior], dtype=np.int64),
        np.asarray([values[i] for i in interior], dtype=np.float64), true_next, false_next,
        [tracks[i] for i in interior], [], roots, len(leaves))
    return (forest, *_regressor_weights(node, index_of, entry_of, len(interior), len(leaves), modes, prefix, targets))


def _regressor_weights(node: OnnxNode, index_of: dict, entry_of: dict, interior: int, leaves: int, modes,
                       prefix: str, n_targets: int | None):
    target_trees, target_nodes = node.attr_ints(f"{prefix}_treeids", []), node.attr_ints(f"{prefix}_nodeids", [])
    target_ids = node.attr_ints(f"{prefix}_ids", [])
    target_weights = floats_or_tensor(node, f"{prefix}_weights")
    target_weights = np.zeros(0) if target_weights is None else target_weights
    if not len(target_trees) == len(target_nodes) == len(target_ids) == len(target_weights):
        node.fail(f"'{prefix}_treeids', '{prefix}_nodeids', '{prefix}_ids' and '{prefix}_weights' differ in length")
    if n_targets is None:
        n_targets = node.attr_int("n_targets", None) or max(target_ids, default=0) + 1
    weights, has = np.zeros((leaves, n_targets)), np.zeros((leaves, n_targets), dtype=bool)
    for tree, node_id, target, weight in zip(target_trees, target_nodes, target_ids, target_weights):
        index = index_of.get((tree, node_id))
        if index is None or modes[index] != "LEAF" or not 0 <= target < n_targets:
            node.fail(f"a target weight names node {node_id} of tree {tree} and target {target}, which is not a "
                      f"leaf and a target in [0, {n_targets})")
        weights[entry_of[index] - interior, target] += weight
        has[entry_of[index] - interior, target] = True
    return weights, has


@converts("TreeEnsembleRegressor", since=1, domain=ML)
def tree_ensemble_regressor(node: OnnxNode, b: TorchBuilder):
    """Y = post_transform(aggregate over trees of the reached leaves' weights + base_values), float32.
    Version 3 only adds the `*_as_tensor` spellings of the float attributes, read here as well."""
    info = node.input_info(0)
    if info.rank != 2:
        node.fail(f"input 'X' must be [N, F] (rank 2), not rank {info.rank}")
    element = info.element if info.element in ("f32", "f64") else "f32"
    x = b.to_dtype(node.input(0), element)
    function = AGGREGATE_NAMES.get(node.attr_string("aggregate_function"))
    transform = POST_TRANSFORM_NAMES.get(node.attr_string("post_transform"))
    if function is None or transform is None:
        node.fail(f"aggregate_function '{node.attr_string('aggregate_function')}' or post_transform "
                  f"'{node.attr_string('post_transform')}' is unknown")
    forest, weights, has = regressor_forest(node)
    check_features(node, forest)
    walk, leaves = walk_forest(b, x, forest, element)
    scores = aggregate(node, walk, leaves, weights, has, function, element)
    base = floats_or_tensor(node, "base_values")
    if base is not None and len(base):
        if len(base) != weights.shape[1]:
            node.fail(f"'base_values' has {len(base)} entries for {weights.shape[1]} targets")
        scores = b.binary("aten.add.Tensor", scores, b.literal(base.astype(NUMPY_TYPES[element]), element))
    return b.cast_to(b.to_dtype(post_transform(node, b, scores, transform), "f32"), node.result_type())
