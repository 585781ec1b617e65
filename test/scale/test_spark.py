"""The Spark recipe of docs/scale.md (mapInArrow with from_arrow / to_arrow) on a local
Spark (local[2]: the machine's JVM, Python workers on this interpreter with tfnano from
the tree), encoding a DataFrame to Examples and parsing them back."""
import os
import shutil
import sys
from pathlib import Path

import pyarrow as pa
import pytest
from pyspark.sql import SparkSession

import tfnano as tf
from tfnano import arrow as ta

FEATURES = {"id": tf.io.FixedLenFeature([], tf.int64),
            "vec": tf.io.FixedLenFeature([2], tf.float32),
            "tokens": tf.io.VarLenFeature(tf.int64),
            "name": tf.io.FixedLenFeature([], tf.string)}


@pytest.fixture(scope="module")
def spark():
    if shutil.which("java") is None:
        pytest.fail("Spark needs a JVM: `java` is not on PATH (make venv-scale installs "
                    "Debian's openjdk-17-jre-headless)")
    # the Python workers are other processes: they find tfnano through PYTHONPATH
    tree = str(Path(__file__).resolve().parents[2] / "bindings" / "python")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [tree] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    session = (SparkSession.builder.master("local[2]").appName("tfnano-test")
               .config("spark.ui.enabled", "false")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.sql.shuffle.partitions", "2")
               .getOrCreate())
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def test_map_in_arrow_encode_then_parse(spark):
    # The recipe's functions, defined here as a notebook defines them (Spark pickles
    # functions of an importable module by name, and its workers cannot import tests).
    features = FEATURES
    # Spark has no fixed_size_list type: those columns are read as plain lists
    spark_schema = pa.schema([pa.field(f.name, pa.list_(f.type.value_type))
                              if pa.types.is_fixed_size_list(f.type) else f
                              for f in ta.schema(features)])

    def encode(batches):  # table rows -> one binary column of Examples
        for b in batches:
            yield pa.RecordBatch.from_arrays([ta.from_arrow(b, as_arrow=True)], ["record"])

    def decode(batches):  # a binary column of Examples -> typed columns
        for b in batches:
            yield ta.to_arrow(b.column("record"), features).cast(spark_schema)

    n = 500
    rows = [(i, [float(i), i / 2.0], [i, i + 1, i + 2][: i % 4], ("r%d" % i).encode())
            for i in range(n)]
    df = spark.createDataFrame(rows, "id long, vec array<float>, tokens array<long>, "
                                     "name binary").repartition(3)
    records = df.mapInArrow(encode, "record binary")
    parsed = records.mapInArrow(
        decode, "id long, vec array<float>, tokens array<long>, name binary")
    got = sorted((r.id, list(r.vec), list(r.tokens), bytes(r.name)) for r in parsed.collect())
    assert got == [(i, v, t, nm) for i, v, t, nm in rows]
    # the records are the ones tfnano writes from the same table in one process
    table = pa.table({"id": pa.array([r[0] for r in rows], pa.int64()),
                      "vec": pa.array([r[1] for r in rows], pa.list_(pa.float32())),
                      "tokens": pa.array([r[2] for r in rows], pa.list_(pa.int64())),
                      "name": pa.array([r[3] for r in rows], pa.binary())})
    spark_records = sorted(bytes(r.record) for r in records.collect())
    assert spark_records == sorted(ta.from_arrow(table))
