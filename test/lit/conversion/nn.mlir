// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @matmul
func.func @matmul(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[?,4,5],f32>) -> !torch.vtensor<[2,3,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // A dynamic batch dim is broadcast explicitly (torch-mlir's lowerings assume it equal), then bmm.
  // CHECK: %[[B:.*]] = torch.aten.broadcast_to %arg1, {{.*}} : !torch.vtensor<[?,4,5],f32>, !torch.list<int> -> !torch.vtensor<[2,4,5],f32>
  // CHECK: torch.aten.bmm %arg0, %[[B]] : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,4,5],f32> -> !torch.vtensor<[2,3,5],f32>
  %0 = torch.operator "onnx.MatMul"(%a, %b) : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[?,4,5],f32>) -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

// CHECK-LABEL: func.func @matmul_vector_rhs
func.func @matmul_vector_rhs(%a: !torch.vtensor<[1,2,4,3],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,2,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[COLUMN:.*]] = torch.aten.unsqueeze %arg1, %{{.*}} -> !torch.vtensor<[3,1],f32>
  // CHECK: %[[PRODUCT:.*]] = torch.aten.matmul %arg0, %[[COLUMN]] : {{.*}} -> !torch.vtensor<[1,2,4,1],f32>
  // CHECK: torch.aten.squeeze.dim %[[PRODUCT]], %{{.*}} -> !torch.vtensor<[1,2,4],f32>
  %0 = torch.operator "onnx.MatMul"(%a, %b) : (!torch.vtensor<[1,2,4,3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[1,2,4],f32>
  return %0 : !torch.vtensor<[1,2,4],f32>
}

// -----

// CHECK-LABEL: func.func @gemm_opset6_broadcast
func.func @gemm_opset6_broadcast(%a: !torch.vtensor<[4,3],f32>, %b: !torch.vtensor<[5,4],f32>, %c: !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[A:.*]] = torch.aten.transpose.int %arg0, {{.*}} -> !torch.vtensor<[3,4],f32>
  // CHECK: %[[B:.*]] = torch.aten.transpose.int %arg1, {{.*}} -> !torch.vtensor<[4,5],f32>
  // CHECK: %[[MM:.*]] = torch.aten.mm %[[A]], %[[B]]
  // CHECK: %[[AB:.*]] = torch.aten.mul.Scalar %[[MM]], %float2.500000e-01
  // CHECK: %[[C:.*]] = torch.aten.mul.Scalar %arg2, %float3.500000e-01
  // CHECK: torch.aten.add.Tensor %[[AB]], %[[C]], %{{.*}} : !torch.vtensor<[3,5],f32>, !torch.vtensor<[5],f32>, !torch.int -> !torch.vtensor<[3,5],f32>
  %0 = torch.operator "onnx.Gemm"(%a, %b, %c) {torch.onnx.alpha = 2.500000e-01 : f32, torch.onnx.beta = 3.500000e-01 : f32, torch.onnx.broadcast = 1 : si64, torch.onnx.transA = 1 : si64, torch.onnx.transB = 1 : si64} : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[5,4],f32>, !torch.vtensor<[5],f32>) -> !torch.vtensor<[3,5],f32>
  return %0 : !torch.vtensor<[3,5],f32>
}

// -----

// CHECK-LABEL: func.func @gemm_no_c
func.func @gemm_no_c(%a: !torch.vtensor<[?,4],f32>, %b: !torch.vtensor<[4,5],f32>) -> !torch.vtensor<[?,5],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[MM:.*]] = torch.aten.mm %arg0, %arg1 : !torch.vtensor<[?,4],f32>, !torch.vtensor<[4,5],f32> -> !torch.vtensor<[?,5],f32>
  // CHECK: return %[[MM]]
  %none = torch.constant.none
  %0 = torch.operator "onnx.Gemm"(%a, %b, %none) : (!torch.vtensor<[?,4],f32>, !torch.vtensor<[4,5],f32>, !torch.none) -> !torch.vtensor<[?,5],f32>
  return %0 : !torch.vtensor<[?,5],f32>
}

// -----

// CHECK-LABEL: func.func @gemm_onnx_dialect
module attributes {onnx.opset_version = 11 : i64} {
  func.func @gemm_onnx_dialect(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>, %c: tensor<1x5xf32>) -> tensor<3x5xf32> {
    // CHECK: %[[MM:.*]] = torch.aten.mm
    // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[MM]], %float2.000000e00
    // CHECK: torch.aten.add.Tensor %[[SCALED]], %{{.*}} : !torch.vtensor<[3,5],f32>, !torch.vtensor<[1,5],f32>
    %0 = "onnx.Gemm"(%a, %b, %c) {alpha = 2.000000e+00 : f32} : (tensor<3x4xf32>, tensor<4x5xf32>, tensor<1x5xf32>) -> tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
}

// -----

// CHECK-LABEL: func.func @einsum
func.func @einsum(%a: !torch.vtensor<[2,3,4],f32>, %b: !torch.vtensor<[2,4,5],f32>) -> !torch.vtensor<[2,3,5],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  // CHECK: %[[OPERANDS:.*]] = torch.prim.ListConstruct %arg0, %arg1
  // CHECK: %[[EQUATION:.*]] = torch.constant.str "bij,bjk->bik"
  // CHECK: torch.aten.einsum %[[EQUATION]], %[[OPERANDS]], %{{.*}} : !torch.str, !torch.list<vtensor>, !torch.none -> !torch.vtensor<[2,3,5],f32>
  %0 = torch.operator "onnx.Einsum"(%a, %b) {torch.onnx.equation = "bij, bjk -> bik"} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[2,4,5],f32>) -> !torch.vtensor<[2,3,5],f32>
  return %0 : !torch.vtensor<[2,3,5],f32>
}

// -----

// CHECK-LABEL: func.func @conv_asymmetric_pads
func.func @conv_asymmetric_pads(%x: !torch.vtensor<[?,1,7,5],f32>, %w: !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[?,1,4,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[PAD:.*]] = torch.prim.ListConstruct %int0, %int1, %int0{{.*}}, %int0{{.*}} :
  // CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %arg0, %[[PAD]], %float0.000000e00 : {{.*}} -> !torch.vtensor<[?,1,7,6],f32>
  // CHECK: %[[STRIDES:.*]] = torch.prim.ListConstruct %int2, %int2
  // CHECK: %[[PADDING:.*]] = torch.prim.ListConstruct %int1{{.*}}, %int0
  // CHECK: torch.aten.convolution %[[PADDED]], %arg1, %none, %[[STRIDES]], %[[PADDING]], {{.*}} -> !torch.vtensor<[?,1,4,3],f32>
  %0 = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 0 : si64, 1 : si64, 1 : si64], torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[?,1,7,5],f32>, !torch.vtensor<[1,1,3,3],f32>) -> !torch.vtensor<[?,1,4,3],f32>
  return %0 : !torch.vtensor<[?,1,4,3],f32>
}

// -----

// CHECK-LABEL: func.func @conv_same_upper_dynamic
func.func @conv_same_upper_dynamic(%x: !torch.vtensor<[1,4,?,?],f32>, %w: !torch.vtensor<[8,2,3,3],f32>, %bias: !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,8,?,?],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[STRIDES:.*]] = torch.prim.ListConstruct %int1, %int1
  // CHECK: %[[PADDING:.*]] = torch.prim.ListConstruct %int1{{.*}}, %int1
  // CHECK: torch.aten.convolution %arg0, %arg1, %arg2, %[[STRIDES]], %[[PADDING]], %{{.*}}, %false, %{{.*}}, %int2 : {{.*}} -> !torch.vtensor<[1,8,?,?],f32>
  %0 = torch.operator "onnx.Conv"(%x, %w, %bias) {torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.group = 2 : si64} : (!torch.vtensor<[1,4,?,?],f32>, !torch.vtensor<[8,2,3,3],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[1,8,?,?],f32>
  return %0 : !torch.vtensor<[1,8,?,?],f32>
}

// -----

// auto_pad SAME_UPPER with stride 2 on a dynamic size: the pads are computed at run time,
// total = 3 - ((size - 1) mod 2 + 1), the larger half at the end, and padded explicitly.
// CHECK-LABEL: func.func @conv_same_upper_stride_dynamic
func.func @conv_same_upper_stride_dynamic(%x: !torch.vtensor<[1,3,?,?],f32>, %w: !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[HEIGHT:.*]] = torch.aten.size.int %arg0, %int2
  // CHECK: torch.aten.floordiv.int
  // CHECK: %[[PADS:.*]] = torch.prim.ListConstruct %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : (!torch.int, !torch.int, !torch.int, !torch.int)
  // CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %arg0, %[[PADS]], %{{.*}} -> !torch.vtensor<[1,3,?,?],f32>
  // CHECK: %[[ZEROS:.*]] = torch.prim.ListConstruct %int0{{.*}}, %int0
  // CHECK: torch.aten.convolution %[[PADDED]], %arg1, %none, %{{.*}}, %[[ZEROS]],
  %0 = torch.operator "onnx.Conv"(%x, %w) {torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.strides = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,3,?,?],f32>, !torch.vtensor<[4,3,3,3],f32>) -> !torch.vtensor<[1,4,?,?],f32>
  return %0 : !torch.vtensor<[1,4,?,?],f32>
}

// -----

// CHECK-LABEL: func.func @conv_onnx_dialect
module attributes {onnx.opset_version = 1 : i64} {
  func.func @conv_onnx_dialect(%x: tensor<1x1x5x5xf32>, %w: tensor<1x1x3x3xf32>) -> tensor<1x1x5x5xf32> {
    // CHECK: torch.aten.convolution {{.*}} : !torch.vtensor<[1,1,5,5],f32>, !torch.vtensor<[1,1,3,3],f32>, !torch.none, {{.*}} -> !torch.vtensor<[1,1,5,5],f32>
    %none = "onnx.NoValue"() {value} : () -> none
    %0 = "onnx.Conv"(%x, %w, %none) {pads = [1, 1, 1, 1]} : (tensor<1x1x5x5xf32>, tensor<1x1x3x3xf32>, none) -> tensor<1x1x5x5xf32>
    return %0 : tensor<1x1x5x5xf32>
  }
}

// -----

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,8,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[STRIDES:.*]] = torch.prim.ListConstruct %int2, %int1
  // CHECK: %[[PADDING:.*]] = torch.prim.ListConstruct %int0, %int1
  // CHECK: %[[OUTPUT_PADDING:.*]] = torch.prim.ListConstruct %int1{{.*}}, %int0
  // CHECK: torch.aten.convolution %arg0, %arg1, %none, %[[STRIDES]], %[[PADDING]], %{{.*}}, %true, %[[OUTPUT_PADDING]], %int1{{.*}} : {{.*}} -> !torch.vtensor<[1,2,8,3],f32>
  %0 = torch.operator "onnx.ConvTranspose"(%x, %w) {torch.onnx.strides = [2 : si64, 1 : si64], torch.onnx.pads = [0 : si64, 1 : si64, 0 : si64, 1 : si64], torch.onnx.output_padding = [1 : si64, 0 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>) -> !torch.vtensor<[1,2,8,3],f32>
  return %0 : !torch.vtensor<[1,2,8,3],f32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose_output_shape
func.func @conv_transpose_output_shape(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,3,3],f32>, %bias: !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,10,8],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[FULL:.*]] = torch.aten.convolution %arg0, %arg1, %none, {{.*}}, %true, {{.*}} -> !torch.vtensor<[1,2,9,7],f32>
  // CHECK: %[[ROWS:.*]] = torch.aten.constant_pad_nd %[[FULL]], {{.*}} -> !torch.vtensor<[1,2,10,7],f32>
  // CHECK: %[[COLUMNS:.*]] = torch.aten.constant_pad_nd %[[ROWS]], {{.*}} -> !torch.vtensor<[1,2,10,8],f32>
  // CHECK: %[[BIAS:.*]] = torch.aten.unsqueeze {{.*}} -> !torch.vtensor<[2,1,1],f32>
  // CHECK: torch.aten.add.Tensor %[[COLUMNS]], %[[BIAS]], {{.*}} -> !torch.vtensor<[1,2,10,8],f32>
  %0 = torch.operator "onnx.ConvTranspose"(%x, %w, %bias) {torch.onnx.strides = [3 : si64, 2 : si64], torch.onnx.output_shape = [10 : si64, 8 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,10,8],f32>
  return %0 : !torch.vtensor<[1,2,10,8],f32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose_group
func.func @conv_transpose_group(%x: !torch.vtensor<[1,2,3,3],f32>, %w: !torch.vtensor<[2,1,3,3],f32>) -> !torch.vtensor<[1,2,5,5],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[X0:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,1,3,3],f32>
  // CHECK: %[[W0:.*]] = torch.aten.slice.Tensor %arg1, {{.*}} -> !torch.vtensor<[1,1,3,3],f32>
  // CHECK: %[[Y0:.*]] = torch.aten.convolution %[[X0]], %[[W0]], {{.*}}, %true, %{{.*}}, %int1{{.*}} : {{.*}} -> !torch.vtensor<[1,1,5,5],f32>
  // CHECK: %[[Y1:.*]] = torch.aten.convolution
  // CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[Y0]], %[[Y1]]
  // CHECK: torch.aten.cat %[[PARTS]], %{{.*}} : !torch.list<vtensor>, !torch.int -> !torch.vtensor<[1,2,5,5],f32>
  %0 = torch.operator "onnx.ConvTranspose"(%x, %w) {torch.onnx.group = 2 : si64} : (!torch.vtensor<[1,2,3,3],f32>, !torch.vtensor<[2,1,3,3],f32>) -> !torch.vtensor<[1,2,5,5],f32>
  return %0 : !torch.vtensor<[1,2,5,5],f32>
}

// -----

// CHECK-LABEL: func.func @conv_3d_groups
func.func @conv_3d_groups(%x: !torch.vtensor<[1,4,3,3,3],f32>, %w: !torch.vtensor<[2,2,1,1,1],f32>, %bias: !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,3,3,3],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[X0:.*]] = torch.aten.slice.Tensor %arg0, {{.*}} -> !torch.vtensor<[1,2,3,3,3],f32>
  // CHECK: %[[W0:.*]] = torch.aten.slice.Tensor %arg1, {{.*}} -> !torch.vtensor<[1,2,1,1,1],f32>
  // CHECK: %[[B0:.*]] = torch.aten.slice.Tensor %arg2, {{.*}} -> !torch.vtensor<[1],f32>
  // CHECK: %[[Y0:.*]] = torch.aten.convolution %[[X0]], %[[W0]], %[[B0]], {{.*}}, %false, %{{.*}}, %int1{{.*}} : {{.*}} -> !torch.vtensor<[1,1,3,3,3],f32>
  // CHECK: %[[Y1:.*]] = torch.aten.convolution
  // CHECK: %[[PARTS:.*]] = torch.prim.ListConstruct %[[Y0]], %[[Y1]]
  // CHECK: torch.aten.cat %[[PARTS]], %{{.*}} -> !torch.vtensor<[1,2,3,3,3],f32>
  %0 = torch.operator "onnx.Conv"(%x, %w, %bias) {torch.onnx.group = 2 : si64} : (!torch.vtensor<[1,4,3,3,3],f32>, !torch.vtensor<[2,2,1,1,1],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[1,2,3,3,3],f32>
  return %0 : !torch.vtensor<[1,2,3,3,3],f32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose_dilations
func.func @conv_transpose_dilations(%x: !torch.vtensor<[1,1,3,3],f32>, %w: !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,2,5,5],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[SWAPPED:.*]] = torch.aten.transpose.int %arg1, %int0, %int1 : {{.*}} -> !torch.vtensor<[2,1,2,2],f32>
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %int2, %int3
  // CHECK: %[[FLIPPED:.*]] = torch.aten.flip %[[SWAPPED]], %[[DIMS]]
  // CHECK: %[[PADDING:.*]] = torch.prim.ListConstruct %int2{{.*}}, %int2
  // CHECK: %[[DILATIONS:.*]] = torch.prim.ListConstruct %int2{{.*}}, %int2
  // CHECK: torch.aten.convolution %arg0, %[[FLIPPED]], %none, %{{.*}}, %[[PADDING]], %[[DILATIONS]], %false, {{.*}} -> !torch.vtensor<[1,2,5,5],f32>
  %0 = torch.operator "onnx.ConvTranspose"(%x, %w) {torch.onnx.dilations = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,3,3],f32>, !torch.vtensor<[1,2,2,2],f32>) -> !torch.vtensor<[1,2,5,5],f32>
  return %0 : !torch.vtensor<[1,2,5,5],f32>
}

// -----

// CHECK-LABEL: func.func @einsum_identity
func.func @einsum_identity(%x: !torch.vtensor<[],f64>) -> !torch.vtensor<[],f64> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  // CHECK: return %arg0
  %0 = torch.operator "onnx.Einsum"(%x) {torch.onnx.equation = "->"} : (!torch.vtensor<[],f64>) -> !torch.vtensor<[],f64>
  return %0 : !torch.vtensor<[],f64>
}

// -----

// CHECK-LABEL: func.func @max_pool_indices
func.func @max_pool_indices(%x: !torch.vtensor<[1,3,4,5],f32>) -> (!torch.vtensor<[1,3,2,2],f32>, !torch.vtensor<[1,3,2,2],si64>) attributes {torch.onnx_meta.opset_version = 12 : si64} {
  // CHECK: %[[FLAT:.*]] = torch.aten.arange.start_step %int0{{.*}}, %int60, %int1{{.*}}, %int4, {{.*}} -> !torch.vtensor<[60],si64>
  // CHECK: %[[COLUMN_MAJOR:.*]] = torch.aten.view %[[FLAT]], {{.*}} -> !torch.vtensor<[1,3,5,4],si64>
  // CHECK: %[[INDICES:.*]] = torch.aten.transpose.int %[[COLUMN_MAJOR]], %int2{{.*}}, %int3{{.*}} -> !torch.vtensor<[1,3,4,5],si64>
  // CHECK: %[[ROWS0:.*]] = torch.aten.slice.Tensor %arg0, %int2{{.*}}, %int0{{.*}}, %int3{{.*}}, %int2{{.*}} -> !torch.vtensor<[1,3,2,5],f32>
  // CHECK: %[[V0:.*]] = torch.aten.slice.Tensor %[[ROWS0]], %int3{{.*}}, %int0{{.*}}, %int3{{.*}}, %int2{{.*}} -> !torch.vtensor<[1,3,2,2],f32>
  // CHECK: %[[I0_ROWS:.*]] = torch.aten.slice.Tensor %[[INDICES]]
  // CHECK: %[[I0:.*]] = torch.aten.slice.Tensor %[[I0_ROWS]]
  // CHECK: %[[ROWS1:.*]] = torch.aten.slice.Tensor %arg0
  // CHECK: %[[V1:.*]] = torch.aten.slice.Tensor %[[ROWS1]], %int3{{.*}}, %int1{{.*}}, %int4{{.*}}, %int2
  // CHECK: %[[GREATER:.*]] = torch.aten.gt.Tensor %[[V1]], %[[V0]]
  // CHECK: %[[I1_ROWS:.*]] = torch.aten.slice.Tensor %[[INDICES]]
  // CHECK: %[[I1:.*]] = torch.aten.slice.Tensor %[[I1_ROWS]]
  // CHECK: %[[CHOSEN:.*]] = torch.aten.where.self %[[GREATER]], %[[I1]], %[[I0]]
  // CHECK: %[[VALUES:.*]] = torch.aten.maximum %[[V0]], %[[V1]]
  // CHECK: return %[[VALUES]], %[[CHOSEN]]
  %0:2 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [1 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.storage_order = 1 : si64} : (!torch.vtensor<[1,3,4,5],f32>) -> (!torch.vtensor<[1,3,2,2],f32>, !torch.vtensor<[1,3,2,2],si64>)
  return %0#0, %0#1 : !torch.vtensor<[1,3,2,2],f32>, !torch.vtensor<[1,3,2,2],si64>
}

// -----

// CHECK-LABEL: func.func @max_pool_indices_dynamic_batch
func.func @max_pool_indices_dynamic_batch(%x: !torch.vtensor<[?,3,5,5],f32>) -> (!torch.vtensor<[?,3,2,2],f32>, !torch.vtensor<[?,3,2,2],si64>) attributes {torch.onnx_meta.opset_version = 12 : si64} {
  // CHECK: %[[VALUES:.*]], %[[PLANE:.*]] = torch.aten.max_pool2d_with_indices %arg0, {{.*}} -> !torch.vtensor<[?,3,2,2],f32>, !torch.vtensor<[?,3,2,2],si64>
  // CHECK: %[[ROW:.*]] = torch.aten.floor_divide.Scalar %[[PLANE]], %int5
  // CHECK: %[[COLUMN:.*]] = torch.aten.remainder.Scalar %[[PLANE]], %int5
  // CHECK: %[[COLUMN_OFFSET:.*]] = torch.aten.mul.Scalar %[[COLUMN]], %int5
  // CHECK: %[[IN_PLANE:.*]] = torch.aten.add.Tensor %[[ROW]], %[[COLUMN_OFFSET]]
  // CHECK: %[[BATCH:.*]] = torch.aten.size.int %arg0, %int0
  // CHECK: %[[TOTAL:.*]] = torch.aten.mul.int %[[BATCH]], %int75
  // CHECK: %[[STARTS:.*]] = torch.aten.arange.start_step %int0{{.*}}, %[[TOTAL]], %int25, %int4, {{.*}} -> !torch.vtensor<[?],si64>
  // CHECK: %[[OFFSETS:.*]] = torch.aten.view %[[STARTS]], {{.*}} -> !torch.vtensor<[?,3,1,1],si64>
  // CHECK: %[[INDICES:.*]] = torch.aten.add.Tensor %[[IN_PLANE]], %[[OFFSETS]]
  // CHECK: return %[[VALUES]], %[[INDICES]]
  %0:2 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.strides = [2 : si64, 2 : si64], torch.onnx.storage_order = 1 : si64} : (!torch.vtensor<[?,3,5,5],f32>) -> (!torch.vtensor<[?,3,2,2],f32>, !torch.vtensor<[?,3,2,2],si64>)
  return %0#0, %0#1 : !torch.vtensor<[?,3,2,2],f32>, !torch.vtensor<[?,3,2,2],si64>
}

// -----

// CHECK-LABEL: func.func @max_pool_same_upper
func.func @max_pool_same_upper(%x: !torch.vtensor<[?,3,32,32],f32>) -> !torch.vtensor<[?,3,32,32],f32> attributes {torch.onnx_meta.opset_version = 8 : si64} {
  // CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %arg0, %{{.*}}, %float-Inf : {{.*}} -> !torch.vtensor<[?,3,33,33],f32>
  // CHECK: torch.aten.max_pool2d %[[PADDED]], {{.*}}, %false : {{.*}} -> !torch.vtensor<[?,3,32,32],f32>
  %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.auto_pad = "SAME_UPPER", torch.onnx.kernel_shape = [2 : si64, 2 : si64]} : (!torch.vtensor<[?,3,32,32],f32>) -> !torch.vtensor<[?,3,32,32],f32>
  return %0 : !torch.vtensor<[?,3,32,32],f32>
}

// -----

// CHECK-LABEL: func.func @max_pool_onnx_dialect
module attributes {onnx.opset_version = 22 : i64} {
  func.func @max_pool_onnx_dialect(%x: tensor<1x3x33xf32>) -> tensor<1x3x17xf32> {
    // CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %{{.*}}, %{{.*}}, %float-Inf : {{.*}} -> !torch.vtensor<[1,3,34],f32>
    // CHECK: torch.aten.max_pool1d %[[PADDED]], {{.*}}, %false : {{.*}} -> !torch.vtensor<[1,3,17],f32>
    %0, %1 = "onnx.MaxPool"(%x) {kernel_shape = [2], strides = [2], ceil_mode = 1 : si64} : (tensor<1x3x33xf32>) -> (tensor<1x3x17xf32>, none)
    return %0 : tensor<1x3x17xf32>
  }
}

// -----

// CHECK-LABEL: func.func @average_pool
func.func @average_pool(%x: !torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,32,32],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: %[[KERNEL:.*]] = torch.prim.ListConstruct %int3, %int3
  // CHECK: %[[STRIDES:.*]] = torch.prim.ListConstruct %int1, %int1
  // CHECK: %[[PADDING:.*]] = torch.prim.ListConstruct %int1{{.*}}, %int1
  // CHECK: torch.aten.avg_pool2d %arg0, %[[KERNEL]], %[[STRIDES]], %[[PADDING]], %false, %true, %none : {{.*}} -> !torch.vtensor<[1,3,32,32],f32>
  %0 = torch.operator "onnx.AveragePool"(%x) {torch.onnx.kernel_shape = [3 : si64, 3 : si64], torch.onnx.pads = [1 : si64, 1 : si64, 1 : si64, 1 : si64], torch.onnx.count_include_pad = 1 : si64} : (!torch.vtensor<[1,3,32,32],f32>) -> !torch.vtensor<[1,3,32,32],f32>
  return %0 : !torch.vtensor<[1,3,32,32],f32>
}

// -----

// CHECK-LABEL: func.func @average_pool_dilations
func.func @average_pool_dilations(%x: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 19 : si64} {
  // CHECK: %[[PLANES:.*]] = torch.aten.flatten.using_ints %arg0
  // CHECK: %[[X:.*]] = torch.aten.unsqueeze %[[PLANES]]
  // CHECK: %[[ONES:.*]] = torch.aten.ones {{.*}} -> !torch.vtensor<[1,1,2,2],f32>
  // CHECK: %[[DILATIONS:.*]] = torch.prim.ListConstruct %int2{{.*}}, %int2
  // CHECK: %[[SUMS:.*]] = torch.aten.convolution %[[X]], %[[ONES]], %none, %{{.*}}, %{{.*}}, %[[DILATIONS]], {{.*}} -> !torch.vtensor<[1,1,2,2],f32>
  // CHECK: %[[SUM:.*]] = torch.aten.view %[[SUMS]]
  // CHECK: torch.aten.ones_like %arg0
  // CHECK: %[[COUNTS:.*]] = torch.aten.convolution
  // CHECK: %[[COUNT:.*]] = torch.aten.view %[[COUNTS]]
  // CHECK: torch.aten.div.Tensor %[[SUM]], %[[COUNT]]
  %0 = torch.operator "onnx.AveragePool"(%x) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.dilations = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}

// -----

// CHECK-LABEL: func.func @lp_pool
func.func @lp_pool(%x: !torch.vtensor<[1,3,32],f32>) -> !torch.vtensor<[1,3,31],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[ABS:.*]] = torch.aten.abs %arg0
  // CHECK: %[[POWERED:.*]] = torch.aten.pow.Tensor_Scalar %[[ABS]], %float3.000000e00
  // CHECK: torch.aten.convolution {{.*}} -> !torch.vtensor<[3,1,31],f32>
  // CHECK: %[[SUM:.*]] = torch.aten.view {{.*}} -> !torch.vtensor<[1,3,31],f32>
  // CHECK: torch.aten.pow.Tensor_Scalar %[[SUM]], %float3.333330e-01
  %0 = torch.operator "onnx.LpPool"(%x) {torch.onnx.kernel_shape = [2 : si64], torch.onnx.p = 3 : si64} : (!torch.vtensor<[1,3,32],f32>) -> !torch.vtensor<[1,3,31],f32>
  return %0 : !torch.vtensor<[1,3,31],f32>
}

// -----

// CHECK-LABEL: func.func @global_pools
func.func @global_pools(%x: !torch.vtensor<[?,3,?,?],f32>) -> (!torch.vtensor<[?,3,1,1],f32>, !torch.vtensor<[?,3,1,1],f32>, !torch.vtensor<[?,3,1,1],f32>) attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %int2, %int3
  // CHECK: torch.aten.mean.dim %arg0, %[[DIMS]], %true, %none : {{.*}} -> !torch.vtensor<[?,3,1,1],f32>
  // CHECK: torch.aten.amax %arg0, %{{.*}}, %true{{.*}} -> !torch.vtensor<[?,3,1,1],f32>
  // CHECK: torch.aten.linalg_vector_norm %arg0, %float3.000000e00, %{{.*}}, %true{{.*}} -> !torch.vtensor<[?,3,1,1],f32>
  %0 = torch.operator "onnx.GlobalAveragePool"(%x) : (!torch.vtensor<[?,3,?,?],f32>) -> !torch.vtensor<[?,3,1,1],f32>
  %1 = torch.operator "onnx.GlobalMaxPool"(%x) : (!torch.vtensor<[?,3,?,?],f32>) -> !torch.vtensor<[?,3,1,1],f32>
  %2 = torch.operator "onnx.GlobalLpPool"(%x) {torch.onnx.p = 3 : si64} : (!torch.vtensor<[?,3,?,?],f32>) -> !torch.vtensor<[?,3,1,1],f32>
  return %0, %1, %2 : !torch.vtensor<[?,3,1,1],f32>, !torch.vtensor<[?,3,1,1],f32>, !torch.vtensor<[?,3,1,1],f32>
}

// -----

// CHECK-LABEL: func.func @max_roi_pool
func.func @max_roi_pool(%x: !torch.vtensor<[1,3,8,8],f32>, %rois: !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[2,3,2,2],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[BATCH:.*]] = torch.aten.to.dtype {{.*}} -> !torch.vtensor<[2],si64>
  // CHECK: %[[FEATURES:.*]] = torch.aten.index_select %arg0, %int0{{.*}}, %[[BATCH]] : {{.*}} -> !torch.vtensor<[2,3,8,8],f32>
  // CHECK: torch.aten.where.ScalarOther {{.*}} -> !torch.vtensor<[2,3,8,2,8],f32>
  // CHECK: torch.aten.amax {{.*}} -> !torch.vtensor<[2,3,8,2],f32>
  // CHECK: torch.aten.where.ScalarOther {{.*}} -> !torch.vtensor<[2,3,2,8,2],f32>
  // CHECK: %[[POOLED:.*]] = torch.aten.amax {{.*}} -> !torch.vtensor<[2,3,2,2],f32>
  // CHECK: %[[EMPTY:.*]] = torch.aten.logical_or {{.*}} -> !torch.vtensor<[2,1,2,2],i1>
  // CHECK: torch.aten.where.ScalarSelf %[[EMPTY]], %float0.000000e00{{.*}}, %[[POOLED]] : {{.*}} -> !torch.vtensor<[2,3,2,2],f32>
  %0 = torch.operator "onnx.MaxRoiPool"(%x, %rois) {torch.onnx.pooled_shape = [2 : si64, 2 : si64], torch.onnx.spatial_scale = 5.000000e-01 : f32} : (!torch.vtensor<[1,3,8,8],f32>, !torch.vtensor<[2,5],f32>) -> !torch.vtensor<[2,3,2,2],f32>
  return %0 : !torch.vtensor<[2,3,2,2],f32>
}

// -----

// CHECK-LABEL: func.func @batch_norm_opset6_test
func.func @batch_norm_opset6_test(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>, %m: !torch.vtensor<[3],f32>, %v: !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: torch.aten.batch_norm %arg0, %arg1, %arg2, %arg3, %arg4, %false, %float9.000000e-01, %float9.999990e-06, %false
  %0 = torch.operator "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {torch.onnx.is_test = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @batch_norm_opset7_per_activation
func.func @batch_norm_opset7_per_activation(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3,4],f32>, %b: !torch.vtensor<[3,4],f32>, %m: !torch.vtensor<[3,4],f32>, %v: !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4],f32> attributes {torch.onnx_meta.opset_version = 7 : si64} {
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %arg0, %arg3
  // CHECK: %[[VAR:.*]] = torch.aten.add.Scalar %arg4, %float9.999990e-06
  // CHECK: %[[INV_STD:.*]] = torch.aten.rsqrt %[[VAR]]
  // CHECK: %[[NORMALIZED:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[INV_STD]]
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %[[NORMALIZED]], %arg1
  // CHECK: torch.aten.add.Tensor %[[SCALED]], %arg2, {{.*}} -> !torch.vtensor<[2,3,4],f32>
  %0 = torch.operator "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {torch.onnx.spatial = 0 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>, !torch.vtensor<[3,4],f32>) -> !torch.vtensor<[2,3,4],f32>
  return %0 : !torch.vtensor<[2,3,4],f32>
}

// -----

// CHECK-LABEL: func.func @batch_norm_onnx_dialect
module attributes {onnx.opset_version = 9 : i64} {
  func.func @batch_norm_onnx_dialect(%x: tensor<2x3x4x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4x5xf32> {
    // CHECK: torch.aten.batch_norm {{.*}}, %false, %float9.000000e-01, %float9.999990e-03, %false : {{.*}} -> !torch.vtensor<[2,3,4,5],f32>
    %0 = "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {epsilon = 1.000000e-02 : f32} : (tensor<2x3x4x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4x5xf32>
    return %0 : tensor<2x3x4x5xf32>
  }
}

// -----

// CHECK-LABEL: func.func @batch_norm_training
func.func @batch_norm_training(%x: !torch.vtensor<[2,3,4],f32>, %s: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>, %m: !torch.vtensor<[3],f32>, %v: !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) attributes {torch.onnx_meta.opset_version = 15 : si64} {
  // CHECK: %[[SCALE:.*]] = torch.aten.unsqueeze %arg1, {{.*}} -> !torch.vtensor<[3,1],f32>
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %arg0, {{.*}} -> !torch.vtensor<[1,3,1],f32>
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %arg0, %[[MEAN]]
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[CENTERED]]
  // CHECK: %[[VAR:.*]] = torch.aten.mean.dim %[[SQUARES]]
  // CHECK: %[[BATCH_MEAN:.*]] = torch.aten.view %[[MEAN]], {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: %[[BATCH_VAR:.*]] = torch.aten.view %[[VAR]], {{.*}} -> !torch.vtensor<[3],f32>
  // CHECK: %[[KEPT:.*]] = torch.aten.mul.Scalar %arg3, %float9.000000e-01
  // CHECK: %[[NEW:.*]] = torch.aten.mul.Scalar %[[BATCH_MEAN]], %float9.999990e-02
  // CHECK: %[[RUNNING_MEAN:.*]] = torch.aten.add.Tensor %[[KEPT]], %[[NEW]]
  // CHECK: %[[RUNNING_VAR:.*]] = torch.aten.add.Tensor
  // CHECK: return %{{.*}}, %[[RUNNING_MEAN]], %[[RUNNING_VAR]]
  %0:3 = torch.operator "onnx.BatchNormalization"(%x, %s, %b, %m, %v) {torch.onnx.training_mode = 1 : si64} : (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> (!torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[2,3,4],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>
}

// -----

// CHECK-LABEL: func.func @instance_norm
func.func @instance_norm(%x: !torch.vtensor<[?,3,?],f32>, %s: !torch.vtensor<[3],f32>, %b: !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,3,?],f32> attributes {torch.onnx_meta.opset_version = 6 : si64} {
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %int2 :
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %arg0, %[[DIMS]], %true, %none : {{.*}} -> !torch.vtensor<[?,3,1],f32>
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %arg0, %[[MEAN]]
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[CENTERED]]
  // CHECK: %[[VAR:.*]] = torch.aten.mean.dim %[[SQUARES]]
  // CHECK: %[[VAR_EPS:.*]] = torch.aten.add.Scalar %[[VAR]], %float9.999990e-03
  // CHECK: %[[INV_STD:.*]] = torch.aten.rsqrt %[[VAR_EPS]]
  // CHECK: %[[NORMALIZED:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[INV_STD]]
  // CHECK: %[[SCALE:.*]] = torch.aten.unsqueeze %arg1
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %[[NORMALIZED]], %[[SCALE]]
  // CHECK: %[[BIAS:.*]] = torch.aten.unsqueeze %arg2
  // CHECK: torch.aten.add.Tensor %[[SCALED]], %[[BIAS]], {{.*}} -> !torch.vtensor<[?,3,?],f32>
  %0 = torch.operator "onnx.InstanceNormalization"(%x, %s, %b) {torch.onnx.epsilon = 1.000000e-02 : f32} : (!torch.vtensor<[?,3,?],f32>, !torch.vtensor<[3],f32>, !torch.vtensor<[3],f32>) -> !torch.vtensor<[?,3,?],f32>
  return %0 : !torch.vtensor<[?,3,?],f32>
}

// -----

// CHECK-LABEL: func.func @layer_norm
func.func @layer_norm(%x: !torch.vtensor<[?,4,5],f32>, %s: !torch.vtensor<[4,5],f32>, %b: !torch.vtensor<[4,5],f32>) -> (!torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,1,1],f32>, !torch.vtensor<[?,1,1],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[BATCH:.*]] = torch.aten.size.int %arg0, %int0
  // CHECK: %[[SHAPE:.*]] = torch.prim.ListConstruct %int4, %int5
  // CHECK: %[[Y:.*]], %[[MEAN:.*]], %[[INV_STD:.*]] = torch.aten.native_layer_norm %arg0, %[[SHAPE]], %arg1, %arg2, %float9.999990e-06 : {{.*}} -> !torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,1,1],f32>, !torch.vtensor<[?,1,1],f32>
  // CHECK: return %[[Y]], %[[MEAN]], %[[INV_STD]]
  %0:3 = torch.operator "onnx.LayerNormalization"(%x, %s, %b) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,4,5],f32>, !torch.vtensor<[4,5],f32>, !torch.vtensor<[4,5],f32>) -> (!torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,1,1],f32>, !torch.vtensor<[?,1,1],f32>)
  return %0#0, %0#1, %0#2 : !torch.vtensor<[?,4,5],f32>, !torch.vtensor<[?,1,1],f32>, !torch.vtensor<[?,1,1],f32>
}

// -----

// CHECK-LABEL: func.func @group_norm_18
func.func @group_norm_18(%x: !torch.vtensor<[2,4,3],f32>, %s: !torch.vtensor<[2],f32>, %b: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,4,3],f32> attributes {torch.onnx_meta.opset_version = 18 : si64} {
  // CHECK: %[[COLUMN:.*]] = torch.aten.unsqueeze %arg1, %int1
  // CHECK: %[[EXPANDED:.*]] = torch.aten.expand %[[COLUMN]], {{.*}} -> !torch.vtensor<[2,2],f32>
  // CHECK: %[[SCALE:.*]] = torch.aten.flatten.using_ints %[[EXPANDED]], {{.*}} -> !torch.vtensor<[4],f32>
  // CHECK: %[[BIAS:.*]] = torch.aten.flatten.using_ints
  // CHECK: torch.aten.group_norm %arg0, %int2{{.*}}, %[[SCALE]], %[[BIAS]], %float9.999990e-06, %false
  %0 = torch.operator "onnx.GroupNormalization"(%x, %s, %b) {torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[2,4,3],f32>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2,4,3],f32>
  return %0 : !torch.vtensor<[2,4,3],f32>
}

// -----

// CHECK-LABEL: func.func @group_norm_21
func.func @group_norm_21(%x: !torch.vtensor<[?,4,?],f32>, %s: !torch.vtensor<[4],f32>, %b: !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,?],f32> attributes {torch.onnx_meta.opset_version = 21 : si64} {
  // CHECK: torch.aten.group_norm %arg0, %int2, %arg1, %arg2, %float9.999990e-06, %false : {{.*}} -> !torch.vtensor<[?,4,?],f32>
  %0 = torch.operator "onnx.GroupNormalization"(%x, %s, %b) {torch.onnx.num_groups = 2 : si64} : (!torch.vtensor<[?,4,?],f32>, !torch.vtensor<[4],f32>, !torch.vtensor<[4],f32>) -> !torch.vtensor<[?,4,?],f32>
  return %0 : !torch.vtensor<[?,4,?],f32>
}

// -----

// CHECK-LABEL: func.func @lp_normalization
func.func @lp_normalization(%x: !torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: %[[NORM:.*]] = torch.aten.linalg_vector_norm %arg0, %float1.000000e00, %{{.*}}, %true, %none : {{.*}} -> !torch.vtensor<[?,1],f32>
  // CHECK: %[[ZERO:.*]] = torch.aten.eq.Scalar %[[NORM]], %float0.000000e00
  // CHECK: %[[SAFE:.*]] = torch.aten.masked_fill.Scalar %[[NORM]], %[[ZERO]], %float1.000000e00
  // CHECK: torch.aten.div.Tensor %arg0, %[[SAFE]] : {{.*}} -> !torch.vtensor<[?,4],f32>
  %0 = torch.operator "onnx.LpNormalization"(%x) {torch.onnx.p = 1 : si64} : (!torch.vtensor<[?,4],f32>) -> !torch.vtensor<[?,4],f32>
  return %0 : !torch.vtensor<[?,4],f32>
}

// -----

// CHECK-LABEL: func.func @lrn
func.func @lrn(%x: !torch.vtensor<[?,5,?,?],f32>) -> !torch.vtensor<[?,5,?,?],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[PADDED:.*]] = torch.aten.constant_pad_nd %[[SQUARES]], {{.*}} -> !torch.vtensor<[?,7,?,?],f32>
  // CHECK: %[[W0:.*]] = torch.aten.slice.Tensor %[[PADDED]], %int1{{.*}}, %int0{{.*}}, %int-2
  // CHECK: %[[W1:.*]] = torch.aten.slice.Tensor %[[PADDED]], %int1{{.*}}, %int1{{.*}}, %int-1
  // CHECK: %[[S01:.*]] = torch.aten.add.Tensor %[[W0]], %[[W1]]
  // CHECK: %[[W2:.*]] = torch.aten.slice.Tensor %[[PADDED]], %int1{{.*}}, %int2, %int9223372036854775807
  // CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %[[S01]], %[[W2]]
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Scalar %[[SUM]], %float3.333330e-05
  // CHECK: %[[BIASED:.*]] = torch.aten.add.Scalar %[[SCALED]], %float1.000000e00
  // CHECK: %[[DENOMINATOR:.*]] = torch.aten.pow.Tensor_Scalar %[[BIASED]], %float7.500000e-01
  // CHECK: torch.aten.div.Tensor %arg0, %[[DENOMINATOR]]
  %0 = torch.operator "onnx.LRN"(%x) {torch.onnx.size = 3 : si64} : (!torch.vtensor<[?,5,?,?],f32>) -> !torch.vtensor<[?,5,?,?],f32>
  return %0 : !torch.vtensor<[?,5,?,?],f32>
}

// -----

// CHECK-LABEL: func.func @mean_variance_normalization
func.func @mean_variance_normalization(%x: !torch.vtensor<[3,3,3,1],f32>) -> !torch.vtensor<[3,3,3,1],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
  // CHECK: %[[AXES:.*]] = torch.prim.ListConstruct %int0, %int2, %int3
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %arg0, %[[AXES]], %true, %none : {{.*}} -> !torch.vtensor<[1,3,1,1],f32>
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[MEAN_SQUARES:.*]] = torch.aten.mean.dim %[[SQUARES]]
  // CHECK: %[[MEAN_SQUARED:.*]] = torch.aten.mul.Tensor %[[MEAN]], %[[MEAN]]
  // CHECK: %[[VAR:.*]] = torch.aten.sub.Tensor %[[MEAN_SQUARES]], %[[MEAN_SQUARED]]
  // CHECK: %[[STD:.*]] = torch.aten.sqrt %[[VAR]]
  // CHECK: %[[DENOMINATOR:.*]] = torch.aten.add.Scalar %[[STD]], %float1.000000e-09
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %arg0, %[[MEAN]]
  // CHECK: torch.aten.div.Tensor %[[CENTERED]], %[[DENOMINATOR]]
  %0 = torch.operator "onnx.MeanVarianceNormalization"(%x) : (!torch.vtensor<[3,3,3,1],f32>) -> !torch.vtensor<[3,3,3,1],f32>
  return %0 : !torch.vtensor<[3,3,3,1],f32>
}

// -----

// CHECK-LABEL: func.func @max_pool_dilations
func.func @max_pool_dilations(%x: !torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32> attributes {torch.onnx_meta.opset_version = 12 : si64} {
  // CHECK: %[[R0:.*]] = torch.aten.slice.Tensor %arg0, %int2, %int0, %int2{{.*}}, %int1 : {{.*}} -> !torch.vtensor<[1,1,2,4],f32>
  // CHECK: %[[W00:.*]] = torch.aten.slice.Tensor %[[R0]], %int3, %int0{{.*}}, %int2{{.*}}, %int1{{.*}} : {{.*}} -> !torch.vtensor<[1,1,2,2],f32>
  // CHECK: %[[R0_:.*]] = torch.aten.slice.Tensor %arg0
  // CHECK: %[[W01:.*]] = torch.aten.slice.Tensor %[[R0_]], %int3{{.*}}, %int2{{.*}}, %int4
  // CHECK: %[[M:.*]] = torch.aten.maximum %[[W00]], %[[W01]]
  // CHECK: torch.aten.maximum %[[M]]
  // CHECK: %[[LAST:.*]] = torch.aten.maximum
  // CHECK: return %[[LAST]]
  %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [2 : si64, 2 : si64], torch.onnx.dilations = [2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,4,4],f32>) -> !torch.vtensor<[1,1,2,2],f32>
  return %0 : !torch.vtensor<[1,1,2,2],f32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_f16_stash
func.func @layer_norm_f16_stash(%x: !torch.vtensor<[2,5],f16>, %s: !torch.vtensor<[5],f16>) -> !torch.vtensor<[2,5],f16> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[X:.*]] = torch.aten.to.dtype %arg0, %int6, {{.*}} -> !torch.vtensor<[2,5],f32>
  // CHECK: %[[SCALE:.*]] = torch.aten.to.dtype %arg1, %int6{{.*}} -> !torch.vtensor<[5],f32>
  // CHECK: %[[Y:.*]], %{{.*}}, %{{.*}} = torch.aten.native_layer_norm %[[X]], %{{.*}}, %[[SCALE]], %none{{.*}} -> !torch.vtensor<[2,5],f32>
  // CHECK: torch.aten.to.dtype %[[Y]], %int5{{.*}} -> !torch.vtensor<[2,5],f16>
  %0 = torch.operator "onnx.LayerNormalization"(%x, %s) : (!torch.vtensor<[2,5],f16>, !torch.vtensor<[5],f16>) -> !torch.vtensor<[2,5],f16>
  return %0 : !torch.vtensor<[2,5],f16>
}

// -----

// On StableHLO a float16 MatMul accumulates in float32 and rounds once (its path rounded every
// partial sum to 16 bits).
// CHECK-LABEL: func.func @matmul_float16_for_stablehlo
// CHECK: %[[L:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[2,3],f32>
// CHECK: %[[R:.*]] = torch.aten.to.dtype %arg1, {{.*}} -> !torch.vtensor<[3,4],f32>
// CHECK: %[[P:.*]] = torch.aten.matmul %[[L]], %[[R]] {{.*}} -> !torch.vtensor<[2,4],f32>
// CHECK: torch.aten.to.dtype %[[P]], {{.*}} -> !torch.vtensor<[2,4],f16>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @matmul_float16_for_stablehlo(%a: !torch.vtensor<[2,3],f16>, %b: !torch.vtensor<[3,4],f16>) -> !torch.vtensor<[2,4],f16> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %0 = torch.operator "onnx.MatMul"(%a, %b) : (!torch.vtensor<[2,3],f16>, !torch.vtensor<[3,4],f16>) -> !torch.vtensor<[2,4],f16>
    return %0 : !torch.vtensor<[2,4],f16>
  }
}
