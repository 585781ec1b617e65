"""``tf.signal`` for audio input pipelines: ``frame``, ``hann_window`` /
``hamming_window``, ``fft`` / ``ifft``, ``rfft`` / ``irfft`` and ``stft``. Shapes, dtypes
and framing follow TensorFlow (frame is exact); FFT values come from numpy's FFT and the
windows from numpy's float32 cosine, so they may differ from
TensorFlow's in the last bits (float32 rounding of a different summation order)."""
import numpy as np

from .._tensor import as_tensor
from ..ops._common import to_array

_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128}


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Frames of `frame_length` every `frame_step` samples along `axis` (the last by
    default); with pad_end the signal is padded with `pad_value` so every sample is in a
    frame."""
    x = to_array(signal)
    frame_length, frame_step = int(to_array(frame_length)), int(to_array(frame_step))
    ax = int(axis) % x.ndim
    n = x.shape[ax]
    if pad_end:
        frames = -(-n // frame_step) if n else 0
        need = max(0, (frames - 1) * frame_step + frame_length - n) if frames else 0
        pad = [(0, 0)] * x.ndim
        pad[ax] = (0, need)
        x = np.pad(x, pad, constant_values=np.asarray(pad_value).astype(x.dtype))
        n = x.shape[ax]
    else:
        frames = max(0, 1 + (n - frame_length) // frame_step) if n >= frame_length else 0
    moved = np.moveaxis(x, ax, -1)
    idx = np.arange(frames)[:, None] * frame_step + np.arange(frame_length)[None, :]
    out = moved[..., idx] if frames else np.zeros(moved.shape[:-1] + (0, frame_length),
                                                  x.dtype)
    # frames and frame_length take the place of `axis`
    out = np.moveaxis(out, (-2, -1), (ax, ax + 1)) if ax != x.ndim - 1 else out
    return as_tensor(np.ascontiguousarray(out))


def _raised_cosine(length, periodic, dtype, a, b):
    from .. import dtypes
    npd = dtypes.as_dtype(dtype).as_numpy_dtype
    length = int(length)
    if length == 1:
        return as_tensor(np.ones(1, npd))
    even = 1 - length % 2
    n = npd(length + int(bool(periodic)) * even - 1)
    count = np.arange(length).astype(npd)
    arg = npd(2 * np.pi) * count / n
    return as_tensor((npd(a) - npd(b) * np.cos(arg)).astype(npd))


def hann_window(window_length, periodic=True, dtype="float32", name=None):
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype="float32", name=None):
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def _preferred(x, dtype):
    """convert_to_tensor(x, preferred_dtype=dtype): a value that is not a tensor yet
    becomes `dtype` when it can (numpy float64 arrays become float32, as in TF)."""
    from .._tensor import Tensor
    a = to_array(x)
    if not isinstance(x, Tensor) and a.dtype.kind == np.dtype(dtype).kind:
        return a.astype(dtype)
    return a


def _real(x, what):
    a = _preferred(x, np.float32)
    if a.dtype not in _COMPLEX_OF:
        raise ValueError("%s requires tf.float32 or tf.float64 inputs, got: %s"
                         % (what, as_tensor(a)))
    return a


def rfft(input_tensor, fft_length=None, name=None):
    """FFT of a real signal over its last axis: fft_length // 2 + 1 complex bins."""
    a = _real(input_tensor, "RFFT")
    n = a.shape[-1] if fft_length is None else int(np.asarray(fft_length).reshape(-1)[0])
    return as_tensor(np.fft.rfft(a, n=n, axis=-1).astype(_COMPLEX_OF[a.dtype]))


def irfft(input_tensor, fft_length=None, name=None):
    a = _preferred(input_tensor, np.complex64)
    real = np.float32 if a.dtype == np.complex64 else np.float64
    n = 2 * (a.shape[-1] - 1) if fft_length is None else int(
        np.asarray(fft_length).reshape(-1)[0])
    return as_tensor(np.fft.irfft(a, n=n, axis=-1).astype(real))


def _complex(x):
    a = to_array(x)
    if a.dtype.kind != "c":
        from .. import errors
        from .. import dtypes
        raise errors.InvalidArgumentError(
            None, None, "Value for attr 'Tcomplex' of %s is not in the list of allowed "
            "values: complex64, complex128" % dtypes.as_dtype(a.dtype).name.replace(
                "float32", "float").replace("float64", "double"))
    return a


def fft(input, name=None):  # noqa: A002 - TensorFlow's name
    a = _complex(input)
    return as_tensor(np.fft.fft(a, axis=-1).astype(a.dtype))


def ifft(input, name=None):  # noqa: A002
    a = _complex(input)
    return as_tensor(np.fft.ifft(a, axis=-1).astype(a.dtype))


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """Short-time Fourier transform: framed, windowed (periodic Hann by default), rfft
    of `fft_length` (the next power of two >= frame_length by default)."""
    x = to_array(signals)
    if x.dtype not in _COMPLEX_OF:
        x = x.astype(np.float32)
    frame_length = int(to_array(frame_length))
    if fft_length is None:
        fft_length = 1 << int(np.ceil(np.log2(frame_length))) if frame_length > 1 else 1
    frames = np.asarray(frame(x, frame_length, frame_step, pad_end=pad_end))
    if window_fn is not None:
        win = np.asarray(window_fn(frame_length, dtype=x.dtype.name))
        frames = frames * win
    return rfft(frames.astype(x.dtype), [int(fft_length)])


__all__ = ["frame", "hann_window", "hamming_window", "rfft", "irfft", "fft", "ifft", "stft"]
