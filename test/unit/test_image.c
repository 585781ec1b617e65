/* test_image.c - lib/image: JPEG/PNG decode against images made by our encoders
 * (smooth synthetic scenes), channel conversions, DCT scaling and crop shapes, damaged
 * and empty input, resize against a double-precision reference, and the threaded
 * batch functions against one-at-a-time decoding. */
#include "harness.h"
#include "tfnano.h"

#include <math.h>
#include <stdlib.h>

/* A smooth RGB scene: gradients plus a soft disc, like a photo without noise. */
static uint8_t *make_scene(uint32_t h, uint32_t w, int c, unsigned seed)
{
    uint8_t *px = malloc((size_t)h * w * (size_t)c);
    for (uint32_t y = 0; y < h; y++)
        for (uint32_t x = 0; x < w; x++) {
            double dx = (double)x - w * 0.4, dy = (double)y - h * 0.6;
            double disc = exp(-(dx * dx + dy * dy) / (0.05 * w * h));
            for (int k = 0; k < c; k++) {
                double v = 40.0 + 120.0 * (double)(x + (unsigned)k * 7 + seed) / w +
                           60.0 * (double)y / h + 80.0 * disc * (k + 1) / c;
                px[((size_t)y * w + x) * (size_t)c + (size_t)k] =
                    (uint8_t)(v > 255 ? 255 : v);
            }
        }
    return px;
}

static double mean_abs_diff(const uint8_t *a, const uint8_t *b, size_t n)
{
    double s = 0;
    for (size_t i = 0; i < n; i++)
        s += fabs((double)a[i] - (double)b[i]);
    return n ? s / (double)n : 0;
}

static uint8_t *encode_jpeg(const uint8_t *px, uint32_t h, uint32_t w, int c, int quality,
                            size_t *len)
{
    tfn_image_jpeg_options o;
    memset(&o, 0, sizeof o);
    o.quality = quality;
    uint8_t *out = NULL;
    tfn_error err;
    int rc = tfn_image_encode_jpeg(px, h, w, c, &o, &out, len, &err);
    if (rc != TFN_OK)
        fprintf(stderr, "encode_jpeg: %s\n", err.msg);
    return out;
}

static void test_jpeg_roundtrip(void)
{
    uint32_t h = 61, w = 83; /* not multiples of the MCU size */
    uint8_t *px = make_scene(h, w, 3, 1);
    size_t len = 0;
    uint8_t *jpg = encode_jpeg(px, h, w, 3, 95, &len);
    REQUIRE(jpg != NULL && len > 100);
    CHECK_EQ_INT(tfn_image_format_of(jpg, len), TFN_IMAGE_JPEG);

    tfn_image_info info;
    tfn_error err;
    CHECK_EQ_INT(tfn_image_probe(jpg, len, NULL, &info, &err), TFN_OK);
    CHECK_EQ_INT(info.height, h);
    CHECK_EQ_INT(info.width, w);
    CHECK_EQ_INT(info.components, 3);
    CHECK_EQ_INT(info.out_channels, 3);

    size_t n = (size_t)h * w * 3;
    uint8_t *out = malloc(n);
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    for (int dct = 0; dct < 2; dct++) {
        o.dct_method = dct;
        CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, out, n, &info, &err), TFN_OK);
        CHECK(mean_abs_diff(px, out, n) < 2.0);
    }
    /* A buffer one byte short: BUF_TOO_SMALL with the size needed. */
    CHECK_EQ_INT(tfn_image_decode(jpg, len, NULL, out, n - 1, &info, &err), TFN_E_BUF_TOO_SMALL);
    CHECK_EQ_INT(err.offset, n);

    /* channels=1 gives luma; channels=4 adds opaque alpha with the same RGB. */
    uint8_t *gray = malloc((size_t)h * w);
    o.dct_method = 0;
    o.channels = 1;
    CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, gray, (size_t)h * w, &info, &err), TFN_OK);
    CHECK_EQ_INT(info.out_channels, 1);
    uint8_t *rgba = malloc((size_t)h * w * 4);
    o.channels = 4;
    CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, rgba, (size_t)h * w * 4, &info, &err), TFN_OK);
    o.channels = 3;
    CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, out, n, &info, &err), TFN_OK);
    int alpha_ok = 1, rgb_ok = 1;
    double luma_err = 0;
    for (size_t i = 0; i < (size_t)h * w; i++) {
        alpha_ok &= rgba[i * 4 + 3] == 255;
        rgb_ok &= memcmp(rgba + i * 4, out + i * 3, 3) == 0;
        double y = 0.299 * out[i * 3] + 0.587 * out[i * 3 + 1] + 0.114 * out[i * 3 + 2];
        luma_err += fabs(y - gray[i]);
    }
    CHECK(alpha_ok);
    CHECK(rgb_ok);
    CHECK(luma_err / ((double)h * w) < 2.0);

    /* DCT-domain scaling: ceil(size / ratio). */
    for (int r = 2; r <= 8; r *= 2) {
        o.ratio = r;
        CHECK_EQ_INT(tfn_image_probe(jpg, len, &o, &info, &err), TFN_OK);
        CHECK_EQ_INT(info.out_height, (h + (uint32_t)r - 1) / (uint32_t)r);
        CHECK_EQ_INT(info.out_width, (w + (uint32_t)r - 1) / (uint32_t)r);
        CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, out, n, &info, &err), TFN_OK);
    }
    o.ratio = 3;
    CHECK_EQ_INT(tfn_image_probe(jpg, len, &o, &info, &err), TFN_E_INVALID_ARG);
    free(gray);
    free(rgba);
    free(out);
    free(px);
    tfn_image_free(jpg);
}

static void test_jpeg_crop(void)
{
    uint32_t h = 64, w = 96;
    uint8_t *px = make_scene(h, w, 3, 2);
    size_t len = 0;
    uint8_t *jpg = encode_jpeg(px, h, w, 3, 90, &len);
    REQUIRE(jpg != NULL);
    size_t n = (size_t)h * w * 3;
    uint8_t *full = malloc(n), *crop = malloc(n);
    tfn_image_info info;
    tfn_error err;
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    REQUIRE(tfn_image_decode(jpg, len, &o, full, n, &info, &err) == TFN_OK);
    static const int32_t windows[][4] = {{0, 0, 64, 96}, {5, 7, 20, 30}, {17, 33, 40, 50},
                                         {63, 95, 1, 1}, {8, 16, 16, 16}};
    for (size_t t = 0; t < sizeof windows / sizeof windows[0]; t++) {
        o.crop = 1;
        o.crop_y = windows[t][0];
        o.crop_x = windows[t][1];
        o.crop_height = windows[t][2];
        o.crop_width = windows[t][3];
        REQUIRE(tfn_image_decode(jpg, len, &o, crop, n, &info, &err) == TFN_OK);
        CHECK_EQ_INT(info.out_height, o.crop_height);
        CHECK_EQ_INT(info.out_width, o.crop_width);
        /* The window of the full decode, up to libjpeg's smoothing at the cut edges. */
        double diff = 0;
        for (int32_t y = 0; y < o.crop_height; y++)
            diff += mean_abs_diff(crop + (size_t)y * (size_t)o.crop_width * 3,
                                  full + (((size_t)(y + o.crop_y)) * w + (size_t)o.crop_x) * 3,
                                  (size_t)o.crop_width * 3);
        CHECK(diff / o.crop_height < 1.0);
    }
    o.crop_y = 60;
    o.crop_height = 10; /* past the bottom */
    CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, crop, n, &info, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "crop window") != NULL);
    o.crop_height = 0;
    CHECK_EQ_INT(tfn_image_decode(jpg, len, &o, crop, n, &info, &err), TFN_E_INVALID_ARG);
    free(full);
    free(crop);
    free(px);
    tfn_image_free(jpg);
}

static void test_png_roundtrip(void)
{
    uint32_t h = 23, w = 37;
    for (int c = 1; c <= 4; c++) {
        uint8_t *px = make_scene(h, w, c, (unsigned)c);
        uint8_t *png = NULL;
        size_t len = 0;
        tfn_error err;
        REQUIRE(tfn_image_encode_png(px, h, w, c, 8, -1, &png, &len, &err) == TFN_OK);
        CHECK_EQ_INT(tfn_image_format_of(png, len), TFN_IMAGE_PNG);
        size_t n = (size_t)h * w * 4 * 2;
        uint8_t *out = malloc(n);
        tfn_image_info info;
        REQUIRE(tfn_image_decode(png, len, NULL, out, n, &info, &err) == TFN_OK);
        CHECK_EQ_INT(info.out_channels, c);
        CHECK_EQ_INT(info.components, c);
        CHECK(memcmp(out, px, (size_t)h * w * (size_t)c) == 0);

        tfn_image_decode_options o;
        memset(&o, 0, sizeof o);
        /* To RGBA: gray replicated, alpha kept or added opaque. */
        o.channels = 4;
        REQUIRE(tfn_image_decode(png, len, &o, out, n, &info, &err) == TFN_OK);
        int ok = 1;
        for (size_t i = 0; i < (size_t)h * w; i++) {
            const uint8_t *s = px + i * (size_t)c, *d = out + i * 4;
            uint8_t r = s[0], g = c >= 3 ? s[1] : s[0], b = c >= 3 ? s[2] : s[0];
            uint8_t a = c == 2 ? s[1] : c == 4 ? s[3] : 255;
            ok &= d[0] == r && d[1] == g && d[2] == b && d[3] == a;
        }
        CHECK(ok);
        /* 16-bit output of an 8-bit file: v * 257. */
        o.channels = 0;
        o.uint16_output = 1;
        REQUIRE(tfn_image_decode(png, len, &o, out, n, &info, &err) == TFN_OK);
        CHECK_EQ_INT(info.bytes_per_sample, 2);
        const uint16_t *o16 = (const uint16_t *)(const void *)out;
        ok = 1;
        for (size_t i = 0; i < (size_t)h * w * (size_t)c; i++)
            ok &= o16[i] == px[i] * 257u;
        CHECK(ok);
        free(out);
        free(px);
        tfn_image_free(png);
    }
    /* A 16-bit file: exact with uint16 output, high bytes with uint8. */
    uint16_t px16[6 * 5 * 3];
    for (size_t i = 0; i < sizeof px16 / 2; i++)
        px16[i] = (uint16_t)(i * 2113u + 7u);
    uint8_t *png = NULL;
    size_t len = 0;
    tfn_error err;
    REQUIRE(tfn_image_encode_png(px16, 6, 5, 3, 16, 9, &png, &len, &err) == TFN_OK);
    uint16_t back[6 * 5 * 3];
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    o.uint16_output = 1;
    tfn_image_info info;
    REQUIRE(tfn_image_decode(png, len, &o, back, sizeof back, &info, &err) == TFN_OK);
    CHECK(memcmp(back, px16, sizeof back) == 0);
    uint8_t back8[6 * 5 * 3];
    REQUIRE(tfn_image_decode(png, len, NULL, back8, sizeof back8, &info, &err) == TFN_OK);
    int ok = 1;
    for (size_t i = 0; i < sizeof back8; i++)
        ok &= back8[i] == (px16[i] >> 8);
    CHECK(ok);
    tfn_image_free(png);
}

/* A BMP written here: 54-byte header, rows padded to 4 bytes, bottom-up unless
 * top_down (negative height), BGR(A) or one 8-bit channel. Returns its size. */
static size_t make_bmp(uint8_t *out, const uint8_t *rgb, int32_t h, int32_t w, int bpp,
                       int top_down)
{
    int c = bpp / 8;
    size_t row = ((size_t)c * (size_t)w + 3) / 4 * 4;
    size_t size = 54 + row * (size_t)h;
    memset(out, 0, size);
    out[0] = 'B';
    out[1] = 'M';
    out[10] = 54;
    out[14] = 40;
    for (int k = 0; k < 4; k++) {
        out[18 + k] = (uint8_t)((uint32_t)w >> (8 * k));
        out[22 + k] = (uint8_t)((uint32_t)(top_down ? -h : h) >> (8 * k));
    }
    out[26] = 1;
    out[28] = (uint8_t)bpp;
    for (int32_t y = 0; y < h; y++) {
        uint8_t *r = out + 54 + row * (size_t)(top_down ? y : h - 1 - y);
        for (int32_t x = 0; x < w; x++) {
            const uint8_t *p = rgb + ((size_t)y * (size_t)w + (size_t)x) * 4;
            if (c == 1) {
                r[x] = p[0];
            } else {
                r[x * c + 0] = p[2];
                r[x * c + 1] = p[1];
                r[x * c + 2] = p[0];
                if (c == 4)
                    r[x * c + 3] = p[3];
            }
        }
    }
    return size;
}

static void test_bmp(void)
{
    enum { H = 5, W = 7 };
    uint8_t rgba[H * W * 4], file[54 + H * 32], out[H * W * 4];
    for (size_t i = 0; i < sizeof rgba; i++)
        rgba[i] = (uint8_t)(i * 37 + 11);
    static const int bpps[3] = {8, 24, 32};
    tfn_error err;
    tfn_image_info info;
    for (int b = 0; b < 3; b++)
        for (int top = 0; top < 2; top++) {
            size_t len = make_bmp(file, rgba, H, W, bpps[b], top);
            CHECK_EQ_INT(tfn_image_format_of(file, len), TFN_IMAGE_BMP);
            tfn_image_decode_options o;
            memset(&o, 0, sizeof o);
            o.channels = 4;
            REQUIRE(tfn_image_decode(file, len, &o, out, sizeof out, &info, &err) == TFN_OK);
            CHECK_EQ_INT(info.out_height, H);
            CHECK_EQ_INT(info.out_width, W);
            CHECK_EQ_INT(info.components, bpps[b] / 8);
            int ok = 1;
            for (size_t i = 0; i < (size_t)H * W; i++) {
                const uint8_t *p = rgba + i * 4, *d = out + i * 4;
                if (bpps[b] == 8)
                    ok &= d[0] == p[0] && d[1] == p[0] && d[2] == p[0] && d[3] == 255;
                else
                    ok &= d[0] == p[0] && d[1] == p[1] && d[2] == p[2] &&
                          d[3] == (bpps[b] == 32 ? p[3] : 255);
            }
            CHECK(ok);
            o.channels = 1; /* refused, as TensorFlow does */
            CHECK_EQ_INT(tfn_image_decode(file, len, &o, out, sizeof out, &info, &err),
                         TFN_E_INVALID_ARG);
            o.channels = 0; /* a byte short or long: the size check */
            CHECK_EQ_INT(tfn_image_decode(file, len - 1, &o, out, sizeof out, &info, &err),
                         TFN_E_TRUNCATED);
            CHECK(strstr(err.msg, "differ by -1") != NULL);
            for (size_t cut = 0; cut < len; cut++) {
                int rc = tfn_image_decode(file, cut, &o, out, sizeof out, &info, &err);
                CHECK(rc < 0);
            }
        }
}

/* Every prefix of a valid image fails cleanly (or decodes, for the few that end at a
 * point libjpeg accepts), and flipped bytes never crash. */
static void test_damaged_inputs(void)
{
    uint32_t h = 40, w = 48;
    uint8_t *px = make_scene(h, w, 3, 3);
    size_t jlen = 0, plen = 0;
    uint8_t *jpg = encode_jpeg(px, h, w, 3, 90, &jlen);
    uint8_t *png = NULL;
    tfn_error err;
    REQUIRE(jpg != NULL);
    REQUIRE(tfn_image_encode_png(px, h, w, 3, 8, 6, &png, &plen, &err) == TFN_OK);
    size_t n = (size_t)h * w * 4;
    uint8_t *out = malloc(n);
    tfn_image_info info;

    CHECK_EQ_INT(tfn_image_decode(jpg, 0, NULL, out, n, &info, &err), TFN_E_INVALID_ARG);
    CHECK_STR(err.msg, "Input is empty.");
    CHECK_EQ_INT(tfn_image_decode(NULL, 0, NULL, out, n, &info, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_image_decode("hello world", 11, NULL, out, n, &info, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "Unknown image file format") != NULL);
    CHECK_EQ_INT(tfn_image_decode("GIF89a", 6, NULL, out, n, &info, &err), TFN_E_CORRUPT);
    CHECK_STR(err.msg, "Invalid GIF data (size 6), failed to open gif file: No screen "
                       "descriptor detected"); /* TensorFlow's text (test_gif_tf.py) */

    /* Truncated JPEG: the data ends inside the scan. */
    CHECK_EQ_INT(tfn_image_decode(jpg, jlen / 2, NULL, out, n, &info, &err), TFN_E_TRUNCATED);
    CHECK(strstr(err.msg, "truncated JPEG") != NULL);
    /* Cut inside the scan, it decodes with try_recover_truncated (the rest gray). */
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    o.try_recover_truncated = 1;
    CHECK_EQ_INT(tfn_image_decode(jpg, jlen * 3 / 4, &o, out, n, &info, &err), TFN_OK);
    CHECK_EQ_INT(tfn_image_decode(png, plen / 2, NULL, out, n, &info, &err), TFN_E_TRUNCATED);
    CHECK(strstr(err.msg, "truncated PNG") != NULL);

    size_t ok_prefixes = 0;
    for (size_t cut = 1; cut < jlen; cut++) {
        int rc = tfn_image_decode(jpg, cut, NULL, out, n, &info, &err);
        CHECK(rc == TFN_OK || rc == TFN_E_TRUNCATED || rc == TFN_E_CORRUPT ||
              rc == TFN_E_INVALID_ARG);
        ok_prefixes += rc == TFN_OK;
    }
    CHECK(ok_prefixes <= 2); /* at most the file minus its EOI marker */
    for (size_t cut = 1; cut < plen; cut++) {
        int rc = tfn_image_decode(png, cut, NULL, out, n, &info, &err);
        CHECK(rc == TFN_E_TRUNCATED || rc == TFN_E_CORRUPT || rc == TFN_E_INVALID_ARG ||
              rc == TFN_OK);
    }
    /* A progressive JPEG declaring 65000x65000: its coefficient buffer would need
     * gigabytes, so even at ratio 8 (a 2^29-byte-limit-compliant output) the decoder
     * refuses it at once instead of allocating. */
    {
        tfn_image_jpeg_options jo;
        memset(&jo, 0, sizeof jo);
        jo.progressive = 1;
        uint8_t *prog = NULL;
        size_t plen2 = 0;
        REQUIRE(tfn_image_encode_jpeg(px, h, w, 3, &jo, &prog, &plen2, &err) == TFN_OK);
        size_t sof = 0;
        for (size_t i = 0; i + 9 < plen2; i++)
            if (prog[i] == 0xFF && prog[i + 1] == 0xC2) {
                sof = i;
                break;
            }
        REQUIRE(sof != 0);
        prog[sof + 5] = 0xFD; /* height 65000 */
        prog[sof + 6] = 0xE8;
        prog[sof + 7] = 0xFD; /* width 65000 */
        prog[sof + 8] = 0xE8;
        tfn_image_decode_options big;
        memset(&big, 0, sizeof big);
        big.ratio = 8;
        big.channels = 1;
        REQUIRE(tfn_image_probe(prog, plen2, &big, &info, &err) == TFN_OK);
        size_t need = (size_t)info.out_height * info.out_width;
        uint8_t *dst = malloc(need);
        CHECK_EQ_INT(tfn_image_decode(prog, plen2, &big, dst, need, &info, &err), TFN_E_LIMIT);
        CHECK(strstr(err.msg, "decoder memory") != NULL);
        free(dst);
        tfn_image_free(prog);
    }
    /* Bit flips all over both files. */
    uint8_t *copy = malloc(jlen > plen ? jlen : plen);
    unsigned state = 12345;
    for (int t = 0; t < 400; t++) {
        int is_png = t & 1;
        const uint8_t *src = is_png ? png : jpg;
        size_t len = is_png ? plen : jlen;
        memcpy(copy, src, len);
        for (int f = 0; f < 3; f++) {
            state = state * 1103515245u + 12345u;
            copy[(state >> 8) % len] ^= (uint8_t)(1u << ((state >> 4) % 8));
        }
        int rc = tfn_image_decode(copy, len, NULL, out, n, &info, &err);
        CHECK(rc == TFN_OK || rc < 0);
        if (rc < 0)
            CHECK(err.msg[0] != '\0');
    }
    free(copy);
    free(out);
    free(px);
    tfn_image_free(jpg);
    tfn_image_free(png);
}

/* Straightforward bilinear with half-pixel centres, in double. */
static double ref_bilinear(const uint8_t *src, uint32_t h, uint32_t w, int c, uint32_t oh,
                           uint32_t ow, uint32_t y, uint32_t x, int k)
{
    double sy = ((double)y + 0.5) * h / oh - 0.5, sx = ((double)x + 0.5) * w / ow - 0.5;
    double fy = floor(sy), fx = floor(sx);
    double ly = sy - fy, lx = sx - fx;
    long y0 = (long)fy < 0 ? 0 : (long)fy, x0 = (long)fx < 0 ? 0 : (long)fx;
    long y1 = (long)ceil(sy) > (long)h - 1 ? (long)h - 1 : (long)ceil(sy);
    long x1 = (long)ceil(sx) > (long)w - 1 ? (long)w - 1 : (long)ceil(sx);
#define AT(yy, xx) ((double)src[((size_t)(yy) * w + (size_t)(xx)) * (size_t)c + (size_t)k])
    double top = AT(y0, x0) + (AT(y0, x1) - AT(y0, x0)) * lx;
    double bot = AT(y1, x0) + (AT(y1, x1) - AT(y1, x0)) * lx;
#undef AT
    return top + (bot - top) * ly;
}

static void test_resize(void)
{
    static const uint32_t sizes[][4] = {{37, 53, 10, 20}, {10, 20, 37, 53}, {16, 16, 16, 16},
                                        {1, 1, 5, 3}, {50, 40, 7, 45}};
    tfn_error err;
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        uint32_t h = sizes[t][0], w = sizes[t][1], oh = sizes[t][2], ow = sizes[t][3];
        for (int c = 1; c <= 4; c++) {
            uint8_t *src = make_scene(h, w, c, (unsigned)t);
            size_t on = (size_t)oh * ow * (size_t)c;
            float *dst = malloc(on * sizeof(float));
            REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, h, w, c, dst, oh, ow,
                                     TFN_RESIZE_BILINEAR, &err) == TFN_OK);
            double worst = 0;
            for (uint32_t y = 0; y < oh; y++)
                for (uint32_t x = 0; x < ow; x++)
                    for (int k = 0; k < c; k++) {
                        double d = fabs(dst[((size_t)y * ow + x) * (size_t)c + (size_t)k] -
                                        ref_bilinear(src, h, w, c, oh, ow, y, x, k));
                        worst = d > worst ? d : worst;
                    }
            CHECK(worst < 1e-3);
            if (h == oh && w == ow) { /* same size: the pixels exactly */
                int same = 1;
                for (size_t i = 0; i < (size_t)h * w * (size_t)c; i++)
                    same &= dst[i] == (float)src[i];
                CHECK(same);
            }
            /* Nearest: each output pixel is the input at floor((i + 0.5) * in / out). */
            uint8_t *near = malloc(on);
            REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, h, w, c, near, oh, ow,
                                     TFN_RESIZE_NEAREST, &err) == TFN_OK);
            int ok = 1;
            for (uint32_t y = 0; y < oh; y++)
                for (uint32_t x = 0; x < ow; x++) {
                    uint32_t sy = (uint32_t)floor((y + 0.5) * h / oh), sx = (uint32_t)floor((x + 0.5) * w / ow);
                    sy = sy > h - 1 ? h - 1 : sy;
                    sx = sx > w - 1 ? w - 1 : sx;
                    ok &= memcmp(near + ((size_t)y * ow + x) * (size_t)c,
                                 src + ((size_t)sy * w + sx) * (size_t)c, (size_t)c) == 0;
                }
            CHECK(ok);
            /* float32 source gives the same as uint8 source */
            float *srcf = malloc((size_t)h * w * (size_t)c * sizeof(float));
            for (size_t i = 0; i < (size_t)h * w * (size_t)c; i++)
                srcf[i] = src[i];
            float *dst2 = malloc(on * sizeof(float));
            REQUIRE(tfn_image_resize(srcf, TFN_IMAGE_FLOAT32, h, w, c, dst2, oh, ow,
                                     TFN_RESIZE_BILINEAR, &err) == TFN_OK);
            CHECK(memcmp(dst, dst2, on * sizeof(float)) == 0);
            free(dst2);
            free(srcf);
            free(near);
            free(dst);
            free(src);
        }
    }
    /* Area: the mean of the input over each output cell (exact box integral in double). */
    {
        static const uint32_t area_sizes[][4] = {{37, 53, 10, 20}, {12, 9, 5, 4}, {8, 8, 16, 12},
                                                 {30, 40, 30, 40}};
        for (size_t t = 0; t < sizeof area_sizes / sizeof area_sizes[0]; t++) {
            uint32_t h = area_sizes[t][0], w = area_sizes[t][1];
            uint32_t oh = area_sizes[t][2], ow = area_sizes[t][3];
            uint8_t *src = make_scene(h, w, 3, (unsigned)t + 9);
            float *dst = malloc((size_t)oh * ow * 3 * sizeof(float));
            REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, h, w, 3, dst, oh, ow, TFN_RESIZE_AREA,
                                     &err) == TFN_OK);
            double worst = 0;
            for (uint32_t y = 0; y < oh; y++)
                for (uint32_t x = 0; x < ow; x++)
                    for (size_t k = 0; k < 3; k++) {
                        double y0 = (double)y * h / oh, y1 = (double)(y + 1) * h / oh;
                        double x0 = (double)x * w / ow, x1 = (double)(x + 1) * w / ow;
                        double sum = 0;
                        for (uint32_t iy = (uint32_t)floor(y0); iy < h && iy < y1; iy++)
                            for (uint32_t ix = (uint32_t)floor(x0); ix < w && ix < x1; ix++) {
                                double fy = fmin(y1, iy + 1.0) - fmax(y0, (double)iy);
                                double fx = fmin(x1, ix + 1.0) - fmax(x0, (double)ix);
                                sum += fy * fx * src[((size_t)iy * w + ix) * 3 + k];
                            }
                        double want = sum / ((y1 - y0) * (x1 - x0));
                        double d = fabs(dst[((size_t)y * ow + x) * 3 + k] - want);
                        worst = d > worst ? d : worst;
                    }
            CHECK(worst < 1e-2);
            free(dst);
            free(src);
        }
    }
    float one;
    CHECK_EQ_INT(tfn_image_resize(&one, TFN_IMAGE_FLOAT32, 1, 1, 1, &one, 0, 1,
                                  TFN_RESIZE_BILINEAR, &err), TFN_E_INVALID_ARG);
}

/* ---- filter methods: a double-precision reference of the same definitions ----
 * ScaleAndTranslate: output coordinate o samples s = (o + 0.5) * in / out; input taps j
 * with |j + 0.5 - s| within the (scaled) radius, weights k((j + 0.5 - s) / ks) summed
 * to 1 (ks = in / out when antialiasing a downscale, else 1). ResizeBicubic: Keys
 * a = -0.5 at the four taps around (o + 0.5) * in / out - 0.5, the distance rounded to
 * 1/1024 (its table), taps outside the image given weight 0, weights summed to 1. */
static double ref_kernel(int method, double x)
{
    const double pi = 3.14159265358979323846;
    x = fabs(x);
    switch (method) {
    case TFN_RESIZE_BILINEAR:
        return x < 1 ? 1 - x : 0;
    case TFN_RESIZE_BICUBIC:
        return x >= 2 ? 0 : x >= 1 ? ((-0.5 * x + 2.5) * x - 4) * x + 2
                                   : (1.5 * x - 2.5) * x * x + 1;
    case TFN_RESIZE_MITCHELLCUBIC:
        return x >= 2 ? 0 : x >= 1 ? ((-7.0 / 18 * x + 2) * x - 10.0 / 3) * x + 16.0 / 9
                                   : (7.0 / 6 * x - 2) * x * x + 8.0 / 9;
    case TFN_RESIZE_GAUSSIAN:
        return x >= 1.5 ? 0 : exp(-x * x / (2 * 0.5 * 0.5));
    default: {
        double r = method == TFN_RESIZE_LANCZOS3 ? 3 : 5;
        if (x > r)
            return 0;
        if (x < 1e-9)
            return 1;
        return r * sin(pi * x) * sin(pi * x / r) / (pi * pi * x * x);
    }
    }
}

static double ref_radius(int method)
{
    switch (method) {
    case TFN_RESIZE_BILINEAR:
        return 1;
    case TFN_RESIZE_LANCZOS3:
        return 3;
    case TFN_RESIZE_LANCZOS5:
        return 5;
    case TFN_RESIZE_GAUSSIAN:
        return 1.5;
    default:
        return 2;
    }
}

/* Weights of output coordinate o over the `in` input positions (wt[in]). Returns 0
 * when a tap sits within float rounding of the Gaussian's cut-off (1.5, where its
 * value jumps from 0.011 to 0): single and double precision may then disagree on it. */
static int ref_axis(int method, int aa, uint32_t in, uint32_t out, uint32_t o, double *wt)
{
    int clear = 1;
    for (uint32_t j = 0; j < in; j++)
        wt[j] = 0;
    double sum = 0;
    if (method == TFN_RESIZE_BICUBIC && !aa) {
        double pos = ((double)o + 0.5) * in / out - 0.5, base = floor(pos);
        double d = round((pos - base) * 1024) / 1024;
        for (int t = -1; t <= 2; t++) {
            long j = (long)base + t;
            if (j >= 0 && j < (long)in) {
                wt[j] = ref_kernel(method, (double)t - d);
                sum += wt[j];
            }
        }
    } else {
        double scale = (double)in / out, ks = aa && scale > 1 ? scale : 1;
        double s = ((double)o + 0.5) * scale, r = ref_radius(method) * ks;
        for (uint32_t j = 0; j < in; j++) {
            double dist = (double)j + 0.5 - s;
            if (method == TFN_RESIZE_GAUSSIAN && fabs(fabs(dist / ks) - 1.5) < 1e-4)
                clear = 0;
            if (fabs(dist) <= r) {
                wt[j] = ref_kernel(method, dist / ks);
                sum += wt[j];
            }
        }
    }
    for (uint32_t j = 0; j < in; j++)
        wt[j] /= sum;
    return clear;
}

static void test_resize_filters(void)
{
    static const int methods[] = {TFN_RESIZE_BICUBIC, TFN_RESIZE_LANCZOS3, TFN_RESIZE_LANCZOS5,
                                  TFN_RESIZE_GAUSSIAN, TFN_RESIZE_MITCHELLCUBIC,
                                  TFN_RESIZE_BILINEAR};
    static const uint32_t sizes[][4] = {{37, 53, 10, 20}, {10, 20, 37, 53}, {16, 16, 16, 16},
                                        {1, 7, 5, 3}, {50, 40, 7, 45}, {3, 2, 9, 1}};
    tfn_error err;
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        uint32_t h = sizes[t][0], w = sizes[t][1], oh = sizes[t][2], ow = sizes[t][3];
        int c = t % 2 ? 1 : 3;
        uint8_t *src = make_scene(h, w, c, (unsigned)t + 3);
        float *srcf = malloc((size_t)h * w * (size_t)c * sizeof(float));
        for (size_t i = 0; i < (size_t)h * w * (size_t)c; i++)
            srcf[i] = src[i];
        size_t n = (size_t)oh * ow * (size_t)c;
        float *dst = malloc(n * sizeof(float)), *dstf = malloc(n * sizeof(float));
        double *wy = malloc(h * sizeof(double)), *wx = malloc(w * sizeof(double));
        for (size_t m = 0; m < sizeof methods / sizeof methods[0]; m++) {
            for (int aa = 0; aa < 2; aa++) {
                if (methods[m] == TFN_RESIZE_BILINEAR && !aa)
                    continue; /* resize.c's ResizeBilinear, tested above */
                int code = methods[m] | (aa ? TFN_RESIZE_ANTIALIAS : 0);
                REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, h, w, c, dst, oh, ow, code,
                                         &err) == TFN_OK);
                REQUIRE(tfn_image_resize(srcf, TFN_IMAGE_FLOAT32, h, w, c, dstf, oh, ow, code,
                                         &err) == TFN_OK);
                CHECK(memcmp(dst, dstf, n * sizeof(float)) == 0);
                double worst = 0;
                for (uint32_t y = 0; y < oh; y++) {
                    int clear_y = ref_axis(methods[m], aa, h, oh, y, wy);
                    for (uint32_t x = 0; x < ow; x++) {
                        if (!(ref_axis(methods[m], aa, w, ow, x, wx) && clear_y))
                            continue;
                        for (int k = 0; k < c; k++) {
                            double want = 0;
                            for (uint32_t i = 0; i < h; i++)
                                for (uint32_t j = 0; j < w; j++)
                                    want += wy[i] * wx[j] *
                                            src[((size_t)i * w + j) * (size_t)c + (size_t)k];
                            double d = fabs(dst[((size_t)y * ow + x) * (size_t)c + (size_t)k] -
                                            want);
                            worst = d > worst ? d : worst;
                        }
                    }
                }
                if (!(worst < 1e-2))
                    fprintf(stderr, "method %d aa %d %ux%u -> %ux%u: off by %g\n", methods[m],
                            aa, h, w, oh, ow, worst);
                CHECK(worst < 1e-2);
            }
        }
        free(wx);
        free(wy);
        free(dstf);
        free(dst);
        free(srcf);
        free(src);
    }
    /* antialias changes nothing for nearest and area, as in TensorFlow */
    uint8_t *src = make_scene(30, 20, 3, 1);
    float a[8 * 6 * 3], b[8 * 6 * 3];
    REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, a, 8, 6, TFN_RESIZE_AREA, &err) ==
            TFN_OK);
    REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, b, 8, 6,
                             TFN_RESIZE_AREA | TFN_RESIZE_ANTIALIAS, &err) == TFN_OK);
    CHECK(memcmp(a, b, sizeof a) == 0);
    uint8_t na[8 * 6 * 3], nb[8 * 6 * 3];
    REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, na, 8, 6, TFN_RESIZE_NEAREST,
                             &err) == TFN_OK);
    REQUIRE(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, nb, 8, 6,
                             TFN_RESIZE_NEAREST | TFN_RESIZE_ANTIALIAS, &err) == TFN_OK);
    CHECK(memcmp(na, nb, sizeof na) == 0);
    /* unknown methods */
    CHECK_EQ_INT(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, a, 8, 6, 8, &err),
                 TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, a, 8, 6,
                                  9 | TFN_RESIZE_ANTIALIAS, &err), TFN_E_INVALID_ARG);
    CHECK_EQ_INT(tfn_image_resize(src, TFN_IMAGE_UINT8, 30, 20, 3, a, 8, 6, -1, &err),
                 TFN_E_INVALID_ARG);
    free(src);
}

/* JPEG + plain bilinear in a batch is resized as the rows are decoded: equal to the
 * full decode then tfn_image_resize, for tiny and thin images, up and down, 1 and 3
 * channels, normalised, NHWC and NCHW, uint8, a crop, and a truncated file recovered. */
static void test_streamed_bilinear(void)
{
    static const uint32_t in_sizes[][2] = {{1, 1}, {1, 7}, {7, 1}, {3, 5}, {17, 9}, {40, 300},
                                           {64, 48}};
    static const uint32_t out_sizes[][2] = {{1, 1}, {5, 3}, {32, 24}, {100, 80}};
    tfn_error err;
    int recovered = 0; /* truncated files compared */
    for (size_t a = 0; a < sizeof in_sizes / sizeof in_sizes[0]; a++) {
        uint32_t h = in_sizes[a][0], w = in_sizes[a][1];
        uint8_t *px = make_scene(h, w, 3, (unsigned)a + 5);
        size_t len;
        uint8_t *jpg = encode_jpeg(px, h, w, 3, 90, &len);
        REQUIRE(jpg != NULL);
        for (size_t b = 0; b < sizeof out_sizes / sizeof out_sizes[0]; b++) {
            for (int variant = 0; variant < 6; variant++) {
                uint32_t oh = out_sizes[b][0], ow = out_sizes[b][1];
                tfn_image_batch_options bo;
                memset(&bo, 0, sizeof bo);
                bo.decode.channels = variant == 1 ? 1 : 3;
                bo.height = oh;
                bo.width = ow;
                bo.dtype = variant == 3 ? TFN_IMAGE_UINT8 : TFN_IMAGE_FLOAT32;
                bo.nchw = variant == 2;
                bo.num_threads = 1;
                if (variant == 0 || variant == 2) {
                    for (int k = 0; k < 3; k++) {
                        bo.sub[k] = 10.0f * (float)k;
                        bo.mul[k] = 255.0f - (float)k;
                    }
                    bo.divide = variant == 0;
                }
                size_t len_in = len;
                if (variant == 4) { /* the top-left part of the image */
                    if (h < 2 || w < 2)
                        continue;
                    bo.decode.crop = 1;
                    bo.decode.crop_height = (int)h / 2;
                    bo.decode.crop_width = (int)w / 2 + 1;
                }
                if (variant == 5) { /* cut short, recovered */
                    if (h < 17)
                        continue;
                    len_in = len * 2 / 3;
                    bo.decode.try_recover_truncated = 1;
                }
                int c = bo.decode.channels;
                size_t n = (size_t)oh * ow * (size_t)c;
                size_t esize = bo.dtype == TFN_IMAGE_UINT8 ? 1 : 4;
                uint8_t *got = malloc(n * esize);
                const void *ptrs[1] = {jpg};
                int brc = tfn_image_decode_resize_batch(ptrs, &len_in, 1, &bo, got, n * esize,
                                                        NULL, &err);
                tfn_image_info info;
                if (tfn_image_probe(jpg, len_in, &bo.decode, &info, &err) != TFN_OK) {
                    CHECK(brc != TFN_OK); /* cut inside the headers */
                    free(got);
                    continue;
                }
                size_t full = (size_t)info.out_height * info.out_width * (size_t)c;
                uint8_t *one = malloc(full);
                float *ref = malloc(n * sizeof(float));
                int rc1 = tfn_image_decode(jpg, len_in, &bo.decode, one, full, &info, &err);
                CHECK_EQ_INT(brc, rc1); /* a cut too early fails both ways */
                if (rc1 != TFN_OK || brc != TFN_OK) {
                    free(ref);
                    free(one);
                    free(got);
                    continue;
                }
                REQUIRE(tfn_image_resize(one, TFN_IMAGE_UINT8, info.out_height, info.out_width, c,
                                         ref, oh, ow, TFN_RESIZE_BILINEAR, &err) == TFN_OK);
                int same = 1;
                for (size_t p = 0; p < (size_t)oh * ow; p++)
                    for (size_t k = 0; k < (size_t)c; k++) {
                        float v = ref[p * (size_t)c + k];
                        if (variant == 0)
                            v = (v - bo.sub[k]) / bo.mul[k];
                        else if (variant == 2)
                            v = (v - bo.sub[k]) * bo.mul[k];
                        if (variant == 3) {
                            uint8_t u = !(v > 0.0f) ? 0 : v >= 255.0f ? 255 : (uint8_t)v;
                            same &= got[p * (size_t)c + k] == u;
                        } else {
                            size_t at = variant == 2 ? k * (size_t)oh * ow + p
                                                     : p * (size_t)c + k;
                            same &= ((const float *)(const void *)got)[at] == v;
                        }
                    }
                if (!same)
                    fprintf(stderr, "  %ux%u -> %ux%u variant %d differs\n", h, w, oh, ow,
                            variant);
                CHECK(same);
                recovered += variant == 5;
                free(ref);
                free(one);
                free(got);
            }
        }
        tfn_image_free(jpg);
        free(px);
    }
    CHECK(recovered > 0);
    /* 2 channels are refused by the decoders' rule (TensorFlow's: 0, 1, 3 or 4) */
    uint8_t *px = make_scene(9, 8, 1, 1), *jpg;
    size_t jpg_len;
    jpg = encode_jpeg(px, 9, 8, 1, 90, &jpg_len);
    REQUIRE(jpg != NULL);
    tfn_image_batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.decode.channels = 2;
    bo.height = bo.width = 4;
    bo.num_threads = 1;
    float out2[4 * 4 * 2];
    const void *ptrs[1] = {jpg};
    CHECK_EQ_INT(tfn_image_decode_resize_batch(ptrs, &jpg_len, 1, &bo, out2, sizeof out2, NULL,
                                               &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "`channels` must be 0, 1, 3 or 4") != NULL);
    tfn_image_free(jpg);
    free(px);
}

enum { NIMG = 12 };

static void test_batches(void)
{
    const void *data[NIMG];
    size_t lens[NIMG];
    uint8_t *owned[NIMG];
    for (int i = 0; i < NIMG; i++) {
        uint32_t h = 40 + (uint32_t)i * 3, w = 50 + (uint32_t)i * 5;
        uint8_t *px = make_scene(h, w, 3, (unsigned)i);
        tfn_error err;
        if (i % 3 == 2) {
            REQUIRE(tfn_image_encode_png(px, h, w, 3, 8, 1, &owned[i], &lens[i], &err) == TFN_OK);
        } else {
            owned[i] = encode_jpeg(px, h, w, 3, 85, &lens[i]);
            REQUIRE(owned[i] != NULL);
        }
        data[i] = owned[i];
        free(px);
    }
    /* Decode batch == one at a time, for 1, 2 and 5 threads. */
    for (int threads = 1; threads <= 5; threads += 2) {
        uint8_t *pixels[NIMG];
        tfn_image_info infos[NIMG];
        int32_t status[NIMG];
        tfn_error err;
        REQUIRE(tfn_image_decode_batch(data, lens, NIMG, NULL, TFN_IMAGE_RAISE, threads, pixels,
                                       infos, status, &err) == TFN_OK);
        for (int i = 0; i < NIMG; i++) {
            size_t n = (size_t)infos[i].out_height * infos[i].out_width * 3;
            uint8_t *one = malloc(n);
            tfn_image_info info;
            CHECK_EQ_INT(tfn_image_decode(data[i], lens[i], NULL, one, n, &info, &err), TFN_OK);
            CHECK(memcmp(one, pixels[i], n) == 0);
            CHECK_EQ_INT(status[i], TFN_OK);
            free(one);
            tfn_image_free(pixels[i]);
        }
    }
    /* Fused batch == decode then resize one by one (float32, /255, NHWC and NCHW). */
    tfn_image_batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.decode.channels = 3;
    bo.height = 32;
    bo.width = 24;
    bo.dtype = TFN_IMAGE_FLOAT32;
    for (int k = 0; k < 3; k++)
        bo.mul[k] = 255.0f;
    bo.divide = 1;
    bo.num_threads = 3;
    size_t per = 32 * 24 * 3;
    float *batch = malloc(NIMG * per * sizeof(float));
    float *nchw = malloc(NIMG * per * sizeof(float));
    tfn_error err;
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch,
                                          NIMG * per * sizeof(float), NULL, &err) == TFN_OK);
    bo.nchw = 1;
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, nchw,
                                          NIMG * per * sizeof(float), NULL, &err) == TFN_OK);
    float *ref = malloc(per * sizeof(float));
    for (int i = 0; i < NIMG; i++) {
        tfn_image_info info;
        REQUIRE(tfn_image_probe(data[i], lens[i], NULL, &info, &err) == TFN_OK);
        size_t n = (size_t)info.out_height * info.out_width * 3;
        uint8_t *one = malloc(n);
        REQUIRE(tfn_image_decode(data[i], lens[i], NULL, one, n, &info, &err) == TFN_OK);
        REQUIRE(tfn_image_resize(one, TFN_IMAGE_UINT8, info.out_height, info.out_width, 3, ref,
                                 32, 24, TFN_RESIZE_BILINEAR, &err) == TFN_OK);
        int same = 1, same_t = 1;
        for (size_t p = 0; p < 32 * 24; p++)
            for (size_t k = 0; k < 3; k++) {
                float v = ref[p * 3 + k] / 255.0f;
                same &= batch[i * per + p * 3 + k] == v;
                same_t &= nchw[i * per + k * 32 * 24 + p] == v;
            }
        CHECK(same);
        CHECK(same_t);
        free(one);
    }
    /* Area in the fused batch == decode, then tfn_image_resize with the area method. */
    {
        bo.nchw = 0;
        bo.method = TFN_RESIZE_AREA;
        REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch,
                                              NIMG * per * sizeof(float), NULL, &err) == TFN_OK);
        int all_same = 1;
        for (int i = 0; i < NIMG; i++) {
            tfn_image_info info;
            REQUIRE(tfn_image_probe(data[i], lens[i], NULL, &info, &err) == TFN_OK);
            size_t n = (size_t)info.out_height * info.out_width * 3;
            uint8_t *one = malloc(n);
            REQUIRE(tfn_image_decode(data[i], lens[i], NULL, one, n, &info, &err) == TFN_OK);
            REQUIRE(tfn_image_resize(one, TFN_IMAGE_UINT8, info.out_height, info.out_width, 3, ref,
                                     32, 24, TFN_RESIZE_AREA, &err) == TFN_OK);
            for (size_t p = 0; p < per; p++)
                all_same &= batch[(size_t)i * per + p] == ref[p] / 255.0f;
            free(one);
        }
        CHECK(all_same);
        /* and the filter methods (bicubic's table, a ScaleAndTranslate kernel with
         * antialias), NCHW: the fused batch == decode, resize, / 255 */
        static const int filters[] = {TFN_RESIZE_BICUBIC,
                                      TFN_RESIZE_LANCZOS3 | TFN_RESIZE_ANTIALIAS,
                                      TFN_RESIZE_BILINEAR | TFN_RESIZE_ANTIALIAS};
        bo.nchw = 1;
        for (size_t f = 0; f < sizeof filters / sizeof filters[0]; f++) {
            bo.method = filters[f];
            REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch,
                                                  NIMG * per * sizeof(float), NULL,
                                                  &err) == TFN_OK);
            int equal = 1;
            for (int i = 0; i < NIMG; i++) {
                tfn_image_info info;
                REQUIRE(tfn_image_probe(data[i], lens[i], NULL, &info, &err) == TFN_OK);
                size_t n = (size_t)info.out_height * info.out_width * 3;
                uint8_t *one = malloc(n);
                REQUIRE(tfn_image_decode(data[i], lens[i], NULL, one, n, &info, &err) == TFN_OK);
                REQUIRE(tfn_image_resize(one, TFN_IMAGE_UINT8, info.out_height,
                                         info.out_width, 3, ref, 32, 24, filters[f],
                                         &err) == TFN_OK);
                for (size_t p = 0; p < 32 * 24; p++)
                    for (size_t k = 0; k < 3; k++)
                        equal &= batch[(size_t)i * per + k * 32 * 24 + p] ==
                                 ref[p * 3 + k] / 255.0f;
                free(one);
            }
            CHECK(equal);
        }
        bo.nchw = 0;
        bo.method = TFN_RESIZE_BILINEAR;
        REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch,
                                              NIMG * per * sizeof(float), NULL, &err) == TFN_OK);
    }
    /* bfloat16 output is the float32 output rounded. */
    uint16_t *bf = malloc(NIMG * per * 2);
    bo.nchw = 0;
    bo.dtype = TFN_IMAGE_BFLOAT16;
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, bf, NIMG * per * 2, NULL,
                                          &err) == TFN_OK);
    int bf_ok = 1;
    for (size_t i = 0; i < NIMG * per; i++) {
        uint32_t u = (uint32_t)bf[i] << 16;
        float f;
        memcpy(&f, &u, 4);
        bf_ok &= fabsf(f - batch[i]) <= fabsf(batch[i]) * (1.0f / 256.0f);
    }
    CHECK(bf_ok);
    free(bf);

    /* Damaged records: RAISE names the lowest one; SKIP zero-fills and reports each. */
    const void *bad[NIMG];
    size_t badlens[NIMG];
    memcpy(bad, data, sizeof bad);
    memcpy(badlens, lens, sizeof badlens);
    badlens[4] = lens[4] / 2; /* truncated JPEG */
    badlens[9] = 0;           /* empty */
    bad[7] = "not an image";
    badlens[7] = 12;
    bo.dtype = TFN_IMAGE_FLOAT32;
    int32_t status[NIMG];
    for (int threads = 1; threads <= 4; threads += 3) {
        bo.num_threads = threads;
        bo.on_error = TFN_IMAGE_RAISE;
        CHECK_EQ_INT(tfn_image_decode_resize_batch(bad, badlens, NIMG, &bo, batch,
                                                   NIMG * per * sizeof(float), status, &err),
                     TFN_E_TRUNCATED);
        CHECK_EQ_INT(err.record_index, 4);
        CHECK(strncmp(err.msg, "record 4: truncated JPEG", 24) == 0);
        bo.on_error = TFN_IMAGE_SKIP;
        CHECK_EQ_INT(tfn_image_decode_resize_batch(bad, badlens, NIMG, &bo, batch,
                                                   NIMG * per * sizeof(float), status, &err),
                     TFN_OK);
        for (int i = 0; i < NIMG; i++) {
            int expect_bad = i == 4 || i == 7 || i == 9;
            CHECK_EQ_INT(status[i] != TFN_OK, expect_bad);
            if (expect_bad) {
                int zero = 1;
                for (size_t p = 0; p < per; p++)
                    zero &= batch[(size_t)i * per + p] == 0.0f;
                CHECK(zero);
            }
        }
        CHECK_EQ_INT(status[4], TFN_E_TRUNCATED);
        CHECK_EQ_INT(status[9], TFN_E_INVALID_ARG);
    }
    /* decode_batch under SKIP: per-record errors (empty, not an image, truncated) leave
     * NULL blocks and statuses; the call succeeds. Under RAISE nothing stays allocated. */
    {
        uint8_t *pixels[NIMG];
        tfn_image_info infos[NIMG];
        CHECK_EQ_INT(tfn_image_decode_batch(bad, badlens, NIMG, NULL, TFN_IMAGE_SKIP, 3, pixels,
                                            infos, status, &err), TFN_OK);
        for (int i = 0; i < NIMG; i++) {
            int expect_bad = i == 4 || i == 7 || i == 9;
            CHECK_EQ_INT(pixels[i] == NULL, expect_bad);
            CHECK_EQ_INT(status[i] != TFN_OK, expect_bad);
            tfn_image_free(pixels[i]);
        }
        CHECK_EQ_INT(status[9], TFN_E_INVALID_ARG);
        CHECK_EQ_INT(tfn_image_decode_batch(bad, badlens, NIMG, NULL, TFN_IMAGE_RAISE, 3, pixels,
                                            infos, status, &err), TFN_E_TRUNCATED);
        CHECK_EQ_INT(err.record_index, 4);
        int all_null = 1;
        for (int i = 0; i < NIMG; i++)
            all_null &= pixels[i] == NULL;
        CHECK(all_null);
    }
    /* Output too small. */
    CHECK_EQ_INT(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch, 10, NULL, &err),
                 TFN_E_BUF_TOO_SMALL);
    /* DCT scaling: same shape, values close to the full decode. */
    bo.on_error = TFN_IMAGE_RAISE;
    bo.dct_scale = 1;
    bo.height = 12;
    bo.width = 10;
    float *small = malloc(NIMG * 12 * 10 * 3 * sizeof(float));
    float *small_ref = malloc(NIMG * 12 * 10 * 3 * sizeof(float));
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, small,
                                          NIMG * 360 * sizeof(float), NULL, &err) == TFN_OK);
    bo.dct_scale = 0;
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, small_ref,
                                          NIMG * 360 * sizeof(float), NULL, &err) == TFN_OK);
    double diff = 0;
    for (size_t i = 0; i < NIMG * 360; i++)
        diff += fabs(small[i] - small_ref[i]);
    CHECK(diff / (NIMG * 360) < 0.05); /* in [0, 1] units */
    free(small);
    free(small_ref);

    /* Resize batch of decoded images == the fused batch. */
    uint8_t *pixels[NIMG];
    tfn_image_info infos[NIMG];
    REQUIRE(tfn_image_decode_batch(data, lens, NIMG, NULL, TFN_IMAGE_RAISE, 2, pixels, infos,
                                   NULL, &err) == TFN_OK);
    const uint8_t *cpx[NIMG];
    uint32_t hs[NIMG], ws[NIMG];
    for (int i = 0; i < NIMG; i++) {
        cpx[i] = pixels[i];
        hs[i] = infos[i].out_height;
        ws[i] = infos[i].out_width;
    }
    bo.height = 32;
    bo.width = 24;
    bo.num_threads = 2;
    float *rb = malloc(NIMG * per * sizeof(float));
    REQUIRE(tfn_image_resize_batch(cpx, hs, ws, 3, NIMG, &bo, rb, NIMG * per * sizeof(float),
                                   &err) == TFN_OK);
    REQUIRE(tfn_image_decode_resize_batch(data, lens, NIMG, &bo, batch,
                                          NIMG * per * sizeof(float), NULL, &err) == TFN_OK);
    CHECK(memcmp(rb, batch, NIMG * per * sizeof(float)) == 0);
    for (int i = 0; i < NIMG; i++)
        tfn_image_free(pixels[i]);
    free(rb);
    free(ref);
    free(batch);
    free(nchw);
    for (int i = 0; i < NIMG; i++)
        tfn_image_free(owned[i]);
}

int main(void)
{
    RUN(test_jpeg_roundtrip);
    RUN(test_jpeg_crop);
    RUN(test_png_roundtrip);
    RUN(test_bmp);
    RUN(test_damaged_inputs);
    RUN(test_resize);
    RUN(test_resize_filters);
    RUN(test_streamed_bilinear);
    RUN(test_batches);
    return harness_finish();
}
