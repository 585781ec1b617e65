"""``tf.audio.decode_wav``: 16-bit PCM WAV files to float32 samples in [-1, 1), with
TensorFlow's header checks, channel / sample padding rules and error texts."""
import collections
import struct

import numpy as np

from .. import errors
from .._tensor import as_tensor

DecodeWav = collections.namedtuple("DecodeWav", ["audio", "sample_rate"])

# Chunks TensorFlow skips between "WAVE" and "fmt ".
_SKIPPABLE = {b"JUNK", b"bext", b"iXML", b"qlty", b"mext", b"levl", b"link", b"axml"}
_INT32_MAX = 2 ** 31 - 1


def _bad(msg):
    return errors.invalid(msg)


class _Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise _bad("Data too short when trying to read string")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def u16(self):
        return struct.unpack("<H", self.take(2))[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def expect(self, text):
        found = self.take(len(text))
        if found != text:
            raise _bad("Header mismatch: Expected %s but found %s"
                       % (text.decode(), found.decode("latin-1")))


def _decode(data):
    r = _Reader(data)
    r.expect(b"RIFF")
    r.u32()
    r.expect(b"WAVE")
    chunk = r.take(4)
    while chunk != b"fmt ":
        if chunk not in _SKIPPABLE:
            raise _bad("Unexpected field %s" % chunk.decode("latin-1"))
        r.take(r.u32())
        chunk = r.take(4)
    fmt_size = r.u32()
    if fmt_size not in (16, 18):
        raise _bad("Bad format chunk size for WAV: Expected 16 or 18, but got%d" % fmt_size)
    audio_format = r.u16()
    if audio_format != 1:
        raise _bad("Bad audio format for WAV: Expected 1 (PCM), but got%d" % audio_format)
    channels = r.u16()
    if channels < 1:
        raise _bad("Bad number of channels for WAV: Expected at least 1, but got %d"
                   % channels)
    rate = r.u32()
    bytes_per_second = r.u32()
    block = r.u16()
    bits = r.u16()
    if bits != 16:
        raise _bad("Can only read 16-bit WAV files, but received %d" % bits)
    want_block = (bits * channels + 7) // 8
    if block != want_block:
        raise _bad("Bad bytes per sample in WAV header: Expected %d but got %d"
                   % (want_block, block))
    if bytes_per_second != block * rate:
        raise _bad("Bad bytes per second in WAV header: Expected %d but got %d "
                   "(sample_rate=%d, bytes_per_sample=%d)"
                   % (block * rate, bytes_per_second, rate, block))
    if fmt_size == 18:
        r.pos += 2
    samples = None
    while r.pos < len(data):
        chunk_id = r.take(4)
        size = r.u32()
        if size > _INT32_MAX:
            raise _bad("WAV data chunk '%s' is too large: %d bytes, but the limit is %d"
                       % (chunk_id.decode("latin-1"), size, _INT32_MAX))
        if chunk_id == b"data":
            if samples is not None:
                raise _bad("More than one data chunk found in WAV")
            frames = size // block
            raw = r.take(2 * frames * channels)
            samples = np.frombuffer(raw, "<i2").astype(np.float32).reshape(frames, channels)
            samples *= np.float32(1.0 / 32768)
        else:
            r.pos += size
    if samples is None:
        raise _bad("No data chunk found in WAV")
    return samples, rate


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio float32 [samples, channels], sample_rate int32). A file with fewer
    channels than `desired_channels` repeats its last one; fewer samples than
    `desired_samples` are padded with zeros, more are cut."""
    a = np.asarray(contents.numpy() if hasattr(contents, "numpy") else contents, dtype=object)
    if a.shape != ():
        raise _bad("contents must be scalar, got shape [%s]"
                   % ",".join(str(d) for d in a.shape))
    data = a.item()
    data = data.encode() if isinstance(data, str) else bytes(data)
    decoded, rate = _decode(data)
    if desired_channels < -1:
        raise _bad("desired_channels must be >= -1, got %d" % desired_channels)
    if desired_samples < -1:
        raise _bad("desired_samples must be >= -1, got %d" % desired_samples)
    n = decoded.shape[0] if desired_samples == -1 else desired_samples
    ch = decoded.shape[1] if desired_channels == -1 else desired_channels
    out = np.zeros((n, ch), np.float32)
    keep = min(n, decoded.shape[0])
    if ch and keep:
        src = np.minimum(np.arange(ch), decoded.shape[1] - 1)
        out[:keep] = decoded[:keep][:, src]
    return DecodeWav(as_tensor(out), as_tensor(np.asarray(rate, np.int32)))


__all__ = ["decode_wav"]
