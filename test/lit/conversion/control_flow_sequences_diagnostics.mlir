// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// A Loop carrying a sequence is unrolled, so its trip count must be known at conversion time (a
// sequence only appended to and only read by ConcatFromSequence, SequenceAt or SequenceLength would
// be carried as a stacked tensor instead; this one is also a graph output).
// CHECK: error: node 'appending' (Loop, domain 'ai.onnx', opset 17): a Loop that carries a sequence (or reads one at its iteration number) is unrolled, which needs a number of iterations known at conversion time, but the trip count (input 0) is only known at run time: the sequence's length would only be known at run time, and torch-mlir lowers no list carried by a torch.prim.Loop (its backends take a list only as a torch.prim.ListConstruct whose length is known at conversion time)
// CHECK-SAME: ; a sequence that the body only appends to and that only ConcatFromSequence, SequenceAt or SequenceLength read after the loop would be carried as a stacked tensor, but loop-carried sequence 0 reaches a graph output
func.func @sequence_loop_run_time_trip_count(%m: !torch.vtensor<[],si64>, %x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[?,3],f32>, !torch.list<vtensor<[3],f32>>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) {onnx_node_name = "appending"} : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.SequenceInsert"(%rows, %x) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %1 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %2 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %2, %0 : !torch.vtensor<[?,3],f32>, !torch.list<vtensor<[3],f32>>
}

// -----

// In a Loop body a loop-carried sequence is only appended to.
// CHECK: error: node 'front' (SequenceInsert, domain 'ai.onnx', opset 17): a loop-carried sequence is only appended to (SequenceInsert without 'position', or at its SequenceLength) in a Loop body
func.func @sequence_loop_insert_at_position(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %m = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %zero = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %1 = torch.operator "onnx.SequenceInsert"(%rows, %x, %zero) {onnx_node_name = "front"} : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>, !torch.vtensor<[],si64>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %1 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %2 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[2,3],f32>
  return %2 : !torch.vtensor<[2,3],f32>
}

// -----

// test_loop13_seq's form: both the trip count and the initial condition are graph inputs, and the
// sequence is a graph output (so it is not carried as a stacked tensor).
// CHECK: error: node 'run_time_loop' (Loop, domain 'ai.onnx', opset 13): a Loop that carries a sequence (or reads one at its iteration number) is unrolled, which needs a number of iterations known at conversion time, but the trip count (input 0) is only known at run time and the initial condition (input 1) is only known at run time: the sequence's length would only be known at run time
func.func @sequence_loop_run_time_condition(%m: !torch.vtensor<[],si64>, %c: !torch.vtensor<[],i1>, %x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[?,3],f32>, !torch.list<vtensor<[3],f32>>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %c, %empty) {onnx_node_name = "run_time_loop"} : (!torch.vtensor<[],si64>, !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.SequenceInsert"(%rows, %x) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %1 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %2 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %2, %0 : !torch.vtensor<[?,3],f32>, !torch.list<vtensor<[3],f32>>
}

// -----

// test_loop16_seq_none's form: the body reads whether its loop-carried optional holds a value.
// CHECK: error: node 'has_element' (OptionalHasElement, domain 'ai.onnx', opset 16): whether optional input 0 holds a value is not known at compile time: it is loop-carried value 0 of a Loop body, which converts once for every iteration; a Loop carries no optional (torch-mlir has no run-time optional, and whether it holds a value may change from one iteration to the next)
func.func @optional_loop(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  %m = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %none = torch.constant.none
  %opt = torch.operator "onnx.Optional"(%x) : (!torch.vtensor<[3],f32>) -> !torch.optional<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %opt) : (!torch.vtensor<[],si64>, !torch.none, !torch.optional<vtensor<[3],f32>>) -> !torch.vtensor<[3],f32> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %o: !torch.optional<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.OptionalHasElement"(%o) {onnx_node_name = "has_element"} : (!torch.optional<vtensor<[3],f32>>) -> !torch.vtensor<[],i1>
    torch.operator_terminator %1, %x : !torch.vtensor<[],i1>, !torch.vtensor<[3],f32>
  }
  return %0 : !torch.vtensor<[3],f32>
}
