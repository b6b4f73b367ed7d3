/// @file src/io/fields_h5.cpp
/// @brief fields.h5 in the library: FieldsH5Writer and the readers forward to lievi's HDF5 module
/// (liblievi_hdf5.so), opened with dlopen the first time they are used (src/io/fields_h5_backend.hpp says
/// why); where it is looked for: src/core/module_loader.hpp (LIEVI_HDF5_MODULE names it).
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "../core/module_loader.hpp"
#include "fields_h5_backend.hpp"
#include "lievi/core/error.hpp"
#include "lievi/version.hpp"

#ifndef LIEVI_HDF5_MODULE_NAME
#error "LIEVI_HDF5_MODULE_NAME, LIEVI_HDF5_MODULE_LIBDIR, _INSTALLED and _BUILT come from CMakeLists.txt"
#endif

namespace lievi::io {

namespace {

namespace fs = std::filesystem;

/// Open the module once per process; throws std::runtime_error naming every place tried (and why each
/// failed when the file was there) when no usable module is found.
const detail::H5Backend& backend() {
  static std::once_flag once;
  static const detail::H5Backend* table = nullptr;
  static std::string failure;
  std::call_once(once, [] {
    std::string tried;
    const lievi::detail::ModulePlaces places{"LIEVI_HDF5_MODULE", LIEVI_HDF5_MODULE_NAME, LIEVI_HDF5_MODULE_LIBDIR,
                                      LIEVI_HDF5_MODULE_INSTALLED, LIEVI_HDF5_MODULE_BUILT};
    // Kept open to the end of the process: HDF5 registers its own clean-up at exit.
    table = static_cast<const detail::H5Backend*>(lievi::detail::open_module(
        places, "lievi_hdf5_backend",
        [](const void* t) {
          const auto* b = static_cast<const detail::H5Backend*>(t);
          return b->abi == detail::kH5BackendAbi && std::string(b->version) == lievi::version;
        },
        tried));
    if (table != nullptr) return;
    failure = "fields.h5: lievi's HDF5 module " + std::string(LIEVI_HDF5_MODULE_NAME) +
              " could not be loaded; looked for it in:" + tried +
              "\nset LIEVI_HDF5_MODULE to the module's path, or set output.fields = false";
  });
  if (table == nullptr) throw std::runtime_error(failure);
  return *table;
}

}  // namespace

struct FieldsH5Writer::Impl {
  std::unique_ptr<detail::H5FileWriter> file;
  std::filesystem::path path;       // Resume: reopened on restore
  std::vector<FieldSpec> fields;
};

FieldsH5Writer::FieldsH5Writer(const std::filesystem::path& path, std::span<const double> s,
                               std::vector<FieldSpec> fields, const std::string& model)
    : impl_(std::make_unique<Impl>()) {
  impl_->file = backend().create(path, s, std::move(fields), model, false);
}

FieldsH5Writer::FieldsH5Writer(const std::filesystem::path& path, std::span<const double> s,
                               std::vector<FieldSpec> fields, const std::string& model, CrashSafe)
    : impl_(std::make_unique<Impl>()) {
  impl_->file = backend().create(path, s, std::move(fields), model, true);
}

FieldsH5Writer::FieldsH5Writer(const std::filesystem::path& path, std::vector<FieldSpec> fields, Resume)
    : impl_(std::make_unique<Impl>()) {
  impl_->path = path;
  impl_->fields = std::move(fields);
}

void FieldsH5Writer::checkpoint(StateIO& a) {
  long long n = impl_->file ? static_cast<long long>(impl_->file->size()) : 0;
  if (!a.restoring()) impl_->file->flush();
  a("snapshots", n);
  if (a.restoring()) {
    try {
      impl_->file = backend().reopen(impl_->path, impl_->fields, static_cast<std::size_t>(n));
    } catch (const std::runtime_error& e) {
      throw invalid_argument(impl_->path.string(), "",
                             "cannot be continued from the checkpoint (" + std::to_string(n) + " snapshots): " +
                                 e.what());
    }
  }
}

FieldsH5Writer::~FieldsH5Writer() = default;  // the module's writer closes the file, swallowing errors

void FieldsH5Writer::append(double t, std::span<const std::span<const double>> data) {
  impl_->file->append(t, data);
}

std::size_t FieldsH5Writer::size() const { return impl_->file->size(); }

void FieldsH5Writer::close() { impl_->file->close(); }

H5Array read_h5_dataset(const std::filesystem::path& path, const std::string& name) {
  return backend().read_dataset(path, name);
}

void detail::h5_write_checkpoint(const std::filesystem::path& path, const CheckpointData& c) {
  backend().write_checkpoint(path, c);
}

CheckpointData detail::h5_read_checkpoint(const std::filesystem::path& path) {
  return backend().read_checkpoint(path);
}

double read_h5_attribute(const std::filesystem::path& path, const std::string& dataset,
                         const std::string& attribute) {
  return backend().read_attribute(path, dataset, attribute);
}

std::string read_h5_string_attribute(const std::filesystem::path& path, const std::string& dataset,
                                     const std::string& attribute) {
  return backend().read_string_attribute(path, dataset, attribute);
}

}  // namespace lievi::io
