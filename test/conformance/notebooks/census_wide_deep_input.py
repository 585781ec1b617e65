# The census "wide & deep" input_fn of the TF Model Garden (official/r1/wide_deep):
# CSV lines from a TextLineDataset parsed with decode_csv, the label compared with a
# string, then the feature transformations done by hand the way input pipelines do
# them without feature columns: vocabulary lists as StaticHashTables, hashed
# categories and crossed features with to_hash_bucket_fast, bucketized ages, a tf.cond.
import os
import sys

import numpy as np
import tensorflow as tf

workdir = sys.argv[1]

_CSV_COLUMNS = [
    'age', 'workclass', 'fnlwgt', 'education', 'education_num', 'marital_status',
    'occupation', 'relationship', 'race', 'gender', 'capital_gain', 'capital_loss',
    'hours_per_week', 'native_country', 'income_bracket'
]
_CSV_COLUMN_DEFAULTS = [[0], [''], [0], [''], [0], [''], [''], [''], [''], [''], [0], [0],
                        [0], [''], ['']]

rows = [
    "39,State-gov,77516,Bachelors,13,Never-married,Adm-clerical,Not-in-family,White,Male,2174,0,40,United-States,<=50K",
    "50,Self-emp-not-inc,83311,Bachelors,13,Married-civ-spouse,Exec-managerial,Husband,White,Male,0,0,13,United-States,<=50K",
    "38,Private,215646,HS-grad,9,Divorced,Handlers-cleaners,Not-in-family,White,Male,0,0,40,United-States,<=50K",
    "53,Private,234721,11th,7,Married-civ-spouse,Handlers-cleaners,Husband,Black,Male,0,0,40,United-States,<=50K",
    "28,Private,338409,Bachelors,13,Married-civ-spouse,Prof-specialty,Wife,Black,Female,0,0,40,Cuba,<=50K",
    "37,Private,284582,Masters,14,Married-civ-spouse,Exec-managerial,Wife,White,Female,0,0,40,United-States,<=50K",
    "49,Private,160187,9th,5,Married-spouse-absent,Other-service,Not-in-family,Black,Female,0,0,16,Jamaica,<=50K",
    "52,Self-emp-not-inc,209642,HS-grad,9,Married-civ-spouse,Exec-managerial,Husband,White,Male,0,0,45,United-States,>50K",
    "31,Private,45781,Masters,14,Never-married,Prof-specialty,Not-in-family,White,Female,14084,0,50,United-States,>50K",
    "42,Private,159449,Bachelors,13,Married-civ-spouse,Exec-managerial,Husband,White,Male,5178,0,40,United-States,>50K",
    "37,Private,280464,Some-college,10,Married-civ-spouse,Exec-managerial,Husband,Black,Male,0,0,80,United-States,>50K",
    ",,,,,,,,,,,,,,",
]
train_path = os.path.join(workdir, "adult.data")
with open(train_path, "w") as f:
    f.write("\n".join(rows) + "\n\n")
test_path = os.path.join(workdir, "adult.test")
with open(test_path, "w") as f:
    f.write("|1x3 Cross validator\n" + "\n".join(rows[5:8]) + "\n")


def parse_csv(value):
    columns = tf.io.decode_csv(value, record_defaults=_CSV_COLUMN_DEFAULTS)
    features = dict(zip(_CSV_COLUMNS, columns))
    labels = features.pop('income_bracket')
    classes = tf.equal(labels, '>50K')  # binary classification
    return features, classes


def input_fn(data_file, num_epochs, batch_size, skip_header=False):
    dataset = tf.data.TextLineDataset(data_file)
    if skip_header:
        dataset = dataset.skip(1)
    dataset = dataset.filter(lambda line: tf.strings.length(line) > 0)
    dataset = dataset.map(parse_csv, num_parallel_calls=5)
    dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size)
    return dataset


ds = input_fn(train_path, 1, 4)
print(sorted(ds.element_spec[0].keys()))
print(ds.element_spec[0]['age'], ds.element_spec[1])
for features, labels in ds.take(2):
    print(features['age'].numpy(), features['education'].numpy()[:2], labels.numpy())
print(sum(int(tf.shape(l)[0]) for _, l in input_fn(train_path, 2, 5)))
for features, labels in input_fn(test_path, 1, 8, skip_header=True):
    print(features['occupation'].numpy(), labels.numpy())

# Feature transformations, by hand.
education_vocab = ['Bachelors', 'HS-grad', '11th', 'Masters', '9th', 'Some-college',
                   'Assoc-acdm', 'Assoc-voc', '7th-8th', 'Doctorate', 'Prof-school',
                   '5th-6th', '10th', '1st-4th', 'Preschool', '12th']
education_table = tf.lookup.StaticHashTable(
    tf.lookup.KeyValueTensorInitializer(education_vocab,
                                        tf.range(len(education_vocab), dtype=tf.int64)),
    default_value=-1)
marital_table = tf.lookup.StaticVocabularyTable(
    tf.lookup.KeyValueTensorInitializer(
        ['Married-civ-spouse', 'Divorced', 'Married-spouse-absent', 'Never-married',
         'Separated', 'Married-AF-spouse', 'Widowed'], tf.range(7, dtype=tf.int64)),
    num_oov_buckets=2)
AGE_BOUNDARIES = [18, 25, 30, 35, 40, 45, 50, 55, 60, 65]


def transform(features, label):
    age_bucket = tf.searchsorted(tf.constant(AGE_BOUNDARIES), [features['age']],
                                 side='right')[0]
    education = education_table.lookup(features['education'])
    marital = marital_table.lookup(features['marital_status'])
    occupation = tf.strings.to_hash_bucket_fast(features['occupation'], 1000)
    cross = tf.strings.to_hash_bucket_fast(
        tf.strings.join([features['education'], features['occupation']], separator='_X_'),
        1000)
    hours = tf.cond(features['hours_per_week'] > 45,
                    lambda: tf.constant('long'), lambda: tf.constant('normal'))
    gain = tf.math.log1p(tf.cast(features['capital_gain'], tf.float32))
    return {'age_bucket': age_bucket, 'education': education, 'marital': marital,
            'occupation': occupation, 'cross': cross, 'hours': hours,
            'gain': gain}, tf.cast(label, tf.int32)


wide = tf.data.TextLineDataset(train_path).filter(
    lambda line: tf.strings.length(line) > 0).map(parse_csv).map(transform)
print(wide.element_spec[0]['cross'], wide.element_spec[0]['hours'])
for feats, label in wide.batch(6):
    for key in sorted(feats):
        value = feats[key].numpy()
        print(key, np.round(value, 3) if value.dtype == np.float32 else value)
    print('label', label.numpy())
print(education_table.size().numpy(), marital_table.size().numpy())
print(education_table.lookup(tf.constant(['Doctorate', 'Kindergarten'])).numpy())
print(tf.strings.to_hash_bucket_strong(['Exec-managerial', 'Sales'], 100, [1, 2]).numpy())
single = next(iter(wide))[0]
print(single['age_bucket'])
print(repr(single['occupation']))
