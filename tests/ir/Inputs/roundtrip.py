"""Round-trip check over every .dlmir file under a directory (see tests/ir/roundtrip.test)."""
import difflib
import pathlib
import subprocess
import sys


def run(tool, args, text=None):
    return subprocess.run([tool] + args, input=text, capture_output=True, text=True)


def canonical(path):
    lines = path.read_text().splitlines()
    return "\n".join(l for l in lines if l.strip() and not l.lstrip().startswith("//")) + "\n"


def check(path, tool):
    text = path.read_text()
    expect_failure = "not %dlm-opt" in text
    args = ["--print-locs"] if "loc(" in text else []
    first = run(tool, args + [str(path)])
    if expect_failure:
        if first.returncode == 0:
            return f"{path}: a negative test that dlm-opt accepts"
        return None
    if first.returncode != 0:
        return f"{path}: dlm-opt failed:\n{first.stderr}"
    want = canonical(path)
    if first.stdout != want:
        diff = difflib.unified_diff(want.splitlines(), first.stdout.splitlines(),
                                    "written", "printed", lineterm="")
        return f"{path}: print(parse(t)) != t\n" + "\n".join(diff)
    second = run(tool, args + ["-"], first.stdout)
    if second.returncode != 0 or second.stdout != first.stdout:
        return f"{path}: printing is not a fixed point\n{second.stderr}"
    return None


# What lowering rejects by design (docs/ir.md "Lowering"), not by mistake.
DOCUMENTED_LIMITS = ["cannot be lowered to a graph (calls are inlined)",
                     "the graph lowering does not support 'grad' yet"]


def check_lowered(path, dlmc, tool):
    """The graph dlmc lowers a program to prints back unchanged through dlm-opt; a program that
    passes sema and autodiff must lower."""
    for args in ([], ["--print-locs"]):
        lowered = run(dlmc, ["--emit=graph"] + args + [str(path)])
        if lowered.returncode != 0:
            before = run(dlmc, ["--emit=grad-ssa", str(path)])
            if before.returncode != 0 and "internal error" not in before.stderr:
                return None  # a program sema or autodiff rejects (a diagnostics test)
            if any(limit in lowered.stderr for limit in DOCUMENTED_LIMITS):
                return None
            return f"{path}: sema accepts it but lowering fails:\n{lowered.stderr}"
        again = run(tool, args + ["-"], lowered.stdout)
        if again.returncode != 0 or again.stdout != lowered.stdout:
            return f"{path}: the lowered graph does not round-trip {args}\n{again.stderr}"
    return None


def main():
    if sys.argv[1] == "--lowered":
        root, dlmc, tool = pathlib.Path(sys.argv[2]), sys.argv[3], sys.argv[4]
        files = sorted(root.rglob("*.dlm"))
        failures = [msg for msg in (check_lowered(f, dlmc, tool) for f in files) if msg]
        for msg in failures:
            print(msg)
        print(f"{len(files)} .dlm files, {len(failures)} failing")
        return 1 if failures or not files else 0
    root, tool = pathlib.Path(sys.argv[1]), sys.argv[2]
    files = sorted(root.rglob("*.dlmir"))
    if not files:
        print("no .dlmir files found under", root)
        return 1
    failures = [msg for msg in (check(f, tool) for f in files) if msg]
    for msg in failures:
        print(msg)
    print(f"{len(files)} .dlmir files, {len(failures)} failing")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
