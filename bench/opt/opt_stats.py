"""Node counts before and after the optimizer's pipelines, and planned memory, per program.

usage: /usr/bin/python3 bench/opt/opt_stats.py BUILD_DIR PROGRAM.dlm...

For each program: lower it (dlmc --emit=graph), count the nodes, run dlm-opt at -O1, -O2 and -O3
and count again, and once more after fuse-elementwise on the -O2 graph; then run plan-memory on the -O2 graph and report the bytes every tensor would
take in its own buffer (unplanned) against the planned arena. Prints a Markdown table.
"""
import os
import re
import subprocess
import sys


def sh(args, stdin=None):
    p = subprocess.run(args, input=stdin, capture_output=True, text=True, check=True)
    return p.stdout, p.stderr


def count_nodes(dlmir):
    return sum(1 for line in dlmir.splitlines() if re.match(r"\s+%", line))


def main():
    build, programs = sys.argv[1], sys.argv[2:]
    dlmc, opt = os.path.join(build, "bin", "dlmc"), os.path.join(build, "bin", "dlm-opt")
    print("| program | nodes lowered | -O1 | -O2 | -O3 | -O2 + fuse-elementwise | fused groups | bytes unplanned (-O2) | bytes planned | in-place | unknown-size tensors |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for prog in programs:
        graph, _ = sh([dlmc, "--emit=graph", prog])
        counts = [count_nodes(graph)]
        for level in ("-O1", "-O2", "-O3", "--passes=fuse-elementwise"):
            out, err = sh([opt, "-", level, "--stats"], stdin=o2 if level.startswith("--") else graph)
            counts.append(count_nodes(out))
            if level == "-O2":
                o2 = out
            if level.startswith("--"):
                groups = re.search(r"fuse-elementwise\.groups = (\d+)", err)
        _, err = sh([opt, "-", "--passes=plan-memory", "--stats"], stdin=o2)
        stat = dict(re.findall(r"plan-memory\.([a-z-]+) = (\d+)", err))
        print(f"| {os.path.basename(prog)} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} | {counts[4]} | "
              f"{groups.group(1) if groups else 0} | {stat['bytes-unplanned']} | {stat['bytes-planned']} | "
              f"{stat['in-place']} | {stat['unknown-size-values']} |")


if __name__ == "__main__":
    main()
