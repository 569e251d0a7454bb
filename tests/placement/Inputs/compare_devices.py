"""Runs dlm programs unplaced (--device=cpu) and placed for the testing device (--device=fake:
host memory under another name, the CUDA backend's op coverage, Send/Recv copying tensors) on
one engine, and fails when the outputs differ in any way (stdout, stderr, exit status): the
fake device runs the CPU kernels, so placement and the transfers must not change a bit. Also
prints how many Send/Recv pairs placement inserted (from `dlmc --emit=opt --device=fake`, which
the verifier has checked), so a test can tell that the programs really were partitioned. The
fake runs use --placement-cost=off, so even small programs are partitioned as far as the op
table allows; the count with the copy-cost rule (the default) follows in parentheses.

usage: compare_devices.py BIN_DIR ENGINE PROGRAM...
"""
import os
import subprocess
import sys


def run(bin_dir, engine, device, program):
    p = subprocess.run([os.path.join(bin_dir, "dlm"), "run", "--engine=" + engine,
                        "--device=" + device] + (["--placement-cost=off"] if device != "cpu" else []) + [program], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def transfers(bin_dir, program, cost):
    p = subprocess.run([os.path.join(bin_dir, "dlmc"), "--emit=opt", "--device=fake",
                        "--placement-cost=" + cost, program],
                       capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return "dlmc failed: " + p.stderr
    return sum(1 for line in p.stdout.splitlines() if " = Send(" in line)


def main():
    bin_dir, engine, programs = sys.argv[1], sys.argv[2], sys.argv[3:]
    failures = 0
    for program in programs:
        name = os.path.basename(program)
        want = run(bin_dir, engine, "cpu", program)
        got = run(bin_dir, engine, "fake", program)
        if got != want:
            failures += 1
            print(f"{name}: --device=fake differs from --device=cpu")
            print(f"  cpu: status {want[0]}\n{want[1]}{want[2]}")
            print(f"  fake: status {got[0]}\n{got[1]}{got[2]}")
            continue
        print(f"{name}: same output, {transfers(bin_dir, program, 'off')} transfers "
              f"({transfers(bin_dir, program, 'on')} with the copy-cost rule)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
