#!/usr/bin/python3
"""Whole-pipeline mutation fuzzing of dlm (docs/testing.md "Fuzzing").

    dlmfuzz.py BIN_DIR --seed S --count N [--jobs J] [--timeout T] [--levels 0,1,2,3] [--aot]
               [--keep DIR] [--progress N] [-v] FILES...

Makes N mutants of the .dlm programs FILES at the token level, so that most of them still parse
and reach sema, autodiff, lowering, the optimizer and both engines: numbers swapped (shape dims,
0, -1, huge), built-in and stdlib names swapped for others, dtypes, operators and keyword values
swapped, statements and call arguments dropped or duplicated, loop bounds changed, calls wrapped
in grad(...), value_and_grad(...), checkpoint(...) or stop_gradient(...), lines wrapped in
if/while/for, prints of intermediate values inserted, lines spliced from other programs.

Each mutant runs with `dlm run` on the JIT and on the graph executor, at each of --levels (-O0
and -O3 unless told), each in a fresh working directory, with the object cache off, the IR
verifier on, one thread, a memory limit (of the address space; under a sanitizer, which needs
terabytes of it, the sanitizer's allocator limits) and a CPU-time limit. Mutants run --jobs at a
time; mutant I of a seed is the same whatever --count and --jobs are. A mutant fails when
  - a run ends with a status other than 0 or 1 (a signal, 2, 70 = internal error), or its stderr
    holds "internal error", an assertion, a sanitizer report or an LLVM stack dump;   [crash]
  - a run that ends with status 1 gives no located diagnostic first
    ("FILE:LINE:COL: error: ..." or "error: ...");                                   [diagnostic]
  - the runs disagree by scripts/dlm-diff.py's rules (same status; on success the same
    output within its tolerance; on failure the same first stderr line and the same
    output before it);                                                        [disagreement]
  - a run passes the time limit while `dlmc --emit=opt` of the same mutant (compilation only)
    does too: the compiler hangs.                                                          [hang]
    (A run that is slow only when it runs, e.g. a loop bound made huge, is counted, not failed.)
  - this script fails on it (an exception: a bug of the mutator, a fork that fails): the
    campaign goes on, and the traceback is kept with the mutant.                      [tool-error]

Prints one line per failure ("FAIL class: mutant I of FILE: detail"), then a summary with the
count of mutants by outcome, then "ok" when nothing failed. With --keep DIR every failing mutant
is written to DIR with its runs' outputs. Deterministic for a given seed and file list.
"""
import argparse
import importlib.util
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
_spec = importlib.util.spec_from_file_location("dlm_diff", os.path.join(SRC, "scripts", "dlm-diff.py"))
dlm_diff = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(dlm_diff)

TOKEN = re.compile(r"""\s+|#.*|"[^"\n]*"|'[^'\n]*'|\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+(?:[eE][-+]?\d+)?"""
                   r"""|[A-Za-z_]\w*|\*\*|//|[<>=!]=|[-+*/]=|.""")
NUMBER = re.compile(r"^(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)$")
NAME = re.compile(r"^[A-Za-z_]\w*$")

NUMBERS = ["0", "1", "2", "3", "-1", "-2", "5", "7", "16", "100", "0.0", "0.5", "-1.5", "1e-30",
           "1e30", "1e308", "1000000", "100000000000", "9223372036854775807", "-9223372036854775808"]
GROUPS = [
    ["abs", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "relu", "stop_gradient", "size",
     "len", "float", "int", "bool", "transpose", "softmax", "log_softmax", "norm"],
    ["maximum", "minimum", "pow", "matmul", "dot", "mse", "cross_entropy", "gather", "max_pool2d",
     "avg_pool2d", "dropout", "concat", "stack", "split", "chunk", "broadcast_to", "expand_dims",
     "squeeze", "astype", "reshape", "conv2d"],
    ["sum", "mean", "max", "min", "logsumexp", "norm", "argmax", "softmax", "log_softmax"],
    ["zeros", "ones", "randn", "rand", "eye", "arange", "randperm", "full", "tensor", "seed"],
    ["grad", "value_and_grad", "checkpoint"],
    ["where", "clip", "conv2d"],
    ["sgd", "momentum", "adam", "adamw", "zeros_like", "adam_init", "global_norm", "clip_by_global_norm"],
    ["linear", "mlp", "mlp3", "lstm_cell", "gru_cell", "layer_norm", "batch_norm", "conv", "loss",
     "accuracy", "init_linear", "init_mlp", "init_lstm", "init_gru", "he_normal", "xavier_uniform",
     "uniform"],
    ["cross_entropy_loss", "nll", "mse_loss", "accuracy", "rounded", "onehot", "one_hot", "batch",
     "shuffle", "shuffle_rows", "num_batches"],
]
DTYPES = ["f32", "f64", "i32", "i64", "bool"]
BINOPS = ["+", "-", "*", "/", "//", "%", "**", "@"]
CMPOPS = ["<", "<=", ">", ">=", "==", "!="]
KEYWORDS = {"def", "return", "if", "elif", "else", "while", "for", "in", "range", "break",
            "continue", "pass", "assert", "import", "and", "or", "not", "True", "False", "print"}
TRANSFORMS = ["{v}[::-1]", "{v}.T", "reshape({v}, -1)", "{v} * 0.0", "{v}[0]", "{v}[:1]", "{v}[1:]",
              "expand_dims({v}, 0)", "stop_gradient({v})", "{v}.astype(f64)", "{v} + {v}", "-{v}",
              "{v} / 0.0", "log({v})", "sum({v}, axis=0)", "transpose({v})", "concat(({v}, {v}), 0)",
              "{v}[-1]", "relu({v})", "maximum({v}, {v})", "where({v} > 0.0, {v}, 0.0 * {v})",
              "mean({v}, axis=-1, keepdims=True)", "{v} @ {v}", "{v} ** 2", "exp({v})", "sqrt({v})"]
WRAPPERS = ["grad", "value_and_grad", "checkpoint", "stop_gradient", "grad(grad"]
CONDITIONS = ["True", "False", "1 < 2", "{v} > 0", "sum({v}) > 0.0", "mean({v}) < 0.5", "len({v}) > 1"]


def tokens(line):
    return TOKEN.findall(line)


def indent_of(line):
    return line[:len(line) - len(line.lstrip(" "))]


class Mutator:
    def __init__(self, rng, corpus):
        self.rng = rng
        self.corpus = corpus

    def mutate(self, lines):
        lines = list(lines)
        ops = [self.number, self.number, self.name, self.name, self.dtype, self.operator,
               self.drop_line, self.dup_line, self.drop_arg, self.dup_arg, self.loop_bound,
               self.wrap_call, self.wrap_block, self.insert_print, self.swap_var, self.keyword,
               self.splice, self.insert_op, self.insert_op]
        for _ in range(self.rng.choice([1, 1, 2, 2, 3, 4])):
            for _attempt in range(20):
                new = self.rng.choice(ops)(lines)
                if new is not None and new != lines:
                    lines = new
                    break
        return lines

    # -- helpers --
    def code_lines(self, lines):
        return [i for i, l in enumerate(lines) if l.strip() and not l.strip().startswith("#")]

    def pick_token(self, lines, pred):
        spots = [(i, j) for i in self.code_lines(lines) for j, t in enumerate(tokens(lines[i])) if pred(t)]
        return self.rng.choice(spots) if spots else None

    def replace_token(self, lines, spot, text):
        i, j = spot
        toks = tokens(lines[i])
        toks[j] = text
        out = list(lines)
        out[i] = "".join(toks)
        return out

    def variables(self, lines):
        names = []
        for i in self.code_lines(lines):
            m = re.match(r"\s*([A-Za-z_]\w*)\s*(?:=|\+=|-=|\*=|/=)(?!=)", lines[i])
            if m and m.group(1) not in names:
                names.append(m.group(1))
        return names or ["x"]

    def block_end(self, lines, i):
        """The index after the block that starts at line i (or after line i alone)."""
        ind = len(indent_of(lines[i]))
        j = i + 1
        if lines[i].rstrip().endswith(":"):
            while j < len(lines) and (not lines[j].strip() or len(indent_of(lines[j])) > ind):
                j += 1
        return j

    # -- mutations --
    def number(self, lines):
        spot = self.pick_token(lines, lambda t: NUMBER.match(t))
        return spot and self.replace_token(lines, spot, self.rng.choice(NUMBERS))

    def name(self, lines):
        known = {n: g for g in GROUPS for n in g}
        spot = self.pick_token(lines, lambda t: t in known)
        if not spot:
            return None
        tok = tokens(lines[spot[0]])[spot[1]]
        group = known[tok] if self.rng.random() < 0.7 else self.rng.choice(GROUPS)
        return self.replace_token(lines, spot, self.rng.choice(group))

    def dtype(self, lines):
        spot = self.pick_token(lines, lambda t: t in DTYPES)
        if spot:
            return self.replace_token(lines, spot, self.rng.choice(DTYPES))
        # add a dtype= to a creation call
        spot = self.pick_token(lines, lambda t: t in ("zeros", "ones", "randn", "arange", "eye", "tensor"))
        if not spot:
            return None
        i, j = spot
        toks = tokens(lines[i])
        depth, k = 0, j + 1
        while k < len(toks):
            depth += toks[k] == "(" or toks[k] == "["
            depth -= toks[k] == ")" or toks[k] == "]"
            if depth == 0 and toks[k] == ")":
                toks[k] = ", dtype=%s)" % self.rng.choice(DTYPES)
                out = list(lines)
                out[i] = "".join(toks)
                return out
            k += 1
        return None

    def operator(self, lines):
        spot = self.pick_token(lines, lambda t: t in BINOPS or t in CMPOPS)
        if not spot:
            return None
        tok = tokens(lines[spot[0]])[spot[1]]
        return self.replace_token(lines, spot, self.rng.choice(BINOPS if tok in BINOPS else CMPOPS))

    def drop_line(self, lines):
        cand = [i for i in self.code_lines(lines) if not lines[i].rstrip().endswith(":")]
        if not cand:
            return None
        i = self.rng.choice(cand)
        return lines[:i] + lines[i + 1:]

    def dup_line(self, lines):
        cand = self.code_lines(lines)
        if not cand:
            return None
        i = self.rng.choice(cand)
        j = self.block_end(lines, i)
        return lines[:j] + lines[i:j] + lines[j:]

    def call_args(self, toks, j):
        """Argument token ranges of the call whose '(' is toks[j]."""
        args, depth, start = [], 0, j + 1
        for k in range(j, len(toks)):
            if toks[k] in "([":
                depth += 1
            elif toks[k] in ")]":
                depth -= 1
                if depth == 0:
                    if k > start:
                        args.append((start, k))
                    return args
            elif toks[k] == "," and depth == 1:
                args.append((start, k))
                start = k + 1
        return None

    def arg_spot(self, lines):
        spots = []
        for i in self.code_lines(lines):
            toks = tokens(lines[i])
            for j, t in enumerate(toks):
                if t == "(" and j > 0 and NAME.match(toks[j - 1]):
                    args = self.call_args(toks, j)
                    if args:
                        spots.append((i, toks, args))
        return self.rng.choice(spots) if spots else None

    def drop_arg(self, lines):
        spot = self.arg_spot(lines)
        if not spot:
            return None
        i, toks, args = spot
        a, b = self.rng.choice(args)
        if b < len(toks) and toks[b] == ",":
            b += 1
        elif a > 0 and toks[a - 1] == "," and len(args) > 1:
            a -= 1
        out = list(lines)
        out[i] = "".join(toks[:a] + toks[b:])
        return out

    def dup_arg(self, lines):
        spot = self.arg_spot(lines)
        if not spot:
            return None
        i, toks, args = spot
        a, b = self.rng.choice(args)
        at = self.rng.choice(args)[1]
        out = list(lines)
        out[i] = "".join(toks[:at] + [", "] + toks[a:b] + toks[at:])
        return out

    def loop_bound(self, lines):
        cand = [i for i in self.code_lines(lines) if re.search(r"\brange\s*\(|\bwhile\b", lines[i])]
        if not cand:
            return None
        i = self.rng.choice(cand)
        out = list(lines)
        if "range" in lines[i]:
            new = self.rng.choice(["0", "1", "-1", "3", "0, 0", "5, 0, -1", "2, 7, 2", "1, 1"])
            out[i] = re.sub(r"\brange\s*\([^:]*\)", "range(%s)" % new, lines[i], count=1)
        else:
            m = re.match(r"(\s*while\s+)(.*):\s*$", lines[i])
            if not m:
                return None
            cond = self.rng.choice(["False", "(%s) and False", "not (%s)", "(%s) or False"])
            out[i] = m.group(1) + (cond % m.group(2) if "%s" in cond else cond) + ":"
        return out

    def wrap_call(self, lines):
        spots = []
        for i in self.code_lines(lines):
            toks = tokens(lines[i])
            for j, t in enumerate(toks):
                if NAME.match(t) and t not in KEYWORDS and j + 1 < len(toks) and toks[j + 1] == "(" \
                        and (j == 0 or toks[j - 1] != "."):
                    spots.append((i, j))
        if not spots:
            return None
        i, j = self.rng.choice(spots)
        toks = tokens(lines[i])
        w = self.rng.choice(WRAPPERS)
        if w == "stop_gradient":
            # call_args is None when the call's ')' is on a later line (a call over several
            # lines, or a '(' an earlier mutation left open): no end to close the wrapper at.
            args = self.call_args(toks, j + 1)
            if args is None:
                return None
            end = args[-1][1] if args else j + 2
            while toks[end] != ")":
                end += 1
            toks[j] = "stop_gradient(" + toks[j]
            toks[end] = toks[end] + ")"
        elif w == "grad(grad":
            toks[j] = "grad(grad(%s))" % toks[j]
        else:
            extra = self.rng.choice(["", "", ", argnums=1", ", argnums=(0, 1)"]) if w != "checkpoint" else ""
            toks[j] = "%s(%s%s)" % (w, toks[j], extra)
        out = list(lines)
        out[i] = "".join(toks)
        return out

    def wrap_block(self, lines):
        cand = self.code_lines(lines)
        if not cand:
            return None
        i = self.rng.choice(cand)
        if lines[i].lstrip().startswith(("elif", "else", "def ", "import", "return")) and self.rng.random() < 0.8:
            return None
        j = self.block_end(lines, i)
        ind = indent_of(lines[i])
        v = self.rng.choice(self.variables(lines[:i]) or ["x"])
        kind = self.rng.randrange(4)
        body = ["    " + l if l.strip() else l for l in lines[i:j]]
        if kind == 0:
            head = [ind + "if %s:" % self.rng.choice(CONDITIONS).format(v=v)]
            tail = [ind + "else:", ind + "    pass"] if self.rng.random() < 0.3 else []
        elif kind == 1:
            head = [ind + "for _fz in range(%d):" % self.rng.choice([0, 1, 2])]
            tail = []
        elif kind == 2:
            head = [ind + "_fz = 0", ind + "while _fz < %d:" % self.rng.choice([0, 1, 2]), ind + "    _fz += 1"]
            tail = []
        else:
            head = [ind + "_fz = 0", ind + "while _fz < 3:", ind + "    _fz += 1"]
            tail = [ind + "    if _fz > 1:", ind + "        break"]
        return lines[:i] + head + body + tail + lines[j:]

    def insert_print(self, lines):
        cand = [i for i in self.code_lines(lines) if re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", lines[i])]
        if not cand:
            return None
        i = self.rng.choice(cand)
        name = re.match(r"\s*([A-Za-z_]\w*)", lines[i]).group(1)
        what = self.rng.choice(["{n}", "{n}", "{n}.shape", "sum({n})", "\"v\", {n}"]).format(n=name)
        return lines[:i + 1] + [indent_of(lines[i]) + "print(%s)" % what] + lines[i + 1:]

    def insert_op(self, lines):
        """After `v = ...`, one more op on v: a view, a cast, a reduction, a shape change."""
        cand = [i for i in self.code_lines(lines) if re.match(r"\s*[A-Za-z_]\w*\s*=(?!=)", lines[i])]
        if not cand:
            return None
        i = self.rng.choice(cand)
        name = re.match(r"\s*([A-Za-z_]\w*)", lines[i]).group(1)
        op = self.rng.choice(TRANSFORMS).format(v=name)
        return lines[:i + 1] + [indent_of(lines[i]) + "%s = %s" % (name, op)] + lines[i + 1:]

    def swap_var(self, lines):
        names = self.variables(lines)
        spot = self.pick_token(lines, lambda t: t in names)
        return spot and self.replace_token(lines, spot, self.rng.choice(names))

    def keyword(self, lines):
        spot = self.pick_token(lines, lambda t: t in ("axis", "keepdims", "argnums", "stride", "padding", "dtype",
                                                        "True", "False", "like"))
        if not spot:
            return None
        i, j = spot
        toks = tokens(lines[i])
        t = toks[j]
        if t in ("True", "False"):
            toks[j] = "False" if t == "True" else "True"
        else:
            k = j + 1
            while k < len(toks) and toks[k].isspace():
                k += 1
            if k + 1 >= len(toks) or toks[k] != "=":
                return None
            k += 1
            while k < len(toks) and toks[k].isspace():
                k += 1
            if k < len(toks) and toks[k] == "-" and k + 1 < len(toks):
                toks[k] = ""
                k += 1
            if k < len(toks):
                toks[k] = self.rng.choice(["0", "1", "-1", "2", "5", "(0, 1)", "True", "f64", "i64", "(1, 0)", "()"])
        out = list(lines)
        out[i] = "".join(toks)
        return out

    def splice(self, lines):
        other = self.rng.choice(self.corpus)[1]
        cand = [l for l in other if l.strip() and not l.rstrip().endswith(":") and not l.lstrip().startswith("#")]
        if not cand:
            return None
        new = self.rng.choice(cand).strip()
        at = self.rng.choice(self.code_lines(lines) or [0])
        return lines[:at] + [indent_of(lines[at]) + new] + lines[at:]


def load_corpus(files):
    corpus = []
    for f in files:
        lines = [l.rstrip("\n") for l in open(f, encoding="utf-8")]
        # Comments (RUN lines, prose) only make mutants longer.
        lines = [l for l in lines if not l.lstrip().startswith("#")]
        corpus.append((f, lines))
    return corpus


CPU_LIMIT = [10]
MEMORY_LIMIT = 6 << 30
# Whether the tools are built with a sanitizer (sanitizer_of); then the memory limit is the
# sanitizer's own options instead of an address-space limit.
SANITIZED = [False]


def sanitizer_of(tool):
    """The sanitizer runtime `tool` links ("asan", "tsan"), or None. A sanitizer reserves
    terabytes of address space for its shadow memory when the process starts, so an address-space
    limit makes every run fail ("AddressSanitizer failed to allocate 0xdfff0001000 bytes")."""
    try:
        dynamic = subprocess.run(["readelf", "-d", tool], capture_output=True, text=True).stdout
    except OSError:
        return None
    found = re.search(r"\[lib(asan|tsan|hwasan|msan)\.so", dynamic)
    return found.group(1) if found else None


def sanitizer_limits(env, sanitizer):
    """Gives the runs under `sanitizer` the memory limit of the normal build: an allocation past
    MEMORY_LIMIT, or made once the process holds that much, fails (C++'s std::bad_alloc, as when
    the address-space limit is reached), instead of being a sanitizer report."""
    name = sanitizer.upper() + "_OPTIONS"
    mb = MEMORY_LIMIT >> 20
    limits = "allocator_may_return_null=1:max_allocation_size_mb=%d:soft_rss_limit_mb=%d" % (mb, mb)
    env[name] = ":".join(filter(None, [env.get(name, ""), limits]))


# What a sanitizer's allocator says when the memory limit makes an allocation fail
# (sanitizer_limits): the run goes on to dlm's own "out of memory" error, as under RLIMIT_AS.
SANITIZER_LIMIT = re.compile(r"^==\d+==(?:WARNING: \w+Sanitizer failed to allocate 0x[0-9a-f]+ bytes|"
                             r"\w+Sanitizer: soft rss limit (?:un)?exhausted \(.*\))\n", re.M)


def limit_resources():
    # The time limit is CPU time: the machine may be loaded, and wall time says little then.
    resource.setrlimit(resource.RLIMIT_CPU, (CPU_LIMIT[0], CPU_LIMIT[0] + 5))
    if not SANITIZED[0]:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))
    try:
        os.nice(5)
    except OSError:
        pass


BAD_TEXT = re.compile(r"internal error|Assertion|AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|"
                      r"runtime error:|Stack dump|PLEASE submit|terminate called|Segmentation fault|"
                      r"LLVM ERROR|Broken module|Instruction does not dominate")
LOCATED = re.compile(r"^(?:[^\s:][^:]*:\d+:\d+: )?error: ")


def run(cmd, cwd, env, timeout):
    """(status, stdout, stderr); status "timeout" past `timeout` seconds of CPU time (or ten
    times that of wall time: a process that sleeps or waits)."""
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, errors="replace",
                           timeout=10 * timeout, preexec_fn=limit_resources)
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else (e.stdout or "")
        return "timeout", out, ""
    if p.returncode in (-signal.SIGXCPU, -signal.SIGKILL):
        return "timeout", p.stdout, p.stderr
    return p.returncode, p.stdout, SANITIZER_LIMIT.sub("", p.stderr)


def configs(levels):
    """The (engine, -O level) runs of a mutant: the JIT at the highest level and the graph
    executor at the lowest first (a mutant both reject before printing anything stops there),
    then every other pair, level by level."""
    first = [("jit", "-O%d" % max(levels)), ("graph", "-O%d" % min(levels))]
    return first + [(e, "-O%d" % l) for l in sorted(levels) for e in ("jit", "graph") if (e, "-O%d" % l) not in first]


def bad_run(name, r):
    """The failure class and detail of one run's (status, stdout, stderr), or None."""
    rc, out, err = r
    bad = BAD_TEXT.search(err)
    if rc not in (0, 1) or bad:
        first = bad.group(0) if bad and rc in (0, 1) else ""
        line = next((l for l in err.splitlines() if BAD_TEXT.search(l)), err.splitlines()[0] if err.strip() else "")
        return "crash", "%s: exit %s %s%s" % (name, rc, first and "with ", line.strip()[:200])
    first = dlm_diff.error_lines(err)[:1]
    if rc == 1 and not LOCATED.match(first[0] if first else ""):
        return "diagnostic", "%s: exit 1 without a located error first: %r" % (name, first)
    return None


def check(bin_dir, path, env, timeout, runs_of, aot_level=None):
    """Runs one mutant on each (engine, level) of runs_of, and with aot_level built by
    `dlmc aot_level -o` too; returns (outcome, failure class or None, detail, runs)."""
    cwd = os.path.dirname(path)
    dlm, dlmc = os.path.join(bin_dir, "dlm"), os.path.join(bin_dir, "dlmc")
    runs = []
    for engine, level in runs_of:
        r = run([dlm, "run", "--engine=" + engine, level, path], cwd, env, timeout)
        runs.append(("%s %s" % (engine, level), r))
        if r[0] == "timeout":
            c = run([dlmc, "--emit=opt", level, path], cwd, env, timeout)
            if c[0] == "timeout":
                return "hang", "hang", "dlmc --emit=opt %s passes the time limit" % level, runs
            return "slow", None, "", runs
        bad = bad_run(runs[-1][0], r)
        if bad:
            return ("diag" if bad[0] == "diagnostic" else bad[0]), bad[0], bad[1], runs
        if len(runs) == 2 and runs[0][1][0] == 1 and not runs[0][1][1] and r[0] == 1 and not r[1] \
                and not dlm_diff.disagreement(runs[0][1], r):
            break  # an error before any output on both engines (mostly sema's): the levels add little
    base = runs[0][1]
    if aot_level and (base[0] == 0 or base[1]):  # it compiled: the executable must agree as well
        exe = os.path.join(cwd, "m.exe")
        r = run([dlmc, aot_level, path, "-o", exe], cwd, env, timeout)
        if r[0] == "timeout":
            return "slow", None, "", runs + [("dlmc %s -o" % aot_level, r)]
        if r[0] == 0:
            r = run([exe], cwd, env, timeout)
            runs.append(("aot %s" % aot_level, r))
        else:
            runs.append(("dlmc %s -o" % aot_level, r))
        if r[0] != "timeout":
            bad = bad_run(runs[-1][0], r)
            if bad and bad[0] == "crash":
                return "crash", "crash", bad[1], runs
    for name, other in runs[1:]:
        if other[0] == "timeout":
            continue
        why = dlm_diff.disagreement(base, other)
        if why:
            return "disagree", "disagreement", "%s vs %s: %s" % (runs[0][0], name, why), runs
    return ("ok" if base[0] == 0 else "error"), None, "", runs


def signature(cls, detail):
    """What makes two failures the same bug, roughly: the class and the message without numbers."""
    d = re.sub(r"(?<![\w.])(?:/[^\s/':]+){2,}", "F", detail)  # absolute paths
    d = re.sub(r"\d+", "N", d)
    return cls + ": " + d[:160]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bin_dir")
    ap.add_argument("files", nargs="+")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=10, help="CPU seconds a run may take")
    ap.add_argument("--keep", help="write failing mutants here")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (to resume a campaign)")
    ap.add_argument("--levels", default="0,3",
                    help="the -O levels each mutant runs at on both engines (comma-separated)")
    ap.add_argument("--aot", action="store_true",
                    help="also build each mutant that compiles with dlmc -o (at each of --levels in "
                         "turn, mutant by mutant) and run the executable")
    ap.add_argument("--progress", type=int, default=0, metavar="N",
                    help="print the counts so far after every N mutants")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every mutant's outcome")
    a = ap.parse_args()
    CPU_LIMIT[0] = max(1, int(a.timeout))
    try:
        levels = sorted({int(l) for l in a.levels.split(",")})
    except ValueError:
        levels = []
    if not levels or any(l not in range(4) for l in levels):
        sys.stderr.write("dlmfuzz: --levels takes levels 0 to 3, comma-separated, not '%s'\n" % a.levels)
        return 2
    runs_of = configs(levels)
    a.bin_dir = os.path.abspath(a.bin_dir)  # the runs start in directories of their own
    for tool in ("dlm", "dlmc"):
        if not os.access(os.path.join(a.bin_dir, tool), os.X_OK):
            sys.stderr.write("dlmfuzz: no %s in %s\n" % (tool, a.bin_dir))
            return 2

    corpus = load_corpus(a.files)
    env = dict(os.environ)
    env.update({"DLM_CACHE_DIR": "", "DLM_VERIFY_IR": "1", "NO_COLOR": "1", "DLM_HISTORY": "",
                "OPENBLAS_NUM_THREADS": "1", "DLM_NUM_THREADS": "1",
                "DLM_STDLIB": env.get("DLM_STDLIB", os.path.join(SRC, "stdlib"))})
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0")
    sanitizer = sanitizer_of(os.path.join(a.bin_dir, "dlm"))
    if sanitizer:
        SANITIZED[0] = True
        sanitizer_limits(env, sanitizer)
    tmp = tempfile.mkdtemp(prefix="dlmfuzz-")

    def one(index):
        rng = random.Random("%d/%d" % (a.seed, index))
        src, lines = corpus[rng.randrange(len(corpus))]
        text, d = "", os.path.join(tmp, str(index))
        try:
            text = "\n".join(Mutator(rng, corpus).mutate(lines)) + "\n"
            os.mkdir(d)
            path = os.path.join(d, "m.dlm")
            with open(path, "w") as f:
                f.write(text)
            aot_level = a.aot and "-O%d" % levels[index % len(levels)]
            outcome, cls, detail, runs = check(a.bin_dir, path, env, a.timeout, runs_of, aot_level)
        except Exception as e:
            # A bug of this script, or of the machine (a fork or a disk that fails): a finding
            # like the others, and the campaign goes on.
            frames = traceback.extract_tb(e.__traceback__)
            where = [f for f in frames if f.filename == __file__][-1]
            outcome, cls = "tool", "tool-error"
            detail = "%s: %s (%s:%d in %s)" % (type(e).__name__, e, os.path.basename(where.filename),
                                              where.lineno, where.name)
            runs = [("dlmfuzz.py", ("exception", "", traceback.format_exc()))]
        finally:
            shutil.rmtree(d, ignore_errors=True)
        return index, src, text, outcome, cls, detail, runs

    counts, seen = {}, {}
    failures = 0
    started = time.time()
    try:
        with ThreadPoolExecutor(max_workers=a.jobs) as pool:
            for index, src, text, outcome, cls, detail, runs in pool.map(one, range(a.start, a.start + a.count)):
                counts[outcome] = counts.get(outcome, 0) + 1
                done = sum(counts.values())
                if a.progress and done % a.progress == 0:
                    print("progress: %d mutants, up to mutant %d, %.0f s (%s)" % (
                        done, index, time.time() - started, ", ".join("%s %d" % kv for kv in sorted(counts.items()))),
                        flush=True)
                if a.verbose:
                    print("mutant %d of %s: %s %s" % (index, os.path.relpath(src, SRC), outcome, detail), flush=True)
                if not cls:
                    continue
                failures += 1
                sig = signature(cls, detail)
                seen[sig] = seen.get(sig, 0) + 1
                print("FAIL %s: mutant %d of %s: %s" % (cls, index, os.path.relpath(src, SRC), detail), flush=True)
                if a.keep:
                    os.makedirs(a.keep, exist_ok=True)
                    base = os.path.join(a.keep, "%s-%d" % (cls, index))
                    with open(base + ".dlm", "w") as f:
                        f.write(text)
                    with open(base + ".log", "w") as f:
                        f.write("# from %s: %s\n" % (src, detail))
                        for name, (rc, out, err) in runs:
                            f.write("--- %s exit %s\n--- stdout:\n%s--- stderr:\n%s" % (name, rc, out[-4000:], err[-4000:]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("mutants: %d (%s)" % (sum(counts.values()), ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    for sig, n in sorted(seen.items()):
        print("distinct: %dx %s" % (n, sig))
    print("ok" if failures == 0 else "%d failures" % failures)
    return 0 if failures == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
