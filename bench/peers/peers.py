"""dlm against JAX jit, torch.compile, TF tf.function and PyTorch eager, one core each, side by side.

    bench/peers/peers.py [--bin build/bin] [--venv build/peers-venv] [--select default|all|quick]
                         [--family lstm,gru,...] [--rounds 5] [--json FILE] [--emit DIR]

Run it with the venv's Python (bench/peers/setup.sh builds the venv; bench/run.sh, i.e. `make
bench`, does both). For each case (bench/peers/workloads: a family, a size and a formulation):

1. Inputs: the initial weights and data are written once (numpy, seeded) into the case's folder
   as safetensors; every side reads them (dlm with `load(..., like=...)`).
2. Gate: dlm runs the program for `gate_iters` training iterations from an empty object cache
   (its stages before the run are dlm's compile time) and prints the loss; each peer builds its
   twin, calls it once (its first call, tracing and compiling included, is reported), resets to
   the initial weights, runs the same iterations and computes the loss. A peer whose loss
   differs from dlm's by more than atol + rtol * |dlm's| fails the gate and is not timed (the
   tolerance is per case, stated in the table; default rtol 2e-4, atol 1e-5).
3. Rounds, interleaved: in each round dlm runs the program with `iters` iterations and with 0
   (per iteration: the difference of the CPU times of their `run` stages, from --time-passes,
   divided by `iters`), then each peer runs enough iterations for ~0.25 s. Median and best over
   the rounds, CPU time of the whole process (every thread it has counts).

Every process runs under `taskset -c 0` with one thread: DLM_NUM_THREADS=1 (and OpenBLAS's and
OpenMP's), and in the peers what bench/peers/worker.py sets. Timings are reported, never asserted.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from workloads import common  # noqa: E402

FAMILIES = ("lstm", "gru", "scalar", "mlp", "cnn", "attention", "epoch")
MODULES = ("recurrent", "scalar", "mlp", "cnn", "attention", "epoch")
PIN = ["taskset", "-c", "0"]
ROUND_SECONDS = 0.25
LABEL = {"dlm": "dlm", "jax": "JAX jit", "torch_compile": "torch.compile", "tf": "TF tf.function",
         "torch_eager": "PyTorch eager"}


def one_thread_env():
    env = dict(os.environ)
    for var in ("DLM_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[var] = "1"
    return env


# --- dlm --------------------------------------------------------------------------------------

def dlm_run(bin_dir, program, cwd, env):
    """Runs `dlm run --time-passes program`; returns (stdout, {stage: (wall ms, cpu ms)})."""
    p = subprocess.run(PIN + [os.path.join(bin_dir, "dlm"), "run", "--time-passes", program], cwd=cwd, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("dlm run %s failed (%d): %s" % (program, p.returncode, p.stderr[-2000:]))
    stages = {m.group(1): (float(m.group(2)), float(m.group(3)))
              for m in re.finditer(r"time: (\S+)\s+([\d.]+) ms \(cpu ([\d.]+) ms\)", p.stderr)}
    return p.stdout, stages


def last_number(text):
    """The loss a program printed last: `tensor(0.123)`, `0.123` or `... accuracy 0.8812`."""
    found = re.findall(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|inf", text.strip().splitlines()[-1])
    return float(found[-1])


# --- the peers' processes ---------------------------------------------------------------------

class Worker:
    def __init__(self, venv, framework, env):
        self.framework = framework
        self.proc = subprocess.Popen(PIN + [os.path.join(venv, "bin", "python"), os.path.join(HERE, "worker.py"),
                                            framework], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, text=True)

    def ask(self, **req):
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the %s worker died" % self.framework)
        return json.loads(line)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


# --- one case ---------------------------------------------------------------------------------

def prepare(case, module, root):
    case.dir = os.path.join(root, re.sub(r"[^A-Za-z0-9]+", "-", case.key).strip("-"))
    os.makedirs(case.dir, exist_ok=True)
    module.write_inputs(case, case.dir)
    for label, iters in (("gate", case.gate_iters), ("n", case.iters), ("zero", 0)):
        with open(os.path.join(case.dir, "%s.dlm" % label), "w") as f:
            f.write(module.dlm_source(case, iters))


def gate_ok(case, loss, ref):
    return loss == loss and abs(loss - ref) <= case.atol + case.rtol * abs(ref)


def measure(case, module, args, workers, env, log):
    res = {"case": case.to_json(), "sides": {}}
    cold = tempfile.mkdtemp(prefix="dlm-cache-")
    try:
        out, stages = dlm_run(args.bin, "gate.dlm", case.dir, dict(env, DLM_CACHE_DIR=cold))
    except RuntimeError as e:
        res["sides"]["dlm"] = {"error": str(e)}
        log("  dlm: %s" % str(e).splitlines()[0])
        return res
    finally:
        shutil.rmtree(cold, ignore_errors=True)
    ref = last_number(out)
    compile_ms = sum(w for k, (w, _) in stages.items() if k != "run")
    res["sides"]["dlm"] = {"gate_loss": ref, "compile_ms": compile_ms, "cpu": [], "wall": []}
    log("  dlm: loss %.7g, compile %.0f ms" % (ref, compile_ms))
    timed = {}
    for side in case.sides[1:]:
        if side not in args.sides:
            continue
        w = workers.get(common.FRAMEWORK[side])
        if w is None:
            continue
        r = w.ask(op="build", key=case.key + side, side=side, case=case.to_json())
        if "error" in r:
            res["sides"][side] = {"error": r["error"]}
            log("  %s: build failed: %s" % (side, r["error"].strip().splitlines()[-1]))
            continue
        r["gate"] = gate_ok(case, r["gate_loss"], ref)
        r["cpu"], r["wall"] = [], []
        res["sides"][side] = r
        log("  %s: loss %.7g (%s), first call %.0f ms" % (side, r["gate_loss"], "gate ok" if r["gate"] else "GATE FAILED",
                                                          r["first_wall_ms"]))
        if r["gate"]:
            timed[side] = max(1, min(2000, int(ROUND_SECONDS * 1e3 / max(r["estimate_ms"], 1e-3))))
    env = dict(env, DLM_CACHE_DIR=args.cache)
    for _ in range(args.rounds):
        _, n = dlm_run(args.bin, "n.dlm", case.dir, env)
        _, z = dlm_run(args.bin, "zero.dlm", case.dir, env)
        d = res["sides"]["dlm"]
        d["cpu"].append((n["run"][1] - z["run"][1]) / case.iters)
        d["wall"].append((n["run"][0] - z["run"][0]) / case.iters)
        for side, iters in timed.items():
            t = workers[common.FRAMEWORK[side]].ask(op="time", key=case.key + side, iters=iters)
            if "error" in t:
                res["sides"][side]["error"] = t["error"]
                continue
            res["sides"][side]["cpu"].append(t["cpu_ms"])
            res["sides"][side]["wall"].append(t["wall_ms"])
    for side in timed:
        workers[common.FRAMEWORK[side]].ask(op="drop", key=case.key + side)
    for side, r in res["sides"].items():
        if r.get("cpu"):
            r["median_ms"], r["best_ms"] = statistics.median(r["cpu"]), min(r["cpu"])
            if side != "dlm":
                r["compile_ms"] = max(0.0, r["first_wall_ms"] - statistics.median(r["wall"]))
    return res


# --- the table --------------------------------------------------------------------------------

def cell(r, unit=None):
    if r is None:
        return "—"
    if "error" in r and not r.get("cpu"):
        return "error"
    if r.get("gate") is False:
        return "gate ✗ (%.6g)" % r["gate_loss"]
    if not r.get("cpu"):
        return "—"
    med, best = r["median_ms"], r["best_ms"]
    if unit:
        return "%.1f (%.1f) %s" % (med * 1e6 / unit[1], best * 1e6 / unit[1], unit[0])
    fmt = "%.3f (%.3f)" if med < 10 else "%.1f (%.1f)"
    return fmt % (med, best)


def table(results, sides):
    lines = ["| workload | formulation | " + " | ".join(LABEL[s] for s in sides) + " | best peer / dlm | compile or first call, ms: "
             + ", ".join(LABEL[s] for s in sides) + " |",
             "|---|---|" + "---|" * len(sides) + "---|---|"]
    for res in results:
        case = common.Case.from_json(res["case"])
        unit = tuple(res["case"].get("unit") or ()) or None
        row = [res["sides"].get(s) for s in sides]
        dlm = res["sides"].get("dlm", {})
        peers = [r["median_ms"] for s, r in res["sides"].items() if s != "dlm" and r.get("median_ms")]
        ratio = "%.2fx" % (min(peers) / dlm["median_ms"]) if peers and dlm.get("median_ms") else "—"
        comp = ", ".join("%.0f" % r["compile_ms"] if r and r.get("compile_ms") is not None else "—" for r in row)
        lines.append("| %s %s | %s | %s | %s | %s |" % (case.family, case.size, case.form or "—",
                                                         " | ".join(cell(r, unit) for r in row), ratio, comp))
    return "\n".join(lines)


def cliffs(results, sides):
    """Per family and size, each side's slowest formulation over its fastest (median times)."""
    groups = {}
    for res in results:
        c = res["case"]
        groups.setdefault((c["family"], c["size"]), []).append(res)
    lines = ["| workload | formulations | " + " | ".join(LABEL[s] for s in sides) + " |",
             "|---|---|" + "---|" * len(sides)]
    for (family, size), rs in groups.items():
        if len(rs) < 2:
            continue
        cells = []
        for s in sides:
            t = [(r["sides"][s]["median_ms"], r["case"]["form"]) for r in rs if r["sides"].get(s, {}).get("median_ms")]
            if len(t) < 2:
                cells.append("—")
                continue
            (lo, lo_f), (hi, hi_f) = min(t), max(t)
            cells.append("**%.2fx** (%s / %s)" % (hi / lo, hi_f, lo_f) if hi / lo > 1.25 else "%.2fx" % (hi / lo))
        lines.append("| %s %s | %d | %s |" % (family, size, len(rs), " | ".join(cells)))
    return "\n".join(lines)


def machine():
    model = re.search(r"Model name:\s*(.*)", subprocess.run(["lscpu"], capture_output=True, text=True).stdout)
    up = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    return "%d cores, %s; %s UTC; uptime: %s" % (os.cpu_count(), model.group(1) if model else "?",
                                               time.strftime("%Y-%m-%d %H:%M", time.gmtime()), up)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/bin")
    ap.add_argument("--venv", default="build/peers-venv")
    ap.add_argument("--select", default="default", choices=("quick", "default", "all"))
    ap.add_argument("--family", default=",".join(FAMILIES))
    ap.add_argument("--match", default="", help="only cases whose name contains this")
    ap.add_argument("--sides", default=",".join(common.SIDES))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--compile-match", default="",
                    help="comma-separated: torch.compile only the cases whose name contains one of these")
    ap.add_argument("--json", help="write every measurement here")
    ap.add_argument("--emit", help="write each case's inputs and .dlm programs under this folder and stop")
    args = ap.parse_args()
    args.bin = os.path.abspath(args.bin)
    args.sides = args.sides.split(",")
    families = args.family.split(",")

    import importlib
    cases = []
    for name in MODULES:
        module = importlib.import_module("workloads." + name)
        cases += [(c, module) for c in module.cases(args.select) if c.family in families and args.match in c.key]
    if args.compile_match:
        keep = args.compile_match.split(",")
        for case, _ in cases:
            if not any(k in case.key for k in keep):
                case.sides = tuple(s for s in case.sides if s != "torch_compile")
    root = os.path.abspath(args.emit) if args.emit else tempfile.mkdtemp(prefix="dlm-peers-")
    for case, module in cases:
        prepare(case, module, root)
    if args.emit:
        print("%d cases written under %s" % (len(cases), root))
        return

    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    env = one_thread_env()
    args.cache = tempfile.mkdtemp(prefix="dlm-cache-")
    # torch.compile's caches start empty, so its first calls are cold compiles like dlm's.
    env["TORCHINDUCTOR_CACHE_DIR"] = tempfile.mkdtemp(prefix="inductor-")
    workers = {}
    for fw in sorted({common.FRAMEWORK[s] for s in args.sides if s != "dlm"}):
        workers[fw] = Worker(args.venv, fw, env)
    info = {"machine": machine(), "dlm": subprocess.run(["git", "-C", HERE, "describe", "--always", "--dirty"],
                                                        capture_output=True, text=True).stdout.strip()}
    if workers:
        info["versions"] = next(iter(workers.values())).ask(op="versions")
    print("machine: %s; dlm %s; peers %s" % (info["machine"], info["dlm"], json.dumps(info.get("versions", {}))))
    print("one core (taskset -c 0), one thread each; CPU ms per training iteration, median (best) of %d "
          "interleaved rounds" % args.rounds, flush=True)
    results = []
    sides = [s for s in common.SIDES if s in args.sides]
    try:
        for case, module in cases:
            log("== %s" % case.key)
            res = measure(case, module, args, workers, env, log)
            res["case"]["unit"] = case.unit
            results.append(res)
            # Each row as soon as it is measured (a long run can be read, or stopped, midway).
            log(table([res], sides).splitlines()[-1])
            if args.json:
                with open(args.json, "w") as f:
                    json.dump({"info": info, "results": results}, f, indent=1)
    finally:
        for w in workers.values():
            w.close()
        shutil.rmtree(env["TORCHINDUCTOR_CACHE_DIR"], ignore_errors=True)
        shutil.rmtree(args.cache, ignore_errors=True)
        if not args.emit:
            shutil.rmtree(root, ignore_errors=True)
    print()
    print(table(results, sides))
    print()
    print("Formulation spread (slowest / fastest formulation of one workload and size, median times; "
          "bold: over 1.25x):")
    print()
    print(cliffs(results, sides))


if __name__ == "__main__":
    main()
