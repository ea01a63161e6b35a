// Forms the recurrent patterns refuse, each with its reason, all reported in one run.
// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

func.func @refused(%x: !torch.vtensor<[2,1,3],f32>, %w: !torch.vtensor<[1,4,3],f32>, %r: !torch.vtensor<[1,4,4],f32>, %w4: !torch.vtensor<[1,16,3],f32>, %r4: !torch.vtensor<[1,16,4],f32>) -> () attributes {torch.onnx_meta.opset_version = 22 : si64} {
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): direction 'sideways' is not forward, reverse or bidirectional
  %0:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.direction = "sideways"} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): activation 'Gelu' is not one of the RNN activations (relu, tanh, sigmoid, affine, leakyrelu, thresholdedrelu, scaledtanh, hardsigmoid, elu, softsign, softplus)
  %1:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.activations = ["Gelu"]} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): activation 'ScaledTanh' needs its values in activation_alpha and activation_beta
  %2:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.activations = ["ScaledTanh"], torch.onnx.activation_alpha = [2.0 : f32]} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): layout 2 is not 0 or 1
  %3:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.layout = 2 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): hidden_size 5 does not match R's last dim 4
  %4:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 5 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,1,1,5],f32>, !torch.vtensor<[1,1,5],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (LSTM, domain 'ai.onnx', opset 22): 'activations' lists 2 functions; 3 per direction are needed
  %5:3 = torch.operator "onnx.LSTM"(%x, %w4, %r4) {torch.onnx.hidden_size = 4 : si64, torch.onnx.activations = ["Sigmoid", "Tanh"]} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,16,3],f32>, !torch.vtensor<[1,16,4],f32>) -> (!torch.vtensor<[2,1,1,4],f32>, !torch.vtensor<[1,1,4],f32>, !torch.vtensor<[1,1,4],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (RNN, domain 'ai.onnx', opset 22): W's dim 0 (directions) is 1; direction 'bidirectional' needs 2
  %6:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64, torch.onnx.direction = "bidirectional"} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.vtensor<[2,2,1,4],f32>, !torch.vtensor<[2,1,4],f32>)
  return
}

// -----

// On TOSA a dynamic sequence length must be fixed at compile time (StableHLO takes a while loop).
module attributes {onnx_torch_mlir.target = "tosa"} {
  func.func @dynamic_length_for_tosa(%x: !torch.vtensor<[?,1,3],f32>, %w: !torch.vtensor<[1,4,3],f32>, %r: !torch.vtensor<[1,4,4],f32>) -> !torch.vtensor<[1,1,4],f32> attributes {torch.onnx_meta.opset_version = 22 : si64} {
    // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:12: error: unnamed node (RNN, domain 'ai.onnx', opset 22): the sequence length is dynamic, and on tosa the step outputs would grow at run time, which torch-mlir's TOSA lowering cannot take: fix the length at compile time (--dim NAME=SIZE)
    %0:2 = torch.operator "onnx.RNN"(%x, %w, %r) {torch.onnx.hidden_size = 4 : si64} : (!torch.vtensor<[?,1,3],f32>, !torch.vtensor<[1,4,3],f32>, !torch.vtensor<[1,4,4],f32>) -> (!torch.none, !torch.vtensor<[1,1,4],f32>)
    return %0#1 : !torch.vtensor<[1,1,4],f32>
  }
}

// -----

func.func @refused_dynamic_quantize_lstm(%x: !torch.vtensor<[2,1,3],f32>, %w: !torch.vtensor<[1,3,4],si8>, %r: !torch.vtensor<[1,1,4],si8>, %wf: !torch.vtensor<[1,3,4],f32>, %s: !torch.vtensor<[1],f32>, %z: !torch.vtensor<[1],si8>, %s2: !torch.vtensor<[1,4],f32>) -> () attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {com.microsoft = 1 : si64}} {
  %none = torch.constant.none
  %zc = torch.vtensor.literal(dense<[[0, 1, 0, 0]]> : tensor<1x4xsi8>) : !torch.vtensor<[1,4],si8>
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (DynamicQuantizeLSTM, domain 'com.microsoft', opset 1): W is f32; int8 or uint8 is required
  %0:2 = torch.operator "com.microsoft.DynamicQuantizeLSTM"(%x, %wf, %r, %none, %none, %none, %none, %none, %s, %z, %s, %z) {torch.onnx.hidden_size = 1 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,3,4],f32>, !torch.vtensor<[1,1,4],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (DynamicQuantizeLSTM, domain 'com.microsoft', opset 1): W_zero_point per column must be 0, as onnxruntime requires
  %1:2 = torch.operator "com.microsoft.DynamicQuantizeLSTM"(%x, %w, %r, %none, %none, %none, %none, %none, %s2, %zc, %s, %z) {torch.onnx.hidden_size = 1 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,3,4],si8>, !torch.vtensor<[1,1,4],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1,4],f32>, !torch.vtensor<[1,4],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
  // CHECK: recurrent_diagnostics.mlir:[[# @LINE + 1]]:10: error: unnamed node (DynamicQuantizeLSTM, domain 'com.microsoft', opset 1): hidden_size 1 does not match R's dim 1 3
  %2:2 = torch.operator "com.microsoft.DynamicQuantizeLSTM"(%x, %w, %w, %none, %none, %none, %none, %none, %s, %z, %s, %z) {torch.onnx.hidden_size = 1 : si64} : (!torch.vtensor<[2,1,3],f32>, !torch.vtensor<[1,3,4],si8>, !torch.vtensor<[1,3,4],si8>, !torch.none, !torch.none, !torch.none, !torch.none, !torch.none, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>, !torch.vtensor<[1],f32>, !torch.vtensor<[1],si8>) -> (!torch.vtensor<[2,1,1,1],f32>, !torch.vtensor<[1,1,1],f32>)
  return
}
