"""Building from source without nanopb or zlib stops with one short message naming the
file that is missing (pb.h, the archive, zlib.h) and what to install, not a traceback."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

LOAD = "import sys; sys.path.insert(0, sys.argv[1]); import build_ffi"


def _build(tmp_path, **env_over):
    env = dict(os.environ)
    env.update(env_over)
    return subprocess.run([sys.executable, "-c", LOAD, str(ROOT / "bindings" / "python")],
                          capture_output=True, text=True, env=env, cwd=str(tmp_path))


def test_missing_header_names_pb_h(tmp_path):
    res = _build(tmp_path, NANOPB_INC=str(tmp_path / "empty"))
    assert res.returncode == 1
    assert res.stderr.startswith("tfnano: nanopb's header pb.h was not found in %s"
                                 % (tmp_path / "empty"))
    assert "libprotobuf-nanopb.a was not found" not in res.stderr
    assert "Traceback" not in res.stderr and len(res.stderr.splitlines()) <= 8
    assert "apt-get install -y libnanopb-dev" in res.stderr
    assert "wheel" in res.stderr  # the way that needs no build at all


def test_missing_archive_names_the_archive(tmp_path):
    res = _build(tmp_path, NANOPB_A=str(tmp_path / "libprotobuf-nanopb.a"))
    if not os.path.isfile("/usr/include/pb.h"):
        pytest.fail("this test needs nanopb's headers (make deps)")
    assert res.returncode == 1
    assert res.stderr.startswith("tfnano: NANOPB_A=%s does not exist."
                                 % (tmp_path / "libprotobuf-nanopb.a"))
    assert "pb.h was not found" not in res.stderr and "Traceback" not in res.stderr
