"""Differential pipeline fuzzer: random tf.data pipelines (pipeline_fuzz.py: sources of
random int / float / bool / string arrays in tuples and dicts, ranges, TFRecord files of
Examples; maps of common ops returning tuples, lists, dicts and nested structures;
batch, padded_batch, unbatch, interleave, seeded shuffle, filter, take, skip, repeat,
cache, enumerate; Python scalars as arguments) run under TensorFlow 2.21 and tfnano,
element by element: values, the type and dtype of .numpy(), shapes, element_spec,
order, and the error class and text.

make conformance runs a fixed, derandomized budget (TFNANO_FUZZ_EXAMPLES, default 120);
make fuzz-pipelines a longer random run. Every case it found is kept below as an
explicit regression test."""
import os
import sys
from pathlib import Path

import pytest

tf = pytest.importorskip("tensorflow")
hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bindings" / "python"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import tfnano as tn  # noqa: E402
import pipeline_fuzz as pf  # noqa: E402

EXAMPLES = int(os.environ.get("TFNANO_FUZZ_EXAMPLES", "120"))
RANDOM = os.environ.get("TFNANO_FUZZ_RANDOM", "") == "1"
STRICT = os.environ.get("TFNANO_FUZZ_STRICT", "") == "1"


def check(pipeline, tmpdir):
    tf.random.set_seed(None)
    tn.random.set_seed(None)
    want = pf.outcome(tf, pipeline, str(tmpdir))
    got = pf.outcome(tn, pipeline, str(tmpdir))
    if not STRICT and pf.deferred_trace_error(want, got):
        return
    assert got == want, "pipeline %r" % (pipeline,)


@settings(max_examples=EXAMPLES, derandomize=not RANDOM, deadline=None, database=None,
          suppress_health_check=list(HealthCheck), print_blob=True)
@given(pipeline=pf.pipelines)
def test_random_pipelines(pipeline, tmp_path_factory):
    check(pipeline, tmp_path_factory.mktemp("fuzz"))


# Cases the fuzzer found, kept as they were drawn.
FOUND = [
]


@pytest.mark.parametrize("pipeline", FOUND)
def test_found_cases(pipeline, tmp_path):
    check(pipeline, tmp_path)
