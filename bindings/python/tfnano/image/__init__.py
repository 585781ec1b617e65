"""tf.image for tfnano: decode, resize, encode and simple augmentation of JPEG / PNG
(and decoding of GIF / BMP) images with TensorFlow's names and values (C, over
libjpeg-turbo, libpng and giflib), plus
``decode_batch``: a whole batch decoded, resized and normalised on worker threads,
NHWC or NCHW, for PyTorch users. See docs/images.md.

Inside a tf.data map function these ops are traced: ``parse -> decode_jpeg -> resize
-> / 255`` followed by ``batch(n)`` runs as one threaded C call per batch."""
from ._color import (adjust_brightness, adjust_contrast, adjust_gamma,  # noqa: F401
                     random_brightness, random_contrast, rgb_to_grayscale, rot90)
from ._hsv import (adjust_hue, adjust_saturation, random_hue,  # noqa: F401
                   random_saturation)
from ._patches import crop_and_resize, extract_patches  # noqa: F401
from ._batch import DecodedBatch, decode_batch, enable_dct_scaling  # noqa: F401
from ._ops import (ResizeMethod, central_crop, convert_image_dtype,  # noqa: F401
                   crop_to_bounding_box, decode_and_crop_jpeg, decode_bmp, decode_gif,
                   decode_image,
                   decode_jpeg, decode_png, encode_jpeg, encode_png, extract_jpeg_shape,
                   flip_left_right, flip_up_down, is_jpeg, pad_to_bounding_box, random_crop,
                   random_flip_left_right, random_flip_up_down, resize,
                   resize_with_crop_or_pad, resize_with_pad)
