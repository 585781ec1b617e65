"""One iterator read by several threads, over every kind of pipeline, with random
interleavings, Ctrl-C (SIGINT) at random moments and abandonment at random points.

Each trial (in this process) builds one pipeline whose elements are the integers
0..N-1 (records carry their number), starts 2-4 threads that each pull from the same
iterator with random pauses, and checks: every thread ends (no hang), every element
arrives exactly once (none lost, none twice), and once the iterator is closed or
exhausted no tfnano thread and no file descriptor is left behind.

    python test/stress/shared_iterator.py --trials 1000 [--seed S] [--sigint-every K]

SIGINT trials run in a child process (the signal goes to that child alone): it must
end with KeyboardInterrupt within the deadline. Exit status 0 when every trial passes;
the summary line counts hangs, lost / duplicated elements and leaked threads / fds.
"""
import argparse
import os
import random
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import numpy as np  # noqa: E402

import tfnano as tf  # noqa: E402

N = 240          # elements per pipeline
FILES = 3        # TFRecord files the record pipelines read
DEADLINE = 30.0  # seconds a trial may take before it counts as a hang


def write_files(tmp):
    """FILES TFRecord files of serialized Examples {"i": [n]}, n = 0..N-1 dealt
    round-robin, and the same numbers as plain records."""
    paths = []
    for f in range(FILES):
        p = os.path.join(tmp, "part-%d.tfrecord" % f)
        with tf.io.TFRecordWriter(p) as w:
            for n in range(f, N, FILES):
                ex = tf.train.Example(features=tf.train.Features(feature={
                    "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[n]))}))
                w.write(ex.SerializeToString())
        paths.append(p)
    return paths


FEATURES = {"i": tf.io.FixedLenFeature([], tf.int64)}


def _parse_batch(b):
    return tf.io.parse_example(b, FEATURES)["i"]


def _parse_one(r):
    return tf.io.parse_single_example(r, FEATURES)["i"]


def pipelines(paths):
    """name -> (builder, flatten): each builder makes a fresh Dataset; flatten turns
    one element into the integers it carries."""
    one = lambda x: [int(x)]  # noqa: E731
    many = lambda x: [int(v) for v in np.asarray(x).ravel()]  # noqa: E731
    r = tf.data.Dataset.range
    recs = lambda **kw: tf.data.TFRecordDataset(paths, **kw)  # noqa: E731

    def gen():
        for i in range(N):
            yield i

    return {
        "range": (lambda: r(N), one),
        "prefetch": (lambda: r(N).prefetch(2), one),
        "map-parallel": (lambda: r(N).map(lambda x: x + 0, num_parallel_calls=4), one),
        "map-python": (lambda: r(N).map(
            lambda x: tf.py_function(lambda v: v, [x], tf.int64),
            num_parallel_calls=3, deterministic=False), one),
        "batch-unbatch": (lambda: r(N).batch(7).prefetch(3).unbatch(), one),
        "shuffle-batch": (lambda: r(N).shuffle(50, seed=1).batch(8), many),
        "interleave": (lambda: r(4).interleave(
            lambda k: r(N // 4).map(lambda x: x * 4 + k), cycle_length=4,
            num_parallel_calls=4), one),
        "generator": (lambda: tf.data.Dataset.from_generator(
            gen, output_signature=tf.TensorSpec([], tf.int64)).prefetch(4), one),
        "repeat-take": (lambda: r(N // 4).repeat(4).enumerate().map(
            lambda k, x: k).prefetch(2), one),
        "records": (lambda: recs().map(_parse_one), one),
        "records-parallel": (lambda: recs(num_parallel_reads=3).map(
            _parse_one, num_parallel_calls=2).prefetch(1), one),
        "records-engine": (lambda: recs(num_parallel_reads=3).batch(16).map(
            _parse_batch), many),
        "records-engine-single": (lambda: recs(num_parallel_reads=2).map(
            _parse_one, num_parallel_calls=2).batch(10), many),
    }


def tfnano_threads():
    return [t for t in threading.enumerate()
            if t is not threading.main_thread() and t.name.startswith("tfnano")]


def open_fds():
    try:
        return len(os.listdir("/proc/self/fd"))
    except OSError:
        return -1


def c_threads():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return -1


def trial(rng, name, build, flatten, stats):
    """One shared-iterator trial; returns a failure string or None."""
    ds = build()
    it = iter(ds)
    got = []
    got_lock = threading.Lock()
    errors = []
    # abandon the iterator after this many elements (None: read to the end)
    stop_after = rng.choice([None, None, rng.randrange(0, N)])
    stop = threading.Event()
    nthreads = rng.randint(2, 4)
    pauses = [rng.choice([0, 0, 0.0001, 0.001]) for _ in range(nthreads)]

    def reader(k):
        try:
            while not stop.is_set():
                try:
                    el = next(it)
                except StopIteration:
                    return
                vals = flatten(el)
                with got_lock:
                    got.extend(vals)
                    if stop_after is not None and len(got) >= stop_after:
                        stop.set()
                if pauses[k]:
                    time.sleep(pauses[k] * rng.random())
        except BaseException as e:  # reported, never swallowed
            errors.append(repr(e))

    ts = [threading.Thread(target=reader, args=(k,), name="stress-%d" % k)
          for k in range(nthreads)]
    for t in ts:
        t.start()
    end = time.monotonic() + DEADLINE
    for t in ts:
        t.join(max(0.0, end - time.monotonic()))
    if any(t.is_alive() for t in ts):
        stats["hangs"] += 1
        stop.set()
        it.close()
        return "%s: hang (%d threads, %d elements)" % (name, nthreads, len(got))
    it.close()
    del it
    if errors:
        return "%s: error in a reader: %s" % (name, errors[0])
    if len(got) != len(set(got)):
        stats["duplicated"] += len(got) - len(set(got))
        return "%s: %d duplicated elements" % (name, len(got) - len(set(got)))
    if stop_after is None:
        missing = set(range(N)) - set(got)
        if missing:
            stats["lost"] += len(missing)
            return "%s: %d elements lost" % (name, len(missing))
    return None


def settle(before_threads, before_fds, before_tasks):
    """Waits (briefly) for closed stages' threads to end; returns leak counts."""
    end = time.monotonic() + 5.0
    while time.monotonic() < end:
        if (not tfnano_threads() and open_fds() <= before_fds
                and c_threads() <= before_tasks):
            return 0, 0
        time.sleep(0.02)
    return (max(len(tfnano_threads()) - before_threads, c_threads() - before_tasks, 0),
            max(open_fds() - before_fds, 0))


SIGINT_CHILD = r"""
import os, sys, threading, time, random, faulthandler, signal
faulthandler.register(signal.SIGUSR1, all_threads=True)  # the stacks of a hung child
sys.path.insert(0, %(here)r)
import shared_iterator as s
paths, name, seed = sys.argv[1].split(","), sys.argv[2], int(sys.argv[3])
build, flatten = s.pipelines(paths)[name]
rng = random.Random(seed)
ds = build().repeat()
it = iter(ds)
def side():
    try:
        for _ in it:
            time.sleep(rng.choice([0, 0.0005]))
    except Exception:
        pass
for _ in range(rng.randint(1, 3)):
    threading.Thread(target=side, daemon=True).start()
print("ready", flush=True)
try:
    for x in it:
        pass
except KeyboardInterrupt:
    print("interrupted", flush=True)
    it.close()
    sys.exit(0)
"""


def sigint_trial(rng, paths, name, stats):
    """A child reads `name` under repeat() from 2-4 threads; SIGINT after a random
    delay must end it with KeyboardInterrupt, and it must exit."""
    code = SIGINT_CHILD % {"here": HERE}
    env = dict(os.environ, TFNANO_C_PIPELINE=os.environ.get("TFNANO_C_PIPELINE", "1"))
    p = subprocess.Popen([sys.executable, "-c", code, ",".join(paths), name,
                          str(rng.randrange(1 << 30))],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        line = p.stdout.readline()
        if line.strip() != "ready":
            p.kill()
            out, err = p.communicate()
            return "%s: child did not start: %s" % (name, err.strip()[-300:])
        time.sleep(rng.uniform(0.0, 0.3))
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=DEADLINE)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGUSR1)  # its threads' stacks, for the report
        time.sleep(1)
        p.kill()
        _, err = p.communicate()
        stats["hangs"] += 1
        return "%s: no exit within %ds of SIGINT; its threads:\n%s" % (
            name, DEADLINE, err.strip()[-4000:])
    if p.returncode != 0 or "interrupted" not in out:
        return "%s: SIGINT ended the child with %s: %s" % (name, p.returncode,
                                                           err.strip()[-300:])
    return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--sigint-every", type=int, default=10,
                    help="every K-th trial is a SIGINT trial in a child (0: none)")
    ap.add_argument("--only", default=None, help="comma-separated pipeline names")
    a = ap.parse_args(argv)
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    stats = {"trials": 0, "sigint": 0, "hangs": 0, "lost": 0, "duplicated": 0,
             "leaked_threads": 0, "leaked_fds": 0}
    failures = []
    with tempfile.TemporaryDirectory(prefix="tfnano-stress-") as tmp:
        paths = write_files(tmp)
        kinds = pipelines(paths)
        if a.only:
            kinds = {k: kinds[k] for k in a.only.split(",")}
        names = sorted(kinds)
        t0 = time.monotonic()
        # warm up imports and lazily created state before the baseline
        trial(random.Random(0), names[0], *kinds[names[0]], dict(stats))
        base = (len(tfnano_threads()), open_fds(), c_threads())
        for i in range(a.trials):
            name = names[i % len(names)] if i < len(names) else rng.choice(names)
            stats["trials"] += 1
            if a.sigint_every and i % a.sigint_every == a.sigint_every - 1:
                stats["sigint"] += 1
                f = sigint_trial(rng, paths, name, stats)
            else:
                f = trial(rng, name, *kinds[name], stats)
                threads, fds = settle(*base)
                if threads or fds:
                    stats["leaked_threads"] += threads
                    stats["leaked_fds"] += fds
                    f = f or "%s: %d threads and %d fds left" % (name, threads, fds)
                    base = (len(tfnano_threads()), open_fds(), c_threads())
            if f:
                failures.append(f)
                print("FAIL trial %d: %s" % (i, f), file=sys.stderr, flush=True)
            if (i + 1) % 100 == 0:
                print("stress: %d/%d trials, %.0f s" % (i + 1, a.trials, time.monotonic() - t0),
                      file=sys.stderr, flush=True)
    print("stress seed %d: %s; %d failures" % (
        seed, ", ".join("%s %d" % kv for kv in stats.items()), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
