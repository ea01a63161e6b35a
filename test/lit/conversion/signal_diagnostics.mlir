// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @dft_dynamic_length(%x: !torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: error: unnamed node (DFT, domain 'ai.onnx', opset 17): the signal length (dim 1) must be static: the transform is a product with constant cos and sin matrices
  %0 = torch.operator "onnx.DFT"(%x) : (!torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,2],f32>
  return %0 : !torch.vtensor<[1,?,2],f32>
}

// -----

func.func @dft_runtime_length(%x: !torch.vtensor<[1,4,1],f32>, %n: !torch.vtensor<[],si64>) -> !torch.vtensor<[1,?,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: error: unnamed node (DFT, domain 'ai.onnx', opset 17): 'dft_length' must be a constant: the transform is a product with constant matrices
  %0 = torch.operator "onnx.DFT"(%x, %n) : (!torch.vtensor<[1,4,1],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,?,2],f32>
  return %0 : !torch.vtensor<[1,?,2],f32>
}

// -----

func.func @dft_trailing_dim(%x: !torch.vtensor<[1,4,3],f32>) -> !torch.vtensor<[1,4,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: error: unnamed node (DFT, domain 'ai.onnx', opset 17): the last dim must be 1 (real) or 2 (complex), not 3
  %0 = torch.operator "onnx.DFT"(%x) : (!torch.vtensor<[1,4,3],f32>) -> !torch.vtensor<[1,4,2],f32>
  return %0 : !torch.vtensor<[1,4,2],f32>
}

// -----

func.func @stft_dynamic_signal(%x: !torch.vtensor<[1,?,1],f32>) -> !torch.vtensor<[1,?,5,2],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: error: unnamed node (STFT, domain 'ai.onnx', opset 17): the signal length (dim 1) must be static
  %step = torch.vtensor.literal(dense<4> : tensor<si64>) : !torch.vtensor<[],si64>
  %0 = torch.operator "onnx.STFT"(%x, %step) : (!torch.vtensor<[1,?,1],f32>, !torch.vtensor<[],si64>) -> !torch.vtensor<[1,?,5,2],f32>
  return %0 : !torch.vtensor<[1,?,5,2],f32>
}

// -----

func.func @mel_dynamic(%b: !torch.vtensor<[],si32>, %l: !torch.vtensor<[],si32>, %r: !torch.vtensor<[],si32>, %lo: !torch.vtensor<[],f32>, %hi: !torch.vtensor<[],f32>) -> !torch.vtensor<[?,?],f32> attributes {torch.onnx_meta.opset_version = 17 : si64} {
  // CHECK: error: unnamed node (MelWeightMatrix, domain 'ai.onnx', opset 17): with scalars known only at run time the result shape must be declared static ([dft_length / 2 + 1, num_mel_bins])
  %0 = torch.operator "onnx.MelWeightMatrix"(%b, %l, %r, %lo, %hi) : (!torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],si32>, !torch.vtensor<[],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[?,?],f32>
  return %0 : !torch.vtensor<[?,?],f32>
}

// -----

func.func @bit_cast_width(%x: !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 26 : si64} {
  // CHECK: error: unnamed node (BitCast, domain 'ai.onnx', opset 26): 'to' (si64, 64 bits) must have the width of the input (f32, 32 bits)
  %0 = torch.operator "onnx.BitCast"(%x) {torch.onnx.to = 7 : si64} : (!torch.vtensor<[2],f32>) -> !torch.vtensor<[2],si64>
  return %0 : !torch.vtensor<[2],si64>
}

// -----

func.func @unique_dynamic_input(%x: !torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32> attributes {torch.onnx_meta.opset_version = 11 : si64} {
  // CHECK: error: unnamed node (Unique, domain 'ai.onnx', opset 11): without 'axis' the input must have a static shape
  %0 = torch.operator "onnx.Unique"(%x) : (!torch.vtensor<[?],f32>) -> !torch.vtensor<[?],f32>
  return %0 : !torch.vtensor<[?],f32>
}

// -----

func.func @tensor_scatter_batch_axis(%p: !torch.vtensor<[4,3],f32>, %u: !torch.vtensor<[1,3],f32>) -> !torch.vtensor<[4,3],f32> attributes {torch.onnx_meta.opset_version = 24 : si64} {
  // CHECK: error: unnamed node (TensorScatter, domain 'ai.onnx', opset 24): axis 0 is the batch dim; the sequence axis must be another one
  %0 = torch.operator "onnx.TensorScatter"(%p, %u) {torch.onnx.axis = 0 : si64} : (!torch.vtensor<[4,3],f32>, !torch.vtensor<[1,3],f32>) -> !torch.vtensor<[4,3],f32>
  return %0 : !torch.vtensor<[4,3],f32>
}

// -----

module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @bit_cast_64_bit_tosa(%x: !torch.vtensor<[2],f64>) -> !torch.vtensor<[2],si64> attributes {torch.onnx_meta.opset_version = 26 : si64} {
    // CHECK: error: unnamed node (BitCast, domain 'ai.onnx', opset 26): BitCast from f64 to si64 takes 64-bit arithmetic, which TOSA does not have
    %0 = torch.operator "onnx.BitCast"(%x) {torch.onnx.to = 7 : si64} : (!torch.vtensor<[2],f64>) -> !torch.vtensor<[2],si64>
    return %0 : !torch.vtensor<[2],si64>
  }
}
