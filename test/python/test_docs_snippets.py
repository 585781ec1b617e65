"""Every C snippet in README.md and docs/*.md compiles and runs against the library
(build/test/libtfnano.a, made by `make test-python`), under AddressSanitizer with leak
detection, so that a snippet copied as is neither crashes nor leaks.

A fenced ```c block is one of:
  - a program (it has `main(`): compiled and run alone;
  - a declaration quoted from include/tfnano.h (it starts with `typedef`): the type
    must be declared there;
  - a fragment: the fragments of one file, in order, are the body of one main() (a
    guide builds one program step by step); that program is compiled and run.
Docs say where they stand (no path outside the repository: users do not have it)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))
LIB = ROOT / "build" / "test" / "libtfnano.a"
HEADER = (ROOT / "include" / "tfnano.h").read_text()

PRELUDE = """#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tfnano.h"
"""


def _blocks(path):
    return re.findall(r"^```c[ \t]*\n(.*?)^```", path.read_text(), re.S | re.M)


def _kind(block):
    code = "\n".join(line for line in block.splitlines()
                     if line.strip() and not line.strip().startswith(("/*", "*", "//")))
    if re.search(r"\bint\s+main\s*\(", block):
        return "program"
    if code.lstrip().startswith("typedef"):
        return "declaration"
    return "fragment"


def _programs():
    out = []
    for doc in DOCS:
        blocks = _blocks(doc)
        frags = [b for b in blocks if _kind(b) == "fragment"]
        for i, b in enumerate(b for b in blocks if _kind(b) == "program"):
            out.append(pytest.param(doc, b, id="%s-program%d" % (doc.name, i + 1)))
        if frags:
            body = "\n".join(frags)
            includes = "\n".join(l for l in body.splitlines() if l.startswith("#include"))
            body = "\n".join(l for l in body.splitlines() if not l.startswith("#include"))
            src = PRELUDE + includes + "\n\nint main(void)\n{\n" + body + "\n    return 0;\n}\n"
            out.append(pytest.param(doc, src, id="%s-fragments" % doc.name))
    return out


def _libs():
    m = re.search(r"^LIBS\s*:?=\s*(.*)$", (ROOT / "Makefile").read_text(), re.M)
    return m.group(1).split()


def test_the_docs_have_c_snippets():
    kinds = [_kind(b) for d in DOCS for b in _blocks(d)]
    assert "program" in kinds and "fragment" in kinds


@pytest.mark.parametrize("doc,src", _programs())
def test_snippet_compiles_runs_and_frees(doc, src, tmp_path):
    cc = shutil.which("cc")
    if cc is None or not LIB.exists():
        pytest.fail("needs a C compiler and %s (make lib MODE=test)" % LIB)
    c = tmp_path / "snippet.c"
    c.write_text(src)
    exe = tmp_path / "snippet"
    res = subprocess.run(
        [cc, "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror",
         "-Wno-unused-variable", "-Wno-unused-but-set-variable", "-g",
         "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
         "-I" + str(ROOT / "include"), str(c), str(LIB)] + _libs() + ["-o", str(exe)],
        capture_output=True, text=True)
    assert res.returncode == 0, "%s does not compile:\n%s\n%s" % (doc.name, res.stderr, src)
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:abort_on_error=0")
    run = subprocess.run([str(exe)], capture_output=True, text=True, cwd=str(tmp_path),
                         env=env, timeout=60)
    assert run.returncode == 0, "%s failed (exit %d):\n%s\n%s" % (
        doc.name, run.returncode, run.stdout[-3000:], run.stderr[-3000:])


def test_quoted_declarations_are_the_headers():
    for doc in DOCS:
        for b in _blocks(doc):
            if _kind(b) == "declaration":
                for name in re.findall(r"}\s*(\w+)\s*;", b):
                    assert re.search(r"}\s*%s\s*;" % name, HEADER), (doc.name, name)


def test_docs_stand_on_their_own():
    for doc in DOCS:
        text = doc.read_text()
        assert "../shared" not in text and "shared/spec" not in text \
            and "shared/interop" not in text, doc.name
