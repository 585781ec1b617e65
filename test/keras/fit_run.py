"""One Keras 3 training run on the backend named by KERAS_BACKEND, in a fresh process
(Keras picks its backend once, at import): a small model fits two epochs on tfnano
datasets with TensorFlow blocked from importing. Prints one JSON line for the test."""
import json
import os
import sys

sys.modules["tensorflow"] = None  # any import of TensorFlow fails
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import numpy as np  # noqa: E402

import keras  # noqa: E402
import tfnano as tf  # noqa: E402
from tfnano.io.index import count_records  # noqa: E402
from tfnano.keras import adapter  # noqa: E402


def records(path, n, seed):
    """n Examples of 8 features whose label is a linear function of them."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 8)).astype(np.float32)
    y = (x @ np.arange(1, 9, dtype=np.float32) > 0).astype(np.int64)
    with tf.io.TFRecordWriter(path) as w:
        w.write_columns({"x": x, "y": y})


def dataset(path, batch, repeat=False, known=True):
    """Parsed (x, y) batches; the record count from the file's index makes the length
    known (TFRecordDataset's own cardinality is unknown, as in TensorFlow)."""
    feats = {"x": tf.io.FixedLenFeature([8], tf.float32),
             "y": tf.io.FixedLenFeature([], tf.int64)}
    ds = tf.data.TFRecordDataset(path)
    if known:
        ds = ds.apply(tf.data.experimental.assert_cardinality(count_records(path)))
    ds = ds.batch(batch).map(
        lambda r: tf.io.parse_example(r, feats)).map(lambda d: (d["x"], d["y"]))
    return ds.repeat() if repeat else ds


class Steps(keras.callbacks.Callback):
    """What fit's progress bar is told: the step total of each epoch."""

    def __init__(self):
        super().__init__()
        self.totals = []

    def on_epoch_begin(self, epoch, logs=None):
        self.totals.append(self.params.get("steps"))


def main(folder):
    train, val = os.path.join(folder, "train.tfrecord"), os.path.join(folder, "val.tfrecord")
    records(train, 512, 1)
    records(val, 128, 2)
    keras.utils.set_random_seed(0)
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(16, activation="relu"),
                              keras.layers.Dense(2, activation="softmax")])
    model.compile(optimizer=keras.optimizers.Adam(0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    # finite TFRecord datasets of known length ...
    steps_cb = Steps()
    hist = model.fit(adapter(dataset(train, 32)),
                     validation_data=adapter(dataset(val, 64)), epochs=2, verbose=2,
                     callbacks=[steps_cb])
    # ... and a repeated one with steps_per_epoch; a dataset of known cardinality
    slices = tf.data.Dataset.from_tensor_slices(
        (np.ones((40, 8), np.float32), np.ones(40, np.int64))).batch(8)
    card_cb = Steps()
    model.fit(adapter(slices), epochs=1, verbose=0, callbacks=[card_cb])
    # ... a length given where it is unknown ...
    given_cb = Steps()
    model.fit(adapter(dataset(val, 64, known=False), steps=2), epochs=1, verbose=0,
              callbacks=[given_cb])
    model.evaluate(adapter(dataset(val, 64)), verbose=0)
    rep_cb = Steps()
    hist2 = model.fit(adapter(dataset(train, 32, repeat=True)), steps_per_epoch=5,
                      epochs=2, verbose=0, callbacks=[rep_cb])
    pred = model.predict(adapter(dataset(val, 64).map(lambda x, y: x)), verbose=0)
    print(json.dumps({
        "backend": keras.backend.backend(),
        "tensorflow_loaded": "tensorflow" in sys.modules and sys.modules["tensorflow"]
        is not None,
        "loss": hist.history["loss"], "val_loss": hist.history["val_loss"],
        "steps": steps_cb.totals, "card_steps": card_cb.totals, "given_steps": given_cb.totals,
        "repeat_steps": rep_cb.totals, "repeat_loss": hist2.history["loss"],
        "pred_shape": list(pred.shape)}))


if __name__ == "__main__":
    main(sys.argv[1])
