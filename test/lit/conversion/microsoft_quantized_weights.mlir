// Block-quantized weights of onnxruntime's LLM exports (domain com.microsoft): MatMulNBits and
// GatherBlockQuantized. The packed bytes stay packed and are unpacked in float arithmetic.
// RUN: onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch | FileCheck %s

// 4-bit weights [N=8, 2 blocks, 16 bytes], packed zero points [8, 1]: q = b - 16 * floor(b / 16)
// (low nibble) and floor(b / 16) (high nibble); W = (q - zero) * scale, [N, K]; Y = A @ W^T.
// CHECK-LABEL: func.func @matmul_n_bits_4bit
func.func @matmul_n_bits_4bit(%a: !torch.vtensor<[?,64],f32>, %b: !torch.vtensor<[8,2,16],ui8>, %scales: !torch.vtensor<[8,2],f32>, %zp: !torch.vtensor<[8,1],ui8>) -> !torch.vtensor<[?,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[BYTES:.*]] = torch.aten.to.dtype %arg1, {{.*}} -> !torch.vtensor<[8,2,16],f32>
  // CHECK: %[[ZERO:.*]] = torch.vtensor.literal(dense<0.000000e+00> : tensor<f32>)
  // CHECK: %[[NEGATIVE:.*]] = torch.aten.lt.Tensor %[[BYTES]], %[[ZERO]]
  // CHECK: %[[WRAPPED:.*]] = torch.aten.add.Scalar %[[BYTES]], %float2.560000e02
  // CHECK: %[[UNSIGNED:.*]] = torch.aten.where.self %[[NEGATIVE]], %[[WRAPPED]], %[[BYTES]]
  // CHECK: %[[DIVIDED:.*]] = torch.aten.div.Scalar %[[UNSIGNED]], %float1.600000e01
  // CHECK: %[[HIGH:.*]] = torch.aten.floor %[[DIVIDED]]
  // CHECK: %[[HIGH16:.*]] = torch.aten.mul.Scalar %[[HIGH]]
  // CHECK: %[[LOW:.*]] = torch.aten.sub.Tensor %[[UNSIGNED]], %[[HIGH16]]
  // CHECK: %[[BOTH:.*]] = torch.prim.ListConstruct %[[LOW]], %[[HIGH]]
  // CHECK: %[[PAIRS:.*]] = torch.aten.stack %[[BOTH]], {{.*}} -> !torch.vtensor<[8,2,16,2],f32>
  // CHECK: %[[VALUES:.*]] = torch.aten.flatten.using_ints %[[PAIRS]], {{.*}} -> !torch.vtensor<[8,2,32],f32>
  // CHECK: %[[SCALES:.*]] = torch.aten.unsqueeze %arg2, {{.*}} -> !torch.vtensor<[8,2,1],f32>
  // CHECK: torch.aten.to.dtype %arg3
  // CHECK: %[[ZP:.*]] = torch.aten.flatten.using_ints {{.*}} -> !torch.vtensor<[8,2],f32>
  // CHECK: %[[ZP3:.*]] = torch.aten.unsqueeze %[[ZP]]
  // CHECK: %[[CENTERED:.*]] = torch.aten.sub.Tensor %[[VALUES]], %[[ZP3]]
  // CHECK: %[[DEQUANTIZED:.*]] = torch.aten.mul.Tensor %[[CENTERED]], %[[SCALES]]
  // CHECK: %[[W:.*]] = torch.aten.reshape %[[DEQUANTIZED]], {{.*}} -> !torch.vtensor<[8,64],f32>
  // CHECK: %[[WT:.*]] = torch.aten.transpose.int %[[W]], {{.*}} -> !torch.vtensor<[64,8],f32>
  // CHECK: torch.aten.matmul %arg0, %[[WT]] : !torch.vtensor<[?,64],f32>, !torch.vtensor<[64,8],f32> -> !torch.vtensor<[?,8],f32>
  %0 = torch.operator "com.microsoft.MatMulNBits"(%a, %b, %scales, %zp) {torch.onnx.K = 64 : si64, torch.onnx.N = 8 : si64, torch.onnx.bits = 4 : si64, torch.onnx.block_size = 32 : si64} : (!torch.vtensor<[?,64],f32>, !torch.vtensor<[8,2,16],ui8>, !torch.vtensor<[8,2],f32>, !torch.vtensor<[8,1],ui8>) -> !torch.vtensor<[?,8],f32>
  return %0 : !torch.vtensor<[?,8],f32>
}

// -----

// No zero points: 2^(bits - 1) = 8; K = 40 is not a multiple of the block: the padding is cut off.
// CHECK-LABEL: func.func @matmul_n_bits_default_zero_point_ragged_k
func.func @matmul_n_bits_default_zero_point_ragged_k(%a: !torch.vtensor<[2,3,40],f32>, %b: !torch.vtensor<[8,3,8],ui8>, %scales: !torch.vtensor<[24],f32>, %bias: !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  // CHECK: %[[EIGHT:.*]] = torch.vtensor.literal(dense<8.000000e+00> : tensor<f32>)
  // CHECK: torch.aten.sub.Tensor %{{.*}}, %[[EIGHT]]
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[8,48],f32>
  // CHECK: torch.aten.slice.Tensor {{.*}} -> !torch.vtensor<[8,40],f32>
  // CHECK: %[[Y:.*]] = torch.aten.matmul {{.*}} -> !torch.vtensor<[2,3,8],f32>
  // CHECK: torch.aten.add.Tensor %[[Y]], %arg3
  %0 = torch.operator "com.microsoft.MatMulNBits"(%a, %b, %scales, %none, %none, %bias) {torch.onnx.K = 40 : si64, torch.onnx.N = 8 : si64, torch.onnx.bits = 4 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[2,3,40],f32>, !torch.vtensor<[8,3,8],ui8>, !torch.vtensor<[24],f32>, !torch.none, !torch.none, !torch.vtensor<[8],f32>) -> !torch.vtensor<[2,3,8],f32>
  return %0 : !torch.vtensor<[2,3,8],f32>
}

// -----

// Rows gathered from the packed table first (negative indices wrapped, out-of-range ones zeroed), then unpacked.
// CHECK-LABEL: func.func @gather_block_quantized
func.func @gather_block_quantized(%data: !torch.vtensor<[10,16],ui8>, %indices: !torch.vtensor<[?,?],si64>, %scales: !torch.vtensor<[10,2],f32>) -> !torch.vtensor<[?,?,32],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  // CHECK: %[[NEGATIVE:.*]] = torch.aten.lt.Scalar %arg1
  // CHECK: %[[WRAPPED:.*]] = torch.aten.add.Scalar %arg1, %int10
  // CHECK: %[[INDICES:.*]] = torch.aten.where.self %[[NEGATIVE]], %[[WRAPPED]], %arg1
  // CHECK: %[[CLAMPED:.*]] = torch.aten.clamp %[[INDICES]]
  // CHECK: %[[FLAT:.*]] = torch.aten.flatten.using_ints %[[CLAMPED]]
  // CHECK: %[[ROWS:.*]] = torch.aten.index_select %arg0, %{{.*}}, %[[FLAT]] : !torch.vtensor<[10,16],ui8>, !torch.int, !torch.vtensor<[?],si64> -> !torch.vtensor<[?,16],ui8>
  // CHECK: torch.aten.to.dtype %[[ROWS]]
  // CHECK: torch.aten.index_select %arg2, %{{.*}}, %[[FLAT]]
  // CHECK: torch.aten.broadcast_to {{.*}} -> !torch.vtensor<[?,2,16],f32>
  // CHECK: torch.aten.reshape {{.*}} -> !torch.vtensor<[?,?,32],f32>
  %0 = torch.operator "com.microsoft.GatherBlockQuantized"(%data, %indices, %scales) {torch.onnx.bits = 4 : si64, torch.onnx.block_size = 16 : si64} : (!torch.vtensor<[10,16],ui8>, !torch.vtensor<[?,?],si64>, !torch.vtensor<[10,2],f32>) -> !torch.vtensor<[?,?,32],f32>
  return %0 : !torch.vtensor<[?,?,32],f32>
}

// -----

// CHECK-LABEL: func.func @matmul_n_bits_onnx_dialect
module attributes {onnx.opset_import = {ai.onnx = 17 : i64, com.microsoft = 1 : i64}} {
  func.func @matmul_n_bits_onnx_dialect(%a: tensor<3x32xf32>, %b: tensor<4x1x32xui8>, %scales: tensor<4x1xf32>) -> tensor<3x4xf32> {
    // 8 bits: one value per byte, no unpacking.
    // CHECK-NOT: torch.aten.floor
    // CHECK: torch.aten.matmul {{.*}} -> !torch.vtensor<[3,4],f32>
    %0 = "onnx.Custom"(%a, %b, %scales) {domain_name = "com.microsoft", function_name = "MatMulNBits", K = 32 : si64, N = 4 : si64, bits = 8 : si64, block_size = 32 : si64} : (tensor<3x32xf32>, tensor<4x1x32xui8>, tensor<4x1xf32>) -> tensor<3x4xf32>
    return %0 : tensor<3x4xf32>
  }
}
