/// @file src/parallel/mpi_module.cpp
/// @brief lievi's MPI module (liblievi_mpi.so): the functions of src/parallel/mpi_backend.hpp on MPI. Built as
/// a module of its own that links MPI, opened by src/parallel/comm.cpp only when the process was started by an
/// MPI launcher.
#include <mpi.h>

#include <climits>
#include <cstring>
#include <vector>

#include "lievi/version.hpp"
#include "mpi_backend.hpp"

namespace {

using lievi::parallel::detail::MpiBackend;

/// MPI counts are ints: a message of more than 2^31 - 1 bytes is refused (MPI_ERR_COUNT).
int bytes_count(std::size_t bytes, int* count) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) return MPI_ERR_COUNT;
  *count = static_cast<int>(bytes);
  return MPI_SUCCESS;
}

int init(int* rank, int* size, char* error, std::size_t len) {
  int flag = 0;
  MPI_Initialized(&flag);
  int rc = MPI_SUCCESS;
  if (!flag) {
    int provided = 0;
    rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  }
  if (rc == MPI_SUCCESS) {
    // errors are returned (and reported by lievi) rather than ending the job silently
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = MPI_Comm_rank(MPI_COMM_WORLD, rank);
  }
  if (rc == MPI_SUCCESS) rc = MPI_Comm_size(MPI_COMM_WORLD, size);
  if (rc != MPI_SUCCESS && error != nullptr && len > 0) {
    char text[MPI_MAX_ERROR_STRING];
    int n = 0;
    MPI_Error_string(rc, text, &n);
    std::strncpy(error, text, len - 1);
    error[len - 1] = '\0';
  }
  return rc;
}

void finalize() {
  int flag = 0;
  MPI_Finalized(&flag);
  if (!flag) MPI_Finalize();
}

int bcast(void* data, std::size_t bytes, int root) {
  int n = 0;
  if (const int rc = bytes_count(bytes, &n); rc != MPI_SUCCESS) return rc;
  return MPI_Bcast(data, n, MPI_BYTE, root, MPI_COMM_WORLD);
}

int send(const void* data, std::size_t bytes, int dest, int tag) {
  int n = 0;
  if (const int rc = bytes_count(bytes, &n); rc != MPI_SUCCESS) return rc;
  return MPI_Send(data, n, MPI_BYTE, dest, tag, MPI_COMM_WORLD);
}

int probe(int source, int tag, std::size_t* bytes) {
  MPI_Status status;
  const int rc = MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  if (rc != MPI_SUCCESS) return rc;
  int n = 0;
  MPI_Get_count(&status, MPI_BYTE, &n);
  *bytes = static_cast<std::size_t>(n);
  return MPI_SUCCESS;
}

int recv(void* data, std::size_t bytes, int source, int tag) {
  int n = 0;
  if (const int rc = bytes_count(bytes, &n); rc != MPI_SUCCESS) return rc;
  return MPI_Recv(data, n, MPI_BYTE, source, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

void abort_all(int code) { MPI_Abort(MPI_COMM_WORLD, code); }

int allgather(const void* data, std::size_t bytes, void* out) {
  int n = 0;
  if (const int rc = bytes_count(bytes, &n); rc != MPI_SUCCESS) return rc;
  return MPI_Allgather(data, n, MPI_BYTE, out, n, MPI_BYTE, MPI_COMM_WORLD);
}

int allgatherv(const void* data, std::size_t bytes, void* out, const int* counts, const int* displs) {
  int n = 0;
  if (const int rc = bytes_count(bytes, &n); rc != MPI_SUCCESS) return rc;
  return MPI_Allgatherv(data, n, MPI_BYTE, out, counts, displs, MPI_BYTE, MPI_COMM_WORLD);
}

/// The requests isendrecv started and waitall completes (MPI is used by one thread: funneled).
std::vector<MPI_Request> g_pending;

int isendrecv(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes, int source,
              int tag) {
  int ns = 0, nr = 0;
  if (const int rc = bytes_count(send_bytes, &ns); rc != MPI_SUCCESS) return rc;
  if (const int rc = bytes_count(recv_bytes, &nr); rc != MPI_SUCCESS) return rc;
  // the receive first, so that a message that arrives early lands in place
  if (source >= 0) {
    g_pending.emplace_back();
    if (const int rc = MPI_Irecv(recv, nr, MPI_BYTE, source, tag, MPI_COMM_WORLD, &g_pending.back()); rc != MPI_SUCCESS)
      return rc;
  }
  if (dest >= 0) {
    g_pending.emplace_back();
    // MPI_Isend takes a non-const buffer in old MPI headers; it only reads it
    if (const int rc = MPI_Isend(const_cast<void*>(send), ns, MPI_BYTE, dest, tag, MPI_COMM_WORLD, &g_pending.back());
        rc != MPI_SUCCESS)
      return rc;
  }
  return MPI_SUCCESS;
}

int waitall() {
  const int rc = MPI_Waitall(static_cast<int>(g_pending.size()), g_pending.data(), MPI_STATUSES_IGNORE);
  g_pending.clear();  // keeps its capacity: no allocation after the first steps
  return rc;
}

const MpiBackend table = {lievi::parallel::detail::kMpiBackendAbi,
                          lievi::version,
                          init,
                          finalize,
                          bcast,
                          send,
                          probe,
                          recv,
                          abort_all,
                          allgather,
                          allgatherv,
                          isendrecv,
                          waitall};

}  // namespace

extern "C" __attribute__((visibility("default"))) const MpiBackend* lievi_mpi_backend() { return &table; }
