/* bmp_decode.c - uncompressed BMP as TensorFlow's DecodeBmp reads it: pixel data at
 * the header's offset, 8 (one raw channel, palette not applied), 24 (BGR) or 32 (BGRA)
 * bits per pixel, rows padded to 4 bytes, bottom-up unless the height is negative;
 * the file must end exactly after the last row. */
#include "image_internal.h"

static int32_t load_i32(const uint8_t *p)
{
    uint32_t u = tfn__load_le32(p);
    int32_t v;
    memcpy(&v, &u, sizeof v);
    return v;
}

int tfn__bmp_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err)
{
    if (opt->channels == 1)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "`channels` must be 0, 3 or 4 for BMP, but got 1");
    if (opt->crop)
        return tfn__fail(err, TFN_E_INVALID_ARG, "crop is for JPEG only; got a BMP");
    if (len < 32)
        return tfn__fail(err, TFN_E_TRUNCATED, "Incomplete bmp content, requires at least 32 "
                                               "bytes to find the header size, width, "
                                               "height, and bpp, got %zu bytes", len);
    int32_t offset = load_i32(data + 10), width = load_i32(data + 18);
    int32_t height = load_i32(data + 22);
    int bpp = data[28] | (data[29] << 8);
    int in_c = bpp / 8;
    if (in_c != 1 && in_c != 3 && in_c != 4)
        return tfn__fail(err, TFN_E_CORRUPT, "Number of channels inherent in the image must be "
                                             "1, 3 or 4, was %d", in_c);
    if (width <= 0)
        return tfn__fail(err, TFN_E_CORRUPT, "Width must be positive");
    if (height == 0)
        return tfn__fail(err, TFN_E_CORRUPT, "Height must be nonzero");
    if (offset < 0)
        return tfn__fail(err, TFN_E_CORRUPT, "header size must be nonnegative");
    uint64_t abs_h = height < 0 ? (uint64_t)(-(int64_t)height) : (uint64_t)height;
    if ((uint64_t)width * abs_h >= (uint64_t)(INT32_MAX / 8))
        return tfn__fail(err, TFN_E_LIMIT, "Total possible pixel bytes must be less than 2^30");
    uint64_t row_size = ((uint64_t)in_c * (uint64_t)width + 3) / 4 * 4;
    uint64_t expected = (uint64_t)offset + row_size * abs_h;
    if (expected != len)
        return tfn__fail(err, expected > len ? TFN_E_TRUNCATED : TFN_E_CORRUPT,
                         "Input size should match (header_size + row_size * abs_height) but "
                         "they differ by %lld", (long long)len - (long long)expected);
    int out_c = opt->channels ? opt->channels : in_c;
    info->height = (uint32_t)abs_h;
    info->width = (uint32_t)width;
    info->components = in_c;
    info->bit_depth = 8;
    info->out_height = (uint32_t)abs_h;
    info->out_width = (uint32_t)width;
    info->out_channels = out_c;
    info->bytes_per_sample = 1;
    uint64_t total = abs_h * (uint64_t)width * (uint64_t)out_c;
    if (total >= TFN__IMAGE_MAX_BYTES)
        return tfn__fail(err, TFN_E_LIMIT, "BMP image too large: %dx%llu", width,
                         (unsigned long long)abs_h);
    if (!sink)
        return TFN_OK;
    uint8_t *dst = sink->get(sink, info, (size_t)total, err);
    if (!dst)
        return err ? err->code : TFN_E_NOMEM;
    const uint8_t *pixels = data + offset;
    for (uint64_t y = 0; y < abs_h; y++) {
        const uint8_t *s = pixels + (height < 0 ? y : abs_h - 1 - y) * row_size;
        uint8_t *d = dst + y * (uint64_t)width * (uint64_t)out_c;
        for (int32_t x = 0; x < width; x++, s += in_c, d += out_c) {
            if (in_c == 1) {
                d[0] = d[out_c > 1 ? 1 : 0] = d[out_c > 2 ? 2 : 0] = s[0];
            } else { /* BGR(A) -> RGB(A) */
                d[0] = s[2];
                d[1] = s[1];
                d[2] = s[0];
            }
            if (out_c == 4)
                d[3] = in_c == 4 ? s[3] : 255;
        }
    }
    return TFN_OK;
}
