/// @file src/io/fields_h5_module.cpp
/// @brief lievi's HDF5 module (liblievi_hdf5.so): the fields.h5 writer and readers with the HDF5 C library
/// (layout: lievi/io/fields_h5.hpp, docs/outputs.md). The library loads it when fields.h5 is first used
/// (src/io/fields_h5_backend.hpp says why); this file is the only one that includes HDF5.
#include "fields_h5_backend.hpp"

#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "lievi/version.hpp"

namespace lievi::io {

namespace {

/// Owns one HDF5 identifier and closes it with the matching H5?close.
class H5Id {
 public:
  using Closer = herr_t (*)(hid_t);
  H5Id() = default;
  H5Id(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  H5Id(H5Id&& o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)), closer_(o.closer_) {}
  H5Id& operator=(H5Id&& o) noexcept {
    if (this != &o) {
      reset();
      id_ = std::exchange(o.id_, H5I_INVALID_HID);
      closer_ = o.closer_;
    }
    return *this;
  }
  H5Id(const H5Id&) = delete;
  H5Id& operator=(const H5Id&) = delete;
  ~H5Id() { reset(); }

  [[nodiscard]] hid_t get() const { return id_; }
  [[nodiscard]] bool valid() const { return id_ >= 0; }
  /// Close now; returns the closer's status (0 when there was nothing to close).
  herr_t reset() {
    herr_t st = 0;
    if (id_ >= 0 && closer_) st = closer_(id_);
    id_ = H5I_INVALID_HID;
    return st;
  }

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

/// Turn off HDF5's printing of its error stack to stderr (we report errors by exceptions).
void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

/// The innermost message of HDF5's current error stack (then cleared), e.g. "unable to open file: ...".
std::string hdf5_detail() {
  std::string msg;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  return msg;
}

/// "fields.h5 <path>: <call> failed for <dataset>: <hdf5 message>".
[[noreturn]] void fail(const std::filesystem::path& path, std::string_view dataset, std::string_view call) {
  std::string m = "fields.h5 " + path.string() + ": " + std::string(call) + " failed";
  if (!dataset.empty()) m += " for " + std::string(dataset);
  const std::string d = hdf5_detail();
  if (!d.empty()) m += ": " + d;
  throw std::runtime_error(m);
}

/// Check an hid_t result and wrap it.
H5Id check_id(hid_t id, H5Id::Closer closer, const std::filesystem::path& path, std::string_view dataset,
              std::string_view call) {
  if (id < 0) fail(path, dataset, call);
  return {id, closer};
}
void check(herr_t st, const std::filesystem::path& path, std::string_view dataset, std::string_view call) {
  if (st < 0) fail(path, dataset, call);
}

std::string slash(const std::string& name) { return !name.empty() && name.front() == '/' ? name : "/" + name; }

/// Scalar fixed-length UTF-8 string attribute `name` = `value` on object `obj`.
void write_string_attribute(hid_t obj, const std::string& name, const std::string& value,
                            const std::filesystem::path& path, std::string_view where) {
  const std::string ctx = std::string(where) + " (attribute " + name + ")";
  H5Id type = check_id(H5Tcopy(H5T_C_S1), H5Tclose, path, ctx, "H5Tcopy");
  check(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), path, ctx, "H5Tset_size");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), path, ctx, "H5Tset_strpad");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), path, ctx, "H5Tset_cset");
  H5Id space = check_id(H5Screate(H5S_SCALAR), H5Sclose, path, ctx, "H5Screate");
  H5Id attr = check_id(H5Acreate2(obj, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, path, ctx, "H5Acreate2");
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  check(H5Awrite(attr.get(), type.get(), padded.data()), path, ctx, "H5Awrite");
  check(attr.reset(), path, ctx, "H5Aclose");
}

/// Scalar float64 attribute `name` = `value` on object `obj`.
void write_double_attribute(hid_t obj, const std::string& name, double value, const std::filesystem::path& path,
                            std::string_view where) {
  const std::string ctx = std::string(where) + " (attribute " + name + ")";
  H5Id space = check_id(H5Screate(H5S_SCALAR), H5Sclose, path, ctx, "H5Screate");
  H5Id attr = check_id(H5Acreate2(obj, name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                       H5Aclose, path, ctx, "H5Acreate2");
  check(H5Awrite(attr.get(), H5T_NATIVE_DOUBLE, &value), path, ctx, "H5Awrite");
  check(attr.reset(), path, ctx, "H5Aclose");
}

constexpr std::size_t kSmallChunkBytes = std::size_t{64} << 10;  ///< target chunk size of small fields
constexpr std::size_t kMaxChunkBytes = std::size_t{1} << 20;     ///< upper bound of a chunk
constexpr hsize_t kTimeChunk = 1024;                             ///< values per chunk of /t

/// Chunk dimensions [snapshots, items, comp...] for a per-snapshot shape (see the header).
std::vector<hsize_t> chunk_dims(const std::vector<std::size_t>& shape) {
  std::size_t snap = sizeof(double);
  for (std::size_t d : shape) snap *= d;
  std::vector<hsize_t> c{1};
  for (std::size_t d : shape) c.push_back(d);
  if (snap < kSmallChunkBytes) {
    c[0] = kSmallChunkBytes / snap;
  } else if (snap > kMaxChunkBytes && !shape.empty()) {
    const std::size_t item = snap / shape[0];  // bytes of one item (all its components)
    c[1] = std::max<std::size_t>(1, kMaxChunkBytes / item);
  }
  return c;
}

std::size_t product(const std::vector<std::size_t>& shape) {
  std::size_t n = 1;
  for (std::size_t d : shape) n *= d;
  return n;
}

void validate(const std::filesystem::path& path, const std::vector<FieldSpec>& fields) {
  auto bad = [&](const std::string& what) {
    throw std::runtime_error("fields.h5 " + path.string() + ": " + what);
  };
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const FieldSpec& s = fields[f];
    if (s.name.empty() || s.name.find('/') != std::string::npos || s.name == "t" || s.name == "s" ||
        s.name == "." || s.name == "..")
      bad("invalid field name '" + s.name + "' (non-empty, no '/', not t or s)");
    for (std::size_t g = 0; g < f; ++g)
      if (fields[g].name == s.name) bad("duplicate field name '" + s.name + "'");
    for (std::size_t d : s.shape)
      if (d == 0) bad("field '" + s.name + "' has a zero extent in its shape");
    for (std::size_t a = 0; a < s.attributes.size(); ++a) {
      const std::string& an = s.attributes[a].first;
      if (an.empty() || an == "description")
        bad("field '" + s.name + "': invalid attribute name '" + an + "' (non-empty, not description)");
      for (std::size_t b = 0; b < a; ++b)
        if (s.attributes[b].first == an) bad("field '" + s.name + "': duplicate attribute '" + an + "'");
    }
  }
}

/// Open file `path` read-only.
H5Id open_read(const std::filesystem::path& path) {
  quiet_hdf5();
  return check_id(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, path, "", "H5Fopen");
}

/// Open attribute `attribute` of object `dataset` ("/" for the root).
H5Id open_attribute(hid_t file, const std::filesystem::path& path, const std::string& dataset,
                    const std::string& attribute, const std::string& ctx) {
  const std::string obj = slash(dataset);
  if (H5Aexists_by_name(file, obj.c_str(), attribute.c_str(), H5P_DEFAULT) <= 0)
    fail(path, ctx, "H5Aexists_by_name (no such object or attribute)");
  return check_id(H5Aopen_by_name(file, obj.c_str(), attribute.c_str(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
                  path, ctx, "H5Aopen_by_name");
}

// --- writer -------------------------------------------------------------------------------------

struct Writer final : detail::H5FileWriter {
  struct Field {
    std::string name;  ///< "/phi"
    std::vector<std::size_t> shape;
    std::size_t count = 0;  ///< values per snapshot
    H5Id dset;
  };
  std::filesystem::path path;
  H5Id file;                  // declared first: destroyed (closed) after the datasets
  H5Id t;
  std::vector<Field> fields;
  std::size_t n = 0;
  bool closed = false;

  Writer() = default;
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;
  /// Closes the file if close() was not called; errors are swallowed here (close() reports them).
  ~Writer() override {
    try {
      close();
    } catch (...) {  // NOLINT(bugprone-empty-catch): a destructor must not throw
    }
  }
  void append(double t, std::span<const std::span<const double>> data) override;
  [[nodiscard]] std::size_t size() const override;
  void close() override;
  void flush() override;

  /// Create an empty [0, shape...] dataset extendible along axis 0.
  H5Id create_extendible(const std::string& name, const std::vector<std::size_t>& shape,
                         const std::vector<hsize_t>& chunk) {
    std::vector<hsize_t> dims{0}, maxdims{H5S_UNLIMITED};
    for (std::size_t d : shape) {
      dims.push_back(d);
      maxdims.push_back(d);
    }
    const int rank = static_cast<int>(dims.size());
    H5Id space = check_id(H5Screate_simple(rank, dims.data(), maxdims.data()), H5Sclose, path, name,
                          "H5Screate_simple");
    H5Id dcpl = check_id(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, path, name, "H5Pcreate");
    check(H5Pset_chunk(dcpl.get(), rank, chunk.data()), path, name, "H5Pset_chunk");
    return check_id(H5Dcreate2(file.get(), name.c_str(), H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, dcpl.get(),
                               H5P_DEFAULT),
                    H5Dclose, path, name, "H5Dcreate2");
  }

  /// Extend `dset` to n + 1 snapshots and write one snapshot of `count` values at index n.
  void write_snapshot(hid_t dset, const std::string& name, const std::vector<std::size_t>& shape,
                      const double* values) {
    std::vector<hsize_t> dims{n + 1}, start{n}, count{1};
    for (std::size_t d : shape) {
      dims.push_back(d);
      start.push_back(0);
      count.push_back(d);
    }
    const int rank = static_cast<int>(dims.size());
    check(H5Dset_extent(dset, dims.data()), path, name, "H5Dset_extent");
    H5Id fspace = check_id(H5Dget_space(dset), H5Sclose, path, name, "H5Dget_space");
    check(H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr), path,
          name, "H5Sselect_hyperslab");
    H5Id mspace = check_id(H5Screate_simple(rank, count.data(), nullptr), H5Sclose, path, name,
                           "H5Screate_simple");
    check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace.get(), fspace.get(), H5P_DEFAULT, values), path, name,
          "H5Dwrite");
  }
};

/// File access of a crash-safe writer: HDF5 evicts no metadata between flushes, so a killed process leaves the
/// metadata of the last flush on disk (raw chunks it wrote since lie beyond or rewrite the same values).
H5Id crash_safe_access(const std::filesystem::path& path) {
  H5Id fapl = check_id(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, path, "", "H5Pcreate");
  H5AC_cache_config_t cfg{};
  cfg.version = H5AC__CURR_CACHE_CONFIG_VERSION;
  check(H5Pget_mdc_config(fapl.get(), &cfg), path, "", "H5Pget_mdc_config");
  cfg.evictions_enabled = false;
  cfg.incr_mode = H5C_incr__off;
  cfg.flash_incr_mode = H5C_flash_incr__off;
  cfg.decr_mode = H5C_decr__off;
  check(H5Pset_mdc_config(fapl.get(), &cfg), path, "", "H5Pset_mdc_config");
  return fapl;
}

std::unique_ptr<detail::H5FileWriter> create(const std::filesystem::path& path, std::span<const double> s,
                                             std::vector<FieldSpec> fields, const std::string& model,
                                             bool crash_safe) {
  quiet_hdf5();
  validate(path, fields);
  auto w = std::make_unique<Writer>();
  Writer& m = *w;
  m.path = path;
  const H5Id fapl = crash_safe ? crash_safe_access(path) : H5Id{};
  m.file = check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, crash_safe ? fapl.get() : H5P_DEFAULT),
                    H5Fclose, path, "", "H5Fcreate");

  write_string_attribute(m.file.get(), "lievi_version", lievi::version, path, "/");
  write_string_attribute(m.file.get(), "model", model, path, "/");

  {  // /s: contiguous, fixed size, written now
    const hsize_t ns = s.size();
    H5Id space = check_id(H5Screate_simple(1, &ns, nullptr), H5Sclose, path, "/s", "H5Screate_simple");
    H5Id ds = check_id(H5Dcreate2(m.file.get(), "/s", H5T_IEEE_F64LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                                  H5P_DEFAULT),
                       H5Dclose, path, "/s", "H5Dcreate2");
    if (ns > 0)
      check(H5Dwrite(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, s.data()), path, "/s",
            "H5Dwrite");
    write_string_attribute(ds.get(), "description", "node positions", path, "/s");
    check(ds.reset(), path, "/s", "H5Dclose");
  }

  m.t = m.create_extendible("/t", {}, {kTimeChunk});
  write_string_attribute(m.t.get(), "description", "output times", path, "/t");

  m.fields.reserve(fields.size());
  for (FieldSpec& spec : fields) {
    Writer::Field f;
    f.name = "/" + spec.name;
    f.shape = std::move(spec.shape);
    f.count = product(f.shape);
    f.dset = m.create_extendible(f.name, f.shape, chunk_dims(f.shape));
    write_string_attribute(f.dset.get(), "description", spec.doc, path, f.name);
    for (const auto& [an, av] : spec.attributes) write_double_attribute(f.dset.get(), an, av, path, f.name);
    m.fields.push_back(std::move(f));
  }
  return w;
}

void Writer::append(double t, std::span<const std::span<const double>> data) {
  Writer& m = *this;
  if (m.closed) throw std::runtime_error("fields.h5 " + m.path.string() + ": append after close()");
  if (data.size() != m.fields.size())
    throw std::runtime_error("fields.h5 " + m.path.string() + ": append got " + std::to_string(data.size()) +
                             " fields, expected " + std::to_string(m.fields.size()));
  for (std::size_t f = 0; f < m.fields.size(); ++f)
    if (data[f].size() != m.fields[f].count)
      throw std::runtime_error("fields.h5 " + m.path.string() + ": append: field " + m.fields[f].name + " got " +
                               std::to_string(data[f].size()) + " values, expected " +
                               std::to_string(m.fields[f].count));
  quiet_hdf5();
  for (std::size_t f = 0; f < m.fields.size(); ++f)
    m.write_snapshot(m.fields[f].dset.get(), m.fields[f].name, m.fields[f].shape, data[f].data());
  m.write_snapshot(m.t.get(), "/t", {}, &t);  // last: /t lists only complete snapshots
  ++m.n;
}

std::size_t Writer::size() const { return n; }

void Writer::flush() {
  quiet_hdf5();
  check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), path, "", "H5Fflush");
  void* handle = nullptr;
  check(H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle), path, "", "H5Fget_vfd_handle");
  if (handle && ::fsync(*static_cast<int*>(handle)) != 0)
    throw std::runtime_error("fields.h5 " + path.string() + ": fsync failed");
}

/// Cut the extendible dataset `dset` back to `snapshots` along axis 0 (it must hold at least that many).
void cut_back(hid_t dset, const std::filesystem::path& path, const std::string& name,
              const std::vector<std::size_t>& shape, std::size_t snapshots) {
  H5Id space = check_id(H5Dget_space(dset), H5Sclose, path, name, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank != static_cast<int>(shape.size()) + 1)
    throw std::runtime_error(name + " has rank " + std::to_string(rank) + ", expected " +
                             std::to_string(shape.size() + 1));
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), path, name, "H5Sget_simple_extent_dims");
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (dims[d + 1] != shape[d]) throw std::runtime_error(name + " has another shape than this run's");
  if (dims[0] < snapshots)
    throw std::runtime_error(name + " holds " + std::to_string(dims[0]) + " snapshots, fewer than " +
                             std::to_string(snapshots));
  dims[0] = snapshots;
  check(H5Dset_extent(dset, dims.data()), path, name, "H5Dset_extent");
}

std::unique_ptr<detail::H5FileWriter> reopen(const std::filesystem::path& path, std::vector<FieldSpec> fields,
                                             std::size_t snapshots) {
  quiet_hdf5();
  auto w = std::make_unique<Writer>();
  Writer& m = *w;
  m.path = path;
  const H5Id fapl = crash_safe_access(path);
  m.file = check_id(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl.get()), H5Fclose, path, "", "H5Fopen");
  m.t = check_id(H5Dopen2(m.file.get(), "/t", H5P_DEFAULT), H5Dclose, path, "/t", "H5Dopen2");
  cut_back(m.t.get(), path, "/t", {}, snapshots);
  for (FieldSpec& spec : fields) {
    Writer::Field f;
    f.name = "/" + spec.name;
    f.shape = std::move(spec.shape);
    f.count = product(f.shape);
    f.dset = check_id(H5Dopen2(m.file.get(), f.name.c_str(), H5P_DEFAULT), H5Dclose, path, f.name, "H5Dopen2");
    cut_back(f.dset.get(), path, f.name, f.shape, snapshots);
    m.fields.push_back(std::move(f));
  }
  m.n = snapshots;
  return w;
}

void Writer::close() {
  Writer& m = *this;
  if (m.closed) return;
  m.closed = true;  // even if closing fails below, the handles are released (RAII) and not retried
  quiet_hdf5();
  bool ok = true;
  std::string first_failed;
  auto note = [&](herr_t st, const std::string& what) {
    if (st < 0 && ok) {
      ok = false;
      first_failed = what;
    }
  };
  if (m.file.valid()) note(H5Fflush(m.file.get(), H5F_SCOPE_LOCAL), "H5Fflush");
  for (auto& f : m.fields) note(f.dset.reset(), "H5Dclose " + f.name);
  note(m.t.reset(), "H5Dclose /t");
  note(m.file.reset(), "H5Fclose");
  if (!ok) fail(m.path, "", first_failed);
}

// --- readers ------------------------------------------------------------------------------------

H5Array read_dataset(const std::filesystem::path& path, const std::string& name) {
  const std::string ds_name = slash(name);
  H5Id file = open_read(path);
  if (H5Lexists(file.get(), ds_name.c_str(), H5P_DEFAULT) <= 0) fail(path, ds_name, "H5Lexists (no such dataset)");
  H5Id ds = check_id(H5Dopen2(file.get(), ds_name.c_str(), H5P_DEFAULT), H5Dclose, path, ds_name, "H5Dopen2");
  H5Id space = check_id(H5Dget_space(ds.get()), H5Sclose, path, ds_name, "H5Dget_space");
  const int rank = H5Sget_simple_extent_ndims(space.get());
  if (rank < 0) fail(path, ds_name, "H5Sget_simple_extent_ndims");
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  if (rank > 0 && H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr) < 0)
    fail(path, ds_name, "H5Sget_simple_extent_dims");
  H5Array a;
  std::size_t n = 1;
  for (hsize_t d : dims) {
    a.shape.push_back(static_cast<std::size_t>(d));
    n *= static_cast<std::size_t>(d);
  }
  a.data.resize(n);
  if (n > 0)
    check(H5Dread(ds.get(), H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, a.data.data()), path, ds_name,
          "H5Dread");
  return a;
}

/// A single-valued attribute opened for reading, with its file and type (members close in reverse order).
struct ScalarAttribute {
  std::string ctx;  ///< "/dataset (attribute name)", for messages
  H5Id file, attr, type;
};
ScalarAttribute open_scalar_attribute(const std::filesystem::path& path, const std::string& dataset,
                                      const std::string& attribute) {
  ScalarAttribute a;
  a.ctx = slash(dataset) + " (attribute " + attribute + ")";
  a.file = open_read(path);
  a.attr = open_attribute(a.file.get(), path, dataset, attribute, a.ctx);
  H5Id space = check_id(H5Aget_space(a.attr.get()), H5Sclose, path, a.ctx, "H5Aget_space");
  if (H5Sget_simple_extent_npoints(space.get()) != 1)
    throw std::runtime_error("fields.h5 " + path.string() + ": " + a.ctx + " is not a single value");
  a.type = check_id(H5Aget_type(a.attr.get()), H5Tclose, path, a.ctx, "H5Aget_type");
  return a;
}

double read_attribute(const std::filesystem::path& path, const std::string& dataset,
                      const std::string& attribute) {
  const ScalarAttribute a = open_scalar_attribute(path, dataset, attribute);
  const std::string& ctx = a.ctx;
  const H5T_class_t cls = H5Tget_class(a.type.get());
  if (cls != H5T_FLOAT && cls != H5T_INTEGER)
    throw std::runtime_error("fields.h5 " + path.string() + ": " + ctx + " is not a number");
  double v = 0;
  check(H5Aread(a.attr.get(), H5T_NATIVE_DOUBLE, &v), path, ctx, "H5Aread");
  return v;
}

std::string read_string_attribute(const std::filesystem::path& path, const std::string& dataset,
                                  const std::string& attribute) {
  const ScalarAttribute a = open_scalar_attribute(path, dataset, attribute);
  const std::string& ctx = a.ctx;
  if (H5Tget_class(a.type.get()) != H5T_STRING)
    throw std::runtime_error("fields.h5 " + path.string() + ": " + ctx + " is not a string");
  const htri_t vlen = H5Tis_variable_str(a.type.get());
  if (vlen < 0) fail(path, ctx, "H5Tis_variable_str");
  std::string out;
  if (vlen > 0) {
    H5Id mtype = check_id(H5Tcopy(H5T_C_S1), H5Tclose, path, ctx, "H5Tcopy");
    check(H5Tset_size(mtype.get(), H5T_VARIABLE), path, ctx, "H5Tset_size");
    check(H5Tset_cset(mtype.get(), H5Tget_cset(a.type.get())), path, ctx, "H5Tset_cset");
    char* p = nullptr;
    check(H5Aread(a.attr.get(), mtype.get(), &p), path, ctx, "H5Aread");
    if (p) {
      out = p;
      H5free_memory(p);
    }
  } else {
    const std::size_t size = H5Tget_size(a.type.get());
    if (size == 0) fail(path, ctx, "H5Tget_size");
    out.assign(size, '\0');
    check(H5Aread(a.attr.get(), a.type.get(), out.data()), path, ctx, "H5Aread");
    while (!out.empty() && out.back() == '\0') out.pop_back();
    // a NULLTERM string may carry garbage after its terminator
    if (const auto z = out.find('\0'); z != std::string::npos) out.resize(z);
  }
  return out;
}

// ---- checkpoint.h5 (lievi/io/checkpoint.hpp) ----

/// A 1-D dataset `name` of n values of `file_type`, written from `data` in `mem_type` (parents created).
void write_array(hid_t file, const std::filesystem::path& path, const std::string& name, hid_t file_type,
                 hid_t mem_type, const void* data, std::size_t n) {
  const hsize_t dims[1] = {static_cast<hsize_t>(n)};
  H5Id space = check_id(H5Screate_simple(1, dims, nullptr), H5Sclose, path, name, "H5Screate_simple");
  H5Id lcpl = check_id(H5Pcreate(H5P_LINK_CREATE), H5Pclose, path, name, "H5Pcreate");
  check(H5Pset_create_intermediate_group(lcpl.get(), 1), path, name, "H5Pset_create_intermediate_group");
  H5Id ds = check_id(H5Dcreate2(file, name.c_str(), file_type, space.get(), lcpl.get(), H5P_DEFAULT, H5P_DEFAULT),
                     H5Dclose, path, name, "H5Dcreate2");
  if (n > 0) check(H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), path, name, "H5Dwrite");
  check(ds.reset(), path, name, "H5Dclose");
}

/// The length of the 1-D dataset `name` and its identifier.
H5Id open_array(hid_t file, const std::filesystem::path& path, const std::string& name, std::size_t& n) {
  if (H5Lexists(file, name.c_str(), H5P_DEFAULT) <= 0) fail(path, name, "H5Lexists (no such dataset)");
  H5Id ds = check_id(H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose, path, name, "H5Dopen2");
  H5Id space = check_id(H5Dget_space(ds.get()), H5Sclose, path, name, "H5Dget_space");
  if (H5Sget_simple_extent_ndims(space.get()) != 1)
    throw std::runtime_error("checkpoint " + path.string() + ": " + name + " is not a 1-D array");
  hsize_t dims[1] = {0};
  if (H5Sget_simple_extent_dims(space.get(), dims, nullptr) < 0) fail(path, name, "H5Sget_simple_extent_dims");
  n = static_cast<std::size_t>(dims[0]);
  return ds;
}

std::string read_bytes(hid_t file, const std::filesystem::path& path, const std::string& name) {
  std::size_t n = 0;
  H5Id ds = open_array(file, path, name, n);
  std::string out(n, '\0');
  if (n > 0) check(H5Dread(ds.get(), H5T_NATIVE_UCHAR, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), path, name, "H5Dread");
  return out;
}

template <class T>
std::vector<T> read_numbers(hid_t file, const std::filesystem::path& path, const std::string& name, hid_t mem_type) {
  std::size_t n = 0;
  H5Id ds = open_array(file, path, name, n);
  std::vector<T> out(n);
  if (n > 0) check(H5Dread(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data()), path, name, "H5Dread");
  return out;
}

void write_bytes(hid_t file, const std::filesystem::path& path, const std::string& name, const std::string& s) {
  write_array(file, path, name, H5T_STD_U8LE, H5T_NATIVE_UCHAR, s.data(), s.size());
}

/// The names of a map, one per line (names never contain a newline: they are lievi's own).
template <class Map>
std::string name_list(const Map& m) {
  std::string out;
  for (const auto& [name, values] : m) out += name + "\n";
  return out;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (std::size_t b; (b = s.find('\n', a)) != std::string::npos; a = b + 1) out.push_back(s.substr(a, b - a));
  return out;
}

void checkpoint_write(const std::filesystem::path& path, const CheckpointData& c) {
  quiet_hdf5();
  H5Id file = check_id(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose, path, "",
                       "H5Fcreate");
  write_string_attribute(file.get(), "format", "lievi checkpoint", path, "/");
  write_string_attribute(file.get(), "format_version", std::to_string(c.format_version), path, "/");
  write_string_attribute(file.get(), "lievi_version", c.lievi_version, path, "/");
  write_string_attribute(file.get(), "model", c.model, path, "/");
  write_string_attribute(file.get(), "scenario_name", c.name, path, "/");
  write_string_attribute(file.get(), "checksum", c.checksum, path, "/");
  write_bytes(file.get(), path, "/scenario", c.scenario);
  write_bytes(file.get(), path, "/source", c.source);
  write_bytes(file.get(), path, "/given_keys", c.given_keys);
  write_array(file.get(), path, "/step", H5T_STD_I64LE, H5T_NATIVE_LLONG, &c.step, 1);
  write_array(file.get(), path, "/t", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &c.t, 1);
  write_bytes(file.get(), path, "/names/reals", name_list(c.reals));
  write_bytes(file.get(), path, "/names/integers", name_list(c.integers));
  for (const auto& [name, v] : c.reals)
    write_array(file.get(), path, "/reals/" + name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, v.data(), v.size());
  for (const auto& [name, v] : c.integers)
    write_array(file.get(), path, "/integers/" + name, H5T_STD_I64LE, H5T_NATIVE_LLONG, v.data(), v.size());
  check(H5Fflush(file.get(), H5F_SCOPE_GLOBAL), path, "", "H5Fflush");
  check(file.reset(), path, "", "H5Fclose");
}

CheckpointData checkpoint_read(const std::filesystem::path& path) {
  CheckpointData c;
  H5Id file = open_read(path);
  auto attribute = [&](const char* name) {
    const std::string ctx = std::string("/ (attribute ") + name + ")";
    H5Id attr = open_attribute(file.get(), path, "/", name, ctx);
    H5Id type = check_id(H5Aget_type(attr.get()), H5Tclose, path, ctx, "H5Aget_type");
    if (H5Tget_class(type.get()) != H5T_STRING || H5Tis_variable_str(type.get()) != 0)
      throw std::runtime_error("checkpoint " + path.string() + ": " + ctx + " is not a fixed-length string");
    std::string out(H5Tget_size(type.get()), '\0');
    check(H5Aread(attr.get(), type.get(), out.data()), path, ctx, "H5Aread");
    while (!out.empty() && out.back() == '\0') out.pop_back();
    return out;
  };
  if (attribute("format") != "lievi checkpoint")
    throw std::runtime_error("checkpoint " + path.string() + ": not a lievi checkpoint (attribute format)");
  c.format_version = std::stoll(attribute("format_version"));
  c.lievi_version = attribute("lievi_version");
  c.model = attribute("model");
  c.name = attribute("scenario_name");
  c.checksum = attribute("checksum");
  if (c.format_version != kCheckpointFormatVersion) return c;  // the caller says what differs
  c.scenario = read_bytes(file.get(), path, "/scenario");
  c.source = read_bytes(file.get(), path, "/source");
  c.given_keys = read_bytes(file.get(), path, "/given_keys");
  const auto step = read_numbers<long long>(file.get(), path, "/step", H5T_NATIVE_LLONG);
  const auto t = read_numbers<double>(file.get(), path, "/t", H5T_NATIVE_DOUBLE);
  if (step.size() != 1 || t.size() != 1)
    throw std::runtime_error("checkpoint " + path.string() + ": /step and /t must hold one value each");
  c.step = step[0];
  c.t = t[0];
  for (const std::string& name : split_lines(read_bytes(file.get(), path, "/names/reals")))
    c.reals[name] = read_numbers<double>(file.get(), path, "/reals/" + name, H5T_NATIVE_DOUBLE);
  for (const std::string& name : split_lines(read_bytes(file.get(), path, "/names/integers")))
    c.integers[name] = read_numbers<long long>(file.get(), path, "/integers/" + name, H5T_NATIVE_LLONG);
  return c;
}

}  // namespace
}  // namespace lievi::io

extern "C" __attribute__((visibility("default"))) const lievi::io::detail::H5Backend* lievi_hdf5_backend() {
  namespace io = lievi::io;
  static const io::detail::H5Backend backend{io::detail::kH5BackendAbi, lievi::version, &io::create, &io::reopen,
                                             &io::read_dataset, &io::read_attribute, &io::read_string_attribute,
                                             &io::checkpoint_write, &io::checkpoint_read};
  return &backend;
}
