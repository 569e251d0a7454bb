"""@dlm.jit: a Python function written in dlm's language, compiled by dlm from its own source
(docs/python.md).

The decorator reads the function's source (inspect), drops the decorators and hands the def,
as it stands in its file, to dlm's parser, sema and pipeline (dlm._dlm.load_parts: the text
with its first line's number and its indentation, so every diagnostic points into the .py
file). Python itself only checks what dlm's language cannot say, here, before dlm sees it:
each unsupported construct (a comprehension, a lambda, try, a numpy call, ...) is a CompileError
located in the file that names it and says what to write instead.

Names the body reads but does not assign are resolved as Python would, in the function's
closure and then its module: another @dlm.jit function is compiled into the same dlm module, a
bool, int or float is a constant (dlm_options.constants), anything else is an error. Names
Python cannot resolve are dlm's: its built-ins (tanh, matmul, ...), and its stdlib modules
(`nn.linear` imports nn). Names bound when the decorator runs are read then; the others (a
function defined further down) at the first call, when the dlm module is compiled. Each call
then runs dlm's code for the arguments' types, compiled once per types (dlm_call).
"""
import ast
import inspect
import os
import threading
import types

from . import _dlm

try:
    from ._build import STDLIB_DIR as _BUILD_STDLIB_DIR
except ImportError:  # pragma: no cover - a package copied without its build file
    _BUILD_STDLIB_DIR = ""

_COMPILE = 2  # dlm_error_code DLM_ERROR_COMPILE
# Held while names are resolved and a dlm module is made: a function's callees are shared by
# every function that calls them, so one lock serves all (each is made once, then calls
# take no lock).
_LOCK = threading.Lock()


def _compile_error(message):
    error = _dlm.CompileError(message)
    error.code = _COMPILE
    return error


class _Source:
    """A decorated function's def as it stands in its file: the text from the `def` line on,
    the file, the def's line and its indentation, and its Python AST (positions in the file)."""

    def __init__(self, fn):
        try:
            lines, start = inspect.getsourcelines(fn)
        except (OSError, TypeError) as e:
            raise _compile_error(
                f"dlm: error: cannot read the source of '{fn.__qualname__}' ({e}): @dlm.jit "
                "compiles a function from its source file") from None
        self.file = fn.__code__.co_filename
        self.lines = lines
        self.start = start
        self.indent = len(lines[0]) - len(lines[0].lstrip(" "))
        text = "".join(lines)
        # An indented def (a function defined inside another) parses as the body of an `if`,
        # so the AST's columns are the file's and its lines one further down.
        shift = 1 if self.indent else 0
        tree = ast.parse("if 1:\n" + text if shift else text, self.file)
        node = tree.body[0].body[0] if shift else tree.body[0]
        if not isinstance(node, ast.FunctionDef):
            raise _compile_error(f"dlm: error: @dlm.jit takes a def, not '{fn.__qualname__}'")
        self.node = node
        self.name = node.name
        self.line_offset = start - 1 - shift  # an AST line + line_offset: the file's line
        self.first_line = node.lineno + self.line_offset
        self.text = "".join(lines[self.first_line - start:])

    def error(self, node, message):
        """A CompileError at `node`, formatted as dlm's diagnostics are."""
        line = node.lineno + self.line_offset
        source = self.lines[line - self.start].rstrip("\r\n")
        col = node.col_offset
        end = node.end_col_offset if node.end_lineno == node.lineno else len(source)
        caret = " " * col + "^" + "~" * max(0, (end or 0) - col - 1)
        return _compile_error(f"{self.file}:{line}:{col + 1}: error: {message}\n{source}\n{caret}"
                              "\n1 error generated")


# Python constructs dlm's language does not have, each with what to write instead. Everything
# else is left to dlm's parser and sema, whose diagnostics point into the file as well.
_UNSUPPORTED = {
    ast.ListComp: ("a list comprehension", "write a for loop"),
    ast.SetComp: ("a set comprehension", "write a for loop"),
    ast.DictComp: ("a dict comprehension", "write a for loop"),
    ast.GeneratorExp: ("a generator expression", "write a for loop"),
    ast.Lambda: ("a lambda", "write a def (decorated with @dlm.jit) and call it"),
    ast.FunctionDef: ("a nested def", "define it at the top level of the module, decorated "
                                      "with @dlm.jit, and call it"),
    ast.AsyncFunctionDef: ("an async def", "write a plain def"),
    ast.ClassDef: ("a class", "pass tensors and tuples as arguments"),
    ast.Dict: ("a dict", "use a tuple"),
    ast.Set: ("a set", "use a tuple"),
    ast.JoinedStr: ("an f-string", "print the values as arguments: print(\"loss\", loss)"),
    ast.Try: ("try", "dlm has no exceptions: a run-time error stops the call and raises "
                     "dlm.ExecutionError in Python"),
    ast.Raise: ("raise", "use assert condition, \"message\""),
    ast.With: ("with", "dlm has no context managers"),
    ast.AsyncWith: ("async with", "dlm has no context managers"),
    ast.AsyncFor: ("async for", "write a for loop"),
    ast.Await: ("await", "dlm has no coroutines"),
    ast.Yield: ("yield", "return the values"),
    ast.YieldFrom: ("yield from", "return the values"),
    ast.Global: ("global", "module-level ints, floats and bools are read as constants; pass "
                           "other values as arguments and return new ones"),
    ast.Nonlocal: ("nonlocal", "pass values as arguments and return new ones"),
    ast.Delete: ("del", "leave the name; dlm frees what is no longer used"),
    ast.Import: ("import", "use a dlm stdlib module by its name (nn.linear) without importing "
                           "it in the function"),
    ast.ImportFrom: ("import", "use a dlm stdlib module by its name (nn.linear)"),
    ast.NamedExpr: ("an assignment expression (:=)", "assign on a line of its own"),
    ast.Starred: ("unpacking with *", "pass the elements one by one"),
    ast.Slice: None,  # allowed; listed so the walk does not look at it twice
}
_UNSUPPORTED_OPERATORS = {
    ast.BitAnd: ("'&'", "use 'and' (or logical ops on bool tensors)"),
    ast.BitOr: ("'|'", "use 'or'"),
    ast.BitXor: ("'^'", "use '!='"),
    ast.LShift: ("'<<'", "multiply by a power of two"),
    ast.RShift: ("'>>'", "use '//' by a power of two"),
    ast.Invert: ("'~'", "use 'not'"),
    ast.UAdd: ("a unary '+'", "write the operand alone"),
    ast.Is: ("'is'", "use '=='"),
    ast.IsNot: ("'is not'", "use '!='"),
    ast.In: ("'in'", "compare with '==' in a loop"),
    ast.NotIn: ("'not in'", "compare with '!=' in a loop"),
}
_AUGMENTED = (ast.Add, ast.Sub, ast.Mult, ast.Div)


class _Checker(ast.NodeVisitor):
    """Reports the first construct of the def dlm's language does not have; collects the
    names it assigns (its variables) and the names it reads, with the node of each first
    read, and for a name read as `name.attr`, the attribute (stdlib modules, numpy calls)."""

    def __init__(self, source):
        self.source = source
        self.assigned = set()
        self.reads = {}  # name -> first Name node that reads it
        self.attribute = {}  # name -> the Attribute node of its first `name.attr`

    def fail(self, node, what, instead):
        raise self.source.error(node, f"{what} is not in dlm's language: {instead}")

    def check(self, fn):
        a = fn.args
        for extra, what in ((a.vararg, "*args"), (a.kwarg, "**kwargs")):
            if extra:
                self.fail(extra, what, "list the parameters, or pass a tuple")
        if a.kwonlyargs:
            self.fail(a.kwonlyargs[0], "a keyword-only parameter", "drop the '*'")
        if a.posonlyargs:
            self.fail(a.posonlyargs[0], "a positional-only parameter", "drop the '/'")
        for arg in a.args:
            self.assigned.add(arg.arg)
        for default in a.defaults:
            self.visit(default)
        # Annotations are dlm's (Tensor[B, 784]), never Python values: not walked.
        for statement in fn.body:
            self.visit(statement)

    def generic_visit(self, node):
        entry = _UNSUPPORTED.get(type(node))
        if entry:
            self.fail(node, *entry)
        super().generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load):
            self.reads.setdefault(node.id, node)
        else:
            self.assigned.add(node.id)

    def visit_Attribute(self, node):
        if isinstance(node.value, ast.Name):
            self.attribute.setdefault(node.value.id, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self.visit(node.target)
        if node.value:
            self.visit(node.value)

    def visit_AugAssign(self, node):
        if not isinstance(node.op, _AUGMENTED):
            self.fail(node, "this augmented assignment", "write 'x = x op y' (dlm has +=, -=, "
                                                         "*= and /=)")
        self.visit(node.target)
        self.assigned.add(getattr(node.target, "id", None))
        self.visit(node.value)

    def visit_BinOp(self, node):
        self.operator(node, node.op)
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        self.operator(node, node.op)
        self.generic_visit(node)

    def visit_Compare(self, node):
        for op in node.ops:
            self.operator(node, op)
        self.generic_visit(node)

    def operator(self, node, op):
        entry = _UNSUPPORTED_OPERATORS.get(type(op))
        if entry:
            self.fail(node, *entry)

    def visit_For(self, node):
        if node.orelse:
            self.fail(node.orelse[0], "'else' after a for loop", "use a flag")
        self.generic_visit(node)

    def visit_While(self, node):
        if node.orelse:
            self.fail(node.orelse[0], "'else' after a while loop", "use a flag")
        self.generic_visit(node)

    def visit_Call(self, node):
        for keyword in node.keywords:
            if keyword.arg is None:
                self.fail(keyword.value, "unpacking with **", "pass keyword arguments by name")
        self.generic_visit(node)

    def visit_Constant(self, node):
        if node.value is None:
            self.fail(node, "None", "leave the value out: 'return' alone returns nothing")
        if isinstance(node.value, (bytes, complex)) or node.value is Ellipsis:
            self.fail(node, f"a {type(node.value).__name__} literal", "use int, float, bool "
                                                                      "or str")


_UNBOUND = object()


def _lookup(fn, name):
    """What `name` means to Python in fn's body: its closure's cell, then its module, then
    _UNBOUND (Python's builtins are not consulted: len, range, sum, ... are dlm's)."""
    code = fn.__code__
    if fn.__closure__ and name in code.co_freevars:
        try:
            return fn.__closure__[code.co_freevars.index(name)].cell_contents
        except ValueError:  # a cell not yet assigned
            return _UNBOUND
    return fn.__globals__.get(name, _UNBOUND)


def _stdlib_module(name):
    """Whether `name` is a module of dlm's stdlib (where libdlm finds it: $DLM_STDLIB, else
    the source tree's stdlib/)."""
    directory = os.environ.get("DLM_STDLIB") or _BUILD_STDLIB_DIR
    return bool(directory) and os.path.isfile(os.path.join(directory, name + ".dlm"))


class _Captured:
    """What the names a function reads, and Python can resolve, mean to dlm: constants and
    other @dlm.jit functions; imports of stdlib modules Python does not know."""

    def __init__(self):
        self.constants = {}
        self.functions = {}
        self.imports = set()


class JitFunction:
    """A Python function compiled by dlm (docs/python.md). Calling it compiles the dlm
    module of it and the @dlm.jit functions it calls, at the first call, then runs dlm's code
    for the arguments' types (compiled once per types). dlm.grad and dlm.value_and_grad take
    it."""

    def __init__(self, fn, engine="jit", opt_level=2):
        self.__wrapped__ = fn
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__
        self.__module__ = fn.__module__
        self._options = dict(engine=engine, opt_level=opt_level)
        self._source = _Source(fn)
        checker = _Checker(self._source)
        checker.check(self._source.node)
        self._reads = {name: node for name, node in checker.reads.items()
                       if name not in checker.assigned}
        self._attributes = checker.attribute
        self._module = None
        self._function = None
        # Names bound now are read now (constants keep the value they have at decoration).
        self._captured = _Captured()
        self._later = []
        for name, node in self._reads.items():
            value = _lookup(fn, name)
            if value is _UNBOUND:
                self._later.append(name)
            else:
                self._capture(name, node, value)

    def _capture(self, name, node, value):
        captured = self._captured
        if isinstance(value, JitFunction):
            if value.__name__ != name:
                raise self._source.error(node, f"'{name}' names the @dlm.jit function "
                                               f"'{value.__name__}': call it by its own name")
            captured.functions[name] = value
        elif isinstance(value, (bool, int, float)):
            if isinstance(value, int) and not -2**63 <= value < 2**63:
                raise self._source.error(node, f"'{name}' is {value}, which does not fit in "
                                               "dlm's 64-bit int")
            captured.constants[name] = value
        else:
            if isinstance(value, types.ModuleType) and name in self._attributes:
                node = self._attributes[name]  # the caret under all of `np.tanh`
            raise self._source.error(node, self._not_captured(name, value))

    def _not_captured(self, name, value):
        where = f"'{name}' is "
        if isinstance(value, types.ModuleType):
            attribute = self._attributes.get(name)
            call = f"'{name}.{attribute.attr}'" if attribute else f"'{name}'"
            if value.__name__ == "dlm":
                return (f"{call} inside a @dlm.jit function: dlm's built-ins are names of the "
                        f"language; write '{attribute.attr if attribute else '...'}' alone")
            return (f"{call} uses the Python module '{value.__name__}', which dlm cannot "
                    "compile: write it with dlm's built-ins (tanh(x), matmul(a, b), "
                    "x.sum(axis=0): docs/ops.md)")
        if isinstance(value, (types.FunctionType, types.BuiltinFunctionType)):
            return (where + "a Python function, which dlm cannot compile: decorate it with "
                    "@dlm.jit to call it from here")
        kind = type(value).__module__ + "." + type(value).__qualname__ \
            if type(value).__module__ != "builtins" else type(value).__qualname__
        return (where + f"a Python value of type '{kind}': a @dlm.jit function reads only the "
                "bool, int and float constants of its module; pass it as an argument")

    def _resolve_later(self):
        fn = self.__wrapped__
        for name in self._later:
            value = _lookup(fn, name)
            if value is not _UNBOUND:
                self._capture(name, self._reads[name], value)
            elif name in self._attributes and _stdlib_module(name):
                self._captured.imports.add(name)
        self._later = []

    def _closure(self):
        """This function and every @dlm.jit function it calls, directly or not, in the order
        first reached."""
        order, stack = [], [self]
        while stack:
            f = stack.pop()
            if any(f is g for g in order):
                continue
            f._resolve_later()
            order.append(f)
            stack.extend(reversed(list(f._captured.functions.values())))
        return order

    def _load(self):
        functions = self._closure()
        parts, constants, imports, names = [], {}, set(), {}
        for f in functions:
            if f.__name__ in names:
                raise f._source.error(f._source.node, f"two @dlm.jit functions named "
                                      f"'{f.__name__}' are compiled together (the other is in "
                                      f"{names[f.__name__]._source.file})")
            names[f.__name__] = f
            for name, value in f._captured.constants.items():
                if name in constants and constants[name][0] != value:
                    raise f._source.error(
                        f._reads[name], f"'{name}' is {value!r} here but "
                        f"{constants[name][0]!r} in '{constants[name][1]}', compiled together")
                constants.setdefault(name, (value, f.__name__))
            imports |= f._captured.imports
            s = f._source
            parts.append((s.file, s.text, s.first_line, s.indent))
        if imports:
            parts.insert(0, ("<dlm.jit imports>", "".join(f"import {m}\n" for m in
                                                          sorted(imports)), 1, 0))
        return _dlm.load_parts(parts, {n: v for n, (v, _) in constants.items()},
                               **self._options)

    def _dlm_function(self):
        """The dlm function of this def (compiled at the first call)."""
        with _LOCK:
            if self._function is None:
                self._module = self._load()
                self._function = self._module[self.__name__]
            return self._function

    def __call__(self, *args):
        function = self._function or self._dlm_function()
        return function(*args)

    def __repr__(self):
        return f"<dlm.jit function {self.__qualname__}>"


def jit(fn=None, *, engine="jit", opt_level=2):
    """@dlm.jit, or @dlm.jit(engine="graph", opt_level=2): compiles the decorated function,
    written in dlm's language, with dlm (docs/python.md). Constructs dlm's language does not
    have are a dlm.CompileError here; names are resolved here or, when not bound yet, at the
    first call."""
    if fn is None:
        return lambda f: JitFunction(f, engine, opt_level)
    return JitFunction(fn, engine, opt_level)
