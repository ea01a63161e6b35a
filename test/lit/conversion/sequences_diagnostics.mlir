// Forms the sequence and optional patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%s: !torch.list<vtensor<[2],f32>>, %x: !torch.vtensor<[4],f32>, %split: !torch.vtensor<[],si64>, %p: !torch.vtensor<[],si64>, %o: !torch.optional<vtensor<[2],f32>>, %y: !torch.vtensor<[2,1],f32>) -> (!torch.list<vtensor<[2],f32>>, !torch.list<vtensor<[?],f32>>, !torch.list<vtensor<[?],f32>>, !torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],i1>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: loc("graph_sequence"): error: node 'graph_sequence' (SequenceInsert, domain 'ai.onnx', opset 18): the length of sequence input 0 is not known at compile time: it is a graph (or subgraph) input; only sequences built in the graph with a static length (SequenceConstruct, SequenceEmpty, SplitToSequence, ...) convert
  %0 = torch.operator "onnx.SequenceInsert"(%s, %x) : (!torch.list<vtensor<[2],f32>>, !torch.vtensor<[4],f32>) -> !torch.list<vtensor<[2],f32>> loc("graph_sequence")
  // CHECK: loc("run_time_split"): error: node 'run_time_split' (SplitToSequence, domain 'ai.onnx', opset 18): 'split' must be a constant, or a 1-D tensor of static length: otherwise the number of sequence elements depends on run-time data
  %1 = torch.operator "onnx.SplitToSequence"(%x, %split) : (!torch.vtensor<[4],f32>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[?],f32>> loc("run_time_split")
  %2 = torch.operator "onnx.SequenceConstruct"(%x) : (!torch.vtensor<[4],f32>) -> !torch.list<vtensor<[4],f32>>
  // CHECK: loc("run_time_insert"): error: node 'run_time_insert' (SequenceInsert, domain 'ai.onnx', opset 18): a run-time 'position' needs the sequence's elements (and the inserted tensor) to have one element type and rank
  %3 = torch.operator "onnx.SequenceInsert"(%2, %y, %p) : (!torch.list<vtensor<[4],f32>>, !torch.vtensor<[2,1],f32>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[?],f32>> loc("run_time_insert")
  %c5 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<5> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  // CHECK: loc("out_of_range"): error: node 'out_of_range' (SequenceAt, domain 'ai.onnx', opset 18): position 5 is out of range for a sequence of 1 elements
  %4 = torch.operator "onnx.SequenceAt"(%2, %c5) : (!torch.list<vtensor<[4],f32>>, !torch.vtensor<[],si64>) -> !torch.vtensor<[2],f32> loc("out_of_range")
  %empty = torch.operator "onnx.SequenceEmpty"() : () -> !torch.list<vtensor<[?],f32>>
  // CHECK: loc("concat_empty"): error: node 'concat_empty' (ConcatFromSequence, domain 'ai.onnx', opset 18): the sequence is empty: ConcatFromSequence has nothing to concatenate
  %5 = torch.operator "onnx.ConcatFromSequence"(%empty) {torch.onnx.axis = 0 : si64} : (!torch.list<vtensor<[?],f32>>) -> !torch.vtensor<[?],f32> loc("concat_empty")
  %none = torch.operator "onnx.Optional"() {torch.onnx.type = "tensor(float)"} : () -> !torch.optional<vtensor<[2],f32>>
  // CHECK: loc("get_empty"): error: node 'get_empty' (OptionalGetElement, domain 'ai.onnx', opset 18): the optional input is empty: OptionalGetElement has no value to return
  %6 = torch.operator "onnx.OptionalGetElement"(%none) : (!torch.optional<vtensor<[2],f32>>) -> !torch.vtensor<[2],f32> loc("get_empty")
  // CHECK: loc("graph_optional"): error: node 'graph_optional' (OptionalHasElement, domain 'ai.onnx', opset 18): whether optional input 0 holds a value is not known at compile time: it is a graph (or subgraph) input; only optionals built in the graph by Optional convert
  %7 = torch.operator "onnx.OptionalHasElement"(%o) : (!torch.optional<vtensor<[2],f32>>) -> !torch.vtensor<[],i1> loc("graph_optional")
  return %0, %1, %3, %4, %5, %6, %7 : !torch.list<vtensor<[2],f32>>, !torch.list<vtensor<[?],f32>>, !torch.list<vtensor<[?],f32>>, !torch.vtensor<[2],f32>, !torch.vtensor<[?],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[],i1>
}

// The ONNX dialect spelling: the origin is found behind the bridge.
func.func @onnx_dialect(%s: !onnx.Seq<tensor<2xf32>>) -> tensor<i64> {
  // CHECK: error: unnamed node (SequenceLength, domain 'ai.onnx', opset {{[0-9]+}}): the length of sequence input 0 is not known at compile time: it is a graph (or subgraph) input
  %0 = "onnx.SequenceLength"(%s) : (!onnx.Seq<tensor<2xf32>>) -> tensor<i64>
  return %0 : tensor<i64>
}

// Without 'split', the split dim is the sequence's length: it must be static.
func.func @dynamic_length(%x: !torch.vtensor<[?,3],f32>) -> !torch.list<vtensor<[1,3],f32>> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: loc("every_row"): error: node 'every_row' (SplitToSequence, domain 'ai.onnx', opset 11): without 'split', dim 0 of the input must be static (it is the sequence's length)
  %0 = torch.operator "onnx.SplitToSequence"(%x) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,3],f32>) -> !torch.list<vtensor<[1,3],f32>> loc("every_row")
  return %0 : !torch.list<vtensor<[1,3],f32>>
}
