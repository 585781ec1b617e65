#!/bin/sh
# The tfnano command on a few shards made here (part of `make run`): count, peek,
# infer a spec, verify (then find a flipped byte), index, reshard.
# usage: examples/cli_demo.sh <bin folder holding python and tfnano>
set -eu
BIN=$(cd "${1:-build/venv/bin}" && pwd)
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
"$BIN/python" - "$DIR" <<'PY'
import sys
import numpy as np
import tfnano as tf
rng = np.random.default_rng(0)
n = 1000
tf.io.write_shards({"input_ids": [rng.integers(3, 30000, rng.integers(2, 20)) for _ in range(n)],
                    "label": rng.integers(0, 2, n), "score": rng.random(n, dtype=np.float32)},
                   sys.argv[1] + "/train-{shard:05d}-of-{num_shards:05d}.tfrec",
                   records_per_shard=250)
PY
cd "$DIR"
run() { echo "\$ tfnano $*"; "$BIN/tfnano" "$@"; }
run count 'train-*.tfrec'
run head -n 2 train-00000-of-00004.tfrec
run schema train-00000-of-00004.tfrec
run verify 'train-*.tfrec'
cp train-00001-of-00004.tfrec damaged.tfrec
printf '\377' | dd of=damaged.tfrec bs=1 seek=5000 conv=notrunc 2>/dev/null
run verify damaged.tfrec || echo "(exit status $?: damage found)"
run index train-00000-of-00004.tfrec -o - | head -n 3
run merge --no-progress 'train-*.tfrec' -o all.tfrec.gz -z GZIP
run count all.tfrec.gz
