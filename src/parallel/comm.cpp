/// @file src/parallel/comm.cpp
/// @brief The job's communicator (lievi/parallel/comm.hpp) on lievi's MPI module.
#include "lievi/parallel/comm.hpp"

#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>

#include "../core/module_loader.hpp"
#include "lievi/version.hpp"
#include "mpi_backend.hpp"

namespace lievi::parallel {
namespace {

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return -1;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return end != v && *end == '\0' && n >= 0 && n < (1L << 30) ? static_cast<int>(n) : -1;
}

class MpiComm final : public Comm {
 public:
  explicit MpiComm(const detail::MpiBackend& b) : b_(b) {
    char error[256] = {0};
    if (b_.init(&rank_, &size_, error, sizeof error) != 0)
      throw std::runtime_error(std::string("MPI could not be initialised: ") + error);
  }
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  void bcast(void* data, std::size_t bytes, int root) override { check(b_.bcast(data, bytes, root), "broadcast"); }
  void send(const std::vector<char>& m, int dest) override {
    check(b_.send(m.data(), m.size(), dest, kTag), "send to rank " + std::to_string(dest));
  }
  [[nodiscard]] std::vector<char> recv(int source) override {
    std::size_t bytes = 0;
    check(b_.probe(source, kTag, &bytes), "probe of rank " + std::to_string(source));
    std::vector<char> m(bytes);
    check(b_.recv(m.data(), bytes, source, kTag), "receive from rank " + std::to_string(source));
    return m;
  }
  void start_exchange(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes,
                      int source) override {
    check(b_.isendrecv(send, send_bytes, dest, recv, recv_bytes, source, kTag + 2), "halo exchange");
  }
  void finish_exchanges() override { check(b_.waitall(), "halo exchange"); }
  void all_gather_fixed(const void* data, std::size_t bytes, void* out) override {
    check(b_.allgather(data, bytes, out), "gather");
  }
  [[nodiscard]] std::vector<char> all_gather(const void* data, std::size_t bytes) override {
    const long long mine = static_cast<long long>(bytes);
    std::vector<long long> sizes(static_cast<std::size_t>(size_));
    check(b_.allgather(&mine, sizeof mine, sizes.data()), "gather of sizes");
    std::vector<int> counts(sizes.size()), displs(sizes.size());
    long long total = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
      if (total + sizes[r] > 2147483647LL) throw std::runtime_error("MPI gather of more than 2 GB");
      counts[r] = static_cast<int>(sizes[r]);
      displs[r] = static_cast<int>(total);
      total += sizes[r];
    }
    std::vector<char> out(static_cast<std::size_t>(total));
    check(b_.allgatherv(data, bytes, out.data(), counts.data(), displs.data()), "gather");
    return out;
  }
  [[noreturn]] void abort(int code) override {
    b_.abort(code);
    std::_Exit(code);  // MPI_Abort does not return; if it did, this rank still ends
  }
  void finalize() { b_.finalize(); }

 private:
  static constexpr int kTag = 7;
  void check(int rc, const std::string& what) const {
    if (rc != 0) throw std::runtime_error("MPI " + what + " failed (error " + std::to_string(rc) + ")");
  }
  const detail::MpiBackend& b_;
  int rank_ = 0, size_ = 1;
};

std::unique_ptr<MpiComm>& the_world() {
  static std::unique_ptr<MpiComm> w;
  return w;
}

}  // namespace

Launch launch() {
  Launch l;
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"})
    if (const int n = env_int(name); n >= 1) {
      l.under_launcher = true;
      l.size = n;
      return l;
    }
  if (env_int("PMIX_RANK") >= 0) l.under_launcher = true;
  return l;
}

Comm* world() {
  static bool tried = false;
  auto& w = the_world();
  if (tried) return w && w->size() > 1 ? w.get() : nullptr;
  tried = true;
  const Launch l = launch();
  if (!l.under_launcher || l.size <= 1) return nullptr;
#ifdef LIEVI_MPI_MODULE_NAME
  std::string places;
  const lievi::detail::ModulePlaces where{"LIEVI_MPI_MODULE", LIEVI_MPI_MODULE_NAME, LIEVI_MPI_MODULE_LIBDIR,
                                          LIEVI_MPI_MODULE_INSTALLED, LIEVI_MPI_MODULE_BUILT};
  const auto* b = static_cast<const detail::MpiBackend*>(lievi::detail::open_module(
      where, "lievi_mpi_backend",
      [](const void* t) {
        const auto* m = static_cast<const detail::MpiBackend*>(t);
        return m->abi == detail::kMpiBackendAbi && std::string(m->version) == lievi::version;
      },
      places));
  if (b == nullptr)
    throw std::runtime_error("started by an MPI launcher with " + std::to_string(l.size) +
                             " ranks, but lievi's MPI module " + std::string(LIEVI_MPI_MODULE_NAME) +
                             " could not be loaded; looked for it in:" + places +
                             "\nset LIEVI_MPI_MODULE to the module's path");
  w = std::make_unique<MpiComm>(*b);
  return w->size() > 1 ? w.get() : nullptr;
#else
  throw std::runtime_error("started by an MPI launcher with " + std::to_string(l.size) +
                           " ranks, but this lievi was built without MPI (each rank would run the whole job): "
                           "install libopenmpi-dev and rebuild, or run without mpirun");
#endif
}

void start_work(Comm& comm) {
  long long order[3] = {Command::batch, 0, 0};
  comm.bcast(order, sizeof order, 0);
}

void wait_for_work(Comm& comm) {
  long long order[3] = {0, 0, 0};
  comm.bcast(order, sizeof order, 0);
  if (order[0] == Command::exit) throw JobEnded{static_cast<int>(order[1])};
}

int end_job(Comm& comm, int code) {
  long long order[3] = {Command::exit, code, 0};
  comm.bcast(order, sizeof order, 0);
  if (order[0] != Command::exit) comm.abort(code != 0 ? code : 1);
  return static_cast<int>(order[1]);
}

void finalize() {
  if (auto& w = the_world()) w->finalize();
}

}  // namespace lievi::parallel
