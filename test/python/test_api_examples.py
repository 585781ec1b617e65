"""The Python examples are tests: each runs end to end on small synthetic data and
checks what it reads back (the scripts assert)."""
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _load(name):
    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / (name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_quest_pipeline(capsys):
    rows = _load("quest_pipeline").main(["--examples", "300", "--shards", "3", "--batch", "64"])
    assert len(rows) == 2 + 2 * 3  # pad, write; 3 read-backs timed twice each
    assert "every value read back equals what was written" in capsys.readouterr().out


def test_image_pipeline(capsys):
    _load("image_pipeline").main(["--examples", "60"])
    assert "all read back equal" in capsys.readouterr().out
