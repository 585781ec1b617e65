"""Differential pipeline fuzzer: random tf.data pipelines (pipeline_fuzz.py: sources of
random int / float / bool / string arrays in tuples and dicts, ranges, TFRecord files of
Examples; maps of common ops returning tuples, lists, dicts and nested structures;
batch, padded_batch, unbatch, interleave, seeded shuffle, filter, take, skip, repeat,
cache, enumerate; Python scalars as arguments) run under TensorFlow 2.21 and tfnano,
element by element: values, the type and dtype of .numpy(), shapes, element_spec,
order, and the error class and text.

make conformance runs a fixed, derandomized budget (TFNANO_FUZZ_EXAMPLES, default 80);
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

EXAMPLES = int(os.environ.get("TFNANO_FUZZ_EXAMPLES", "80"))
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
    # fill(shape(x)) of a known shape: TensorFlow's static shape, not [None, None]
    (("range", (1,)), (("enumerate",), ("batch", 3, True), ("map", "fill_like", 0.5),
                       ("map", "one_hot", 3))),
    (("slices", ("dict", ("k0", ("dict", ("k0", ("leaf", "float64", (6, 2, 2), 5)),
                                 ("k1", ("leaf", "float32", (6,), 3)))),
                 ("k1", ("dict", ("k0", ("leaf", "float64", (6, 2, 2), 4)))))),
     (("map", "fill_like", 0.5),)),
    # unbatch of scalars, and of unequal leading dimensions: ValueError when made
    (("slices", ("leaf", "string", (7, 2, 2), 715)), (("unbatch",), ("unbatch",),
                                                      ("unbatch",))),
    (("range", (0, 11, 4)), (("repeat", 1), ("unbatch",), ("filter", 2))),
    (("slices", ("tuple", ("leaf", "float32", (0, 3), 750),
                 ("dict", ("k0", ("leaf", "int32", (0, 3), 127)),
                  ("k2", ("leaf", "float64", (0, 2), 3))))),
     (("map", "cast_float", 2), ("unbatch",), ("unbatch",))),
    # a list inside the returned structure: one tensor of the tensors' dtype
    (("records", ()), ()),
    (("records", (((), (0.0, 992724.8125), b")"), ((7,), (-2.5, 501933.4375), b"/"))),
     (("batch", 2, False),)),
    (("slices", ("tuple", ("leaf", "int32", (6, 2, 2), 3), ("leaf", "float64", (6, 2), 763))),
     (("unbatch",), ("take", 3), ("padded_batch", 4, False), ("map", "fill_like", 0.5))),
    # interleave of batches with an unknown first dimension keeps it unknown
    (("slices", ("leaf", "float64", (5, 3), 564)),
     (("map", "cast_float", -1), ("prefetch", 2), ("padded_batch", 4, False),
      ("interleave", 2, 2))),
    # one string indexed out of a string tensor: .numpy() is bytes, as TensorFlow's
    (("slices", ("dict", ("k0", ("leaf", "int32", (4, 3), 26)),
                 ("k1", ("leaf", "string", (4, 3), 72)))), (("map", "index_zero", True),)),
    # shuffle (and maps after it) then repeat(0): TensorFlow's fused ShuffleAndRepeat
    # refuses the count when the iterator is made
    (("range", (0,)), (("map", "as_list", 2), ("shuffle", 1, 0), ("repeat", 0))),
    # expand_dims keeps the known sizes of the element spec
    (("slices", ("dict", ("k0", ("leaf", "int32", (0, 2), 231)),
                 ("k1", ("leaf", "float64", (0, 2, 2), 545)))),
     (("batch", 1, False), ("map", "cast_int64", 2), ("filter", 2), ("map", "expand", -1))),
    # an integer index keeps the other known sizes of the element spec
    (("slices", ("leaf", "int32", (0, 2), 0)), (("batch", 1, False), ("map", "index_zero", 2))),
    # a string op on numbers: TensorFlow's TypeError when the map is made
    (("range", (0,)), (("map", "upper", 2),)),
    # a list that cannot be packed (a vector and a scalar): refused when made
    (("slices", ("leaf", "int32", (0, 2), 0)), (("map", "nested_dict", 2), ("batch", 1, False),
                                                ("map", "as_list", 2))),
    # as_string of strings
    (("slices", ("tuple", ("leaf", "int64", (2,), 2))), (("map", "as_string", 2),
                                                         ("map", "as_string", 2))),
]


@pytest.mark.parametrize("pipeline", FOUND)
def test_found_cases(pipeline, tmp_path):
    check(pipeline, tmp_path)
