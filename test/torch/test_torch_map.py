"""TFRecordMapDataset, collate, to_torch, pickling, index files shared with vahidk's
tfrecord package, and the W1 exactly-once check through DataLoader."""
import pickle

import numpy as np
import pytest
import torch
from torch.utils.data import (BatchSampler, DataLoader, DistributedSampler, RandomSampler,
                              SequentialSampler)

import tfnano as tf
from tfnano import errors
from tfnano.io import index as ix
from tfnano.torch import TFRecordIterableDataset, TFRecordMapDataset, collate, to_torch

from shards import FEATURES, W1_FEATURES, write_shards, write_w1_shards

SIZES = [40, 0, 75, 26]
TOTAL = sum(SIZES)
NUMERIC = {k: FEATURES[k] for k in ("id", "x", "tokens")}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_shards(tmp_path_factory.mktemp("map"), SIZES)


def test_len_and_getitem(files):
    ds = TFRecordMapDataset(files, FEATURES)
    assert len(ds) == TOTAL
    for i in (0, 39, 40, 114, TOTAL - 1, -1):
        r = ds[i]
        j = i % TOTAL
        assert int(r["id"]) == j and r["id"].dtype == torch.int64 and r["id"].shape == ()
        assert r["x"].tolist() == [j, 2 * j, 3 * j]
        assert r["tokens"].tolist() == list(range(j % 7))
        assert r["name"] == b"rec-%d" % j
    with pytest.raises(IndexError):
        ds[TOTAL]


def test_samplers_and_collates(files):
    ds = TFRecordMapDataset(files, NUMERIC, int32=["tokens"])
    for collate_fn in (None, collate):
        dl = DataLoader(ds, batch_size=16, sampler=RandomSampler(ds, generator=torch.Generator()
                                                                 .manual_seed(0)),
                        collate_fn=collate_fn)
        seen = []
        for b in dl:
            ids = b["id"].numpy()
            seen += ids.tolist()
            assert np.array_equal(b["x"].numpy()[:, 1], 2 * ids)
            assert b["tokens"].dtype == torch.int32
        assert sorted(seen) == list(range(TOTAL))
    dl = DataLoader(ds, sampler=BatchSampler(SequentialSampler(ds), 10, False),
                    batch_size=None, collate_fn=collate)
    assert torch.cat([b["id"] for b in dl]).tolist() == list(range(TOTAL))


def test_getitems_is_one_parse_and_default_collate_agrees(files):
    ds = TFRecordMapDataset(files, FEATURES)
    idx = [5, 100, 3, 41, 41]
    batch = ds.__getitems__(idx)
    assert len(batch) == 5 and int(batch[1]["id"]) == 100
    fast = collate(batch)
    slow = torch.utils.data.default_collate(list(batch))
    for k in ("id", "x", "tokens"):
        assert torch.equal(fast[k], slow[k])
    assert list(fast["name"]) == [b"rec-%d" % i for i in idx] == list(slow["name"])


def test_collate_of_single_records_pads_and_casts(files):
    ds = TFRecordMapDataset(files, NUMERIC)
    recs = [ds[i] for i in (1, 6, 3)]  # tokens of 1, 6 and 3 values
    b = collate(recs, int32=True)
    assert b["tokens"].shape == (3, 6) and b["tokens"].dtype == torch.int32
    assert b["tokens"][2].tolist() == [0, 1, 2, 0, 0, 0]
    assert collate(recs, output="numpy")["id"].dtype == np.int64
    big = [{"v": torch.tensor(2 ** 40)}]
    with pytest.raises(ValueError, match="int32"):
        collate(big, int32=True)


def test_distributed_sampler(files):
    seen = []
    for rank in range(3):
        ds = TFRecordMapDataset(files, NUMERIC)
        s = DistributedSampler(ds, num_replicas=3, rank=rank, shuffle=True, seed=4)
        s.set_epoch(2)
        dl = DataLoader(ds, batch_size=8, sampler=s, collate_fn=collate, num_workers=2)
        seen += torch.cat([b["id"] for b in dl]).tolist()
    assert set(seen) == set(range(TOTAL)) and len(seen) == 3 * -(-TOTAL // 3)


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_map_dataset_in_workers_and_pickled(files, start_method):
    ds = TFRecordMapDataset(files, NUMERIC)
    _ = ds[3]  # opens readers and a parser, which must not travel
    copy = pickle.loads(pickle.dumps(ds))
    assert int(copy[7]["id"]) == 7
    dl = DataLoader(ds, batch_size=9, shuffle=True, num_workers=2,
                    multiprocessing_context=start_method, collate_fn=collate)
    assert sorted(torch.cat([b["id"] for b in dl]).tolist()) == list(range(TOTAL))


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files_by_seek_points(tmp_path, compression):
    paths = write_shards(tmp_path, [300, 0, 200], compression)
    ds = TFRecordMapDataset(paths, NUMERIC)
    assert len(ds) == 500
    assert [int(ds[i]["id"]) for i in (0, 299, 300, 499, -1)] == [0, 299, 300, 499, 499]
    dl = DataLoader(ds, batch_size=32, shuffle=True, collate_fn=collate, num_workers=2)
    seen = torch.cat([b["id"] for b in dl]).tolist()
    assert sorted(seen) == list(range(500))
    b = collate(ds.__getitems__([450, 3, 77]))
    assert b["id"].tolist() == [450, 3, 77] and b["x"][:, 2].tolist() == [1350, 9, 231]


def test_damaged_compressed_record_raises(tmp_path):
    paths = write_shards(tmp_path, [20], "ZLIB")
    raw = bytearray(open(paths[0], "rb").read())
    raw[len(raw) // 2] ^= 0x10
    open(paths[0], "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError):
        ds = TFRecordMapDataset(paths, NUMERIC)
        [ds[i] for i in range(len(ds))]


def test_parser_and_spec_pickle():
    p = tf.Parser(NUMERIC, int32=True, maxlen=3, masks=True)
    q = pickle.loads(pickle.dumps(p))
    ex = tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[7])),
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1, 2, 3])),
        "tokens": tf.train.Feature(int64_list=tf.train.Int64List(value=[4, 5, 6, 7]))}))
    a, b = p.parse([ex.SerializeToString()] * 2), q.parse([ex.SerializeToString()] * 2)
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype and np.array_equal(a[k], b[k])
    assert b["tokens"].tolist() == [[4, 5, 6]] * 2 and b["tokens"].dtype == np.int32


def test_to_torch_converts_tfnano_tensors():
    # torch's default_convert leaves an ndarray subclass from another module as it is
    ex = tf.train.Example(features=tf.train.Features(feature={
        "id": tf.train.Feature(int64_list=tf.train.Int64List(value=[3]))})).SerializeToString()
    parsed = tf.io.parse_example([ex, ex], {"id": tf.io.FixedLenFeature([], tf.int64)})
    assert isinstance(parsed["id"], tf.Tensor)
    out = to_torch(parsed)
    assert isinstance(out["id"], torch.Tensor) and out["id"].tolist() == [3, 3]
    assert torch.as_tensor(np.asarray(parsed["id"])).tolist() == [3, 3]


# ------------------------------------------------------------ vahidk/tfrecord interop

def test_tfnano_index_read_by_vahidk(files, tmp_path):
    from tfrecord.torch.dataset import TFRecordDataset as VahidkDataset
    path = files[2]
    idx_path = str(tmp_path / "c.idx")
    ix.build_index(path, out=idx_path)
    import tfrecord.reader as vr
    desc = {"id": "int", "x": "float"}
    got = []
    for shard in range(3):  # vahidk splits a file by its index lines
        got += [int(r["id"][0]) for r in vr.tfrecord_loader(path, idx_path, desc,
                                                            shard=(shard, 3))]
    assert sorted(got) == list(range(40, 115))
    whole = [int(r["id"][0]) for r in VahidkDataset(path, idx_path, desc)]
    assert sorted(whole) == list(range(40, 115))


def test_vahidk_index_read_by_tfnano(files, tmp_path):
    from tfrecord.tools.tfrecord2idx import create_index
    path = files[0]
    out = str(tmp_path / "v.idx")
    create_index(path, out)
    theirs = ix.RecordIndex.load(out)
    assert theirs == ix.build_index(path)
    ds = TFRecordMapDataset([path], NUMERIC, index=out)
    assert [int(ds[i]["id"]) for i in range(len(ds))] == list(range(40))


# ------------------------------------------------------------ W1 in 4 shards

@pytest.mark.parametrize("workers", [0, 2])
def test_w1_four_shards_nothing_duplicated_or_missing(tmp_path_factory, workers):
    folder = tmp_path_factory.mktemp("w1")
    paths, cols = write_w1_shards(folder, 600)
    expected = {row.tobytes() for row in cols["labels"]}
    assert len(expected) == 600
    ds = TFRecordIterableDataset(paths, W1_FEATURES, batch_size=64, shuffle=True, int32=True)
    got = [row.tobytes() for b in DataLoader(ds, batch_size=None, num_workers=workers)
           for row in b["labels"].numpy()]
    assert len(got) == len(set(got)) == 600 and set(got) == expected
    m = TFRecordMapDataset(paths, W1_FEATURES, int32=True)
    got = [row.tobytes() for b in DataLoader(m, batch_size=64, shuffle=True, collate_fn=collate,
                                             num_workers=workers)
           for row in b["labels"].numpy()]
    assert len(got) == len(set(got)) == 600 and set(got) == expected


@pytest.mark.parametrize("opts", [{}, {"int32": True, "maxlen": 4, "masks": True}])
def test_worker_batches_in_shared_memory_match(files, opts):
    ds = TFRecordMapDataset(files, NUMERIC, **opts)
    order = torch.randperm(TOTAL, generator=torch.Generator().manual_seed(1)).tolist()
    sampler = BatchSampler(order, 16, False)
    here = list(DataLoader(ds, sampler=sampler, batch_size=None, collate_fn=collate))
    for collate_fn in (collate, None):
        kw = {"collate_fn": collate_fn} if collate_fn else {}
        there = list(DataLoader(ds, batch_size=16, sampler=order, num_workers=2, **kw))
        assert len(here) == len(there)
        for a, b in zip(here, there):
            assert a.keys() == b.keys()
            for k in a:
                assert a[k].dtype == b[k].dtype and torch.equal(a[k], b[k]), k
