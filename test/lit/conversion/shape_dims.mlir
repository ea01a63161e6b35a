// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// A Shape of a dynamic input stays a list of dims through Gather, Unsqueeze and Concat: the
// Reshape reads the sizes themselves, no aten.item (which TOSA and StableHLO cannot lower).
// CHECK-LABEL: func.func @reshape_to_computed_shape
// CHECK-NOT: torch.aten.item
// CHECK: %[[BATCH:.*]] = torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,?,8],f32>, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %[[BATCH]], %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int)
// CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[?,?,2,4],f32>
func.func @reshape_to_computed_shape(%x: !torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[?,?,2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %shape = torch.operator "onnx.Shape"(%x) : (!torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[3],si64>
  %zero = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %batch = torch.operator "onnx.Gather"(%shape, %zero) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[3],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %axes = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %batch1 = torch.operator "onnx.Unsqueeze"(%batch, %axes) : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  %rest = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[-1, 2, 4]> : tensor<3xsi64>} : () -> !torch.vtensor<[3],si64>
  %target = torch.operator "onnx.Concat"(%batch1, %rest) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[1],si64>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[4],si64>
  %0 = torch.operator "onnx.Reshape"(%x, %target) : (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?,2,4],f32>
  return %0 : !torch.vtensor<[?,?,2,4],f32>
}

// -----

// A Slice of the Shape that picks static dims only is a literal (BERT's head size, whose square
// root scales the attention scores).
// CHECK-LABEL: func.func @slice_static_part_of_shape
// CHECK-NOT: torch.aten.slice.Tensor
// CHECK: %[[EIGHT:.*]] = torch.vtensor.literal(dense<8> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK-NEXT: return %[[EIGHT]]
func.func @slice_static_part_of_shape(%x: !torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %shape = torch.operator "onnx.Shape"(%x) : (!torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[3],si64>
  %starts = torch.operator "onnx.Constant"() {torch.onnx.value = dense<-1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %ends = torch.operator "onnx.Constant"() {torch.onnx.value = dense<9223372036854775807> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Slice"(%shape, %starts, %ends) : (!torch.vtensor<[3],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}

// -----

// A Slice that picks a dynamic dim gives the list of that dim.
// CHECK-LABEL: func.func @slice_dynamic_part_of_shape
// CHECK: %[[SEQ:.*]] = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[?,?,8],f32>, !torch.int -> !torch.int
// CHECK: %[[LIST:.*]] = torch.prim.ListConstruct %[[SEQ]] : (!torch.int) -> !torch.list<int>
// CHECK: %[[PICKED:.*]] = torch.aten.tensor %[[LIST]]
// CHECK: return %[[PICKED]]
func.func @slice_dynamic_part_of_shape(%x: !torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %shape = torch.operator "onnx.Shape"(%x) : (!torch.vtensor<[?,?,8],f32>) -> !torch.vtensor<[3],si64>
  %starts = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %ends = torch.operator "onnx.Constant"() {torch.onnx.value = dense<2> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Slice"(%shape, %starts, %ends) : (!torch.vtensor<[3],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}

// -----

// Arithmetic on a dim (dynamo's sym_size: Squeeze of a Shape slice, plus a constant, reshaped to
// [1]) stays a dim: the Slice end it feeds is an aten.add.int, not an aten.item.
// CHECK-LABEL: func.func @slice_to_sequence_plus_one
// CHECK-NOT: torch.aten.item
// CHECK: %[[SEQ:.*]] = torch.aten.size.int %arg0, %int1 : !torch.vtensor<[2,?],f32>, !torch.int -> !torch.int
// CHECK: %[[END:.*]] = torch.aten.add.int %{{.*}}, %[[SEQ]] : !torch.int, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %[[END]] : (!torch.int) -> !torch.list<int>
func.func @slice_to_sequence_plus_one(%x: !torch.vtensor<[2,?],f32>, %table: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %shape = torch.operator "onnx.Shape"(%x) {torch.onnx.start = 1 : si64, torch.onnx.end = 2 : si64} : (!torch.vtensor<[2,?],f32>) -> !torch.vtensor<[1],si64>
  %seq = torch.operator "onnx.Squeeze"(%shape) : (!torch.vtensor<[1],si64>) -> !torch.vtensor<[],si64>
  %one = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<si64>} : () -> !torch.vtensor<[],si64>
  %end0 = torch.operator "onnx.Add"(%one, %seq) : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[],si64>
  %to1 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<1> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %end = torch.operator "onnx.Reshape"(%end0, %to1) : (!torch.vtensor<[],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1],si64>
  %zero = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<1xsi64>} : () -> !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Slice"(%table, %zero, %end) : (!torch.vtensor<[?],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}
