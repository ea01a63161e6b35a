"""Input ranks the ONNX operator specs require and ONNX's own inference does not check.

ONNX's per-node inference refuses many wrong ranks itself (Reshape's `shape` of rank 2, a
OneHot `depth` of rank 2, a Conv weight of another rank than its input), but is silent on
others: a Resize whose `scales` is a scalar, a Slice whose `starts` is a matrix, a Range whose
`start` is a vector. A pattern meeting such an input read its shape as the spec says it is and
failed with a Python exception. The rules below are the spec's words ("1-D tensor", "scalar")
for the inputs where inference is silent, keyed by the schema's formal input names (the same
across opset versions). A scalar is rank 0, or 1-D of one element (exporters write both, and
onnxruntime reads both); an input of unknown rank, or a dim not known statically, is not refused.
"""

from __future__ import annotations

ONE_D, SCALAR, AT_MOST_1D, AT_LEAST_1D = "1-D", "a scalar", "0-D or 1-D", "at least 1-D"
_REDUCE_OPS = (
    "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin",
    "ReduceProd", "ReduceSum", "ReduceSumSquare",
)
_RECURRENT = {"X": 3, "W": 3, "R": 3, "B": 2, "sequence_lens": ONE_D, "initial_h": 3}

# op type -> formal input name -> a rank (int), a rule above, or ("same rank as", formal name).
RANK_RULES: dict[str, dict[str, object]] = {
    "Resize": {"roi": ONE_D, "scales": ONE_D, "sizes": ONE_D},
    "Upsample": {"scales": ONE_D},
    "Tile": {"repeats": ONE_D},
    "Pad": {"pads": ONE_D, "axes": ONE_D},
    "Slice": {"starts": ONE_D, "ends": ONE_D, "axes": ONE_D, "steps": ONE_D},
    "Range": {"start": SCALAR, "limit": SCALAR, "delta": SCALAR},
    "Clip": {"min": SCALAR, "max": SCALAR},
    "Unsqueeze": {"axes": AT_MOST_1D},
    "Squeeze": {"axes": AT_MOST_1D},
    "Split": {"split": ONE_D},
    "SplitToSequence": {"split": AT_MOST_1D},
    "CumSum": {"axis": SCALAR},
    "TopK": {"K": SCALAR},
    "Trilu": {"k": SCALAR},
    "Conv": {"B": ONE_D, "W": ("same rank as", "X")},
    "ConvTranspose": {"B": ONE_D, "W": ("same rank as", "X")},
    "InstanceNormalization": {"scale": ONE_D, "B": ONE_D},
    "GroupNormalization": {"scale": ONE_D, "bias": ONE_D},
    "Compress": {"condition": ONE_D},
    "NonMaxSuppression": {
        "boxes": 3, "scores": 3, "max_output_boxes_per_class": SCALAR, "iou_threshold": SCALAR,
        "score_threshold": SCALAR,
    },
    "CenterCropPad": {"shape": ONE_D},
    "AffineGrid": {"size": ONE_D},
    "STFT": {"frame_step": SCALAR, "window": ONE_D, "frame_length": SCALAR},
    "DFT": {"dft_length": SCALAR, "axis": SCALAR},
    "HannWindow": {"size": SCALAR},
    "HammingWindow": {"size": SCALAR},
    "BlackmanWindow": {"size": SCALAR},
    "MelWeightMatrix": {
        "num_mel_bins": SCALAR, "dft_length": SCALAR, "sample_rate": SCALAR, "lower_edge_hertz": SCALAR,
        "upper_edge_hertz": SCALAR,
    },
    "Dropout": {"ratio": SCALAR, "training_mode": SCALAR},
    "GatherElements": {"indices": ("same rank as", "data")},
    "ScatterElements": {"indices": ("same rank as", "data"), "updates": ("same rank as", "data")},
    "GatherND": {"indices": AT_LEAST_1D},
    "ScatterND": {"indices": AT_LEAST_1D},
    "SequenceAt": {"position": SCALAR},
    "SequenceInsert": {"position": SCALAR},
    "SequenceErase": {"position": SCALAR},
    "Loop": {"M": SCALAR, "cond": SCALAR},
    "If": {"cond": SCALAR},
    "RNN": _RECURRENT,
    "GRU": _RECURRENT,
    "LSTM": _RECURRENT | {"initial_c": 3, "P": 2},
} | {op: {"axes": AT_MOST_1D} for op in _REDUCE_OPS}


def rank_problem(op_type: str, formals: dict[str, list], sizes_of) -> str | None:
    """The first input of a node breaking RANK_RULES, as a phrase, or None.

    `formals`: formal input name -> the actual input names bound to it (present inputs only);
    `sizes_of(name)`: a value's dims (None per unknown dim), or None when its rank is unknown.
    """
    for formal, rule in RANK_RULES.get(op_type, {}).items():
        for name in formals.get(formal, ()):
            sizes = sizes_of(name)
            if sizes is None:
                continue
            needed = _needed(rule, formals, sizes_of)
            if needed is not None and not _satisfies(rule, sizes, needed):
                return f"input '{name}' ({formal}) has rank {len(sizes)}, but {op_type} needs it {_phrase(rule, needed)}"
    return None


def _needed(rule, formals, sizes_of):
    """The rank a relational rule needs (None when the other input's rank is unknown); the rule
    itself otherwise."""
    if not isinstance(rule, tuple):
        return rule
    names = formals.get(rule[1], ())
    other = sizes_of(names[0]) if names else None
    return None if other is None else len(other)


def _satisfies(rule, sizes: list, needed) -> bool:
    rank = len(sizes)
    if isinstance(rule, tuple) or isinstance(rule, int):
        return rank == needed
    if rule == ONE_D:
        return rank == 1
    if rule == AT_MOST_1D:
        return rank <= 1
    if rule == AT_LEAST_1D:
        return rank >= 1
    return rank == 0 or (rank == 1 and sizes[0] in (1, None))  # SCALAR


def _phrase(rule, needed) -> str:
    if isinstance(rule, tuple):
        return f"of rank {needed}, the rank of '{rule[1]}'"
    if isinstance(rule, int):
        return f"of rank {rule}"
    if rule == SCALAR:
        return "a scalar (rank 0, or 1-D of one element)"
    return rule
