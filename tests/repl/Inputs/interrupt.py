"""Sends SIGINT to dlm while a program runs (usage: interrupt.py DLM_BINARY PROGRAM.dlm).

1. The REPL on piped stdin: an input that loops forever is stopped ("interrupted"), the session
   keeps the values from before that input, and later inputs run. The SIGINT is sent after the
   input before the loop has printed, so it lands while the loop input is read, compiled or
   run; in each case that input is the one stopped.
2. `dlm run` (JIT and graph engine): SIGINT ends the process at once (status 130 in a shell).
"""
import signal
import subprocess
import sys
import threading
import time

dlm, program = sys.argv[1], sys.argv[2]


def default_sigint():
    """Test runners (lit) start tests with SIGINT ignored, which dlm, like Python, keeps."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def session(inputs_before, endless, inputs_after):
    p = subprocess.Popen([dlm], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, preexec_fn=default_sigint)
    p.stdin.write(inputs_before + 'print("started")\n' + endless)
    p.stdin.flush()
    watchdog = threading.Timer(60, p.kill)  # a failure to stop must not hang the test
    watchdog.start()
    assert p.stdout.readline().strip() == "started"
    time.sleep(0.3)
    p.send_signal(signal.SIGINT)
    p.stdin.write(inputs_after)
    p.stdin.close()
    out = p.stdout.read()
    p.wait()
    watchdog.cancel()
    print(out, end="")
    print("exit status", p.returncode)

print("== top-level loop")
session("total = 5\nx = ones(3)\n",
        "while total > 0:\n    total = total + 1\n    x = x * 1.0\n\n",
        "total\nx\ntotal + 1\n")
print("== loop inside a def")
session("def spin(n):\n    while n > 0:\n        n = n + 1\n    return n\n\nk = 2\n",
        "k = spin(k)\n",
        "k\n")
for engine in ["jit", "graph"]:
    p = subprocess.Popen([dlm, "run", "--engine=" + engine, program],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         preexec_fn=default_sigint)
    time.sleep(1.0)
    p.send_signal(signal.SIGINT)
    try:
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
    print("== dlm run --engine=%s: %s" % (engine, "killed by SIGINT" if p.returncode == -signal.SIGINT
                                           else "exit status %d" % p.returncode))
