/*
 * tfnano.h - the whole public API of tfnano.
 *
 * tfnano does the data-preparation half of TensorFlow without TensorFlow:
 *   - builds tf.train.Example records, byte-identical to protobuf's
 *     SerializeToString(deterministic=True), one at a time or from whole columns;
 *   - parses Examples with FixedLenFeature / FixedLenSequenceFeature specs straight
 *     into dense arrays, with the rules and error texts of TensorFlow's fast parser;
 *   - reads and writes TFRecord files (masked CRC32C, ZLIB, GZIP);
 *   - pads ragged token sequences (keras pad_sequences semantics) and plans
 *     length-bucketed batches.
 *
 * Conventions (they hold for every function below unless its comment says otherwise):
 *   - Fallible functions return tfn_status: TFN_OK (0), TFN_END (1, a normal end of
 *     data) or a negative error. The last parameter is `tfn_error *err`, which may
 *     be NULL; when it is not, a failing call fills it with the code, a readable
 *     message and, where it applies, the byte offset and record index.
 *   - The library never aborts, exits or prints, and keeps no mutable global state.
 *   - Lengths are explicit (pointer, then size_t length). Strings need not be
 *     NUL-terminated. Counts of records are uint64_t.
 *   - Ownership: handles own the memory of everything they hand out; views stay valid
 *     until the call named in their comment. Nothing returned must be free()d by the
 *     caller except through the matching tfn_*_free / tfn_*_close function.
 *   - Threads: a compiled tfn_spec is immutable and may be shared by any number of
 *     threads, each with its own tfn_parser. Every other handle (tfn_parser,
 *     tfn_example, tfn_record_reader, tfn_record_writer, tfn_record_index) is used by
 *     one thread at a time; different handles may be used concurrently, also on
 *     different files. Functions without a handle (tfn_crc32c and its mask helpers,
 *     tfn_record_frame, tfn_record_unframe, tfn_bytes_copy_out, tfn_bytes_copy_fixed,
 *     tfn_status_str) are thread-safe. A tfn_alloc shared by handles in several threads must have
 *     thread-safe callbacks (see docs/hardening.md).
 *
 * Status values are pinned forever; new ones are only ever added.
 */
#ifndef TFNANO_H
#define TFNANO_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32) && defined(TFN_BUILDING_DLL)
#    define TFN_API __declspec(dllexport)
#elif defined(__GNUC__) && __GNUC__ >= 4
#    define TFN_API __attribute__((visibility("default")))
#else
#    define TFN_API
#endif

#if defined(__GNUC__)
#    define TFN_NODISCARD __attribute__((warn_unused_result))
#else
#    define TFN_NODISCARD
#endif

#define TFN_VERSION_MAJOR  0
#define TFN_VERSION_MINOR  1
#define TFN_VERSION_PATCH  0
#define TFN_VERSION_NUMBER (TFN_VERSION_MAJOR * 10000 + TFN_VERSION_MINOR * 100 + TFN_VERSION_PATCH)
#define TFN_VERSION_STRING "0.1.0"

#ifdef __cplusplus
extern "C" {
#endif

/* TFN_CDEF_BEGIN: the Python binding's cffi cdef is cut from here down to the end marker. */

/* ==================================================================================
 * MARK: Status and errors
 * ================================================================================== */

typedef enum tfn_status {
    TFN_OK = 0,
    TFN_END = 1,               /* normal end of data (no more records) */
    TFN_TIMEOUT = 2,           /* tfn_pipeline_next: nothing ready within the timeout
                                  (not an error; call again) */
    TFN_E_INVALID_ARG = -1,    /* bad argument or configuration (TF: InvalidArgument) */
    TFN_E_NOMEM = -2,          /* an allocation failed */
    TFN_E_BUF_TOO_SMALL = -3,  /* caller buffer too small; the needed size is reported */
    TFN_E_CORRUPT = -4,        /* bytes are not a valid protobuf / Example */
    TFN_E_DATA_LOSS = -5,      /* TFRecord framing: bad length or payload CRC */
    TFN_E_TRUNCATED = -6,      /* input ends inside a record */
    TFN_E_IO = -7,             /* the operating system reported an error (see sys_errno) */
    TFN_E_TYPE = -8,           /* a value of the wrong kind (e.g. float where int64 asked) */
    TFN_E_NOT_FOUND = -9,      /* a required feature is missing */
    TFN_E_LIMIT = -10,         /* a size limit was exceeded (e.g. > 2 GiB message) */
    TFN_E_OUT_OF_RANGE = -11,  /* a value does not fit the requested output type */
    TFN_E_CLOSED = -12,        /* the handle was closed (TF: FailedPrecondition) */
    TFN_E_DATA_LOSS_LENGTH = -13 /* TFRecord: the length header's CRC does not match */
} tfn_status;

/* Filled by failing calls. Caller-owned: allocate it on the stack (or with
 * ffi.new("tfn_error *")) and pass it in; the library never allocates for errors. */
typedef struct tfn_error {
    int code;              /* a tfn_status */
    int sys_errno;         /* errno for TFN_E_IO, else 0 */
    uint64_t offset;       /* byte offset of the problem in its input, when known */
    uint64_t record_index; /* 0-based record / example index, when known */
    char msg[1024];         /* NUL-terminated readable message (truncated to fit) */
} tfn_error;

/* Static name of a status ("TFN_E_CORRUPT"); never NULL. Thread-safe. */
TFN_API const char *tfn_status_str(int status);

/* TFN_VERSION_NUMBER of the compiled library (check it against the header's). */
TFN_API int tfn_version(void);

/* ==================================================================================
 * MARK: Memory
 * ================================================================================== */

/* Custom allocator. Pass NULL wherever a `const tfn_alloc *` is asked for to use the
 * C library's malloc/realloc/free. The handle keeps a copy of the struct. */
typedef struct tfn_alloc {
    void *(*malloc_fn)(void *ctx, size_t size);
    void *(*realloc_fn)(void *ctx, void *ptr, size_t old_size, size_t new_size);
    void (*free_fn)(void *ctx, void *ptr);
    void *ctx;
} tfn_alloc;

/* A borrowed byte string. */
typedef struct tfn_bytes {
    const uint8_t *data;
    size_t len;
} tfn_bytes;

/* Element types. TFN_INT64, TFN_FLOAT32 and TFN_BYTES are the three kinds an Example
 * can hold; TFN_INT32 and TFN_FLOAT64 are accepted as inputs (and TFN_INT32 as a
 * parse output) and converted. Values are pinned. */
typedef enum tfn_dtype {
    TFN_DTYPE_NONE = 0,
    TFN_INT64 = 1,
    TFN_FLOAT32 = 2,
    TFN_BYTES = 3,
    TFN_INT32 = 4,
    TFN_FLOAT64 = 5
} tfn_dtype;

/* ==================================================================================
 * MARK: Example - build, serialize, decode
 *
 * A tfn_example is a map from feature key to a Feature holding one list (int64,
 * float or bytes) or no kind at all. It owns an arena: values are copied in, and
 * tfn_example_clear() rewinds the arena while keeping its capacity, so a warm loop of
 * clear / set / serialize allocates nothing.
 * Threads: one thread at a time per tfn_example; a decoded example may be read by
 * several threads at once as long as no thread modifies it.
 * ================================================================================== */

typedef struct tfn_example tfn_example;

/* What a Feature holds. TFN_KIND_NONE is `Feature()` with no list set. */
typedef enum tfn_kind {
    TFN_KIND_NONE = 0,
    TFN_KIND_BYTES = 1,
    TFN_KIND_FLOAT = 2,
    TFN_KIND_INT64 = 3
} tfn_kind;

/* A read-only view of one feature of a tfn_example. Exactly one of int64s, floats and
 * bytes is non-NULL when count > 0 (all NULL for an empty list or TFN_KIND_NONE).
 * Valid until the next set, parse, clear or free of the example it came from. */
typedef struct tfn_feature {
    const char *key;
    size_t key_len;
    int kind; /* a tfn_kind */
    size_t count;
    const int64_t *int64s;
    const float *floats;
    const tfn_bytes *bytes;
} tfn_feature;

/* New empty example (serializes to zero bytes, like `Example()`).
 * @param alc  allocator, or NULL for malloc.
 * @return the handle, or NULL when memory runs out. Free with tfn_example_free(). */
TFN_API tfn_example *tfn_example_new(const tfn_alloc *alc);

/* Frees the example and every view it handed out. NULL is accepted. */
TFN_API void tfn_example_free(tfn_example *ex);

/* Removes every feature (and the "features present" mark) but keeps the arena's
 * memory for reuse. */
TFN_API void tfn_example_clear(tfn_example *ex);

/* Sets feature `key` to an int64 list of `n` values (copied). Setting an existing key
 * replaces its Feature in place, as a protobuf map does. n == 0 sets an empty list,
 * which is serialized (it differs from a kind-less Feature).
 * @param key  key bytes (any bytes, UTF-8 expected); key_len may be 0 (the "" key).
 * @param values  may be NULL only when n == 0.
 * @return TFN_OK, TFN_E_INVALID_ARG (NULL ex/key/values), TFN_E_NOMEM. */
TFN_API int tfn_example_set_int64s(tfn_example *ex, const char *key, size_t key_len,
                                   const int64_t *values, size_t n, tfn_error *err);

/* As tfn_example_set_int64s, from int32 values (widened; stored as int64). */
TFN_API int tfn_example_set_int32s(tfn_example *ex, const char *key, size_t key_len,
                                   const int32_t *values, size_t n, tfn_error *err);

/* Sets feature `key` to a float list of `n` float32 values (copied bit for bit, NaN
 * payloads and -0.0 included). Same rules as tfn_example_set_int64s. */
TFN_API int tfn_example_set_floats(tfn_example *ex, const char *key, size_t key_len,
                                   const float *values, size_t n, tfn_error *err);

/* Sets feature `key` to a bytes list of `n` strings (each copied). A string's data
 * may be NULL when its len is 0. Same rules as tfn_example_set_int64s. */
TFN_API int tfn_example_set_bytes(tfn_example *ex, const char *key, size_t key_len,
                                  const tfn_bytes *values, size_t n, tfn_error *err);

/* Sets feature `key` to a kind-less `Feature()` (serialized as a map entry with an
 * empty value; the TF parser treats it as missing). */
TFN_API int tfn_example_set_none(tfn_example *ex, const char *key, size_t key_len,
                                 tfn_error *err);

/* Removes feature `key`. @return TFN_OK, or TFN_E_NOT_FOUND when it was not set. */
TFN_API int tfn_example_remove(tfn_example *ex, const char *key, size_t key_len,
                               tfn_error *err);

/* Marks the `features` field as present even with no feature in it, so the example
 * serializes to `0a 00` like `Example(features=Features())`. Setting any feature marks
 * it too; tfn_example_clear() unmarks it. */
TFN_API void tfn_example_mark_features(tfn_example *ex);

/* Number of features. */
TFN_API size_t tfn_example_size(const tfn_example *ex);

/* The i-th feature, in insertion order (a decoded example: first-seen order of the
 * keys). @return TFN_OK, or TFN_E_INVALID_ARG when i >= size. */
TFN_API int tfn_example_at(const tfn_example *ex, size_t i, tfn_feature *out);

/* Looks up feature `key`. @return TFN_OK, or TFN_E_NOT_FOUND (not an error worth a
 * message: err is left untouched). */
TFN_API int tfn_example_find(const tfn_example *ex, const char *key, size_t key_len,
                             tfn_feature *out);

/* Exact size in bytes of the serialized example. */
TFN_API size_t tfn_example_serialized_size(const tfn_example *ex);

/* Serializes into a caller buffer, byte-identical to protobuf's
 * SerializeToString(deterministic=True): map entries sorted by key bytes, packed
 * numeric lists, negative int64 as 10-byte varints.
 * @param written  receives the bytes written; on TFN_E_BUF_TOO_SMALL the size needed.
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL, TFN_E_LIMIT (over 2 GiB, as protobuf refuses),
 *         TFN_E_INVALID_ARG, TFN_E_NOMEM (sorting scratch, first use only). */
TFN_API int tfn_example_serialize(tfn_example *ex, void *dst, size_t cap, size_t *written,
                                  tfn_error *err);

/* Serializes into a buffer the example owns and grows as needed; *out stays valid
 * until the next call that modifies or serializes `ex`. Same bytes and errors as
 * tfn_example_serialize(). */
TFN_API int tfn_example_serialize_owned(tfn_example *ex, const uint8_t **out, size_t *len,
                                        tfn_error *err);

/* Serializes the Example made of the n features given, in one call: the bytes
 * tfn_example_clear(), tfn_example_set_*() of each feature in order, then
 * tfn_example_serialize_owned() would give (a key given twice: the last one counts),
 * but nothing is copied in: each tfn_feature (key, key_len, kind, count and the
 * pointer of its kind: int64s, floats or bytes; none for TFN_KIND_NONE) is read where
 * it is. n == 0 serializes to no bytes, or to `0a 00` with mark_features. `ex` serves
 * as scratch: it is empty afterwards, and *out stays valid until the next call that
 * modifies or serializes it. For bindings that serialize one record per call.
 * @return TFN_OK, TFN_E_INVALID_ARG (NULL arguments, a NULL key or values with
 *         values to read, an unknown kind), TFN_E_LIMIT, TFN_E_NOMEM. */
TFN_API int tfn_example_serialize_features(tfn_example *ex, const tfn_feature *features,
                                           size_t n, int mark_features, const uint8_t **out,
                                           size_t *len, tfn_error *err);

/* Decode flags. */
enum {
    TFN_DECODE_DEFAULT = 0,
    /* bytes values point into `src` instead of being copied; `src` must then outlive
     * the example's views. */
    TFN_DECODE_BORROW = 1
};

/* Replaces the content of `ex` with the decoded serialized Example, following
 * protobuf's semantics (what tf.train.Example.FromString gives): packed and unpacked
 * lists both accepted and merged, a key seen twice keeps the last entry, a Feature
 * with several kinds keeps the last, unknown fields are skipped, concatenated
 * messages merge. For TensorFlow's parse_example rules use tfn_parser instead.
 * @return TFN_OK, TFN_E_CORRUPT (message names the offset and what was expected),
 *         TFN_E_NOMEM, TFN_E_INVALID_ARG. On error `ex` is left empty. */
TFN_API int tfn_example_decode(tfn_example *ex, const void *src, size_t len,
                               unsigned flags, tfn_error *err);

/* ==================================================================================
 * MARK: Columnar batch encoding
 *
 * Builds N serialized Examples from whole columns in one call, with no allocation per
 * example: the fast path behind the Python bindings' column writer.
 * ================================================================================== */

/* One feature's values for all N examples.
 * Numeric columns (dtype TFN_INT64, TFN_INT32 -> written as int64; TFN_FLOAT32,
 * TFN_FLOAT64 -> written as float32):
 *   - dense:  row_splits == NULL, `values` holds N * width elements row-major
 *             (example i owns values[i*width .. (i+1)*width));
 *   - ragged: row_splits holds N+1 non-decreasing offsets into `values`, starting at
 *             0; example i owns values[row_splits[i] .. row_splits[i+1]).
 * Bytes columns (dtype TFN_BYTES): `values` is one buffer holding every string back
 * to back and `byte_offsets` holds (number of strings + 1) offsets into it; strings
 * are then assigned to examples by width or row_splits exactly as numeric values are.
 * `values` (and `byte_offsets` of a bytes column with no strings) may be NULL when
 * the column holds no values. `values` may have any alignment (a numpy view at an odd
 * offset, an Arrow buffer); row_splits and byte_offsets are int64_t arrays. A column whose longest row could not fit a 2 GiB
 * message is TFN_E_LIMIT, reported before any value is read.
 * The same column may not appear twice (duplicate keys are TFN_E_INVALID_ARG). */
typedef struct tfn_column {
    const char *key;
    size_t key_len;
    int dtype; /* a tfn_dtype */
    const void *values;
    size_t width;
    const int64_t *row_splits;
    const int64_t *byte_offsets;
} tfn_column;

/* Computes the serialized size of each of the n examples.
 * @param sizes  n entries, may be NULL; @param total receives the sum (may be NULL).
 * @return TFN_OK, TFN_E_INVALID_ARG (bad column: message names it and the example),
 *         TFN_E_LIMIT. */
TFN_API int tfn_encode_columns_size(const tfn_column *columns, size_t ncolumns, size_t n,
                                    uint64_t *sizes, uint64_t *total, tfn_error *err);

/* Serializes the n examples back to back into dst. Example i is
 * dst[offsets[i] .. offsets[i+1]); `offsets` has n+1 entries (may be NULL).
 * Bytes are identical to building each example with tfn_example_set_* and
 * tfn_example_serialize().
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL (*written = needed total), TFN_E_INVALID_ARG,
 *         TFN_E_LIMIT, TFN_E_NOMEM (scratch for sorting keys, once per call). */
TFN_API int tfn_encode_columns(const tfn_column *columns, size_t ncolumns, size_t n,
                               void *dst, size_t cap, uint64_t *offsets, size_t *written,
                               tfn_error *err);

/* ==================================================================================
 * MARK: Arrow record batches -> Examples (the Arrow C data interface, lib/arrow)
 *
 * Reads Apache Arrow memory through the Arrow C data interface
 * (arrow.apache.org/docs/format/CDataInterface.html). Its two ABI-stable structs are
 * declared below as that specification gives them, behind its ARROW_C_DATA_INTERFACE
 * guard, so a program that includes Arrow's abi.h (or nanoarrow) first shares one
 * definition. No Arrow library is linked: any producer's exported batch can be passed
 * (pyarrow's RecordBatch._export_to_c / __arrow_c_array__, arrow-rs, nanoarrow...).
 * ================================================================================== */
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE

#define ARROW_FLAG_DICTIONARY_ORDERED 1
#define ARROW_FLAG_NULLABLE 2
#define ARROW_FLAG_MAP_KEYS_SORTED 4

/* The type of an array: `format` is the type's format string ("l" int64, "+s" struct,
 * "+w:4" fixed-size list...), `name` the field name (UTF-8, NUL-terminated). */
struct ArrowSchema {
    const char *format;
    const char *name;
    const char *metadata;
    int64_t flags;
    int64_t n_children;
    struct ArrowSchema **children;
    struct ArrowSchema *dictionary;
    void (*release)(struct ArrowSchema *);
    void *private_data;
};

/* The data of an array: `length` elements starting `offset` elements into the
 * buffers (validity bitmap first, then the type's buffers), and its children. */
struct ArrowArray {
    int64_t length;
    int64_t null_count;
    int64_t offset;
    int64_t n_buffers;
    int64_t n_children;
    const void **buffers;
    struct ArrowArray **children;
    struct ArrowArray *dictionary;
    void (*release)(struct ArrowArray *);
    void *private_data;
};

#endif /* ARROW_C_DATA_INTERFACE */

/* Serialized size of the Example of every row of a record batch, exported through the
 * Arrow C data interface as a struct array (format "+s"; pyarrow's
 * RecordBatch._export_to_c gives one): each child of the struct is a column, its
 * `name` the feature key; array->length rows. Columns map to Features as:
 *   int8..int64, uint8..uint64 (values above 2^63-1 are TFN_E_OUT_OF_RANGE), bool,
 *   date32/64, time32/64, timestamp, duration (their integer)      -> Int64List;
 *   float16, float32, float64 (narrowed to float as TensorFlow does) -> FloatList;
 *   binary, large_binary, utf8, large_utf8, fixed_size_binary      -> BytesList;
 *   fixed_size_list of those (nested ones flattened row-major)       -> that list;
 *   list / large_list of those or of fixed_size_lists                -> one list per row;
 *   null (type "n")                                                  -> always absent.
 * A null row of a column (its validity bitmap) leaves that feature out of that row's
 * Example; a row with no feature present is the empty Example (0 bytes), as is a null
 * row of the struct itself. Keys are written sorted, as tfn_example_serialize does.
 * Offsets (array and child `offset`s, sliced arrays) are honoured at every level.
 * The arrays are only read, never released or kept: ownership stays with the caller.
 * Buffers are trusted to be as long as the Arrow specification requires for each
 * array's length and offset (nothing else can be known of caller memory); everything
 * else is checked before it is used: formats, buffer and child counts, NULL buffers
 * that are needed, lengths against the parent's, list and binary offsets (non-negative,
 * non-decreasing, within the child's length). Buffers may have any alignment (the
 * specification's 8-byte alignment is a recommendation: pickle-5 out-of-band buffers,
 * IPC bodies and mapped files can break it); unaligned ones are read as fast.
 * @param sizes  array->length entries, may be NULL; @param total the sum (may be NULL).
 * @return TFN_OK; TFN_E_TYPE (a type with no Example mapping: lists of variable-length
 *         lists, dictionaries, decimals, maps, unions, views...; the message names the
 *         column, and the format string when that is what has no mapping); TFN_E_INVALID_ARG (a null value inside a list - the
 *         message names column and row -, duplicate column names, or an inconsistent
 *         array); TFN_E_OUT_OF_RANGE; TFN_E_LIMIT (a row past protobuf's 2 GiB);
 *         TFN_E_NOMEM. err->record_index is the row when one is at fault.
 * Thread-safe: no state; any number of threads may encode the same arrays. */
TFN_API int tfn_arrow_encode_size(const struct ArrowSchema *schema,
                                  const struct ArrowArray *array, uint64_t *sizes,
                                  uint64_t *total, tfn_error *err);

/* Serializes every row of the record batch (see tfn_arrow_encode_size) as a
 * tf.train.Example, back to back into dst, in one pass over the Arrow buffers: row i
 * is dst[offsets[i] .. offsets[i+1]) (`offsets`: array->length + 1 entries, may be
 * NULL). The bytes are those of building each Example with tfn_example_set_* (and
 * protobuf's SerializeToString(deterministic=True)).
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL (*written = the total needed), the errors of
 *         tfn_arrow_encode_size. Thread-safe as tfn_arrow_encode_size. */
TFN_API int tfn_arrow_encode(const struct ArrowSchema *schema, const struct ArrowArray *array,
                             void *dst, size_t cap, uint64_t *offsets, size_t *written,
                             tfn_error *err);

/* ==================================================================================
 * MARK: Parsing with FixedLenFeature / FixedLenSequenceFeature specs
 *
 * tfn_spec_new() compiles feature configs once (validating them with TensorFlow's
 * rules and messages); a tfn_parser is a reusable per-thread context that parses one
 * or many serialized Examples against a spec with the semantics of TensorFlow's fast
 * parser (tf.io.parse_single_example / tf.io.parse_example), straight into dense,
 * row-major caller buffers.
 *
 * Two steps, so that the caller can size its buffers:
 *   1. tfn_parser_scan(): finds every configured feature in every example, checks
 *      kinds and counts, and reports the first error exactly as TensorFlow would;
 *   2. tfn_parser_fill(): decodes the values into the outputs.
 * tfn_parser_parse() does both when the buffers are already big enough.
 * ================================================================================== */

typedef enum tfn_feature_type {
    TFN_FIXED_LEN = 0,          /* tf.io.FixedLenFeature */
    TFN_FIXED_LEN_SEQUENCE = 1, /* tf.io.FixedLenSequenceFeature */
    /* Every value of each example, any count, none when missing: tf.io.VarLenFeature
     * and the keys SparseFeature and RaggedFeature read (TF's "sparse" and "ragged"
     * features, which share the rules and texts below). shape/rank, default_value and
     * allow_missing must be NULL / 0. Output: the values of all examples back to back
     * plus row splits (see tfn_parser_row_splits()). Its errors follow TF's sparse
     * path: "Data types don't match. Expected type: int64, Actual type: float"; a
     * kind-less Feature is an empty list (in batch mode it also hides earlier
     * entries of the same key, as in TF). */
    TFN_VAR_LEN = 2
} tfn_feature_type;

/* One feature to parse. `shape` holds `rank` dimensions; a dimension of -1 means
 * unknown (None), which is only there to produce TensorFlow's messages: FixedLen
 * needs every dimension known, FixedLenSequence needs its inner (row) shape known.
 *   default_value:
 *     FixedLen: NULL = required; else exactly prod(shape) elements of `dtype`
 *               (int64_t, float, or tfn_bytes), copied into the spec (none for a
 *               shape with 0 elements: the feature stays required, as in TF);
 *     FixedLenSequence: NULL = pad with 0 / 0.0 / b""; else exactly 1 element, the
 *               padding value.
 *   out_dtype: TFN_DTYPE_NONE (same as dtype), or TFN_INT32 for an int64 feature
 *     (values range-checked at fill time, defaults here, for TPUs).
 *   allow_missing: must be non-zero for FixedLenSequence, as TensorFlow requires. */
typedef struct tfn_feature_config {
    const char *key;
    size_t key_len;
    int type;  /* a tfn_feature_type */
    int dtype; /* TFN_INT64, TFN_FLOAT32 or TFN_BYTES */
    int out_dtype;
    const int64_t *shape;
    size_t rank;
    const void *default_value;
    size_t default_count;
    int allow_missing;
} tfn_feature_config;

typedef struct tfn_spec tfn_spec;
typedef struct tfn_parser tfn_parser;

/* Compiles n configs (copied: the caller may free them afterwards).
 * Errors carry TensorFlow's Python-layer texts, e.g. "Missing shape for feature a.",
 * "First dimension of shape for feature a unknown. Consider using
 * FixedLenSequenceFeature.", "Unsupported: FixedLenSequenceFeature requires
 * allow_missing to be True.", and err->record_index = the index of the bad config.
 * With several bad configs the error is the one TF reports first (see docs/parsing.md).
 * @return TFN_OK, TFN_E_INVALID_ARG (bad config, duplicate key, n == 0: "Argument
 *         `features` cannot be None or falsy. Got {}"), TFN_E_TYPE (unsupported
 *         dtype), TFN_E_OUT_OF_RANGE (an int32 output's default), TFN_E_NOMEM.
 * Threads: the compiled spec is immutable; share it freely. */
TFN_API int tfn_spec_new(const tfn_feature_config *configs, size_t n, const tfn_alloc *alc,
                         tfn_spec **out, tfn_error *err);

/* Frees a spec. It must outlive every parser made from it. NULL is accepted. */
TFN_API void tfn_spec_free(tfn_spec *spec);

/* Number of features in the spec; feature indices below follow the order of the
 * configs given to tfn_spec_new(). */
TFN_API size_t tfn_spec_size(const tfn_spec *spec);

/* Elements in one row of feature j: prod(shape) for FixedLen, prod(shape) of one
 * sequence step for FixedLenSequence (1 for a scalar step). */
TFN_API size_t tfn_spec_stride(const tfn_spec *spec, size_t j);

/* New parser bound to `spec` (which must outlive it). NULL when memory runs out.
 * Threads: one thread at a time per parser. */
TFN_API tfn_parser *tfn_parser_new(const tfn_spec *spec, const tfn_alloc *alc);

/* Frees a parser. NULL is accepted. */
TFN_API void tfn_parser_free(tfn_parser *p);

/* Scan flags. */
enum {
    TFN_PARSE_BATCH = 0,  /* errors as tf.io.parse_example: "Name: .., Key: .., Index: i." */
    TFN_PARSE_SINGLE = 1  /* errors as tf.io.parse_single_example (n must be 1) */
};

/* Step 1: scans n serialized Examples (views stay borrowed: the records must stay
 * alive and unchanged until the last fill of this scan).
 * @param names  n example names used in messages, or NULL for "<unknown>".
 * @return TFN_OK, or the first error TensorFlow would report (smallest failing
 *         example; within it, TF's order) with its exact text in err->msg and
 *         err->record_index = the example index:
 *         TFN_E_CORRUPT ("Could not parse example input, value: '...'" and "Can't
 *         parse serialized Example"), TFN_E_TYPE ("Data types don't match"),
 *         TFN_E_INVALID_ARG (wrong value counts), TFN_E_NOT_FOUND (required feature
 *         missing), TFN_E_NOMEM. */
TFN_API int tfn_parser_scan(tfn_parser *p, const tfn_bytes *records, size_t n,
                            const tfn_bytes *names, unsigned flags, tfn_error *err);

/* After a successful scan: the longest FixedLenSequence row count of feature j in the
 * batch (TensorFlow's padded length T), or 1 for FixedLen features. */
TFN_API size_t tfn_parser_max_rows(const tfn_parser *p, size_t j);

/* After a successful scan: the row count of feature j in example i (0 when missing).
 * For a TFN_VAR_LEN feature: its number of values in example i (and max_rows above is
 * the largest such count in the batch, TF's dense_shape[1]). */
TFN_API size_t tfn_parser_rows(const tfn_parser *p, size_t j, size_t i);

/* After a successful scan: the number of values feature j holds in the whole batch
 * (TFN_VAR_LEN: the sum over examples; others: n * rows * stride as filled with
 * max_rows -1), the capacity its output needs. 0 before a scan or for a bad j. */
TFN_API size_t tfn_parser_total(const tfn_parser *p, size_t j);

/* After a successful scan, for a TFN_VAR_LEN feature j: writes the n + 1 row splits
 * of the batch to `splits` (splits[0] = 0; example i's values are
 * values[splits[i] .. splits[i+1]) of its filled output).
 * @return TFN_OK, TFN_E_INVALID_ARG (no scan, bad j, not TFN_VAR_LEN, NULL splits). */
TFN_API int tfn_parser_row_splits(const tfn_parser *p, size_t j, int64_t *splits,
                                  tfn_error *err);

/* After a successful scan, for a TFN_VAR_LEN feature j: writes tf.io.VarLenFeature's
 * SparseTensor indices, tfn_parser_total() rows of two int64 (example index, position
 * in the example) row-major, to `indices`. Same errors as tfn_parser_row_splits(). */
TFN_API int tfn_parser_sparse_indices(const tfn_parser *p, size_t j, int64_t *indices,
                                      tfn_error *err);

/* Where feature j's values go.
 *   values: row-major dense array of the feature's out dtype (int64_t, int32_t,
 *     float, or tfn_bytes views into the records / the spec's default).
 *     FixedLen: n * stride elements. FixedLenSequence: n * rows * stride, where
 *     rows = max_rows if max_rows >= 0 (sequences are truncated to it, keeping the
 *     first rows) else tfn_parser_max_rows(); short sequences are padded at the end
 *     with the padding value.
 *   capacity: number of elements `values` can hold (checked).
 *   max_rows: -1 for TensorFlow's behaviour (pad to the batch's longest).
 *   lengths: optional, n entries: the rows each example really had (before
 *     truncation). mask: optional, n * rows bytes: 1 for a real row, 0 for padding.
 * TFN_VAR_LEN features: values holds tfn_parser_total() elements, every example's
 *   values back to back in example order (see tfn_parser_row_splits()); max_rows
 *   and mask are ignored and lengths gets each example's number of values.
 * NULL values skip the feature (a TFN_VAR_LEN feature with no values at all still
 * needs a non-NULL values pointer to get its lengths). */
typedef struct tfn_output {
    void *values;
    size_t capacity;
    int64_t max_rows;
    int64_t *lengths;
    uint8_t *mask;
} tfn_output;

/* Step 2: decodes the scanned batch into outputs[0 .. tfn_spec_size()).
 * Thread-safety: fill only reads the parser's scan, so several threads may fill
 * disjoint features of one scan at once (each passing NULL values for the features
 * it leaves to the others); no scan may run on the parser meanwhile.
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL (a capacity is short: message names the
 *         feature and the size needed), TFN_E_OUT_OF_RANGE (an int64 value does not
 *         fit int32 output: message names feature, example and value),
 *         TFN_E_INVALID_ARG (no successful scan before). */
TFN_API int tfn_parser_fill(tfn_parser *p, const tfn_output *outputs, tfn_error *err);

/* Scan then fill, in one call: the same results and errors. FixedLen int64 / float
 * features whose output holds the whole batch are decoded during the scan (one pass
 * over the records); when the call fails, the outputs' contents are unspecified. */
TFN_API int tfn_parser_parse(tfn_parser *p, const tfn_bytes *records, size_t n,
                             const tfn_bytes *names, unsigned flags, const tfn_output *outputs,
                             tfn_error *err);

/* Copies n byte strings back to back into dst and writes n+1 offsets (offsets[0] = 0).
 * Use it to turn the tfn_bytes views of a bytes feature into owned memory.
 * @return TFN_OK, or TFN_E_BUF_TOO_SMALL with *needed = total bytes. */
TFN_API int tfn_bytes_copy_out(const tfn_bytes *views, size_t n, void *dst, size_t cap,
                               uint64_t *offsets, size_t *needed, tfn_error *err);

/* Copies n byte strings into rows of `width` bytes each, row i at dst + i * width,
 * padding with zero bytes: numpy's fixed-width bytes layout ("S<width>"), from which
 * numpy makes a bytes object per row in one pass. Pick width as the longest string.
 * @return TFN_OK; TFN_E_BUF_TOO_SMALL when cap < n * width (the message gives both)
 *         or a string is longer than width (record_index: its position);
 *         TFN_E_INVALID_ARG for NULL arrays with n > 0. */
TFN_API int tfn_bytes_copy_fixed(const tfn_bytes *views, size_t n, void *dst, size_t width,
                                 size_t cap, tfn_error *err);

/* ==================================================================================
 * MARK: SequenceExample feature lists
 *
 * A tf.train.SequenceExample holds `context` (a Features map, field 1: parse it with a
 * tfn_parser, which reads field 1 of the same bytes and skips field 2) and
 * `feature_lists` (field 2: a map from key to a FeatureList, a list of Features, one
 * per step). tfn_sequence_lists() reads the feature lists asked for, for a batch:
 * per key, every step's values back to back, with the steps of each example and the
 * values of each step as row splits, from which tf.io.parse_sequence_example's dense,
 * sparse and ragged outputs are built.
 * ================================================================================== */

/* One feature list to read: its key and value kind (TFN_INT64, TFN_FLOAT32, TFN_BYTES). */
typedef struct tfn_list_config {
    const char *key;
    size_t key_len;
    int dtype;
} tfn_list_config;

/* The result for one feature list. `steps` and `values` are set by every call to the
 * totals of the batch; when `values_out` is non-NULL they are read first as the room
 * of the buffers: example_splits n + 1 entries (example i has steps
 * [example_splits[i], example_splits[i+1])), step_splits steps + 1 entries (step s
 * has values [step_splits[s], step_splits[s+1])), values_out `values` elements of the
 * dtype (int64_t, float, or tfn_bytes views into the records). `present` (optional,
 * n bytes) gets 1 where the example had the feature list. */
typedef struct tfn_list_output {
    size_t steps;
    size_t values;
    int64_t *example_splits;
    int64_t *step_splits;
    void *values_out;
    uint8_t *present;
} tfn_list_output;

/* Reads the k feature lists of n serialized SequenceExamples. With every values_out
 * NULL it only counts; with buffers it fills them in the same pass, and when one is
 * too small it returns TFN_E_BUF_TOO_SMALL with the totals needed in steps / values
 * (so a caller can size from a guess and retry once). A key seen twice in one example
 * keeps the last FeatureList (map semantics); a kind-less step Feature is a step with
 * no values; unknown fields are skipped.
 * @param names  n example names for messages, or NULL ("<unknown>").
 * @return TFN_OK; TFN_E_TYPE ("Name: <unknown>, Feature list: a, Index: 0.  Data types
 *         don't match. Expected type: int64"), TFN_E_CORRUPT (bytes that are not a
 *         SequenceExample: "Could not parse example input, value: '...'"; a broken
 *         value list), TFN_E_INVALID_ARG (bad arguments, duplicate keys); err->record_index
 *         is the example; TFN_E_BUF_TOO_SMALL (record_index: the list). Threads: no
 *         shared state; any number of concurrent calls. */
TFN_API int tfn_sequence_lists(const tfn_bytes *records, size_t n, const tfn_bytes *names,
                               const tfn_list_config *lists, size_t k, tfn_list_output *outs,
                               tfn_error *err);

/* One feature list's values for n SequenceExamples, to encode them. `steps` is a
 * tfn_column (same dtypes and layout rules) whose rows are the steps of every example
 * back to back: dense (row_splits NULL, every step has `width` values) or ragged
 * (row_splits: total steps + 1 offsets into values). `example_splits` has n + 1
 * non-decreasing offsets into the steps, starting at 0: example i has steps
 * [example_splits[i], example_splits[i+1]) (none: an empty FeatureList, still written). */
typedef struct tfn_list_column {
    tfn_column steps;
    const int64_t *example_splits;
} tfn_list_column;

/* Computes the serialized size of each of n SequenceExamples built from `ncontext`
 * context columns (as tfn_encode_columns takes them; 0: no context field) and `nlists`
 * feature lists (0: no feature_lists field).
 * @param sizes  n entries, may be NULL; @param total receives the sum (may be NULL).
 * @return TFN_OK, TFN_E_INVALID_ARG (bad splits or offsets, NULL arrays, a key given
 *         twice: the message names the list and the step or example), TFN_E_TYPE (an
 *         unsupported dtype), TFN_E_LIMIT (an example over 2 GiB: record_index names
 *         it), TFN_E_NOMEM. Threads: no shared state. */
TFN_API int tfn_encode_sequences_size(const tfn_column *context, size_t ncontext,
                                      const tfn_list_column *lists, size_t nlists, size_t n,
                                      uint64_t *sizes, uint64_t *total, tfn_error *err);

/* Serializes n SequenceExamples back to back into dst, byte-identical to protobuf's
 * SerializeToString(deterministic=True) of each tf.train.SequenceExample: context
 * (field 1) as tfn_encode_columns writes an Example's features, then feature_lists
 * (field 2) with map entries sorted by key bytes and one Feature per step (numeric
 * lists packed; an empty step is an empty list of the list's kind). Example i is
 * dst[offsets[i] .. offsets[i+1]); `offsets` has n + 1 entries (may be NULL). Only
 * scratch memory is allocated (the context's bytes, the sorted lists), freed before
 * returning. Errors as tfn_encode_sequences_size(), plus TFN_E_BUF_TOO_SMALL
 * (*written = the total needed; nothing else is written). Threads: no shared state. */
TFN_API int tfn_encode_sequences(const tfn_column *context, size_t ncontext,
                                 const tfn_list_column *lists, size_t nlists, size_t n,
                                 void *dst, size_t cap, uint64_t *offsets, size_t *written,
                                 tfn_error *err);

/* ==================================================================================
 * MARK: String hashing (tf.strings.to_hash_bucket*, tf.lookup's OOV buckets)
 *
 * The three hashes TensorFlow's string ops use, bit-exact with TensorFlow on every
 * machine (words are read little-endian). Thread-safe, no state.
 * ================================================================================== */

/* The seed TensorFlow's Hash64 uses when none is given. */
#define TFN_TF_HASH64_SEED 0xDECAFCAFFEull

typedef enum tfn_hash_kind {
    TFN_HASH_FINGERPRINT64 = 1, /* FarmHash Fingerprint64: to_hash_bucket_fast */
    TFN_HASH_TF_HASH64 = 2,     /* TensorFlow's Hash64, seed 0xDECAFCAFFE: to_hash_bucket */
    TFN_HASH_SIPHASH24 = 3      /* SipHash-2-4 with a 2-word key: to_hash_bucket_strong */
} tfn_hash_kind;

/* FarmHash's Fingerprint64 (farmhashna::Hash64) of `len` bytes, the hash of
 * tf.strings.to_hash_bucket_fast. tfn_fingerprint64("", 0) == 0x9ae16a3b2f90404f.
 * @param data  may be NULL when len == 0. */
TFN_API uint64_t tfn_fingerprint64(const void *data, size_t len);

/* TensorFlow's Hash64 (tensorflow/core/platform/hash.cc, a MurmurHash64A variant) with
 * `seed`; tf.strings.to_hash_bucket uses TFN_TF_HASH64_SEED. */
TFN_API uint64_t tfn_tf_hash64(const void *data, size_t len, uint64_t seed);

/* SipHash-2-4 with the 128-bit key key[0] (low word) and key[1], as highwayhash
 * computes it for tf.strings.to_hash_bucket_strong(..., key=[key[0], key[1]]). */
TFN_API uint64_t tfn_siphash24(const uint64_t key[2], const void *data, size_t len);

/* Hashes n strings laid end to end: string i is data[offsets[i] .. offsets[i + 1])
 * (offsets has n + 1 entries, non-decreasing, from 0 or more), with the hash `kind`
 * (a tfn_hash_kind; `key` is read only for TFN_HASH_SIPHASH24) and writes
 * out[i] = hash % num_buckets (the hash itself when num_buckets is 0).
 * @param data  may be NULL when every string is empty.
 * @return TFN_OK, or TFN_E_INVALID_ARG (unknown kind, NULL arrays or key, offsets that
 *         are not ranges; err->record_index = the string). Thread-safe. */
TFN_API int tfn_hash_strings(int kind, const uint8_t *data, const int64_t *offsets, size_t n,
                             const uint64_t *key, uint64_t num_buckets, uint64_t *out,
                             tfn_error *err);

/* As tfn_hash_strings, for n strings given as views, wherever each lies (strs[i].data
 * may be NULL when strs[i].len is 0): no need to lay them end to end first.
 * @return TFN_OK, or TFN_E_INVALID_ARG (unknown kind, NULL arrays or key, a NULL view
 *         of a non-empty string; err->record_index = the string). Thread-safe. */
TFN_API int tfn_hash_views(int kind, const tfn_bytes *strs, size_t n, const uint64_t *key,
                           uint64_t num_buckets, uint64_t *out, tfn_error *err);

/* ==================================================================================
 * MARK: Random numbers (tf.random.*, Dataset.shuffle's order)
 *
 * TensorFlow's generator, bit-exact: Philox-4x32-10 and the Box-Muller step of its
 * normal distributions. The seeding rules (seed pair -> key and counter) and the
 * distributions built on the raw words live in the bindings.
 * ================================================================================== */

/* Philox-4x32-10 blocks for the counters counter, counter + 1, ... (a 128-bit number,
 * counter[0] the lowest word): writes 4 * nblocks words to out, block i at out + 4 i.
 * With key {0, 0} and counter {0, 0, 0, 0} the first block is 0x6627e8d5 0xe169c58d
 * 0xbc57ac4c 0x9b00dbd8 (Random123's known answer). Thread-safe. */
TFN_API void tfn_philox4x32(const uint32_t key[2], const uint32_t counter[4],
                            uint64_t nblocks, uint32_t *out);

/* TensorFlow's BoxMullerFloat on npairs pairs of words: out[2i] = sin(v) * r and
 * out[2i + 1] = cos(v) * r from bits[2i] (the radius) and bits[2i + 1] (the angle).
 * Float arithmetic and the C library's logf / sinf / cosf, as TensorFlow's kernel. */
TFN_API void tfn_box_muller_float(const uint32_t *bits, size_t npairs, float *out);

/* TensorFlow's BoxMullerDouble on nquads groups of four words (two per uniform
 * double): out[2i], out[2i + 1] from bits[4i .. 4i + 3]. */
TFN_API void tfn_box_muller_double(const uint32_t *bits, size_t nquads, double *out);

/* ==================================================================================
 * MARK: Lookup tables (tf.lookup.StaticHashTable, StaticVocabularyTable)
 *
 * An immutable hash table from string or int64 keys to rows, built once from n keys:
 * a key's row is the index of its first occurrence among them. The caller keeps the
 * values (indexed by row) and decides what a repeated key means (TensorFlow refuses
 * one with another value: `first` tells which keys repeat which). Open addressing with
 * linear probing, at most half full (a quarter for tables of up to 16 MiB of slots),
 * over FarmHash Fingerprint64 of string keys (the table keeps its own copy of their
 * bytes) and Fibonacci hashing of int64 keys. Lookups only read the table: threads may
 * look up in one table at once.
 * ================================================================================== */

typedef struct tfn_table tfn_table;

/* Builds a table of the n string keys `keys` (keys[i].data may be NULL when
 * keys[i].len is 0; the bytes are copied). `first` (NULL, or n entries): first[i] = the
 * index of the first key equal to keys[i] (i itself for a key's first occurrence).
 * @return TFN_OK (*out set; free it with tfn_table_free), TFN_E_INVALID_ARG (NULL
 *         arguments, a NULL view of a non-empty key), TFN_E_LIMIT (too many keys for
 *         this machine's sizes) or TFN_E_NOMEM; *out is then NULL. */
TFN_API int tfn_table_new_strings(const tfn_bytes *keys, size_t n, int64_t *first,
                                  const tfn_alloc *alloc, tfn_table **out, tfn_error *err);

/* As tfn_table_new_strings, for n int64 keys. */
TFN_API int tfn_table_new_int64(const int64_t *keys, size_t n, int64_t *first,
                                const tfn_alloc *alloc, tfn_table **out, tfn_error *err);

/* Frees a table (NULL is a no-op). */
TFN_API void tfn_table_free(tfn_table *t);

/* The number of distinct keys of the table (0 for NULL). */
TFN_API size_t tfn_table_size(const tfn_table *t);

/* rows[i] = the row of keys[i] in the table, or `missing` when it has no such key.
 * @return TFN_OK, or TFN_E_INVALID_ARG (NULL table or arrays, a NULL view of a
 *         non-empty key, a table of the other key type). */
TFN_API int tfn_table_find_strings(const tfn_table *t, const tfn_bytes *keys, size_t n,
                                   int64_t missing, int64_t *rows, tfn_error *err);
TFN_API int tfn_table_find_int64(const tfn_table *t, const int64_t *keys, size_t n,
                                 int64_t missing, int64_t *rows, tfn_error *err);

/* The ids tf.lookup.StaticVocabularyTable gives: ids[i] = values[row] when keys[i] is in
 * the table and that value is not -1 (TensorFlow's default id), else size +
 * Fingerprint64(key) % oov_buckets (size: tfn_table_size(t); for int64 keys the hash
 * is of the key's decimal text, as TensorFlow hashes tf.as_string(key)), computed in
 * int64 with wrap-around as TensorFlow adds them. `t` may be NULL (no vocabulary: size
 * 0, every key hashed; string keys only), `values` has an entry for every row.
 * @return TFN_OK, or TFN_E_INVALID_ARG (NULL arrays, oov_buckets 0, a NULL view of a
 *         non-empty key, a table of the other key type). */
TFN_API int tfn_table_vocab_strings(const tfn_table *t, const int64_t *values,
                                    const tfn_bytes *keys, size_t n, uint64_t oov_buckets,
                                    int64_t *ids, tfn_error *err);
TFN_API int tfn_table_vocab_int64(const tfn_table *t, const int64_t *values,
                                  const int64_t *keys, size_t n, uint64_t oov_buckets,
                                  int64_t *ids, tfn_error *err);

/* ==================================================================================
 * MARK: CRC32C and TFRecord files
 *
 * A TFRecord file is a sequence of records, each framed as
 *     uint64 LE length N | uint32 LE masked CRC32C of those 8 bytes |
 *     N payload bytes    | uint32 LE masked CRC32C of the payload
 * with no file header or trailer. With ZLIB or GZIP compression the whole framed
 * stream is one deflate stream (not one per record). See docs/tfrecord.md.
 *
 * Errors of readers follow TensorFlow. A failing tfn_record_reader_next() (and
 * next_batch / read_into) puts TensorFlow's exact text first in err->msg, then the
 * suffix "; file <name>, record <i>" ("; record <i>" when the reader has no name):
 *     corrupted record at 12; file data.tfrecord, record 0
 *     corrupted record at 0 (Is this even a TFRecord file?); file x, record 0
 *     truncated record at 4096' failed with Read less bytes than requested; file x, record 7
 *     inflate() failed with error -3: incorrect header check; record 0
 * so TensorFlow's text is err->msg without that suffix, whose parts are known to the
 * caller (the name it gave, err->record_index). err->offset is the offset TensorFlow
 * prints (in the decompressed stream) and err->record_index the record's index.
 * Opening a missing file gives TensorFlow's NotFound text "<path>; No such file or
 * directory" (TFN_E_IO, sys_errno ENOENT) with no suffix.
 * ================================================================================== */

/* CRC-32C (Castagnoli, iSCSI; reflected polynomial 0x82f63b78, init and final xor
 * 0xffffffff). `crc` is the CRC of the bytes before `data`: pass 0 to start a fresh
 * checksum, so tfn_crc32c(0, "123456789", 9) == 0xe3069283, and
 * tfn_crc32c(tfn_crc32c(0, a, na), b, nb) == CRC of a followed by b.
 * Uses the SSE4.2 crc32 instruction when the CPU has it (three interleaved streams
 * on long inputs), else a portable slice-by-8 loop; both give the same values.
 * @param data  may be NULL when len == 0. Thread-safe. */
TFN_API uint32_t tfn_crc32c(uint32_t crc, const void *data, size_t len);

/* TFRecord's CRC mask: rotate right by 15 bits, add 0xa282ead8 (mod 2^32). */
TFN_API uint32_t tfn_crc32c_mask(uint32_t crc);

/* Inverse of tfn_crc32c_mask(). */
TFN_API uint32_t tfn_crc32c_unmask(uint32_t masked);

/* ---------------------------------------------------------------- framing helpers */

/* Framed size of a payload of `payload_len` bytes (payload_len + 16), or 0 when that
 * overflows size_t. */
TFN_API size_t tfn_record_frame_size(size_t payload_len);

/* Writes one framed record (header, payload, footer) into dst.
 * @param payload  may be NULL when len == 0.
 * @param written  receives the bytes written (on TFN_E_BUF_TOO_SMALL: the size needed).
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL, TFN_E_INVALID_ARG (NULL dst/written). */
TFN_API int tfn_record_frame(void *dst, size_t cap, const void *payload, size_t len,
                             size_t *written, tfn_error *err);

/* Unframe flags. */
enum {
    TFN_UNFRAME_DEFAULT = 0,
    TFN_UNFRAME_NO_PAYLOAD_CRC = 1 /* check the length CRC only */
};

/* Reads the record at the start of src[0 .. len): a view of its payload and the
 * number of bytes it takes. Offsets in messages are relative to src.
 * @param payload  receives a pointer into src (valid as long as src is).
 * @return TFN_OK; TFN_END when len == 0 or fewer than 12 bytes are there (TensorFlow
 *         ends quietly on a partial header); TFN_E_DATA_LOSS_LENGTH ("corrupted
 *         record at 0 (Is this even a TFRecord file?)"); TFN_E_TRUNCATED ("truncated
 *         record at 0' failed with Read less bytes than requested", *consumed = the
 *         framed size needed when it fits size_t); TFN_E_DATA_LOSS ("corrupted record
 *         at 12"); TFN_E_INVALID_ARG. */
TFN_API int tfn_record_unframe(const void *src, size_t len, unsigned flags,
                               const uint8_t **payload, size_t *payload_len, size_t *consumed,
                               tfn_error *err);

/* ---------------------------------------------------------------- I/O callbacks */

/* An I/O back end supplied by the caller (the Python bindings pass file objects
 * through it). Each function gets `ctx`. Return values: byte counts >= 0, or a
 * negative errno (e.g. -EIO) on failure; the library reports TFN_E_IO with
 * sys_errno = -return.
 *   read:  reads up to len bytes into buf; 0 means end of data. Required for readers.
 *   write: writes up to len bytes, returns how many (short writes are retried; 0 is
 *          an error). Required for writers.
 *   seek:  moves to absolute byte `offset`; returns 0. Optional (NULL): needed only by
 *          tfn_record_reader_seek().
 *   flush: pushes written bytes on; returns 0. Optional.
 *   close: called once by tfn_record_reader_free() / tfn_record_writer_close();
 *          returns 0. Optional. */
typedef struct tfn_io {
    int64_t (*read)(void *ctx, void *buf, size_t len);
    int64_t (*write)(void *ctx, const void *buf, size_t len);
    int64_t (*seek)(void *ctx, uint64_t offset);
    int (*flush)(void *ctx);
    int (*close)(void *ctx);
    void *ctx;
} tfn_io;

/* Compression of a TFRecord stream. */
typedef enum tfn_compression {
    TFN_COMPRESSION_NONE = 0,
    TFN_COMPRESSION_ZLIB = 1,
    TFN_COMPRESSION_GZIP = 2,
    TFN_COMPRESSION_AUTO = 3 /* readers only: detected from the first bytes */
} tfn_compression;

/* What a reader does with damaged data. */
typedef enum tfn_on_damage {
    TFN_ON_DAMAGE_RAISE = 0, /* report the error (TensorFlow's behaviour) */
    TFN_ON_DAMAGE_SKIP = 1   /* skip it and resynchronise on the next valid record */
} tfn_on_damage;

/* ---------------------------------------------------------------- reader */

typedef struct tfn_record_reader tfn_record_reader;

/* Reader options. Fill them with tfn_record_reader_options_init(), then change what
 * you need; passing NULL options means the defaults. */
typedef struct tfn_record_reader_options {
    int compression;        /* a tfn_compression; default NONE */
    int skip_payload_crc;   /* non-zero: check only the length CRCs; default 0 */
    int on_damage;          /* a tfn_on_damage; default RAISE */
    size_t buffer_size;     /* read buffer in bytes; default 1 MiB (grown to fit a
                               record longer than it) */
    const char *name;       /* name used in messages for memory / callback readers
                               (copied); NULL = none. Path readers use the path. */
} tfn_record_reader_options;

/* Sets the defaults listed above. */
TFN_API void tfn_record_reader_options_init(tfn_record_reader_options *opts);

/* Opens a file for reading.
 * @return TFN_OK; TFN_E_IO (sys_errno set; message "<path>; No such file or
 *         directory" as TensorFlow's NotFound); TFN_E_INVALID_ARG; TFN_E_NOMEM.
 * The reader owns its buffer; memory stays constant whatever the file size. */
TFN_API int tfn_record_reader_open(const char *path, const tfn_record_reader_options *opts,
                                   const tfn_alloc *alc, tfn_record_reader **out,
                                   tfn_error *err);

/* Reads from memory, which must stay alive and unchanged until the reader is freed.
 * Uncompressed input is not copied: records are views into `data`. */
TFN_API int tfn_record_reader_open_mem(const void *data, size_t len,
                                       const tfn_record_reader_options *opts,
                                       const tfn_alloc *alc, tfn_record_reader **out,
                                       tfn_error *err);

/* Reads through an I/O callback table (copied; io->read required). */
TFN_API int tfn_record_reader_open_io(const tfn_io *io, const tfn_record_reader_options *opts,
                                      const tfn_alloc *alc, tfn_record_reader **out,
                                      tfn_error *err);

/* Next record: *data / *len receive a view of its payload, valid until the next call
 * on this reader.
 * @return TFN_OK; TFN_END at a clean end (also after 1..11 stray bytes, as
 *         TensorFlow); TFN_E_DATA_LOSS_LENGTH (bad length CRC), TFN_E_DATA_LOSS (bad
 *         payload CRC, or a zlib error "inflate() failed with error -3: ..."),
 *         TFN_E_TRUNCATED, TFN_E_IO, TFN_E_NOMEM.
 * After an error the reader stays at the same record: calling again retries it (a
 * file still being written can be read on once its last record is complete). With
 * TFN_ON_DAMAGE_SKIP, CRC errors are not returned: the reader scans forward for the
 * next offset holding a complete record whose length CRC (and payload CRC, unless
 * disabled) match, and counts what it skipped. A record whose length runs past the end
 * of the stream is skipped the same way when a complete valid record follows it (a
 * torn record in the middle of a file); with nothing valid after it, it is reported
 * as TFN_E_TRUNCATED and not consumed (the file may be still being written). Each
 * call skips at most one damaged region, before the record it returns (see
 * tfn_record_reader_last_skip()). Zlib errors end a compressed stream in both
 * policies (nothing after them can be decoded); with SKIP, the records decoded before
 * the damage come first, where RAISE (as TensorFlow) may lose those of the same input
 * chunk. */
TFN_API int tfn_record_reader_next(tfn_record_reader *r, const uint8_t **data, size_t *len,
                                   tfn_error *err);

/* Up to `max` records at once: views[0 .. *n) are their payloads, all valid until the
 * next call on this reader. Returns TFN_OK with *n >= 1; an error met after some
 * records is held back and returned by the next call (*n = 0).
 * @return TFN_OK, TFN_END (*n = 0), or an error as tfn_record_reader_next(). */
TFN_API int tfn_record_reader_next_batch(tfn_record_reader *r, tfn_bytes *views, size_t max,
                                         size_t *n, tfn_error *err);

/* Copies up to `max` records back to back into dst: record i is
 * dst[offsets[i] .. offsets[i+1]) (offsets has max+1 entries), *n records, *written
 * bytes. Stops early when the next record does not fit.
 * @return TFN_OK (*n >= 1), TFN_END, TFN_E_BUF_TOO_SMALL when not even the first
 *         record fits (*written = its size; the reader does not move), or an error as
 *         tfn_record_reader_next(). */
TFN_API int tfn_record_reader_read_into(tfn_record_reader *r, void *dst, size_t cap,
                                        uint64_t *offsets, size_t max, size_t *n,
                                        size_t *written, tfn_error *err);

/* Two steps for a caller that copies each record into memory of its own, sized once
 * the length is known (a binding's bytes objects):
 * tfn_record_reader_peek() makes the next record available and gives its payload
 * length, without consuming it; tfn_record_reader_take() copies it to dst and
 * consumes it. The payload CRC is computed during that copy, in one pass over the
 * record (TFN_ON_DAMAGE_RAISE): a mismatch is take()'s TFN_E_DATA_LOSS, with
 * tfn_record_reader_next()'s message, and the record stays unconsumed. With
 * TFN_ON_DAMAGE_SKIP peek() checks the record (and skips damage) as next() does, and
 * take() only copies. take() without a peek() first peeks itself; so does a take()
 * after another call moved the reader.
 * @return peek: TFN_OK, TFN_END, or an error as tfn_record_reader_next();
 *         take: the same, or TFN_E_BUF_TOO_SMALL when cap < the length (*len = the
 *         length; the reader does not move). */
TFN_API int tfn_record_reader_peek(tfn_record_reader *r, size_t *len, tfn_error *err);
TFN_API int tfn_record_reader_take(tfn_record_reader *r, void *dst, size_t cap, size_t *len,
                                   tfn_error *err);

/* Offset of the next record in the (decompressed) stream. */
TFN_API uint64_t tfn_record_reader_offset(const tfn_record_reader *r);

/* Index of the next record (the number returned so far, plus a seek's start). */
TFN_API uint64_t tfn_record_reader_index(const tfn_record_reader *r);

/* With TFN_ON_DAMAGE_SKIP: damaged regions skipped so far and their bytes.
 * Either pointer may be NULL. */
TFN_API void tfn_record_reader_skipped(const tfn_record_reader *r, uint64_t *records,
                                       uint64_t *bytes);

/* A damaged region skipped by a TFN_ON_DAMAGE_SKIP reader. */
typedef struct tfn_record_skip {
    uint64_t offset;       /* (decompressed) stream offset where the damage starts */
    uint64_t length;       /* bytes skipped; the next good record starts at offset+length */
    uint64_t record_index; /* the index the good record after it gets */
    int reason;            /* what was met first: TFN_E_DATA_LOSS_LENGTH (bad length
                              CRC), TFN_E_DATA_LOSS (bad payload CRC) or TFN_E_TRUNCATED
                              (a length running past the end) */
} tfn_record_skip;

/* The latest region skipped (all zero when none yet). A call of next / next_batch /
 * read_into skips at most one region, so comparing tfn_record_reader_skipped()'s count
 * before and after a call tells whether this is new. Thread-safety: as the reader. */
TFN_API void tfn_record_reader_last_skip(const tfn_record_reader *r, tfn_record_skip *out);

/* The compression in use (the detected one for TFN_COMPRESSION_AUTO; AUTO until the
 * first bytes have been read). */
TFN_API int tfn_record_reader_compression(const tfn_record_reader *r);

/* Moves an uncompressed reader to `offset` (the start of a record, e.g. from an
 * index); the next record read is then numbered `record_index`.
 * @return TFN_OK, TFN_E_INVALID_ARG (compressed input, no seek callback, offset past
 *         the end of memory), TFN_E_IO. */
TFN_API int tfn_record_reader_seek(tfn_record_reader *r, uint64_t offset,
                                   uint64_t record_index, tfn_error *err);

/* Frees the reader and closes its file (or calls io->close). NULL is accepted. */
TFN_API void tfn_record_reader_free(tfn_record_reader *r);

/* ---------------------------------------------------------------- writer */

typedef struct tfn_record_writer tfn_record_writer;

/* Writer options; fill with tfn_record_writer_options_init(). NULL = defaults.
 * The zlib settings default to TensorFlow's (level -1 = 6, window bits 15,
 * memLevel 9, default strategy). */
typedef struct tfn_record_writer_options {
    int compression;       /* NONE, ZLIB or GZIP; default NONE */
    int compression_level; /* -1 (default) or 0..9 */
    int window_bits;       /* 8..15; default 15 (GZIP adds 16 itself) */
    int mem_level;         /* 1..9; default 9 */
    int strategy;          /* zlib strategy; default 0 (Z_DEFAULT_STRATEGY) */
    size_t buffer_size;    /* output buffer in bytes; default 256 KiB */
    uint64_t flush_every_records; /* non-zero: flush (as tfn_record_writer_flush())
                                     once this many records are waiting; default 0 */
    uint64_t flush_every_ms;      /* non-zero: flush at the first write at least this
                                     many milliseconds after the last flush; default 0
                                     (checked at writes only: no thread, no timer) */
} tfn_record_writer_options;

/* Sets the defaults listed above. */
TFN_API void tfn_record_writer_options_init(tfn_record_writer_options *opts);

/* Creates (or truncates) a file.
 * @return TFN_OK, TFN_E_IO (sys_errno; "<path>; No such file or directory"),
 *         TFN_E_INVALID_ARG (bad options), TFN_E_NOMEM. */
TFN_API int tfn_record_writer_open(const char *path, const tfn_record_writer_options *opts,
                                   const tfn_alloc *alc, tfn_record_writer **out,
                                   tfn_error *err);

/* Writes into memory owned by the writer; see tfn_record_writer_mem_data(). */
TFN_API int tfn_record_writer_open_mem(const tfn_record_writer_options *opts,
                                       const tfn_alloc *alc, tfn_record_writer **out,
                                       tfn_error *err);

/* Writes through an I/O callback table (copied; io->write required). */
TFN_API int tfn_record_writer_open_io(const tfn_io *io, const tfn_record_writer_options *opts,
                                      const tfn_alloc *alc, tfn_record_writer **out,
                                      tfn_error *err);

/* Appends one record (buffered; see the flush_every_* options).
 * The first failure of the sink (TFN_E_IO, e.g. ENOSPC or EIO, or TFN_E_NOMEM of a
 * memory writer) is sticky: this and every later write, flush and close return it with
 * the same message, nothing more is written, and a file the writer opened is cut back
 * to the end of the last whole record it holds (tfn_record_writer_durable(); records
 * still buffered at the failure are lost, and the message says where the file ends).
 * A record refused for its own sake (TFN_E_LIMIT) is not sticky. A tfn_io sink is not
 * cut back: its owner truncates it to tfn_record_writer_durable()'s bytes.
 * @param data  may be NULL when len == 0.
 * @return TFN_OK, TFN_E_CLOSED ("Writer is closed."), TFN_E_IO, TFN_E_NOMEM,
 *         TFN_E_INVALID_ARG, TFN_E_LIMIT. */
TFN_API int tfn_record_writer_write(tfn_record_writer *w, const void *data, size_t len,
                                    tfn_error *err);

/* Appends n records stored back to back: record i is data[offsets[i] ..
 * offsets[i+1]) (offsets has n+1 non-decreasing entries). Same statuses as
 * tfn_record_writer_write(); on error, the records before the bad one are written. */
TFN_API int tfn_record_writer_write_batch(tfn_record_writer *w, const void *data,
                                          const uint64_t *offsets, size_t n, tfn_error *err);

/* Pushes buffered records to the file (compressed: a Z_PARTIAL_FLUSH first, as
 * TensorFlow), so that every record written so far can be read back by others and
 * survives the death of the process (not of the machine: that needs fsync).
 * @return TFN_OK, TFN_E_CLOSED, TFN_E_IO (sticky, as for writes). */
TFN_API int tfn_record_writer_flush(tfn_record_writer *w, tfn_error *err);

/* Finishes the stream (Z_FINISH when compressed), flushes and closes the file or
 * calls io->close. Closing twice is fine (TFN_OK, or the sticky failure again).
 * @return TFN_OK, TFN_E_IO (the writer is closed anyway; after an earlier sink failure,
 *         that failure). */
TFN_API int tfn_record_writer_close(tfn_record_writer *w, tfn_error *err);

/* The bytes written so far by a memory writer (complete after close). The view is
 * valid until the next write, flush or free. Others: *data = NULL, *len = 0. */
TFN_API void tfn_record_writer_mem_data(const tfn_record_writer *w, const uint8_t **data,
                                        size_t *len);

/* Records written so far. */
TFN_API uint64_t tfn_record_writer_count(const tfn_record_writer *w);

/* What the sink holds for sure: the records wholly handed on and the bytes they take
 * (for ZLIB / GZIP, as of the last flush). Written records beyond these wait in the
 * writer's buffer (or in zlib) and die with the process. After a sink failure the file
 * ends exactly here. Either pointer may be NULL. */
TFN_API void tfn_record_writer_durable(const tfn_record_writer *w, uint64_t *records,
                                       uint64_t *bytes);

/* Closes (ignoring errors) if needed and frees the writer. NULL is accepted. */
TFN_API void tfn_record_writer_free(tfn_record_writer *w);

/* ---------------------------------------------------------------- index */

/* The (offset, length) of every record of an uncompressed file, length being the
 * whole framed size (payload + 16), as in the text index files of NVIDIA DALI's
 * tfrecord2idx and the `tfrecord` PyPI package: one "offset length\n" line per
 * record. */
typedef struct tfn_record_index tfn_record_index;

/* Builds the index by reading r from its current position to the end (length CRCs
 * checked; payload CRCs as the reader's options say). Uncompressed readers only.
 * Record i of the index is the i-th record from where the reader was.
 * @return TFN_OK; TFN_E_INVALID_ARG (compressed); the reader's errors
 *         (TFN_E_DATA_LOSS*, TFN_E_TRUNCATED, TFN_E_IO); TFN_E_NOMEM. */
TFN_API int tfn_record_index_build(tfn_record_reader *r, const tfn_alloc *alc,
                                   tfn_record_index **out, tfn_error *err);

/* Parses index text ("offset length" pairs separated by white space).
 * @return TFN_OK, TFN_E_CORRUPT (message names the line), TFN_E_NOMEM. */
TFN_API int tfn_record_index_parse(const void *text, size_t len, const tfn_alloc *alc,
                                   tfn_record_index **out, tfn_error *err);

/* Reads an index file (as tfn_record_index_parse). TFN_E_IO when it cannot be read. */
TFN_API int tfn_record_index_load(const char *path, const tfn_alloc *alc,
                                  tfn_record_index **out, tfn_error *err);

/* Writes the index as text into dst (no NUL).
 * @return TFN_OK, TFN_E_BUF_TOO_SMALL (*written = size needed). */
TFN_API int tfn_record_index_format(const tfn_record_index *idx, void *dst, size_t cap,
                                    size_t *written, tfn_error *err);

/* Writes the index file (created or truncated). @return TFN_OK, TFN_E_IO, TFN_E_NOMEM. */
TFN_API int tfn_record_index_save(const tfn_record_index *idx, const char *path,
                                  tfn_error *err);

/* Number of records. */
TFN_API uint64_t tfn_record_index_count(const tfn_record_index *idx);

/* Offset and framed length of record i. @return TFN_OK, TFN_E_INVALID_ARG (i out of
 * range). Either output may be NULL. */
TFN_API int tfn_record_index_at(const tfn_record_index *idx, uint64_t i, uint64_t *offset,
                                uint64_t *length);

/* Reads record i directly: seeks the reader to its offset and reads it; the view is
 * valid until the next call on the reader, which then goes on with record i+1.
 * Whatever the reader's damage policy, the record returned is the one at that offset
 * with the framed length the index gives: a damaged record is an error for number i
 * (TFN_ON_DAMAGE_SKIP does not move on to a later record here).
 * @return TFN_OK, TFN_E_INVALID_ARG (i out of range, reader not seekable), the
 *         errors of tfn_record_reader_next() (TFN_END if the file is shorter than the
 *         index says), TFN_E_DATA_LOSS when the record there has another length than
 *         the index says. */
TFN_API int tfn_record_index_read(const tfn_record_index *idx, tfn_record_reader *r,
                                  uint64_t i, const uint8_t **data, size_t *len,
                                  tfn_error *err);

/* Frees an index. NULL is accepted. */
TFN_API void tfn_record_index_free(tfn_record_index *idx);

/* ---------------------------------------------------------------- seek points */

/* Random access into a GZIP or ZLIB stream (zlib's zran method). One pass inflates the
 * whole stream and keeps a seek point every `spacing` bytes of decompressed output, at
 * a deflate block boundary: its compressed and decompressed offsets and the 32 KiB of
 * output before it. tfn_seekpoints_read() then inflates from the last point before
 * the wanted offset: at most about `spacing` bytes per read. Memory: about 32 KiB per
 * point. Offsets are those of the decompressed stream, as in an index built over it.
 * A handle is read-only after it is built: any number of threads may read with it at
 * once (each read opens the file itself). */
typedef struct tfn_seekpoints tfn_seekpoints;

/* Builds seek points for the compressed file at `path`.
 * @param compression  TFN_COMPRESSION_GZIP, _ZLIB or _AUTO (header detected).
 * @param spacing      decompressed bytes between points (at least 32 KiB is used).
 * A stream that stops early (truncated) is not an error: the points cover what
 * inflates, and tfn_seekpoints_total() says how much that is.
 * @return TFN_OK; TFN_E_IO (path cannot be opened or read; sys_errno);
 *         TFN_E_DATA_LOSS (corrupt stream: "inflate() failed with error -3: ...", the
 *         compressed offset); TFN_E_INVALID_ARG (other compression, NULL path/out);
 *         TFN_E_NOMEM. */
TFN_API int tfn_seekpoints_build(const char *path, int compression, uint64_t spacing,
                                 const tfn_alloc *alc, tfn_seekpoints **out,
                                 tfn_error *err);

/* As tfn_seekpoints_build over the compressed bytes data[0 .. len). */
TFN_API int tfn_seekpoints_build_mem(const void *data, size_t len, int compression,
                                     uint64_t spacing, const tfn_alloc *alc,
                                     tfn_seekpoints **out, tfn_error *err);

/* Number of points (at least 1: the start of the stream). */
TFN_API uint64_t tfn_seekpoints_count(const tfn_seekpoints *sp);

/* Decompressed bytes of the stream (up to where it ends or stops). */
TFN_API uint64_t tfn_seekpoints_total(const tfn_seekpoints *sp);

/* Reads up to len decompressed bytes at `offset` into dst from the file at `path`
 * (the one the points were built from); *got = the bytes read (fewer at the end of
 * the stream, 0 at or past it).
 * @return TFN_OK, TFN_E_IO, TFN_E_DATA_LOSS (corrupt, or the file changed since the
 *         points were built), TFN_E_INVALID_ARG (NULL sp/path/got, or dst with len > 0),
 *         TFN_E_NOMEM. */
TFN_API int tfn_seekpoints_read(const tfn_seekpoints *sp, const char *path, uint64_t offset,
                                void *dst, size_t len, size_t *got, tfn_error *err);

/* As tfn_seekpoints_read over the compressed bytes data[0 .. data_len). */
TFN_API int tfn_seekpoints_read_mem(const tfn_seekpoints *sp, const void *data,
                                    size_t data_len, uint64_t offset, void *dst, size_t len,
                                    size_t *got, tfn_error *err);

/* Frees the points. NULL is accepted. */
TFN_API void tfn_seekpoints_free(tfn_seekpoints *sp);

/* ==================================================================================
 * MARK: Pipeline - read, check, parse and batch on worker threads (lib/pipeline)
 *
 * A tfn_pipeline runs tf.data's `interleave(TFRecordDataset, cycle_length,
 * block_length) -> map(parse) -> batch(batch_size) -> prefetch` on its own C threads
 * and hands the caller finished batches. Records are read, CRC-checked and copied into
 * the batch under one reading lock (so that the record order is TensorFlow's, exactly);
 * parsing, the int32 casts and the padding run outside it, one tfn_parser per worker
 * thread, several batches at a time. At most `prefetch + num_threads` batches are in
 * flight or waiting; workers wait when that many are, so memory stays bounded.
 *
 * Order (deterministic != 0): the records of the inputs in the order of
 * `Dataset.from_tensor_slices(inputs).interleave(TFRecordDataset, cycle_length,
 * block_length)`: cycle_length inputs are open at once, block_length records are
 * taken from each in turn, and when an input ends the next unopened one takes its
 * place at that position's next turn. Batches come out in that order. With
 * deterministic == 0 the records are still read in that order but batches are handed
 * out as they finish parsing.
 *
 * Errors travel in order: a failing batch is returned by tfn_pipeline_next() at its
 * place (after every good batch before it) and the next call goes on after it.
 *   - Damaged input, on_damage RAISE: the batch being filled is dropped (as
 *     `batch()` drops its partial batch; see error_fills_batch for map_and_batch's
 *     way), the reader's error is returned (its message ends "; file <path>,
 *     record <i>"), and that input ends there, as TensorFlow's TFRecordDataset moves
 *     on to its next file. SKIP: the reader resynchronises on
 *     the next valid record and counts what it skipped (tfn_pipeline_stats); a
 *     truncated tail or a zlib error ends that input and counts as one region.
 *   - An input that cannot be opened is an error (TFN_E_IO, "<path>; No such file or
 *     directory") in both policies; that input is skipped afterwards.
 *   - Parse errors, on_parse_error RAISE: the whole batch is the error, as in
 *     TensorFlow's fused map_and_batch; the text is tfn_parser_scan()'s (batch style:
 *     "Name: <unknown>, Key: k, Index: <i in the batch>.", or with TFN_PARSE_SINGLE
 *     in parse_flags the text parse_single_example gives for that record) followed by
 *     "; file <path>, record <i>, offset <o>"; err->record_index and err->offset are
 *     the record's index and byte offset in its input. SKIP: each failing record is
 *     dropped from its batch (which is then shorter) and counted.
 *
 * Threads: a pipeline handle is used by one thread at a time (next, stats and free
 * must not run concurrently on it). Batches are independent of it: each may be read
 * by any number of threads and freed from any thread, also after tfn_pipeline_free.
 * The pipeline's workers block every signal. A shared tfn_alloc must be thread-safe.
 * ================================================================================== */

typedef struct tfn_pipeline tfn_pipeline;
typedef struct tfn_pipeline_batch tfn_pipeline_batch;

/* What the pipeline does with a record that fails to parse. Values are pinned. */
typedef enum tfn_on_parse_error {
    TFN_ON_PARSE_ERROR_RAISE = 0, /* the batch holding it is an error (TensorFlow) */
    TFN_ON_PARSE_ERROR_SKIP = 1   /* drop the record from its batch and count it */
} tfn_on_parse_error;

/* Pipeline options; tfn_pipeline_options_init() sets the defaults given here. All
 * pointers are borrowed for the tfn_pipeline_new() call only (paths and names are
 * copied), except `buffers`, `spec` and what they point to, which must outlive the
 * pipeline and every batch it handed out. */
typedef struct tfn_pipeline_options {
    const char *const *paths;  /* ninputs TFRecord file paths, or NULL to read buffers */
    const tfn_bytes *buffers;  /* ninputs in-memory TFRecord streams (when paths NULL) */
    const char *const *names;  /* optional names of the buffers in messages, or NULL */
    size_t ninputs;            /* may be 0 (then the first next() is TFN_END) */
    int compression;           /* a tfn_compression for every input; default NONE */
    size_t buffer_size;        /* read buffer per open input; default 256 KiB */
    size_t cycle_length;       /* inputs open at once (num_parallel_reads); default 1 */
    size_t block_length;       /* records taken from an input per turn; default 1 */
    int deterministic;         /* non-zero (default): batches in order */
    size_t batch_size;         /* records per batch; required (> 0) */
    int drop_remainder;        /* non-zero: drop the last batch when it is short (with
                                  spec and TFN_PARSE_SINGLE it is parsed, and its image
                                  stages run, first: an error is still reported, as
                                  TensorFlow's fused map(...).batch(n) reports it) */
    const tfn_spec *spec;      /* features to parse; NULL (default): raw record batches */
    unsigned parse_flags;      /* TFN_PARSE_BATCH (default) or TFN_PARSE_SINGLE: the
                                  style of parse error messages */
    int64_t max_rows;          /* FixedLenSequence rows: -1 (default) pads each batch to
                                  its longest; >= 0 truncates / pads to that many */
    int masks;                 /* non-zero: each FixedLenSequence feature also gets a
                                  mask (n * rows bytes) and lengths (n int64) */
    size_t num_threads;        /* worker threads; 0 (default): the CPUs this process
                                  may run on (sched_getaffinity). Raw batches use one. */
    size_t prefetch;           /* finished batches kept ready; default 2 */
    int on_damage;             /* a tfn_on_damage; default RAISE */
    int on_parse_error;        /* a tfn_on_parse_error; default RAISE */
    int error_fills_batch;     /* on_damage RAISE: 0 (default) as `batch()`: a read
                                  error drops the partial batch and the next batch
                                  starts after it; non-zero as TensorFlow's fused
                                  `map(...).batch(n)` (map_and_batch): the error takes
                                  one place of its batch, reading goes on until the
                                  batch's n places are taken, and the whole batch is
                                  the (first) error */
    const struct tfn_pipeline_image *images; /* nimages image stages (see below), or NULL */
    size_t nimages;
} tfn_pipeline_options;

/* An image stage: one scalar bytes feature of the spec (FixedLen, shape []) holds
 * encoded images; the worker that parsed the batch decodes, resizes and normalises each
 * record's image exactly as tfn_image_decode_resize_batch() does (the same values),
 * into a dense array owned by the batch (tfn_pipeline_batch_image) and recycled with
 * it. `image->num_threads` is ignored (each worker decodes its own batch; batches run
 * in parallel) and `image->on_error` is the policy for a record that fails to decode:
 *   TFN_IMAGE_RAISE: the whole batch is the error, as TensorFlow's fused map_and_batch
 *     (the decoder's message, then "; file <path>, record <i>, offset <o>" with the
 *     record's index and offset in its input; err->record_index and err->offset too;
 *     the status is TFN_E_INVALID_ARG, TensorFlow's class for every decode failure,
 *     or TFN_E_NOMEM);
 *   TFN_IMAGE_SKIP: the record is dropped from its batch (every output of it) and
 *     counted in tfn_pipeline_stats.image_skipped.
 * The options are copied by tfn_pipeline_new(). */
typedef struct tfn_pipeline_image {
    size_t feature;  /* index in the spec of a FixedLen bytes feature of shape [] */
    const struct tfn_image_batch_options *image; /* decode, size (> 0), method, dtype,
                                                    layout, normalisation; channels 1-4 */
    unsigned formats; /* bit (1 << tfn_image_format) set for each format the op decodes;
                         0: all. Another format fails with TensorFlow's "Trying to
                         decode <FORMAT> format using a wrong op. ... Op used: <op_name>" */
    const char *op_name; /* e.g. "DecodeJpeg"; NULL: "DecodeImage" */
} tfn_pipeline_image;

/* Sets the defaults listed above (batch_size 0: the caller must set it). */
TFN_API void tfn_pipeline_options_init(tfn_pipeline_options *opts);

/* Starts a pipeline: copies the options, starts the worker threads (which open the
 * inputs lazily, cycle_length at a time) and returns at once.
 * @param alc  allocator for everything the pipeline and its batches allocate, or NULL.
 * @param out  receives the handle; free it with tfn_pipeline_free().
 * @return TFN_OK; TFN_E_INVALID_ARG (NULL opts/out, batch_size 0, cycle_length or
 *         block_length 0, ninputs > 0 with neither paths nor buffers, a NULL path, bad
 *         compression / on_damage / on_parse_error / parse_flags, a spec holding a
 *         feature type other than FixedLen and FixedLenSequence, an image stage
 *         without a spec, on a feature that is not a scalar bytes FixedLen, or with
 *         bad image options); TFN_E_NOMEM;
 *         TFN_E_IO (no thread could be started). Open errors come from next(). */
TFN_API int tfn_pipeline_new(const tfn_pipeline_options *opts, const tfn_alloc *alc,
                             tfn_pipeline **out, tfn_error *err);

/* The next batch, waiting at most timeout_ms milliseconds for it (< 0: no limit).
 * On TFN_OK *batch is the caller's until tfn_pipeline_batch_free(); it holds >= 1
 * record. Otherwise *batch is NULL.
 * @return TFN_OK; TFN_END (no more batches: every later call returns TFN_END too);
 *         TFN_TIMEOUT (nothing ready yet; call again: this is how a caller checks for
 *         signals while it waits); or the error of the next batch in order (see the
 *         section comment): TFN_E_DATA_LOSS*, TFN_E_TRUNCATED, TFN_E_IO, TFN_E_CORRUPT,
 *         TFN_E_TYPE, TFN_E_NOT_FOUND, TFN_E_INVALID_ARG, TFN_E_OUT_OF_RANGE,
 *         TFN_E_NOMEM. After an error the next call goes on with the following batch.
 * Threads: one caller at a time per pipeline. */
TFN_API int tfn_pipeline_next(tfn_pipeline *p, int64_t timeout_ms,
                              tfn_pipeline_batch **batch, tfn_error *err);

/* Counters of a pipeline, as of the last batch its workers finished reading. */
typedef struct tfn_pipeline_stats {
    uint64_t records_read;    /* records read from the inputs (also those dropped) */
    uint64_t batches;         /* batches handed out by tfn_pipeline_next() */
    uint64_t damaged_regions; /* on_damage SKIP: damaged regions skipped */
    uint64_t damaged_bytes;   /* ... and their bytes (0 where unknown: compressed) */
    uint64_t parse_skipped;   /* on_parse_error SKIP: records dropped */
    uint64_t image_skipped;   /* image stages with TFN_IMAGE_SKIP: records dropped */
} tfn_pipeline_stats;

/* Fills *out (zeros for a NULL p). Threads: as tfn_pipeline_next(). */
TFN_API void tfn_pipeline_stats_get(const tfn_pipeline *p, tfn_pipeline_stats *out);

/* Stops the workers (also those waiting for room or reading: they stop at their next
 * record), joins them, closes every input and frees the pipeline. A worker blocked in
 * a read or open that has not returned after a second (a FIFO with no writer, a hung
 * network file system) is let go instead: it closes its input and frees the rest when
 * that call returns. Batches already handed out stay valid until their own
 * tfn_pipeline_batch_free(). Safe at any time (not concurrently with another call on
 * p); NULL is accepted. */
TFN_API void tfn_pipeline_free(tfn_pipeline *p);

/* Number of records in the batch (>= 1). */
TFN_API size_t tfn_pipeline_batch_count(const tfn_pipeline_batch *b);

/* The batch's records, back to back: record i is data[offsets[i] .. offsets[i+1])
 * (offsets has count + 1 entries, offsets[0] == 0). With a spec these are the records
 * that were parsed (dropped ones excluded). Views valid until the batch is freed;
 * *data may be NULL when the records are all empty. */
TFN_API void tfn_pipeline_batch_records(const tfn_pipeline_batch *b, const uint8_t **data,
                                        size_t *len, const uint64_t **offsets);

/* Where record i of the batch came from: its input's index, its record index in that
 * input and its byte offset there (in the decompressed stream). Any output may be
 * NULL. @return TFN_OK, TFN_E_INVALID_ARG (i out of range). */
TFN_API int tfn_pipeline_batch_origin(const tfn_pipeline_batch *b, size_t i, size_t *input,
                                      uint64_t *record_index, uint64_t *offset);

/* Feature j of a parsed batch, as tfn_parser_fill() would write it for these records:
 *   dtype:   the output dtype (TFN_INT64, TFN_INT32, TFN_FLOAT32, or TFN_BYTES, whose
 *            values are tfn_bytes views into the batch's records or the spec's
 *            default);
 *   values:  `count` elements, row-major: FixedLen [n, shape...], FixedLenSequence
 *            [n, rows, shape...]; 64-byte aligned; NULL when count is 0;
 *   rows:    FixedLenSequence: rows per record (the batch's longest, or max_rows);
 *            FixedLen: 1;
 *   mask, lengths: with the masks option, for FixedLenSequence features (n * rows
 *            bytes, n int64: rows each record really had), else NULL.
 * Views valid until the batch is freed. */
typedef struct tfn_pipeline_column {
    int dtype;
    const void *values;
    size_t count;
    size_t rows;
    const uint8_t *mask;
    const int64_t *lengths;
} tfn_pipeline_column;

/* @return TFN_OK; TFN_E_INVALID_ARG (a raw batch: no spec, or j >= the spec's size). */
TFN_API int tfn_pipeline_batch_column(const tfn_pipeline_batch *b, size_t j,
                                      tfn_pipeline_column *out);

/* Output of image stage k of a batch: count images back to back (each
 * image->height x width x C, or C x height x width with nchw, of image->dtype),
 * 64-byte aligned; *bytes (may be NULL) receives the total. View valid until the
 * batch is freed. @return NULL when k is not an image stage. */
TFN_API const void *tfn_pipeline_batch_image(const tfn_pipeline_batch *b, size_t k,
                                             size_t *bytes);

/* Gives the batch's memory back to its pipeline for reuse (or frees it once the
 * pipeline is gone). NULL is accepted. Thread-safe. */
TFN_API void tfn_pipeline_batch_free(tfn_pipeline_batch *b);

/* ==================================================================================
 * MARK: Padding - ragged rows into dense arrays (keras pad_sequences)
 *
 * Ragged input is flat values plus row offsets: row r is
 * values[offsets[r] .. offsets[r+1]). tfn_pad() writes it into a dense, row-major
 * [nrows, width] caller buffer with keras pad_sequences placement (spec §4.1):
 *   truncating: a row longer than maxlen keeps its LAST maxlen values (TFN_PAD_PRE,
 *               keras' default) or its FIRST maxlen values (TFN_PAD_POST);
 *   padding:    the kept values go at the END of the output row, the fill value
 *               before them (TFN_PAD_PRE, keras' default), or at its START
 *               (TFN_PAD_POST). HuggingFace/torch "left" = pre, "right" = post.
 *   width:      maxlen, or the longest row when maxlen is TFN_PAD_MAXLEN_UNSET;
 *               then rounded UP to a multiple of pad_to_multiple_of when that is
 *               > 1. maxlen still limits the values kept per row, so with a maxlen
 *               that is not a multiple the width may exceed maxlen (as HuggingFace
 *               tokenizers do); the extra columns are padding.
 * The attention mask (1 for a value, 0 for padding) and the kept lengths can be
 * written in the same pass.
 *
 * Conversions (values -> output): same type is a copy; int32 -> int64 widens;
 * int32/int64 -> float32 rounds to nearest as numpy does; float32 -> int32/int64
 * truncates toward zero as numpy does (1.7 -> 1, -1.7 -> -1). Where numpy (and so
 * keras) would wrap or produce garbage silently, tfnano refuses with
 * TFN_E_OUT_OF_RANGE: an int64 value outside int32 for int32 output, a float that is
 * NaN, infinite or outside the integer output's range. The message names the row,
 * the position in the row and the value; err->record_index is the row.
 *
 * Differences from keras, by design: maxlen 0 gives an [nrows, 0] output whatever
 * the truncating side (keras' "pre" fails to broadcast there), zero rows with maxlen
 * unset give width 0 (keras raises), and padding/truncating are validated even when
 * every row is empty. The Python layer (tfnano.keras) restores keras' errors.
 *
 * Threads: the functions keep no state; concurrent calls on different outputs are
 * safe.
 * ================================================================================== */

/* Which end pads or truncates. Values are pinned. */
typedef enum tfn_pad_side {
    TFN_PAD_PRE = 0,   /* keras "pre" (its default), HuggingFace/torch "left" */
    TFN_PAD_POST = 1,  /* keras "post", HuggingFace/torch "right" */
    TFN_PAD_LEFT = 0,
    TFN_PAD_RIGHT = 1
} tfn_pad_side;

/* maxlen meaning "the longest row" (keras maxlen=None). */
enum { TFN_PAD_MAXLEN_UNSET = -1 };

/* Ragged input: borrowed, never modified.
 *   values:  `count` elements of `dtype` (TFN_INT32, TFN_INT64 or TFN_FLOAT32),
 *            aligned for that type; may be NULL only when count == 0.
 *   offsets: nrows + 1 offsets, each >= 0, non-decreasing, at most count (they need
 *            not start at 0); may be NULL only when nrows == 0. */
typedef struct tfn_ragged {
    const void *values;
    int dtype;
    size_t count;
    const int64_t *offsets;
    size_t nrows;
} tfn_ragged;

/* Padding options; tfn_pad_options_init() sets keras' defaults. */
typedef struct tfn_pad_options {
    int64_t maxlen;             /* >= 0, or TFN_PAD_MAXLEN_UNSET (the longest row) */
    int padding;                /* a tfn_pad_side */
    int truncating;             /* a tfn_pad_side */
    double value;               /* fill value, converted like the values (see above);
                                   integer outputs take it truncated toward zero */
    int64_t pad_to_multiple_of; /* 0 or 1: off; > 1: round the width up to a multiple */
} tfn_pad_options;

/* Sets keras pad_sequences' defaults: maxlen unset, padding and truncating
 * TFN_PAD_PRE, value 0, no rounding. */
TFN_API void tfn_pad_options_init(tfn_pad_options *opt);

/* Reads a side's name: "pre" or "left" -> TFN_PAD_PRE, "post" or "right" ->
 * TFN_PAD_POST (exact, case-sensitive; name need not be NUL-terminated).
 * @return TFN_OK, TFN_E_INVALID_ARG (unknown name, quoted in the message, e.g.
 *         `Padding type "middle" not understood` style text naming `what`).
 * @param what  "Padding" or "Truncating" (used in the message), may be NULL. */
TFN_API int tfn_pad_side_parse(const char *name, size_t len, const char *what, int *side,
                               tfn_error *err);

/* The output width tfn_pad() needs for this input and these options, so the caller
 * can size out (nrows * width elements) and mask (nrows * width bytes). Validates
 * the input and the options exactly as tfn_pad() does.
 * @return TFN_OK, TFN_E_INVALID_ARG (see tfn_pad). */
TFN_API int tfn_pad_width(const tfn_ragged *in, const tfn_pad_options *opt, size_t *width,
                          tfn_error *err);

/* Pads (and truncates) every row of `in` into out[nrows][width] in one pass.
 * @param opt        options; NULL = keras defaults (tfn_pad_options_init).
 * @param out        nrows * width elements of out_dtype (TFN_INT32, TFN_INT64 or
 *                   TFN_FLOAT32), aligned for it; may be NULL when that is 0.
 * @param width      the row width of out: must equal tfn_pad_width()'s result.
 * @param mask       optional (NULL): nrows * width bytes, 1 where a value was
 *                   written, 0 for padding.
 * @param lengths    optional (NULL): nrows entries, the values kept per row
 *                   (min(row length, maxlen)).
 * Nothing is allocated; outputs are written in full on success and hold unspecified
 * contents after an error.
 * @return TFN_OK;
 *         TFN_E_INVALID_ARG: NULL pointer with a non-zero size, unknown dtype or
 *           side, maxlen < 0 other than TFN_PAD_MAXLEN_UNSET, pad_to_multiple_of < 0,
 *           a negative, decreasing or too large offset (message names the row and
 *           the offsets; err->record_index = row), misaligned buffer, width not the
 *           one the options give, nrows * width overflowing size_t;
 *         TFN_E_OUT_OF_RANGE: a value or the fill value does not fit out_dtype
 *           (see the conversions above).
 * Threads: safe (no shared state). */
TFN_API int tfn_pad(const tfn_ragged *in, const tfn_pad_options *opt, void *out,
                    int out_dtype, size_t width, uint8_t *mask, int64_t *lengths,
                    tfn_error *err);

/* One row of tfn_pad_rows(): `count` values of `dtype` (TFN_INT32, TFN_INT64 or
 * TFN_FLOAT32) at `values`, aligned for that type; values may be NULL when count is
 * 0. Borrowed, never modified. */
typedef struct tfn_pad_row {
    const void *values;
    size_t count;
    int dtype;
} tfn_pad_row;

/* tfn_pad() for rows that do not share one buffer (e.g. the arrays of a Python list,
 * or a vector of vectors): row r is rows[r]. Each row may have its own dtype; the
 * conversions, placement, options, outputs and errors are tfn_pad()'s (out-of-range
 * messages name the row index in `rows`), and width must be the one the rows and
 * options give: maxlen, or the longest row when maxlen is TFN_PAD_MAXLEN_UNSET, then
 * rounded up to pad_to_multiple_of. A caller that pads a long list in pieces passes
 * the list's width as maxlen (or its own maxlen) to every piece.
 * @return TFN_OK; TFN_E_INVALID_ARG (as tfn_pad, plus a NULL rows with nrows > 0 and
 *         a row with an unknown dtype, a NULL or misaligned pointer);
 *         TFN_E_OUT_OF_RANGE (as tfn_pad).
 * Threads: safe (no shared state). */
TFN_API int tfn_pad_rows(const tfn_pad_row *rows, size_t nrows, const tfn_pad_options *opt,
                         void *out, int out_dtype, size_t width, uint8_t *mask,
                         int64_t *lengths, tfn_error *err);

/* ==================================================================================
 * MARK: Length bucketing (dynamic batching)
 *
 * Groups rows of similar length so that each batch is padded only to its own
 * longest row, as tf.data's bucket_by_sequence_length does: with boundaries
 * b[0] < b[1] < ... < b[k-1], a row of length L goes to bucket i = the number of
 * boundaries <= L (bucket 0 holds L < b[0], bucket k holds L >= b[k-1]). Each
 * bucket's rows are cut, in order, into batches of batch_size (the last one shorter
 * unless drop_remainder). A batch's width is its longest row, capped at maxlen, then
 * rounded up to a multiple of pad_to_multiple_of.
 * With shuffle set, the rows within each bucket and then the order of the batches are
 * shuffled by a PRNG seeded from `seed` that lives in the plan call (no global
 * state): the same inputs and seed give the same plan on every machine.
 *
 * Ownership: the plan handle owns every array it hands out; they stay valid until
 * tfn_bucket_plan_free(). Threads: a finished plan is read-only; any number of threads
 * may read it and pad its batches concurrently (into different outputs).
 * ================================================================================== */

typedef struct tfn_bucket_options {
    const int64_t *boundaries;  /* strictly increasing; NULL when nboundaries == 0 */
    size_t nboundaries;         /* buckets = nboundaries + 1 */
    size_t batch_size;          /* > 0 */
    int64_t maxlen;             /* width cap, or TFN_PAD_MAXLEN_UNSET for none */
    int64_t pad_to_multiple_of; /* 0 or 1: off; > 1: round widths up */
    int drop_remainder;         /* non-zero: drop each bucket's last short batch */
    int shuffle;                /* non-zero: seeded shuffle (else input order) */
    uint64_t seed;
} tfn_bucket_options;

/* One planned batch: its rows are rows[start .. start + count) of
 * tfn_bucket_plan_rows(), all from bucket `bucket`, padded to `width`. */
typedef struct tfn_batch {
    size_t start;
    size_t count;
    size_t width;
    size_t bucket;
} tfn_batch;

typedef struct tfn_bucket_plan tfn_bucket_plan;

/* Plans the batches of n rows of the given lengths.
 * @param lengths  n lengths, each >= 0; may be NULL only when n == 0.
 * @param alc      allocator for the plan, or NULL for malloc.
 * @param out      receives the plan (free with tfn_bucket_plan_free()).
 * @return TFN_OK, TFN_E_INVALID_ARG (batch_size 0, boundaries not strictly increasing
 *         (message names the index), a negative length (names the row), maxlen < 0
 *         other than TFN_PAD_MAXLEN_UNSET, pad_to_multiple_of < 0, NULL pointers with
 *         non-zero sizes, a width overflowing size_t), TFN_E_NOMEM. */
TFN_API int tfn_bucket_plan_new(const int64_t *lengths, size_t n,
                                const tfn_bucket_options *opt, const tfn_alloc *alc,
                                tfn_bucket_plan **out, tfn_error *err);

/* Frees a plan and everything it handed out. NULL is accepted. */
TFN_API void tfn_bucket_plan_free(tfn_bucket_plan *plan);

/* Number of batches. */
TFN_API size_t tfn_bucket_plan_batch_count(const tfn_bucket_plan *plan);

/* The batches, in the order to use them (tfn_bucket_plan_batch_count() entries). */
TFN_API const tfn_batch *tfn_bucket_plan_batches(const tfn_bucket_plan *plan);

/* The planned row indices (into the n rows given to tfn_bucket_plan_new()); every
 * batch is a slice of it. *count (may be NULL) receives its size: n, minus the rows
 * dropped with drop_remainder. */
TFN_API const int64_t *tfn_bucket_plan_rows(const tfn_bucket_plan *plan, size_t *count);

/* The bucket of each of the n rows (also of dropped rows). */
TFN_API const int64_t *tfn_bucket_plan_bucket_ids(const tfn_bucket_plan *plan);

/* Total elements of all padded batches (sum of count * width): compare with
 * n * maxlen to see the padding that bucketing saves. */
TFN_API uint64_t tfn_bucket_plan_padded_size(const tfn_bucket_plan *plan);

/* Pads batch `batch` of the plan: gathers its rows from `in` (which must hold the
 * same n rows the plan was made from) into out[count][width] with the batch's width,
 * like tfn_pad() with the plan's maxlen (values kept per row: min(length, maxlen,
 * width)), `padding`, `truncating` and fill `value`.
 * @param out, mask, lengths  as tfn_pad(), with nrows = the batch's count.
 * @return TFN_OK; TFN_E_INVALID_ARG (batch out of range, in->nrows differing from the
 *         plan's, bad offsets of a gathered row, bad dtype or side, NULL pointers);
 *         TFN_E_OUT_OF_RANGE (as tfn_pad).
 * Threads: safe on a shared plan. */
TFN_API int tfn_bucket_plan_pad_batch(const tfn_bucket_plan *plan, size_t batch,
                                      const tfn_ragged *in, int padding, int truncating,
                                      double value, void *out, int out_dtype, uint8_t *mask,
                                      int64_t *lengths, tfn_error *err);

/* ==================================================================================
 * MARK: Images - decode, resize, encode (lib/image, over libjpeg-turbo and libpng)
 *
 * JPEG, PNG, GIF and BMP bytes in, uint8 HWC pixels out (height, width, channels, row-major),
 * with TensorFlow's decode_jpeg / decode_png / resize semantics (docs/images.md has
 * the parity table). A zero-initialised options struct means TensorFlow's defaults.
 * Every function here is thread-safe: it keeps no state between calls (the batch
 * functions start and join their own worker threads within the call). libjpeg and
 * libpng errors are caught (longjmp) and reported; warnings are counted, never
 * printed, as TensorFlow ignores them. GIF goes through giflib; a GIF's frame sizes are
 * checked (2^29 bytes) before giflib allocates them.
 * ================================================================================== */

typedef enum tfn_image_format {
    TFN_IMAGE_UNKNOWN = 0,
    TFN_IMAGE_JPEG = 1,
    TFN_IMAGE_PNG = 2,
    TFN_IMAGE_GIF = 3, /* GIF87a / GIF89a, every frame composed as TensorFlow's DecodeGif */
    TFN_IMAGE_BMP = 4  /* uncompressed 8/24/32-bit, as TensorFlow's DecodeBmp */
} tfn_image_format;

/* Inverse DCT of JPEG decoding. TensorFlow's decode_jpeg default (dct_method="") is
 * INTEGER_FAST; INTEGER_ACCURATE is libjpeg's slow integer method. */
typedef enum tfn_image_dct {
    TFN_IMAGE_DCT_FAST = 0,    /* JDCT_IFAST: TensorFlow's default */
    TFN_IMAGE_DCT_ACCURATE = 1 /* JDCT_ISLOW */
} tfn_image_dct;

/* What a GIF decodes to (tfn_image_decode_options.gif). TensorFlow composes each frame
 * on the previous one: a frame's transparent pixels keep the previous frame's (black
 * on the first), and a frame that does not cover the canvas leaves the rest as it was
 * (black on the first). The canvas is as wide and as high as the widest and the
 * highest frame, which may differ from the logical screen the header declares. */
typedef enum tfn_image_gif_frames {
    TFN_GIF_FIRST = 0,  /* the first frame, height x width x 3 (decode_image with
                           expand_animations=False) */
    TFN_GIF_ALL = 1,    /* every frame, frames x height x width x 3 (decode_gif,
                           decode_image); info.frames tells how many */
    TFN_GIF_STILL = 2,  /* the frame of a one-frame GIF; an animated GIF fails with
                           TensorFlow's "Got <n> frames, but animated gifs can only be
                           decoded by tf.io.decode_gif or tf.io.decode_image"
                           (decode_jpeg, decode_png) */
    TFN_GIF_REFUSE = 3  /* any GIF fails: its frames are 4-D where 3-D images are
                           wanted (a batched decode_image with expand_animations=True) */
} tfn_image_gif_frames;

/* How to decode. All-zero = tf.io.decode_image / decode_jpeg defaults. */
typedef struct tfn_image_decode_options {
    int channels;            /* 0 (as stored; CMYK JPEG gives 3), 1, 3 or 4 */
    int ratio;               /* JPEG DCT-domain downscaling: 0 or 1 (none), 2, 4, 8 */
    int dct_method;          /* a tfn_image_dct */
    int no_fancy_upscaling;  /* 1: libjpeg's plain chroma upsampling (TF: fancy_upscaling=False) */
    int try_recover_truncated; /* JPEG: a truncated file decodes, missing rows repeat the last */
    int crop;                /* 1: decode only the window below (TF decode_and_crop_jpeg) */
    int32_t crop_y, crop_x, crop_height, crop_width;
    int uint16_output;       /* PNG: 16-bit samples (TF decode_png dtype=uint16) */
    int gif;                 /* a tfn_image_gif_frames (GIF only: 3 channels, no crop;
                                batches and resizing take FIRST, STILL or REFUSE) */
} tfn_image_decode_options;

/* Shape of an image as stored and as it will be decoded. */
typedef struct tfn_image_info {
    int format;           /* a tfn_image_format */
    uint32_t height;      /* as stored */
    uint32_t width;
    int components;       /* channels as stored (JPEG: 1, 3 or 4; PNG: 1-4) */
    int bit_depth;        /* bits per sample (JPEG 8; PNG 1-16) */
    uint32_t out_height;  /* after ratio and crop */
    uint32_t out_width;
    int out_channels;     /* after channels (0 resolved) */
    int bytes_per_sample; /* 1, or 2 with uint16_output on a PNG */
    uint32_t frames;      /* images in the output, one after the other: a GIF's frame
                             count with TFN_GIF_ALL, else 1 */
} tfn_image_info;

/* The format from the magic bytes, as TensorFlow's decode_image classifies it. */
TFN_API int tfn_image_format_of(const void *data, size_t len);

/* Reads the header only (tf.image.extract_jpeg_shape, and the size to allocate; for a
 * GIF the frame headers, skipping the pixel data).
 * @param opt  may be NULL (defaults).
 * @return TFN_OK; TFN_E_INVALID_ARG (empty input "Input is empty.", bad options, a
 *         crop window outside the image, unknown or undecodable format);
 *         TFN_E_TRUNCATED (the header is cut short); TFN_E_CORRUPT (bad header);
 *         TFN_E_LIMIT (more than 2^29 output bytes, TensorFlow's limit). */
TFN_API int tfn_image_probe(const void *data, size_t len,
                            const tfn_image_decode_options *opt, tfn_image_info *info,
                            tfn_error *err);

/* Decodes one JPEG, PNG, GIF or BMP into the caller's buffer `dst` of `cap` bytes, rows
 * packed (frames * out_height * out_width * out_channels * bytes_per_sample bytes).
 * @param info  receives the shape (also on TFN_E_BUF_TOO_SMALL); may be NULL.
 * @return TFN_OK; TFN_E_BUF_TOO_SMALL (err->offset = bytes needed); the errors of
 *         tfn_image_probe(); TFN_E_TRUNCATED ("truncated JPEG: Premature end of JPEG
 *         file", a PNG cut short); TFN_E_CORRUPT (the decoder's own message; a GIF's
 *         is TensorFlow's "Invalid GIF data (size <n>), <giflib's reason>"). `dst`
 *         holds unspecified bytes after an error. */
TFN_API int tfn_image_decode(const void *data, size_t len,
                             const tfn_image_decode_options *opt, void *dst, size_t cap,
                             tfn_image_info *info, tfn_error *err);

/* Element type of resized / normalised output. */
typedef enum tfn_image_dtype {
    TFN_IMAGE_UINT8 = 0,
    TFN_IMAGE_FLOAT32 = 1,
    TFN_IMAGE_BFLOAT16 = 2 /* float32 rounded to nearest even, as TensorFlow casts */
} tfn_image_dtype;

/* tf.image.resize's methods, with TensorFlow's arithmetic (every method bit-identical
 * to TensorFlow 2.21's kernels in the conformance tests, docs/images.md).
 * OR TFN_RESIZE_ANTIALIAS into a method for tf.image.resize(antialias=True): bilinear
 * and bicubic then run as ScaleAndTranslate's triangle / Keys kernels, and every
 * filter is widened by the scale when downsampling; nearest and area ignore it. */
typedef enum tfn_image_resize_method {
    TFN_RESIZE_BILINEAR = 0, /* tf.image.resize default: half_pixel_centers, no antialias */
    TFN_RESIZE_NEAREST = 1,  /* nearest neighbour, half_pixel_centers */
    TFN_RESIZE_AREA = 2,     /* tf.image.resize method="area" (float32 result) */
    TFN_RESIZE_BICUBIC = 3,  /* ResizeBicubic: Keys cubic a = -0.5, half-pixel centres */
    TFN_RESIZE_LANCZOS3 = 4, /* ScaleAndTranslate kernels: Lanczos radius 3 */
    TFN_RESIZE_LANCZOS5 = 5, /* Lanczos radius 5 */
    TFN_RESIZE_GAUSSIAN = 6, /* Gaussian, radius 1.5, sigma 0.5 */
    TFN_RESIZE_MITCHELLCUBIC = 7, /* Mitchell-Netravali cubic (B = C = 1/3) */
    TFN_RESIZE_ANTIALIAS = 256    /* flag, OR-ed into one of the above */
} tfn_image_resize_method;

/* What a batch does with a record that fails to decode. */
typedef enum tfn_image_on_error {
    TFN_IMAGE_RAISE = 0, /* the call fails with the lowest failing record's error */
    TFN_IMAGE_SKIP = 1   /* its output is zero-filled, status[i] says why; call succeeds */
} tfn_image_on_error;

/* Decode -> resize -> normalise -> store, per image of a batch. All-zero = decode as
 * TF does, resize bilinear to height x width, float32 NHWC, values unchanged. */
typedef struct tfn_image_batch_options {
    tfn_image_decode_options decode;
    uint32_t height, width;  /* output size, both > 0 */
    int method;              /* a tfn_image_resize_method, | TFN_RESIZE_ANTIALIAS */
    int dct_scale;           /* 1: let JPEG decode at 1/2, 1/4, 1/8 while the result stays
                                >= height x width (faster; values differ from TensorFlow) */
    int dtype;               /* a tfn_image_dtype */
    int nchw;                /* 1: channels first per image */
    /* value = (pixel - sub[c]) * mul[c], or / mul[c] when divide is 1 (x / 255.0 as
       TensorFlow computes it); mul[c] == 0 counts as 1 */
    float sub[4];
    float mul[4];
    int divide;
    int on_error;            /* a tfn_image_on_error */
    int num_threads;         /* 0: one per online CPU; 1: the calling thread only */
    /* 1: no resize, TensorFlow's reshape of the decoded image instead: the image keeps
       its own size, its values (which must number height * width * C, else the
       record fails with reshape's "Input to reshape is a tensor with <n> values, but
       the requested shape has <m>") are converted and normalised in decode order,
       row by row as a JPEG is decoded. method and dct_scale are ignored; nchw must
       be 0. */
    int no_resize;
} tfn_image_batch_options;

/* Decodes, resizes and normalises n encoded images into `out`, a dense
 * n x height x width x C array (C = decode.channels, which must be 1, 3 or 4 here; or
 * n x C x height x width with nchw) of `dtype`. Runs on num_threads threads. A JPEG
 * resized with plain bilinear is resized as its rows are decoded (the full-size image
 * is never stored); the values are the same.
 * @param data, lens  the n encoded images (data[i] may be NULL when lens[i] is 0).
 * @param out_cap  bytes at out (at least n * height * width * C * dtype size).
 * @param status   n per-record statuses (TFN_OK or the error), or NULL.
 * @return TFN_OK (also when records were skipped under TFN_IMAGE_SKIP); the lowest
 *         failing record's error under TFN_IMAGE_RAISE (err->record_index names it,
 *         the message starts "record <i>: "); TFN_E_INVALID_ARG (bad options, n == 0
 *         allowed); TFN_E_BUF_TOO_SMALL; TFN_E_NOMEM. */
TFN_API int tfn_image_decode_resize_batch(const void *const *data, const size_t *lens,
                                          size_t n, const tfn_image_batch_options *opt,
                                          void *out, size_t out_cap, int32_t *status,
                                          tfn_error *err);

/* As tfn_image_decode_resize_batch() on n already-decoded uint8 HWC images
 * (pixels[i] of heights[i] x widths[i] x channels, channels 1-4); `opt->decode` is
 * ignored (the output has `channels` channels). */
TFN_API int tfn_image_resize_batch(const uint8_t *const *pixels, const uint32_t *heights,
                                   const uint32_t *widths, int channels, size_t n,
                                   const tfn_image_batch_options *opt, void *out,
                                   size_t out_cap, tfn_error *err);

/* Resizes one HWC image of float32 (src_dtype TFN_IMAGE_FLOAT32) or uint8 samples to
 * out_h x out_w float32 (every method but nearest) or the source type (nearest), as
 * tf.image.resize. `method` is a tfn_image_resize_method, | TFN_RESIZE_ANTIALIAS.
 * @return TFN_OK, TFN_E_INVALID_ARG (zero sizes, bad method/dtype, NULL pointers),
 *         TFN_E_NOMEM (the weight tables). */
TFN_API int tfn_image_resize(const void *src, int src_dtype, uint32_t height, uint32_t width,
                             int channels, void *dst, uint32_t out_height,
                             uint32_t out_width, int method, tfn_error *err);

/* Decodes n images on num_threads threads (0: one per CPU), each into its own block
 * allocated with malloc (free each with tfn_image_free()).
 * @param pixels  receives n pointers (NULL for a failed record).
 * @param infos   receives n shapes.
 * @param status  n per-record statuses, or NULL.
 * @return TFN_OK; under TFN_IMAGE_RAISE the lowest failing record's error (nothing
 *         stays allocated then); TFN_E_NOMEM. */
TFN_API int tfn_image_decode_batch(const void *const *data, const size_t *lens, size_t n,
                                   const tfn_image_decode_options *opt, int on_error,
                                   int num_threads, uint8_t **pixels, tfn_image_info *infos,
                                   int32_t *status, tfn_error *err);

/* Frees a block from tfn_image_decode_batch() or an encoder. NULL is accepted. */
TFN_API void tfn_image_free(void *p);

/* JPEG encoder options (zero = tf.io.encode_jpeg defaults except quality: 0 means 95). */
typedef struct tfn_image_jpeg_options {
    int quality;              /* 1..100; 0 = 95 */
    int progressive;
    int optimize_size;
    int no_chroma_downsampling; /* 1: 4:4:4 (TF chroma_downsampling=False) */
    int density_unit;         /* 0 = inches (TF "in"), 2 = cm */
    int x_density, y_density; /* 0 = 300 */
} tfn_image_jpeg_options;

/* Encodes height x width x channels uint8 pixels (channels 1 or 3) as JPEG, as
 * tf.io.encode_jpeg does. *out receives a malloc'd block (free with tfn_image_free()),
 * *out_len its size.
 * @return TFN_OK, TFN_E_INVALID_ARG (zero or too large sizes, bad channels or options),
 *         TFN_E_NOMEM, TFN_E_CORRUPT (an error libjpeg reported). */
TFN_API int tfn_image_encode_jpeg(const uint8_t *pixels, uint32_t height, uint32_t width,
                                  int channels, const tfn_image_jpeg_options *opt,
                                  uint8_t **out, size_t *out_len, tfn_error *err);

/* Encodes height x width x channels (1-4) samples, 8-bit or 16-bit (native-endian
 * uint16, bit_depth 16), as PNG with zlib `compression` -1 (default) .. 9, as
 * tf.io.encode_png does. Output as tfn_image_encode_jpeg().
 * @return TFN_OK, TFN_E_INVALID_ARG, TFN_E_NOMEM, TFN_E_CORRUPT (libpng's error). */
TFN_API int tfn_image_encode_png(const void *pixels, uint32_t height, uint32_t width,
                                 int channels, int bit_depth, int compression,
                                 uint8_t **out, size_t *out_len, tfn_error *err);

/* TFN_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* TFNANO_H */
