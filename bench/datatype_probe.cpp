// datatype_probe: what MPI derived datatypes save between nodes, without redist (issue 44,
// point 3: "describe a message's runs to MPI ... so MPI's own copy is the only one").
//
// Two ranks exchange case a's pattern both ways at once: each holds an M x N column-major
// source (doubles); every column is cut into runs of R rows, and the odd runs go to the
// peer, which writes them at the same places of its M x N target. The message is cut into
// chunks of about C bytes, each its own MPI message, as redist cuts messages. Two ways:
//
//   packed     what redist does today: pack chunk k into a buffer, isend it, pack chunk
//              k + 1 while it travels; the receiver posts every chunk's receive into a
//              buffer up front and unpacks each as it completes
//   datatype   each chunk an MPI hindexed datatype over the source's runs (absolute
//              addresses, MPI_BOTTOM), built once outside the timing; the receiver posts
//              receives of the matching types over the target's runs: no pack, no unpack
//
// Per way: the wall time of the exchange (max over the ranks, median of --rounds) and the
// CPU time both ranks spent in it (getrusage, user + system, summed; it includes the
// kernel's TCP work), per byte that crossed between the ranks. Every target element of the
// last round is checked; exits 1 if one is wrong.
//
// Build: mpicxx -std=c++20 -O3 -march=native bench/datatype_probe.cpp -o datatype_probe
// Run between two simulated nodes (docs/cluster.md):
//   scripts/cluster.sh --nodes 2 --rate 10gbit -- ./datatype_probe [--rows M] [--cols N]
//       [--run R] [--chunk-bytes C] [--rounds K]

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <mpi.h>

#include <sys/resource.h>

namespace {

struct Options {
  long rows = 4096, cols = 4096, run = 100, chunk_bytes = 2L << 20;
  int rounds = 5;
};

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

/// One run of a column that goes to the peer: its first row and length.
struct Run {
  long col, row, len;
};

/// The runs that go to the peer, in message order (column by column), cut into chunks of
/// about chunk_bytes: chunk k is runs [cut[k], cut[k + 1]).
struct Pattern {
  std::vector<Run> runs;
  std::vector<std::size_t> cut;
  long elements = 0;
};

Pattern pattern(const Options& o) {
  Pattern p;
  long in_chunk = 0;
  p.cut.push_back(0);
  for (long j = 0; j < o.cols; ++j)
    for (long i = o.run, k = 1; i < o.rows; i += 2 * o.run, k += 2) {
      const long len = std::min(o.run, o.rows - i);
      p.runs.push_back({j, i, len});
      p.elements += len;
      in_chunk += len * 8;
      if (in_chunk >= o.chunk_bytes) {
        p.cut.push_back(p.runs.size());
        in_chunk = 0;
      }
    }
  if (p.cut.back() != p.runs.size()) p.cut.push_back(p.runs.size());
  return p;
}

double value(int rank, long i, long j) { return rank * 1e9 + static_cast<double>(i) * 1e4 + j; }

struct Timing {
  std::vector<double> wall, cpu;
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  Options o;
  for (int k = 1; k + 1 < argc; k += 2) {
    const std::string a = argv[k];
    const long v = std::atol(argv[k + 1]);
    if (a == "--rows")
      o.rows = v;
    else if (a == "--cols")
      o.cols = v;
    else if (a == "--run")
      o.run = v;
    else if (a == "--chunk-bytes")
      o.chunk_bytes = v;
    else if (a == "--rounds")
      o.rounds = static_cast<int>(v);
    else {
      if (rank == 0) std::fprintf(stderr, "datatype_probe: unknown option %s\n", a.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
  }
  if (size != 2 || o.rows < 1 || o.cols < 1 || o.run < 1 || o.chunk_bytes < 8) {
    if (rank == 0) std::fprintf(stderr, "datatype_probe: needs 2 ranks and positive sizes\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int peer = 1 - rank;
  const std::size_t n = static_cast<std::size_t>(o.rows) * static_cast<std::size_t>(o.cols);
  std::vector<double> src(n), dst(n), out, in;
  for (long j = 0; j < o.cols; ++j)
    for (long i = 0; i < o.rows; ++i)
      src[static_cast<std::size_t>(j * o.rows + i)] = value(rank, i, j);
  const Pattern p = pattern(o);
  const std::size_t chunks = p.cut.size() - 1;
  out.resize(static_cast<std::size_t>(p.elements));
  in.resize(static_cast<std::size_t>(p.elements));
  std::vector<long> offset(chunks + 1, 0);  // each chunk's first element in the message
  for (std::size_t c = 0; c < chunks; ++c) {
    offset[c + 1] = offset[c];
    for (std::size_t r = p.cut[c]; r < p.cut[c + 1]; ++r) offset[c + 1] += p.runs[r].len;
  }
  // One hindexed type per chunk and side, built once: block r is run r of the chunk.
  const auto types_over = [&](double* base) {
    std::vector<MPI_Datatype> t(chunks);
    for (std::size_t c = 0; c < chunks; ++c) {
      std::vector<int> len;
      std::vector<MPI_Aint> at;
      for (std::size_t r = p.cut[c]; r < p.cut[c + 1]; ++r) {
        const Run& x = p.runs[r];
        MPI_Aint a = 0;
        MPI_Get_address(base + x.col * o.rows + x.row, &a);
        len.push_back(static_cast<int>(x.len));
        at.push_back(a);
      }
      MPI_Type_create_hindexed(static_cast<int>(len.size()), len.data(), at.data(), MPI_DOUBLE,
                               &t[c]);
      MPI_Type_commit(&t[c]);
    }
    return t;
  };
  double t_types = MPI_Wtime();
  std::vector<MPI_Datatype> send_types = types_over(src.data()),
                            recv_types = types_over(dst.data());
  t_types = MPI_Wtime() - t_types;

  const auto packed = [&] {
    std::vector<MPI_Request> recv(chunks), send(chunks);
    for (std::size_t c = 0; c < chunks; ++c)
      MPI_Irecv(in.data() + offset[c], static_cast<int>(offset[c + 1] - offset[c]), MPI_DOUBLE,
                peer, 7, MPI_COMM_WORLD, &recv[c]);
    for (std::size_t c = 0; c < chunks; ++c) {
      double* at = out.data() + offset[c];
      for (std::size_t r = p.cut[c]; r < p.cut[c + 1]; ++r) {
        const Run& x = p.runs[r];
        std::memcpy(at, src.data() + x.col * o.rows + x.row, static_cast<std::size_t>(x.len) * 8);
        at += x.len;
      }
      MPI_Isend(out.data() + offset[c], static_cast<int>(offset[c + 1] - offset[c]), MPI_DOUBLE,
                peer, 7, MPI_COMM_WORLD, &send[c]);
      int flag = 0;  // let MPI move what is posted while the next chunk is packed
      MPI_Testall(static_cast<int>(c + 1), send.data(), &flag, MPI_STATUSES_IGNORE);
    }
    for (std::size_t left = chunks; left > 0; --left) {
      int c = 0;
      MPI_Waitany(static_cast<int>(chunks), recv.data(), &c, MPI_STATUS_IGNORE);
      const double* at = in.data() + offset[static_cast<std::size_t>(c)];
      for (std::size_t r = p.cut[static_cast<std::size_t>(c)];
           r < p.cut[static_cast<std::size_t>(c) + 1]; ++r) {
        const Run& x = p.runs[r];
        std::memcpy(dst.data() + x.col * o.rows + x.row, at, static_cast<std::size_t>(x.len) * 8);
        at += x.len;
      }
    }
    MPI_Waitall(static_cast<int>(chunks), send.data(), MPI_STATUSES_IGNORE);
  };
  const auto described = [&] {
    std::vector<MPI_Request> req(2 * chunks);
    for (std::size_t c = 0; c < chunks; ++c)
      MPI_Irecv(MPI_BOTTOM, 1, recv_types[c], peer, 8, MPI_COMM_WORLD, &req[c]);
    for (std::size_t c = 0; c < chunks; ++c)
      MPI_Isend(MPI_BOTTOM, 1, send_types[c], peer, 8, MPI_COMM_WORLD, &req[chunks + c]);
    MPI_Waitall(static_cast<int>(2 * chunks), req.data(), MPI_STATUSES_IGNORE);
  };

  long wrong = 0;
  const auto run = [&](const char* name, auto&& move) {
    Timing t;
    for (int k = 0; k < o.rounds; ++k) {
      std::fill(dst.begin(), dst.end(), -1.0);
      MPI_Barrier(MPI_COMM_WORLD);
      const double c0 = cpu_seconds(), w0 = MPI_Wtime();
      move();
      const double w = MPI_Wtime() - w0, c = cpu_seconds() - c0;
      double wall = 0, cpu = 0;
      MPI_Allreduce(&w, &wall, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      MPI_Allreduce(&c, &cpu, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
      t.wall.push_back(wall);
      t.cpu.push_back(cpu);
    }
    long bad = 0;  // the peer's odd runs, and nothing else written
    for (long j = 0; j < o.cols; ++j)
      for (long i = 0; i < o.rows; ++i) {
        const bool odd = (i / o.run) % 2 == 1;
        bad += dst[static_cast<std::size_t>(j * o.rows + i)] != (odd ? value(peer, i, j) : -1.0);
      }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    wrong += bad;
    const double bytes = 2.0 * static_cast<double>(p.elements) * 8;  // both ways
    if (rank == 0)
      std::printf("%-9s wall %.4f s (%.2f GB/s a direction)  cpu %.4f s  %.3f cpu ns/byte  %s\n",
                  name, median(t.wall), bytes / 2 / median(t.wall) * 1e-9, median(t.cpu),
                  median(t.cpu) / bytes * 1e9, bad == 0 ? "ok" : "WRONG");
  };
  if (rank == 0)
    std::printf(
        "datatype_probe: %ld x %ld doubles, runs of %ld rows, %zu chunks of ~%ld bytes, "
        "%.1f MiB each way; types built in %.4f s\n",
        o.rows, o.cols, o.run, chunks, o.chunk_bytes,
        static_cast<double>(p.elements) * 8 / (1 << 20), t_types);
  run("packed", packed);
  run("datatype", described);
  run("packed", packed);
  run("datatype", described);
  for (auto* ts : {&send_types, &recv_types})
    for (MPI_Datatype& t : *ts) MPI_Type_free(&t);
  MPI_Finalize();
  return wrong == 0 ? 0 : 1;
}
