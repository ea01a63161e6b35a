// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// On every target an unsigned max pool is computed in a wider signed type, masked after the
// widening (TOSA sign-extends): torch-mlir's Linalg and TOSA lowerings compare unsigned bytes as
// signed, and its StableHLO lowering of the unsigned pool crashes. The target attribute is consumed.
// CHECK-LABEL: func.func @max_pool_uint8_for_stablehlo
// CHECK-NOT: onnx_torch_mlir.target
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: %[[MASKED:.*]] = torch.aten.bitwise_and.Scalar %[[WIDE]], %int255
// CHECK: %[[POOLED:.*]] = torch.aten.max_pool2d %[[MASKED]], {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: torch.aten.to.dtype %[[POOLED]], {{.*}} -> !torch.vtensor<[1,1,5,5],ui8>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @max_pool_uint8_for_stablehlo(%x: !torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [5 : si64, 5 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8>
    return %0 : !torch.vtensor<[1,1,5,5],ui8>
  }
}

// -----

// CHECK-LABEL: func.func @max_pool_uint8_for_linalg
// CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: torch.aten.max_pool2d {{.*}} -> !torch.vtensor<[1,1,5,5],si16>
// CHECK: torch.aten.to.dtype {{.*}} -> !torch.vtensor<[1,1,5,5],ui8>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @max_pool_uint8_for_linalg(%x: !torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    %0 = torch.operator "onnx.MaxPool"(%x) {torch.onnx.kernel_shape = [5 : si64, 5 : si64], torch.onnx.pads = [2 : si64, 2 : si64, 2 : si64, 2 : si64]} : (!torch.vtensor<[1,1,5,5],ui8>) -> !torch.vtensor<[1,1,5,5],ui8>
    return %0 : !torch.vtensor<[1,1,5,5],ui8>
  }
}

// -----

// TOSA's profiles have no 64-bit integers: a cast between i64 and a float goes through i32 there
// (IREE refused tosa.cast i64 -> f32 in BERT's attention mask).
// CHECK-LABEL: func.func @cast_int64_to_float_for_tosa
// CHECK: %[[NARROW:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[2,5],si32>
// CHECK: torch.aten.to.dtype %[[NARROW]], {{.*}} -> !torch.vtensor<[2,5],f32>
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @cast_int64_to_float_for_tosa(%arg0: !torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.Cast"(%arg0) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32>
    return %0 : !torch.vtensor<[2,5],f32>
  }
}

// -----

// Elsewhere the cast is direct.
// CHECK-LABEL: func.func @cast_int64_to_float_for_linalg
// CHECK: torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[2,5],f32>
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @cast_int64_to_float_for_linalg(%arg0: !torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.Cast"(%arg0) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[2,5],si64>) -> !torch.vtensor<[2,5],f32>
    return %0 : !torch.vtensor<[2,5],f32>
  }
}

// -----

// Compiled for TOSA, LayerNormalization on a dynamic batch is composed from means and
// broadcasting ops: torch-mlir's decomposition of aten.native_layer_norm reads the sizes with
// aten.size.int for an aten.broadcast_to, which TOSA's lowering refuses.
// CHECK-LABEL: func.func @layer_norm_dynamic_for_tosa
// CHECK-NOT: torch.aten.native_layer_norm
// CHECK-NOT: torch.aten.size.int
// CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %arg0, {{.*}} -> !torch.vtensor<[?,1],f32>
// CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %arg0, %[[MEAN]]
// CHECK: torch.aten.mean.dim
// CHECK: torch.aten.rsqrt
// CHECK: torch.aten.mul.Tensor {{.*}}, %arg1
// CHECK: torch.aten.add.Tensor {{.*}}, %arg2
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @layer_norm_dynamic_for_tosa(%x: !torch.vtensor<[?,8],f32>, %s: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[?,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.LayerNormalization"(%x, %s, %b) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[?,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[?,8],f32>
    return %0 : !torch.vtensor<[?,8],f32>
  }
}

// -----

// The same node for StableHLO (whose lowering takes the decomposition) keeps aten.native_layer_norm.
// CHECK-LABEL: func.func @layer_norm_dynamic_for_stablehlo
// CHECK: torch.aten.native_layer_norm %arg0
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @layer_norm_dynamic_for_stablehlo(%x: !torch.vtensor<[?,8],f32>, %s: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[?,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
    %0 = torch.operator "onnx.LayerNormalization"(%x, %s, %b) {torch.onnx.axis = -1 : si64} : (!torch.vtensor<[?,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[?,8],f32>
    return %0 : !torch.vtensor<[?,8],f32>
  }
}

// -----

// Compiled for StableHLO, a Gather of a constant position along a dynamic dim (BERT's pooler
// taking token 0) is a slice: aten.index_select becomes stablehlo.dynamic_gather there, which
// IREE refuses.
// CHECK-LABEL: func.func @gather_first_token_for_stablehlo
// CHECK-NOT: torch.aten.index_select
// CHECK: %[[ONE:.*]] = torch.aten.slice.Tensor %arg0, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : !torch.vtensor<[?,?,4],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,1,4],f32>
// CHECK: torch.aten.squeeze.dim %[[ONE]], {{.*}} -> !torch.vtensor<[?,4],f32>
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @gather_first_token_for_stablehlo(%x: !torch.vtensor<[?,?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %i = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %0 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?,4],f32>
    return %0 : !torch.vtensor<[?,4],f32>
  }
}

// -----

// For Linalg the Gather stays an index_select.
// CHECK-LABEL: func.func @gather_first_token_for_linalg
// CHECK: torch.aten.index_select
module attributes {onnx_torch_mlir.target = "linalg-on-tensors"} {
  func.func @gather_first_token_for_linalg(%x: !torch.vtensor<[?,?,4],f32>) -> !torch.vtensor<[?,4],f32> attributes {torch.onnx_meta.opset_version = 13 : si64} {
    %i = torch.operator "onnx.Constant"() {torch.onnx.value = dense<0> : tensor<si64>} : () -> !torch.vtensor<[],si64>
    %0 = torch.operator "onnx.Gather"(%x, %i) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,?,4],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[?,4],f32>
    return %0 : !torch.vtensor<[?,4],f32>
  }
}

// -----

// Compiled for StableHLO, Trilu on a dynamically shaped input compares index grids: torch-mlir's
// StableHLO lowering of aten.triu refuses dynamic shapes (T5's causal mask).
// CHECK-LABEL: func.func @trilu_dynamic_for_stablehlo
// CHECK-NOT: torch.aten.triu
// CHECK: %[[OFFSET:.*]] = torch.aten.sub.Tensor {{.*}} -> !torch.vtensor<[?,?],si64>
// CHECK: %[[KEEP:.*]] = torch.aten.ge.Scalar %[[OFFSET]], {{.*}} -> !torch.vtensor<[?,?],i1>
// CHECK: torch.aten.where.ScalarOther %[[KEEP]], %arg0
module attributes {onnx_torch_mlir.target = "stablehlo"} {
  func.func @trilu_dynamic_for_stablehlo(%x: !torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 14 : si64} {
    %0 = torch.operator "onnx.Trilu"(%x) {torch.onnx.upper = 1 : si64} : (!torch.vtensor<[?,?],f32>) -> !torch.vtensor<[?,?],f32>
    return %0 : !torch.vtensor<[?,?],f32>
  }
}
