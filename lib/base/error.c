/* error.c - filling tfn_error, status names, the version, message helpers. */
#include "tfn_internal.h"

#include <stdarg.h>
#include <stdio.h>

void tfn__clear_error(tfn_error *err)
{
    if (err) {
        err->code = TFN_OK;
        err->sys_errno = 0;
        err->offset = 0;
        err->record_index = 0;
        err->msg[0] = '\0';
    }
}

/* format(printf, 2, 0): fmt is checked at the variadic callers; clang's
 * -Wformat-nonliteral then accepts the vsnprintf below. */
static void set_message(tfn_error *err, const char *fmt, va_list ap) TFN_PRINTF(2, 0);

static void set_message(tfn_error *err, const char *fmt, va_list ap)
{
    int n = vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    if (n < 0)
        err->msg[0] = '\0';
}

int tfn__fail(tfn_error *err, int code, const char *fmt, ...)
{
    if (err) {
        tfn__clear_error(err);
        err->code = code;
        va_list ap;
        va_start(ap, fmt);
        set_message(err, fmt, ap);
        va_end(ap);
    }
    return code;
}

int tfn__fail_at(tfn_error *err, int code, uint64_t offset, uint64_t record_index,
                 const char *fmt, ...)
{
    if (err) {
        tfn__clear_error(err);
        err->code = code;
        err->offset = offset;
        err->record_index = record_index;
        va_list ap;
        va_start(ap, fmt);
        set_message(err, fmt, ap);
        va_end(ap);
    }
    return code;
}

void tfn__append(tfn_error *err, const char *fmt, ...)
{
    if (!err)
        return;
    size_t used = strlen(err->msg);
    if (used + 1 >= sizeof err->msg)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(err->msg + used, sizeof err->msg - used, fmt, ap);
    va_end(ap);
    if (n < 0)
        err->msg[used] = '\0';
}

size_t tfn__escape(char *out, size_t cap, const uint8_t *data, size_t len)
{
    size_t w = 0;
    if (cap == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char tmp[4];
        size_t k = 0;
        uint8_t c = data[i];
        switch (c) {
        case '\n': tmp[k++] = '\\'; tmp[k++] = 'n'; break;
        case '\r': tmp[k++] = '\\'; tmp[k++] = 'r'; break;
        case '\t': tmp[k++] = '\\'; tmp[k++] = 't'; break;
        case '\"': tmp[k++] = '\\'; tmp[k++] = '\"'; break;
        case '\'': tmp[k++] = '\\'; tmp[k++] = '\''; break;
        case '\\': tmp[k++] = '\\'; tmp[k++] = '\\'; break;
        default:
            if (c < 0x20 || c >= 0x7f) {
                tmp[k++] = '\\';
                tmp[k++] = (char)('0' + ((c >> 6) & 7));
                tmp[k++] = (char)('0' + ((c >> 3) & 7));
                tmp[k++] = (char)('0' + (c & 7));
            } else {
                tmp[k++] = (char)c;
            }
        }
        if (w + k + 1 > cap)
            break;
        memcpy(out + w, tmp, k);
        w += k;
    }
    out[w] = '\0';
    return w;
}

const char *tfn_status_str(int status)
{
    switch (status) {
    case TFN_OK: return "TFN_OK";
    case TFN_END: return "TFN_END";
    case TFN_TIMEOUT: return "TFN_TIMEOUT";
    case TFN_E_INVALID_ARG: return "TFN_E_INVALID_ARG";
    case TFN_E_NOMEM: return "TFN_E_NOMEM";
    case TFN_E_BUF_TOO_SMALL: return "TFN_E_BUF_TOO_SMALL";
    case TFN_E_CORRUPT: return "TFN_E_CORRUPT";
    case TFN_E_DATA_LOSS: return "TFN_E_DATA_LOSS";
    case TFN_E_TRUNCATED: return "TFN_E_TRUNCATED";
    case TFN_E_IO: return "TFN_E_IO";
    case TFN_E_TYPE: return "TFN_E_TYPE";
    case TFN_E_NOT_FOUND: return "TFN_E_NOT_FOUND";
    case TFN_E_LIMIT: return "TFN_E_LIMIT";
    case TFN_E_OUT_OF_RANGE: return "TFN_E_OUT_OF_RANGE";
    case TFN_E_CLOSED: return "TFN_E_CLOSED";
    case TFN_E_DATA_LOSS_LENGTH: return "TFN_E_DATA_LOSS_LENGTH";
    default: return "TFN_E_UNKNOWN";
    }
}

int tfn_version(void)
{
    return TFN_VERSION_NUMBER;
}

const char *tfn__dtype_tf_name(int dtype)
{
    switch (dtype) {
    case TFN_INT64: return "int64";
    case TFN_FLOAT32: return "float";
    case TFN_BYTES: return "string";
    case TFN_INT32: return "int32";
    case TFN_FLOAT64: return "double";
    default: return "invalid";
    }
}
