// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @constant
// CHECK: torch.vtensor.literal(dense<[4, 6]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
func.func @constant() -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense<[4, 6]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

// -----

// CHECK-LABEL: func.func @constant_value_ints
// CHECK: torch.vtensor.literal(dense<[1, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
func.func @constant_value_ints() -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value_ints = [1 : si64, 2 : si64]} : () -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

// -----

// CHECK-LABEL: func.func @constant_value_float
// CHECK: torch.vtensor.literal(dense<2.500000e+00> : tensor<f32>) : !torch.vtensor<[],f32>
func.func @constant_value_float() -> !torch.vtensor<[],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value_float = 2.500000e+00 : f32} : () -> !torch.vtensor<[],f32>
  return %0 : !torch.vtensor<[],f32>
}

// -----

// CHECK-LABEL: func.func @constant_of_shape
// CHECK: torch.aten.select.int %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[2],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
// CHECK: torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.select.int %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[2],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
// CHECK: torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.full %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.list<int>, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?,?],si32>
func.func @constant_of_shape(%s: !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],si32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = torch.operator "onnx.ConstantOfShape"(%s) {torch.onnx.value = dense<7> : tensor<1xsi32>} : (!torch.vtensor<[2],si64>) -> !torch.vtensor<[?,?],si32>
  return %0 : !torch.vtensor<[?,?],si32>
}

// -----

// CHECK-LABEL: func.func @shape_dynamic
// CHECK: torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,3],f32>, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.tensor %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.list<int>, !torch.int, !torch.none, !torch.bool -> !torch.vtensor<[2],si64>
func.func @shape_dynamic(%x: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Shape"(%x) : (!torch.vtensor<[?,3],f32>) -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

// -----

// CHECK-LABEL: func.func @shape_start_end
// CHECK: torch.vtensor.literal(dense<3> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
func.func @shape_start_end(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[1],si64> attributes {torch.onnx_meta.opset_version = 15 : si64} {
  %0 = torch.operator "onnx.Shape"(%x) {torch.onnx.start = 1 : si64, torch.onnx.end = -1 : si64} : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[1],si64>
  return %0 : !torch.vtensor<[1],si64>
}

// -----

// CHECK-LABEL: func.func @size_dynamic
// CHECK: torch.aten.numel %arg0 : !torch.vtensor<[?,3],f32> -> !torch.int
// CHECK: torch.prim.NumToTensor.Scalar %{{.*}} : !torch.int -> !torch.vtensor<[],si64>
func.func @size_dynamic(%x: !torch.vtensor<[?,3],f32>) -> !torch.vtensor<[],si64> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Size"(%x) : (!torch.vtensor<[?,3],f32>) -> !torch.vtensor<[],si64>
  return %0 : !torch.vtensor<[],si64>
}

// -----

// CHECK-LABEL: func.func @range
// CHECK: torch.aten.item %arg0 : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.item %arg1 : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.item %arg2 : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.arange.start_step %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.int, !torch.int, !torch.int, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[?],si64>
func.func @range(%a: !torch.vtensor<[],si64>, %l: !torch.vtensor<[],si64>, %d: !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.Range"(%a, %l, %d) : (!torch.vtensor<[],si64>, !torch.vtensor<[],si64>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?],si64>
  return %0 : !torch.vtensor<[?],si64>
}

// -----

// Run-time inputs with a static result: start + delta * [0, 1, ...] in tensors.
// CHECK-LABEL: func.func @range_static_result
// CHECK: %[[POSITIONS:.*]] = torch.aten.arange %int4{{.*}} -> !torch.vtensor<[4],si64>
// CHECK: %[[FLOAT:.*]] = torch.aten.to.dtype %[[POSITIONS]], %int6
// CHECK: %[[STEPS:.*]] = torch.aten.mul.Tensor %[[FLOAT]], %arg2 : !torch.vtensor<[4],f32>, !torch.vtensor<[],f32> -> !torch.vtensor<[4],f32>
// CHECK: torch.aten.add.Tensor %[[STEPS]], %arg0, %{{.*}} : !torch.vtensor<[4],f32>, !torch.vtensor<[],f32>, !torch.int -> !torch.vtensor<[4],f32>
func.func @range_static_result(%a: !torch.vtensor<[],f32>, %l: !torch.vtensor<[],f32>, %d: !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.Range"(%a, %l, %d) : (!torch.vtensor<[],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[4],f32>
  return %0 : !torch.vtensor<[4],f32>
}

// -----

// CHECK-LABEL: func.func @reshape_zero_copies
// CHECK: torch.vtensor.literal(dense<[0, -1]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
// CHECK: torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,3,4],f32>, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[?,3,4],f32>, !torch.list<int> -> !torch.vtensor<[?,12],f32>
func.func @reshape_zero_copies(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,12],f32> attributes {torch.onnx_meta.opset_version = 5 : si64} {
  %s = torch.vtensor.literal(dense<[0, -1]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0 = torch.operator "onnx.Reshape"(%x, %s) : (!torch.vtensor<[?,3,4],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[?,12],f32>
  return %0 : !torch.vtensor<[?,12],f32>
}

// -----

// CHECK-LABEL: func.func @reshape_allowzero
// CHECK: %[[SHAPE:.*]] = torch.prim.ListConstruct %int0, %int3, %int4 : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %[[SHAPE]] : !torch.vtensor<[?,3,4],f32>, !torch.list<int> -> !torch.vtensor<[0,3,4],f32>
func.func @reshape_allowzero(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[0,3,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %s = torch.vtensor.literal(dense<[0, 3, 4]> : tensor<3xsi64>) : !torch.vtensor<[3],si64>
  %0 = torch.operator "onnx.Reshape"(%x, %s) {torch.onnx.allowzero = 1 : si64} : (!torch.vtensor<[?,3,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[0,3,4],f32>
  return %0 : !torch.vtensor<[0,3,4],f32>
}

// CHECK-LABEL: func.func @reshape_empty_input
// CHECK: torch.aten.zeros %{{.*}}, %int6, %none, %none, %none : !torch.list<int>, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[3,4,0],f32>
func.func @reshape_empty_input(%x: !torch.vtensor<[0,3,4],f32>) -> !torch.vtensor<[3,4,0],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %s = torch.vtensor.literal(dense<[3, 4, 0]> : tensor<3xsi64>) : !torch.vtensor<[3],si64>
  %0 = torch.operator "onnx.Reshape"(%x, %s) {torch.onnx.allowzero = 1 : si64} : (!torch.vtensor<[0,3,4],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[3,4,0],f32>
  return %0 : !torch.vtensor<[3,4,0],f32>
}

// -----

// CHECK-LABEL: func.func @flatten
// CHECK: torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,3,4],f32>, !torch.int -> !torch.int
// CHECK: torch.aten.mul.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.mul.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[?,3,4],f32>, !torch.list<int> -> !torch.vtensor<[?,4],f32>
func.func @flatten(%x: !torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Flatten"(%x) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[?,3,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// CHECK-LABEL: func.func @squeeze_attribute
// CHECK: torch.aten.squeeze.dim %arg0, %{{.*}} : !torch.vtensor<[1,3,1],f32>, !torch.int -> !torch.vtensor<[1,3],f32>
// CHECK: torch.aten.squeeze.dim %{{.*}}, %{{.*}} : !torch.vtensor<[1,3],f32>, !torch.int -> !torch.vtensor<[3],f32>
func.func @squeeze_attribute(%x: !torch.vtensor<[1,3,1],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.Squeeze"(%x) {torch.onnx.axes = [0 : si64, -1 : si64]} : (!torch.vtensor<[1,3,1],f32>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @squeeze_input
// CHECK: torch.vtensor.literal(dense<2> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK: torch.aten.squeeze.dim %arg0, %{{.*}} : !torch.vtensor<[1,3,1],f32>, !torch.int -> !torch.vtensor<[1,3],f32>
func.func @squeeze_input(%x: !torch.vtensor<[1,3,1],f32>) -> !torch.vtensor<[1,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = torch.vtensor.literal(dense<[2]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Squeeze"(%x, %a) : (!torch.vtensor<[1,3,1],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[1,3],f32>
  return %0 : !torch.vtensor<[1,3],f32>
}

// -----

// A dim of run-time size that ONNX requires to be 1: checked, and its one row selected (torch-mlir's
// Linalg lowering of aten.squeeze.dim on a `?` dim builds an invalid tensor.collapse_shape).
// CHECK-LABEL: func.func @squeeze_run_time_size
// CHECK: %[[SIZE:.*]] = torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,3,?],f32>, !torch.int -> !torch.int
// CHECK: %[[ONE:.*]] = torch.aten.eq.int %[[SIZE]], %{{.*}} : !torch.int, !torch.int -> !torch.bool
// CHECK: torch.runtime.assert %[[ONE]], "Squeeze 'squeeze_last': dim 2 must have size 1"
// CHECK: torch.aten.select.int %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[?,3,?],f32>, !torch.int, !torch.int -> !torch.vtensor<[?,3],f32>
func.func @squeeze_run_time_size(%x: !torch.vtensor<[?,3,?],f32>) -> !torch.vtensor<[?,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %a = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Squeeze"(%x, %a) : (!torch.vtensor<[?,3,?],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,3],f32> loc("squeeze_last")
  return %0 : !torch.vtensor<[?,3],f32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze_attribute
// CHECK: torch.aten.unsqueeze %arg0, %{{.*}} : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[1,3],f32>
// CHECK: torch.aten.unsqueeze %{{.*}}, %{{.*}} : !torch.vtensor<[1,3],f32>, !torch.int -> !torch.vtensor<[1,3,1],f32>
func.func @unsqueeze_attribute(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,3,1],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0 = torch.operator "onnx.Unsqueeze"(%x) {torch.onnx.axes = [-1 : si64, 0 : si64]} : (!torch.vtensor<[3],f32>) -> !torch.vtensor<[1,3,1],f32>
  return %0 : !torch.vtensor<[1,3,1],f32>
}

// -----

// CHECK-LABEL: func.func @unsqueeze_runtime_axes
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[3],f32>, !torch.list<int> -> !torch.vtensor<[3,1],f32>
func.func @unsqueeze_runtime_axes(%x: !torch.vtensor<[3],f32>, %a: !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,1],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.Unsqueeze"(%x, %a) : (!torch.vtensor<[3],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[3,1],f32>
  return %0 : !torch.vtensor<[3,1],f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.permute %arg0, %{{.*}} : !torch.vtensor<[2,3,4],f32>, !torch.list<int> -> !torch.vtensor<[4,3,2],f32>
func.func @transpose(%x: !torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,3,2],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Transpose"(%x) : (!torch.vtensor<[2,3,4],f32>) -> !torch.vtensor<[4,3,2],f32>
  return %0 : !torch.vtensor<[4,3,2],f32>
}

// -----

// CHECK-LABEL: func.func @concat_default_axis
// CHECK: torch.prim.ListConstruct %arg0, %arg1 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,5],f32>) -> !torch.list<vtensor>
// CHECK: torch.aten.cat %{{.*}}, %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,8],f32>
func.func @concat_default_axis(%x: !torch.vtensor<[2,3],f32>, %y: !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[2,8],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Concat"(%x, %y) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[2,8],f32>
  return %0 : !torch.vtensor<[2,8],f32>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK: torch.prim.ListConstruct %arg0, %arg1 : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4,3],f32>) -> !torch.list<vtensor>
// CHECK: torch.aten.cat %{{.*}}, %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[6,3],f32>
func.func @concat(%x: !torch.vtensor<[2,3],f32>, %y: !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[6,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.Concat"(%x, %y) {torch.onnx.axis = -2 : si64} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4,3],f32>) -> !torch.vtensor<[6,3],f32>
  return %0 : !torch.vtensor<[6,3],f32>
}

// -----

// CHECK-LABEL: func.func @split_input_v1
// CHECK: torch.vtensor.literal(dense<[2, 3]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2],f32>
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[3],f32>
func.func @split_input_v1(%x: !torch.vtensor<[5],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %s = torch.vtensor.literal(dense<[2, 3]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0:2 = torch.operator "onnx.Split"(%x, %s) : (!torch.vtensor<[5],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @split_attribute
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1],f32>
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[4],f32>
func.func @split_attribute(%x: !torch.vtensor<[5],f32>) -> (!torch.vtensor<[1],f32>, !torch.vtensor<[4],f32>) attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %0:2 = torch.operator "onnx.Split"(%x) {torch.onnx.split = [1 : si64, 4 : si64]} : (!torch.vtensor<[5],f32>) -> (!torch.vtensor<[1],f32>, !torch.vtensor<[4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[1],f32>, !torch.vtensor<[4],f32>
}

// -----

// CHECK-LABEL: func.func @split_equal_dynamic
// CHECK: torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
// CHECK: torch.aten.add.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.floordiv.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.add.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
// CHECK: torch.aten.add.int %{{.*}}, %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
func.func @split_equal_dynamic(%x: !torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0:2 = torch.operator "onnx.Split"(%x) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[?,4],f32>) -> (!torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[?,4],f32>
}

// -----

// CHECK-LABEL: func.func @split_num_outputs
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[7],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[3],f32>
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[7],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[3],f32>
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[7],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1],f32>
func.func @split_num_outputs(%x: !torch.vtensor<[7],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>) attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %0:3 = torch.operator "onnx.Split"(%x) {torch.onnx.num_outputs = 3 : si64} : (!torch.vtensor<[7],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[1],f32>
}

// -----

// CHECK-LABEL: func.func @slice_attributes
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2,6],f32>
func.func @slice_attributes(%x: !torch.vtensor<[5,6],f32>) -> !torch.vtensor<[2,6],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.Slice"(%x) {torch.onnx.starts = [1 : si64], torch.onnx.ends = [-2 : si64], torch.onnx.axes = [0 : si64]} : (!torch.vtensor<[5,6],f32>) -> !torch.vtensor<[2,6],f32>
  return %0 : !torch.vtensor<[2,6],f32>
}

// -----

// CHECK-LABEL: func.func @slice_negative_step
// CHECK: torch.vtensor.literal(dense<-1> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK: torch.vtensor.literal(dense<-9223372036854775807> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK: torch.vtensor.literal(dense<0> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK: torch.vtensor.literal(dense<-3> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
// CHECK: torch.prim.ListConstruct %{{.*}} : (!torch.int) -> !torch.list<int>
// CHECK: torch.aten.flip %arg0, %{{.*}} : !torch.vtensor<[5],f32>, !torch.list<int> -> !torch.vtensor<[5],f32>
// CHECK: torch.aten.slice.Tensor %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[5],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[2],f32>
func.func @slice_negative_step(%x: !torch.vtensor<[5],f32>) -> !torch.vtensor<[2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %st = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %en = torch.vtensor.literal(dense<[-9223372036854775807]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %ax = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %sp = torch.vtensor.literal(dense<[-3]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Slice"(%x, %st, %en, %ax, %sp) : (!torch.vtensor<[5],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2],f32>
  return %0 : !torch.vtensor<[2],f32>
}

// -----

// A negative step on a dynamic dim: the flip, then a forward slice whose bounds are computed from
// the run-time size (start -1 clamped to [0, n - 1], end INT_MIN to -1, both mirrored: n - 1 - b).
// CHECK-LABEL: func.func @slice_negative_step_dynamic
// CHECK: %[[N:.*]] = torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.int -> !torch.int
// CHECK: %[[LAST:.*]] = torch.aten.sub.int %[[N]], %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.lt.int
// CHECK: %[[FLIPPED:.*]] = torch.aten.flip %arg0, %{{.*}} : !torch.vtensor<[?,4],f32>, !torch.list<int> -> !torch.vtensor<[?,4],f32>
// CHECK: %[[START:.*]] = torch.aten.sub.int %[[LAST]], %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: torch.aten.sub.int %[[LAST]], %{{.*}} : !torch.int, !torch.int -> !torch.int
// The end is kept at or after the start (an empty slice, not a negative size).
// CHECK: torch.aten.lt.int %[[START]]
// CHECK: %[[END:.*]] = torch.aten.add.int %[[START]], %{{.*}} : !torch.int, !torch.int -> !torch.int
// CHECK: %[[STEP:.*]] = torch.constant.int 2
// CHECK: torch.aten.slice.Tensor %[[FLIPPED]], %{{.*}}, %[[START]], %[[END]], %[[STEP]] : !torch.vtensor<[?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,4],f32>
func.func @slice_negative_step_dynamic(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %st = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %en = torch.vtensor.literal(dense<[-9223372036854775808]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %ax = torch.vtensor.literal(dense<[0]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %sp = torch.vtensor.literal(dense<[-2]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Slice"(%x, %st, %en, %ax, %sp) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// CHECK-LABEL: func.func @slice_dynamic_starts
// CHECK: torch.aten.select.int %arg1, %{{.*}}, %{{.*}} : !torch.vtensor<[1],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
// CHECK: torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.select.int %arg2, %{{.*}}, %{{.*}} : !torch.vtensor<[1],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
// CHECK: torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[?,6],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,6],f32>
func.func @slice_dynamic_starts(%x: !torch.vtensor<[?,6],f32>, %st: !torch.vtensor<[1],si64>, %en: !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32> attributes {torch.onnx_meta.opset_version = 10 : si64} {
  %0 = torch.operator "onnx.Slice"(%x, %st, %en) : (!torch.vtensor<[?,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[?,6],f32>
  return %0 : !torch.vtensor<[?,6],f32>
}

// -----

// Run-time axes: per dim, start and step are picked out with tensor arithmetic and the
// elements gathered (no aten.item); the declared result type gives the counts.
// CHECK-LABEL: func.func @slice_runtime_axes
// CHECK: torch.aten.eq.Scalar %{{.*}}, %int0{{.*}} : !torch.vtensor<[1],si64>, !torch.int -> !torch.vtensor<[1],i1>
// CHECK: torch.aten.clamp %{{.*}}, %int0{{.*}}, %int4{{.*}} : !torch.vtensor<[],si64>, !torch.int, !torch.int -> !torch.vtensor<[],si64>
// CHECK: %[[ROWS:.*]] = torch.aten.index_select %arg0, %int0{{.*}}, %{{.*}} : !torch.vtensor<[5,6],f32>, !torch.int, !torch.vtensor<[5],si64> -> !torch.vtensor<[5,6],f32>
// CHECK: torch.aten.eq.Scalar %{{.*}}, %int1{{.*}} : !torch.vtensor<[1],si64>, !torch.int -> !torch.vtensor<[1],i1>
// CHECK: torch.aten.arange %int2{{.*}}, %int4{{.*}}, %none, %none, %none : !torch.int, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[2],si64>
// CHECK: torch.aten.index_select %[[ROWS]], %int1{{.*}}, %{{.*}} : !torch.vtensor<[5,6],f32>, !torch.int, !torch.vtensor<[2],si64> -> !torch.vtensor<[5,2],f32>
func.func @slice_runtime_axes(%x: !torch.vtensor<[5,6],f32>, %st: !torch.vtensor<[1],si64>, %en: !torch.vtensor<[1],si64>, %ax: !torch.vtensor<[1],si64>) -> !torch.vtensor<[5,2],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.Slice"(%x, %st, %en, %ax) : (!torch.vtensor<[5,6],f32>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[5,2],f32>
  return %0 : !torch.vtensor<[5,2],f32>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK: torch.vtensor.literal(dense<[2, 1, 4]> : tensor<3xsi64>) : !torch.vtensor<[3],si64>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.broadcast_to %arg0, %{{.*}} : !torch.vtensor<[3,1],f32>, !torch.list<int> -> !torch.vtensor<[2,3,4],f32>
func.func @expand(%x: !torch.vtensor<[3,1],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 8 : si64} {
  %s = torch.vtensor.literal(dense<[2, 1, 4]> : tensor<3xsi64>) : !torch.vtensor<[3],si64>
  %0 = torch.operator "onnx.Expand"(%x, %s) : (!torch.vtensor<[3,1],f32>, !torch.vtensor<[3],si64>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @tile
// CHECK: torch.vtensor.literal(dense<[2, 1]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.tile %arg0, %{{.*}} : !torch.vtensor<[2,3],f32>, !torch.list<int> -> !torch.vtensor<[4,3],f32>
func.func @tile(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[4,3],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  %r = torch.vtensor.literal(dense<[2, 1]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0 = torch.operator "onnx.Tile"(%x, %r) : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

// CHECK-LABEL: func.func @pad_attributes
// CHECK: torch.constant.float 1.500000e+00
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}} : (!torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.constant_pad_nd %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[1,2,3],f32>, !torch.list<int>, !torch.float -> !torch.vtensor<[1,2,6],f32>
func.func @pad_attributes(%x: !torch.vtensor<[1,2,3],f32>) -> !torch.vtensor<[1,2,6],f32> attributes {torch.onnx_meta.opset_version = 2 : si64} {
  %0 = torch.operator "onnx.Pad"(%x) {torch.onnx.pads = [0 : si64, 0 : si64, 1 : si64, 0 : si64, 0 : si64, 2 : si64], torch.onnx.value = 1.500000e+00 : f32} : (!torch.vtensor<[1,2,3],f32>) -> !torch.vtensor<[1,2,6],f32>
  return %0 : !torch.vtensor<[1,2,6],f32>
}

// -----

// Reflect, edge and wrap pads with constant pads are slices concatenated around the input.
// CHECK-LABEL: func.func @pad_reflect
// CHECK: %[[FIRST:.*]] = torch.aten.slice.Tensor %arg0, %int1, %int1_0, %int2, %int1_1 : !torch.vtensor<[1,2,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,1,3],f32>
// CHECK: %[[BEFORE:.*]] = torch.aten.flip %[[FIRST]]
// CHECK: %[[LAST:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %int0, %int1_4, %{{.*}} : !torch.vtensor<[1,2,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,1,3],f32>
// CHECK: %[[AFTER:.*]] = torch.aten.flip %[[LAST]]
// CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[BEFORE]], %arg0, %[[AFTER]]
// CHECK: torch.aten.cat %[[PARTS]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[1,4,3],f32>
func.func @pad_reflect(%x: !torch.vtensor<[1,2,3],f32>) -> !torch.vtensor<[1,4,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  %p = torch.vtensor.literal(dense<[0, 1, 0, 0, 1, 0]> : tensor<6xsi64>) : !torch.vtensor<[6],si64>
  %0 = torch.operator "onnx.Pad"(%x, %p) {torch.onnx.mode = "reflect"} : (!torch.vtensor<[1,2,3],f32>, !torch.vtensor<[6],si64>) -> !torch.vtensor<[1,4,3],f32>
  return %0 : !torch.vtensor<[1,4,3],f32>
}

// -----

// CHECK-LABEL: func.func @pad_axes
// CHECK: %[[FIRST:.*]] = torch.aten.slice.Tensor %arg0, %int1, %int0, %int1_0, %{{.*}} -> !torch.vtensor<[2,1],f32>
// CHECK: %[[BEFORE:.*]] = torch.aten.broadcast_to %[[FIRST]], %{{.*}} : !torch.vtensor<[2,1],f32>, !torch.list<int> -> !torch.vtensor<[2,1],f32>
// CHECK: %[[LAST:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %int-1_{{[0-9]+}}, %int9223372036854775807, %{{.*}} -> !torch.vtensor<[2,1],f32>
// CHECK: %[[AFTER:.*]] = torch.aten.broadcast_to %[[LAST]], %{{.*}} : !torch.vtensor<[2,1],f32>, !torch.list<int> -> !torch.vtensor<[2,2],f32>
// CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[BEFORE]], %arg0, %[[AFTER]]
// CHECK: torch.aten.cat %[[PARTS]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,6],f32>
func.func @pad_axes(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,6],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  %p = torch.vtensor.literal(dense<[1, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %v = torch.vtensor.literal(dense<0.0> : tensor<f32>) : !torch.vtensor<[],f32>
  %a = torch.vtensor.literal(dense<[-1]> : tensor<1xsi64>) : !torch.vtensor<[1],si64>
  %0 = torch.operator "onnx.Pad"(%x, %p, %v, %a) {torch.onnx.mode = "edge"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[2],si64>, !torch.vtensor<[],f32>, !torch.vtensor<[1],si64>) -> !torch.vtensor<[2,6],f32>
  return %0 : !torch.vtensor<[2,6],f32>
}

// -----

// CHECK-LABEL: func.func @pad_wrap
// CHECK: %[[BEFORE:.*]] = torch.aten.slice.Tensor %arg0, %int1, %int2, %int3, %{{.*}} -> !torch.vtensor<[2,1],f32>
// CHECK: %[[AFTER:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %int0, %int1_2, %{{.*}} -> !torch.vtensor<[2,1],f32>
// CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[BEFORE]], %arg0, %[[AFTER]]
// CHECK: torch.aten.cat %[[PARTS]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[2,5],f32>
func.func @pad_wrap(%x: !torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %p = torch.vtensor.literal(dense<[0, 1, 0, 1]> : tensor<4xsi64>) : !torch.vtensor<[4],si64>
  %0 = torch.operator "onnx.Pad"(%x, %p) {torch.onnx.mode = "wrap"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[2,5],f32>
  return %0 : !torch.vtensor<[2,5],f32>
}

// -----

// Pads computed at run time: torch's aten.pad with the mode's torch name.
// Pads computed at run time (taken as non-negative): run-time slice lengths.
// CHECK-LABEL: func.func @pad_edge_runtime_pads
// CHECK: %[[TOP:.*]] = torch.aten.item %{{.*}} : !torch.vtensor<[],si64> -> !torch.int
// CHECK: %[[FIRST_ROW:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %int0{{.*}}, %int1{{.*}}, %int1{{.*}} : !torch.vtensor<[2,3],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1,3],f32>
// CHECK: %[[TARGET:.*]] = torch.prim.ListConstruct %[[TOP]], %int-1
// CHECK: %[[BEFORE:.*]] = torch.aten.broadcast_to %[[FIRST_ROW]], %[[TARGET]] : !torch.vtensor<[1,3],f32>, !torch.list<int> -> !torch.vtensor<[?,3],f32>
// CHECK: torch.aten.cat %{{.*}} -> !torch.vtensor<[?,3],f32>
// CHECK: torch.aten.cat %{{.*}} -> !torch.vtensor<[?,?],f32>
func.func @pad_edge_runtime_pads(%x: !torch.vtensor<[2,3],f32>, %p: !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = torch.operator "onnx.Pad"(%x, %p) {torch.onnx.mode = "edge"} : (!torch.vtensor<[2,3],f32>, !torch.vtensor<[4],si64>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

// Run-time pads with a static result: each output element gathers input element
// (j - begin) mapped back into the dim (here modulo the size, for wrap); no aten.item.
// CHECK-LABEL: func.func @pad_wrap_runtime_pads_static_result
// CHECK: %[[BEGINS:.*]] = torch.aten.slice.Tensor %arg1, %int0, %int0_0, %int1, %int1_1 : !torch.vtensor<[2],si64>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[1],si64>
// CHECK: %[[PICKED:.*]] = torch.aten.mul.Tensor %{{.*}}, %[[BEGINS]]
// CHECK: %[[BEGIN:.*]] = torch.aten.sum %[[PICKED]]
// CHECK: %[[OUTPUT:.*]] = torch.aten.arange %int5
// CHECK: %[[SOURCE:.*]] = torch.aten.sub.Tensor %[[OUTPUT]], %[[BEGIN]]
// CHECK: torch.aten.remainder.Scalar %[[SOURCE]], %int3 : !torch.vtensor<[5],si64>, !torch.int -> !torch.vtensor<[5],si64>
// CHECK: torch.aten.index_select %arg0, %{{.*}}, %{{.*}} : !torch.vtensor<[3],f32>, !torch.int, !torch.vtensor<[5],si64> -> !torch.vtensor<[5],f32>
func.func @pad_wrap_runtime_pads_static_result(%x: !torch.vtensor<[3],f32>, %p: !torch.vtensor<[2],si64>) -> !torch.vtensor<[5],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  %0 = torch.operator "onnx.Pad"(%x, %p) {torch.onnx.mode = "wrap"} : (!torch.vtensor<[3],f32>, !torch.vtensor<[2],si64>) -> !torch.vtensor<[5],f32>
  return %0 : !torch.vtensor<[5],f32>
}

// -----

// CHECK-LABEL: func.func @dropout_mask_v7
// CHECK: torch.aten.ones_like %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[3],f32>, !torch.int, !torch.none, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[3],f32>
func.func @dropout_mask_v7(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 7 : si64} {
  %0:2 = torch.operator "onnx.Dropout"(%x) {torch.onnx.ratio = 2.000000e-01 : f32} : (!torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @dropout
// CHECK: torch.vtensor.literal(dense<5.000000e-01> : tensor<f32>) : !torch.vtensor<[],f32>
// CHECK: torch.vtensor.literal(dense<false> : tensor<i1>) : !torch.vtensor<[],i1>
func.func @dropout(%x: !torch.vtensor<[3],f32>) -> !torch.vtensor<[3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %r = torch.vtensor.literal(dense<0.5> : tensor<f32>) : !torch.vtensor<[],f32>
  %t = torch.vtensor.literal(dense<false> : tensor<i1>) : !torch.vtensor<[],i1>
  %0 = torch.operator "onnx.Dropout"(%x, %r, %t) : (!torch.vtensor<[3],f32>, !torch.vtensor<[],f32>, !torch.vtensor<[],i1>) -> !torch.vtensor<[3],f32>
  return %0 : !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @depth_to_space_v1
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[1,8,2,3],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,2,2,3],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.permute %{{.*}}, %{{.*}} : !torch.vtensor<[1,2,2,2,2,3],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,2,3,2],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %{{.*}}, %{{.*}} : !torch.vtensor<[1,2,2,2,3,2],f32>, !torch.list<int> -> !torch.vtensor<[1,2,4,6],f32>
func.func @depth_to_space_v1(%x: !torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 1 : si64} {
  %0 = torch.operator "onnx.DepthToSpace"(%x) {torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,8,2,3],f32>) -> !torch.vtensor<[1,2,4,6],f32>
  return %0 : !torch.vtensor<[1,2,4,6],f32>
}

// -----

// CHECK-LABEL: func.func @depth_to_space_crd
// CHECK: torch.aten.size.int %arg0, %{{.*}} : !torch.vtensor<[?,8,2,3],f32>, !torch.int -> !torch.int
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[?,8,2,3],f32>, !torch.list<int> -> !torch.vtensor<[?,2,2,2,2,3],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.permute %{{.*}}, %{{.*}} : !torch.vtensor<[?,2,2,2,2,3],f32>, !torch.list<int> -> !torch.vtensor<[?,2,2,2,3,2],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %{{.*}}, %{{.*}} : !torch.vtensor<[?,2,2,2,3,2],f32>, !torch.list<int> -> !torch.vtensor<[?,2,4,6],f32>
func.func @depth_to_space_crd(%x: !torch.vtensor<[?,8,2,3],f32>) -> !torch.vtensor<[?,2,4,6],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.DepthToSpace"(%x) {torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[?,8,2,3],f32>) -> !torch.vtensor<[?,2,4,6],f32>
  return %0 : !torch.vtensor<[?,2,4,6],f32>
}

// -----

// CHECK-LABEL: func.func @space_to_depth
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[1,2,4,6],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,2,3,2],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.permute %{{.*}}, %{{.*}} : !torch.vtensor<[1,2,2,2,3,2],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,2,2,3],f32>
// CHECK: torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
// CHECK: torch.aten.reshape %{{.*}}, %{{.*}} : !torch.vtensor<[1,2,2,2,2,3],f32>, !torch.list<int> -> !torch.vtensor<[1,8,2,3],f32>
func.func @space_to_depth(%x: !torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[1,8,2,3],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %0 = torch.operator "onnx.SpaceToDepth"(%x) {torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,2,4,6],f32>) -> !torch.vtensor<[1,8,2,3],f32>
  return %0 : !torch.vtensor<[1,8,2,3],f32>
}

// -----

// Opset 28 adds `mode`; CRD keeps the input channel outermost: permutation [0, 1, 3, 5, 2, 4].
// CHECK-LABEL: func.func @space_to_depth_crd
// CHECK: torch.aten.reshape %arg0, %{{.*}} : !torch.vtensor<[1,3,4,6],f32>, !torch.list<int> -> !torch.vtensor<[1,3,2,2,3,2],f32>
// CHECK: %[[PERM:.*]] = torch.prim.ListConstruct %int0, %int1{{.*}}, %int3{{.*}}, %int5{{.*}}, %int2{{.*}}, %int4{{.*}} :
// CHECK: torch.aten.permute %{{.*}}, %[[PERM]] : !torch.vtensor<[1,3,2,2,3,2],f32>, !torch.list<int> -> !torch.vtensor<[1,3,2,2,2,3],f32>
// CHECK: torch.aten.reshape %{{.*}}, %{{.*}} : !torch.vtensor<[1,3,2,2,2,3],f32>, !torch.list<int> -> !torch.vtensor<[1,12,2,3],f32>
func.func @space_to_depth_crd(%x: !torch.vtensor<[1,3,4,6],f32>) -> !torch.vtensor<[1,12,2,3],f32> attributes {torch.onnx_meta.opset_version = 28 : si64} {
  %0 = torch.operator "onnx.SpaceToDepth"(%x) {torch.onnx.blocksize = 2 : si64, torch.onnx.mode = "CRD"} : (!torch.vtensor<[1,3,4,6],f32>) -> !torch.vtensor<[1,12,2,3],f32>
  return %0 : !torch.vtensor<[1,12,2,3],f32>
}

// -----

// CHECK-LABEL: func.func @space_to_depth_28_default_dcr
// CHECK: %[[PERM:.*]] = torch.prim.ListConstruct %int0, %int3{{.*}}, %int5{{.*}}, %int1{{.*}}, %int2{{.*}}, %int4{{.*}} :
// CHECK: torch.aten.permute %{{.*}}, %[[PERM]] : !torch.vtensor<[1,3,2,2,3,2],f32>, !torch.list<int> -> !torch.vtensor<[1,2,2,3,2,3],f32>
func.func @space_to_depth_28_default_dcr(%x: !torch.vtensor<[1,3,4,6],f32>) -> !torch.vtensor<[1,12,2,3],f32> attributes {torch.onnx_meta.opset_version = 28 : si64} {
  %0 = torch.operator "onnx.SpaceToDepth"(%x) {torch.onnx.blocksize = 2 : si64} : (!torch.vtensor<[1,3,4,6],f32>) -> !torch.vtensor<[1,12,2,3],f32>
  return %0 : !torch.vtensor<[1,12,2,3],f32>
}

// -----

// CHECK-LABEL: func.func @eye_like
// CHECK: torch.aten.arange %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.int, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[3],si64>
// CHECK: torch.aten.unsqueeze %{{.*}}, %{{.*}} : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3,1],si64>
// CHECK: torch.aten.arange %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.int, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[4],si64>
// CHECK: torch.aten.unsqueeze %{{.*}}, %{{.*}} : !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[1,4],si64>
// CHECK: torch.aten.sub.Tensor %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[1,4],si64>, !torch.vtensor<[3,1],si64>, !torch.int -> !torch.vtensor<[3,4],si64>
// CHECK: torch.aten.eq.Scalar %{{.*}}, %{{.*}} : !torch.vtensor<[3,4],si64>, !torch.int -> !torch.vtensor<[3,4],i1>
// CHECK: torch.aten.to.dtype %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[3,4],i1>, !torch.int, !torch.bool, !torch.bool, !torch.none -> !torch.vtensor<[3,4],si32>
func.func @eye_like(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si32> attributes {torch.onnx_meta.opset_version = 9 : si64} {
  %0 = torch.operator "onnx.EyeLike"(%x) {torch.onnx.k = 1 : si64, torch.onnx.dtype = 6 : si64} : (!torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],si32>
  return %0 : !torch.vtensor<[3,4],si32>
}

// -----

// A run-time k is compared with column - row index grids (no aten.item: TOSA and StableHLO lack it).
// CHECK-LABEL: func.func @trilu
// CHECK: %[[ROWS:.*]] = torch.aten.unsqueeze %{{.*}}, %int1 : !torch.vtensor<[3],si64>, !torch.int -> !torch.vtensor<[3,1],si64>
// CHECK: %[[COLUMNS:.*]] = torch.aten.unsqueeze %{{.*}}, %int0 : !torch.vtensor<[4],si64>, !torch.int -> !torch.vtensor<[1,4],si64>
// CHECK: %[[OFFSET:.*]] = torch.aten.sub.Tensor %[[COLUMNS]], %[[ROWS]]
// CHECK: %[[KEEP:.*]] = torch.aten.le.Tensor %[[OFFSET]], %arg1 : !torch.vtensor<[3,4],si64>, !torch.vtensor<[],si64> -> !torch.vtensor<[3,4],i1>
// CHECK: torch.aten.where.ScalarOther %[[KEEP]], %arg0, %{{.*}} : !torch.vtensor<[3,4],i1>, !torch.vtensor<[3,4],f32>, !torch.float -> !torch.vtensor<[3,4],f32>
func.func @trilu(%x: !torch.vtensor<[3,4],f32>, %k: !torch.vtensor<[],si64>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %0 = torch.operator "onnx.Trilu"(%x, %k) {torch.onnx.upper = 0 : si64} : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// CHECK-LABEL: func.func @triu_constant_k
// CHECK: torch.aten.triu %arg0, %int-1 : !torch.vtensor<[3,4],f32>, !torch.int -> !torch.vtensor<[3,4],f32>
func.func @triu_constant_k(%x: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[3,4],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
  %k = torch.vtensor.literal(dense<-1> : tensor<si64>) : !torch.vtensor<[],si64>
  %0 = torch.operator "onnx.Trilu"(%x, %k) : (!torch.vtensor<[3,4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[3,4],f32>
  return %0 : !torch.vtensor<[3,4],f32>
}

// -----

// The ONNX dialect spelling; the shape is a resource blob, read at conversion time.
// CHECK-LABEL: func.func @reshape_resource_shape_onnx_dialect
// CHECK: torch.vtensor.literal(dense<[4, 6]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
// CHECK: %[[SHAPE:.*]] = torch.prim.ListConstruct %int4, %int6
// CHECK: torch.aten.reshape %{{.*}}, %[[SHAPE]] : !torch.vtensor<[2,3,4],f32>, !torch.list<int> -> !torch.vtensor<[4,6],f32>
module attributes {onnx.opset_version = 17 : i64} {
  func.func @reshape_resource_shape_onnx_dialect(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
    %s = "onnx.Constant"() {value = dense_resource<shape> : tensor<2xi64>} : () -> tensor<2xi64>
    %0 = "onnx.Reshape"(%x, %s) : (tensor<2x3x4xf32>, tensor<2xi64>) -> tensor<4x6xf32>
    return %0 : tensor<4x6xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      shape: "0x0800000004000000000000000600000000000000"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @unsqueeze_onnx_dialect
// CHECK: torch.vtensor.literal(dense<[0, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
// CHECK: torch.aten.unsqueeze %{{.*}}, %int0 : !torch.vtensor<[3],f32>, !torch.int -> !torch.vtensor<[1,3],f32>
// CHECK: torch.aten.unsqueeze %{{.*}}, %int2 : !torch.vtensor<[1,3],f32>, !torch.int -> !torch.vtensor<[1,3,1],f32>
module attributes {onnx.opset_version = 13 : i64} {
  func.func @unsqueeze_onnx_dialect(%x: tensor<3xf32>) -> tensor<1x3x1xf32> {
    %a = "onnx.Constant"() {value_ints = [0, 2]} : () -> tensor<2xi64>
    %0 = "onnx.Unsqueeze"(%x, %a) : (tensor<3xf32>, tensor<2xi64>) -> tensor<1x3x1xf32>
    return %0 : tensor<1x3x1xf32>
  }
}

// -----

// A dense_resource constant stays a resource: the literal refers to the same blob.
// CHECK-LABEL: func.func @constant_resource_onnx_dialect
// CHECK: torch.vtensor.literal(dense_resource<weights> : tensor<2x2xf32>) : !torch.vtensor<[2,2],f32>
module attributes {onnx.opset_version = 13 : i64} {
  func.func @constant_resource_onnx_dialect() -> tensor<2x2xf32> {
    %0 = "onnx.Constant"() {value = dense_resource<weights> : tensor<2x2xf32>} : () -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
{-#
  dialect_resources: {
    builtin: {
      weights: "0x040000000000803F000000400000404000008040"
    }
  }
#-}

// -----

// An output with no elements is zeros of its declared shape (some backends cannot slice to empty).
// CHECK-LABEL: func.func @split_zero_size
// CHECK: torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[3],f32>
// CHECK: torch.aten.zeros %{{.*}}, %int6, %none, %none, %none : !torch.list<int>, !torch.int, !torch.none, !torch.none, !torch.none -> !torch.vtensor<[0],f32>
func.func @split_zero_size(%x: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[0],f32>) attributes {torch.onnx_meta.opset_version = 13 : si64} {
  %s = torch.vtensor.literal(dense<[3, 0]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>
  %0:2 = torch.operator "onnx.Split"(%x, %s) : (!torch.vtensor<[3],f32>, !torch.vtensor<[2],si64>) -> (!torch.vtensor<[3],f32>, !torch.vtensor<[0],f32>)
  return %0#0, %0#1 : !torch.vtensor<[3],f32>, !torch.vtensor<[0],f32>
}

// -----

// A boolean constant stored as a resource blob (the dynamo exporter's static causal mask) becomes a
// dense literal: neither MLIR's lowering to LLVM nor IREE reads i1 blobs.
// CHECK-LABEL: func.func @constant_bool_blob
// CHECK: torch.vtensor.literal(dense<{{\[}}[true, false], [true, true]]> : tensor<2x2xi1>) : !torch.vtensor<[2,2],i1>
func.func @constant_bool_blob() -> !torch.vtensor<[2,2],i1> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0 = torch.operator "onnx.Constant"() {torch.onnx.value = dense_resource<mask_blob> : tensor<2x2xi1>} : () -> !torch.vtensor<[2,2],i1>
  return %0 : !torch.vtensor<[2,2],i1>
}

{-#
  dialect_resources: {
    builtin: {
      mask_blob: "0x0100000001000101"
    }
  }
#-}

// -----

// An empty input is its own triangle: no mask is built (TOSA's lowering of it failed).
// CHECK-LABEL: func.func @trilu_empty_for_tosa
// CHECK-NOT: torch.aten.triu
// CHECK: return %arg0
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @trilu_empty_for_tosa(%x: !torch.vtensor<[0,5],f32>) -> !torch.vtensor<[0,5],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
    %0 = torch.operator "onnx.Trilu"(%x) : (!torch.vtensor<[0,5],f32>) -> !torch.vtensor<[0,5],f32>
    return %0 : !torch.vtensor<[0,5],f32>
  }
}
