# Writes a small source tree for tests/scripts/check-layering.test: files in the layers of
# scripts/check-layering.py, each including what its name says (Ok*: allowed; Bad*: not), and
# docs/architecture.md copied from the real tree. Usage: layering-tree.py SRC_ROOT OUT_DIR, or
# layering-tree.py --break-docs OUT_DIR: the engine's row in OUT_DIR's docs names dlm_lower too.
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
if src == "--break-docs":
    docs = os.path.join(out, "docs", "architecture.md")
    with open(docs) as f:
        text = f.read()
    row = "| `dlm_ir`, `dlm_exec`: hands"
    assert row in text
    with open(docs, "w") as f:
        f.write(text.replace(row, "| `dlm_ir`, `dlm_exec`, `dlm_lower`: hands"))
    sys.exit(0)
shutil.rmtree(out, ignore_errors=True)


def write(path, *includes, text=None):
    full = os.path.join(out, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        f.write(text if text is not None else
                "// " + path + "\n" + "".join(f"#include {i}\n" for i in includes))


os.makedirs(os.path.join(out, "docs"))
shutil.copy(os.path.join(src, "docs", "architecture.md"), os.path.join(out, "docs"))
for header in ["runtime/DType.h", "runtime/Tensor.h", "runtime/exec/Executor.h",
               "compiler/support/Diagnostics.h", "compiler/frontend/AST.h",
               "compiler/ir/Graph.h", "compiler/sema/Sema.h", "compiler/opt/FusedOp.h",
               "compiler/driver/Driver.h", "repl/Repl.h"]:
    write(header)
# Allowed: a stage sees its deps followed through; the shared DType.h; LLVM Support; ANTLR in
# the frontend; a test includes any layer; a relative include within one directory.
write("compiler/frontend/OkParse.cpp", '"DlmParser.h"', '"antlr4-runtime.h"', '"runtime/DType.h"',
      '"llvm/Support/raw_ostream.h"', '"AST.h"')
write("compiler/lower/OkLower.cpp", '"compiler/frontend/AST.h"', '"compiler/ir/Graph.h"',
      '"runtime/Tensor.h"', '<vector>')
write("compiler/codegen/OkCodegen.cpp", '"llvm/IR/IRBuilder.h"', '"runtime/Tensor.h"')
write("tools/dlmc/OkTool.cpp", '"compiler/driver/Driver.h"', '"compiler/support/Diagnostics.h"')
write("tests/opt/OkTest.cpp", '"compiler/opt/FusedOp.h"', '"compiler/driver/Driver.h"')
# Not allowed.
write("compiler/codegen/BadCodegen.cpp", '"compiler/ir/Graph.h"', '"compiler/opt/FusedOp.h"')
write("runtime/BadRuntime.h", '"runtime/Tensor.h"', '"llvm/ADT/StringRef.h"',
      '"compiler/ir/Graph.h"')
write("compiler/sema/BadSema.cpp", '"llvm/IR/Module.h"', '"compiler/driver/Driver.h"')
write("compiler/ir/BadIr.cpp", '"DlmLexer.h"', '"compiler/frontend/AST.h"')
write("tools/dlmc/BadTool.cpp", '"compiler/sema/Sema.h"')
write("tests/sema/BadTest.cpp", '"DlmParser.h"')
write("runtime/exec/BadExec.cpp", '"runtime/exec/Executor.h"', '"compiler/support/Diagnostics.h"')
write("ops/Ops.def", '"compiler/ir/Graph.h"')
write("misc/BadNowhere.cpp", '"runtime/DType.h"')
write("compiler/codegen/CMakeLists.txt", text="# codegen\nadd_library(dlm_codegen STATIC x.cpp)\n"
      "target_link_libraries(dlm_codegen PUBLIC dlm_ir # the IR\n"
      "                      dlm_opt)\ndlm_llvm(dlm_codegen)\n")
write("runtime/CMakeLists.txt", text="add_library(dlm_runtime STATIC x.cpp)\ndlm_llvm(dlm_runtime)\n")
