"""Control flow: If, Loop and Scan, with their subgraphs as regions. One family in four modules:
- `regions.py`: what the three share: a subgraph's block, its arguments and outputs, moving it
  into a `torch.prim.If` / `torch.prim.Loop` or inlining (cloning) it in front of the node;
- `branches.py`: If;
- `loops.py`: Loop (and the loop forms Scan reuses);
- `scan.py`: Scan (opset 8 with its batch axis, opset 9 on with axes and directions);
- `lists.py`: sequences in loop bodies, resolved on each copy of an unrolled body;
- `stacked.py`: a loop-carried sequence only appended to, carried as a stacked tensor instead;
- `tensor_loops.py`: the tensor-only while loop of TOSA and StableHLO.

**Which form per backend.** torch-mlir lowers `torch.prim.If` and `torch.prim.Loop` to `scf.if`,
`scf.for` and `scf.while` in its Linalg pipeline only; its TOSA and StableHLO pipelines have no
conversion for them (nor for `aten.item`), and their contract verifiers reject `scf`. So for those
two targets:
- an If whose condition is only known at run time computes both branches and selects with
  `aten.where` (ONNX nodes have no side effects) when every output has one static shape in both
  branches; otherwise it stays a `torch.prim.If`;
- a Loop or Scan of a trip count known at conversion time (up to `loops.UNROLL_LIMIT`) is
  unrolled (its body inlined once per iteration); any other Loop is a `torch.prim.Loop` that
  carries tensors only (`tensor_loops.py`): on StableHLO a counting one when the number of
  iterations is known before the loop (scan outputs in buffers), else while-like;
- `transforms/torch/control_flow.py` then makes each remaining `torch.prim.If` / `torch.prim.Loop`
  the backend's own `stablehlo.if` / `stablehlo.while` or `tosa.cond_if` / `tosa.while_loop`, just
  before torch-mlir's backend pipeline.
Other forms (a Scan of a run-time length, scan outputs of a while loop on TOSA) fail there with a
reason. A condition known at conversion time inlines the chosen branch on every target.
"""

from . import branches, loops, scan  # noqa: F401
