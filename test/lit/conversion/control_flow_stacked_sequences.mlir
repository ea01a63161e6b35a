// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// A Loop of a run-time trip count whose sequence is only appended to in the body and only read by
// ConcatFromSequence after it: the sequence is carried as a stacked [?, 3] tensor grown by aten.cat
// in a while-like loop (the iteration number carried last), no list in the loop, and
// ConcatFromSequence with new_axis=1 is the stack itself (static rows: no first-row If).
// CHECK-LABEL: func.func @loop_appends_run_time_count
// CHECK: %[[EMPTY:.*]] = torch.tensor_static_info_cast %{{.*}} : !torch.vtensor<[0,3],f32> to !torch.vtensor<[?,3],f32>
// CHECK: %[[LOOP:.*]]:2 = torch.prim.Loop %{{.*}}, %{{.*}}, init(%[[EMPTY]], %{{.*}}) {
// CHECK: ^bb0(%{{.*}}: !torch.int, %[[STACK:.*]]: !torch.vtensor<[?,3],f32>, %{{.*}}: !torch.int):
// CHECK-NOT: torch.aten.append.t
// CHECK-NOT: torch.prim.If
// CHECK: %[[ROWS:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.vtensor<[?,3],f32>, !torch.vtensor<[?,3],f32>) -> !torch.list<vtensor>
// CHECK: %[[GROWN:.*]] = torch.aten.cat %[[ROWS]], %{{.*}} -> !torch.vtensor<[?,3],f32>
// CHECK: torch.prim.Loop.condition %{{.*}}, iter(%[[GROWN]], %{{.*}} : !torch.vtensor<[?,3],f32>, !torch.int)
// CHECK: return %[[LOOP]]#0
func.func @loop_appends_run_time_count(%x: !torch.vtensor<[?,3],f32>, %m: !torch.vtensor<[],si64>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[3],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[3],f32>>) -> !torch.list<vtensor<[3],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[3],f32>>):
    %1 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,3],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3],f32>
    %2 = torch.operator "onnx.SequenceInsert"(%rows, %1) : (!torch.list<vtensor<[3],f32>>, !torch.vtensor<[3],f32>) -> !torch.list<vtensor<[3],f32>>
    torch.operator_terminator %cond, %2 : !torch.vtensor<[],i1>, !torch.list<vtensor<[3],f32>>
  }
  %3 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 0 : si64, torch.onnx.new_axis = 1 : si64} : (!torch.list<vtensor<[3],f32>>) -> !torch.vtensor<[?,3],f32>
  return %3 : !torch.vtensor<[?,3],f32>
}

// -----

// Rows with a run-time dim: the first iteration takes the row alone (a torch.prim.If on ONNX's
// iteration number), the others grow the stack; ConcatFromSequence along axis 1 moves the stack's
// dim 0 to 1 and merges it into the next; SequenceLength is the stack's dim 0.
// CHECK-LABEL: func.func @loop_appends_run_time_rows
// CHECK: torch.prim.Loop
// CHECK: %[[FIRST:.*]] = torch.aten.eq.Scalar
// CHECK: torch.prim.If %{{.*}} -> (!torch.vtensor<[?,?,2],f32>)
// CHECK: torch.aten.cat {{.*}} -> !torch.vtensor<[?,?,2],f32>
// CHECK: %[[MOVED:.*]] = torch.aten.permute %{{.*}} -> !torch.vtensor<[?,?,2],f32>
// CHECK: torch.aten.flatten.using_ints %[[MOVED]], %{{.*}}, %{{.*}} : {{.*}} -> !torch.vtensor<[?,?],f32>
// CHECK: %[[COUNT:.*]] = torch.aten.size.int %{{.*}}, %{{.*}} : !torch.vtensor<[?,?,2],f32>, !torch.int -> !torch.int
// CHECK: torch.prim.NumToTensor.Scalar %[[COUNT]]
func.func @loop_appends_run_time_rows(%x: !torch.vtensor<[?,?,2],f32>, %m: !torch.vtensor<[],si64>) -> (!torch.vtensor<[?,?],f32>, !torch.vtensor<[],si64>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %none = torch.constant.none
  %empty = torch.operator "onnx.SequenceEmpty"() {torch.onnx.dtype = 1 : si64} : () -> !torch.list<vtensor<[?,2],f32>>
  %0 = torch.operator "onnx.Loop"(%m, %none, %empty) : (!torch.vtensor<[],si64>, !torch.none, !torch.list<vtensor<[?,2],f32>>) -> !torch.list<vtensor<[?,2],f32>> {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %rows: !torch.list<vtensor<[?,2],f32>>):
    %1 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,?,2],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?,2],f32>
    %2 = torch.operator "onnx.SequenceInsert"(%rows, %1) : (!torch.list<vtensor<[?,2],f32>>, !torch.vtensor<[?,2],f32>) -> !torch.list<vtensor<[?,2],f32>>
    torch.operator_terminator %cond, %2 : !torch.vtensor<[],i1>, !torch.list<vtensor<[?,2],f32>>
  }
  %3 = torch.operator "onnx.ConcatFromSequence"(%0) {torch.onnx.axis = 1 : si64} : (!torch.list<vtensor<[?,2],f32>>) -> !torch.vtensor<[?,?],f32>
  %4 = torch.operator "onnx.SequenceLength"(%0) : (!torch.list<vtensor<[?,2],f32>>) -> !torch.vtensor<[],si64>
  return %3, %4 : !torch.vtensor<[?,?],f32>, !torch.vtensor<[],si64>
}
