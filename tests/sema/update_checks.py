#!/usr/bin/env python3
"""Regenerates the CHECK lines of golden SSA tests (like LLVM's update_test_checks.py).

usage: update_checks.py BUILD_DIR TEST.dlm...

Runs `dlmc --emit=ssa` on each test, drops its old CHECK lines and appends new ones: a
CHECK-LABEL per function, values captured as %[[Vn:[0-9]+]] at their definition and matched as
%[[Vn]] afterwards, fresh symbolic dims likewise (?[[Dn:[0-9]+]], then ?[[Dn]]). Read the diff and trim it like
code: keep the lines the test is about.
"""
import os
import re
import subprocess
import sys

def checks(output):
    out, names, dims = [], {}, set()
    for line in output.rstrip('\n').split('\n'):
        if not line.strip():
            continue
        if line.startswith('func @'):
            names, dims = {}, set()
        def value(m):
            n = m.group(1)
            if n in names:
                return '%[[' + names[n] + ']]'
            names[n] = 'V' + n
            return '%[[' + names[n] + ':[0-9]+]]'
        def dim(m):
            n = 'D' + m.group(1)
            if n in dims:
                return '?[[' + n + ']]'
            dims.add(n)
            return '?[[' + n + ':[0-9]+]]'
        # Literal [[ and ]] (nested shape lists) would read as FileCheck variables.
        text = line.replace('[[', '{{\\[\\[}}').replace(']]', '{{\\]\\]}}')
        text = re.sub(r'%(\d+)', value, text)
        text = re.sub(r'\?(\d+)', dim, text)
        if line.startswith('func @'):
            # A label may not define variables: the parameters go on a CHECK-SAME line.
            head, rest = text.split('(', 1)
            out.append('# CHECK-LABEL: %s(' % head)
            out.append('# CHECK-SAME: %s' % rest)
            continue
        out.append('# %s: %s' % ('CHECK-NEXT' if out else 'CHECK', text))
    return out

def main():
    build, tests = sys.argv[1], sys.argv[2:]
    dlmc = os.path.join(build, 'bin', 'dlmc')
    for test in tests:
        src = [l for l in open(test).read().split('\n') if not re.match(r'# CHECK', l)]
        while src and not src[-1].strip():
            src.pop()
        res = subprocess.run([dlmc, '--emit=ssa', test], capture_output=True, text=True)
        if res.returncode != 0:
            sys.exit(test + ': dlmc failed:\n' + res.stderr)
        open(test, 'w').write('\n'.join(src + [''] + checks(res.stdout)) + '\n')

if __name__ == '__main__':
    main()
