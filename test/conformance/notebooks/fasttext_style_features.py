# A fastText-style input pipeline as blog posts and Kaggle kernels write it with
# tf.data: "__label__x text" lines from a GZIP TextLineDataset, labels mapped with a
# StaticHashTable, word and character n-grams hashed into buckets (the hashing trick),
# padded and ragged batches; the tensors and specs printed as the notebooks print them.
import gzip
import os
import sys

import tensorflow as tf

workdir = sys.argv[1]
lines = [
    "__label__positive I loved this movie, it was great",
    "__label__negative Terrible plot and bad acting",
    "__label__positive Great soundtrack; great cast",
    "__label__neutral It was a movie",
    "no label on this line",
    "__label__negative Not worth the ticket",
]
path = os.path.join(workdir, "reviews.txt.gz")
with gzip.open(path, "wt") as f:
    f.write("\r\n".join(lines) + "\r\n")

raw = tf.data.TextLineDataset(path, compression_type="GZIP")
print(raw.element_spec)
first = next(iter(raw))
print(first)
print(repr(first))
print(first.dtype, first.shape, first.dtype == tf.string)

labels = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer(
        tf.constant(["__label__negative", "__label__neutral", "__label__positive"]),
        tf.constant([0, 1, 2], tf.int64)),
    default_value=-1)
print(labels.lookup(tf.constant(["__label__neutral", "__label__unknown"])))

NUM_BUCKETS = 2 ** 10


def split_label(line):
    has_label = tf.strings.regex_full_match(line, r"__label__\S+ .*")
    label = tf.cond(has_label,
                    lambda: tf.strings.regex_replace(line, r" .*", ""),
                    lambda: tf.constant(""))
    text = tf.cond(has_label,
                   lambda: tf.strings.regex_replace(line, r"^\S+ ", ""),
                   lambda: line)
    return text, labels.lookup(label)


examples = raw.map(split_label)
print(examples.element_spec)
for text, label in examples:
    print(label.numpy(), text.numpy())
labelled = examples.filter(lambda text, label: label >= 0)
print(sum(1 for _ in labelled))


def word_features(text, label):
    words = tf.strings.split(tf.strings.lower(text))
    bigrams = tf.strings.ngrams(words, 2, separator=" ")
    ids = tf.strings.to_hash_bucket_fast(tf.concat([words, bigrams], axis=0), NUM_BUCKETS)
    return ids, label


features = labelled.map(word_features)
print(features.element_spec)
for ids, label in features.take(2):
    print(ids)
padded = features.padded_batch(2, padded_shapes=([None], []), padding_values=(
    tf.constant(-1, tf.int64), tf.constant(0, tf.int64)))
for ids, label in padded:
    print(ids.numpy(), label.numpy())

# Character n-grams of one word, with boundary markers, as fastText does.
word = tf.constant("great")
chars = tf.strings.bytes_split(tf.strings.join(["<", word, ">"]))
trigrams = tf.strings.ngrams(chars, 3, separator="")
print(trigrams)
print(tf.strings.ngrams(chars, [3, 4], separator="").numpy())
print(tf.strings.to_hash_bucket_fast(trigrams, NUM_BUCKETS).numpy())
print(tf.strings.to_hash_bucket_strong(trigrams, NUM_BUCKETS, key=[1234, 5678]).numpy())
print(tf.strings.ngrams(["a", "b", "c"], 3, pad_values=("<s>", "</s>"), padding_width=1))
print(tf.strings.ngrams(tf.ragged.constant([["a", "b", "c"], ["d"]]), 2, pad_values="#"))
print(tf.strings.ngrams(["a"], 3, preserve_short_sequences=True).numpy())

ragged_words = tf.strings.split(tf.constant(["great cast", "bad plot twist", "movie"]))
print(tf.strings.to_hash_bucket_fast(ragged_words, 100))
print(tf.strings.ngrams(ragged_words, 2).to_list())
print(tf.constant([[1.5, 2.0], [3.0, 4.5]]))
print(tf.constant(["a", "b"]).dtype, tf.constant(7, tf.int64))
