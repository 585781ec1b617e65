"""What both torch datasets share: file lists, indexes, the parser, rank/world."""
import os

from ..io.index import file_list, load_index  # noqa: F401 - file_list: for _map, _iterable


def load_indexes(files, index, cache_dir, compression):
    """One RecordIndex per file. index: None (find or build each), a dict {file: index
    path or RecordIndex}, or a list parallel to files."""
    if isinstance(index, dict):
        index = [index.get(f) for f in files]
    elif index is None or isinstance(index, (str, os.PathLike)):
        if index is not None and len(files) != 1:
            raise ValueError("one index path given for %d files" % len(files))
        index = [index] * len(files)
    elif len(index) != len(files):
        raise ValueError("%d indexes for %d files" % (len(index), len(files)))
    return [load_index(f, i, cache_dir, compression=compression) for f, i in zip(files, index)]


def make_parser(features, int32, maxlen, masks, num_threads=1):
    from .._parsing import Parser
    return Parser(features, int32=int32, maxlen=maxlen, masks=masks, num_threads=num_threads)


def distributed(rank, world_size):
    """(rank, world_size): the values given, else torch.distributed's when it is
    initialised, else (0, 1)."""
    if rank is None or world_size is None:
        try:
            import torch.distributed as dist
            if dist.is_available() and dist.is_initialized():
                rank = dist.get_rank() if rank is None else rank
                world_size = dist.get_world_size() if world_size is None else world_size
        except ImportError:
            pass
    rank = 0 if rank is None else int(rank)
    world_size = 1 if world_size is None else int(world_size)
    if world_size < 1 or not 0 <= rank < world_size:
        raise ValueError("rank %d / world_size %d: need 0 <= rank < world_size"
                         % (rank, world_size))
    return rank, world_size
