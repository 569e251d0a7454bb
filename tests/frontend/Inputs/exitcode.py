"""Runs a command, passes its stdout and stderr through, then prints "exit=N" (N = its exit
status) so that a lit test can FileCheck an exact exit status (lit's `not` only knows zero
versus non-zero)."""
import subprocess
import sys

result = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(result.stdout)
print(f"exit={result.returncode}")
