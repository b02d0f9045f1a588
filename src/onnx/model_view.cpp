// ONNX ModelProto read in place (see model_view.h for what is read and how).
#include "model_view.h"

#include <onnx/onnx_pb.h>

#include <cstring>

#include "wire.h"

namespace rooflens::onnx_view {
namespace {

using wire::Reader;
using wire::WireType;

// Helpers that read one field's value when its wire type is the expected one; a field with
// another wire type is skipped (protobuf keeps it as an unknown field).
bool read_varint(Reader& r, WireType wt, uint32_t f, uint64_t* v, bool* matched) {
  *matched = wt == wire::kVarint;
  return *matched ? r.varint(v) : r.skip(wt, f);
}

bool read_len(Reader& r, WireType wt, uint32_t f, std::string_view* v, bool* matched = nullptr) {
  const bool m = wt == wire::kLen;
  if (matched) *matched = m;
  return m ? r.bytes(v) : r.skip(wt, f);
}

template <typename T>
bool read_int(Reader& r, WireType wt, uint32_t f, T* out) {
  uint64_t v;
  bool m;
  if (!read_varint(r, wt, f, &v, &m)) return false;
  if (m) *out = static_cast<T>(v);  // int32 fields: the low 32 bits, as protobuf does
  return true;
}

// A repeated scalar field whose elements have wire type `elem` (varint, fixed32, fixed64):
// packed (one kLen payload) or one element.
bool read_scalars(Reader& r, WireType wt, uint32_t f, WireType elem, Scalars* s) {
  std::string_view v;
  if (wt == wire::kLen) {
    if (!r.bytes(&v)) return false;
    if (elem == wire::kVarint ? !wire::varints_well_formed(v) : v.size() % (elem == wire::kFixed32 ? 4 : 8) != 0)
      return false;
  } else if (wt == elem) {
    if (!r.scalar_bytes(elem, &v)) return false;
  } else {
    return r.skip(wt, f);
  }
  if (!v.empty()) s->chunks.push_back(v);
  return true;
}

bool parse_graph(std::string_view bytes, Graph* g, int depth);

// A message field the importer does not read is still checked as protobuf would (its
// parser rejects a malformed sub-message): the generated class parses the payload. These
// fields are rare (training info, functions, sparse tensors, non-tensor types), so the cost
// does not matter.
template <typename Message>
bool skip_message(Reader& r, WireType wt, uint32_t f) {
  std::string_view v;
  if (wt != wire::kLen) return r.skip(wt, f);
  if (!r.bytes(&v)) return false;
  Message m;
  return m.ParseFromArray(v.data(), static_cast<int>(v.size()));
}

// Loops over the fields of a message, calling `on_field(reader, field, wire type)`.
template <typename F>
bool for_fields(std::string_view bytes, int depth, F&& on_field) {
  if (depth > wire::kMaxDepth) return false;
  Reader r(bytes);
  uint32_t f;
  WireType wt;
  while (!r.done()) {
    if (!r.tag(&f, &wt) || wt == wire::kEndGroup) return false;
    if (!on_field(r, f, wt)) return false;
  }
  return true;
}

bool parse_tensor(std::string_view bytes, Tensor* t, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    std::string_view v;
    bool m;
    switch (f) {
      case 1: {  // dims: one unpacked element (how exporters write them), or packed
        if (wt == wire::kVarint) {
          uint64_t d;
          if (!r.varint(&d)) return false;
          t->dims.push_back(static_cast<int64_t>(d));
          return true;
        }
        Scalars s;
        if (!read_scalars(r, wt, f, wire::kVarint, &s)) return false;
        for (auto c : s.chunks) {
          Reader cr(c);
          uint64_t d;
          while (!cr.done() && cr.varint(&d)) t->dims.push_back(static_cast<int64_t>(d));
        }
        return true;
      }
      case 2: return read_int(r, wt, f, &t->data_type);
      case 4: return read_scalars(r, wt, f, wire::kFixed32, &t->float_data);
      case 5: return read_scalars(r, wt, f, wire::kVarint, &t->int32_data);
      case 7: return read_scalars(r, wt, f, wire::kVarint, &t->int64_data);
      case 10: return read_scalars(r, wt, f, wire::kFixed64, &t->double_data);
      case 11: {  // uint64_data: not read, checked
        Scalars unused;
        return read_scalars(r, wt, f, wire::kVarint, &unused);
      }
      case 8: return read_len(r, wt, f, &t->name);
      case 9:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (m) t->raw_data = v, t->has_raw_data = true;
        return true;
      case 13: {  // external_data: StringStringEntryProto {key = 1, value = 2}
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        std::pair<std::string_view, std::string_view> kv;
        if (!for_fields(v, depth + 1, [&](Reader& er, uint32_t ef, WireType ewt) {
              return ef == 1   ? read_len(er, ewt, ef, &kv.first)
                     : ef == 2 ? read_len(er, ewt, ef, &kv.second)
                               : er.skip(ewt, ef);
            }))
          return false;
        auto& e = t->external_ref;
        if (kv.first == "location")
          e.location = kv.second, e.has_location = true;
        else if (kv.first == "offset")
          e.offset = kv.second, e.has_offset = true;
        else if (kv.first == "length")
          e.length = kv.second, e.has_length = true;
        return true;
      }
      case 3: return skip_message<onnx::TensorProto_Segment>(r, wt, f);
      case 14: {  // data_location: DEFAULT = 0, EXTERNAL = 1 (other values are ignored)
        uint64_t loc;
        if (!read_varint(r, wt, f, &loc, &m)) return false;
        if (m && loc <= 1) t->external = loc == 1;
        return true;
      }
      default: return r.skip(wt, f);
    }
  });
}

bool parse_attribute(std::string_view bytes, Attribute* a, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    std::string_view v;
    bool m;
    switch (f) {
      case 1: return read_len(r, wt, f, &a->name);
      case 20: {
        int64_t type = -1;
        if (!read_int(r, wt, f, &type)) return false;
        if (type >= kUndefined && type <= kTypeProtos) a->type = static_cast<int32_t>(type);
        return true;
      }
      case 2: {
        if (wt != wire::kFixed32) return r.skip(wt, f);
        uint32_t bits;
        if (!r.fixed32(&bits)) return false;
        std::memcpy(&a->f, &bits, 4);
        return true;
      }
      case 3: return read_int(r, wt, f, &a->i);
      case 4: return read_len(r, wt, f, &a->s);
      case 5:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        if (!a->t) a->t = std::make_unique<Tensor>();
        return parse_tensor(v, a->t.get(), depth + 1);
      case 6:
      case 11: {  // g, graphs: checked, not kept
        if (!read_len(r, wt, f, &v, &m)) return false;
        Graph sub;
        return !m || parse_graph(v, &sub, depth + 1);
      }
      case 7: return read_scalars(r, wt, f, wire::kFixed32, &a->floats);
      case 8: return read_scalars(r, wt, f, wire::kVarint, &a->ints);
      case 9:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (m) a->strings.push_back(v);
        return true;
      case 10: {  // tensors: checked, not kept
        if (!read_len(r, wt, f, &v, &m)) return false;
        Tensor t;
        return !m || parse_tensor(v, &t, depth + 1);
      }
      case 14:
      case 15: return skip_message<onnx::TypeProto>(r, wt, f);
      case 22:
      case 23: return skip_message<onnx::SparseTensorProto>(r, wt, f);
      default: return r.skip(wt, f);
    }
  });
}

bool parse_dim(std::string_view bytes, Dim* d, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    if (f == 1) {
      uint64_t v;
      bool m;
      if (!read_varint(r, wt, f, &v, &m)) return false;
      if (m) d->value = static_cast<int64_t>(v), d->has_value = true, d->has_param = false;
      return true;
    }
    if (f == 2) {
      std::string_view v;
      bool m;
      if (!read_len(r, wt, f, &v, &m)) return false;
      if (m) d->param = v, d->has_param = true, d->has_value = false;
      return true;
    }
    return r.skip(wt, f);
  });
}

// TypeProto.Tensor {elem_type = 1, shape = 2 (TensorShapeProto {dim = 1})}.
bool parse_tensor_type(std::string_view bytes, ValueInfo* vi, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    if (f == 1) return read_int(r, wt, f, &vi->elem_type);
    if (f != 2) return r.skip(wt, f);
    std::string_view shape;
    bool m;
    if (!read_len(r, wt, f, &shape, &m)) return false;
    if (!m) return true;
    vi->has_shape = true;
    return for_fields(shape, depth + 1, [&](Reader& sr, uint32_t sf, WireType swt) {
      std::string_view dim;
      bool dm;
      if (sf != 1) return sr.skip(swt, sf);
      if (!read_len(sr, swt, sf, &dim, &dm)) return false;
      if (!dm) return true;
      vi->dims.emplace_back();
      return parse_dim(dim, &vi->dims.back(), depth + 2);
    });
  });
}

bool parse_value_info(std::string_view bytes, ValueInfo* vi, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    if (f == 1) return read_len(r, wt, f, &vi->name);
    if (f != 2) return r.skip(wt, f);
    std::string_view type;
    bool m;
    if (!read_len(r, wt, f, &type, &m)) return false;
    if (!m) return true;
    // TypeProto: a oneof of tensor_type (1), sequence (4), map (5), sparse tensor (8),
    // optional (9); only tensor types are read.
    return for_fields(type, depth + 1, [&](Reader& tr, uint32_t tf, WireType twt) {
      std::string_view v;
      bool tm;
      if (tf == 1) {
        if (!read_len(tr, twt, tf, &v, &tm)) return false;
        if (!tm) return true;
        if (!vi->has_tensor_type) vi->elem_type = 0, vi->has_shape = false, vi->dims.clear();
        vi->has_tensor_type = true;
        return parse_tensor_type(v, vi, depth + 2);
      }
      if (tf == 4 || tf == 5 || tf == 8 || tf == 9) {
        if (twt == wire::kLen) vi->has_tensor_type = false;
        switch (tf) {
          case 4: return skip_message<onnx::TypeProto_Sequence>(tr, twt, tf);
          case 5: return skip_message<onnx::TypeProto_Map>(tr, twt, tf);
          case 8: return skip_message<onnx::TypeProto_SparseTensor>(tr, twt, tf);
          default: return skip_message<onnx::TypeProto_Optional>(tr, twt, tf);
        }
      }
      return tr.skip(twt, tf);
    });
  });
}

bool parse_node(std::string_view bytes, Node* n, int depth) {
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    std::string_view v;
    bool m;
    switch (f) {
      case 1:
      case 2:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (m) (f == 1 ? n->inputs : n->outputs).push_back(v);
        return true;
      case 3: return read_len(r, wt, f, &n->name);
      case 4: return read_len(r, wt, f, &n->op_type);
      case 7: return read_len(r, wt, f, &n->domain);
      case 5:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        n->attributes.emplace_back();
        return parse_attribute(v, &n->attributes.back(), depth + 1);
      default: return r.skip(wt, f);
    }
  });
}

// Counts the graph's repeated fields first, so that their vectors are allocated once.
void reserve_graph(std::string_view bytes, Graph* g) {
  size_t counts[14] = {};
  Reader r(bytes);
  uint32_t f;
  WireType wt;
  while (!r.done() && r.tag(&f, &wt) && r.skip(wt, f))
    if (f < 14 && wt == wire::kLen) ++counts[f];
  g->nodes.reserve(g->nodes.size() + counts[1]);
  g->initializers.reserve(g->initializers.size() + counts[5]);
  g->inputs.reserve(g->inputs.size() + counts[11]);
  g->outputs.reserve(g->outputs.size() + counts[12]);
  g->value_info.reserve(g->value_info.size() + counts[13]);
}

bool parse_graph(std::string_view bytes, Graph* g, int depth) {
  reserve_graph(bytes, g);
  return for_fields(bytes, depth, [&](Reader& r, uint32_t f, WireType wt) {
    std::string_view v;
    bool m;
    switch (f) {
      case 2: return read_len(r, wt, f, &g->name);
      case 1:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        g->nodes.emplace_back();
        return parse_node(v, &g->nodes.back(), depth + 1);
      case 5:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        g->initializers.emplace_back();
        return parse_tensor(v, &g->initializers.back(), depth + 1);
      case 11:
      case 12:
      case 13: {
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        auto& list = f == 11 ? g->inputs : f == 12 ? g->outputs : g->value_info;
        list.emplace_back();
        return parse_value_info(v, &list.back(), depth + 1);
      }
      case 14: return skip_message<onnx::TensorAnnotation>(r, wt, f);
      case 15: return skip_message<onnx::SparseTensorProto>(r, wt, f);
      default: return r.skip(wt, f);
    }
  });
}

}  // namespace

bool parse_model(std::string_view bytes, Model* model) {
  return for_fields(bytes, 0, [&](Reader& r, uint32_t f, WireType wt) {
    std::string_view v;
    bool m;
    switch (f) {
      case 1: return read_int(r, wt, f, &model->ir_version);
      case 7:
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        model->has_graph = true;
        return parse_graph(v, &model->graph, 1);
      case 8: {  // OperatorSetIdProto {domain = 1, version = 2}
        if (!read_len(r, wt, f, &v, &m)) return false;
        if (!m) return true;
        std::pair<std::string_view, int64_t> op{{}, 0};
        if (!for_fields(v, 1, [&](Reader& orr, uint32_t of, WireType owt) {
              return of == 1   ? read_len(orr, owt, of, &op.first)
                     : of == 2 ? read_int(orr, owt, of, &op.second)
                               : orr.skip(owt, of);
            }))
          return false;
        model->opset_imports.push_back(op);
        return true;
      }
      case 14: return skip_message<onnx::StringStringEntryProto>(r, wt, f);
      case 20: return skip_message<onnx::TrainingInfoProto>(r, wt, f);
      case 25: return skip_message<onnx::FunctionProto>(r, wt, f);
      default: return r.skip(wt, f);
    }
  });
}

size_t count_varints(const Scalars& s) {
  size_t n = 0;
  for (auto c : s.chunks) n += wire::count_varints(c);
  return n;
}

size_t count_fixed(const Scalars& s, size_t width) {
  size_t n = 0;
  for (auto c : s.chunks) n += c.size() / width;
  return n;
}

void decode_varints(const Scalars& s, std::vector<int64_t>* out, bool as_int32) {
  for (auto c : s.chunks) {
    Reader r(c);
    uint64_t v;
    while (!r.done() && r.varint(&v))
      out->push_back(as_int32 ? static_cast<int64_t>(static_cast<int32_t>(v)) : static_cast<int64_t>(v));
  }
}

void decode_floats(const Scalars& s, std::vector<double>* out) {
  for (auto c : s.chunks)
    for (size_t i = 0; i + 4 <= c.size(); i += 4) {
      float x;
      std::memcpy(&x, c.data() + i, 4);
      out->push_back(x);
    }
}

void decode_doubles(const Scalars& s, std::vector<double>* out) {
  for (auto c : s.chunks)
    for (size_t i = 0; i + 8 <= c.size(); i += 8) {
      double x;
      std::memcpy(&x, c.data() + i, 8);
      out->push_back(x);
    }
}

}  // namespace rooflens::onnx_view
