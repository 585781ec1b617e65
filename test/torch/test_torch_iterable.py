"""TFRecordIterableDataset: each record exactly once across DataLoader workers x ranks,
set_epoch, even splits, resuming, pickling."""
import pickle

import numpy as np
import pytest
import torch
from torch.utils.data import DataLoader

from tfnano import errors
from tfnano.torch import TFRecordIterableDataset
from tfnano.torch._iterable import _Iterator

from shards import FEATURES, write_shards

pytestmark = pytest.mark.filterwarnings("ignore:This DataLoader will create")

SIZES = [97, 130, 1, 0, 212]  # uneven, one record, one empty file
TOTAL = sum(SIZES)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return write_shards(tmp_path_factory.mktemp("shards"), SIZES)


def ids_of(batches):
    out = [b["id"].numpy() if isinstance(b["id"], torch.Tensor) else np.asarray(b["id"])
           for b in batches]
    return np.concatenate(out).tolist() if out else []


def worker_stream(ds, worker, workers, start=(0, 0)):
    """What DataLoader worker `worker` of `workers` yields, run in this process."""
    return list(_Iterator(ds, worker, workers, start))


def round_robin(streams):
    """DataLoader's order: one batch from each worker in turn."""
    out, i = [], 0
    while any(i < len(s) for s in streams):
        out.extend(s[i] for s in streams if i < len(s))
        i += 1
    return out


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize("world", [1, 2, 3])
@pytest.mark.parametrize("workers", [1, 2, 4])
def test_every_record_once(files, workers, world, shuffle):
    seen = []
    for rank in range(world):
        ds = TFRecordIterableDataset(files, FEATURES, batch_size=16, shuffle=shuffle, seed=5,
                                     rank=rank, world_size=world, block_size=32,
                                     shuffle_window=64)
        streams = [worker_stream(ds, w, workers) for w in range(workers)]
        got = ids_of(round_robin(streams))
        assert len(got) == ds.plan().size
        # the order does not depend on the number of workers
        assert got == ids_of(worker_stream(ds, 0, 1))
        seen += got
    assert sorted(seen) == list(range(TOTAL))


@pytest.mark.parametrize("start_method", ["fork", "spawn"])
def test_dataloader_workers_and_ranks(files, start_method):
    worlds = [1, 2, 3] if start_method == "fork" else [2]
    workers = [0, 1, 2, 4] if start_method == "fork" else [2]
    for world in worlds:
        for nw in workers:
            seen = []
            for rank in range(world):
                ds = TFRecordIterableDataset(files, FEATURES, batch_size=16, shuffle=True,
                                             seed=1, rank=rank, world_size=world)
                dl = DataLoader(ds, batch_size=None, num_workers=nw,
                                multiprocessing_context=start_method if nw else None)
                batches = list(dl)
                assert len(batches) == len(ds) == len(dl)
                got = ids_of(batches)
                assert got == ids_of(worker_stream(ds, 0, 1)), "order depends on workers"
                seen += got
            assert sorted(seen) == list(range(TOTAL)), (world, nw)


def test_batches_are_torch_tensors_parsed_right(files):
    ds = TFRecordIterableDataset(files, FEATURES, batch_size=50, int32=["id"], masks=True)
    b = next(iter(ds))
    assert b["id"].dtype == torch.int32 and b["x"].dtype == torch.float32
    ids = b["id"].numpy()
    assert np.array_equal(b["x"].numpy(), np.stack([ids, 2 * ids, 3 * ids], 1))
    assert b["tokens"].shape == (50, 6) and b["tokens_mask"].dtype == torch.bool
    assert np.array_equal(b["tokens_length"].numpy(), ids % 7)
    assert list(b["name"]) == [b"rec-%d" % i for i in ids]
    npy = next(iter(TFRecordIterableDataset(files, FEATURES, batch_size=50, output="numpy")))
    assert isinstance(npy["x"], np.ndarray) and type(npy["x"]) is np.ndarray


def test_single_records_for_dataloader_batching(files):
    ds = TFRecordIterableDataset(files, {"id": FEATURES["id"], "x": FEATURES["x"]},
                                 batch_size=None)
    assert len(ds) == TOTAL
    recs = list(ds)
    assert [int(r["id"]) for r in recs] == list(range(TOTAL))
    dl = DataLoader(ds, batch_size=32, num_workers=2)
    assert sorted(ids_of(list(dl))) == list(range(TOTAL))


def test_even_split_pad_and_drop(files):
    for mode, per_rank in (("pad", -(-TOTAL // 3)), ("drop", TOTAL // 3)):
        seen = []
        for rank in range(3):
            ds = TFRecordIterableDataset(files, FEATURES, batch_size=10, shuffle=True,
                                         rank=rank, world_size=3, even_split=mode)
            got = ids_of(list(ds))
            assert len(got) == per_rank
            seen += got
        if mode == "pad":
            assert set(seen) == set(range(TOTAL))
            assert len(seen) - len(set(seen)) == 3 * per_rank - TOTAL
        else:
            assert len(set(seen)) == len(seen) == 3 * per_rank
    with pytest.raises(ValueError):
        TFRecordIterableDataset(files, FEATURES, even_split="even")


def test_drop_last(files):
    ds = TFRecordIterableDataset(files, FEATURES, batch_size=64, drop_last=True)
    sizes = [len(b["id"]) for b in ds]
    assert sizes == [64] * (TOTAL // 64) and len(ds) == TOTAL // 64


def test_set_epoch_reshuffles_and_ranks_agree(files):
    def stream(epoch, rank=0, world=1):
        ds = TFRecordIterableDataset(files, FEATURES, batch_size=8, shuffle=True, seed=3,
                                     rank=rank, world_size=world, block_size=16)
        ds.set_epoch(epoch)
        return ds, ids_of(list(ds))
    _, e0 = stream(0)
    _, e0_again = stream(0)
    _, e1 = stream(1)
    assert e0 == e0_again and e0 != e1 and sorted(e0) == sorted(e1) == list(range(TOTAL))
    for epoch in (0, 1, 7):
        plans = [stream(epoch, r, 3)[0].plan() for r in range(3)]
        for p in plans[1:]:  # every rank derives the same global block order
            assert np.array_equal(p.block_file, plans[0].block_file)
            assert np.array_equal(p.block_start, plans[0].block_start)
        seen = sum((stream(epoch, r, 3)[1] for r in range(3)), [])
        assert sorted(seen) == list(range(TOTAL))
    unshuffled = TFRecordIterableDataset(files, FEATURES, batch_size=8)
    assert ids_of(list(unshuffled)) == list(range(TOTAL))


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_resume_after_k_batches(files, workers):
    ds = TFRecordIterableDataset(files, FEATURES, batch_size=12, shuffle=True, seed=9,
                                 rank=1, world_size=2, block_size=20, shuffle_window=50)
    ds.set_epoch(4)
    full = ids_of(list(ds))
    it = iter(ds)
    k = 5
    first = [next(it) for _ in range(k)]
    state = it.get_state()
    assert state["epoch"] == 4 and state["batch"] == k
    assert state["file"] in files and isinstance(state["record"], int)
    f = files.index(state["file"])
    assert state["offset"] == ds.indexes[f].offsets[state["record"]]
    import json
    assert json.loads(json.dumps(state)) == state  # a checkpoint can hold it as is
    # a new process: same arguments, the saved state
    again = TFRecordIterableDataset(files, FEATURES, batch_size=12, shuffle=True, seed=9,
                                    rank=1, world_size=2, block_size=20, shuffle_window=50)
    again.set_state(pickle.loads(pickle.dumps(state)))
    rest = round_robin([worker_stream(again, w, workers, (k, 0)) for w in range(workers)])
    assert ids_of(first) + ids_of(rest) == full
    assert ids_of(list(again)) == full[len(ids_of(first)):]
    # what DataLoader has handed out is enough to resume it
    dl = DataLoader(again, batch_size=None, num_workers=2)
    again.set_state(again.state_after(k, epoch=4))
    assert ids_of(list(dl)) == full[len(ids_of(first)):]
    again.set_epoch(5)  # the next epoch starts from its beginning
    assert len(ids_of(list(again))) == len(full)
    # iterator set_state
    it2 = iter(again)
    it2.set_state(state)
    assert ids_of(list(it2)) == full[len(ids_of(first)):]
    other = TFRecordIterableDataset(files, FEATURES, batch_size=13)
    with pytest.raises(ValueError, match="state"):
        other.set_state(state)


def test_resume_single_records(files):
    ds = TFRecordIterableDataset(files, {"id": FEATURES["id"]}, batch_size=None,
                                 shuffle=True)
    full = [int(r["id"]) for r in ds]
    it = iter(ds)
    head = [int(next(it)["id"]) for _ in range(300)]
    st = it.get_state()
    ds2 = TFRecordIterableDataset(files, {"id": FEATURES["id"]}, batch_size=None,
                                  shuffle=True)
    ds2.set_state(st)
    assert head + [int(r["id"]) for r in ds2] == full
    ds2.set_state(ds2.state_after(300))
    assert head + [int(r["id"]) for r in ds2] == full


def test_pickle_round_trip(files):
    ds = TFRecordIterableDataset(files, FEATURES, batch_size=20, shuffle=True, seed=2,
                                 int32=True, maxlen=4)
    ds.set_epoch(3)
    before = list(ds)
    copy = pickle.loads(pickle.dumps(ds))
    after = list(copy)
    assert ids_of(before) == ids_of(after)
    for a, b in zip(before, after):
        assert torch.equal(a["tokens"], b["tokens"]) and a["tokens"].dtype == torch.int32


@pytest.mark.parametrize("seek_points", [True, False])
@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_compressed_files(tmp_path, compression, seek_points):
    paths = write_shards(tmp_path, [50, 70, 33], compression)
    for world in (1, 2):
        seen = []
        for rank in range(world):
            ds = TFRecordIterableDataset(paths, FEATURES, batch_size=8, shuffle=True,
                                         rank=rank, world_size=world, shuffle_window=24,
                                         block_size=16, seek_points=seek_points)
            # blocks of 16 records in every file with seek points, whole files without
            assert len(ds.plan().block_file) == (4 + 5 + 3 if seek_points else 3)
            got = ids_of(round_robin([worker_stream(ds, w, 2) for w in range(2)]))
            assert got == ids_of(list(ds))
            seen += got
        assert sorted(seen) == list(range(153))


def test_damaged_record_raises(tmp_path):
    path = write_shards(tmp_path, [40])[0]
    ds = TFRecordIterableDataset([path], FEATURES, batch_size=8)
    raw = bytearray(open(path, "rb").read())
    off, _ = ds.indexes[0][20]
    raw[off + 14] ^= 0x40
    open(path, "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError):
        list(ds)


def test_distributed_defaults(files):
    ds = TFRecordIterableDataset(files, FEATURES)
    assert (ds.rank, ds.world_size) == (0, 1)
    with pytest.raises(ValueError):
        TFRecordIterableDataset(files, FEATURES, rank=3, world_size=3)


def test_glob_pattern(files):
    import os
    pattern = os.path.join(os.path.dirname(files[0]), "shard-*.tfrecord")
    ds = TFRecordIterableDataset(pattern, FEATURES, batch_size=100)
    assert ds.files == sorted(files) and sum(len(b["id"]) for b in ds) == TOTAL


@pytest.mark.parametrize("opts", [{}, {"int32": True, "masks": True},
                                  {"maxlen": 3, "masks": True}])
def test_worker_batches_parsed_into_shared_memory_match(files, opts):
    numeric = {k: FEATURES[k] for k in ("id", "x", "tokens")}
    ds = TFRecordIterableDataset(files, numeric, batch_size=32, shuffle=True, **opts)
    here = list(ds)
    it = _Iterator(ds, 0, 2, (0, 0))
    assert it._shared is not None  # what a worker does
    there = list(DataLoader(ds, batch_size=None, num_workers=2))
    assert len(here) == len(there)
    for a, b in zip(here, there):
        assert a.keys() == b.keys()
        for k in a:
            assert a[k].dtype == b[k].dtype and torch.equal(a[k], b[k]), k


def test_set_epoch_reaches_persistent_workers(files):
    ds = TFRecordIterableDataset(files, {"id": FEATURES["id"]}, batch_size=16, shuffle=True)
    expected = []
    for e in range(3):
        ds.set_epoch(e)
        expected.append(ids_of(list(ds)))
    ds.set_epoch(0)
    dl = DataLoader(ds, batch_size=None, num_workers=2, persistent_workers=True)
    for e in range(3):
        ds.set_epoch(e)
        assert ids_of(list(dl)) == expected[e]
    assert expected[0] != expected[1]


def test_prefetch_thread_same_stream_and_state(files):
    kw = dict(batch_size=16, shuffle=True, seed=4)
    plain = TFRecordIterableDataset(files, FEATURES, **kw)
    ahead = TFRecordIterableDataset(files, FEATURES, prefetch=3, **kw)
    full = ids_of(list(plain))
    assert ids_of(list(ahead)) == full
    it = iter(ahead)
    head = [next(it) for _ in range(4)]
    state = it.get_state()  # after what was handed out, not what was parsed ahead
    assert state["batch"] == 4
    it.close()
    ahead.set_state(state)
    assert ids_of(head) + ids_of(list(ahead)) == full
    assert ids_of(list(DataLoader(ahead, batch_size=None))) == full[len(ids_of(head)):]


def test_prefetch_thread_passes_errors_on(tmp_path):
    path = write_shards(tmp_path, [40])[0]
    ds = TFRecordIterableDataset([path], FEATURES, batch_size=8, prefetch=2)
    raw = bytearray(open(path, "rb").read())
    off, _ = ds.indexes[0][30]
    raw[off + 14] ^= 0x40
    open(path, "wb").write(bytes(raw))
    with pytest.raises(errors.DataLossError):
        list(ds)


def _distributed_rank(rank, world, port, files, out):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank,
                            world_size=world)
    try:
        ds = TFRecordIterableDataset(files, {"id": FEATURES["id"]}, batch_size=16,
                                     shuffle=True, even_split="pad")
        assert (ds.rank, ds.world_size) == (rank, world)
        ids = ids_of(list(DataLoader(ds, batch_size=None, num_workers=0)))
        sizes = [torch.zeros(1, dtype=torch.int64) for _ in range(world)]
        dist.all_gather(sizes, torch.tensor([len(ids)]))
        assert len({int(s) for s in sizes}) == 1  # the same number of steps everywhere
        with open("%s.%d" % (out, rank), "w") as f:
            f.write(" ".join(map(str, ids)))
    finally:
        dist.destroy_process_group()


def test_rank_and_world_from_torch_distributed(files, tmp_path):
    import socket

    import torch.multiprocessing as mp
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    out = str(tmp_path / "ids")
    mp.spawn(_distributed_rank, args=(2, port, files, out), nprocs=2, join=True)
    seen = []
    for r in range(2):
        seen += [int(x) for x in open("%s.%d" % (out, r)).read().split()]
    assert set(seen) == set(range(TOTAL)) and len(seen) == 2 * -(-TOTAL // 2)


def test_iterator_reused_after_its_end(files):
    ds = TFRecordIterableDataset(files, FEATURES, batch_size=32, shuffle=True)
    it = iter(ds)
    full = ids_of(list(it))
    state = ds.state_after(3)
    it.set_state(state)  # the files were closed at the end: they open again
    assert ids_of(list(it)) == full[96:]
    with pytest.raises(StopIteration):
        next(it)
