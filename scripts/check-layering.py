#!/usr/bin/python3
"""Checks the layering of dlm's sources against the one table below (LAYERS).

Every C++ file git knows (.cpp, .h, .cu, .cuh, .def, .inc; tracked, or new and not ignored)
belongs to one layer, found from its path. Its #include lines are read, and each include of
another layer's file must be of a layer this one builds on:

  - a layer may include its own files and the files of every layer it builds on, directly or
    through other layers (the `deps` column, followed transitively); a layer marked `top`
    (repl/, tools/) sees only its listed deps, not through them: it goes through the driver;
  - runtime/ and kernels/ never include compiler/ or LLVM (an AOT executable links the runtime
    alone);
  - a few plain headers are shared by both sides and every layer may include them
    (SHARED_HEADERS: runtime/DType.h, the op table ops/Ops.def and ops/OpKind.h); they include no
    project file but each other, and no LLVM or ANTLR;
  - LLVM's Support headers (ADT, Support, Config, Demangle, LineEditor) are for the compiler
    side, its tools and tests; every other LLVM header (IR, ORC, passes, targets) only for
    compiler/codegen;
  - ANTLR's headers (its runtime and the parser generated from grammar/) only for grammar/ and
    compiler/frontend;
  - tests/ and bench/ may include any layer (each tests what it links), but obey the LLVM and
    ANTLR rules.

The `target_link_libraries` of every CMakeLists.txt outside tests/ and bench/ are checked with
the same rule, and `dlm_llvm()` (which links LLVM) may not name a runtime-side target.
docs/architecture.md's table of libraries must list the same layers, with the same
directories, targets and project dependencies (a row's backquoted `dlm_*` names), in the same
order.

Usage: scripts/check-layering.py [--root DIR] [--no-docs] [--no-cmake]
Prints each offending include as FILE:LINE: error: ... and exits 1 when there is any; 0 when the
tree agrees with the table. `make test` runs it (the ctest entry check-layering).
"""

import argparse
import fnmatch
import glob
import os
import re
import subprocess
import sys
from collections import namedtuple

Layer = namedtuple("Layer", "name targets paths deps top")


def layer(name, targets, paths, deps=(), top=False):
    return Layer(name, tuple(targets), tuple(paths), tuple(deps), top)


# The layers, bottom up: a layer builds only on layers above it in this table. `paths` are
# directories (ending in /) or files; a file belongs to the layer with the longest matching path.
# docs/architecture.md's table lists the same rows.
LAYERS = [
    layer("runtime", ["dlm_runtime", "dlm_runtime_portable"], ["runtime/", "kernels/cpu/"]),
    layer("exec", ["dlm_exec"], ["runtime/exec/"], ["runtime"]),
    layer("cuda", ["dlm_cuda_runtime", "dlm_cuda_kernels", "dlm_cuda_objects", "dlm_cuda_backend"],
          ["runtime/cuda/", "kernels/cuda/"], ["runtime"]),
    layer("devices", ["dlm_devices"], ["runtime/DeviceSelect.cpp", "runtime/DeviceSelect.h"],
          ["runtime"]),
    layer("support", ["dlm_support"], ["compiler/support/"]),
    layer("frontend", ["dlm_grammar", "dlm_frontend"], ["grammar/", "compiler/frontend/"],
          ["support"]),
    layer("ir", ["dlm_ir"], ["compiler/ir/"], ["support", "runtime"]),
    layer("sema", ["dlm_sema"], ["compiler/sema/"], ["frontend", "ir"]),
    layer("autodiff", ["dlm_autodiff"], ["compiler/autodiff/"], ["sema", "ir"]),
    layer("lower", ["dlm_lower"], ["compiler/lower/"], ["sema", "autodiff", "ir"]),
    layer("opt", ["dlm_opt"], ["compiler/opt/"], ["ir", "runtime"]),
    layer("engine", ["dlm_engine"], ["compiler/engine/"], ["ir", "exec"]),
    layer("codegen", ["dlm_codegen"], ["compiler/codegen/"], ["ir", "runtime"]),
    layer("driver", ["dlm_driver"], ["compiler/driver/"],
          ["frontend", "sema", "lower", "opt", "engine", "codegen", "devices"]),
    layer("embed", ["dlm_embed_objects", "dlm_embed", "dlm_shared"], ["embed/", "include/dlm/"],
          ["driver", "runtime"], top=True),
    layer("python", ["dlm_python"], ["python/"], ["embed"], top=True),
    layer("examples", ["embed_serve"], ["examples/"], ["embed"], top=True),
    layer("repl", ["dlm_repl"], ["repl/"], ["driver", "support", "runtime"], top=True),
    layer("tools", ["dlmc", "dlm"], ["tools/dlmc/", "tools/dlm/"], ["driver", "support", "repl"],
          top=True),
    layer("dlm-opt", ["dlm-opt"], ["tools/dlm-opt/"], ["ir", "opt", "support"], top=True),
]

# Includes of a layer by another that the table does not allow yet, each to be removed by the
# change named beside it. The script fails when one is no longer used, so that it goes with it.
TEMPORARY = {
    # (layer, layer it may use for now): "the change that removes it",
}

# Plain headers every layer may include, the runtime and the frontend included: the element
# types, and the op table under ops/ (DESIGN.md: one op table for compiler/, runtime/ and
# kernels/), which belongs to no layer. Each includes only the others and standard headers.
SHARED_HEADERS = ["runtime/DType.h", "ops/*.def", "ops/*.h"]

# Where files outside the layers may include any layer (they test or measure what they link).
FREE_PATHS = ["tests/", "bench/"]

SOURCE_SUFFIXES = (".cpp", ".h", ".cu", ".cuh", ".def", ".inc")
RUNTIME_SIDE = {"runtime", "exec", "cuda", "devices"}
LLVM_SUPPORT = ("llvm/ADT/", "llvm/Support/", "llvm/Config/", "llvm/Demangle/", "llvm/LineEditor/")
LLVM_CODEGEN_LAYERS = {"codegen"}
ANTLR_LAYERS = {"frontend"}
# Headers the antlr4 tool generates from grammar/Dlm.g4 (into the build tree).
GENERATED_GRAMMAR = re.compile(r"^Dlm(Lexer|Parser)\w*\.h$")
ANTLR_INCLUDE_DIRS = ["/usr/include/antlr4-runtime", "/usr/local/include/antlr4-runtime"]

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


class Table:
    def __init__(self, layers):
        self.layers = {l.name: l for l in layers}
        self.order = [l.name for l in layers]
        self.by_target = {t: l.name for l in layers for t in l.targets}

    def problems(self):
        """Rows that name unknown layers or build on a layer below them."""
        seen = set()
        out = []
        for l in self.layers.values():
            for d in l.deps:
                if d not in self.layers:
                    out.append(f"layer '{l.name}' builds on unknown layer '{d}'")
                elif d not in seen:
                    out.append(f"layer '{l.name}' builds on '{d}', which comes after it")
            seen.add(l.name)
        for (a, b) in TEMPORARY:
            if a not in self.layers or b not in self.layers:
                out.append(f"temporary allowance '{a}' -> '{b}' names an unknown layer")
        return out

    def layer_of(self, path):
        best, best_len = None, -1
        for l in self.layers.values():
            for p in l.paths:
                if (path == p or (p.endswith("/") and path.startswith(p))) and len(p) > best_len:
                    best, best_len = l.name, len(p)
        return best

    def reachable(self, name):
        """The layers `name` may use: its deps, followed transitively unless it is a top layer."""
        l = self.layers[name]
        if l.top:
            return set(l.deps)
        out, todo = set(), list(l.deps)
        while todo:
            d = todo.pop()
            if d not in out:
                out.add(d)
                todo.extend(self.layers[d].deps)
        return out

    def allows(self, frm, to):
        return frm == to or to in self.reachable(frm)

    def describe(self, name):
        deps = sorted(self.reachable(name), key=self.order.index)
        return ", ".join(deps) + " only" if deps else "no other layer"


def tracked_files(root):
    try:
        # Tracked files and new ones not yet added (but not the ignored: build trees).
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others",
                              "--exclude-standard"], check=True, capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
        if files:
            return sorted(f for f in files if os.path.isfile(os.path.join(root, f)))
    except (OSError, subprocess.CalledProcessError):
        pass
    files = []  # a source tree without git (an unpacked archive): everything outside build trees
    for dirpath, dirnames, filenames in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirnames[:] = [d for d in dirnames if not d.startswith((".", "build"))]
        for f in filenames:
            files.append(os.path.normpath(os.path.join(rel, f)))
    return sorted(files)


def is_shared(path):
    return any(fnmatch.fnmatch(path, p) for p in SHARED_HEADERS)


def is_antlr(header, antlr_dirs):
    if header == "antlr4-runtime.h" or GENERATED_GRAMMAR.match(os.path.basename(header)):
        return True
    return any(os.path.isfile(os.path.join(d, header)) for d in antlr_dirs)


class Checker:
    def __init__(self, root, table, antlr_dirs):
        self.root = root
        self.table = table
        self.antlr_dirs = antlr_dirs
        self.errors = []
        self.used_temporary = set()

    def error(self, where, message):
        self.errors.append(f"{where}: error: {message}")

    def permits(self, frm, to):
        """Whether layer `frm` may use layer `to`, by the table or a temporary allowance."""
        if to is None or self.table.allows(frm, to):
            return True
        if (frm, to) in TEMPORARY:
            self.used_temporary.add((frm, to))
            return True
        return False

    def resolve(self, includer, quote, header, files):
        """The tracked file an include names, or None for a header from elsewhere."""
        if quote == '"':
            local = os.path.normpath(os.path.join(os.path.dirname(includer), header))
            if local in files:
                return local
        return header if header in files else None

    def check_file(self, path, files):
        frm = self.table.layer_of(path)
        free = any(path.startswith(p) for p in FREE_PATHS)
        if frm is None and not free and not is_shared(path):
            self.error(path, "file belongs to no layer: add its directory to a row of LAYERS in "
                             "scripts/check-layering.py and docs/architecture.md's table")
            return
        try:
            with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError as e:
            self.error(path, f"cannot read: {e.strerror}")
            return
        for number, text in enumerate(lines, 1):
            m = INCLUDE.match(text)
            if m:
                self.check_include(f"{path}:{number}", path, frm, m.group(1), m.group(2), files)

    def check_include(self, where, path, frm, quote, header, files):
        who = f"'{os.path.dirname(path)}'"
        target = self.resolve(path, quote, header, files)
        if is_shared(path) and (target is not None and not is_shared(target) or
                                target is None and header.startswith(("llvm", "antlr"))):
            self.error(where, f"'{path}' is shared by every layer; it may include only the "
                              f"other shared headers and standard ones, not '{header}'")
            return
        if target is not None:
            if frm is None or is_shared(target):
                return
            to = self.table.layer_of(target)
            if self.permits(frm, to):
                return
            self.error(where, f"{who} ({frm}) may not include '{target}' ({to}): {frm} builds "
                              f"on {self.table.describe(frm)}")
            return
        if header.startswith(("llvm/", "llvm-c/")):
            if frm in RUNTIME_SIDE:
                self.error(where, f"{who} ({frm}) may not include LLVM ('{header}'): the "
                                  "runtime never depends on LLVM")
            elif not header.startswith(LLVM_SUPPORT) and frm not in LLVM_CODEGEN_LAYERS:
                self.error(where, f"{who} may not include '{header}': LLVM headers other than "
                                  "its Support library belong to compiler/codegen")
            return
        if is_antlr(header, self.antlr_dirs) and frm not in ANTLR_LAYERS:
            self.error(where, f"{who} may not include the ANTLR header '{header}': ANTLR "
                              "types never leave compiler/frontend")

    def check_unused_temporary(self):
        for (a, b), why in sorted(TEMPORARY.items()):
            if (a, b) not in self.used_temporary:
                self.error("scripts/check-layering.py",
                           f"the temporary allowance '{a}' -> '{b}' ({why}) is no longer "
                           "used: remove it from TEMPORARY")


# --- CMake ---------------------------------------------------------------------------------

CMAKE_CALL = re.compile(r"\b(target_link_libraries|dlm_llvm)\s*\(([^)]*)\)", re.S)


def check_cmake(checker, files):
    table = checker.table
    for path in files:
        if not (path.endswith("CMakeLists.txt") or path.endswith(".cmake")):
            continue
        if any(path.startswith(p) for p in FREE_PATHS):
            continue
        with open(os.path.join(checker.root, path), encoding="utf-8") as f:
            text = f.read()
        code = re.sub(r"#[^\n]*", lambda m: " " * len(m.group(0)), text)  # comments out
        def line(pos):
            return f"{path}:{code.count(chr(10), 0, pos) + 1}"

        for m in CMAKE_CALL.finditer(code):
            words = [(w.group(0), m.start(2) + w.start()) for w in re.finditer(r"\S+", m.group(2))]
            if not words:
                continue
            frm = table.by_target.get(words[0][0])
            if frm is None:
                continue
            if m.group(1) == "dlm_llvm":
                if frm in RUNTIME_SIDE:
                    checker.error(line(m.start()), f"'{words[0][0]}' ({frm}) may not link LLVM: "
                                                   "the runtime never depends on LLVM")
                continue
            for word, pos in words[1:]:
                where = line(pos)
                to = table.by_target.get(word)
                if checker.permits(frm, to):
                    continue
                checker.error(where, f"'{words[0][0]}' ({frm}) may not link '{word}' ({to}): "
                                     f"{frm} builds on {table.describe(frm)}")


# --- docs/architecture.md --------------------------------------------------------------------

def docs_rows(text):
    """The rows of the table whose header starts with '| directory | CMake target |'."""
    rows, inside = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("| directory | CMake target |"):
            inside = True
            continue
        if not inside:
            continue
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or set(cells[0]) <= set("-: "):
            continue
        ticks = [re.findall(r"`([^`]+)`", c) for c in cells[:3]]
        rows.append((number, ticks[0], ticks[1], [t for t in ticks[2] if re.match(r"^dlm_\w+$", t)]))
    return rows


def check_docs(checker, docs_path):
    table = checker.table
    rel = os.path.relpath(docs_path, checker.root)
    try:
        with open(docs_path, encoding="utf-8") as f:
            rows = docs_rows(f.read())
    except OSError as e:
        checker.error(rel, f"cannot read: {e.strerror}")
        return
    if not rows:
        checker.error(rel, "no table with the header '| directory | CMake target | depends on |'")
        return
    seen = []
    for number, dirs, targets, deps in rows:
        where = f"{rel}:{number}"
        names = {table.layer_of(d.rstrip("*")) for d in dirs} - {None}
        if len(names) != 1:
            checker.error(where, f"the row's directories {dirs} are not one layer of "
                                 "scripts/check-layering.py's LAYERS")
            continue
        name = names.pop()
        l = table.layers[name]
        seen.append(name)
        if sorted(d.rstrip("*") for d in dirs) != sorted(l.paths):
            checker.error(where, f"layer '{name}' owns {list(l.paths)} in "
                                 f"scripts/check-layering.py, the row lists {dirs}")
        if set(targets) != set(l.targets):
            checker.error(where, f"layer '{name}' has the targets {sorted(l.targets)} in "
                                 f"scripts/check-layering.py, the row lists {sorted(targets)}")
        doc_deps = set()
        for t in deps:
            if t not in table.by_target:
                checker.error(where, f"'{t}' is no target of scripts/check-layering.py's LAYERS")
            elif table.by_target[t] != name:  # the row may name its own targets
                doc_deps.add(table.by_target[t])
        if doc_deps != set(l.deps):
            checker.error(where, f"layer '{name}' builds on {sorted(l.deps)} in "
                                 f"scripts/check-layering.py, the row says {sorted(doc_deps)}")
    if seen != [n for n in table.order if n in seen] or set(seen) != set(table.order):
        checker.error(rel, f"the table's rows {seen} are not the layers of "
                           f"scripts/check-layering.py in its order {table.order}")


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.dirname(here), help="the source tree")
    ap.add_argument("--docs", help="the architecture page (default ROOT/docs/architecture.md)")
    ap.add_argument("--no-docs", action="store_true", help="skip the comparison with the docs")
    ap.add_argument("--no-cmake", action="store_true", help="skip the CMake target links")
    ap.add_argument("--antlr-include", action="append", default=[],
                    help="a directory of ANTLR runtime headers (default: the system's)")
    args = ap.parse_args(argv)
    root = os.path.abspath(args.root)

    table = Table(LAYERS)
    problems = table.problems()
    if problems:
        for p in problems:
            print(f"scripts/check-layering.py: error: {p}", file=sys.stderr)
        return 1
    antlr_dirs = args.antlr_include or [d for d in ANTLR_INCLUDE_DIRS if os.path.isdir(d)]
    checker = Checker(root, table, antlr_dirs)
    files = tracked_files(root)
    file_set = set(files)
    sources = [f for f in files if f.endswith(SOURCE_SUFFIXES) and "/Inputs/" not in f]
    for path in sources:
        checker.check_file(path, file_set)
    if not args.no_cmake:
        check_cmake(checker, files)
    checker.check_unused_temporary()
    if not args.no_docs:
        check_docs(checker, args.docs or os.path.join(root, "docs", "architecture.md"))
    for e in checker.errors:
        print(e, file=sys.stderr)
    if checker.errors:
        print(f"check-layering: {len(checker.errors)} error(s); the layers are in "
              "scripts/check-layering.py (LAYERS) and docs/architecture.md", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
