"""examples/quickstart.ipynb runs headlessly (nbclient) without a cell error, in this
interpreter's environment (where tfnano is installed, so the install cell is a no-op)."""
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_quickstart_notebook_executes(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    nb = nbformat.read(str(ROOT / "examples" / "quickstart.ipynb"), as_version=4)
    # the kernel is this interpreter (its "python" must be the one with tfnano)
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep +
                       os.environ.get("PATH", ""))
    client = nbclient.NotebookClient(nb, timeout=180, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any failing cell
    outputs = "".join(o.get("text", "") for c in nb.cells if c.cell_type == "code"
                      for o in c.get("outputs", []))
    assert "TensorFlow installed: False" in outputs or "TensorFlow installed: True" in outputs
    assert "is required but could not be found." in outputs
    assert "train-00002-of-00003.tfrec" in outputs and "8\ttotal" in outputs
    assert "'label': tf.io.FixedLenFeature([], tf.int64)," in outputs
    assert "0 of 3 files damaged" in outputs
    assert not any(o.get("output_type") == "error" for c in nb.cells
                   if c.cell_type == "code" for o in c.get("outputs", []))
