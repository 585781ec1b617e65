/* test_image_gif.c - lib/image's GIF decoder on files built here byte by byte: frame
 * composition (a patch, transparency, black where the first frame does not reach),
 * the canvas as large as the largest frame, the frame modes (first, all, still,
 * refuse), prefixes of a file (the complete frames, or a clean error), a huge declared
 * frame refused before any raster is allocated, and GIF in the fused batch. */
#include "harness.h"
#include "tfnano.h"

#include <stdlib.h>

typedef struct gif_buf {
    uint8_t b[4096];
    size_t n;
} gif_buf;

static void put(gif_buf *g, const void *p, size_t n)
{
    memcpy(g->b + g->n, p, n);
    g->n += n;
}

static void put_u8(gif_buf *g, unsigned v)
{
    g->b[g->n++] = (uint8_t)v;
}

static void put_u16(gif_buf *g, unsigned v)
{
    put_u8(g, v & 0xff);
    put_u8(g, v >> 8);
}

/* 8-bit LZW with a clear code before the table would grow past 9-bit codes. */
static void put_pixels(gif_buf *g, const uint8_t *idx, size_t n)
{
    uint8_t data[1024];
    size_t len = 0;
    uint32_t acc = 0;
    int nbits = 0;
#define CODE(c)                                                                             \
    do {                                                                                    \
        acc |= (uint32_t)(c) << nbits;                                                     \
        nbits += 9;                                                                         \
        while (nbits >= 8) {                                                                \
            data[len++] = (uint8_t)(acc & 0xff);                                            \
            acc >>= 8;                                                                      \
            nbits -= 8;                                                                     \
        }                                                                                   \
    } while (0)
    CODE(256);
    for (size_t i = 0; i < n; i++) {
        if (i && i % 250 == 0)
            CODE(256);
        CODE(idx[i]);
    }
    CODE(257);
#undef CODE
    if (nbits)
        data[len++] = (uint8_t)acc;
    put_u8(g, 8);
    for (size_t at = 0; at < len; at += 255) {
        size_t k = len - at < 255 ? len - at : 255;
        put_u8(g, (unsigned)k);
        put(g, data + at, k);
    }
    put_u8(g, 0);
}

static const uint8_t PALETTE[4][3] = {{0, 0, 0}, {200, 10, 20}, {30, 220, 40}, {50, 60, 240}};

static void put_header(gif_buf *g, unsigned sw, unsigned sh)
{
    g->n = 0;
    put(g, "GIF89a", 6);
    put_u16(g, sw);
    put_u16(g, sh);
    put_u8(g, 0x80 | 0x70 | 1); /* a global table of 4 colours */
    put_u8(g, 0);
    put_u8(g, 0);
    put(g, PALETTE, sizeof PALETTE);
}

static void put_frame(gif_buf *g, unsigned left, unsigned top, unsigned w, unsigned h,
                      const uint8_t *idx, int transparent)
{
    if (transparent >= 0) {
        const uint8_t gce[8] = {0x21, 0xF9, 4, 1, 0, 0, (uint8_t)transparent, 0};
        put(g, gce, sizeof gce);
    }
    put_u8(g, ',');
    put_u16(g, left);
    put_u16(g, top);
    put_u16(g, w);
    put_u16(g, h);
    put_u8(g, 0);
    put_pixels(g, idx, (size_t)w * h);
}

/* Frame 0: 3 x 4, all index 1 but a transparent 0 at (0, 0). Frame 1: 2 x 2 at (2, 1),
 * colours 2 and 3 and one transparent pixel. The logical screen says 9 x 9; the canvas
 * is 4 wide and 3 high (frame 0, the largest). */
static size_t build_animation(gif_buf *g)
{
    static const uint8_t f0[12] = {0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    static const uint8_t f1[4] = {2, 3, 0, 2};
    put_header(g, 9, 9);
    put_frame(g, 0, 0, 4, 3, f0, 0);
    put_frame(g, 2, 1, 2, 2, f1, 0);
    put_u8(g, ';');
    return g->n;
}

static void expect_pixel(const uint8_t *img, uint32_t w, uint32_t y, uint32_t x, int colour)
{
    const uint8_t *p = img + ((size_t)y * w + x) * 3;
    const uint8_t black[3] = {0, 0, 0};
    const uint8_t *want = colour < 0 ? black : PALETTE[colour];
    CHECK(p[0] == want[0] && p[1] == want[1] && p[2] == want[2]);
}

static void test_frames_composed(void)
{
    gif_buf g;
    size_t len = build_animation(&g);
    CHECK_EQ_INT(tfn_image_format_of(g.b, len), TFN_IMAGE_GIF);
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    o.gif = TFN_GIF_ALL;
    tfn_image_info info;
    tfn_error err;
    REQUIRE(tfn_image_probe(g.b, len, &o, &info, &err) == TFN_OK);
    CHECK_EQ_INT(info.frames, 2);
    CHECK_EQ_INT(info.out_height, 3);
    CHECK_EQ_INT(info.out_width, 4);
    CHECK_EQ_INT(info.out_channels, 3);
    uint8_t out[2 * 3 * 4 * 3];
    CHECK_EQ_INT(tfn_image_decode(g.b, len, &o, out, sizeof out - 1, &info, &err),
                 TFN_E_BUF_TOO_SMALL);
    REQUIRE(tfn_image_decode(g.b, len, &o, out, sizeof out, &info, &err) == TFN_OK);
    expect_pixel(out, 4, 0, 0, -1); /* transparent on the first frame: black */
    expect_pixel(out, 4, 0, 1, 1);
    expect_pixel(out, 4, 2, 3, 1);
    const uint8_t *f1 = out + 3 * 4 * 3;
    expect_pixel(f1, 4, 0, 0, -1);  /* not covered: the previous frame's */
    expect_pixel(f1, 4, 1, 2, 2);
    expect_pixel(f1, 4, 1, 3, 3);
    expect_pixel(f1, 4, 2, 2, 1);   /* transparent: the previous frame's */
    expect_pixel(f1, 4, 2, 3, 2);

    o.gif = TFN_GIF_FIRST; /* the first frame only, same canvas */
    uint8_t first[3 * 4 * 3];
    REQUIRE(tfn_image_decode(g.b, len, &o, first, sizeof first, &info, &err) == TFN_OK);
    CHECK_EQ_INT(info.frames, 1);
    CHECK(memcmp(first, out, sizeof first) == 0);
}

static void test_modes_and_errors(void)
{
    gif_buf g;
    size_t len = build_animation(&g);
    tfn_image_decode_options o;
    memset(&o, 0, sizeof o);
    tfn_image_info info;
    tfn_error err;
    uint8_t out[256];
    o.gif = TFN_GIF_STILL;
    CHECK_EQ_INT(tfn_image_decode(g.b, len, &o, out, sizeof out, &info, &err),
                 TFN_E_INVALID_ARG);
    CHECK(strcmp(err.msg, "Got 2 frames, but animated gifs can only be decoded by "
                          "tf.io.decode_gif or tf.io.decode_image") == 0);
    o.gif = TFN_GIF_REFUSE;
    CHECK_EQ_INT(tfn_image_probe(g.b, len, &o, &info, &err), TFN_E_INVALID_ARG);
    CHECK(strstr(err.msg, "expand_animations=False") != NULL);
    o.gif = 7;
    CHECK_EQ_INT(tfn_image_probe(g.b, len, &o, &info, &err), TFN_E_INVALID_ARG);
    o.gif = TFN_GIF_FIRST;
    o.channels = 4;
    CHECK_EQ_INT(tfn_image_probe(g.b, len, &o, &info, &err), TFN_E_INVALID_ARG);
    CHECK(strcmp(err.msg, "channels must be 0 or 3 for GIF, got 4") == 0);
    o.channels = 3;
    REQUIRE(tfn_image_probe(g.b, len, &o, &info, &err) == TFN_OK);

    /* A file cut inside its first frame fails with a message naming the size; cut
     * later, it gives the frames read in full (as TensorFlow 2.21). */
    o.gif = TFN_GIF_ALL;
    size_t ok_from = 0;
    for (size_t cut = 0; cut < len; cut++) {
        int rc = tfn_image_decode(g.b, cut, &o, out, sizeof out, &info, &err);
        if (rc == TFN_OK) {
            if (!ok_from)
                ok_from = cut;
            CHECK(info.frames == (cut == len - 1 ? 2u : 1u));
            continue;
        }
        CHECK(ok_from == 0); /* no failure after a success */
        CHECK(rc == TFN_E_TRUNCATED || rc == TFN_E_CORRUPT || rc == TFN_E_INVALID_ARG);
        CHECK(err.msg[0] != '\0');
    }
    CHECK(ok_from > 6 + 7 + 12);
    CHECK_EQ_INT(tfn_image_decode(g.b, 30, &o, out, sizeof out, &info, &err),
                 TFN_E_TRUNCATED);
    CHECK(strcmp(err.msg, "Invalid GIF data (size 30), failed to slurp gif file: Failed to "
                          "read from given file") == 0);
    o.gif = TFN_GIF_FIRST;

    /* 65535 x 65535 declared by a 1 x 1 frame: refused before any raster exists */
    static const uint8_t one[1] = {1};
    put_header(&g, 1, 1);
    put_frame(&g, 0, 0, 1, 1, one, -1);
    put_u8(&g, ';');
    size_t at = 6 + 7 + 12 + 1 + 4; /* header, screen, table, ',', left and top */
    g.b[at] = g.b[at + 1] = g.b[at + 2] = g.b[at + 3] = 0xff;
    CHECK_EQ_INT(tfn_image_probe(g.b, g.n, &o, &info, &err), TFN_E_LIMIT);
    CHECK(strstr(err.msg, "65535x65535") != NULL);
}

static void test_fused_batch(void)
{
    gif_buf g;
    size_t len = build_animation(&g);
    const void *data[1] = {g.b};
    size_t lens[1] = {len};
    tfn_image_batch_options bo;
    memset(&bo, 0, sizeof bo);
    bo.decode.channels = 3;
    bo.height = 3;
    bo.width = 4;
    bo.dtype = TFN_IMAGE_UINT8;
    bo.method = TFN_RESIZE_NEAREST;
    bo.num_threads = 1;
    uint8_t out[3 * 4 * 3], first[3 * 4 * 3];
    tfn_error err;
    REQUIRE(tfn_image_decode_resize_batch(data, lens, 1, &bo, out, sizeof out, NULL, &err) ==
            TFN_OK);
    tfn_image_info info;
    REQUIRE(tfn_image_decode(g.b, len, &bo.decode, first, sizeof first, &info, &err) ==
            TFN_OK);
    CHECK(memcmp(out, first, sizeof out) == 0); /* same size: nearest copies */
    bo.decode.gif = TFN_GIF_ALL;
    CHECK_EQ_INT(tfn_image_decode_resize_batch(data, lens, 1, &bo, out, sizeof out, NULL,
                                               &err),
                 TFN_E_INVALID_ARG);
}

int main(void)
{
    RUN(test_frames_composed);
    RUN(test_modes_and_errors);
    RUN(test_fused_batch);
    return harness_finish();
}
