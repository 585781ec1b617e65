"""The order of an epoch's records, decided the same way in every process.

Records are numbered across the files (file 0's first, then file 1's, ...) and cut
into blocks (``block_size`` records of one file; a compressed file is one block as it
cannot be entered in the middle). With shuffling, the block order is a permutation
drawn from (seed, epoch), so every rank and worker computes the same one. The block
order defines a sequence of global positions 0..N-1; rank r takes a contiguous slice
of it (exactly once by default, or the equal shares of DistributedSampler: padded by
wrapping to the start, or trimmed), and reshuffles its slice within windows of
``window`` records (a permutation drawn from (seed, epoch, rank, window)). The slice
is then cut into batches; DataLoader worker w of K takes batches w, w+K, w+2K, ...,
which is the order DataLoader hands batches out in, so the stream is the same for
any number of workers and a job resumes from "k batches done".
"""
import numpy as np

EVEN_SPLITS = (None, "pad", "drop")
_MASK = (1 << 64) - 1  # numpy seeds are non-negative: negative seeds wrap


class OrderPlan:
    def __init__(self, counts, splittable, batch_size, shuffle=False, seed=0, epoch=0,
                 world_size=1, rank=0, even_split=None, drop_last=False, block_size=512,
                 window=16384):
        if even_split not in EVEN_SPLITS:
            raise ValueError("even_split must be None, 'pad' or 'drop', got %r"
                             % (even_split,))
        if not 0 <= rank < world_size:
            raise ValueError("rank %d is not in [0, world_size=%d)" % (rank, world_size))
        if batch_size < 1:
            raise ValueError("batch_size must be >= 1, got %r" % (batch_size,))
        counts = np.asarray(counts, dtype=np.int64)
        files, starts, lens = [], [], []
        for f, (c, split) in enumerate(zip(counts.tolist(), splittable)):
            if c == 0:
                continue
            step = max(int(block_size), 1) if split else c
            st = np.arange(0, c, step, dtype=np.int64)
            files.append(np.full(len(st), f, dtype=np.int64))
            starts.append(st)
            lens.append(np.minimum(step, c - st))
        cat = (lambda xs: np.concatenate(xs) if xs else np.zeros(0, np.int64))
        block_file, block_start, block_len = cat(files), cat(starts), cat(lens)
        if shuffle and len(block_file):
            rng = np.random.default_rng([int(seed) & _MASK, int(epoch) & _MASK])
            order = rng.permutation(len(block_file))
            block_file, block_start, block_len = (block_file[order], block_start[order],
                                                  block_len[order])
        self.block_file, self.block_start, self.block_len = block_file, block_start, block_len
        self.block_pos = np.zeros(len(block_len) + 1, dtype=np.int64)
        np.cumsum(block_len, out=self.block_pos[1:])
        n = int(self.block_pos[-1])
        self.total = n
        w = int(world_size)
        if even_split == "pad":
            m = -(-n // w)
            lo = rank * m
        elif even_split == "drop":
            m = n // w
            lo = rank * m
        else:
            lo = rank * n // w
            m = (rank + 1) * n // w - lo
        if n == 0:
            m = 0
        self.lo, self.size = lo, m
        self.batch_size = int(batch_size)
        self.num_batches = m // self.batch_size if drop_last else -(-m // self.batch_size)
        self.shuffle = bool(shuffle)
        self.seed, self.epoch, self.rank = int(seed), int(epoch), int(rank)
        b = self.batch_size
        # Whole batches per window. Unshuffled, a window is one batch: a worker then
        # reads only its own batches (a window's records are read together, and for
        # compressed files held in memory).
        self.window = max(-(-int(window) // b), 1) * b if self.shuffle else b
        self._perm = (None, None)

    def window_of(self, batch):
        """(first, stop) rank-local positions of the window holding `batch`."""
        a = batch * self.batch_size // self.window * self.window
        return a, min(a + self.window, self.size)

    def window_perm(self, first):
        """The within-window order (indices into the window) of the window at `first`."""
        if self._perm[0] == first:
            return self._perm[1]
        _, stop = self.window_of(first // self.batch_size)
        n = stop - first
        if self.shuffle:
            key = [self.seed & _MASK, self.epoch & _MASK, self.rank, first // self.window, 1]
            perm = np.random.default_rng(key).permutation(n)
        else:
            perm = np.arange(n)
        self._perm = (first, perm)
        return perm

    def segments(self, first, stop):
        """The records at rank-local positions [first, stop), in position order, as
        (file, start record, stop record) runs."""
        out = []
        p = first
        while p < stop:
            g = (self.lo + p) % self.total
            b = int(np.searchsorted(self.block_pos, g, side="right")) - 1
            within = g - int(self.block_pos[b])
            take = min(int(self.block_len[b]) - within, stop - p,
                       self.total - g)  # also stop where a padded slice wraps around
            s = int(self.block_start[b]) + within
            out.append((int(self.block_file[b]), s, s + take))
            p += take
        return out

    def batch_rows(self, batch):
        """Indices into its window's records of the rows of `batch`."""
        first, _ = self.window_of(batch)
        perm = self.window_perm(first)
        a = batch * self.batch_size - first
        return perm[a:min(a + self.batch_size, self.size - first)]

    def position_record(self, p):
        """(file, record) at rank-local position p (after the window shuffle)."""
        if p >= self.size:
            return None
        first, _ = self.window_of(p // self.batch_size)
        q = first + int(self.window_perm(first)[p - first])
        f, s, _ = self.segments(q, q + 1)[0]
        return f, s
