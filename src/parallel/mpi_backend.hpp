#pragma once
/// @file src/parallel/mpi_backend.hpp
/// @brief The table of functions lievi's MPI module (liblievi_mpi.so, src/parallel/mpi_module.cpp) exports.
///
/// The module alone links MPI: a process that is not started by an MPI launcher never loads it or the MPI
/// libraries (their start-up costs tens of milliseconds and they open network interfaces). The table is plain
/// C; `abi` and `version` guard against a module of another build.
#include <cstddef>

namespace lievi::parallel::detail {

/// Raised whenever the table's layout or meaning changes.
inline constexpr int kMpiBackendAbi = 3;

struct MpiBackend {
  int abi;
  const char* version;  ///< the lievi version the module was built from
  /// MPI_Init_thread (funneled: only the thread that called it talks to MPI); the rank and size of
  /// MPI_COMM_WORLD. 0 on success, else an MPI error code with its text in `error` (capacity `len`).
  int (*init)(int* rank, int* size, char* error, std::size_t len);
  void (*finalize)();
  /// MPI_Bcast of `bytes` bytes from `root`.
  int (*bcast)(void* data, std::size_t bytes, int root);
  /// Blocking send of `bytes` bytes to `dest` with `tag`.
  int (*send)(const void* data, std::size_t bytes, int dest, int tag);
  /// The size in bytes of the next message from `source` with `tag` (blocks until it arrives).
  int (*probe)(int source, int tag, std::size_t* bytes);
  /// Receive that message.
  int (*recv)(void* data, std::size_t bytes, int source, int tag);
  /// MPI_Abort(MPI_COMM_WORLD, code): ends every rank.
  void (*abort)(int code);
  /// Every rank's `bytes` bytes (the same count on all) into `out`, in rank order (size x bytes).
  int (*allgather)(const void* data, std::size_t bytes, void* out);
  /// Every rank's message of its own length into `out` (the lengths `counts`, offsets `displs`, in bytes).
  int (*allgatherv)(const void* data, std::size_t bytes, void* out, const int* counts, const int* displs);
  /// Non-blocking MPI_Irecv of `recv_bytes` from `source` and MPI_Isend of `send_bytes` to `dest` (-1: no such
  /// rank), kept by the module until `waitall`; the buffers must stay untouched until then.
  int (*isendrecv)(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes, int source,
                   int tag);
  /// MPI_Waitall on every request isendrecv started.
  int (*waitall)();
};

}  // namespace lievi::parallel::detail

extern "C" const lievi::parallel::detail::MpiBackend* lievi_mpi_backend();
