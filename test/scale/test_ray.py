"""The Ray Data recipe of docs/scale.md (map_batches with from_arrow / to_arrow) on a
local Ray instance with 2 CPUs."""
import numpy as np
import pyarrow as pa
import pytest
import ray

import tfnano as tf
from tfnano import arrow as ta


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
             configure_logging=False)
    yield
    ray.shutdown()


def test_map_batches_encode_then_parse(local_ray):
    n = 1000
    tokens = [[i, i + 1, i + 2][: i % 4] for i in range(n)]
    table = pa.table({"id": pa.array(np.arange(n)), "score": pa.array(np.arange(n) / 4.0),
                      "tokens": pa.array(tokens, pa.list_(pa.int64()))})
    features = {"id": tf.io.FixedLenFeature([], tf.int64),
                "score": tf.io.FixedLenFeature([], tf.float32),
                "tokens": tf.io.VarLenFeature(tf.int64)}
    ds = ray.data.from_arrow(table).repartition(4)
    encoded = ds.map_batches(lambda t: pa.table({"record": ta.from_arrow(t, as_arrow=True)}),
                             batch_format="pyarrow")
    parsed = encoded.map_batches(
        lambda t: pa.Table.from_batches([ta.to_arrow(t["record"], features)]),
        batch_format="pyarrow")
    got = pa.concat_tables(ray.get(parsed.to_arrow_refs())).sort_by("id")
    assert got.column("id").to_pylist() == list(range(n))
    assert got.column("score").to_pylist() == [i / 4.0 for i in range(n)]
    assert got.column("tokens").to_pylist() == tokens
    records = pa.concat_tables(ray.get(encoded.to_arrow_refs())).column("record")
    assert sorted(records.to_pylist()) == sorted(ta.from_arrow(table))
