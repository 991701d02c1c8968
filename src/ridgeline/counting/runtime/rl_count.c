/* ridgeline counting runtime: linked into programs whose IR was instrumented by
 * ridgeline.counting.instrument.  Basic-block counters are plain increments emitted in the
 * IR (__rl_bbc[]); this file snapshots them around counted launches, classifies memory
 * accesses (global / shared / local-stack), keeps the set of distinct 32-byte sectors and
 * feeds a sectored set-associative LRU L2 model per configured GPU (RL_L2 = bytes,...).
 * One JSON line per counted launch goes to $RL_OUT.  Single-threaded by design (OpenMP runs
 * with one thread, CUDA blocks run as fibers on one thread). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

extern uint64_t __rl_bbc[];
extern const uint64_t __rl_nbb;

/* ---- state ---------------------------------------------------------------------------- */
int __rl_on;                 /* memory hooks record only while set */
/* set once a launch was skipped or a sampled launch left blocks unexecuted: from then on the
 * program's data may hold zeros a GPU run would not have (value-dependent counts stop) */
int __rl_data_partial;
static int rl_in_kernel;
int __rl_spmd_flag; /* launch known to cover only part of its threads (none set it now) */
int __rl_omp_shares; /* OpenMP: worksharing-loop set-ups (for / distribute) the region ran */
int __rl_omp_active; /* inside an OpenMP target region (rl_omp.c emulates its teams) */
int __rl_in_kernel_now(void) { return rl_in_kernel; }
static uintptr_t rl_stack_lo, rl_stack_hi; /* current thread or fiber stack: local memory */
static uintptr_t rl_shared_lo, rl_shared_hi;
static uintptr_t rl_main_lo, rl_main_hi;   /* the OS thread's stack: kernel parameters */
static uintptr_t rl_regs_lo, rl_regs_hi;   /* threadIdx & co: special registers on a GPU */
static FILE *rl_out;
static int rl_max_launches = 2, rl_skip_after = 1;
static const char *rl_only;
/* wanted kernels (RL_EXPECT, one name fragment per line), parsed once: a fragment listed k
 * times wants k distinct kernels */
typedef struct { char *frag; int times; } rl_want;
static rl_want *rl_wants;
static int nwants;
static uint64_t *rl_snap;
static double *rl_acc;
#define NMEM 10 /* memory counters: pairs of (accesses, bytes) */
static double rl_mem_w[2 * NMEM]; /* weighted memory counters */
static uint64_t rl_mem_snap[2 * NMEM];

typedef struct { uint64_t n, bytes; } rl_pair;
static rl_pair g_ld, g_st, s_ld, s_st, l_ld, l_st, g_atom, s_atom, a_ld, a_st;
static uint64_t rl_extra_flops[3], rl_extra_int;
static uint64_t rl_extra_snap[4];
static double rl_extra_w[4]; /* extras per counting window, weighted like it */
/* value-dependent divisions of the launch left unchecked (the data was partial) */
static uint64_t rl_unchecked_div;

/* the running thread's work: every instrumented basic block of a CUDA build adds its
 * operations. The CUDA layer reads it around each thread's turns and hands each counted
 * block's per-thread work to __rl_block_threads: a GPU launch lasts at least as long as its longest
 * thread takes, and a warp issues as many instructions as its busiest lane executes */
uint64_t __rl_tw;
static uint64_t tw_max;         /* the longest thread of the counted blocks */
static double tw_warp, tw_sum;  /* their warps' busiest lanes, and all their threads, summed */

void __rl_block_threads(const uint64_t *work, int n) {
  if (!__rl_on) return;  /* a block run uncounted (warming the L2, past the sample) */
  for (int lo = 0; lo < n; lo += 32) {
    uint64_t busiest = 0;
    for (int t = lo; t < n && t < lo + 32; t++) {
      tw_sum += (double)work[t];
      if (work[t] > busiest) busiest = work[t];
    }
    tw_warp += (double)busiest;
    if (busiest > tw_max) tw_max = busiest;
  }
}

/* ---- allocations: a launch cannot read more distinct sectors than the buffers it touches.
 * With sampled blocks the distinct sectors are extrapolated from the sampled ones, which
 * over-counts data that many blocks share (rows of a table each block pairs up); the sizes
 * of the allocations the sampled blocks touched bound that extrapolation. ----------------- */
/* mapped: the length of a device buffer's own mapping (0: a heap block) */
typedef struct { uintptr_t lo, hi; size_t mapped; uint8_t rd, wr; } rl_alloc;
static rl_alloc *allocs;
static size_t nallocs, allocs_cap;

static size_t alloc_pos(uintptr_t a) { /* index of the first allocation with lo > a */
  size_t lo = 0, hi = nallocs;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (allocs[mid].lo <= a) lo = mid + 1; else hi = mid;
  }
  return lo;
}

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void __libc_free(void *);
static pthread_mutex_t allocs_mu = PTHREAD_MUTEX_INITIALIZER;

static void note_locked(uintptr_t a, size_t n) {
  if (nallocs == allocs_cap) {
    size_t cap = allocs_cap ? allocs_cap * 2 : 256;
    rl_alloc *na = __libc_realloc(allocs, cap * sizeof *allocs);
    if (!na) return; /* untracked: its sectors count as outside every allocation */
    allocs = na;
    allocs_cap = cap;
  }
  size_t i = alloc_pos(a);
  if (i && allocs[i - 1].lo == a) { allocs[i - 1].hi = a + n; return; }
  memmove(&allocs[i + 1], &allocs[i], (nallocs - i) * sizeof *allocs);
  allocs[i] = (rl_alloc){a, a + n, 0, 0, 0};
  nallocs++;
}

/* forgets the allocation at a; the length of its own mapping when it is a device buffer */
static size_t forget_locked(uintptr_t a) {
  size_t i = alloc_pos(a);
  if (i == 0 || allocs[i - 1].lo != a) return 0;
  size_t mapped = allocs[i - 1].mapped;
  memmove(&allocs[i - 1], &allocs[i], (nallocs - i) * sizeof *allocs);
  nallocs--;
  return mapped;
}

void __rl_alloc_note(const void *p, size_t n) {
  if (!p || !n) return;
  pthread_mutex_lock(&allocs_mu);
  note_locked((uintptr_t)p, n);
  pthread_mutex_unlock(&allocs_mu);
}

size_t __rl_alloc_forget(const void *p) {
  if (!p) return 0;
  pthread_mutex_lock(&allocs_mu);
  size_t mapped = forget_locked((uintptr_t)p);
  pthread_mutex_unlock(&allocs_mu);
  return mapped;
}

/* the program's heap buffers (OpenMP arrays mapped to the device are plain host memory):
 * malloc and friends are wrapped to note blocks of RL_HEAP_MIN bytes and more */
#define RL_HEAP_MIN 4096
/* a large allocation the address-space limit refused: said on stderr (without allocating),
 * so that the crash that usually follows (a NULL the program never checks) is reported as a
 * memory limit (runner.classify_failure) */
static void alloc_failed(size_t n) {
  if (n < ((size_t)1 << 20)) return;
  char msg[96];
  int len = snprintf(msg, sizeof msg, "rl: allocation of %zu MiB failed\n", n >> 20);
  if (len > 0) (void)!write(2, msg, (size_t)len);
}
void *malloc(size_t n) {
  void *p = __libc_malloc(n);
  if (p && n >= RL_HEAP_MIN) __rl_alloc_note(p, n);
  if (!p) alloc_failed(n);
  return p;
}
void *calloc(size_t k, size_t n) {
  void *p = __libc_calloc(k, n);
  if (p && k * n >= RL_HEAP_MIN) __rl_alloc_note(p, k * n);
  if (!p) alloc_failed(k * n);
  return p;
}
void *__rl_dev_alloc(size_t n);
static size_t mapped_len(const void *q) {
  if (!q || !nallocs) return 0;
  pthread_mutex_lock(&allocs_mu);
  size_t i = alloc_pos((uintptr_t)q);
  size_t m = i && allocs[i - 1].lo == (uintptr_t)q ? allocs[i - 1].mapped : 0;
  pthread_mutex_unlock(&allocs_mu);
  return m;
}
void *realloc(void *q, size_t n) {
  size_t m = mapped_len(q);
  if (m) { /* a device buffer: a new one, the old one's bytes copied */
    void *p = n ? __rl_dev_alloc(n) : NULL;
    if (p) memcpy(p, q, n < m ? n : m);
    if (p || !n) free(q);
    return p;
  }
  void *p = __libc_realloc(q, n);
  if (p || !n) __rl_alloc_forget(q);
  if (p && n >= RL_HEAP_MIN) __rl_alloc_note(p, n);
  if (!p) alloc_failed(n);
  return p;
}
void free(void *p) {
  size_t m = p && nallocs ? __rl_alloc_forget(p) : 0;
  if (m) munmap(p, m);
  else __libc_free(p);
}
extern void *__libc_memalign(size_t, size_t);
void *memalign(size_t al, size_t n) {
  void *p = __libc_memalign(al, n);
  if (p && n >= RL_HEAP_MIN) __rl_alloc_note(p, n);
  if (!p) alloc_failed(n);
  return p;
}
void *aligned_alloc(size_t al, size_t n) { return memalign(al, n); }

/* device buffers (cudaMalloc and its kin, omp_target_alloc), 256-byte aligned with 256 bytes
 * to spare past the end: large ones are reserved, not committed (MAP_NORESERVE), as a GPU's
 * memory is the program's whatever the host's RAM: only the pages the program touches take
 * memory, and the sandbox's resident-memory budget bounds those */
#define RL_MAP_MIN ((size_t)1 << 20)
void *__rl_dev_alloc(size_t n) {
  size_t len = (n + 255) / 256 * 256 + 256;
  if (n < RL_MAP_MIN) {
    void *p = memalign(256, len);
    if (p) __rl_alloc_note(p, n); /* the requested size, and blocks the wrappers skip */
    return p;
  }
  len = (len + 4095) & ~(size_t)4095;
  void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                 -1, 0);
  if (p == MAP_FAILED) {
    alloc_failed(n);
    return NULL;
  }
  pthread_mutex_lock(&allocs_mu);
  note_locked((uintptr_t)p, n);
  size_t i = alloc_pos((uintptr_t)p);
  int noted = i && allocs[i - 1].lo == (uintptr_t)p;
  if (noted) allocs[i - 1].mapped = len;
  pthread_mutex_unlock(&allocs_mu);
  if (!noted) { /* the registry could not grow: free() would not know the mapping */
    munmap(p, len);
    alloc_failed(n);
    return NULL;
  }
  return p;
}
int posix_memalign(void **out, size_t al, size_t n) {
  void *p = memalign(al, n);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}

static rl_alloc *alloc_of(uintptr_t a, rl_alloc *hint) {
  if (hint && a >= hint->lo && a < hint->hi) return hint;
  size_t i = alloc_pos(a);
  return i && a < allocs[i - 1].hi ? &allocs[i - 1] : NULL;
}

/* ---- distinct sectors: pages of 4096 sectors (128 KiB), open addressing -------------- */
#define PAGE_SHIFT 17
#define PAGE_WORDS 64 /* 4096 bits */
typedef struct { uintptr_t key; uint64_t rd[PAGE_WORDS], wr[PAGE_WORDS]; } rl_page;
static rl_page **pages;
static size_t npages_cap, npages;
static rl_page *last_page;
/* distinct sectors read / written so far in the launch, and the same at the end of its first
 * counted block (team) that touched any: with sampled blocks, what the first block touched
 * and the later ones touch again (tables every block reads, counters every block updates) is
 * not extrapolated like what each block touches for itself (records.py distinct_sectors) */
static uint64_t rl_dist_rd, rl_dist_wr, rl_first_rd, rl_first_wr;
static int rl_first_set;

static rl_page *page_get(uintptr_t key) {
  if (last_page && last_page->key == key) return last_page;
  if (npages * 2 >= npages_cap) {
    size_t ncap = npages_cap ? npages_cap * 2 : 1024;
    rl_page **np = calloc(ncap, sizeof *np);
    for (size_t i = 0; i < npages_cap; i++)
      if (pages[i]) {
        size_t h = (pages[i]->key * 0x9E3779B97F4A7C15ull) & (ncap - 1);
        while (np[h]) h = (h + 1) & (ncap - 1);
        np[h] = pages[i];
      }
    free(pages);
    pages = np;
    npages_cap = ncap;
  }
  size_t h = (key * 0x9E3779B97F4A7C15ull) & (npages_cap - 1);
  while (pages[h] && pages[h]->key != key) h = (h + 1) & (npages_cap - 1);
  if (!pages[h]) {
    pages[h] = calloc(1, sizeof(rl_page));
    pages[h]->key = key;
    npages++;
  }
  return last_page = pages[h];
}

/* sectors read / written outside every known allocation and the 4 KiB frames they lie in,
 * and the sectors of the allocations read / written (whole buffers: an upper bound on what
 * the launch touches). Heap blocks of RL_HEAP_MIN bytes and more, device buffers and the
 * static data are allocations; what lies elsewhere (stack variables, small heap blocks,
 * runtime state) is small and mostly shared by every block, so its frames bound it. */
static void footprint(uint64_t *out_rd, uint64_t *out_wr, uint64_t *frames,
                      uint64_t *alloc_rd, uint64_t *alloc_wr) {
  *out_rd = *out_wr = *alloc_rd = *alloc_wr = frames[0] = frames[1] = 0;
  uintptr_t last_frame[2] = {0, 0}; /* 4 KiB frames outside allocations, counted once */
  for (size_t k = 0; k < nallocs; k++) allocs[k].rd = allocs[k].wr = 0;
  rl_alloc *hint = NULL;
  for (size_t i = 0; i < npages_cap; i++) {
    if (!pages[i]) continue;
    uintptr_t base = pages[i]->key << PAGE_SHIFT;
    for (int w = 0; w < PAGE_WORDS; w++) {
      uint64_t bits[2] = {pages[i]->rd[w], pages[i]->wr[w]};
      for (int k = 0; k < 2; k++)
        while (bits[k]) {
          int b = __builtin_ctzll(bits[k]);
          bits[k] &= bits[k] - 1;
          uintptr_t a = base + ((uintptr_t)(w * 64 + b) << 5);
          rl_alloc *al = alloc_of(a, hint);
          if (al) { hint = al; if (k) al->wr = 1; else al->rd = 1; continue; }
          if (k) (*out_wr)++; else (*out_rd)++;
          if ((a >> 12) + 1 != last_frame[k]) { frames[k]++; last_frame[k] = (a >> 12) + 1; }
        }
    }
  }
  for (size_t k = 0; k < nallocs; k++) {
    uint64_t span = ((allocs[k].hi - 1) >> 5) - (allocs[k].lo >> 5) + 1; /* sectors */
    if (allocs[k].rd) *alloc_rd += span;
    if (allocs[k].wr) *alloc_wr += span;
  }
}

static void pages_reset(uint64_t *rd, uint64_t *wr) {
  *rd = *wr = 0;
  for (size_t i = 0; i < npages_cap; i++)
    if (pages[i]) {
      for (int w = 0; w < PAGE_WORDS; w++) {
        *rd += (uint64_t)__builtin_popcountll(pages[i]->rd[w]);
        *wr += (uint64_t)__builtin_popcountll(pages[i]->wr[w]);
      }
      free(pages[i]);
      pages[i] = NULL;
    }
  npages = 0;
  last_page = NULL;
  rl_dist_rd = rl_dist_wr = 0;
}

/* ---- L2 model: sectored (4 x 32 B per 128 B line), set-associative, LRU, write-back,
 * write-allocate without fetch; cold at each launch (profilers flush between kernels) ---- */
#define MAX_L2 8
typedef struct {
  uint64_t bytes, nsets; int ways;
  uint64_t *tag; uint64_t *stamp; uint8_t *valid, *dirty;
  uint64_t clock, rd_miss, wr_back; /* wr_back: at eviction */
  uint64_t rd_snap; double rd_w; /* read misses per counting window, weighted like it */
  /* sectors made dirty (clean -> dirty: each is written back once, at eviction or after the
   * launch), and the same per counting window, weighted like it */
  uint64_t dirtied, wd_snap; double wd_w;
} rl_l2;
static rl_l2 l2s[MAX_L2];
static int nl2;

static void l2_init(rl_l2 *c, uint64_t bytes, int ways) {
  c->bytes = bytes; c->ways = ways;
  c->nsets = bytes / (128u * (uint64_t)ways);
  if (c->nsets == 0) c->nsets = 1;
  size_t n = c->nsets * (size_t)ways;
  c->tag = calloc(n, 8); c->stamp = calloc(n, 8);
  c->valid = calloc(n, 1); c->dirty = calloc(n, 1);
}

static void l2_access(rl_l2 *c, uint64_t sector, int write) {
  uint64_t line = sector >> 2, bit = 1u << (sector & 3);
  uint64_t h = line ^ (line >> 7) ^ (line >> 15);
  size_t base = (size_t)(h % c->nsets) * (size_t)c->ways, way = (size_t)-1, victim = base;
  for (int w = 0; w < c->ways; w++) {
    size_t i = base + (size_t)w;
    if (c->tag[i] == line + 1) { way = i; break; }
    if (c->stamp[i] < c->stamp[victim]) victim = i;
  }
  if (way == (size_t)-1) {
    way = victim;
    c->wr_back += (uint64_t)__builtin_popcount(c->dirty[way]);
    c->tag[way] = line + 1; c->valid[way] = 0; c->dirty[way] = 0;
  }
  if (write) {
    if (!(c->dirty[way] & bit)) c->dirtied++;
    c->dirty[way] |= (uint8_t)bit; c->valid[way] |= (uint8_t)bit;
  }
  else if (!(c->valid[way] & bit)) { c->rd_miss++; c->valid[way] |= (uint8_t)bit; }
  c->stamp[way] = ++c->clock;
}

/* read misses, write-backs at eviction, sectors still dirty at the end of the launch */
static void l2_finish(rl_l2 *c, uint64_t *rd, uint64_t *wb, uint64_t *exit_dirty) {
  size_t n = c->nsets * (size_t)c->ways;
  uint64_t left = 0;
  for (size_t i = 0; i < n; i++) left += (uint64_t)__builtin_popcount(c->dirty[i]);
  *rd = c->rd_miss; *wb = c->wr_back + left; *exit_dirty = left;
  memset(c->tag, 0, n * 8); memset(c->stamp, 0, n * 8);
  memset(c->valid, 0, n); memset(c->dirty, 0, n);
  c->clock = c->rd_miss = c->wr_back = c->dirtied = 0;
}

/* ---- memory hooks --------------------------------------------------------------------- */
/* a global access's sectors: into the launch's sector sets (unless `l2_only`: a warm block's
 * access, see __rl_sample_launch) and through the L2 models */
static void record(uintptr_t a, uint64_t n, int write, int l2_only) {
  uint64_t s0 = a >> 5, s1 = (a + (n ? n : 1) - 1) >> 5;
  for (uint64_t s = s0; s <= s1; s++) {
    if (!l2_only) {
      rl_page *p = page_get((uintptr_t)(s >> (PAGE_SHIFT - 5)));
      uint64_t idx = s & ((1u << (PAGE_SHIFT - 5)) - 1);
      uint64_t *bits = write ? p->wr : p->rd, bit = 1ull << (idx & 63);
      if (!(bits[idx >> 6] & bit)) {
        bits[idx >> 6] |= bit;
        if (write) rl_dist_wr++; else rl_dist_rd++;
      }
    }
    for (int i = 0; i < nl2; i++) l2_access(&l2s[i], s, write);
  }
}

static uintptr_t rl_omp_sp; /* OpenMP: stack pointer at region entry (0 outside regions) */
/* per-thread local-memory footprint of the stack arrays indexed at run time (__rl_lda/sta):
 * the distinct 32-byte sectors touched (the arrays, not the frames between them and the
 * thread's entry, which a GPU keeps in registers or does not have). Threads run as fibers
 * (CUDA blocks, OpenMP parallel constructs) have stacks of their own, laid out alike: their
 * sectors count by offset below the fiber's top, so every thread adds the same ones. OpenMP
 * regions run on the host thread's own stack, where every iteration reuses the same
 * addresses. */
#define LOCAL_SET 131072 /* slots; at most 3/4 used: 3 MB per thread, beyond any cache */
static uint64_t rl_local_depth;
static uintptr_t *rl_local_set;
static uint64_t rl_local_n, rl_local_n_of[2];
static uintptr_t rl_local_recent[256];

static void local_touch(uintptr_t a, uint64_t n) {
  uintptr_t lo = a, hi = a + (n ? n : 1) - 1;
  int fiber = rl_stack_hi != rl_main_hi;
  if (fiber) {
    if (a >= rl_stack_hi) return;
    /* offsets below the fiber's top, tagged apart from host-stack addresses */
    lo = ((uintptr_t)1 << 62) | (rl_stack_hi - 1 - hi);
    hi = ((uintptr_t)1 << 62) | (rl_stack_hi - 1 - a);
  }
  if (!rl_local_set) rl_local_set = calloc(LOCAL_SET, sizeof *rl_local_set);
  if (!rl_local_set) return;
  for (uintptr_t s = lo >> 5; s <= hi >> 5 && 4 * rl_local_n < 3 * LOCAL_SET; s++) {
    if (rl_local_recent[s & 255] == s) continue; /* seen lately: already in the set */
    rl_local_recent[s & 255] = s;
    uint64_t h = (s * 0x9E3779B97F4A7C15ull) >> 47; /* 17 bits */
    while (rl_local_set[h] && rl_local_set[h] != s) h = (h + 1) & (LOCAL_SET - 1);
    if (!rl_local_set[h]) {
      rl_local_set[h] = s;
      /* host-stack sectors and fiber offsets apart: an OpenMP team's first thread runs on
       * the host stack, the others as fibers, each holding the same arrays */
      rl_local_n++;
      uint64_t k = ++rl_local_n_of[fiber];
      if (32 * k > rl_local_depth) rl_local_depth = 32 * k;
    }
  }
}

static void local_reset(void) {
  rl_local_depth = 0;
  if (rl_local_set && rl_local_n) memset(rl_local_set, 0, LOCAL_SET * sizeof *rl_local_set);
  memset(rl_local_recent, 0, sizeof rl_local_recent);
  rl_local_n = rl_local_n_of[0] = rl_local_n_of[1] = 0;
}

static int classify(uintptr_t a) { /* 0 global, 1 shared, 2 local, 3 register/param */
  /* OpenMP: the host's own frames (arrays declared in main and mapped to the device) are
   * device global memory; the region's frames below the entry are local/team memory */
  if (rl_omp_sp && a >= rl_omp_sp && a < rl_main_hi && a >= rl_main_lo) return 0;
  if (a >= rl_shared_lo && a < rl_shared_hi) return 1;
  if (a >= rl_stack_lo && a < rl_stack_hi) return 2;
  if (a >= rl_main_lo && a < rl_main_hi) return 3;
  if (a >= rl_regs_lo && a < rl_regs_hi) return 3;
  return 0;
}

/* ---- stall watchdog. A sampled launch runs its blocks out of order (the last one second,
 * then a sample of the interior, each after up to RL_WARM_BLOCKS blocks before it); a block
 * that waits for another block (a spin on a flag that an earlier block sets: sptrsv's
 * sync-free triangular solve) then never ends. Seen as 2^24 global loads in a row
 * without a global store or atomic, once the block has run for RL_STALL_SECONDS and 20 times
 * as long as block 0. The program then exits with RL_EXIT_STALL, naming the kernel on stderr,
 * and the driver (_exec.py) reruns it with that kernel's launches run whole and in block
 * order (RL_NO_SAMPLE). */
#define RL_EXIT_STALL 86
static const char *cur_name; /* the kernel being counted (set in __rl_kbegin) */
/* the mangled name of the kernel function the launch entered (CUDA: the build calls
 * __rl_instance at each kernel's entry), NULL until a thread enters one */
static const char *cur_instance;
void __rl_instance(const char *mangled) {
  if (rl_in_kernel && !cur_instance) cur_instance = mangled;
}
static int rl_sampling;          /* running a sampled launch's blocks (out of order) */
static double rl_blk_t0, rl_blk0_secs, rl_stall_secs = 10.0;
static uint64_t rl_loads_run, rl_stall_mask = (1ull << 24) - 1;
double __rl_now(void);

static void stall_check(void) {
  double t = __rl_now() - rl_blk_t0;
  if (t < rl_stall_secs || t < 20.0 * rl_blk0_secs) return;
  fprintf(stderr, "rl: stalled: a sampled block of kernel %s ran %.1f s, its last %llu global "
          "loads without a store (block 0: %.3f s); it waits for blocks the sample runs later "
          "or skips\nrl: stalled kernel: %s\n", cur_name, t,
          (unsigned long long)rl_loads_run, rl_blk0_secs, cur_name);
  fflush(stderr);
  if (rl_out) fflush(rl_out);
  _exit(RL_EXIT_STALL);
}

static inline void stall_watch(int write) {
  if (!rl_sampling) return;
  if (write) rl_loads_run = 0;
  else if ((++rl_loads_run & rl_stall_mask) == 0) stall_check();
}

/* count one load or store (`write`) of n bytes at a; returns its class */
static int mem_access(uintptr_t a, uint64_t n, int write) {
  int k = classify(a);
  switch (k) {
  case 0:
    if (write) { g_st.n++; g_st.bytes += n; } else { g_ld.n++; g_ld.bytes += n; }
    record(a, n, write, 0);
    stall_watch(write);
    break;
  case 1: if (write) { s_st.n++; s_st.bytes += n; } else { s_ld.n++; s_ld.bytes += n; } break;
  case 2: if (write) { l_st.n++; l_st.bytes += n; } else { l_ld.n++; l_ld.bytes += n; } break;
  default: break;
  }
  return k;
}

/* before a volatile load or store (instrument.py): warp-synchronous code (a warp scan or
 * the last steps of a reduction through volatile shared memory) relies on a warp's lanes
 * executing each access together. The CUDA layer's fibers step the warp there
 * (rl_cuda_rt.cpp), as does the OpenMP emulation for the threads of a team (rl_omp.c). */
__attribute__((weak)) void __rl_vol(void *p) { (void)p; }

/* a block run just before a sampled one (RL_WARM_BLOCKS): its global accesses only go
 * through the L2 models, so the sampled block finds what its neighbours brought there */
static int rl_warm;

static void warm_access(uintptr_t a, uint64_t n, int write) {
  if (classify(a) == 0) { record(a, n, write, 1); stall_watch(write); }
}

void __rl_ld(void *p, uint64_t n) {
  if (__rl_on) mem_access((uintptr_t)p, n, 0);
  else if (rl_warm) warm_access((uintptr_t)p, n, 0);
}

void __rl_st(void *p, uint64_t n) {
  if (__rl_on) mem_access((uintptr_t)p, n, 1);
  else if (rl_warm) warm_access((uintptr_t)p, n, 1);
}

/* accesses through pointers into stack arrays indexed at run time (instrument.py
 * local_arrays): the GPU's local memory. Other stack slots count as local accesses only. */
void __rl_lda(void *p, uint64_t n) {
  if (!__rl_on) return;
  uintptr_t a = (uintptr_t)p;
  if (mem_access(a, n, 0) == 2) { a_ld.n++; a_ld.bytes += n; local_touch(a, n); }
}

void __rl_sta(void *p, uint64_t n) {
  if (!__rl_on) return;
  uintptr_t a = (uintptr_t)p;
  if (mem_access(a, n, 1) == 2) { a_st.n++; a_st.bytes += n; local_touch(a, n); }
}

/* global atomics per address in the counted windows of a launch, integer and floating-point
 * ones apart: the GPU's L2 performs the atomics on one address one after another, so the
 * launch lasts at least as long as its most-updated address takes (rfs's float sum into one
 * address: 5 M atomics, 11-17 ms measured, whatever the launch's size); the integer atomics
 * of a warp on one address go as one (atomicPerf's 1.5 M on one counter: 38 us). Open
 * addressing on the address; once HOT_MAX addresses are in a table new ones are left out (the
 * hot ones come early: every block updates them). */
#define HOT_MAX (1u << 22)
typedef struct { uintptr_t *key; uint32_t *n; uint32_t cap, used, max_n; } rl_hot;
static rl_hot hot_int, hot_fp;

static void hot_reset(rl_hot *h) {
  if (h->used) { memset(h->key, 0, (size_t)h->cap * sizeof *h->key);
                 memset(h->n, 0, (size_t)h->cap * sizeof *h->n); }
  h->used = 0; h->max_n = 0;
}

static uint32_t hot_slot(const rl_hot *h, uintptr_t a) {
  uint64_t x = (uint64_t)a * 0x9e3779b97f4a7c15ull;
  uint32_t i = (uint32_t)(x >> 32) & (h->cap - 1);
  while (h->key[i] && h->key[i] != a) i = (i + 1) & (h->cap - 1);
  return i;
}

static void hot_grow(rl_hot *h) {
  rl_hot old = *h;
  h->cap = old.cap ? old.cap * 2 : 4096;
  h->key = calloc(h->cap, sizeof *h->key);
  h->n = calloc(h->cap, sizeof *h->n);
  if (!h->key || !h->n) { free(h->key); free(h->n); *h = old; return; }
  for (uint32_t i = 0; i < old.cap; i++)
    if (old.key[i]) { uint32_t j = hot_slot(h, old.key[i]); h->key[j] = old.key[i];
                      h->n[j] = old.n[i]; }
  free(old.key); free(old.n);
}

static void hot_note(rl_hot *h, uintptr_t a) {
  if (!a) return;
  if (2 * (h->used + 1) > h->cap && h->used < HOT_MAX) hot_grow(h);
  if (!h->cap) return;
  uint32_t i = hot_slot(h, a);
  if (!h->key[i]) {
    if (h->used >= HOT_MAX || 2 * (h->used + 1) > h->cap) return;
    h->key[i] = a; h->used++;
  }
  if (++h->n[i] > h->max_n) h->max_n = h->n[i];
}

static void atom(uintptr_t a, uint64_t n, rl_hot *h) {
  int k = classify(a);
  if (k == 0) {
    g_atom.n++; g_atom.bytes += n; record(a, n, 0, 0); record(a, n, 1, 0);
    hot_note(h, a);
    stall_watch(1);
  }
  else if (k == 1) { s_atom.n++; s_atom.bytes += n; }
}

/* an atomic read-modify-write of n bytes: integer (or compare-and-swap), or a float add */
void __rl_atom(void *p, uint64_t n) { if (__rl_on) atom((uintptr_t)p, n, &hot_int); }

void __rl_atom_f(void *p, uint64_t n) { if (__rl_on) atom((uintptr_t)p, n, &hot_fp); }

/* operations done by runtime helpers that are not instrumented (e.g. warp shuffles) */
void __rl_count_extra(int prec, uint64_t flops, uint64_t intops) {
  if (!__rl_on) return;
  if (prec >= 0 && prec < 3) rl_extra_flops[prec] += flops;
  rl_extra_int += intops;
}

/* Double-precision division as nvcc and ptxas compile it (sm_86 SASS): a reciprocal with
   Newton refinement (the fast path, counted statically: mathops.DIV_EXTRA), taken when the
   numerator's exponent field is at least 54, the divisor is neither huge (exponent field
   0x7f8 and up) nor NaN, and the quotient's exponent field is between 1 and 0x7f8 (the
   checks read the high words as floats: FSETP |hi(a)| >= 6.58e-37 and
   FFMA 0 * hi(b) + hi(q) > 1.47e-39). Otherwise a call to the general routine adds 17
   counted FLOPs (a zero numerator: 8 DFMA and a DMUL before it returns; lid-driven-cavity's
   zero right-hand sides measure the same 17 per division). Which path runs depends on the
   values, so it is decided here, per division, while the program's data is whole (no launch
   skipped, no block left unexecuted so far: a skipped launch leaves zeros behind that the
   GPU run would not have divided). */
#define RL_DDIV_SLOW_FLOPS 17
void __rl_ddiv(double a, double b, double q) {
  if (!__rl_on) return;
  if (__rl_data_partial) { rl_unchecked_div++; return; }
  uint64_t ua, ub, uq;
  memcpy(&ua, &a, 8); memcpy(&ub, &b, 8); memcpy(&uq, &q, 8);
  uint32_t ha = (uint32_t)(ua >> 32) & 0x7fffffffu, hb = (uint32_t)(ub >> 32) & 0x7fffffffu,
           hq = (uint32_t)(uq >> 32) & 0x7fffffffu;
  int fast = ha >= 0x03600000u && hb < 0x7f800000u && hq > 0x00100000u && hq <= 0x7f800000u;
  if (!fast) __rl_count_extra(1, RL_DDIV_SLOW_FLOPS, 0);
}

int __rl_is_shared(const void *p) { return classify((uintptr_t)p) == 1; }
int __rl_mem_class(const void *p) { return classify((uintptr_t)p); }

/* Contended on-chip float atomics (CUDA atomicAdd on shared memory, OpenMP atomic update on
   team memory). Each attempt of the compare-and-swap loop runs the FADD (DADD) again, plus
   one (two) integer compares; the lanes and warps of a block that add to one address at the
   same time retry. The threads of a block taking their n-th such atomic on one address count
   as contending together (k threads); the attempts per thread, max(1, c k + 0.5), fit
   HeCBench's measurements on the RTX 3080: c = 0.22 where blocks share their SM (atomicPerf,
   6048 blocks: k = 1: 1.0 measured; k = 8, one lane per warp: 2.2-2.3; k = 256: 56 single,
   50 double precision; aop's block sums, 1600 blocks of k = 128: 28; threadfence-omp, k = 256:
   60), c = 0.45 for a block alone on its SM (fewer blocks than the 3080's 68 SMs: aop's final
   beta, one block of k = 128: 54; expdist's final sum, k = 256: 121). Counts the attempts
   beyond the first, summed over the k threads, of one such group in a launch of `blocks`
   blocks (teams); prec 0 single, 1 double precision. */
void __rl_count_cas_retries(double k, uint64_t blocks, int prec) {
  double c = blocks < 68 ? 0.45 : 0.22, attempts = c * k + 0.5;
  if (attempts <= 1) return;
  uint64_t retries = (uint64_t)(k * (attempts - 1) + 0.5);
  __rl_count_extra(prec, retries, retries * (uint64_t)(prec + 1));
}

/* a float add done as one atomic read-modify-write (OpenMP's atomic update): native on
   device global memory (no counted FLOP), a compare-and-swap loop around the FADD on
   on-chip memory (one FLOP an attempt). The OpenMP runtime (rl_omp.c) overrides this to add
   the retries of contending threads. */
__attribute__((weak)) void __rl_fatomic(void *p, int prec) {
  if (__rl_on && classify((uintptr_t)p) != 0) __rl_count_extra(prec, 1, 0);
}

void __rl_set_stack(uintptr_t lo, uintptr_t hi) { rl_stack_lo = lo; rl_stack_hi = hi; }
void __rl_set_shared(uintptr_t lo, uintptr_t hi) { rl_shared_lo = lo; rl_shared_hi = hi; }
void __rl_set_regs(uintptr_t lo, uintptr_t hi) { rl_regs_lo = lo; rl_regs_hi = hi; }
void __rl_reset_stack(void) { rl_stack_lo = rl_main_lo; rl_stack_hi = rl_main_hi; }

static void main_stack(void) {
  pthread_attr_t at;
  void *addr; size_t sz;
  if (pthread_getattr_np(pthread_self(), &at) == 0) {
    pthread_attr_getstack(&at, &addr, &sz);
    rl_stack_lo = rl_main_lo = (uintptr_t)addr; rl_stack_hi = rl_main_hi = (uintptr_t)addr + sz;
    pthread_attr_destroy(&at);
  }
}

/* ---- launches ------------------------------------------------------------------------- */
typedef struct { char *name; int seen; } rl_kseen;
static rl_kseen kseen[4096];
static int nkseen;

static rl_kseen *kernel_entry(const char *name) {
  for (int i = 0; i < nkseen; i++)
    if (strcmp(kseen[i].name, name) == 0) return &kseen[i];
  if (nkseen == 4096) return NULL;
  kseen[nkseen].name = strdup(name);
  return &kseen[nkseen++];
}

/* RL_EXPECT's lines (fragments of 1 to 511 characters; others are ignored) into rl_wants */
static void expect_parse(const char *list) {
  for (const char *p = list; p && *p;) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n > 0 && n < 512) {
      int i = 0;
      while (i < nwants && !(strlen(rl_wants[i].frag) == n && strncmp(rl_wants[i].frag, p, n) == 0))
        i++;
      if (i == nwants) {
        rl_wants = realloc(rl_wants, (size_t)(nwants + 1) * sizeof *rl_wants);
        char *f = malloc(n + 1);
        memcpy(f, p, n);
        f[n] = 0;
        rl_wants[nwants++] = (rl_want){f, 0};
      }
      rl_wants[i].times++;
    }
    if (!e) break;
    p = e + 1;
  }
}

static void init_once(void) {
  static int done;
  if (done) return;
  done = 1;
  const char *o = getenv("RL_OUT");
  rl_out = o ? fopen(o, "a") : stderr;
  if (!rl_out) rl_out = stderr;
  if (getenv("RL_LAUNCHES")) rl_max_launches = atoi(getenv("RL_LAUNCHES"));
  if (getenv("RL_SKIP_AFTER")) rl_skip_after = atoi(getenv("RL_SKIP_AFTER"));
  expect_parse(getenv("RL_EXPECT"));
  rl_only = getenv("RL_KERNEL");
  if (rl_only && !*rl_only) rl_only = NULL;
  const char *l2 = getenv("RL_L2");
  int ways = getenv("RL_L2_WAYS") ? atoi(getenv("RL_L2_WAYS")) : 16;
  while (l2 && *l2 && nl2 < MAX_L2) {
    char *end;
    unsigned long long b = strtoull(l2, &end, 10);
    if (end == l2) break;
    l2_init(&l2s[nl2++], b, ways);
    l2 = *end == ',' ? end + 1 : end;
  }
  rl_snap = calloc(__rl_nbb + 1, 8);
  rl_acc = calloc(__rl_nbb + 1, sizeof(double));
  main_stack();
  extern char __data_start[], _end[];
  __rl_alloc_note(__data_start, (size_t)(_end - __data_start));
}

static int name_matches(const char *name) {
  if (!rl_only) return 1;
  return strstr(name, rl_only) != NULL;
}

static int cur_index;
static uint64_t blocks_total, blocks_counted;
static char grid_s[96], block_s[96];
static uint64_t *block_work; /* per counted block: dynamic basic blocks executed */
static size_t nblock_work, block_work_cap;

/* returns 0 = run and count, 1 = run uncounted, 2 = skip (do not run) */
int __rl_kbegin(const char *name) {
  init_once();
  rl_kseen *k = kernel_entry(name);
  if (!k || !name_matches(name) || rl_in_kernel) return 1;
  if (k->seen >= rl_max_launches) {
    if (rl_skip_after) __rl_data_partial = 1;
    return rl_skip_after ? 2 : 1;
  }
  cur_index = k->seen++;
  cur_name = k->name;
  cur_instance = NULL;
  rl_in_kernel = 1;
  memset(rl_acc, 0, __rl_nbb * sizeof(double));
  memset(rl_mem_w, 0, sizeof rl_mem_w);
  memset(&g_ld, 0, sizeof g_ld); memset(&g_st, 0, sizeof g_st);
  memset(&s_ld, 0, sizeof s_ld); memset(&s_st, 0, sizeof s_st);
  memset(&l_ld, 0, sizeof l_ld); memset(&l_st, 0, sizeof l_st);
  memset(&a_ld, 0, sizeof a_ld); memset(&a_st, 0, sizeof a_st);
  local_reset();
  memset(&g_atom, 0, sizeof g_atom); memset(&s_atom, 0, sizeof s_atom);
  hot_reset(&hot_int); hot_reset(&hot_fp);
  memset(rl_extra_flops, 0, sizeof rl_extra_flops); rl_extra_int = 0;
  memset(rl_extra_w, 0, sizeof rl_extra_w);
  rl_unchecked_div = 0;
  tw_max = 0; tw_warp = tw_sum = 0;
  blocks_total = blocks_counted = 1;
  rl_first_set = 0;
  nblock_work = 0;
  __rl_spmd_flag = 0;
  __rl_omp_shares = 0;
  grid_s[0] = block_s[0] = 0;
  return 0;
}

void __rl_launch_shape(uint64_t gx, uint64_t gy, uint64_t gz, uint64_t bx, uint64_t by,
                       uint64_t bz) {
  snprintf(grid_s, sizeof grid_s, "[%llu,%llu,%llu]", (unsigned long long)gx,
           (unsigned long long)gy, (unsigned long long)gz);
  snprintf(block_s, sizeof block_s, "[%llu,%llu,%llu]", (unsigned long long)bx,
           (unsigned long long)by, (unsigned long long)bz);
}

/* counting window: the whole launch (OpenMP) or one sampled block (CUDA) */
static void mem_vec(uint64_t *v) {
  rl_pair *ps[NMEM] = {&g_ld, &g_st, &s_ld, &s_st, &l_ld, &l_st, &g_atom, &s_atom,
                       &a_ld, &a_st};
  for (int i = 0; i < NMEM; i++) { v[2 * i] = ps[i]->n; v[2 * i + 1] = ps[i]->bytes; }
}

static double rl_win_t0, rl_last_win_secs; /* a window's start, the last one's duration */

/* 0 when RL_NO_SAMPLE (kernel names, one per line) names the kernel being counted: its
 * launches run whole, in block order (a sampled block of it stalled in an earlier run) */
int __rl_sampling_allowed(void) {
  const char *e = getenv("RL_NO_SAMPLE");
  if (!e || !*e || !cur_name) return 1;
  size_t n = strlen(cur_name);
  for (const char *p = e; *p;) {
    const char *q = strchr(p, '\n');
    size_t len = q ? (size_t)(q - p) : strlen(p);
    if (len == n && strncmp(p, cur_name, n) == 0) return 0;
    if (!q) break;
    p = q + 1;
  }
  return 1;
}

void __rl_window_begin(void) {
  memcpy(rl_snap, __rl_bbc, __rl_nbb * 8);
  for (int i = 0; i < nl2; i++) {
    l2s[i].rd_snap = l2s[i].rd_miss;
    l2s[i].wd_snap = l2s[i].dirtied;
  }
  for (int i = 0; i < 3; i++) rl_extra_snap[i] = rl_extra_flops[i];
  rl_extra_snap[3] = rl_extra_int;
  mem_vec(rl_mem_snap);
  rl_win_t0 = __rl_now();
  __rl_on = 1;
}

/* close a window whose counts stand for `w` blocks (1 unless blocks are sampled); `block`:
 * the window is one block (team), not the code of an OpenMP region around its teams */
static void window_close(double w, int block) {
  __rl_on = 0;
  rl_last_win_secs = __rl_now() - rl_win_t0;
  uint64_t work = 0, mv[2 * NMEM];
  for (uint64_t i = 0; i < __rl_nbb; i++) {
    uint64_t d = __rl_bbc[i] - rl_snap[i];
    rl_acc[i] += w * (double)d;
    work += d;
  }
  mem_vec(mv);
  for (int i = 0; i < 2 * NMEM; i++) rl_mem_w[i] += w * (double)(mv[i] - rl_mem_snap[i]);
  /* a sampled block's read misses stand for the blocks it represents; data the earlier
   * sampled blocks already brought into the L2 (tables every block reads) is not re-counted */
  for (int i = 0; i < nl2; i++) l2s[i].rd_w += w * (double)(l2s[i].rd_miss - l2s[i].rd_snap);
  /* the same for sectors made dirty: hot sectors every block updates (atomic counters,
   * histograms) are dirtied once, by the first sampled block, not once per block */
  for (int i = 0; i < nl2; i++) l2s[i].wd_w += w * (double)(l2s[i].dirtied - l2s[i].wd_snap);
  for (int i = 0; i < 3; i++) rl_extra_w[i] += w * (double)(rl_extra_flops[i] - rl_extra_snap[i]);
  rl_extra_w[3] += w * (double)(rl_extra_int - rl_extra_snap[3]);
  if (block && !rl_first_set && (rl_dist_rd || rl_dist_wr)) {
    rl_first_rd = rl_dist_rd; rl_first_wr = rl_dist_wr; rl_first_set = 1;
  }
  if (nblock_work == block_work_cap) {
    block_work_cap = block_work_cap ? block_work_cap * 2 : 64;
    block_work = realloc(block_work, block_work_cap * 8);
  }
  block_work[nblock_work++] = work;
}

void __rl_window_end_w(double w) { window_close(w, 1); }

void __rl_window_end(void) { window_close(1.0, 1); }

/* a window that is not one block/team (code of an OpenMP region around its teams): counted,
 * but left out of the per-block work list that judges homogeneity */
void __rl_window_end_nw(double w) {
  window_close(w, 0);
  nblock_work--;
}

void __rl_blocks(uint64_t total, uint64_t counted) { blocks_total = total; blocks_counted = counted; }

/* ---- sampled launches: a grid (CUDA) or teams (OpenMP) too large to count whole ---------
 * Block 0 and the last block are counted and stand for themselves; a sample of the interior
 * blocks stands for all of them. The interior is cut into K strata (K a power of two) visited
 * in bit-reversed order, each at a fixed pseudo-random place, so every prefix of 2^m visits
 * is a jittered systematic sample with stride K / 2^m: edge rows of a stencil, the few busy
 * blocks of a grid-stride loop and triangular loops are all met in proportion. Sampling stops at such a
 * prefix (at least RL_SAMPLE_BLOCKS, default 8) once the interior's mean work (dynamic basic
 * blocks) has a standard error within 1% and block 0 looks like the interior, when doubling
 * again would pass RL_SAMPLE_BUDGET seconds (default 4), or at RL_SAMPLE_MAX (default 1024).
 * Interior windows are counted with weight 1 and scaled once the sample size is known. */
static double *rl_base_acc;
static double rl_base_mem[2 * NMEM], rl_base_extra[4], rl_base_rd[MAX_L2], rl_base_wd[MAX_L2];

static void interior_begin(void) {
  if (!rl_base_acc) rl_base_acc = calloc(__rl_nbb + 1, sizeof(double));
  memcpy(rl_base_acc, rl_acc, __rl_nbb * sizeof(double));
  memcpy(rl_base_mem, rl_mem_w, sizeof rl_mem_w);
  memcpy(rl_base_extra, rl_extra_w, sizeof rl_extra_w);
  for (int i = 0; i < nl2; i++) { rl_base_rd[i] = l2s[i].rd_w; rl_base_wd[i] = l2s[i].wd_w; }
}

/* what was counted since interior_begin, times f (the L2 models' misses and dirtied sectors
 * times f_l2: they come from the warmed samples only) */
static void interior_scale(double f, double f_l2) {
  for (uint64_t i = 0; i < __rl_nbb; i++)
    rl_acc[i] = rl_base_acc[i] + f * (rl_acc[i] - rl_base_acc[i]);
  for (int i = 0; i < 2 * NMEM; i++) rl_mem_w[i] = rl_base_mem[i] + f * (rl_mem_w[i] - rl_base_mem[i]);
  for (int i = 0; i < 4; i++) rl_extra_w[i] = rl_base_extra[i] + f * (rl_extra_w[i] - rl_base_extra[i]);
  for (int i = 0; i < nl2; i++) {
    l2s[i].rd_w = rl_base_rd[i] + f_l2 * (l2s[i].rd_w - rl_base_rd[i]);
    l2s[i].wd_w = rl_base_wd[i] + f_l2 * (l2s[i].wd_w - rl_base_wd[i]);
  }
}

double __rl_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* a counted launch's first block (team) took long enough that all `nblocks` would take more
 * than RL_LAUNCH_BUDGET seconds (default 5): the rest are sampled (CUDA layer, rl_omp.c) */
int __rl_over_launch_budget(double t0, uint64_t nblocks) {
  if (nblocks <= 3) return 0;
  const char *b = getenv("RL_LAUNCH_BUDGET");
  double budget = b ? atof(b) : 5.0;
  return budget > 0 && (__rl_now() - t0) * (double)nblocks > budget;
}

/* where in stratum r its block falls, in [0, 1): fixed pseudo-random (splitmix64), so a
 * sample never lines up with a period of the grid (a row of blocks) */
static double jitter(uint64_t r) {
  uint64_t z = r + 0x9e3779b97f4a7c15ull * 4839;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z ^= z >> 31;
  return (double)(z >> 11) * 0x1.0p-53;
}

static uint64_t bit_reverse(uint64_t j, int bits) {
  uint64_t r = 0;
  for (int b = 0; b < bits; b++, j >>= 1) r = (r << 1) | (j & 1);
  return r;
}

/* the k interior works known well enough: standard error of their mean within 1%, and
 * block 0 (work0 >= 0) within 10% of that mean */
static int work_settled(const uint64_t *w, uint64_t k, double work0) {
  double mean = 0, var = 0;
  for (uint64_t i = 0; i < k; i++) mean += (double)w[i];
  mean /= (double)k;
  for (uint64_t i = 0; i < k; i++) var += ((double)w[i] - mean) * ((double)w[i] - mean);
  var /= (double)(k > 1 ? k - 1 : 1);
  if (mean <= 0) return work0 <= 0;
  if (work0 >= 0 && (work0 > 1.1 * mean || work0 < mean / 1.1)) return 0;
  return var / (double)k <= 1e-4 * mean * mean;
}

uint64_t __rl_last_block_work(void) { return nblock_work ? block_work[nblock_work - 1] : 0; }

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

typedef void (*rl_block_run)(uint64_t block, int counted, void *ctx);

/* count a sample of blocks `from`.. of an n-block launch (from = 1: block 0 was counted
 * already, its work `work0`, or -1 if it was not a window of its own); with `run_rest` the
 * blocks left out run uncounted afterwards. Returns the number of blocks counted. */
uint64_t __rl_sample_launch(uint64_t n, uint64_t from, double work0, rl_block_run run,
                            void *ctx, int run_rest) {
  const char *e_min = getenv("RL_SAMPLE_BLOCKS"), *e_max = getenv("RL_SAMPLE_MAX");
  const char *e_budget = getenv("RL_SAMPLE_BUDGET");
  uint64_t kmin = e_min && atoll(e_min) > 0 ? (uint64_t)atoll(e_min) : 8;
  uint64_t kmax = e_max && atoll(e_max) > 0 ? (uint64_t)atoll(e_max) : 1024;
  if (kmax < kmin) kmax = kmin;
  double budget = e_budget ? atof(e_budget) : 4.0;
  uint64_t counted = from == 0 ? 0 : 1;
  if (from == 0 && n > 0) {
    __rl_window_begin(); run(0, 1, ctx); __rl_window_end_w(1.0);
    work0 = (double)__rl_last_block_work();
    counted++;
  }
  /* block 0 ran in order (here or in the caller, whose window was the last); the others
   * run out of order from here on: watched for stalls (stall_check) */
  rl_blk0_secs = rl_last_win_secs;
  const char *e_stall = getenv("RL_STALL_SECONDS");
  if (e_stall) rl_stall_secs = atof(e_stall);
  rl_sampling = rl_stall_secs > 0;
#define RL_BLOCK_START() (rl_blk_t0 = __rl_now(), rl_loads_run = 0)
  if (n > 1) {
    RL_BLOCK_START();
    __rl_window_begin(); run(n - 1, 1, ctx); __rl_window_end_w(1.0); counted++;
  }
  uint64_t m = n > 2 ? n - 2 : 0, k = 0, *seen = NULL;
  /* RL_WARM_BLOCKS=W: up to W blocks before each sampled interior block run first,
   * uncounted, through the L2 models only (each block still runs once): on the GPU the
   * blocks resident beside it have brought the rows a stencil shares with them, which an
   * isolated sample would count as misses of its own. Warming has its own time budget and
   * does not shorten the sample; once it is spent (checked at power-of-two sample sizes,
   * so the warmed samples are a systematic sample themselves) later samples count their
   * work but not their L2 misses, which are extrapolated from the warmed ones (kw) */
  const char *e_warm = getenv("RL_WARM_BLOCKS");
  uint64_t warm = e_warm && atoll(e_warm) > 0 ? (uint64_t)atoll(e_warm) : 0;
  uint8_t *ran = warm && m ? calloc(n / 8 + 1, 1) : NULL;
  if (!ran) warm = 0;
#define RL_RAN(b) (ran[(b) >> 3] & (1u << ((b) & 7)))
#define RL_SET_RAN(b) (ran[(b) >> 3] |= (uint8_t)(1u << ((b) & 7)))
  if (ran) { RL_SET_RAN(0); RL_SET_RAN(n - 1); }
  if (m) {
    uint64_t K = 1;
    int bits = 0;
    while (K < kmax && K < m) { K <<= 1; bits++; }
    seen = malloc(K * sizeof *seen);
    interior_begin();
    size_t w0 = nblock_work;
    double t0 = __rl_now(), t_warm = 0;
    uint64_t kw = 0;
    int warming = warm > 0;
    double rd0[MAX_L2], wd0[MAX_L2];
    for (uint64_t j = 0; j < K; j++) {
      uint64_t r = bit_reverse(j, bits), b;
      if (K >= m) {
        if (r >= m) continue;
        b = 1 + r;
      } else {
        b = 1 + (uint64_t)(((double)r + jitter(r)) * (double)m / (double)K);
      }
      if (ran) RL_SET_RAN(b);
      if (warming) {
        double tw = __rl_now();
        rl_warm = 1;
        for (uint64_t p = b > warm ? b - warm : 1; p < b; p++)
          if (!RL_RAN(p)) { RL_BLOCK_START(); run(p, 0, ctx); RL_SET_RAN(p); }
        rl_warm = 0;
        t_warm += __rl_now() - tw;
      }
      int l2_out = warm && !warming; /* past the warming budget: misses left out */
      if (l2_out)
        for (int i = 0; i < nl2; i++) { rd0[i] = l2s[i].rd_w; wd0[i] = l2s[i].wd_w; }
      RL_BLOCK_START();
      __rl_window_begin(); run(b, 1, ctx); __rl_window_end_w(1.0);
      if (l2_out)
        for (int i = 0; i < nl2; i++) { l2s[i].rd_w = rd0[i]; l2s[i].wd_w = wd0[i]; }
      else
        kw++;
      seen[k++] = b;
      if (k < m && k >= kmin && (k & (k - 1)) == 0) {
        if (work_settled(block_work + w0, k, work0)) break;
        if (budget > 0 && 2.0 * (__rl_now() - t0 - t_warm) > budget) break;
        if (warming && budget > 0 && t_warm > budget) warming = 0;
      }
    }
    interior_scale((double)m / (double)k, kw ? (double)m / (double)kw : 0.0);
    counted += k;
  }
  rl_sampling = 0;
#undef RL_BLOCK_START
  if (!run_rest && counted < n) __rl_data_partial = 1;
  if (run_rest) {
    qsort(seen, k, sizeof *seen, cmp_u64);
    uint64_t s = 0;
    for (uint64_t b = from; b + 1 < n; b++) {
      while (s < k && seen[s] < b) s++;
      if (b == 0 || (s < k && seen[s] == b) || (ran && RL_RAN(b))) continue;
      run(b, 0, ctx);
    }
  }
#undef RL_RAN
#undef RL_SET_RAN
  free(ran);
  free(seen);
  return counted;
}

static void emit(void) {
  FILE *f = rl_out;
  uint64_t srd, swr, ord, owr, ofr[2], ard, awr;
  footprint(&ord, &owr, ofr, &ard, &awr);
  pages_reset(&srd, &swr);
  fprintf(f, "{\"kernel\":\"%s\",\"launch\":%d,", cur_name, cur_index);
  if (grid_s[0]) fprintf(f, "\"grid\":%s,\"block\":%s,", grid_s, block_s);
  if (cur_instance) fprintf(f, "\"instance\":\"%s\",", cur_instance);
  fprintf(f, "\"blocks_total\":%llu,\"blocks_counted\":%llu,\"bb\":[",
          (unsigned long long)blocks_total, (unsigned long long)blocks_counted);
  int first = 1;
  for (uint64_t i = 0; i < __rl_nbb; i++)
    if (rl_acc[i] != 0.0) {
      fprintf(f, "%s[%llu,%.17g]", first ? "" : ",", (unsigned long long)i, rl_acc[i]);
      first = 0;
    }
  fprintf(f, "],\"block_work\":[");
  for (size_t i = 0; i < nblock_work && i < 64; i++)
    fprintf(f, "%s%llu", i ? "," : "", (unsigned long long)block_work[i]);
  fprintf(f, "]");
  static const char *mem_names[NMEM] = {"global_load", "global_store", "shared_load",
                                     "shared_store", "local_load", "local_store",
                                     "global_atomic", "shared_atomic", "local_array_load",
                                     "local_array_store"};
  for (int i = 0; i < NMEM; i++)
    fprintf(f, ",\"%s\":[%.17g,%.17g]", mem_names[i], rl_mem_w[2 * i], rl_mem_w[2 * i + 1]);
  /* sectors and L2 misses are seen for counted blocks only: scale like global accesses */
  double raw_g = (double)(g_ld.n + g_st.n + g_atom.n);
  double sc = raw_g > 0 ? (rl_mem_w[0] + rl_mem_w[2] + rl_mem_w[12]) / raw_g : 1.0;
  fprintf(f, ",\"sector_scale\":%.17g", sc);
  /* the most global integer and float atomics on one address, scaled from the counted
   * blocks like the launch's global atomics (each sampled block stands for others that
   * update it too) */
  double atom_scale = g_atom.n ? rl_mem_w[12] / (double)g_atom.n : 0.0;
  fprintf(f, ",\"atomic_hot\":[%.17g,%.17g]", (double)hot_int.max_n * atom_scale,
          (double)hot_fp.max_n * atom_scale);
  /* over the counted blocks: the longest thread's work, and the work of the warps (their
   * busiest lanes) and of all threads, unscaled */
  fprintf(f, ",\"thread_work\":[%llu,%.17g,%.17g]", (unsigned long long)tw_max, tw_warp,
          tw_sum);
  fprintf(f, ",\"outside_sectors\":[%llu,%llu],\"outside_frames\":[%llu,%llu]",
          (unsigned long long)ord, (unsigned long long)owr, (unsigned long long)ofr[0],
          (unsigned long long)ofr[1]);
  fprintf(f, ",\"alloc_sectors\":[%llu,%llu]", (unsigned long long)ard, (unsigned long long)awr);
  fprintf(f, ",\"extra_flops\":[%.17g,%.17g,%.17g],\"extra_int\":%.17g", rl_extra_w[0],
          rl_extra_w[1], rl_extra_w[2], rl_extra_w[3]);
  fprintf(f, ",\"omp_shares\":%d", __rl_omp_shares);
  fprintf(f, ",\"spmd\":%d,\"local_depth\":%llu,\"unchecked_div\":%llu", __rl_spmd_flag,
          (unsigned long long)rl_local_depth, (unsigned long long)rl_unchecked_div);
  if (rl_first_set)
    fprintf(f, ",\"sectors_first\":[%llu,%llu]", (unsigned long long)rl_first_rd,
            (unsigned long long)rl_first_wr);
  rl_first_set = 0;
  fprintf(f, ",\"sectors_read\":%llu,\"sectors_written\":%llu,\"l2\":[",
          (unsigned long long)srd, (unsigned long long)swr);
  for (int i = 0; i < nl2; i++) {
    uint64_t rd, wb, left;
    double rdw = l2s[i].rd_w, wdw = l2s[i].wd_w;
    l2s[i].rd_w = l2s[i].wd_w = 0;
    l2_finish(&l2s[i], &rd, &wb, &left);
    fprintf(f, "%s{\"bytes\":%llu,\"read_miss_sectors\":%llu,\"write_back_sectors\":%llu,"
            "\"exit_dirty_sectors\":%llu,\"read_miss_weighted\":%.17g,"
            "\"dirtied_weighted\":%.17g}",
            i ? "," : "", (unsigned long long)l2s[i].bytes, (unsigned long long)rd,
            (unsigned long long)wb, (unsigned long long)left, rdw, wdw);
  }
  fprintf(f, "]}\n");
  fflush(f);
}

/* a wanted-kernel fragment names this kernel: the whole name, the name before "@site"
 * (CUDA launch sites), or its end (OpenMP regions: mangled function and line) */
static const char *line_suffix(const char *s, long *line) { /* "..._l123" -> "_l123" */
  const char *u = strrchr(s, '_');
  if (!u || u[1] != 'l' || !u[2]) return NULL;
  for (const char *c = u + 2; *c; c++)
    if (*c < '0' || *c > '9') return NULL;
  *line = atol(u + 2);
  return u;
}

static int expect_match(const char *name, const char *frag) {
  size_t n = strlen(frag), m = strlen(name);
  if (strncmp(name, frag, n) == 0 && (name[n] == 0 || name[n] == '@')) return 1;
  if (m >= n && strcmp(name + m - n, frag) == 0) return 1;
  /* OpenMP regions: same function, line within 8 (profiled sources differ by a few lines) */
  long ln, lf;
  const char *un = line_suffix(name, &ln), *uf = line_suffix(frag, &lf);
  if (!un || !uf || labs(ln - lf) > 8) return 0;
  size_t pn = (size_t)(un - name), pf = (size_t)(uf - frag);
  return pf > 0 && pn >= pf && strncmp(un - pf, frag, pf) == 0;
}

/* every wanted kernel has its launches counted: the rest of the program is not needed. A
 * fragment listed k times wants k distinct kernels (launch sites, template instantiations)
 * with their launches counted: a float and a double instantiation launched alike */
static int expect_done(void) {
  if (!nwants) return 0;
  for (int w = 0; w < nwants; w++) {
    int full = 0;
    for (int i = 0; i < nkseen; i++)
      if (expect_match(kseen[i].name, rl_wants[w].frag) && kseen[i].seen >= rl_max_launches)
        full++;
    if (full < rl_wants[w].times) return 0;
  }
  return 1;
}

void __rl_kend(void) {
  if (!rl_in_kernel) return;
  rl_in_kernel = 0;
  __rl_on = 0;
  emit();
  if (expect_done()) {
    fflush(rl_out);
    fflush(stdout);
    _exit(0);
  }
}

/* OpenMP target regions: the whole region is one window */
int __rl_omp_begin(const char *name) {
  rl_omp_sp = (uintptr_t)__builtin_frame_address(0);
  int r = __rl_kbegin(name);
  if (r == 0) __rl_window_begin();
  if (r != 2) __rl_omp_active = 1;
  return r == 2;
}

void __rl_omp_end(void) {
  __rl_omp_active = 0;
  rl_omp_sp = 0;
  if (!rl_in_kernel) return;
  __rl_window_end_nw(1.0);
  __rl_kend();
}
