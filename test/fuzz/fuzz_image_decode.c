/*
 * fuzz_image_decode.c - libFuzzer harness for lib/image's decoders.
 *
 * Input: one control byte, then the image bytes (JPEG, PNG, GIF, BMP or anything); the
 * GIF frame mode is (image length / 32) % 3.
 *   byte 0: bits 0-1 channels (0, 1, 3, 4), bits 2-3 ratio (1, 2, 4, 8),
 *           bit 4 accurate DCT, bit 5 try_recover_truncated, bit 6 crop (a window
 *           from the probed shape), bit 7 also run the fused batch (2 copies, 2 threads,
 *           one of them cut short, skip policy, resize method = input length % 8 (every
 *           tf.image.resize method), antialias = bit 3 of the length, up to 7x5 or 41x37).
 * Invariants (a failure aborts): no crash or sanitizer report; probe and decode agree
 * on success and shape (a GIF's frames too); a decode into a buffer one byte short reports
 * TFN_E_BUF_TOO_SMALL with the exact size; errors carry a message; the batch marks
 * each record as its own decode does.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tfnano.h"

#define CHECK(cond)                                                                         \
    do {                                                                                    \
        if (!(cond))                                                                        \
            abort();                                                                        \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t ctl = data[0];
    const uint8_t *img = data + 1;
    size_t len = size - 1;
    static const int channels[4] = {0, 1, 3, 4};
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    o.channels = channels[ctl & 3];
    o.ratio = 1 << ((ctl >> 2) & 3);
    o.dct_method = (ctl >> 4) & 1;
    o.try_recover_truncated = (ctl >> 5) & 1;
    o.gif = (int)((len >> 5) % 3); /* GIF: first frame, every frame, or one-frame only */

    tfn_image_info info;
    tfn_error err;
    int prc = tfn_image_probe(img, len, &o, &info, &err);
    if (prc != TFN_OK) {
        CHECK(prc < 0 && err.msg[0] != '\0');
    } else if ((ctl >> 6) & 1) {
        o.crop = 1; /* a window inside the image, from the input's last bytes */
        uint32_t h = info.out_height, w = info.out_width;
        uint8_t a = img[len - 1], b = len > 1 ? img[len - 2] : 0;
        o.crop_y = (int32_t)(a % h);
        o.crop_x = (int32_t)(b % w);
        o.crop_height = (int32_t)(1 + (uint32_t)(a * 7u) % (h - (uint32_t)o.crop_y));
        o.crop_width = (int32_t)(1 + (uint32_t)(b * 13u) % (w - (uint32_t)o.crop_x));
        prc = tfn_image_probe(img, len, &o, &info, &err);
        if (tfn_image_format_of(img, len) == TFN_IMAGE_JPEG)
            CHECK(prc == TFN_OK || prc == TFN_E_LIMIT);
        else
            CHECK(prc == TFN_E_INVALID_ARG); /* crop is for JPEG only */
    }
    /* Inputs are a few KiB: a header declaring more than 2^24 pixels only makes
     * libjpeg fill gray (try_recover_truncated) for seconds, as it would in TF. */
    bool huge = prc == TFN_OK && (uint64_t)info.height * info.width > (1u << 24);
    if (prc == TFN_OK && !huge) {
        size_t need = (size_t)info.frames * info.out_height * info.out_width *
                      (size_t)info.out_channels * (size_t)info.bytes_per_sample;
        uint8_t *out = malloc(need);
        CHECK(out != NULL);
        tfn_image_info info2;
        int rc = tfn_image_decode(img, len, &o, out, need, &info2, &err);
        if (rc == TFN_OK) {
            CHECK(info2.out_height == info.out_height && info2.out_width == info.out_width &&
                  info2.out_channels == info.out_channels);
        } else {
            CHECK(rc < 0 && err.msg[0] != '\0');
        }
        if (need > 1) {
            int short_rc = tfn_image_decode(img, len, &o, out, need - 1, &info2, &err);
            CHECK(short_rc == TFN_E_BUF_TOO_SMALL);
            CHECK(err.offset == need);
        }
        free(out);
    }
    if (((ctl >> 7) & 1) && !huge) {
        tfn_image_batch_options bo;
        memset(&bo, 0, sizeof bo);
        bo.decode = o;
        bo.decode.crop = 0;
        bo.decode.uint16_output = 0;
        if (bo.decode.channels == 0)
            bo.decode.channels = 3;
        bo.height = (len >> 4) & 1 ? 41 : 7;
        bo.width = (len >> 4) & 1 ? 37 : 5;
        bo.dtype = TFN_IMAGE_FLOAT32;
        bo.method = (int)(len % 8) | ((len >> 3) & 1 ? TFN_RESIZE_ANTIALIAS : 0);
        bo.dct_scale = ctl & 1;
        bo.on_error = TFN_IMAGE_SKIP;
        bo.num_threads = 2;
        if ((len >> 5) & 1) {
            /* no resize: the image's own size (values converted row by row) when it
               probes, else a reshape that does not fit (reshape's error) */
            tfn_image_info pi;
            bo.no_resize = 1;
            bo.divide = (len >> 6) & 1;
            bo.mul[0] = bo.mul[1] = bo.mul[2] = 255.0f;
            if (tfn_image_probe(img, len, &bo.decode, &pi, &err) == TFN_OK && pi.frames <= 1 &&
                (uint64_t)pi.out_height * pi.out_width <= (1u << 16) &&
                (len >> 7) & 1) {
                bo.height = pi.out_height;
                bo.width = pi.out_width;
            }
        }
        const void *ptrs[2] = {img, img};
        size_t lens[2] = {len, len / 2};
        size_t per = (size_t)bo.height * bo.width * (size_t)bo.decode.channels;
        float *out = malloc(2 * per * sizeof(float));
        int32_t status[2];
        CHECK(out != NULL);
        int rc = tfn_image_decode_resize_batch(ptrs, lens, 2, &bo, out, 2 * per * sizeof(float),
                                               status, &err);
        CHECK(rc == TFN_OK || rc == TFN_E_INVALID_ARG);
        free(out);
    }
    return 0;
}
