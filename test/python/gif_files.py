"""GIF files built byte by byte for the tests (and the fuzz seeds): frames at any
offset and size, local or global colour tables, transparency, interlacing, and the
frames TensorFlow's DecodeGif makes of them (the reference the decoder is held to).

Pillow cannot write most of these cases (it re-optimises frames as it likes), hence a
writer of our own. Its LZW stream never grows the code table (a clear code every 250
codes keeps every code 9 bits wide), which any GIF decoder reads."""
import struct

import numpy as np

_MIN_CODE_SIZE = 8


def _lzw(indices):
    clear, end = 1 << _MIN_CODE_SIZE, (1 << _MIN_CODE_SIZE) + 1
    width = _MIN_CODE_SIZE + 1
    out, acc, nbits = bytearray(), 0, 0

    def put(code):
        nonlocal acc, nbits
        acc |= code << nbits
        nbits += width
        while nbits >= 8:
            out.append(acc & 0xFF)
            acc >>= 8
            nbits -= 8

    put(clear)
    for k, i in enumerate(indices):
        if k and k % 250 == 0:
            put(clear)
        put(int(i))
    put(end)
    if nbits:
        out.append(acc & 0xFF)
    return bytes(out)


def _sub_blocks(data):
    out = bytearray()
    for k in range(0, len(data), 255):
        chunk = data[k:k + 255]
        out += bytes([len(chunk)]) + chunk
    return bytes(out + b"\x00")


def _table(palette):
    """(size bits, table bytes) of a colour table padded to a power of two >= 2."""
    pal = np.asarray(palette, np.uint8).reshape(-1, 3)
    bits = max(1, int(np.ceil(np.log2(max(len(pal), 2)))))
    padded = np.zeros((1 << bits, 3), np.uint8)
    padded[:len(pal)] = pal
    return bits - 1, padded.tobytes()


class Frame:
    """One image of a GIF: `indices` (h, w) into `palette` (local) or the global one."""

    def __init__(self, indices, left=0, top=0, palette=None, transparent=None,
                 interlace=False, disposal=0):
        self.indices = np.asarray(indices, np.uint8)
        self.left, self.top = left, top
        self.palette = None if palette is None else np.asarray(palette, np.uint8)
        self.transparent = transparent
        self.interlace = interlace
        self.disposal = disposal


def gif_bytes(frames, palette=None, screen=None, trailer=True):
    """A GIF89a file. `screen` (width, height) is the logical screen the header
    declares (default: the first frame's size)."""
    h0, w0 = frames[0].indices.shape
    sw, sh = screen or (w0, h0)
    out = bytearray(b"GIF89a" + struct.pack("<HH", sw, sh))
    if palette is not None:
        bits, table = _table(palette)
        out += bytes([0x80 | 0x70 | bits, 0, 0]) + table
    else:
        out += bytes([0x70, 0, 0])
    for f in frames:
        if f.transparent is not None or f.disposal:
            flags = (f.disposal << 2) | (1 if f.transparent is not None else 0)
            out += bytes([0x21, 0xF9, 4, flags, 0, 0, f.transparent or 0, 0])
        h, w = f.indices.shape
        flags = 0x40 if f.interlace else 0
        table = b""
        if f.palette is not None:
            bits, table = _table(f.palette)
            flags |= 0x80 | bits
        out += b"," + struct.pack("<HHHHB", f.left, f.top, w, h, flags) + table
        rows = f.indices
        if f.interlace:
            order = [*range(0, h, 8), *range(4, h, 8), *range(2, h, 4), *range(1, h, 2)]
            rows = rows[order]
        out += bytes([_MIN_CODE_SIZE]) + _sub_blocks(_lzw(rows.reshape(-1)))
    if trailer:
        out += b";"
    return bytes(out)


def tf_frames(frames, palette=None, all_frames=True):
    """What TensorFlow's DecodeGif gives for `frames`: a canvas as wide and high as the
    widest and highest frame; each frame drawn on a copy of the previous one (black for
    the first), skipping its transparent pixels, clipped to the canvas."""
    width = max(f.indices.shape[1] for f in frames)
    height = max(f.indices.shape[0] for f in frames)
    out = np.zeros((len(frames), height, width, 3), np.uint8)
    for k, f in enumerate(frames):
        if k:
            out[k] = out[k - 1]
        pal = np.asarray(f.palette if f.palette is not None else palette, np.uint8)
        h, w = f.indices.shape
        for y in range(h):
            for x in range(w):
                cy, cx = f.top + y, f.left + x
                if cy >= height or cx >= width:
                    continue
                i = int(f.indices[y, x])
                if i == f.transparent:
                    continue
                out[k, cy, cx] = pal[i]
    return out if all_frames else out[0]
