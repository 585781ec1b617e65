"""The Python examples are tests: each runs end to end on small synthetic data and
checks what it reads back (the scripts assert)."""
import importlib.util
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quest_pipeline(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    rows = _load("quest_pipeline").main(["--examples", "300", "--shards", "3", "--batch", "64"])
    assert len(rows) == 2 + 2 * 3  # pad, write; 3 read-backs timed twice each
    out = capsys.readouterr().out
    assert "every value read back equals what was written" in out
    # the shards' folder is removed, and the last line does not name it as if it were not
    assert list(tmp_path.iterdir()) == [] and str(tmp_path) not in out


def test_image_pipeline(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _load("image_pipeline").main(["--examples", "60"])
    assert "all read back equal" in capsys.readouterr().out
    assert list(tmp_path.iterdir()) == []  # its records folder is gone from the temp dir
