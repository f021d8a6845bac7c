/// @file bench/timeline/kokkos_mpi_timeline.cpp
/// A per-rank timeline of a run, for finding where a move's time goes on machines without
/// a system profiler (the lent GPU machines have Nsight Compute, not Nsight Systems).
/// Loaded as a Kokkos tool it logs every kernel's begin and end and every fence; preloaded
/// it also logs MPI's nonblocking sends, receives, barriers and the completions that
/// MPI_Testsome returns (redist's request pool polls through it). Timestamps are one
/// monotonic clock, so the ranks of one machine line up.
///
///   mpirun -np 2 -x KOKKOS_TOOLS_LIBS=libredist-timeline.so
///          -x LD_PRELOAD=libredist-timeline.so -x TIMELINE_DIR=DIR PROGRAM ...
///   python3 bench/timeline/timeline.py DIR
///
/// TIMELINE_FENCE=0 lets kernels run asynchronously (an end is then the launch's return);
/// by default Kokkos fences around each kernel, so a kernel's span is its run time.
/// Each rank writes DIR/timeline.RANK.txt at Kokkos' finalize: "seconds kind fields".

#define OMPI_SKIP_MPICXX 1  // the C interface only: it is what the shim wraps
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string>
#include <vector>

#include <mpi.h>

namespace {

struct Event {
  double t;
  char kind;  ///< K/k kernel begin/end, F/f fence, S send, R receive, C completion, B barrier
  long a, b;  ///< kernel: name index; MPI: peer and tag (or request index)
};

struct Log {
  std::mutex mutex;
  std::vector<Event> events;
  std::vector<std::string> kernels;
  Log() { events.reserve(std::size_t{1} << 20); }
};

Log& log() {
  static Log* l = new Log;  // never destroyed: MPI calls may come after static destructors
  return *l;
}

double now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void record(char kind, long a = 0, long b = 0) {
  Log& l = log();
  const std::lock_guard<std::mutex> lock(l.mutex);
  l.events.push_back({now(), kind, a, b});
}

/// Kokkos_Tools_ToolSettings, as Kokkos declares it.
struct ToolSettings {
  bool requires_global_fencing;
  bool padding[255];
};

}  // namespace

extern "C" {

void kokkosp_request_tool_settings(const std::uint32_t, ToolSettings* settings) {
  const char* fence = std::getenv("TIMELINE_FENCE");
  settings->requires_global_fencing = !(fence && fence[0] == '0');
}
void kokkosp_init_library(const int, const std::uint64_t, const std::uint32_t, void*) {}

void kokkosp_begin_parallel_for(const char* name, const std::uint32_t, std::uint64_t* id) {
  Log& l = log();
  {
    const std::lock_guard<std::mutex> lock(l.mutex);
    l.kernels.emplace_back(name);
    *id = l.kernels.size() - 1;
  }
  record('K', static_cast<long>(*id));
}
void kokkosp_end_parallel_for(const std::uint64_t id) { record('k', static_cast<long>(id)); }
void kokkosp_begin_fence(const char*, const std::uint32_t, std::uint64_t* id) {
  *id = 0;
  record('F');
}
void kokkosp_end_fence(const std::uint64_t) { record('f'); }

void kokkosp_finalize_library() {
  const char* dir = std::getenv("TIMELINE_DIR");
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  const std::string path =
      std::string(dir ? dir : ".") + "/timeline." + (rank ? rank : "0") + ".txt";
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return;
  Log& l = log();
  const std::lock_guard<std::mutex> lock(l.mutex);
  for (const Event& e : l.events) {
    if (e.kind == 'K')
      std::fprintf(f, "%.9f K %s\n", e.t, l.kernels[static_cast<std::size_t>(e.a)].c_str());
    else
      std::fprintf(f, "%.9f %c %ld %ld\n", e.t, e.kind, e.a, e.b);
  }
  std::fclose(f);
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request* request) {
  record('S', dest, tag);
  return PMPI_Isend(buf, count, type, dest, tag, comm, request);
}
int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request* request) {
  record('R', source, tag);
  return PMPI_Irecv(buf, count, type, source, tag, comm, request);
}
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  record('B');
  return PMPI_Ibarrier(comm, request);
}
int MPI_Testsome(int count, MPI_Request* requests, int* done, int* indices, MPI_Status* statuses) {
  const int rc = PMPI_Testsome(count, requests, done, indices, statuses);
  if (rc == MPI_SUCCESS && *done != MPI_UNDEFINED)
    for (int k = 0; k < *done; ++k)
      record('C', statuses != MPI_STATUSES_IGNORE ? statuses[k].MPI_SOURCE : -1,
             statuses != MPI_STATUSES_IGNORE ? statuses[k].MPI_TAG : indices[k]);
  return rc;
}

}  // extern "C"
