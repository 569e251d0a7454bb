# RUN: %dlmc --emit=ast %s | FileCheck %s
# Every annotation form: scalar types; bare Tensor; a shape with constant and symbolic
# (capitalised) dimensions; a leading dtype; dtype alone; tuples written (...) and
# tuple[...], nested; (T) is just T.
def f(a: int, b: float, c: bool, d: str, e: Tensor, g: Tensor[784, 10], h: Tensor[B, 784],
      i: Tensor[f64, N], j: Tensor[i64], k: (Tensor, (int, float)), l: tuple[Tensor[N], bool],
      m: (int), n: ()):
    pass

# CHECK:   FunctionDef 'f' <5:1-8:9>
# CHECK-NEXT:     Param 'a' <5:7-5:13>
# CHECK-NEXT:       type: ScalarType int <5:10-5:13>
# CHECK-NEXT:     Param 'b' <5:15-5:23>
# CHECK-NEXT:       type: ScalarType float <5:18-5:23>
# CHECK-NEXT:     Param 'c' <5:25-5:32>
# CHECK-NEXT:       type: ScalarType bool <5:28-5:32>
# CHECK-NEXT:     Param 'd' <5:34-5:40>
# CHECK-NEXT:       type: ScalarType str <5:37-5:40>
# CHECK-NEXT:     Param 'e' <5:42-5:51>
# CHECK-NEXT:       type: TensorType <5:45-5:51>
# CHECK-NEXT:     Param 'g' <5:53-5:71>
# CHECK-NEXT:       type: TensorType [784, 10] <5:56-5:71>
# CHECK-NEXT:     Param 'h' <5:73-5:90>
# CHECK-NEXT:       type: TensorType [B, 784] <5:76-5:90>
# CHECK-NEXT:     Param 'i' <6:7-6:24>
# CHECK-NEXT:       type: TensorType f64 [N] <6:10-6:24>
# CHECK-NEXT:     Param 'j' <6:26-6:40>
# CHECK-NEXT:       type: TensorType i64 <6:29-6:40>
# CHECK-NEXT:     Param 'k' <6:42-6:67>
# CHECK-NEXT:       type: TupleType <6:45-6:67>
# CHECK-NEXT:         TensorType <6:46-6:52>
# CHECK-NEXT:         TupleType <6:54-6:66>
# CHECK-NEXT:           ScalarType int <6:55-6:58>
# CHECK-NEXT:           ScalarType float <6:60-6:65>
# CHECK-NEXT:     Param 'l' <6:69-6:94>
# CHECK-NEXT:       type: TupleType <6:72-6:94>
# CHECK-NEXT:         TensorType [N] <6:78-6:87>
# CHECK-NEXT:         ScalarType bool <6:89-6:93>
# CHECK-NEXT:     Param 'm' <7:7-7:15>
# CHECK-NEXT:       type: ScalarType int <7:11-7:14>
# CHECK-NEXT:     Param 'n' <7:17-7:22>
# CHECK-NEXT:       type: TupleType <7:20-7:22>
# CHECK-NEXT:     body:
# CHECK-NEXT:       Pass <8:5-8:9>
