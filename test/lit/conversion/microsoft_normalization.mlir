// onnxruntime's contrib normalizations: com.microsoft Skip(Simplified)LayerNormalization and
// EmbedLayerNormalization, and its default-domain SimplifiedLayerNormalization-1 and
// LayerNormalization-1 (before ONNX's LayerNormalization-17).
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// CHECK-LABEL: func.func @skip_layer_norm
func.func @skip_layer_norm(%x: !torch.vtensor<[?,?,8],f32>, %skip: !torch.vtensor<[?,8],f32>, %gamma: !torch.vtensor<[8],f32>, %beta: !torch.vtensor<[8],f32>, %bias: !torch.vtensor<[8],f32>) -> (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?,?,1],f32>, !torch.vtensor<[?,?,8],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[XS:.*]] = torch.aten.add.Tensor %arg0, %arg1, %{{.*}} : !torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?,8],f32>, !torch.int -> !torch.vtensor<[?,?,8],f32>
  // CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %[[XS]], %arg4
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %[[SUM]], {{.*}} -> !torch.vtensor<[?,?,1],f32>
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %[[SUM]], %[[MEAN]]
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[CENTERED]]
  // CHECK: %[[VAR:.*]] = torch.aten.mean.dim %[[SQUARES]]
  // CHECK: %[[EPS:.*]] = torch.constant.float 9.9999997473787516E-6
  // CHECK: %[[SHIFTED:.*]] = torch.aten.add.Scalar %[[VAR]], %[[EPS]]
  // CHECK: %[[INV:.*]] = torch.aten.rsqrt %[[SHIFTED]] : !torch.vtensor<[?,?,1],f32>
  // CHECK: %[[NORM:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[INV]]
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %[[NORM]], %arg2
  // CHECK: %[[Y:.*]] = torch.aten.add.Tensor %[[SCALED]], %arg3
  // CHECK: return %[[Y]], %[[INV]], %[[SUM]]
  %0:4 = torch.operator "com.microsoft.SkipLayerNormalization"(%x, %skip, %gamma, %beta, %bias) {torch.onnx.epsilon = 9.99999974E-6 : f32} : (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> (!torch.vtensor<[?,?,8],f32>, !torch.none, !torch.vtensor<[?,?,1],f32>, !torch.vtensor<[?,?,8],f32>)
  return %0#0, %0#2, %0#3 : !torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?,?,1],f32>, !torch.vtensor<[?,?,8],f32>
}

// -----

// epsilon defaults to 1e-12; f16 is computed in f32 and cast back.
// CHECK-LABEL: func.func @skip_simplified_layer_norm_f16
func.func @skip_simplified_layer_norm_f16(%x: !torch.vtensor<[2,3,8],f16>, %skip: !torch.vtensor<[2,3,8],f16>, %gamma: !torch.vtensor<[8],f16>) -> !torch.vtensor<[2,3,8],f16> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %arg0, %arg1, %{{.*}} -> !torch.vtensor<[2,3,8],f16>
  // CHECK: %[[WIDE:.*]] = torch.aten.to.dtype %[[SUM]], {{.*}} -> !torch.vtensor<[2,3,8],f32>
  // CHECK-NOT: torch.aten.sub.Tensor
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %[[WIDE]], %[[WIDE]]
  // CHECK: %[[MS:.*]] = torch.aten.mean.dim %[[SQUARES]]
  // CHECK: torch.constant.float 9.9999999999999998E-13
  // CHECK: torch.aten.rsqrt
  // CHECK: %[[NORM:.*]] = torch.aten.mul.Tensor {{.*}} -> !torch.vtensor<[2,3,8],f32>
  // CHECK: %[[GAMMA:.*]] = torch.aten.to.dtype %arg2, {{.*}} -> !torch.vtensor<[8],f32>
  // CHECK: %[[Y:.*]] = torch.aten.mul.Tensor %[[NORM]], %[[GAMMA]]
  // CHECK: torch.aten.to.dtype %[[Y]], {{.*}} -> !torch.vtensor<[2,3,8],f16>
  %0 = torch.operator "com.microsoft.SkipSimplifiedLayerNormalization"(%x, %skip, %gamma) : (!torch.vtensor<[2,3,8],f16>, !torch.vtensor<[2,3,8],f16>, !torch.vtensor<[8],f16>) -> !torch.vtensor<[2,3,8],f16>
  return %0 : !torch.vtensor<[2,3,8],f16>
}

// -----

// onnxruntime's RMS norm in the default domain, over dims [axis, rank).
// CHECK-LABEL: func.func @simplified_layer_norm
func.func @simplified_layer_norm(%x: !torch.vtensor<[?,3,8],f32>, %scale: !torch.vtensor<[3,8],f32>) -> (!torch.vtensor<[?,3,8],f32>, !torch.vtensor<[?,1,1],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: %[[SQUARES:.*]] = torch.aten.mul.Tensor %arg0, %arg0
  // CHECK: %[[DIMS:.*]] = torch.prim.ListConstruct %int1, %int2
  // CHECK: %[[MS:.*]] = torch.aten.mean.dim %[[SQUARES]], %[[DIMS]], {{.*}} -> !torch.vtensor<[?,1,1],f32>
  // CHECK: %[[INV:.*]] = torch.aten.rsqrt
  // CHECK: %[[NORM:.*]] = torch.aten.mul.Tensor %arg0, %[[INV]]
  // CHECK: %[[Y:.*]] = torch.aten.mul.Tensor %[[NORM]], %arg1
  // CHECK: return %[[Y]], %[[INV]]
  %0:2 = torch.operator "onnx.SimplifiedLayerNormalization"(%x, %scale) {torch.onnx.axis = 1 : si64} : (!torch.vtensor<[?,3,8],f32>, !torch.vtensor<[3,8],f32>) -> (!torch.vtensor<[?,3,8],f32>, !torch.vtensor<[?,1,1],f32>)
  return %0#0, %0#1 : !torch.vtensor<[?,3,8],f32>, !torch.vtensor<[?,1,1],f32>
}

// -----

// Before opset 17, LayerNormalization is onnxruntime's (version 1); from 17 on, ONNX's.
// CHECK-LABEL: func.func @layer_norm_opset16
func.func @layer_norm_opset16(%x: !torch.vtensor<[2,3,8],f32>, %scale: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32> attributes {torch.onnx_meta.opset_version = 16 : si64} {
  // CHECK: %[[MEAN:.*]] = torch.aten.mean.dim %arg0
  // CHECK: torch.aten.sub.Tensor %arg0, %[[MEAN]]
  // CHECK: torch.aten.rsqrt
  // CHECK: %[[SCALED:.*]] = torch.aten.mul.Tensor %{{.*}}, %arg1
  // CHECK: torch.aten.add.Tensor %[[SCALED]], %arg2
  %0 = torch.operator "onnx.LayerNormalization"(%x, %scale, %b) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %0 : !torch.vtensor<[2,3,8],f32>
}

// -----

// CHECK-LABEL: func.func @layer_norm_opset17
func.func @layer_norm_opset17(%x: !torch.vtensor<[2,3,8],f32>, %scale: !torch.vtensor<[8],f32>, %b: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: torch.aten.native_layer_norm
  %0 = torch.operator "onnx.LayerNormalization"(%x, %scale, %b) : (!torch.vtensor<[2,3,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %0 : !torch.vtensor<[2,3,8],f32>
}

// -----

// Word, position (0..seq-1 without position_ids) and segment embeddings summed, then
// LayerNorm; mask_index counts the 1s of each mask row.
// CHECK-LABEL: func.func @embed_layer_norm
func.func @embed_layer_norm(%ids: !torch.vtensor<[?,?],si32>, %segment_ids: !torch.vtensor<[?,?],si32>, %words: !torch.vtensor<[20,8],f32>, %positions: !torch.vtensor<[16,8],f32>, %segments: !torch.vtensor<[2,8],f32>, %gamma: !torch.vtensor<[8],f32>, %beta: !torch.vtensor<[8],f32>, %mask: !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?],si32>) attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[IDS:.*]] = torch.aten.to.dtype %arg0, {{.*}} -> !torch.vtensor<[?,?],si64>
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %[[IDS]]
  // CHECK: %[[ROWS:.*]] = torch.aten.index_select %arg2, %{{.*}}, %[[FLAT]] : !torch.vtensor<[20,8],f32>, !torch.int, !torch.vtensor<[?],si64> -> !torch.vtensor<[?,8],f32>
  // CHECK: %[[WORDS:.*]] = torch.aten.reshape %[[ROWS]], {{.*}} -> !torch.vtensor<[?,?,8],f32>
  // CHECK: %[[SEQ:.*]] = torch.aten.size.int %arg0, %int1
  // CHECK: %[[POS:.*]] = torch.aten.slice.Tensor %arg3, %{{.*}}, %{{.*}}, %[[SEQ]], %{{.*}} : !torch.vtensor<[16,8],f32>, !torch.int, !torch.int, !torch.int, !torch.int -> !torch.vtensor<[?,8],f32>
  // CHECK: %[[WP:.*]] = torch.aten.add.Tensor %[[WORDS]], %[[POS]]
  // CHECK: torch.aten.index_select %arg4
  // CHECK: %[[E:.*]] = torch.aten.add.Tensor %[[WP]],
  // CHECK: torch.aten.mean.dim %[[E]]
  // CHECK: %[[ONES:.*]] = torch.aten.eq.Scalar %arg7, %{{.*}} : !torch.vtensor<[?,?],si32>, !torch.int -> !torch.vtensor<[?,?],i1>
  // CHECK: %[[COUNTED:.*]] = torch.aten.to.dtype %[[ONES]]
  // CHECK: torch.aten.sum.dim_IntList %[[COUNTED]], {{.*}} -> !torch.vtensor<[?],si32>
  %0:2 = torch.operator "com.microsoft.EmbedLayerNormalization"(%ids, %segment_ids, %words, %positions, %segments, %gamma, %beta, %mask) : (!torch.vtensor<[?,?],si32>, !torch.vtensor<[?,?],si32>, !torch.vtensor<[20,8],f32>, !torch.vtensor<[16,8],f32>, !torch.vtensor<[2,8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[8],f32>, !torch.vtensor<[?,?],si32>) -> (!torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?],si32>)
  return %0#0, %0#1 : !torch.vtensor<[?,?,8],f32>, !torch.vtensor<[?],si32>
}

// -----

// CHECK-LABEL: func.func @skip_layer_norm_onnx_dialect
module attributes {onnx.opset_import = {ai.onnx = 17 : i64, com.microsoft = 1 : i64}} {
  func.func @skip_layer_norm_onnx_dialect(%x: tensor<2x3x8xf32>, %skip: tensor<2x3x8xf32>, %gamma: tensor<8xf32>) -> tensor<2x3x8xf32> {
    %none = "onnx.NoValue"() {value} : () -> none
    // CHECK: %[[SUM:.*]] = torch.aten.add.Tensor %{{.*}}, %{{.*}}, %{{.*}} -> !torch.vtensor<[2,3,8],f32>
    // CHECK: torch.aten.mean.dim %[[SUM]]
    // CHECK: torch.constant.float 9.9999999999999998E-13
    %0 = "onnx.Custom"(%x, %skip, %gamma, %none, %none) {domain_name = "com.microsoft", function_name = "SkipLayerNormalization"} : (tensor<2x3x8xf32>, tensor<2x3x8xf32>, tensor<8xf32>, none, none) -> tensor<2x3x8xf32>
    return %0 : tensor<2x3x8xf32>
  }
}
