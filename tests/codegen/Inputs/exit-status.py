"""exit-status.py N CMD ARGS...: runs CMD, passes its stdout and stderr through, and fails
unless it exits with status N (lit's `not` only says "non-zero")."""
import subprocess
import sys

want = int(sys.argv[1])
p = subprocess.run(sys.argv[2:], capture_output=True, text=True)
sys.stdout.write(p.stdout)
sys.stdout.write(p.stderr)
if p.returncode != want:
    sys.stdout.write("exit-status.py: expected exit status %d, got %d\n" % (want, p.returncode))
    sys.exit(1)
