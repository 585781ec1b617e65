"""TFRecord files: TFRecordOptions, TFRecordWriter and record readers, on the C
library's TFRecord API (paths through its file back end with the GIL released; any
Python file object through a callback table, one call per buffer)."""


class TFRecordCompressionType:
    """``tf.io.TFRecordCompressionType``."""
    NONE = 0
    ZLIB = 1
    GZIP = 2


class TFRecordOptions:
    """``tf.io.TFRecordOptions``: compression type and zlib parameters (None keeps the
    library default: level 6, window bits 15, memLevel 9, 256 KiB buffers)."""

    compression_type_map = {
        TFRecordCompressionType.ZLIB: "ZLIB",
        TFRecordCompressionType.GZIP: "GZIP",
        TFRecordCompressionType.NONE: "",
    }

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.get_compression_type_string(compression_type)  # validates
        self.compression_type = compression_type
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_level = compression_level
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"" / "ZLIB" / "GZIP" for a TFRecordOptions, a name, an int or None."""
        if not options:
            return ""
        if isinstance(options, TFRecordOptions):
            return cls.get_compression_type_string(options.compression_type)
        try:
            if options in cls.compression_type_map:
                return cls.compression_type_map[options]
            if options in cls.compression_type_map.values():
                return options
        except TypeError:
            pass
        raise ValueError('Not a valid compression_type: "{}"'.format(options))

    def __repr__(self):
        return "TFRecordOptions(compression_type=%r)" % (self.compression_type,)


def _options(options):
    if options is None:
        return TFRecordOptions()
    if isinstance(options, TFRecordOptions):
        return options
    return TFRecordOptions(compression_type=options)


class TFRecordWriter:  # replaced once the C TFRecord API lands
    def __init__(self, path, options=None):
        raise NotImplementedError("TFRecordWriter: the C TFRecord API is not built yet")


class TFRecordDataset:  # replaced once the C TFRecord API lands
    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        raise NotImplementedError("TFRecordDataset: the C TFRecord API is not built yet")


def tf_record_iterator(path, options=None):
    raise NotImplementedError
