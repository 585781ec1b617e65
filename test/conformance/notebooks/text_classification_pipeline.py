# The classic text-classification input pipeline of the "Load text" tutorial (before
# TextVectorization) and Hands-On ML ch. 13: one text file per class read with
# TextLineDataset, labelled, interleaved; a vocabulary file built from the training
# data; tokens mapped to ids with a StaticVocabularyTable (out-of-vocabulary words to
# hash buckets); padded batches; hashed bigram features on the side.
import collections
import os
import sys

import tensorflow as tf

workdir = sys.argv[1]

CLASSES = {
    "cooking": ["Whisk the eggs with sugar\r\n", "Bake the bread for an hour\n",
                "Season the soup with salt and pepper\n", "\n",
                "Fry the onions until golden brown\n", "Let the dough rest overnight"],
    "sports": ["The striker scored twice in the second half\n",
               "Rain delayed the final set of the match\n",
               "She ran the marathon in under three hours\n",
               "The goalkeeper saved a penalty\n"],
    "space": ["The probe reached the outer planets\n",
              "Astronauts repaired the station's solar panel\n",
              "A new comet was seen near Mars\n", "The rocket launch was delayed by rain\n",
              "Telescopes found water on a distant moon\n"],
}
paths = []
for name, lines in CLASSES.items():
    path = os.path.join(workdir, name + ".txt")
    with open(path, "w", newline="") as f:
        f.write("".join(lines))
    paths.append(path)

for line in tf.data.TextLineDataset(paths[0]).take(3):
    print(line.numpy(), line.dtype, line.shape)
print(tf.data.TextLineDataset(paths[0]).element_spec)


def labeler(example, index):
    return example, tf.cast(index, tf.int64)


labeled_data_sets = []
for i, path in enumerate(paths):
    lines_dataset = tf.data.TextLineDataset(path)
    labeled_data_sets.append(lines_dataset.map(lambda ex: labeler(ex, i)))
all_labeled_data = labeled_data_sets[0]
for labeled_dataset in labeled_data_sets[1:]:
    all_labeled_data = all_labeled_data.concatenate(labeled_dataset)
all_labeled_data = all_labeled_data.filter(lambda text, label: tf.strings.length(text) > 0)
for text, label in all_labeled_data.take(4):
    print("Sentence:", text.numpy(), "Label:", label.numpy())
print(sum(1 for _ in all_labeled_data))

interleaved = tf.data.TextLineDataset(paths, num_parallel_reads=3)
print([t.numpy()[:12] for t in interleaved.take(6)])


def standardize(text):
    text = tf.strings.lower(text)
    return tf.strings.regex_replace(text, r"[^a-z ]", "")


counter = collections.Counter()
for text, _ in all_labeled_data:
    counter.update(tf.strings.split(standardize(text)).numpy().tolist())
vocab = [w for w, n in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0])) if n > 1]
print(len(counter), vocab[:8])
vocab_path = os.path.join(workdir, "vocab.txt")
with open(vocab_path, "wb") as f:
    f.write(b"\n".join(vocab) + b"\n")

NUM_OOV = 4
init = tf.lookup.TextFileInitializer(vocab_path, key_dtype=tf.string,
                                     key_index=tf.lookup.TextFileIndex.WHOLE_LINE,
                                     value_dtype=tf.int64,
                                     value_index=tf.lookup.TextFileIndex.LINE_NUMBER)
table = tf.lookup.StaticVocabularyTable(init, NUM_OOV)
print(table.size().numpy(), table.key_dtype, table.value_dtype)
print(table.lookup(tf.constant(["the", "rain", "zebra", ""])).numpy())


def encode(text, label):
    tokens = tf.strings.split(standardize(text))
    return table.lookup(tokens), label


encoded = all_labeled_data.map(encode)
for ids, label in encoded.take(3):
    print(ids.numpy(), label.numpy())
print(encoded.element_spec)
batches = encoded.padded_batch(4, padded_shapes=([None], []))
for ids, labels in batches.take(2):
    print(ids.numpy())
    print(labels.numpy(), ids.dtype, ids.shape)

# Hashed features instead of a vocabulary: words and bigrams in 64 buckets.
words = tf.strings.split(standardize(tf.constant("The rocket launch was delayed by rain")))
print(tf.strings.to_hash_bucket_fast(words, 64).numpy())
print(tf.strings.ngrams(words, 2).numpy()[:3])
print(tf.strings.to_hash_bucket_fast(tf.strings.ngrams(words, 2), 64).numpy())
print(tf.strings.to_hash_bucket_strong(words, 64, key=[17, 42]).numpy())
print(tf.strings.to_hash_bucket(words, 64).numpy())

hashed = all_labeled_data.map(
    lambda text, label: (tf.strings.to_hash_bucket_fast(standardize(text), 1000), label))
for h, label in hashed.batch(5).take(2):
    print(h.numpy(), label.numpy())
