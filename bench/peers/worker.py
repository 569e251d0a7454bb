"""One peer framework's process for bench/peers/peers.py, run by the venv's Python.

    worker.py jax|torch|tf      serve requests, one JSON object a line on stdin, replies on stdout
    worker.py --check           each peer (in a process of its own) compiles and runs a function,
                                torch.compile's inductor included (setup.sh)

Threads are set to one before the framework is imported (the caller also pins the process to
one core with taskset):
  jax:   XLA_FLAGS="--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
  torch: torch.set_num_threads(1), torch.set_num_interop_threads(1), inductor compiling in
         this process (TORCHINDUCTOR_COMPILE_THREADS=1)
  tf:    tf.config.threading inter- and intra-op parallelism 1
OMP_NUM_THREADS=1 for all.

Requests:
  {"op": "build", "key": K, "side": S, "case": {...}}: builds the side's runner for the case,
      times its first call (tracing and compiling included), resets it to the initial weights,
      runs the gate's iterations and returns {"first_wall_ms", "first_cpu_ms", "gate_loss",
      "estimate_ms"} (estimate: CPU ms of one iteration after the first, for sizing the rounds)
  {"op": "time", "key": K, "iters": N}: N iterations; returns per-iteration {"cpu_ms", "wall_ms"}
  {"op": "drop", "key": K}
A failure is returned as {"error": traceback} and the process goes on.
"""
import gc
import importlib
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def one_thread(framework):
    os.environ["OMP_NUM_THREADS"] = "1"
    if framework == "jax":
        os.environ["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
    elif framework == "torch":
        os.environ["TORCHINDUCTOR_COMPILE_THREADS"] = "1"
        import torch
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    elif framework == "tf":
        os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
        import tensorflow as tf
        tf.config.threading.set_inter_op_parallelism_threads(1)
        tf.config.threading.set_intra_op_parallelism_threads(1)


def versions():
    """The peers' package versions, read without importing them."""
    from importlib import metadata
    out = {}
    for name in ("jax", "jaxlib", "tensorflow-cpu", "torch", "numpy"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def check_one(framework):
    one_thread(framework)
    if framework == "jax":
        import jax
        import jax.numpy as jnp
        assert float(jax.jit(lambda x: jnp.sum(x * 2.0))(jnp.ones(3))) == 6.0
    elif framework == "tf":
        import tensorflow as tf
        assert float(tf.function(lambda x: tf.reduce_sum(x * 2.0))(tf.ones(3))) == 6.0
    else:
        import torch
        f = torch.compile(lambda x: torch.sin(x) * 2.0 + x)
        x = torch.randn(16)
        torch.testing.assert_close(f(x), torch.sin(x) * 2.0 + x)
    print("%s ok: %s" % (framework, json.dumps({k: v for k, v in versions().items() if v})))


def check():
    """Each framework in a process of its own, as the harness runs them: JAX's, TensorFlow's
    and triton's LLVM copies do not load into one process ('registered more than once')."""
    import subprocess
    failed = [fw for fw in ("jax", "tf", "torch")
              if subprocess.run([sys.executable, os.path.abspath(__file__), "--check-one", fw]).returncode != 0]
    if failed:
        sys.exit("peers that failed: " + ", ".join(failed))


def serve(framework):
    # The replies go to the original stdout; anything the frameworks print (from Python or C)
    # goes to stderr, so it cannot corrupt them.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    one_thread(framework)
    sys.path.insert(0, HERE)
    from workloads import common
    runners = {}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if req["op"] == "build":
                case = common.Case.from_json(req["case"])
                module = importlib.import_module("workloads." + case.module)
                w0, c0 = time.perf_counter(), time.process_time()
                runner = module.build(req["side"], case, case.dir)
                runner.step()
                runner.sync()
                reply = {"first_wall_ms": (time.perf_counter() - w0) * 1e3,
                         "first_cpu_ms": (time.process_time() - c0) * 1e3}
                c0 = time.process_time()
                runner.step()
                runner.sync()
                reply["estimate_ms"] = (time.process_time() - c0) * 1e3
                runner.reset()
                for _ in range(case.gate_iters):
                    runner.step()
                reply["gate_loss"] = runner.loss()
                runner.reset()
                runners[req["key"]] = runner
            elif req["op"] == "time":
                runner = runners[req["key"]]
                n = req["iters"]
                w0, c0 = time.perf_counter(), time.process_time()
                for _ in range(n):
                    runner.step()
                runner.sync()
                reply = {"cpu_ms": (time.process_time() - c0) * 1e3 / n,
                         "wall_ms": (time.perf_counter() - w0) * 1e3 / n}
            elif req["op"] == "drop":
                runners.pop(req["key"], None)
                gc.collect()
                reply = {}
            elif req["op"] == "versions":
                reply = versions()
            else:
                reply = {"error": "unknown op %r" % req["op"]}
        except Exception:  # noqa: BLE001 - reported to the harness, which marks the side failed
            reply = {"error": traceback.format_exc()}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    if sys.argv[1:] == ["--check"]:
        check()
    elif sys.argv[1] == "--check-one":
        check_one(sys.argv[2])
    else:
        serve(sys.argv[1])
