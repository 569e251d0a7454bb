"""Runs dlm programs at several -O levels on one engine and fails when any level's output
(stdout, stderr and exit status) differs from -O0's.

usage: compare_levels.py DLM ENGINE LEVELS PROGRAM...   (LEVELS like 0,2,3)
"""
import subprocess
import sys


def run(dlm, engine, level, program):
    p = subprocess.run([dlm, "run", "--engine=" + engine, "-O" + level, program],
                       capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    dlm, engine, levels, programs = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4:]
    failures = 0
    for program in programs:
        reference = run(dlm, engine, levels[0], program)
        for level in levels[1:]:
            got = run(dlm, engine, level, program)
            if got != reference:
                failures += 1
                print(f"{program}: -O{level} differs from -O{levels[0]}")
                print(f"  -O{levels[0]}: status {reference[0]}\n{reference[1]}{reference[2]}")
                print(f"  -O{level}: status {got[0]}\n{got[1]}{got[2]}")
        print(f"{program}: {len(levels)} levels agree" if failures == 0 else "")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
