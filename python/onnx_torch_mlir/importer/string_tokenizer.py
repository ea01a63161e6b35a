"""com.microsoft `Tokenizer` on strings held as bytes: the token pattern read as a byte class, and
the nodes that cut each string into its tokens.

onnxruntime finds the tokens with RE2, leftmost and greedy, and keeps those of at least
`mincharnum` characters (UTF-8 characters, not bytes). The patterns converters write are a run of
one character class (skl2onnx turns scikit-learn's `token_pattern` into `tokenexp`, e.g.
`[a-zA-Z0-9_]+`; `\\w\\w+`, `\\b\\w\\w+\\b`): the tokens of such a pattern are the maximal runs of bytes
in the class that hold at least the pattern's own minimum of characters. That is what this module
compiles; another pattern (alternation, lookaround, `separators`, `mark=1`) is refused by name. A
class is read at the byte level: its members must be ASCII, and a negated class holds every byte of
a multi-byte UTF-8 character (RE2's `\\w`, `\\d` and `\\s` are ASCII-only, so they read the same).

The result is `[..., T, W]`: T = the most tokens W bytes can hold, where onnxruntime gives the
most any row has; the rows it pads with `pad_value` are padded so here too, and more of them. The
caller (string_bytes.py) lets such a tensor reach only what cannot tell the two apart.

Per string (bytes x, W of them), with R = ceil(W / 2) the most runs W bytes hold:
    in_class[i]   = class_table[x[i]];  start[i] = in_class[i] and not in_class[i - 1]
    run[i]        = start[0] + ... + start[i]                    (the 1-based run of byte i)
    member[i, r]  = in_class[i] and run[i] == r + 1              ([W, R])
    characters[r] = sum_i member[i, r] * (x[i] is not a UTF-8 continuation byte)
    kept[r]       = characters[r] >= minimum;  rank[r] = kept[0] + ... + kept[r]
    token t       = the kept run whose rank is t + 1: its first byte and byte count select
                    x[first + k], k < count, by GatherElements; no such run: pad_value's bytes.
"""

from __future__ import annotations

import math

import numpy as np

from .string_emitter import INT64, UINT8, NodeEmitter, previous_matrix, running_sum_matrix

_ESCAPES = {
    "w": set(b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"),
    "d": set(b"0123456789"),
    "s": set(b"\t\n\f\r "),
}
_LITERAL_ESCAPES = set(r".^$|?*+()[]{}\-/")


class PatternError(ValueError):
    """A token pattern this module cannot read as one class repeated."""


def byte_class(pattern: str) -> tuple[np.ndarray, int]:
    """The 256-entry table (1 for a byte in the class) of a one-class pattern, and the fewest
    characters a match holds."""
    text = pattern
    word_bounds = text.startswith(r"\b") and text.endswith(r"\b") and len(text) > 4
    if word_bounds:
        text = text[2:-2]
    atoms = []
    position = 0
    while position < len(text):
        members, position = _atom(text, position, pattern)
        repeat = text[position] if position < len(text) and text[position] in "+*?" else ""
        position += len(repeat)
        atoms.append((frozenset(members), repeat))
    if not atoms or any(members != atoms[0][0] for members, _ in atoms):
        raise PatternError(f"'{pattern}' is not one character class repeated")
    *fixed, (_, last_repeat) = atoms
    if any(repeat for _, repeat in fixed) or last_repeat != "+":
        raise PatternError(f"'{pattern}' is not a character class ending with '+'")
    members = atoms[0][0]
    if word_bounds and members != frozenset(_ESCAPES["w"]):
        raise PatternError(f"'{pattern}': '\\b' is read only around '\\w' runs")
    table = np.zeros(256, np.float32)
    table[sorted(members)] = 1
    if table[0]:
        raise PatternError(f"'{pattern}': the class holds the byte 0, which pads strings held as bytes")
    return table, len(atoms)


def _atom(text: str, position: int, pattern: str) -> tuple[set[int], int]:
    character = text[position]
    if character == "[":
        return _bracket(text, position + 1, pattern)
    if character == "\\" and position + 1 < len(text):
        return _escape(text[position + 1], pattern), position + 2
    if character in ".^$|()*+?{}":
        raise PatternError(f"'{pattern}': '{character}' is outside the patterns read here")
    return _literal(character, pattern), position + 1


def _bracket(text: str, position: int, pattern: str) -> tuple[set[int], int]:
    negated = position < len(text) and text[position] == "^"
    position += negated
    members: set[int] = set()
    first = True
    while position < len(text) and (text[position] != "]" or first):
        first = False
        if text[position] == "\\" and position + 1 < len(text):
            low, position = _escape(text[position + 1], pattern), position + 2
        else:
            low, position = _literal(text[position], pattern), position + 1
        if position + 1 < len(text) and text[position] == "-" and text[position + 1] != "]" and len(low) == 1:
            high = _escape(text[position + 2], pattern) if text[position + 1] == "\\" else _literal(text[position + 1], pattern)
            position += 3 if text[position + 1] == "\\" else 2
            if len(high) != 1 or min(high) < min(low):
                raise PatternError(f"'{pattern}': a range that is not between two characters")
            low = set(range(min(low), min(high) + 1))
        members |= low
    if position >= len(text):
        raise PatternError(f"'{pattern}': '[' is not closed")
    if negated:
        members = set(range(1, 256)) - members
    return members, position + 1


def _escape(character: str, pattern: str) -> set[int]:
    if character in _ESCAPES:
        return set(_ESCAPES[character])
    if character.lower() in _ESCAPES:  # \W, \D, \S: every other byte, multi-byte characters too
        return set(range(1, 256)) - _ESCAPES[character.lower()]
    if character in _LITERAL_ESCAPES:
        return {ord(character)}
    raise PatternError(f"'{pattern}': the escape '\\{character}' is outside the patterns read here")


def _literal(character: str, pattern: str) -> set[int]:
    if ord(character) >= 128:
        raise PatternError(f"'{pattern}': the class holds the non-ASCII character '{character}'")
    return {ord(character)}


def token_count(width: int, minimum: int) -> int:
    """The most tokens of at least `minimum` bytes that `width` bytes can hold, one byte apart."""
    return max(1, (width + 1) // (minimum + 1))


def tokenize(emit: NodeEmitter, x: str, width: int, table: np.ndarray, minimum: int, pad: bytes) -> str:
    """Nodes that turn bytes `x` [..., W] into its tokens [..., T, W] (uint8; module docstring)."""
    runs = math.ceil(width / 2)
    tokens = token_count(width, minimum)
    codes = emit.cast(x, INT64, "codes")
    in_class = emit.table(codes, table, "in_class")
    follows = emit.product(in_class, previous_matrix(width), "previous_in_class")
    start = emit.op("Sub", [in_class, emit.op("Mul", [in_class, follows])], "run_start")
    run = emit.product(start, running_sum_matrix(width), "run")
    run_numbers = emit.constant(np.arange(1, runs + 1, dtype=np.float32), "run_numbers")
    member = emit.op("Mul", [emit.as_float(emit.op("Equal", [emit.unsqueeze(run, -1), run_numbers])),
                             emit.unsqueeze(in_class, -1)], "member")
    continuation = np.zeros(256, np.float32)
    continuation[0x80:0xC0] = 1
    counted = emit.op("Sub", [in_class, emit.op("Mul", [in_class, emit.table(codes, continuation, "continuation")])])
    characters = emit.reduce_sum(emit.op("Mul", [member, emit.unsqueeze(counted, -1)]), -2, "characters")
    offsets = emit.constant(np.arange(width, dtype=np.float32), "offsets")
    first_byte = emit.reduce_sum(emit.op("Mul", [member, emit.unsqueeze(emit.op("Mul", [start, offsets]), -1)]),
                                 -2, "first_byte")
    byte_count = emit.reduce_sum(member, -2, "byte_count")
    kept = emit.as_float(emit.op("Greater", [characters, emit.constant(np.float32(minimum - 0.5), "minimum")]), "kept")
    rank = emit.product(kept, running_sum_matrix(runs), "rank")
    slots = emit.constant(np.arange(1, tokens + 1, dtype=np.float32).reshape(tokens, 1), "slots")
    chosen = emit.op("Mul", [emit.as_float(emit.op("Equal", [emit.unsqueeze(rank, -2), slots])),
                             emit.unsqueeze(kept, -2)], "chosen")  # [..., T, R]
    token_first = emit.reduce_sum(emit.op("Mul", [chosen, emit.unsqueeze(first_byte, -2)]), -1, "token_first")
    token_bytes = emit.reduce_sum(emit.op("Mul", [chosen, emit.unsqueeze(byte_count, -2)]), -1, "token_bytes")
    present = emit.reduce_sum(chosen, -1, "present")
    positions = emit.op("Add", [emit.unsqueeze(token_first, -1), offsets], "positions")  # [..., T, W]
    inside = emit.op("Less", [offsets, emit.unsqueeze(token_bytes, -1)], "inside")
    last = emit.constant(np.float32(width - 1), "last_offset")
    indices = emit.cast(emit.op("Min", [positions, last]), INT64, "indices")
    rows = emit.op("Expand", [emit.unsqueeze(codes, -2), emit.op("Shape", [indices])], "rows")
    picked = emit.op("GatherElements", [rows, indices], "picked", axis=-1)
    zero = emit.constant(np.int64(0), "zero")
    picked = emit.op("Where", [inside, picked, zero], "token_codes")
    pad_codes = emit.constant(_padded(pad, width).astype(np.int64), "pad_codes")
    present_mask = emit.unsqueeze(emit.op("Greater", [present, emit.constant(np.float32(0.5), "half")]), -1)
    return emit.cast(emit.op("Where", [present_mask, picked, pad_codes]), UINT8, "tokens")


def _padded(data: bytes, width: int) -> np.ndarray:
    row = np.zeros(width, np.uint8)
    row[:len(data)] = np.frombuffer(data, np.uint8)
    return row


def tokenizer_problem(attributes: dict) -> str | None:
    """Why a Tokenizer with these attributes is not compiled here (None when it is)."""
    if attributes.get("mark", 0):
        return "mark=1 (start and end marks around each row's tokens) is not compiled yet"
    if attributes.get("separators") and not attributes.get("tokenexp"):
        return "tokens split at 'separators' are not compiled yet, only a 'tokenexp' of one character class"
    if not attributes.get("tokenexp"):
        return "the Tokenizer has neither 'tokenexp' nor 'separators'"
    return None


def pattern_minimum(pattern: str, mincharnum: int) -> tuple[np.ndarray, int]:
    """The class table, and the fewest characters a kept token holds (the pattern's and mincharnum's)."""
    table, fewest = byte_class(pattern)
    return table, max(fewest, mincharnum, 1)

