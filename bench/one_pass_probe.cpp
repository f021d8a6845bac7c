// one_pass_probe: the ceiling of a move's memory traffic on one node, without redist.
//
// Two processes (fork, shared anonymous mappings, no MPI) replay case a's pattern
// (bench/README.md, "One pass over the source"): each holds an M x N column-major source
// (8000 x 4096 doubles by default); every source column is cut into runs of R rows, the
// even runs (for process 0; odd for process 1) go to its own target column, the others to
// the peer's. Each process writes an M x N target: a column's first half from its own
// source, the second from the peer.
// Six ways to move it, each timed as the best of --rounds, both processes at once:
//
//   memcpy     the floor: each process copies its M x N source with memcpy
//   staged     what the node window does without rings: the local copies in one pass,
//              the peer's runs packed into a whole-batch shared buffer in another, then
//              unpacked from the peer's buffer
//   ring       the peer's runs through a ring of 4 slots of C columns, unpacked as soon as
//              a slot is full; the local copies in a pass of their own
//   one-pass   the same ring, but a slot's columns are copied locally as they are packed,
//              run by run in source order: each source column is read once, in order
//   by-column  the same ring, each column's local runs copied and then its packed runs
//              (two sparse passes over a column that the cache holds)
//   by-slot    the same ring, a slot's columns packed and then copied locally (two sparse
//              passes over a slot's columns)
//
//   push       no ring and no pack: both targets in one shared mapping (as a node-shared
//              target would be), each process sweeps its source columns once, its own
//              runs into its target and the peer's runs straight into the peer's target,
//              then waits for the peer's "written" (a move's wait)
//   pull       what a node-shared source allows (redist's direct transport): both sources
//              in one shared mapping, each process reads its own runs of its own source
//              and of the peer's, into its private target; no ring, no pack
//   memcpy-shm the floor on the shared mapping's pages: memcpy of the source into this
//              process's shared target (shared anonymous memory takes no huge pages
//              unless shmem THP is on)
//
// and two that are not an exchange, for issue 44's hand-written experiment (one process
// packing its whole source into a ring of 4 slots, the other unpacking it, timed against
// two memcpys at once):
//
//   one-way    process 0's whole source through the ring (chunks of a slot) into process
//              1's target; process 1 sends nothing: half of an exchange's memory traffic
//   memcpy-one process 0's memcpy of its source while process 1 idles
//
// Usage: one_pass_probe [--rows M] [--cols N] [--run R] [--slot-columns C] [--rounds K]
//        [--stream 0|1]   (stream: target stores bypass the cache)
//        [--stitch 0|1] (stitch: one-pass's local runs, push's and pull's runs that continue each
//                          other in the target streamed as one, whole lines across runs)
//        [--huge 0|1]     (huge: sources and targets advised 2 MiB pages, as TiledMatrix
//                          advises its tiles; the default)
// Prints one line per way: the best seconds of process 0 and its share of the floor; checks
// every target element of the last round's moves and exits 1 if one is wrong.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

#include <sys/mman.h>
#include <sys/wait.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <redist/tools/huge_page_buffer.hpp>

namespace {

struct Options {
  long rows = 8000, cols = 4096, run = 100, slot_cols = 16, rounds = 6;
  bool stream = true;
  bool huge = true;
  bool stitch = false;
};

/// n doubles from s to d; with `stream`, whole destination lines bypass the cache.
void copy(double* d, const double* s, long n, bool stream) {
#if defined(__SSE2__)
  if (stream) {
    long i = 0;
    for (; i < n && (reinterpret_cast<std::uintptr_t>(d + i) & 63) != 0; ++i) d[i] = s[i];
    for (; i + 8 <= n; i += 8)
      for (int k = 0; k < 8; k += 2) _mm_stream_pd(d + i + k, _mm_loadu_pd(s + i + k));
    for (; i < n; ++i) d[i] = s[i];
    return;
  }
#endif
  std::memcpy(d, s, static_cast<std::size_t>(n) * sizeof(double));
}

/// Streamed stores into a target that runs continue: a run's last partial line waits
/// in `line` for the next run's first bytes, and goes out as one whole line when the next
/// run continues it (or by plain stores when it does not: flush()). Without it the line
/// where two runs meet (every other run of 100 doubles) is written through the cache.
struct StitchedStream {
  alignas(64) char line[64];
  char* at = nullptr;  // the pending line's address in the target (64-aligned), or null
  long fill = 0;       // its bytes so far

  void flush() {
    if (at != nullptr) std::memcpy(at, line, static_cast<std::size_t>(fill));
    at = nullptr;
  }
  void put(double* dst, const double* src, long count) {
    auto* d = reinterpret_cast<char*>(dst);
    const auto* s = reinterpret_cast<const char*>(src);
    long n = count * static_cast<long>(sizeof(double));
    if (at != nullptr && d == at + fill) {  // continues the pending line
      const long take = std::min(n, 64 - fill);
      std::memcpy(line + fill, s, static_cast<std::size_t>(take));
      fill += take, d += take, s += take, n -= take;
      if (fill < 64) return;
#if defined(__SSE2__)
      for (int k = 0; k < 64; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(at + k),
                         _mm_load_si128(reinterpret_cast<const __m128i*>(line + k)));
#endif
      at = nullptr;
    } else {
      flush();
    }
    const long head =
        std::min(n, static_cast<long>((64 - (reinterpret_cast<std::uintptr_t>(d) & 63)) & 63));
    std::memcpy(d, s, static_cast<std::size_t>(head));
    d += head, s += head, n -= head;
#if defined(__SSE2__)
    for (; n >= 64; n -= 64, d += 64, s += 64)
      for (int k = 0; k < 64; k += 16)
        _mm_stream_si128(reinterpret_cast<__m128i*>(d + k),
                         _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + k)));
#endif
    if (n > 0) {
      std::memcpy(line, s, static_cast<std::size_t>(n));
      at = d, fill = n;
    }
  }
};

void fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

template <class T>
T* shared(std::size_t count) {
  void* p =
      mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    std::perror("one_pass_probe: mmap");
    std::exit(1);
  }
  return static_cast<T*>(p);
}

/// A ring's counters, one cache line each: slots filled by the sender, freed by the receiver.
struct alignas(64) Counter {
  std::atomic<long> value{0};
};

struct Shared {
  Counter filled[2], freed[2], barrier, staged[2], written[2];
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const long v = std::atol(argv[i + 1]);
    if (k == "--rows")
      o.rows = v;
    else if (k == "--cols")
      o.cols = v;
    else if (k == "--run")
      o.run = v;
    else if (k == "--slot-columns")
      o.slot_cols = v;
    else if (k == "--rounds")
      o.rounds = v;
    else if (k == "--stream")
      o.stream = v != 0;
    else if (k == "--huge")
      o.huge = v != 0;
    else if (k == "--stitch")
      o.stitch = v != 0;
    else {
      std::fprintf(stderr, "one_pass_probe: unknown option %s\n", k.c_str());
      return 2;
    }
  }
  if (o.rows < 2 * o.run || o.rows % (2 * o.run) != 0 || o.cols % o.slot_cols != 0 || o.run < 1 ||
      o.slot_cols < 1 || o.rounds < 1) {
    std::fprintf(stderr,
                 "one_pass_probe: --rows must be a multiple of 2 x --run, --cols of "
                 "--slot-columns (rows %ld, run %ld, cols %ld, slot columns %ld)\n",
                 o.rows, o.run, o.cols, o.slot_cols);
    return 2;
  }
  const long M = o.rows, N = o.cols, half = M / 2, slots = 4, slot = o.slot_cols * half;
  Shared* sh = new (shared<Shared>(1)) Shared;
  double* ring = shared<double>(static_cast<std::size_t>(2 * slots * slot));
  double* staged = shared<double>(static_cast<std::size_t>(2 * half * N));
  // Both processes' targets for push, and sources for pull: process p's at + p * M * N.
  double* pushed = shared<double>(static_cast<std::size_t>(2 * M * N));
  double* pulled = shared<double>(static_cast<std::size_t>(2 * M * N));
  std::memset(ring, 0, sizeof(double) * static_cast<std::size_t>(2 * slots * slot));
  std::memset(staged, 0, sizeof(double) * static_cast<std::size_t>(2 * half * N));
  const int me = fork() == 0 ? 1 : 0;
  // Private arrays after the fork, on the pages a move's matrices have (--huge).
  const std::size_t elements = static_cast<std::size_t>(M * N);
  std::vector<double> small_src, small_dst;
  std::optional<redist::tools::HugePageBuffer> huge_src, huge_dst;
  double *src, *dst;
  if (o.huge) {
    huge_src.emplace(elements * sizeof(double));
    huge_dst.emplace(elements * sizeof(double));
    src = reinterpret_cast<double*>(huge_src->data());
    dst = reinterpret_cast<double*>(huge_dst->data());
  } else {
    small_src.resize(elements);
    small_dst.resize(elements);
    src = small_src.data();
    dst = small_dst.data();
  }
  for (std::size_t i = 0; i < elements; ++i) src[i] = static_cast<double>(i);
  double* shared_src = pulled + static_cast<long>(me) * M * N;  // first touched by its owner
  std::memcpy(shared_src, src, sizeof(double) * elements);
  long phase = 0;
  const auto barrier = [&] {
    phase += 2;
    sh->barrier.value.fetch_add(1);
    while (sh->barrier.value.load() < phase) {
    }
  };
  // The runs of source column j: f(row, length, mine).
  const auto runs = [&](long, auto&& f) {
    for (long r = 0; r < M; r += o.run) f(r, o.run, (r / o.run) % 2 == me);
  };
  const auto local_column = [&](long j) {
    long k = 0;
    runs(j, [&](long r, long n, bool mine) {
      if (mine) copy(&dst[j * M + k], &src[j * M + r], n, o.stream), k += n;
    });
  };
  const auto pack_column = [&](long j, double* out) {
    long k = 0;
    runs(j, [&](long r, long n, bool mine) {
      if (!mine) std::memcpy(out + k, &src[j * M + r], sizeof(double) * n), k += n;
    });
  };
  StitchedStream to_dst;
  const auto both_column = [&](long j, double* out) {
    long k = 0, l = 0;
    runs(j, [&](long r, long n, bool mine) {
      if (mine && o.stitch)
        to_dst.put(&dst[j * M + l], &src[j * M + r], n), l += n;
      else if (mine)
        copy(&dst[j * M + l], &src[j * M + r], n, o.stream), l += n;
      else
        std::memcpy(out + k, &src[j * M + r], sizeof(double) * n), k += n;
    });
  };
  // The ring: slot s of process p at ring + (p * slots + s) * slot.
  // How a slot's columns are packed beside their local copies: 0 pack only (the local
  // copies in a pass of their own), 1 each column's runs in source order, 2 each column's
  // local runs then its packed runs, 3 the slot's packs then the slot's local copies.
  const auto through_ring = [&](int one_pass) {
    Counter& filled = sh->filled[me];
    Counter& freed = sh->freed[1 - me];  // the peer frees our slots
    Counter& in = sh->filled[1 - me];
    Counter& out_freed = sh->freed[me];
    const long chunks = N / o.slot_cols;
    long sent = 0, got = 0;
    while (sent < chunks || got < chunks) {
      if (sent < chunks && sent - freed.value.load(std::memory_order_acquire) < slots) {
        double* s = ring + (me * slots + sent % slots) * slot;
        for (long j = sent * o.slot_cols; j < (sent + 1) * o.slot_cols; ++j) {
          double* out = s + (j - sent * o.slot_cols) * half;
          if (one_pass == 1) {
            both_column(j, out);
          } else {
            if (one_pass == 2) local_column(j);
            pack_column(j, out);
          }
        }
        to_dst.flush();
        if (one_pass == 3)
          for (long j = sent * o.slot_cols; j < (sent + 1) * o.slot_cols; ++j) local_column(j);
        filled.value.store(++sent, std::memory_order_release);
      }
      if (got < chunks && in.value.load(std::memory_order_acquire) > got) {
        const double* s = ring + ((1 - me) * slots + got % slots) * slot;
        for (long j = got * o.slot_cols; j < (got + 1) * o.slot_cols; ++j)
          copy(&dst[j * M + half], s + (j - got * o.slot_cols) * half, half, o.stream);
        fence();
        out_freed.value.store(++got, std::memory_order_release);
      }
    }
  };
  // A way's target, checked: both sources hold the same values (element i is i),
  // and the peer sends the runs of this process's parity, so both halves of column j hold
  // this process's runs of column j.
  const auto wrong_elements = [&](const double* dst) {
    long wrong = 0;
    for (long j = 0; j < N; ++j) {
      long k = 0;
      runs(j, [&](long r, long n, bool mine) {
        if (!mine) return;
        for (long i = 0; i < n; ++i)
          for (const long at : {k + i, half + k + i})
            wrong += dst[j * M + at] != src[j * M + r + i];
        k += n;
      });
    }
    return wrong;
  };
  // Issue 44's experiment: process 0's source, contiguous, through its ring in chunks of a
  // slot into process 1's target; process 0 stops its clock when the last chunk is freed.
  const auto one_way = [&] {
    const long chunks = static_cast<long>(elements) / slot;
    if (me == 0) {
      for (long c = 0; c < chunks; ++c) {
        while (c - sh->freed[1].value.load(std::memory_order_acquire) >= slots) {
        }
        std::memcpy(ring + (c % slots) * slot, src + c * slot, sizeof(double) * slot);
        sh->filled[0].value.store(c + 1, std::memory_order_release);
      }
      while (sh->freed[1].value.load(std::memory_order_acquire) < chunks) {
      }
    } else {
      for (long c = 0; c < chunks; ++c) {
        while (sh->filled[0].value.load(std::memory_order_acquire) <= c) {
        }
        copy(dst + c * slot, ring + (c % slots) * slot, slot, o.stream);
        fence();
        sh->freed[1].value.store(c + 1, std::memory_order_release);
      }
    }
  };
  // The non-exchange ways' target: a copy of the source where it was written (process 1
  // for one-way, process 0 for memcpy-one), untouched (-1) elsewhere.
  const auto wrong_copy = [&](bool written) {
    const long whole = static_cast<long>(elements) / slot * slot;
    long wrong = 0;
    for (long i = 0; i < static_cast<long>(elements); ++i)
      wrong += dst[i] != (written && i < whole ? src[i] : -1.0);
    return wrong;
  };
  // Push: source column j read once, front to back; this process's runs to its own
  // target's first half of column j, the peer's to the second half of the peer's.
  double* own = pushed + static_cast<long>(me) * M * N;
  double* peer = pushed + static_cast<long>(1 - me) * M * N;
  const auto push = [&] {
    StitchedStream to_own, to_peer;
    for (long j = 0; j < N; ++j) {
      long l = 0, k = 0;
      runs(j, [&](long r, long n, bool mine) {
        double* d = mine ? &own[j * M + l] : &peer[j * M + half + k];
        if (o.stitch)
          (mine ? to_own : to_peer).put(d, &src[j * M + r], n);
        else
          copy(d, &src[j * M + r], n, o.stream);
        (mine ? l : k) += n;
      });
    }
    to_own.flush();
    to_peer.flush();
    fence();
    sh->written[me].value.store(1, std::memory_order_release);
    while (sh->written[1 - me].value.load(std::memory_order_acquire) == 0) {
    }
  };
  // Pull: column j's runs of this process's parity from both sources, into its target.
  const double* peer_src = pulled + static_cast<long>(1 - me) * M * N;
  const auto pull = [&] {
    StitchedStream from_own, from_peer;
    for (long j = 0; j < N; ++j) {
      long l = 0;
      runs(j, [&](long r, long n, bool mine) {
        if (!mine) return;
        double* d = &dst[j * M + l];
        if (o.stitch) {
          from_own.put(d, &shared_src[j * M + r], n);
          from_peer.put(d + half, &peer_src[j * M + r], n);
        } else {
          copy(d, &shared_src[j * M + r], n, o.stream);
          copy(d + half, &peer_src[j * M + r], n, o.stream);
        }
        l += n;
      });
    }
    from_own.flush();
    from_peer.flush();
  };
  const char* names[] = {"memcpy", "staged", "ring",       "one-pass", "by-column", "by-slot",
                         "push",   "pull",   "memcpy-shm", "one-way",  "memcpy-one"};
  constexpr int ways = 11, exchanges = 9;
  std::fill(dst, dst + elements, -1.0);
  std::fill(own, own + elements, -1.0);
  std::vector<double> best(ways, 1e30);
  long wrong = 0;  // target elements of the last round that are wrong
  for (long round = 0; round < o.rounds; ++round)
    for (int way = 0; way < ways; ++way) {
      sh->filled[me].value.store(0);
      sh->freed[me].value.store(0);
      sh->staged[me].value.store(0);
      sh->written[me].value.store(0);
      barrier();
      const double t0 = now();
      if (way == 0) {
        std::memcpy(dst, src, sizeof(double) * elements);
      } else if (way == 6) {
        push();
      } else if (way == 7) {
        pull();
      } else if (way == 8) {
        std::memcpy(own, src, sizeof(double) * elements);
      } else if (way == 9) {
        one_way();
      } else if (way == 10) {
        if (me == 0) std::memcpy(dst, src, sizeof(double) * (elements / slot * slot));
      } else if (way == 1) {
        for (long j = 0; j < N; ++j) local_column(j);
        double* mine = staged + me * half * N;
        for (long j = 0; j < N; ++j) pack_column(j, mine + j * half);
        sh->staged[me].value.store(1, std::memory_order_release);
        while (sh->staged[1 - me].value.load(std::memory_order_acquire) == 0) {
        }
        const double* theirs = staged + (1 - me) * half * N;
        for (long j = 0; j < N; ++j) copy(&dst[j * M + half], theirs + j * half, half, o.stream);
      } else {
        if (way == 2)
          for (long j = 0; j < N; ++j) local_column(j);
        through_ring(way - 2);
      }
      fence();
      best[static_cast<std::size_t>(way)] =
          std::min(best[static_cast<std::size_t>(way)], now() - t0);
      barrier();
      if (round == o.rounds - 1 && way > 0 && way != 8)
        wrong += way == 9    ? wrong_copy(me == 1)
                 : way == 10 ? wrong_copy(me == 0)
                             : wrong_elements(way == 6 ? own : dst);
      std::fill(dst, dst + elements, -1.0);
      std::fill(own, own + elements, -1.0);
    }
  if (wrong > 0) {
    std::fprintf(stderr, "one_pass_probe: process %d: %ld target elements wrong\n", me, wrong);
    return 1;
  }
  if (me == 0) {
    int status = 0;
    wait(&status);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
    std::printf(
        "one_pass_probe: %ld x %ld doubles a process, runs of %ld, slots of %ld columns "
        "(%ld KiB), stream %d, stitch %d, huge pages %d, best of %ld\n",
        M, N, o.run, o.slot_cols, slot * 8 / 1024, o.stream ? 1 : 0, o.stitch ? 1 : 0,
        o.huge ? 1 : 0, o.rounds);
    for (int way = 0; way < exchanges; ++way)
      std::printf("  %-10s %.4f s  %3.0f %% of the floor\n", names[way], best[way],
                  100.0 * best[0] / best[way]);
    // Process 0's clock: for one-way it waits for the last chunk's unpack.
    std::printf("  not an exchange (issue 44's experiment: one way, half the traffic):\n");
    for (int way = exchanges; way < ways; ++way)
      std::printf("  %-10s %.4f s  %.2fx the two memcpys at once\n", names[way], best[way],
                  best[way] / best[0]);
  }
  return 0;
}
