/* test_image_no_resize.c - tfn_image_batch_options.no_resize: decode -> cast ->
 * normalise -> reshape fused into the batch (JPEG a row at a time, PNG whole), against
 * tfn_image_decode followed by the same float operations one value at a time, and
 * reshape's error when the image holds another number of values. */
#include "harness.h"
#include "tfnano.h"

#include <stdbool.h>
#include <stdlib.h>

static uint8_t *make_noise(uint32_t h, uint32_t w, int c, unsigned seed)
{
    size_t n = (size_t)h * w * (size_t)c;
    uint8_t *px = malloc(n);
    uint32_t s = seed * 2654435761u + 1u;
    for (size_t i = 0; i < n; i++) {
        s = s * 1664525u + 1013904223u;
        /* a gradient with noise: JPEG keeps some of both */
        px[i] = (uint8_t)((i / (size_t)c) % 200 + (s >> 28));
    }
    return px;
}

static uint8_t *encode(const uint8_t *px, uint32_t h, uint32_t w, int c, bool png, size_t *len)
{
    uint8_t *out = NULL;
    tfn_error err;
    int rc;
    if (png) {
        rc = tfn_image_encode_png(px, h, w, c, 8, 6, &out, len, &err);
    } else {
        tfn_image_jpeg_options o;
        memset(&o, 0, sizeof o);
        o.quality = 90;
        rc = tfn_image_encode_jpeg(px, h, w, c, &o, &out, len, &err);
    }
    if (rc != TFN_OK)
        fprintf(stderr, "encode: %s\n", err.msg);
    return out;
}

/* One image through no_resize in `dtype`, compared with decode + scalar arithmetic. */
static void check_one(const uint8_t *data, size_t len, uint32_t h, uint32_t w, int c,
                      int dtype, const float *sub, const float *mul, int divide)
{
    size_t n = (size_t)h * w * (size_t)c;
    uint8_t *dec = malloc(n);
    tfn_image_decode_options dopt;
    memset(&dopt, 0, sizeof dopt);
    dopt.channels = c;
    tfn_image_info info;
    tfn_error err;
    REQUIRE(tfn_image_decode(data, len, &dopt, dec, n, &info, &err) == TFN_OK);

    tfn_image_batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.decode = dopt;
    /* the reshape's shape need not be the image's: only the count matters */
    bo.height = (uint32_t)(n / (size_t)c);
    bo.width = 1;
    bo.dtype = dtype;
    bo.no_resize = 1;
    bo.divide = divide;
    bool identity = true;
    for (int k = 0; k < c; k++) {
        bo.sub[k] = sub[k];
        bo.mul[k] = mul[k];
        if (sub[k] != 0.0f || (mul[k] != 0.0f && mul[k] != 1.0f))
            identity = false;
    }
    bo.num_threads = 1;
    size_t es = dtype == TFN_IMAGE_FLOAT32 ? 4 : dtype == TFN_IMAGE_BFLOAT16 ? 2 : 1;
    uint8_t *got = malloc(n * es);
    const void *ptrs[1] = {data};
    CHECK_EQ_INT(tfn_image_decode_resize_batch(ptrs, &len, 1, &bo, got, n * es, NULL, &err),
                 TFN_OK);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        int k = (int)(i % (size_t)c);
        float m = mul[k] == 0.0f ? 1.0f : mul[k];
        float v = (float)dec[i];
        if (!identity)
            v = divide ? (v - sub[k]) / m : (v - sub[k]) * m;
        if (dtype == TFN_IMAGE_FLOAT32) {
            float g;
            memcpy(&g, got + 4 * i, 4);
            bad += memcmp(&g, &v, 4) != 0;
        } else if (dtype == TFN_IMAGE_UINT8) {
            uint8_t want = !(v > 0.0f) ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
            bad += got[i] != want;
        }
    }
    CHECK_EQ_INT(bad, 0);
    free(got);
    free(dec);
}

static void test_values(void)
{
    static const float zero[4] = {0}, div255[4] = {255, 255, 255, 255};
    static const float mean[4] = {123.5f, 116.25f, 103.0f, 7.0f};
    static const float scale[4] = {0.017f, 0.0175f, 0.0174f, 2.0f};
    static const float one[4] = {1, 1, 1, 1};
    /* widths whose rows are not multiples of 48 values exercise the scalar tails */
    const uint32_t sizes[][2] = {{64, 64}, {37, 53}, {1, 5}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        for (int c = 1; c <= 3; c += 2) {
            for (int png = 0; png <= 1; png++) {
                uint32_t h = sizes[s][0], w = sizes[s][1];
                uint8_t *px = make_noise(h, w, c, (unsigned)(s * 7 + (size_t)c));
                size_t len = 0;
                uint8_t *data = encode(px, h, w, c, png, &len);
                REQUIRE(data != NULL);
                check_one(data, len, h, w, c, TFN_IMAGE_FLOAT32, zero, div255, 1);
                check_one(data, len, h, w, c, TFN_IMAGE_FLOAT32, mean, scale, 0);
                check_one(data, len, h, w, c, TFN_IMAGE_FLOAT32, mean, div255, 1);
                check_one(data, len, h, w, c, TFN_IMAGE_FLOAT32, zero, one, 0);
                check_one(data, len, h, w, c, TFN_IMAGE_UINT8, zero, one, 0);
                check_one(data, len, h, w, c, TFN_IMAGE_UINT8, mean, one, 0);
                check_one(data, len, h, w, c, TFN_IMAGE_BFLOAT16, zero, div255, 1);
                tfn_image_free(data);
                free(px);
            }
        }
    }
}

static void test_reshape_error(void)
{
    uint32_t h = 24, w = 40;
    uint8_t *px = make_noise(h, w, 3, 3);
    size_t len = 0;
    uint8_t *jpg = encode(px, h, w, 3, false, &len);
    REQUIRE(jpg != NULL);
    tfn_image_batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.decode.channels = 3;
    bo.height = 32; /* 32 x 30 x 3 = 2880 values, the image has 2880: accepted */
    bo.width = 30;
    bo.dtype = TFN_IMAGE_FLOAT32;
    bo.no_resize = 1;
    bo.num_threads = 1;
    float out[32 * 40 * 3];
    const void *ptrs[1] = {jpg};
    tfn_error err;
    CHECK_EQ_INT(tfn_image_decode_resize_batch(ptrs, &len, 1, &bo, out, sizeof out, NULL, &err),
                 TFN_OK);
    bo.width = 40; /* 3840 values wanted */
    CHECK_EQ_INT(tfn_image_decode_resize_batch(ptrs, &len, 1, &bo, out, sizeof out, NULL, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "Input to reshape is a tensor with 2880 values, but the requested "
                          "shape has 3840") != NULL);
    /* a damaged image fails as a decode error first, whatever its size */
    len /= 2;
    CHECK(tfn_image_decode_resize_batch(ptrs, &len, 1, &bo, out, sizeof out, NULL, &err) !=
          TFN_OK);
    CHECK(strstr(err.msg, "reshape") == NULL);
    bo.nchw = 1;
    CHECK_EQ_INT(tfn_image_decode_resize_batch(ptrs, &len, 1, &bo, out, sizeof out, NULL, &err),
                 TFN_E_INVALID_ARG);
    tfn_image_free(jpg);
    free(px);
}

int main(void)
{
    RUN(test_values);
    RUN(test_reshape_error);
    return harness_finish();
}
