/// @file src/io/fields_h5_none.cpp
/// @brief Built instead of fields_h5.cpp when lievi is configured with -DLIEVI_WITH_HDF5=OFF: every entry
/// point throws, and runs that ask for fields.h5 report it (docs/outputs.md).
#include <stdexcept>

#include "fields_h5_backend.hpp"
#include "lievi/io/fields_h5.hpp"

namespace lievi::io {

namespace {
[[noreturn]] void no_hdf5() {
  throw std::runtime_error("fields.h5: this lievi was built without HDF5 (-DLIEVI_WITH_HDF5=OFF)");
}
}  // namespace

struct FieldsH5Writer::Impl {};
FieldsH5Writer::FieldsH5Writer(const std::filesystem::path&, std::span<const double>, std::vector<FieldSpec>,
                               const std::string&) {
  no_hdf5();
}
FieldsH5Writer::FieldsH5Writer(const std::filesystem::path&, std::span<const double>, std::vector<FieldSpec>,
                               const std::string&, CrashSafe) {
  no_hdf5();
}
FieldsH5Writer::FieldsH5Writer(const std::filesystem::path&, std::vector<FieldSpec>, Resume) { no_hdf5(); }
void FieldsH5Writer::checkpoint(StateIO&) { no_hdf5(); }
FieldsH5Writer::~FieldsH5Writer() = default;
void FieldsH5Writer::append(double, std::span<const std::span<const double>>) { no_hdf5(); }
std::size_t FieldsH5Writer::size() const { return 0; }
void FieldsH5Writer::close() {}
H5Array read_h5_dataset(const std::filesystem::path&, const std::string&) { no_hdf5(); }
double read_h5_attribute(const std::filesystem::path&, const std::string&, const std::string&) { no_hdf5(); }
std::string read_h5_string_attribute(const std::filesystem::path&, const std::string&, const std::string&) {
  no_hdf5();
}
void detail::h5_write_checkpoint(const std::filesystem::path&, const CheckpointData&) { no_hdf5(); }
CheckpointData detail::h5_read_checkpoint(const std::filesystem::path&) { no_hdf5(); }

}  // namespace lievi::io
