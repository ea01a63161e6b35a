"""Sequences: SequenceConstruct, SequenceEmpty, SequenceInsert, SequenceAt, SequenceErase,
SequenceLength, SplitToSequence, ConcatFromSequence, SequenceMap.

An ONNX sequence becomes a `!torch.list<vtensor<...>>` built by one `torch.prim.ListConstruct`
whose operands are its elements. Every pattern reads the elements of its input sequence from
that ListConstruct at conversion time and builds a new one, so the length of every sequence is
known while converting and torch-mlir's pipeline finds no list left to lower: SequenceAt is the
element itself, SequenceLength a literal, ConcatFromSequence an `aten.cat` of the elements.

So a sequence must be built in the graph (SequenceConstruct, SequenceEmpty, SplitToSequence,
...); a sequence whose length depends on run-time data (a graph input, a run-time scalar
`split`) fails with a diagnostic naming the node. In a Loop body, a loop-carried sequence (and
SequenceAt at a run-time position of elements of different types) becomes torch's list ops
(`aten.append.t`, `aten.__getitem__.t`, `aten.len.t`), which the Loop resolves when it unrolls
(`control_flow/lists.py`). A sequence that a Loop of a run-time trip count appends to is a
*stacked sequence* after it: a bridge (`builtin.unrealized_conversion_cast`) from its
[n, *element] tensor to the list type (`control_flow/stacked.py`), which ConcatFromSequence,
SequenceAt and SequenceLength read as that tensor (`elements.stacked_rows`). A run-time 1-D
`split` of static length is read with `aten.item` (Linalg only). Elements may differ in
shape: the list's element type then has `?` dims, and each element keeps its own type. A
position known only at run time needs elements of one type: SequenceAt picks the element
from their stack, SequenceInsert and SequenceErase select each result element with
`aten.where` (with elements of different shapes the result's shapes would depend on data; on
Linalg SequenceInsert then selects with `torch.prim.If`s, each result element typed with `?`
where the shapes differ).
Graph inputs and outputs that are sequences or optionals are refused for a backend target
(see the driver); `onnx_torch_mlir.sequence_io.specialize` makes them tensors.
"""

from . import mapping, optionals, reading, tensors  # noqa: F401 (registers their patterns)
