"""Writes the seed corpus of fuzz_image_decode (test/fuzz/corpus/image_decode): small
JPEG, PNG and BMP files of every kind the decoders branch on, made with Pillow, and GIFs
built by test/python/gif_files.py (frames at offsets, transparency, local tables,
interlacing), each behind a control byte (see the harness).
Run: build/venv/bin/python test/fuzz/make_image_seeds.py"""
import io
import os

import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from gif_files import Frame, gif_bytes  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "image_decode")


def scene(h, w, c):
    y, x = np.mgrid[0:h, 0:w]
    planes = [(40 + 150 * x / w + 50 * y / h + 20 * k) % 256 for k in range(c)]
    return np.stack(planes, -1).astype(np.uint8)


def save(name, ctl, img, fmt, **kw):
    buf = io.BytesIO()
    img.save(buf, fmt, **kw)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(bytes([ctl]) + buf.getvalue())


def main():
    os.makedirs(OUT, exist_ok=True)
    rgb = Image.fromarray(scene(19, 27, 3))
    save("jpeg_rgb", 0x00, rgb, "JPEG", quality=80)
    save("jpeg_rgb_crop_batch", 0xC3, rgb, "JPEG", quality=60)
    save("jpeg_444_ratio2", 0x24, rgb, "JPEG", quality=90, subsampling=0)
    save("jpeg_progressive", 0x11, rgb, "JPEG", quality=70, progressive=True)
    save("jpeg_gray", 0x82, rgb.convert("L"), "JPEG", quality=75)
    save("jpeg_cmyk", 0x03, rgb.convert("CMYK"), "JPEG", quality=75)
    save("png_rgb", 0x00, rgb, "PNG")
    save("png_rgba", 0x83, Image.fromarray(scene(9, 11, 4)), "PNG")
    pal = rgb.convert("P", palette=Image.ADAPTIVE, colors=8)
    save("png_palette_trns", 0x00, pal, "PNG", transparency=0)
    save("png_gray_1bit", 0x03, rgb.convert("1"), "PNG")
    save("png_interlaced", 0x81, rgb.convert("LA"), "PNG", interlace=1)
    arr16 = (scene(6, 7, 1)[..., 0].astype(np.uint16) * 257)
    save("png_gray16", 0x01, Image.fromarray(arr16), "PNG")
    save("bmp_rgb", 0x00, Image.fromarray(scene(5, 7, 3)), "BMP")
    save("bmp_gray8_batch", 0x83, Image.fromarray(scene(6, 5, 1)[..., 0]), "BMP")
    save("bmp_rgba", 0x03, Image.fromarray(scene(3, 4, 4)), "BMP")
    pal = scene(8, 1, 3)[:, 0]
    idx = (scene(6, 9, 1)[..., 0] % 8).astype(np.uint8)
    gifs = {"gif_one": [Frame(idx)],
            "gif_anim_patch_transparent": [Frame(idx), Frame(idx[:3, :4], left=2, top=1,
                                                             transparent=2)],
            "gif_interlaced_local": [Frame(idx, interlace=True, palette=pal[::-1])],
            "gif_first_partial": [Frame(idx[:4, :5], left=3, top=2, transparent=0),
                                  Frame(idx)]}
    for k, (name, frames) in enumerate(sorted(gifs.items())):
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(bytes([0x80 if k % 2 else 0x00]) + gif_bytes(frames, palette=pal))


if __name__ == "__main__":
    main()
