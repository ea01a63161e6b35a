// RUN: not onnx-mlir-opt %s --split-input-file --convert-onnx-to-torch 2>&1 | FileCheck %s

// A node on the path from xs to y without a gradient rule: named, never differentiated wrongly.
// CHECK: error: node 'grad' (Gradient, domain 'ai.onnx.preview.training', opset 1): node 'soft' (Softmax, domain 'ai.onnx', opset 17) is on the path from xs to y, and Softmax has no gradient rule (supported: Add,
func.func @no_rule(%x: !torch.vtensor<[2,3],f32> {onnx.name = "x"}) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  %y = torch.operator "onnx.Softmax"(%x) {onnx_output_names = ["y"]} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> loc("soft")
  %g = torch.operator "ai.onnx.preview.training.Gradient"(%x) {torch.onnx.xs = ["x"], torch.onnx.y = "y"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> loc("grad")
  return %g : !torch.vtensor<[2,3],f32>
}

// -----

// IR without the importer's tensor names (torch-mlir's importer, or hand-written).
// CHECK: error: node 'grad' (Gradient, domain 'ai.onnx.preview.training', opset 1): y names tensor 'y', which is not in the graph (only this project's importer keeps the names of tensors a Gradient reads; import the model with it)
func.func @unnamed_y(%x: !torch.vtensor<[2,3],f32> {onnx.name = "x"}) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  %y = torch.operator "onnx.Exp"(%x) : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %g = torch.operator "ai.onnx.preview.training.Gradient"(%x) {torch.onnx.xs = ["x"], torch.onnx.y = "y"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> loc("grad")
  return %g : !torch.vtensor<[2,3],f32>
}

// -----

// The gradient at another value than the tensor x names (the spec's "gradient at H_1").
// CHECK: error: node 'grad' (Gradient, domain 'ai.onnx.preview.training', opset 1): input 0 is not the tensor 'x' it stands for: the gradient at other values than the graph's own would need the graph evaluated again, which is not supported
func.func @other_value(%x: !torch.vtensor<[2,3],f32> {onnx.name = "x"}, %x1: !torch.vtensor<[2,3],f32> {onnx.name = "x1"}) -> !torch.vtensor<[2,3],f32> attributes {torch.onnx_meta.opset_version = 17 : si64, torch.onnx_meta.opset_versions = {ai.onnx.preview.training = 1 : si64}} {
  %y = torch.operator "onnx.Exp"(%x) {onnx_output_names = ["y"]} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32>
  %g = torch.operator "ai.onnx.preview.training.Gradient"(%x1) {torch.onnx.xs = ["x"], torch.onnx.y = "y"} : (!torch.vtensor<[2,3],f32>) -> !torch.vtensor<[2,3],f32> loc("grad")
  return %g : !torch.vtensor<[2,3],f32>
}
