# Text input pipelines as in the "Load text" tutorial and Hands-On ML ch. 13/16:
# standardize with tf.strings, split into tokens, map tokens to ids with a Python
# vocabulary through py_function, pad and batch.
import collections

import numpy as np
import tensorflow as tf

lines = [
    "The quick brown Fox jumps over the lazy dog!",
    "A <br />journey of a thousand miles begins with one step.",
    "  To be, or not to be: that is the question.  ",
    "All that glitters is not gold",
    "Café crème, naïve façade",
]
labels = [1, 0, 1, 0, 1]
ds = tf.data.Dataset.from_tensor_slices((lines, labels))


def standardize(text):
    text = tf.strings.lower(text)
    text = tf.strings.regex_replace(text, "<br />", " ")
    text = tf.strings.regex_replace(text, r"[^a-z0-9 ]", "")
    return tf.strings.strip(text)


for text, label in ds.map(lambda t, l: (standardize(t), l)):
    print(text.numpy(), label.numpy())
tokens = ds.map(lambda t, l: tf.strings.split(standardize(t)))
counter = collections.Counter()
for toks in tokens:
    counter.update(toks.numpy().tolist())
vocab = [w for w, _ in sorted(counter.items(), key=lambda kv: (-kv[1], kv[0]))][:12]
print(vocab)
index = {w: i + 2 for i, w in enumerate(vocab)}


def to_ids(toks):
    return np.array([index.get(t, 1) for t in toks.numpy().tolist()], dtype=np.int64)


ids = tokens.map(lambda toks: tf.py_function(to_ids, [toks], tf.int64))
for row in ids.take(2):
    print(row.numpy())
padded = ids.padded_batch(2, padded_shapes=[None], padding_values=tf.constant(0, tf.int64))
for batch in padded:
    print(batch.numpy())
print(tf.strings.length(lines).numpy(), tf.strings.length(lines, unit="UTF8_CHAR").numpy())
print(tf.strings.substr(lines, 4, 5).numpy())
print(tf.strings.unicode_decode("naïve", "UTF-8").numpy())
print(tf.strings.bytes_split("abc").numpy(), tf.strings.unicode_split("été", "UTF-8").numpy())
print(tf.strings.join(["a", "b", "c"], separator="|").numpy())
print(tf.strings.reduce_join(tf.constant([["a", "b"], ["c", "d"]]), axis=1, separator="-").numpy())
print(tf.strings.to_number(tf.constant(["1.5", "2", "-3e2"])).numpy())
print(tf.strings.to_number("42", out_type=tf.int64).numpy())
print(tf.strings.as_string(tf.constant([1.5, 2.25]), precision=2).numpy())
print(tf.strings.format("tokens: {}", tf.constant([3, 4, 5])).numpy())
print(tf.strings.regex_full_match(["abc123", "abc"], r"[a-z]+\d+").numpy())
words = tf.strings.split(tf.constant(lines[:2]))
print(words.to_list()[0][:3], words.shape[0])
char_ids = tf.strings.unicode_decode(tf.strings.lower("Hello"), "UTF-8")
print(char_ids.numpy(), tf.strings.unicode_encode(char_ids, "UTF-8").numpy())
csv = tf.data.Dataset.from_tensor_slices(["1.0,2,foo", "3.5,4,bar"])
parsed = csv.map(lambda line: tf.strings.split(line, ","))
for fields in parsed:
    print(tf.strings.to_number(fields[0]).numpy(), tf.strings.to_number(fields[1], tf.int32).numpy(),
          fields[2].numpy())
