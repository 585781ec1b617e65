"""tfnano.beam: tf.train.Examples in Apache Beam pipelines (pip install 'tfnano[beam]').

    ExampleCoder()                          a Beam coder: {key: values} <-> Example bytes
    WriteExamples(file_path_prefix, ...)    rows (dicts), pyarrow RecordBatches or
                                            serialized Examples -> TFRecord shards, the
                                            files beam.io.WriteToTFRecord writes
    ReadExamples(file_pattern, features)    TFRecord shards -> pyarrow RecordBatches
                                            (or dicts of numpy arrays), parsed in batches;
                                            an uncompressed file is split into byte
                                            ranges read in parallel, each record once

Elements are encoded and parsed a batch at a time by tfnano's C columnar encoder and
batch parser, and framed (with CRC32C) by tfnano's record writer. apache_beam is
imported on first use. See docs/scale.md (DirectRunner, Dataflow).
"""
from ._read import ReadExamples
from ._transforms import ExampleCoder, WriteExamples

__all__ = ["ExampleCoder", "WriteExamples", "ReadExamples"]
