"""Node counts before and after the optimizer's pipelines, what the graph passes did, and planned
memory, per program.

usage: /usr/bin/python3 bench/opt/opt_stats.py BUILD_DIR PROGRAM.dlm...

For each program: lower it (dlmc --emit=graph), count the nodes, run dlm-opt at -O1, -O2 and -O3
and count again; from -O2's --stats, the stacks ad-stacks removed, the matmuls fuse-horizontal
merged, the matmul_bias and conv2d_bias nodes fuse-library made and the fused groups of fuse-elementwise (when
the pipeline runs it); then plan-memory on the -O2 graph: the bytes every tensor would take in
its own buffer (unplanned) against the planned arena (the planned peak); and remat on the -O2
graph with a budget of half that peak: the planned peak after it. Prints a Markdown table.
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


def stat(stderr, name):
    m = re.search(re.escape(name) + r" = (\d+)", stderr)
    return int(m.group(1)) if m else 0


def main():
    build, programs = sys.argv[1], sys.argv[2:]
    dlmc, opt = os.path.join(build, "bin", "dlmc"), os.path.join(build, "bin", "dlm-opt")
    print("| program | nodes lowered | -O1 | -O2 | -O3 | stacks removed | matmuls merged (horizontal) "
          "| matmul_bias (of which relu) | conv2d_bias (of which relu) | fused groups | bytes unplanned (-O2) | planned peak | planned peak after remat "
          "(budget: half) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for prog in programs:
        try:
            graph, _ = sh([dlmc, "--emit=graph", prog])
        except subprocess.CalledProcessError as e:
            print(f"| {os.path.basename(prog)} | does not compile: {e.stderr.splitlines()[0]} |")
            continue
        counts = [count_nodes(graph)]
        for level in ("-O1", "-O2", "-O3"):
            out, err = sh([opt, "-", level, "--stats"], stdin=graph)
            counts.append(count_nodes(out))
            if level == "-O2":
                o2, o2stats = out, err
        _, err = sh([opt, "-", "--passes=plan-memory", "--stats"], stdin=o2)
        unplanned, planned = stat(err, "plan-memory.bytes-unplanned"), stat(err, "plan-memory.bytes-planned")
        _, err = sh([opt, "-", "--passes=remat", "--remat-budget=%d" % max(1, planned // 2), "--stats"],
                    stdin=o2)
        after = stat(err, "remat.peak-bytes-after")
        print(f"| {os.path.basename(prog)} | {counts[0]} | {counts[1]} | {counts[2]} | {counts[3]} | "
              f"{stat(o2stats, 'ad-stacks.stacks-removed')} | {stat(o2stats, 'fuse-horizontal.matmuls-fused')} | "
              f"{stat(o2stats, 'fuse-library.matmul-bias')} ({stat(o2stats, 'fuse-library.matmul-bias-relu')}) | "
              f"{stat(o2stats, 'fuse-library.conv2d-bias')} ({stat(o2stats, 'fuse-library.conv2d-bias-relu')}) | "
              f"{stat(o2stats, 'fuse-elementwise.groups')} | "
              f"{unplanned} | {planned} | {after} |")


if __name__ == "__main__":
    main()
