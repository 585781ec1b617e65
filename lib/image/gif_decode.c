/* gif_decode.c - GIF as TensorFlow's DecodeGif reads it: giflib reads the frames
 * (de-interlaced, local or global colour map), then each frame is composed on a copy of
 * the previous one (transparent pixels and the area the frame does not cover keep the
 * previous frame's pixels, black on the first) into RGB frames as wide and high as
 * the widest and highest frame.
 *
 * The frames are read here through giflib's record calls rather than DGifSlurp, for
 * two reasons: a frame's raster is allocated here, after checking that the rasters
 * stay under the decoders' 2^29-byte limit (DGifSlurp allocates what a 20-byte header
 * declares, up to 2 GiB); and a file cut short keeps the frames that were read in
 * full, as TensorFlow 2.21 does (it logs the error and returns them), failing only
 * when not even the first frame is complete. */
#include "image_internal.h"

#include <gif_lib.h>
#include <stdlib.h>

typedef struct gif_input {
    const uint8_t *p;
    size_t left;
} gif_input;

static int read_input(GifFileType *gif, GifByteType *buf, int size)
{
    gif_input *in = gif->UserData;
    size_t n = size < 0 ? 0 : (size_t)size;
    if (n > in->left)
        n = in->left;
    memcpy(buf, in->p, n);
    in->p += n;
    in->left -= n;
    return (int)n;
}

static int gif_error(tfn_error *err, int code, size_t len, const char *what, int gif_code)
{
    const char *why = GifErrorString(gif_code);
    return tfn__fail(err, code, "Invalid GIF data (size %zu), %s%s", len, what,
                     why ? why : "Unknown error");
}

/* The frames read in full: each one's indices (Width x Height of its descriptor in
 * gif->SavedImages) and transparent index (-1: none). */
typedef struct gif_frames {
    uint32_t count, cap;
    uint8_t **raster;
    int *transparent;
    uint64_t raster_bytes;
} gif_frames;

static void gif_frames_free(gif_frames *fr)
{
    for (uint32_t k = 0; k < fr->count; k++)
        free(fr->raster[k]);
    free(fr->raster);
    free(fr->transparent);
}

static bool gif_frames_grow(gif_frames *fr)
{
    if (fr->count < fr->cap)
        return true;
    uint32_t cap = fr->cap ? fr->cap * 2 : 4;
    uint8_t **r = realloc(fr->raster, cap * sizeof *r);
    if (r)
        fr->raster = r;
    int *t = realloc(fr->transparent, cap * sizeof *t);
    if (t)
        fr->transparent = t;
    if (!r || !t)
        return false;
    fr->cap = cap;
    return true;
}

/* A graphic control extension's transparent index: the first one since the last
 * frame applies to the next frame (as giflib's DGifSavedExtensionToGCB finds it); a
 * block of another length than 4 sets none. */
static int read_extension(GifFileType *gif, int *transparent)
{
    int fn;
    GifByteType *block;
    if (DGifGetExtension(gif, &fn, &block) == GIF_ERROR)
        return GIF_ERROR;
    if (fn == GRAPHICS_EXT_FUNC_CODE && block && *transparent == -2)
        *transparent = block[0] == 4 && (block[1] & 1) ? block[4] : -1;
    while (block) {
        if (DGifGetExtensionNext(gif, &block) == GIF_ERROR)
            return GIF_ERROR;
    }
    return GIF_OK;
}

/* One frame's indices, rows in display order (interlaced files store rows 0, 8, ...,
 * then 4, 12, ..., then 2, 6, ..., then the odd ones). */
static int read_raster(GifFileType *gif, uint8_t *raster, uint32_t w, uint32_t h)
{
    if (!gif->Image.Interlace)
        return DGifGetLine(gif, raster, (int)(w * h));
    static const uint32_t first[4] = {0, 4, 2, 1}, step[4] = {8, 8, 4, 2};
    for (int pass = 0; pass < 4; pass++)
        for (uint32_t y = first[pass]; y < h; y += step[pass])
            if (DGifGetLine(gif, raster + (size_t)y * w, (int)w) == GIF_ERROR)
                return GIF_ERROR;
    return GIF_OK;
}

/* Reads frames until the trailer or the first failure. A failure after at least one
 * complete frame ends the file there, as TensorFlow does; before one, it is the error. */
static int read_frames(GifFileType *gif, size_t len, gif_frames *fr, tfn_error *err)
{
    int transparent = -2; /* -2: no control block seen since the last frame */
    GifRecordType type;
    for (;;) {
        if (DGifGetRecordType(gif, &type) == GIF_ERROR)
            break;
        if (type == TERMINATE_RECORD_TYPE) {
            if (fr->count == 0) {
                gif->Error = D_GIF_ERR_NO_IMAG_DSCR;
                break;
            }
            return TFN_OK;
        }
        if (type == EXTENSION_RECORD_TYPE) {
            if (read_extension(gif, &transparent) == GIF_ERROR)
                break;
            continue;
        }
        if (DGifGetImageDesc(gif) == GIF_ERROR)
            break;
        gif->Error = 0; /* a refusal below carries no giflib code */
        if (gif->Image.Width <= 0 || gif->Image.Height <= 0)
            break; /* what giflib's own reader refuses, with no error code */
        uint32_t w = (uint32_t)gif->Image.Width, h = (uint32_t)gif->Image.Height;
        fr->raster_bytes += (uint64_t)w * h;
        if (fr->raster_bytes >= TFN__IMAGE_MAX_BYTES)
            return tfn__fail(err, TFN_E_LIMIT,
                             "Invalid GIF data (size %zu), frames of up to %ux%u take 2^29 "
                             "bytes or more",
                             len, w, h);
        uint8_t *raster = gif_frames_grow(fr) ? malloc((size_t)w * h) : NULL;
        if (!raster)
            return tfn__fail(err, TFN_E_NOMEM, "out of memory for a GIF frame of %ux%u", w,
                             h);
        if (read_raster(gif, raster, w, h) == GIF_ERROR) {
            free(raster);
            break;
        }
        fr->raster[fr->count] = raster;
        fr->transparent[fr->count] = transparent < 0 ? -1 : transparent;
        fr->count++;
        transparent = -2;
    }
    if (fr->count > 0) /* cut short after whole frames: those frames */
        return TFN_OK;
    const gif_input *in = gif->UserData;
    if (gif->Error == 0 && in->left == 0) /* a read giflib did not report */
        gif->Error = D_GIF_ERR_READ_FAILED;
    return gif_error(err, gif->Error == D_GIF_ERR_READ_FAILED ? TFN_E_TRUNCATED : TFN_E_CORRUPT,
                     len, "failed to slurp gif file: ", gif->Error);
}

/* Frame k composed into dst (w x h x 3), which holds frame k - 1 (or anything, for
 * k == 0). */
static int compose_frame(const GifFileType *gif, const gif_frames *fr, uint32_t k,
                         uint8_t *dst, uint32_t w, uint32_t h, size_t len, tfn_error *err)
{
    const GifImageDesc *d = &gif->SavedImages[k].ImageDesc;
    const uint8_t *raster = fr->raster[k];
    int transparent = fr->transparent[k];
    bool full = d->Left == 0 && d->Top == 0 && (uint32_t)d->Width == w &&
                (uint32_t)d->Height == h;
    if (k == 0 && !full)
        memset(dst, 0, (size_t)w * h * 3);
    const ColorMapObject *map = d->ColorMap ? d->ColorMap : gif->SColorMap;
    if (!map)
        return tfn__fail(err, TFN_E_CORRUPT,
                         "Invalid GIF data (size %zu), missing color map for frame %u", len, k);
    /* The frame's area clipped to the canvas (it may stick out of it). */
    int64_t top = d->Top, left = d->Left;
    int64_t bottom = top + d->Height, right = left + d->Width;
    if (top < 0)
        top = 0;
    if (left < 0)
        left = 0;
    if (bottom > (int64_t)h)
        bottom = h;
    if (right > (int64_t)w)
        right = w;
    for (int64_t y = top; y < bottom; y++) {
        const uint8_t *src = raster + (size_t)(y - d->Top) * (size_t)d->Width;
        uint8_t *row = dst + (size_t)y * w * 3;
        for (int64_t x = left; x < right; x++) {
            int index = src[x - d->Left];
            uint8_t *px = row + (size_t)x * 3;
            if (index == transparent) {
                if (k == 0)
                    px[0] = px[1] = px[2] = 0;
                continue;
            }
            if (index >= map->ColorCount)
                return tfn__fail(err, TFN_E_CORRUPT,
                                 "Invalid GIF data (size %zu), found color index %d outside "
                                 "of color map range %d",
                                 len, index, map->ColorCount);
            px[0] = map->Colors[index].Red;
            px[1] = map->Colors[index].Green;
            px[2] = map->Colors[index].Blue;
        }
    }
    return TFN_OK;
}

/* The output shape (the canvas: the widest and the highest frame) and its limits. */
static int gif_shape(const GifFileType *gif, const gif_frames *fr, size_t len,
                     const tfn_image_decode_options *opt, tfn_image_info *info, tfn_error *err)
{
    uint32_t w = 0, h = 0;
    for (uint32_t k = 0; k < fr->count; k++) {
        const GifImageDesc *d = &gif->SavedImages[k].ImageDesc;
        w = (uint32_t)d->Width > w ? (uint32_t)d->Width : w;
        h = (uint32_t)d->Height > h ? (uint32_t)d->Height : h;
    }
    uint32_t frames = opt->gif == TFN_GIF_ALL ? fr->count : 1;
    info->height = info->out_height = h;
    info->width = info->out_width = w;
    info->components = info->out_channels = 3;
    info->bit_depth = 8;
    info->bytes_per_sample = 1;
    info->frames = frames;
    if ((uint64_t)frames * w * h * 3 >= TFN__IMAGE_MAX_BYTES)
        return tfn__fail(err, TFN_E_LIMIT,
                         "Invalid GIF data (size %zu), %u frames of %ux%u take 2^29 bytes or "
                         "more",
                         len, frames, w, h);
    if (opt->gif == TFN_GIF_STILL && fr->count > 1)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "Got %u frames, but animated gifs can only be decoded by "
                         "tf.io.decode_gif or tf.io.decode_image",
                         fr->count);
    return TFN_OK;
}

int tfn__gif_decode(const uint8_t *data, size_t len, const tfn_image_decode_options *opt,
                    tfn_image_info *info, tfn__image_sink *sink, tfn_error *err)
{
    if (opt->gif == TFN_GIF_REFUSE)
        return tfn__fail(err, TFN_E_INVALID_ARG,
                         "a GIF decodes to 4-D frames with expand_animations=True, where "
                         "this batch needs 3-D images: pass expand_animations=False to "
                         "decode its first frame");
    if (opt->channels != 0 && opt->channels != 3)
        return tfn__fail(err, TFN_E_INVALID_ARG, "channels must be 0 or 3 for GIF, got %d",
                         opt->channels);
    if (opt->crop)
        return tfn__fail(err, TFN_E_INVALID_ARG, "crop is for JPEG only; got a GIF");
    gif_frames fr;
    memset(&fr, 0, sizeof fr);
    gif_input in = {data, len};
    int code = D_GIF_SUCCEEDED;
    GifFileType *gif = DGifOpen(&in, read_input, &code);
    if (!gif)
        return gif_error(err, code == D_GIF_ERR_READ_FAILED ? TFN_E_TRUNCATED : TFN_E_CORRUPT,
                         len, "failed to open gif file: ", code);
    int rc = read_frames(gif, len, &fr, err);
    if (rc == TFN_OK)
        rc = gif_shape(gif, &fr, len, opt, info, err);
    if (rc != TFN_OK || !sink)
        goto done;
    size_t frame_bytes = (size_t)info->out_width * info->out_height * 3;
    uint8_t *dst = sink->get(sink, info, frame_bytes * info->frames, err);
    if (!dst) {
        rc = err ? err->code : TFN_E_NOMEM;
        goto done;
    }
    for (uint32_t k = 0; k < info->frames && rc == TFN_OK; k++) {
        uint8_t *frame = dst + k * frame_bytes;
        if (k > 0)
            memcpy(frame, frame - frame_bytes, frame_bytes);
        rc = compose_frame(gif, &fr, k, frame, info->out_width, info->out_height, len, err);
    }
done:
    gif_frames_free(&fr);
    DGifCloseFile(gif, &code);
    return rc;
}
