/* record_frame.c - TFRecord framing of single records in caller memory. */
#include "record_internal.h"

#include <inttypes.h>

size_t tfn_record_frame_size(size_t payload_len)
{
    return payload_len > SIZE_MAX - TFN__REC_OVERHEAD ? 0 : payload_len + TFN__REC_OVERHEAD;
}

int tfn_record_frame(void *dst, size_t cap, const void *payload, size_t len, size_t *written,
                     tfn_error *err)
{
    if (!dst || !written || (!payload && len > 0))
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_frame: NULL argument");
    size_t need = tfn_record_frame_size(len);
    if (need == 0)
        return tfn__fail(err, TFN_E_LIMIT, "record of %zu bytes is too large to frame", len);
    if (cap < need) {
        *written = need;
        return tfn__fail(err, TFN_E_BUF_TOO_SMALL,
                         "a framed record of %zu bytes needs %zu bytes, buffer has %zu", len,
                         need, cap);
    }
    uint8_t *d = (uint8_t *)dst;
    tfn__rec_header(d, len);
    if (len > 0)
        memcpy(d + TFN__REC_HEADER, payload, len);
    tfn__store_le32(d + TFN__REC_HEADER + len, tfn__masked_crc(payload, len));
    *written = need;
    return TFN_OK;
}

int tfn_record_unframe(const void *src, size_t len, unsigned flags, const uint8_t **payload,
                       size_t *payload_len, size_t *consumed, tfn_error *err)
{
    if ((!src && len > 0) || !payload || !payload_len || !consumed)
        return tfn__fail(err, TFN_E_INVALID_ARG, "tfn_record_unframe: NULL argument");
    *payload = NULL;
    *payload_len = 0;
    *consumed = 0;
    if (len < TFN__REC_HEADER)
        return TFN_END; /* TensorFlow ends quietly on a partial header */
    const uint8_t *p = (const uint8_t *)src;
    uint64_t n = tfn__load_le64(p);
    if (tfn__masked_crc(p, 8) != tfn__load_le32(p + 8))
        return tfn__fail_at(err, TFN_E_DATA_LOSS_LENGTH, 0, 0,
                            "corrupted record at 0 (Is this even a TFRecord file?)");
    if (n > SIZE_MAX - TFN__REC_OVERHEAD)
        return tfn__fail_at(err, TFN_E_DATA_LOSS, 0, 0, "record size too large");
    size_t frame = (size_t)n + TFN__REC_OVERHEAD;
    if (len < frame) {
        *consumed = frame;
        return tfn__fail_at(err, TFN_E_TRUNCATED, 0, 0,
                            "truncated record at 0' failed with Read less bytes than requested");
    }
    const uint8_t *body = p + TFN__REC_HEADER;
    if (!(flags & TFN_UNFRAME_NO_PAYLOAD_CRC) &&
        tfn__masked_crc(body, (size_t)n) != tfn__load_le32(body + n))
        return tfn__fail_at(err, TFN_E_DATA_LOSS, TFN__REC_HEADER, 0, "corrupted record at %u",
                            TFN__REC_HEADER);
    *payload = body;
    *payload_len = (size_t)n;
    *consumed = frame;
    return TFN_OK;
}

void tfn__rec_context(tfn_error *err, const char *name, uint64_t record_index)
{
    if (!err)
        return;
    err->record_index = record_index;
    if (name)
        tfn__append(err, "; file %s, record %" PRIu64, name, record_index);
    else
        tfn__append(err, "; record %" PRIu64, record_index);
}
