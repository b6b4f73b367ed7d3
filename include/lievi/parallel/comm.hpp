#pragma once
/// @file lievi/parallel/comm.hpp
/// @brief The processes of a run started by an MPI launcher (`mpirun -np R lievi ...`), as lievi uses them:
/// rank 0 writes every file and says what the others do; they compute and send their results to it
/// (docs/distributed.md).
///
/// MPI is reached through lievi's MPI module (liblievi_mpi.so), opened only when the environment shows an MPI
/// launcher (OpenMPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE / PMIX_RANK of other launchers), so that lievi started
/// on its own never loads MPI.
#include <cstddef>
#include <string>
#include <vector>

namespace lievi::parallel {

/// The world communicator of the job.
class Comm {
 public:
  virtual ~Comm() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;
  /// `bytes` bytes at `data` from `root` to every rank. Throws std::runtime_error on an MPI error.
  virtual void bcast(void* data, std::size_t bytes, int root) = 0;
  /// A message to `dest` (blocking; messages from one rank to another arrive in the order sent).
  virtual void send(const std::vector<char>& message, int dest) = 0;
  /// The next message from `source`.
  [[nodiscard]] virtual std::vector<char> recv(int source) = 0;
  /// Start sending `send_bytes` to `dest` and receiving `recv_bytes` from `source` (-1: none that way) and
  /// return at once; both buffers must stay untouched until finish_exchanges(), which completes every exchange
  /// started since the last call (for halos overlapped with computation).
  virtual void start_exchange(const void* send, std::size_t send_bytes, int dest, void* recv, std::size_t recv_bytes,
                              int source) = 0;
  virtual void finish_exchanges() = 0;
  /// Every rank's bytes, of any length, concatenated in rank order, on every rank.
  [[nodiscard]] virtual std::vector<char> all_gather(const void* data, std::size_t bytes) = 0;
  /// Every rank's `bytes` bytes (the same count on every rank) into `out` (size() x bytes) in rank order: one
  /// collective, nothing allocated (for what a step exchanges).
  virtual void all_gather_fixed(const void* data, std::size_t bytes, void* out) = 0;
  /// End every rank of the job with `code` (MPI_Abort): after an error on one rank that the others cannot
  /// learn of.
  [[noreturn]] virtual void abort(int code) = 0;
};

/// What rank 0 broadcasts to the others, three integers: a batch of an ensemble's paths {batch, first path,
/// count}, the end of the ensemble {end, 0, 0}, the end of the job {exit, code, 0}.
enum Command : long long { batch = 1, end = 2, exit = 3 };

/// Thrown on a rank other than 0 that waits for work when rank 0 ended the job instead (it failed before):
/// the job's exit code.
struct JobEnded {
  int code;
};

/// Rank 0, once it has checked and opened everything it writes: the other ranks may start (they wait in
/// wait_for_work). Any failure of rank 0 before this ends the job through end_job instead.
void start_work(Comm& comm);
/// A rank other than 0: wait until rank 0 starts the work; throws JobEnded when it ends the job instead.
void wait_for_work(Comm& comm);

/// The end of the job, on every rank: rank 0 broadcasts its exit `code`; the others wait for it and return
/// it (a rank that waits here while rank 0 hands out work has failed where rank 0 did not: it ends the job
/// with MPI_Abort).
int end_job(Comm& comm, int code);

/// What a process is: started by an MPI launcher (and with how many ranks, as the launcher's environment
/// says) or not.
struct Launch {
  bool under_launcher = false;
  int size = 1;  ///< from the environment (1 when unknown)
};
[[nodiscard]] Launch launch();

/// The job's communicator when this process was started by an MPI launcher with more than one rank
/// (initialising MPI through the module the first time), else null. Throws std::runtime_error when the
/// launcher started several ranks but MPI cannot be used here (a lievi built without MPI, a module that
/// does not load, MPI_Init failing), naming why.
[[nodiscard]] Comm* world();

/// MPI_Finalize, once, if world() initialised MPI.
void finalize();

}  // namespace lievi::parallel
