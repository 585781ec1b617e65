// peer_protobuf.cc - the C++ libprotobuf peer (see peer_protobuf.h). Built by
// test/bench/run.sh against Debian's libprotobuf-dev, with example.pb.{h,cc} that
// protoc generates from lib/example/proto/example.proto at build time.
#include "peer_protobuf.h"

#include <cstring>
#include <limits>
#include <memory>
#include <new>
#include <string>

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/stubs/common.h>

#include "example.pb.h"

namespace {

// A 4 MiB first block: large enough for a W1 message (and W2's small parts), so a
// warm loop of Reset() + build/parse does not touch malloc for the arena itself.
constexpr size_t kArenaBlock = 4u << 20;

google::protobuf::ArenaOptions arena_options(char *block)
{
    google::protobuf::ArenaOptions o;
    o.initial_block = block;
    o.initial_block_size = kArenaBlock;
    return o;
}

}  // namespace

struct peer_ctx {
    std::unique_ptr<char[]> block{new char[kArenaBlock]};
    google::protobuf::Arena arena{arena_options(block.get())};
    std::string int_keys[W1_NINT];
    std::string label_key{w1_label_key};
    std::string scalar_keys[W2_NSCALAR];
    std::string image_key{w2_image_key};
    std::string name_key{w2_name_key};
    const char *error = "";

    peer_ctx()
    {
        for (int j = 0; j < W1_NINT; j++)
            int_keys[j] = w1_int_keys[j];
        for (int j = 0; j < W2_NSCALAR; j++)
            scalar_keys[j] = w2_scalar_keys[j];
    }
    int fail(const char *why)
    {
        error = why;
        return -1;
    }
};

using tensorflow::Example;
using tensorflow::Feature;
using FeatureMap = google::protobuf::Map<std::string, Feature>;

extern "C" peer_ctx *peer_new(void)
{
    return new (std::nothrow) peer_ctx();
}

extern "C" void peer_free(peer_ctx *p)
{
    delete p;
}

extern "C" const char *peer_last_error(const peer_ctx *p)
{
    return p->error;
}

extern "C" const char *peer_version(void)
{
    static const std::string v =
        google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION);
    return v.c_str();
}

extern "C" int peer_w1_serialize(peer_ctx *p, const w1_data *d, size_t i0, size_t n,
                                 int deterministic, uint8_t *dst, size_t cap, uint64_t *offsets)
{
    size_t pos = 0;
    offsets[0] = 0;
    for (size_t i = i0; i < i0 + n; i++) {
        p->arena.Reset();
        Example *ex = google::protobuf::Arena::CreateMessage<Example>(&p->arena);
        FeatureMap *fmap = ex->mutable_features()->mutable_feature();
        for (int j = 0; j < W1_NINT; j++) {
            const int64_t *row = w1_row(d, (size_t)j, i);
            auto *v = (*fmap)[p->int_keys[j]].mutable_int64_list()->mutable_value();
            v->Reserve(W1_MAXLEN);
            v->Add(row, row + W1_MAXLEN);
        }
        const float *labels = w1_label_row(d, i);
        auto *fv = (*fmap)[p->label_key].mutable_float_list()->mutable_value();
        fv->Reserve(W1_LABELS);
        fv->Add(labels, labels + W1_LABELS);

        size_t size = ex->ByteSizeLong();
        if (size > cap - pos)
            return p->fail("serialize: destination too small");
        uint8_t *out = dst + pos;
        if (deterministic) {
            google::protobuf::io::ArrayOutputStream aos(out, static_cast<int>(size));
            google::protobuf::io::CodedOutputStream cos(&aos);
            cos.SetSerializationDeterministic(true);
            ex->SerializeWithCachedSizes(&cos);
            if (cos.HadError())
                return p->fail("serialize: CodedOutputStream error");
        } else {
            ex->SerializeWithCachedSizesToArray(out);
        }
        pos += size;
        offsets[i - i0 + 1] = pos;
    }
    return 0;
}

extern "C" int peer_w1_parse(peer_ctx *p, const tfn_bytes *records, size_t n,
                             int32_t *const ints[W1_NINT], float *labels)
{
    for (size_t i = 0; i < n; i++) {
        p->arena.Reset();
        Example *ex = google::protobuf::Arena::CreateMessage<Example>(&p->arena);
        if (!ex->ParseFromArray(records[i].data, static_cast<int>(records[i].len)))
            return p->fail("ParseFromArray failed");
        const FeatureMap &fmap = ex->features().feature();
        for (int j = 0; j < W1_NINT; j++) {
            auto it = fmap.find(p->int_keys[j]);
            if (it == fmap.end())
                return p->fail("missing int64 feature");
            if (it->second.kind_case() != Feature::kInt64List)
                return p->fail("int64 feature of the wrong kind");
            const auto &v = it->second.int64_list().value();
            if (v.size() != W1_MAXLEN)
                return p->fail("int64 feature of the wrong size");
            int32_t *out = ints[j] + i * W1_MAXLEN;
            const int64_t *src = v.data();
            for (int k = 0; k < W1_MAXLEN; k++) {
                int64_t x = src[k];
                if (x < std::numeric_limits<int32_t>::min() ||
                    x > std::numeric_limits<int32_t>::max())
                    return p->fail("int64 value out of int32 range");
                out[k] = static_cast<int32_t>(x);
            }
        }
        auto it = fmap.find(p->label_key);
        if (it == fmap.end() || it->second.kind_case() != Feature::kFloatList ||
            it->second.float_list().value_size() != W1_LABELS)
            return p->fail("labels missing, of the wrong kind or size");
        std::memcpy(labels + i * W1_LABELS, it->second.float_list().value().data(),
                    sizeof(float) * W1_LABELS);
    }
    return 0;
}

extern "C" int peer_w1_parse_only(peer_ctx *p, const tfn_bytes *records, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        p->arena.Reset();
        Example *ex = google::protobuf::Arena::CreateMessage<Example>(&p->arena);
        if (!ex->ParseFromArray(records[i].data, static_cast<int>(records[i].len)))
            return p->fail("ParseFromArray failed");
    }
    return 0;
}

// The single bytes value of feature `key`, or nullptr.
static const std::string *one_bytes(const FeatureMap &fmap, const std::string &key)
{
    auto it = fmap.find(key);
    if (it == fmap.end() || it->second.kind_case() != Feature::kBytesList ||
        it->second.bytes_list().value_size() != 1)
        return nullptr;
    return &it->second.bytes_list().value(0);
}

extern "C" int peer_w2_parse(peer_ctx *p, const tfn_bytes *record, uint8_t *image_dst,
                             size_t cap, size_t *image_len, uint8_t *name_dst, size_t name_cap,
                             size_t *name_len, int64_t scalars[W2_NSCALAR])
{
    p->arena.Reset();
    Example *ex = google::protobuf::Arena::CreateMessage<Example>(&p->arena);
    if (!ex->ParseFromArray(record->data, static_cast<int>(record->len)))
        return p->fail("ParseFromArray failed");
    const FeatureMap &fmap = ex->features().feature();
    const std::string *image = one_bytes(fmap, p->image_key);
    const std::string *name = one_bytes(fmap, p->name_key);
    if (!image || !name)
        return p->fail("image or name missing or not one bytes value");
    if (image->size() > cap || name->size() > name_cap)
        return p->fail("image or name longer than its destination");
    std::memcpy(image_dst, image->data(), image->size());
    *image_len = image->size();
    std::memcpy(name_dst, name->data(), name->size());
    *name_len = name->size();
    for (int j = 0; j < W2_NSCALAR; j++) {
        auto it = fmap.find(p->scalar_keys[j]);
        if (it == fmap.end() || it->second.kind_case() != Feature::kInt64List ||
            it->second.int64_list().value_size() != 1)
            return p->fail("scalar missing or not one int64 value");
        scalars[j] = it->second.int64_list().value(0);
    }
    return 0;
}
