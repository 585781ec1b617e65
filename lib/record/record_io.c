/* record_io.c - byte sources and sinks of TFRecord readers and writers: a file the
 * library opens, caller memory, a growable output buffer, or the caller's tfn_io. */
#define _POSIX_C_SOURCE 200809L
#include "record_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#ifndef O_CLOEXEC
#    define O_CLOEXEC 0
#endif

const char *tfn__errno_text(int e)
{
    switch (e) {
    case ENOENT: return "No such file or directory";
    case EACCES: return "Permission denied";
    case EISDIR: return "Is a directory";
    case ENOTDIR: return "Not a directory";
    case ENOSPC: return "No space left on device";
    case EIO: return "Input/output error";
    case EBADF: return "Bad file descriptor";
    case EROFS: return "Read-only file system";
    case EMFILE: return "Too many open files";
    case ENAMETOOLONG: return "File name too long";
    case EFBIG: return "File too large";
    case EPIPE: return "Broken pipe";
    case EINVAL: return "Invalid argument";
    case ENOMEM: return "Cannot allocate memory";
    case EEXIST: return "File exists";
    case ESPIPE: return "Illegal seek";
    default: return "I/O error";
    }
}

static int io_fail(tfn_error *err, int e, const char *name, const char *what)
{
    int rc = tfn__fail(err, TFN_E_IO, "%s; %s (%s failed)", name ? name : "<stream>",
                       tfn__errno_text(e), what);
    if (err)
        err->sys_errno = e;
    return rc;
}

char *tfn__strdup(const tfn__alloc *a, const char *src)
{
    if (!src)
        return NULL;
    size_t n = strlen(src) + 1;
    char *d = (char *)tfn__malloc(a, n);
    if (d)
        memcpy(d, src, n);
    return d;
}

int tfn__io_open_path(tfn__io *io, const char *path, bool write, tfn_error *err)
{
    memset(io, 0, sizeof *io);
    io->fd = -1;
    int fd;
    do {
        fd = write ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666)
                   : open(path, O_RDONLY | O_CLOEXEC);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        int rc = tfn__fail(err, TFN_E_IO, "%s; %s", path, tfn__errno_text(e));
        if (err)
            err->sys_errno = e;
        return rc;
    }
    io->kind = TFN__IO_FD;
    io->fd = fd;
    return TFN_OK;
}

int tfn__io_read(tfn__io *io, void *buf, size_t len, size_t *got, const char *name,
                 tfn_error *err)
{
    *got = 0;
    if (len == 0)
        return TFN_OK;
    switch (io->kind) {
    case TFN__IO_FD: {
        if (len > (size_t)SSIZE_MAX)
            len = (size_t)SSIZE_MAX;
        ssize_t n;
        do {
            n = read(io->fd, buf, len);
        } while (n < 0 && errno == EINTR);
        if (n < 0)
            return io_fail(err, errno, name, "read");
        *got = (size_t)n;
        return TFN_OK;
    }
    case TFN__IO_MEM: {
        size_t n = io->mem_len - io->mem_pos;
        if (n > len)
            n = len;
        if (n > 0)
            memcpy(buf, io->mem + io->mem_pos, n);
        io->mem_pos += n;
        *got = n;
        return TFN_OK;
    }
    case TFN__IO_CB: {
        if (!io->cb.read)
            return tfn__fail(err, TFN_E_INVALID_ARG, "the tfn_io has no read function");
        int64_t n = io->cb.read(io->cb.ctx, buf, len);
        if (n < 0)
            return io_fail(err, n >= -INT_MAX ? (int)-n : EIO, name, "read");
        if ((uint64_t)n > len)
            return tfn__fail(err, TFN_E_IO, "%s; read callback returned %" PRId64
                                            " bytes for a %zu-byte request",
                             name ? name : "<stream>", n, len);
        *got = (size_t)n;
        return TFN_OK;
    }
    default:
        return tfn__fail(err, TFN_E_INVALID_ARG, "reading from a stream that cannot be read");
    }
}

int tfn__io_write(tfn__io *io, const tfn__alloc *alloc, const void *buf, size_t len,
                  const char *name, tfn_error *err)
{
    const uint8_t *p = (const uint8_t *)buf;
    switch (io->kind) {
    case TFN__IO_FD:
        while (len > 0) {
            size_t chunk = len > (size_t)SSIZE_MAX ? (size_t)SSIZE_MAX : len;
            ssize_t n = write(io->fd, p, chunk);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return io_fail(err, n < 0 ? errno : EIO, name, "write");
            p += n;
            len -= (size_t)n;
        }
        return TFN_OK;
    case TFN__IO_MEMOUT: {
        size_t need;
        if (!tfn__add_size(io->out_len, len, &need))
            return tfn__fail(err, TFN_E_LIMIT, "memory writer: output too large");
        if (need > io->out_cap &&
            !tfn__grow(alloc, (void **)&io->out, &io->out_cap, need, 1))
            return tfn__fail(err, TFN_E_NOMEM, "memory writer: out of memory at %zu bytes",
                             need);
        if (len > 0)
            memcpy(io->out + io->out_len, p, len);
        io->out_len = need;
        return TFN_OK;
    }
    case TFN__IO_CB:
        if (!io->cb.write)
            return tfn__fail(err, TFN_E_INVALID_ARG, "the tfn_io has no write function");
        while (len > 0) {
            int64_t n = io->cb.write(io->cb.ctx, p, len);
            if (n < 0)
                return io_fail(err, n >= -INT_MAX ? (int)-n : EIO, name, "write");
            if (n == 0 || (uint64_t)n > len)
                return io_fail(err, EIO, name, "write");
            p += n;
            len -= (size_t)n;
        }
        return TFN_OK;
    default:
        return tfn__fail(err, TFN_E_INVALID_ARG, "writing to a stream that cannot be written");
    }
}

int tfn__io_writev(tfn__io *io, const tfn__alloc *alloc, const tfn__iovec *v, size_t n,
                   const char *name, tfn_error *err)
{
    if (io->kind != TFN__IO_FD || n > 4) {
        for (size_t i = 0; i < n; i++) {
            int rc = tfn__io_write(io, alloc, v[i].p, v[i].n, name, err);
            if (rc != TFN_OK)
                return rc;
        }
        return TFN_OK;
    }
    struct iovec iov[4];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].n == 0)
            continue;
        iov[k].iov_base = (void *)(uintptr_t)v[i].p; /* writev does not write through it */
        iov[k].iov_len = v[i].n;
        k++;
    }
    struct iovec *cur = iov;
    while (k > 0) {
        ssize_t w = writev(io->fd, cur, (int)k);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return io_fail(err, w < 0 ? errno : EIO, name, "write");
        size_t done = (size_t)w;
        /* Drop the pieces written; a short write leaves the rest of one piece. */
        while (k > 0 && done >= cur->iov_len) {
            done -= cur->iov_len;
            cur++;
            k--;
        }
        if (k > 0) {
            cur->iov_base = (uint8_t *)cur->iov_base + done;
            cur->iov_len -= done;
        }
    }
    return TFN_OK;
}

int tfn__io_seek(tfn__io *io, uint64_t offset, const char *name, tfn_error *err)
{
    switch (io->kind) {
    case TFN__IO_FD:
        if (offset > (uint64_t)INT64_MAX ||
            lseek(io->fd, (off_t)offset, SEEK_SET) < 0)
            return io_fail(err, offset > (uint64_t)INT64_MAX ? EINVAL : errno, name, "seek");
        return TFN_OK;
    case TFN__IO_MEM:
        if (offset > io->mem_len)
            return tfn__fail(err, TFN_E_INVALID_ARG, "seek to %" PRIu64
                                                     " past the end of %zu bytes of memory",
                             offset, io->mem_len);
        io->mem_pos = (size_t)offset;
        return TFN_OK;
    case TFN__IO_CB:
        if (!io->cb.seek)
            return tfn__fail(err, TFN_E_INVALID_ARG, "the tfn_io has no seek function");
        {
            int64_t rc = io->cb.seek(io->cb.ctx, offset);
            if (rc < 0)
                return io_fail(err, rc >= -INT_MAX ? (int)-rc : EIO, name, "seek");
        }
        return TFN_OK;
    default:
        return tfn__fail(err, TFN_E_INVALID_ARG, "this stream cannot seek");
    }
}

int tfn__io_flush(tfn__io *io, const char *name, tfn_error *err)
{
    if (io->kind == TFN__IO_CB && io->cb.flush) {
        int rc = io->cb.flush(io->cb.ctx);
        if (rc < 0)
            return io_fail(err, rc >= -INT_MAX ? -rc : EIO, name, "flush");
    }
    return TFN_OK;
}

int tfn__io_close(tfn__io *io, const tfn__alloc *alloc, const char *name, tfn_error *err)
{
    (void)alloc;
    if (io->closed)
        return TFN_OK;
    io->closed = true;
    if (io->kind == TFN__IO_FD && io->fd >= 0) {
        int fd = io->fd;
        io->fd = -1;
        /* POSIX leaves the descriptor state unspecified after EINTR; Linux closes
         * it, so never retry. */
        if (close(fd) != 0 && errno != EINTR)
            return io_fail(err, errno, name, "close");
    } else if (io->kind == TFN__IO_CB && io->cb.close) {
        int rc = io->cb.close(io->cb.ctx);
        if (rc < 0)
            return io_fail(err, rc >= -INT_MAX ? -rc : EIO, name, "close");
    }
    return TFN_OK;
}

void tfn__io_free(tfn__io *io, const tfn__alloc *alloc)
{
    if (io->kind == TFN__IO_MEMOUT) {
        tfn__free(alloc, io->out);
        io->out = NULL;
        io->out_len = io->out_cap = 0;
    }
}
