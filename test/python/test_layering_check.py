"""test/tools/check-layering.py, the check behind `make layering-check`: it passes on
the real lib/ and fails, naming the file and the rule, on a tree that breaks the rows."""
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "test" / "tools" / "check-layering.py"

README = """# lib

<!-- layering-check: the rows below, highest first -->
```text
top
low other
base
```
"""


def run(lib):
    return subprocess.run([sys.executable, str(SCRIPT), str(lib)],
                          capture_output=True, text=True)


def make_tree(tmp_path, files, readme=README):
    lib = tmp_path / "lib"
    (tmp_path / "include").mkdir()
    (tmp_path / "include" / "tfnano.h").write_text("")
    (lib).mkdir()
    (lib / "README.md").write_text(readme)
    for name in ("top", "low", "other", "base"):
        (lib / name).mkdir()
        (lib / name / f"{name}_internal.h").write_text("")
    for path, text in files.items():
        (lib / path).write_text(text)
    return lib


def test_the_real_lib_follows_its_rows():
    r = run(ROOT / "lib")
    assert r.returncode == 0, r.stderr
    assert "base <- " in r.stdout


def test_downward_includes_pass(tmp_path):
    lib = make_tree(tmp_path, {
        "top/a.c": '#include "../low/low_internal.h"\n#include "../base/base_internal.h"\n'
                   '#include "top_internal.h"\n#include "tfnano.h"\n#include <stdio.h>\n',
        "low/b.c": '#include "../base/base_internal.h"\n'})
    r = run(lib)
    assert r.returncode == 0, r.stderr


def test_an_upward_include_fails(tmp_path):
    lib = make_tree(tmp_path, {"base/x.c": '#include "../top/top_internal.h"\n'})
    r = run(lib)
    assert r.returncode == 1
    assert 'lib/base/x.c: #include "../top/top_internal.h": lib/base/ may not include lib/top/' \
        in r.stderr


def test_a_sideways_include_fails(tmp_path):
    lib = make_tree(tmp_path, {"low/x.h": '#include "../other/other_internal.h"\n'})
    r = run(lib)
    assert r.returncode == 1
    assert "lib/low/ may not include lib/other/" in r.stderr


def test_an_unlisted_folder_or_unknown_header_fails(tmp_path):
    lib = make_tree(tmp_path, {"base/y.c": '#include "nowhere.h"\n'})
    (lib / "extra").mkdir()
    r = run(lib)
    assert r.returncode == 1
    assert "lib/extra/ has no row" in r.stderr
    assert '#include "nowhere.h" is neither beside it nor in include/' in r.stderr
