"""Notebook-style scripts (test/conformance/notebooks/*.py, written for this suite in
the manner of TensorFlow's tf.data / TFRecord / Load images guides, the Keras TFRecord
example and the Kaggle TPU flowers notebooks; each makes its own data) run twice in
this interpreter: as written (``import tensorflow as tf``) and with only that import
changed to ``import tfnano as tf``. Everything they print must be identical.

docs/compat.md records how many run identically; a script listed in KNOWN_DIFFERENT
is expected to differ and says why (a strict xfail: when the difference is fixed the
test fails until the entry is removed)."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((Path(__file__).parent / "notebooks").glob("*.py"))
IMPORT = re.compile(r"^import tensorflow as tf$", re.M)


KNOWN_DIFFERENT = {}


def _run(script, workdir):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONHASHSEED="0",
               PYTHONPATH=str(ROOT / "bindings" / "python"))
    r = subprocess.run([sys.executable, str(script), str(workdir)], capture_output=True,
                       text=True, env=env, cwd=str(workdir), timeout=600)
    assert r.returncode == 0, "%s failed:\n%s" % (script.name, r.stderr[-3000:])
    return r.stdout


def test_corpus_is_there():
    assert len(NOTEBOOKS) >= 10


@pytest.mark.parametrize("notebook", [
    pytest.param(p, marks=pytest.mark.xfail(reason=KNOWN_DIFFERENT[p.stem], strict=True))
    if p.stem in KNOWN_DIFFERENT else p for p in NOTEBOOKS], ids=[p.stem for p in NOTEBOOKS])
def test_notebook_prints_the_same(notebook, tmp_path):
    text = notebook.read_text()
    assert len(IMPORT.findall(text)) == 1, "one `import tensorflow as tf` line expected"
    (tmp_path / "tf").mkdir()
    (tmp_path / "tfnano").mkdir()
    expected = _run(notebook, tmp_path / "tf")
    changed = tmp_path / notebook.name
    changed.write_text(IMPORT.sub("import tfnano as tf", text))
    got = _run(changed, tmp_path / "tfnano")
    assert expected.strip(), "the notebook printed nothing"
    exp_lines, got_lines = expected.splitlines(), got.splitlines()
    for i, (e, g) in enumerate(zip(exp_lines, got_lines)):
        assert e == g, "%s line %d differs:\nTensorFlow: %s\ntfnano:     %s" % (
            notebook.name, i + 1, e, g)
    assert len(exp_lines) == len(got_lines), (notebook.name, len(exp_lines), len(got_lines))
