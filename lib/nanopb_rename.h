/* nanopb_rename.h - maps nanopb's public symbols to tfn__pb_* (generated from
 * lib/nanopb.syms). Included before every lib/ file so that the nanopb runtime merged
 * into libtfnano (renamed the same way with objcopy) cannot clash with a user's own. */
#ifndef TFN_NANOPB_RENAME_H
#define TFN_NANOPB_RENAME_H
#define pb_close_string_substream tfn__pb_close_string_substream
#define pb_decode tfn__pb_decode
#define pb_decode_bool tfn__pb_decode_bool
#define pb_decode_ex tfn__pb_decode_ex
#define pb_decode_fixed32 tfn__pb_decode_fixed32
#define pb_decode_fixed64 tfn__pb_decode_fixed64
#define pb_decode_svarint tfn__pb_decode_svarint
#define pb_decode_tag tfn__pb_decode_tag
#define pb_decode_varint tfn__pb_decode_varint
#define pb_decode_varint32 tfn__pb_decode_varint32
#define pb_default_field_callback tfn__pb_default_field_callback
#define pb_encode tfn__pb_encode
#define pb_encode_ex tfn__pb_encode_ex
#define pb_encode_fixed32 tfn__pb_encode_fixed32
#define pb_encode_fixed64 tfn__pb_encode_fixed64
#define pb_encode_string tfn__pb_encode_string
#define pb_encode_submessage tfn__pb_encode_submessage
#define pb_encode_svarint tfn__pb_encode_svarint
#define pb_encode_tag tfn__pb_encode_tag
#define pb_encode_tag_for_field tfn__pb_encode_tag_for_field
#define pb_encode_varint tfn__pb_encode_varint
#define pb_field_iter_begin tfn__pb_field_iter_begin
#define pb_field_iter_begin_const tfn__pb_field_iter_begin_const
#define pb_field_iter_begin_extension tfn__pb_field_iter_begin_extension
#define pb_field_iter_begin_extension_const tfn__pb_field_iter_begin_extension_const
#define pb_field_iter_find tfn__pb_field_iter_find
#define pb_field_iter_find_extension tfn__pb_field_iter_find_extension
#define pb_field_iter_next tfn__pb_field_iter_next
#define pb_get_encoded_size tfn__pb_get_encoded_size
#define pb_istream_from_buffer tfn__pb_istream_from_buffer
#define pb_make_string_substream tfn__pb_make_string_substream
#define pb_ostream_from_buffer tfn__pb_ostream_from_buffer
#define pb_read tfn__pb_read
#define pb_release tfn__pb_release
#define pb_skip_field tfn__pb_skip_field
#define pb_write tfn__pb_write
#endif
