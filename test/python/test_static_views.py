"""A view of a static tensor typed with a `?` gets its static type before the Linalg lowering
(transforms/linalg/static_views.py): torch-mlir's lowering faulted on it (fuzzer, seed 1 mutation 3343)."""

import subprocess
import sys
import textwrap

_CHECK = textwrap.dedent('''
    import numpy as np
    from torch_mlir import ir
    from onnx_torch_mlir.mlir_context import make_context
    from onnx_torch_mlir.pipelines import lower_torch_to_backend
    from onnx_torch_mlir.runtime import compile_for_cpu

    SOURCE = """
    func.func @f(%a: !torch.vtensor<[2,3,1,18,8],f32>, %b: !torch.vtensor<[2,3,6,?],f32>,
                 %c: !torch.vtensor<[2,3,4,18],f32>) -> !torch.vtensor<[2,3,4,?],f32> {
      %int2 = torch.constant.int 2
      %int3 = torch.constant.int 3
      %int18 = torch.constant.int 18
      %d = torch.aten.size.int %b, %int3 : !torch.vtensor<[2,3,6,?],f32>, !torch.int -> !torch.int
      %l = torch.prim.ListConstruct %int2, %int3, %int18, %d : (!torch.int, !torch.int, !torch.int, !torch.int) -> !torch.list<int>
      %v = torch.aten.view %a, %l : !torch.vtensor<[2,3,1,18,8],f32>, !torch.list<int> -> !torch.vtensor<[2,3,18,?],f32>
      %m = torch.aten.matmul %c, %v : !torch.vtensor<[2,3,4,18],f32>, !torch.vtensor<[2,3,18,?],f32> -> !torch.vtensor<[2,3,4,?],f32>
      return %m : !torch.vtensor<[2,3,4,?],f32>
    }
    """
    with make_context():
        module = ir.Module.parse(SOURCE)
        lower_torch_to_backend(module, "linalg-on-tensors")
        program = compile_for_cpu(module)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((2, 3, 1, 18, 8)).astype(np.float32)
    b = np.zeros((2, 3, 6, 8), np.float32)
    c = rng.standard_normal((2, 3, 4, 18)).astype(np.float32)
    (result,) = program(a, b, c)
    np.testing.assert_allclose(result, c @ a.reshape(2, 3, 18, 8), rtol=1e-5, atol=1e-5)
    print("matches")
''')


def test_a_view_typed_with_a_size_its_element_count_fixes_lowers_and_computes():
    # In a child process: the fault this guards against kills the process.
    done = subprocess.run([sys.executable, "-c", _CHECK], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().endswith("matches")
