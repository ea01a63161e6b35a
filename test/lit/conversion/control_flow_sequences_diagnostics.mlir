// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// A Loop carrying a sequence is unrolled, so its trip count must be known at conversion time.
// CHECK: error: node 'appending' (Loop, domain 'ai.onnx', opset 17): a Loop that carries a sequence (or reads one at its iteration number) is unrolled, which needs a trip count known at conversion time; torch-mlir lowers no list carried by a torch.prim.Loop
func.func @sequence_loop_run_time_trip_count(%m: !torch.vtensor<[],si64>, %x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) {onnx_node_name = "appending"} : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.SequenceInsert"(%rows, %x) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %1 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %2 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %2 : !torch.vtensor<[?,3],f32>
}

// -----

// In a Loop body a loop-carried sequence is only appended to.
// CHECK: error: node 'front' (SequenceInsert, domain 'ai.onnx', opset 17): a loop-carried sequence is only appended to (SequenceInsert without 'position') in a Loop body
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
