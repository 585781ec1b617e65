/*
 * record_internal.h - private pieces shared by the record_*.c files: the byte
 * sources and sinks behind readers and writers (a file descriptor, memory, or the
 * caller's tfn_io callbacks), the zlib streams, and the framing constants.
 */
#ifndef TFN_RECORD_INTERNAL_H
#define TFN_RECORD_INTERNAL_H

#include "../base/crc32c_internal.h"
#include "../base/tfn_internal.h"

#include <zlib.h>

/* Framing: 8-byte length + 4-byte CRC in front, 4-byte CRC behind. */
#define TFN__REC_HEADER 12u
#define TFN__REC_FOOTER 4u
#define TFN__REC_OVERHEAD 16u

/* ---------------------------------------------------------------- I/O */

typedef enum tfn__io_kind {
    TFN__IO_NONE = 0,
    TFN__IO_FD,     /* a file the library opened (and closes) */
    TFN__IO_MEM,    /* read-only caller memory */
    TFN__IO_MEMOUT, /* growable output buffer owned by a writer */
    TFN__IO_CB      /* the caller's tfn_io */
} tfn__io_kind;

typedef struct tfn__io {
    int kind;
    int fd;
    const uint8_t *mem; /* TFN__IO_MEM */
    size_t mem_len;
    size_t mem_pos;
    uint8_t *out; /* TFN__IO_MEMOUT */
    size_t out_len;
    size_t out_cap;
    tfn_io cb;
    bool closed;
} tfn__io;

/* Opens path for reading (write == false) or creates/truncates it for writing. On
 * failure: TFN_E_IO with sys_errno and TensorFlow's "<path>; No such file or
 * directory" style message. */
int tfn__io_open_path(tfn__io *io, const char *path, bool write, tfn_error *err);

/* Reads up to len bytes (one call to the back end, EINTR retried); *got = 0 at end. */
int tfn__io_read(tfn__io *io, void *buf, size_t len, size_t *got, const char *name,
                 tfn_error *err);

/* Writes all len bytes (short writes retried). MEMOUT grows its buffer. */
int tfn__io_write(tfn__io *io, const tfn__alloc *alloc, const void *buf, size_t len,
                  const char *name, tfn_error *err);

/* A piece of a gathered write. */
typedef struct tfn__iovec {
    const uint8_t *p;
    size_t n;
} tfn__iovec;

/* Writes the n pieces in order, as one writev() for files (fewer copies and system
 * calls for large records), else piece by piece. n <= 4. */
int tfn__io_writev(tfn__io *io, const tfn__alloc *alloc, const tfn__iovec *v, size_t n,
                   const char *name, tfn_error *err);

/* Absolute seek for readers: TFN_E_INVALID_ARG when the back end cannot seek. */
int tfn__io_seek(tfn__io *io, uint64_t offset, const char *name, tfn_error *err);

/* Flush callback (only TFN__IO_CB has one). */
int tfn__io_flush(tfn__io *io, const char *name, tfn_error *err);

/* Closes the file / calls the close callback, once. Frees nothing else. */
int tfn__io_close(tfn__io *io, const tfn__alloc *alloc, const char *name, tfn_error *err);

/* Frees MEMOUT memory. */
void tfn__io_free(tfn__io *io, const tfn__alloc *alloc);

/* Message text of an errno value, as strerror gives it for the common ones. */
const char *tfn__errno_text(int e);

/* Copies a NUL-terminated string with the allocator (NULL for a NULL input or when
 * memory runs out: check `src && !result`). */
char *tfn__strdup(const tfn__alloc *a, const char *src);

/* ---------------------------------------------------------------- zlib */

/* Inflates a ZLIB or GZIP stream read from an io. GZIP members may follow each other
 * (the inflater is reset at the end of each, as TensorFlow does); for ZLIB, bytes
 * after the end of the stream are ignored. */
typedef struct tfn__inflater {
    z_stream zs;
    bool ready;      /* inflateInit2 done */
    bool gzip;
    bool ended;      /* ZLIB stream finished */
    int failed;      /* non-zero: inflate() failed with this code; every later read
                        reports the same error (a retry must not turn it into EOF) */
    bool keep_before_error; /* hand out what was decoded before a failure first
                               (skip mode; TensorFlow drops it, and so does RAISE) */
    uint64_t in_base; /* compressed bytes consumed by earlier gzip members */
    uint8_t *in;     /* compressed input buffer */
    size_t in_cap;
    const tfn__alloc *alloc;
} tfn__inflater;

int tfn__inflater_init(tfn__inflater *inf, const tfn__alloc *alloc, bool gzip, size_t in_cap,
                       tfn_error *err);

/* Hands bytes already read from the io (e.g. while detecting the compression) to the
 * inflater as the start of its input. n <= in_cap. */
void tfn__inflater_preload(tfn__inflater *inf, const uint8_t *data, size_t n);

/* Inflates up to cap bytes into dst; *got = 0 when the compressed input has ended.
 * Errors: TFN_E_DATA_LOSS "inflate() failed with error <n>: <zlib's message>", the
 * io's errors. */
int tfn__inflater_read(tfn__inflater *inf, tfn__io *io, uint8_t *dst, size_t cap, size_t *got,
                       const char *name, tfn_error *err);

void tfn__inflater_free(tfn__inflater *inf);

/* zlib allocation through a tfn__alloc (opaque = the tfn__alloc). */
voidpf tfn__zalloc(voidpf opaque, uInt items, uInt size);
void tfn__zfree(voidpf opaque, voidpf p);

/* Writes the 12-byte header of a payload of n bytes. */
static inline void tfn__rec_header(uint8_t *h, uint64_t n)
{
    tfn__store_le64(h, n);
    tfn__store_le32(h + 8, tfn__masked_crc(h, 8));
}

/* Reads the record starting exactly at the reader's position and moves past it,
 * whatever the damage policy (random access must never return another record). */
int tfn__record_reader_next_exact(tfn_record_reader *r, const uint8_t **data, size_t *len,
                                  tfn_error *err);

/* Adds ", file <name>, record <i>" style context after TensorFlow's text. */
void tfn__rec_context(tfn_error *err, const char *name, uint64_t record_index);

#endif /* TFN_RECORD_INTERNAL_H */
