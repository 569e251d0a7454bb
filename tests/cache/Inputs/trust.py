"""trust.py DLM PROGRAM WORK: the object cache never runs code another user could have written.

Run as root (tests/cache/lit.local.cfg's feature `root`): root makes the other user's files with
chown to `nobody`, and since root ignores permission bits, the read-only directory is tried as
`nobody` (setpriv), whose own directory it is. For each case, sets up a cache directory under
WORK, runs PROGRAM with it, checks that the program printed exactly what an uncached run prints
and exited 0, and prints one line for FileCheck: the case, what dlm warned (or "no warning"), and
what became of the directory. Under --time-passes it also gives the `cache:` lines' reasons.
"""
import os
import pwd
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

dlm, program, work = sys.argv[1:4]
nobody = pwd.getpwnam("nobody")


def run(cache, *flags, program=program, user=None, preexec=None, dlm_path=dlm):
    command = [dlm_path, "run", *flags, program]
    if user is not None:
        command = ["setpriv", "--reuid=%d" % user.pw_uid, "--regid=%d" % user.pw_gid, "--clear-groups"] + command
    env = dict(os.environ, DLM_CACHE_DIR=cache)
    p = subprocess.run(command, capture_output=True, text=True, env=env, preexec_fn=preexec)
    if p.returncode != 0:
        sys.exit("dlm exited %d:\n%s" % (p.returncode, p.stderr))
    return p.stdout, p.stderr


reference, _ = run("")  # DLM_CACHE_DIR= (empty): uncached


def warnings(err):
    found = [l.split("warning: ", 1)[1] for l in err.splitlines() if "warning: " in l]
    return "; ".join(found) if found else "no warning"


def reasons(err, kind):
    """The reasons of the `cache: KIND` lines (--time-passes)."""
    return [l.split("(", 1)[1][:-1] for l in err.splitlines() if l.startswith("cache: " + kind)]


def files(cache):
    return sorted(os.listdir(cache))


def report(case, out, err, what):
    assert out == reference, "%s: the program printed\n%s\ninstead of\n%s" % (case, out, reference)
    print("%s: %s; %s" % (case, warnings(err), what))


def fresh(name, mode=0o700, owner=None):
    cache = os.path.join(work, name)
    os.mkdir(cache)
    os.chmod(cache, mode)
    if owner is not None:
        os.chown(cache, owner.pw_uid, owner.pw_gid)
    return cache


def stored_entry(name):
    """A directory of root's own holding the program's entry, and the entry's path and bytes."""
    cache = fresh(name)
    run(cache)
    entry = os.path.join(cache, files(cache)[0])
    return cache, entry, open(entry, "rb").read()


# Directories another user owns or could write: uncached, one warning, nothing written there.
for case, mode, owner in [("other user's directory", 0o700, nobody),
                          ("group-writable directory", 0o770, None),
                          ("world-writable directory", 0o777, None)]:
    cache = fresh(case.replace(" ", "-").replace("'", ""), mode, owner)
    out, err = run(cache)
    report(case, out, err, "%d files" % len(files(cache)))

# Writable by all but sticky (like /tmp): others cannot replace root's entries, so it is used.
cache = fresh("sticky", 0o1777)
out, err = run(cache)
_, again = run(cache, "--time-passes")
report("sticky world-writable directory", out, err, "%d files, %s" % (len(files(cache)), "hit" if reasons(again, "hit") else "NO HIT"))

# Entries another user owns or could write: uncached, one warning, the entry left as it was.
for case, change in [("other user's entry", lambda e: os.chown(e, nobody.pw_uid, nobody.pw_gid)),
                     ("world-writable entry", lambda e: os.chmod(e, 0o666))]:
    cache, entry, good = stored_entry(case.replace(" ", "-").replace("'", ""))
    change(entry)
    before = os.stat(entry)
    out, err = run(cache, "--time-passes")
    after = os.stat(entry)
    untouched = open(entry, "rb").read() == good and (before.st_uid, before.st_mode) == (after.st_uid, after.st_mode)
    report(case, out, err, "miss (%s), not stored (%s), entry %s" % (
        reasons(err, "miss")[0], reasons(err, "not stored")[0], "untouched" if untouched else "CHANGED"))

# A symbolic link planted in place of the entry is neither read nor written through: the entry
# is compiled again and stored as a file of its own, the link's target keeps its bytes.
cache, entry, good = stored_entry("symlink")
victim = os.path.join(work, "victim")
with open(victim, "w") as f:
    f.write("not to be overwritten\n")
os.remove(entry)
os.symlink(victim, entry)
out, err = run(cache, "--time-passes")
kept = open(victim).read() == "not to be overwritten\n"
replaced = not os.path.islink(entry) and open(entry, "rb").read() == good
report("symbolic link as the entry", out, err, "miss (%s), %s, target %s, entry %s" % (
    reasons(err, "miss")[0], "stored" if reasons(err, "stored") else "NOT STORED",
    "untouched" if kept else "OVERWRITTEN", "a file again" if replaced else "NOT REPLACED"))

# A read-only directory: hits still work, stores fail, and only --time-passes says so. As
# `nobody`, in nobody's own directory (root would write it anyway). `nobody` must reach dlm, the
# programs and the cache, and the checkout may sit in a directory only root can enter (a clone
# into `mktemp -d`, mode 0700), so they are staged in a directory of their own in the system's
# /tmp, which everyone can enter.
stage = tempfile.mkdtemp(prefix="dlm-trust-", dir="/tmp")  # not $TMPDIR: lit makes that 0700
try:
    os.chmod(stage, 0o755)
    staged_dlm = os.path.join(stage, "dlm")
    shutil.copy2(dlm, staged_dlm)
    staged_program = os.path.join(stage, "program.dlm")
    shutil.copy(program, staged_program)
    os.chmod(staged_program, 0o644)
    other = os.path.join(stage, "other.dlm")
    shutil.copy(program, other)
    with open(other, "a") as f:
        f.write('print("another program")\n')
    os.chmod(other, 0o644)
    cache = os.path.join(stage, "read-only")
    os.mkdir(cache, 0o700)
    os.chown(cache, nobody.pw_uid, nobody.pw_gid)
    as_nobody = dict(user=nobody, dlm_path=staged_dlm)
    run(cache, program=staged_program, **as_nobody)
    os.chmod(cache, 0o500)
    other_reference, _ = run("", program=other)
    out, err = run(cache, "--time-passes", program=staged_program, **as_nobody)
    report("read-only directory, stored program", out, err, "hit" if reasons(err, "hit") else "NO HIT")
    out, err = run(cache, "--time-passes", program=other, **as_nobody)
    assert out == other_reference
    quiet, quiet_err = run(cache, program=other, **as_nobody)
    assert quiet == other_reference
    print("read-only directory, new program: %s; not stored (%s), %d files; without --time-passes: %s" % (
        warnings(err), reasons(err, "not stored")[0], len(files(cache)), repr(quiet_err)))
finally:
    shutil.rmtree(stage)

# A full disk (a file size limit: writing the entry fails part way): not stored, no file left.
def small_files():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))


cache = fresh("full")
out, err = run(cache, "--time-passes", preexec=small_files)
report("full disk", out, err, "not stored (%s), %d files" % (reasons(err, "not stored")[0], len(files(cache))))
