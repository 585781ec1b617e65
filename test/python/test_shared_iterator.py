"""One iterator read by several threads (Keras reads one from a prefetch thread and
the main thread), and Ctrl-C while threads block on it. Every case runs in a child
process with a deadline, so a hang fails the test instead of stopping the suite.
The long version is `make stress` (test/stress/shared_iterator.py)."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STRESS = os.path.join(ROOT, "test", "stress", "shared_iterator.py")
PYPATH = os.path.join(ROOT, "bindings", "python")


def run(code, *args, timeout=60, env=None):
    e = dict(os.environ, PYTHONPATH=PYPATH)
    e.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)] + list(args),
                          capture_output=True, text=True, timeout=timeout, env=e)


TWO_READERS = """
    import sys, threading
    import tfnano as tf
    kind = sys.argv[1]
    ds = tf.data.Dataset.range(1000)
    ds = {"prefetch": ds.prefetch(2),
          "map": ds.map(lambda x: x * 2, num_parallel_calls=4),
          "plain": ds}[kind]
    it = iter(ds)
    got, ends = [], []
    def read():
        for x in it:
            got.append(int(x))
        ends.append(1)
        # after the end, every later call ends too
        try:
            next(it)
        except StopIteration:
            ends.append(2)
    ts = [threading.Thread(target=read, daemon=True) for _ in range(2)]
    for t in ts: t.start()
    for t in ts: t.join(20)
    print(len(got), len(set(got)), sum(t.is_alive() for t in ts), sorted(ends))
"""


@pytest.mark.parametrize("kind", ["prefetch", "map", "plain"])
def test_two_threads_both_get_stop_iteration(kind):
    out = run(TWO_READERS, kind)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["1000", "1000", "0", "[1,", "1,", "2,", "2]"]


def test_short_stress_every_pipeline_kind():
    """26 trials: each pipeline kind twice (Python stages, the C engine)."""
    out = subprocess.run([sys.executable, STRESS, "--trials", "26", "--seed", "11",
                          "--sigint-every", "0"], capture_output=True, text=True,
                         timeout=240, env=dict(os.environ, TFNANO_C_PIPELINE="1"))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "hangs 0, lost 0, duplicated 0, leaked_threads 0, leaked_fds 0" in out.stdout


@pytest.mark.parametrize("engine", ["0", "1"])
def test_sigint_under_repeat_with_shared_iterator(engine):
    """Ctrl-C while 2-4 threads read one repeat()ed iterator: KeyboardInterrupt in
    the main thread and a clean exit, on the Python-thread path and on the engine."""
    out = subprocess.run([sys.executable, STRESS, "--trials", "3", "--seed", "5",
                          "--sigint-every", "1", "--only",
                          "records-parallel,records-engine,prefetch"],
                         capture_output=True, text=True, timeout=240,
                         env=dict(os.environ, TFNANO_C_PIPELINE=engine))
    assert out.returncode == 0, out.stdout + out.stderr
    assert "sigint 3, hangs 0" in out.stdout


def test_closing_from_another_thread_wakes_a_blocked_reader():
    out = run("""
        import threading, time
        import tfnano as tf
        def slow(x):
            time.sleep(0.2)
            return x
        ds = tf.data.Dataset.range(100).map(
            lambda x: tf.py_function(slow, [x], tf.int64)).prefetch(1)
        it = iter(ds)
        next(it)
        res = []
        def read():
            try:
                for x in it:
                    pass
                res.append("stop")
            except Exception as e:
                res.append(repr(e))
        t = threading.Thread(target=read, daemon=True)
        t.start()
        time.sleep(0.1)
        it.close()
        t.join(10)
        print(t.is_alive(), res)
    """)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False ['stop']"
