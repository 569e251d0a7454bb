#!/usr/bin/python3
"""Regenerates the CHECK lines of dlm golden tests from the tool's output, like LLVM's
update_test_checks.py.

    /usr/bin/python3 scripts/update-checks.py [--build-dir build] tests/frontend/ast-if.dlm ...

For each test file, the first RUN line of the form `%dlmc ... %s | FileCheck %s` (or %dlm-opt)
is run with the tool from BUILD_DIR/bin; the old `# CHECK` lines (`// CHECK` in .dlmir files)
are removed and new ones appended at the end of the file: the first output line worth
checking becomes `CHECK:`, the rest `CHECK-NEXT:`. Lines naming the input file (the dump's
`Module '...'` header) are skipped because the path differs between machines.

The result pins everything the tool printed. Read the diff and trim it like code: keep the
lines the test is about (STYLE.md).
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOLS = ["dlmc", "dlm-opt", "dlm"]


def comment_prefix(path):
    return "//" if path.endswith(".dlmir") else "#"


def find_run_line(lines, prefix):
    for line in lines:
        m = re.match(r"\s*" + re.escape(prefix) + r"\s*RUN:\s*(.*)$", line)
        if m and "FileCheck" in m.group(1) and "|" in m.group(1):
            return m.group(1)
    return None


def command_for(run, path, build_dir):
    command = run.split("|")[0].strip()
    for tool in TOOLS:
        command = command.replace("%" + tool + " ", os.path.join(build_dir, "bin", tool) + " ")
    command = command.replace("%s", shlex.quote(path)).replace("%S", shlex.quote(os.path.dirname(path)))
    return command


def escape_check(text):
    # FileCheck treats [[ and {{ specially; match them literally through a regex block.
    return text.replace("{{", "{{[{][{]}}").replace("[[", "{{[[][[]}}")


def update(path, build_dir):
    prefix = comment_prefix(path)
    with open(path) as f:
        lines = f.read().split("\n")
    run = find_run_line(lines, prefix)
    if run is None:
        print(f"{path}: no '%tool ... | FileCheck' RUN line, skipped", file=sys.stderr)
        return False
    env = dict(os.environ, NO_COLOR="1")
    result = subprocess.run(command_for(run, path, build_dir), shell=True, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    output = [l for l in result.stdout.split("\n") if l.strip() and not l.startswith("Module '")]
    kept = [l for l in lines if not re.match(r"\s*" + re.escape(prefix) + r"\s*CHECK", l)]
    while kept and kept[-1] == "":
        kept.pop()
    checks = [f"{prefix} CHECK{'' if i == 0 else '-NEXT'}: {escape_check(l.rstrip())}"
              for i, l in enumerate(output)]
    with open(path, "w") as f:
        f.write("\n".join(kept + [""] + checks) + "\n")
    print(f"{path}: {len(checks)} CHECK lines")
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    parser.add_argument("tests", nargs="+")
    args = parser.parse_args()
    ok = all([update(os.path.abspath(t), os.path.abspath(args.build_dir)) for t in args.tests])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
