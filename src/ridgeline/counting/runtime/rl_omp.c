/* ridgeline counting runtime, OpenMP builds: emulation of the offload launch structure.
 *
 * On the host a target region runs its teams and parallel constructs through libomp, which
 * here gives one team of one thread: regions written CUDA-style (work split by
 * omp_get_team_num()/omp_get_thread_num() under num_teams(N) thread_limit(T)) then do only
 * one thread's share.  The instrumented IR calls the __rl_kmpc_* / __rl_omp_get_* entry
 * points below instead of libomp's; inside a target region they run the region the way the
 * offload launch would: every team in turn (num_teams, default 1), and in each parallel
 * construct every thread (num_threads, else thread_limit, default 1) as a fiber on one OS
 * thread, switching at barriers.  Worksharing loops (static and dynamic schedules, distribute)
 * get each emulated thread's static share; reductions combine sequentially; single/master
 * run on thread 0.  Outside target regions every entry point forwards to libomp.
 *
 * Counted launches with many teams are sampled like CUDA grids (rl_count.c,
 * __rl_sample_launch: first, last and a systematic sample of the others, when teams x
 * threads > RL_FULL_THREADS, or when team 0 shows the launch would exceed
 * RL_LAUNCH_BUDGET seconds): the other teams are not run
 * (RL_SAMPLE_SKIP=0: they run uncounted, so the program's results stay valid). */
#define _GNU_SOURCE
#include <omp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

typedef struct ident ident_t;
typedef void (*micro_t)(int *, int *, ...);

extern int __rl_omp_active, __rl_on;
extern int __rl_in_kernel_now(void);
extern void __rl_window_begin(void);
extern void __rl_window_end_w(double w);
extern void __rl_window_end_nw(double w);
extern void __rl_blocks(uint64_t total, uint64_t counted);
extern uint64_t __rl_last_block_work(void);
extern double __rl_now(void);
extern int __rl_over_launch_budget(double t0, uint64_t nblocks);
extern int __rl_sampling_allowed(void);
extern uint64_t __rl_sample_launch(uint64_t n, uint64_t from, double work0,
                                   void (*run)(uint64_t, int, void *), void *ctx, int run_rest);
extern void __rl_launch_shape(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);
extern void __rl_set_stack(uintptr_t lo, uintptr_t hi);
extern void __rl_reset_stack(void);

/* libomp entry points forwarded to outside target regions */
extern void __kmpc_fork_call(ident_t *, int, micro_t, ...);
extern void __kmpc_fork_teams(ident_t *, int, micro_t, ...);
extern void __kmpc_push_num_teams(ident_t *, int, int, int);
extern void __kmpc_push_num_threads(ident_t *, int, int);
extern void __kmpc_barrier(ident_t *, int);
extern void __kmpc_for_static_init_4(ident_t *, int, int, int *, int32_t *, int32_t *,
                                     int32_t *, int32_t, int32_t);
extern void __kmpc_for_static_init_4u(ident_t *, int, int, int *, uint32_t *, uint32_t *,
                                      int32_t *, int32_t, int32_t);
extern void __kmpc_for_static_init_8(ident_t *, int, int, int *, int64_t *, int64_t *,
                                     int64_t *, int64_t, int64_t);
extern void __kmpc_for_static_init_8u(ident_t *, int, int, int *, uint64_t *, uint64_t *,
                                      int64_t *, int64_t, int64_t);
extern void __kmpc_for_static_fini(ident_t *, int);
extern void __kmpc_dispatch_init_4(ident_t *, int, int, int32_t, int32_t, int32_t, int32_t);
extern void __kmpc_dispatch_init_4u(ident_t *, int, int, uint32_t, uint32_t, int32_t,
                                    int32_t);
extern void __kmpc_dispatch_init_8(ident_t *, int, int, int64_t, int64_t, int64_t, int64_t);
extern void __kmpc_dispatch_init_8u(ident_t *, int, int, uint64_t, uint64_t, int64_t,
                                    int64_t);
extern int __kmpc_dispatch_next_4(ident_t *, int, int *, int32_t *, int32_t *, int32_t *);
extern int __kmpc_dispatch_next_4u(ident_t *, int, int *, uint32_t *, uint32_t *, int32_t *);
extern int __kmpc_dispatch_next_8(ident_t *, int, int *, int64_t *, int64_t *, int64_t *);
extern int __kmpc_dispatch_next_8u(ident_t *, int, int *, uint64_t *, uint64_t *, int64_t *);
extern int __kmpc_reduce_nowait(ident_t *, int, int, size_t, void *, void (*)(void *, void *),
                                void *);
extern void __kmpc_end_reduce_nowait(ident_t *, int, void *);
extern int __kmpc_reduce(ident_t *, int, int, size_t, void *, void (*)(void *, void *), void *);
extern void __kmpc_end_reduce(ident_t *, int, void *);
extern void __kmpc_critical(ident_t *, int, void *);
extern void __kmpc_end_critical(ident_t *, int, void *);
extern void __kmpc_critical_with_hint(ident_t *, int, void *, uint32_t);
extern int __kmpc_single(ident_t *, int);
extern void __kmpc_end_single(ident_t *, int);
extern int __kmpc_master(ident_t *, int);
extern void __kmpc_end_master(ident_t *, int);
extern int __kmpc_masked(ident_t *, int, int);
extern void __kmpc_end_masked(ident_t *, int);

#define MAXARGS 64
#define MAXTHREADS 1024
#define STACK (256 * 1024)

static int push_teams, push_limit, push_threads; /* pending clauses */
static int em_team, em_nteams = 1, em_limit;     /* current team */
static int em_tid = -1, em_nthreads = 1;         /* current thread (-1: not in parallel) */
static int in_teams, in_parallel;
static int teams_undecided; /* team count not given: set by the first distribute loop */
/* reductions (see gpu_reduction_tree) */
/* integer instructions of the device runtime's reduction per thread and chunk, beyond the
 * combines: the shuffle helper's lane and offset arithmetic at each of the five steps, the
 * warp and block bookkeeping. HeCBench's OpenMP reductions on the RTX 3080, counted with the
 * combines' own integer ops and the per-thread OMP_DEVICE_INT_PER_THREAD: the measured
 * integer ops leave, per thread and chunk (each program's median over its regions), 24-65 in
 * eight of twelve programs (babelstream 24, norm2 33, jacobi 35, expdist 37, sad 38,
 * atomicReduction 47, dp 58, michalewicz 65), more in aop (104), wordcount (135) and gpp,
 * about none in metropolis (3); median 41 */
#define RL_RED_INT_PER_CHUNK 40
static int red_flops[3];               /* FLOPs of one combine of the coming reduction */
static int red_ints;                   /* and its integer ops */
static int red_noted;                  /* the instrumenter described the coming reduction */
static int64_t dist_lb, dist_ub, dist_trip; /* the current team's last distribute share */
static int dist_valid;
static int64_t share_iters[MAXTHREADS]; /* iterations of each thread's worksharing share */
static int share_combined[MAXTHREADS];  /* that share came from the team's distribute share */

static void invoke(micro_t fn, int *gtid, int *btid, int argc, void **a) {
  switch (argc) {
  case 0: fn(gtid, btid); break;
  case 1: fn(gtid, btid, a[0]); break;
  case 2: fn(gtid, btid, a[0], a[1]); break;
  case 3: fn(gtid, btid, a[0], a[1], a[2]); break;
  case 4: fn(gtid, btid, a[0], a[1], a[2], a[3]); break;
  case 5: fn(gtid, btid, a[0], a[1], a[2], a[3], a[4]); break;
  case 6: fn(gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5]); break;
  case 7: fn(gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]); break;
  case 8: fn(gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]); break;
  default: {
    /* more arguments: pass all MAXARGS slots (extra ones are ignored by the callee) */
    fn(gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
       a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
       a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36],
       a[37], a[38], a[39], a[40], a[41], a[42], a[43], a[44], a[45], a[46], a[47], a[48],
       a[49], a[50], a[51], a[52], a[53], a[54], a[55], a[56], a[57], a[58], a[59], a[60],
       a[61], a[62], a[63]);
  }
  }
}

typedef void (*fork_t)(ident_t *, int, micro_t, ...);
static void forward_fork(fork_t f, ident_t *loc, int argc, micro_t fn, void **a) {
  /* libomp's fork entries are variadic and read argc of the arguments: pass all MAXARGS
   * slots (COLLECT keeps argc <= MAXARGS; the slots past argc are zero and ignored) */
  f(loc, argc, fn, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
    a[12], a[13], a[14], a[15], a[16], a[17], a[18], a[19], a[20], a[21], a[22], a[23], a[24],
    a[25], a[26], a[27], a[28], a[29], a[30], a[31], a[32], a[33], a[34], a[35], a[36], a[37],
    a[38], a[39], a[40], a[41], a[42], a[43], a[44], a[45], a[46], a[47], a[48], a[49], a[50],
    a[51], a[52], a[53], a[54], a[55], a[56], a[57], a[58], a[59], a[60], a[61], a[62], a[63]);
}

#define COLLECT(argc, a)                                                                    \
  void *a[MAXARGS] = {0};                                                                   \
  if ((argc) > MAXARGS) {                                                                   \
    fprintf(stderr, "rl: OpenMP region with %d arguments (at most %d)\n", argc, MAXARGS);  \
    exit(4);                                                                                \
  }                                                                                         \
  {                                                                                         \
    va_list ap;                                                                             \
    va_start(ap, fn);                                                                       \
    for (int i_ = 0; i_ < (argc); i_++) a[i_] = va_arg(ap, void *);                         \
    va_end(ap);                                                                             \
  }

/* ---- threads of a parallel construct as fibers ----------------------------------------- */
enum { RUN, WAIT, WAIT_WARP, DONE };
typedef struct { ucontext_t ctx; jmp_buf jb; char *stack; int st, started; } fiber;
static fiber *fibers;
static int nfibers, yields, as_fiber;
static jmp_buf sched_jb;
static micro_t par_fn;
static void **par_args;
static int par_argc, par_gtid;
/* microtasks that waited at a barrier: they always run as fibers */
static micro_t fiber_fns[256];
static int nfiber_fns;

static void trampoline(void) {
  int bt = em_tid, gt = par_gtid; /* on the fiber's stack: not global memory */
  invoke(par_fn, &gt, &bt, par_argc, par_args);
  fibers[em_tid].st = DONE;
  _longjmp(sched_jb, 1);
}

static void ensure_fibers(int n) {
  if (n <= nfibers) return;
  fibers = realloc(fibers, (size_t)n * sizeof *fibers);
  for (int i = nfibers; i < n; i++) {
    memset(&fibers[i], 0, sizeof fibers[i]);
    void *m = mmap(NULL, STACK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS |
                   MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) { fprintf(stderr, "rl: allocation failed (fiber stacks)\n"); exit(3); }
    fibers[i].stack = m;
    getcontext(&fibers[i].ctx);
  }
  nfibers = n;
}

static void switch_to(int t) {
  em_tid = t;
  as_fiber = 1;
  __rl_set_stack((uintptr_t)fibers[t].stack, (uintptr_t)fibers[t].stack + STACK);
  if (!_setjmp(sched_jb)) {
    if (!fibers[t].started) {
      fibers[t].started = 1;
      setcontext(&fibers[t].ctx);
    }
    _longjmp(fibers[t].jb, 1);
  }
  as_fiber = 0;
}

/* after a round of the scheduler: warps whose live threads all wait at a volatile access
 * (or at the barrier: threads that diverged into a branch with volatile accesses finish it
 * first) step on together; when none does, the barrier (and any divergent warp step) is
 * released. Returns the number of threads not done. */
static int release_waits(int n) {
  int live = 0, stepped = 0;
  for (int lo = 0; lo < n; lo += 32) {
    int hi = lo + 32 < n ? lo + 32 : n, wl = 0, ww = 0, wb = 0;
    for (int t = lo; t < hi; t++) {
      if (fibers[t].st != DONE) wl++;
      if (fibers[t].st == WAIT_WARP) ww++;
      if (fibers[t].st == WAIT) wb++;
    }
    if (ww && ww + wb == wl) {
      for (int t = lo; t < hi; t++)
        if (fibers[t].st == WAIT_WARP) fibers[t].st = RUN;
      stepped = 1;
    }
  }
  for (int t = 0; t < n; t++)
    if (fibers[t].st != DONE) {
      live++;
      if (!stepped) fibers[t].st = RUN;
    }
  return live;
}

/* rounds of the scheduler until every thread is done */
static void run_rounds(int n) {
  for (;;) {
    for (int t = 0; t < n; t++)
      if (fibers[t].st == RUN) switch_to(t);
    if (!release_waits(n)) break;
  }
  __rl_reset_stack();
}

static void run_fibers(int n) {
  ensure_fibers(n);
  for (int t = 0; t < n; t++) {
    fiber *f = &fibers[t];
    f->st = RUN;
    f->started = 0;
    f->ctx.uc_stack.ss_sp = f->stack;
    f->ctx.uc_stack.ss_size = STACK;
    f->ctx.uc_link = NULL;
    f->ctx.uc_mcontext.fpregs = &f->ctx.__fpregs_mem; /* moved by realloc */
    makecontext(&f->ctx, trampoline, 0);
  }
  run_rounds(n);
}

static int is_fiber_fn(micro_t fn) {
  for (int i = 0; i < nfiber_fns; i++)
    if (fiber_fns[i] == fn) return 1;
  return 0;
}

static void run_parallel(int gtid, micro_t fn, int argc, void **a, int n) {
  int save_tid = em_tid, save_n = em_nthreads;
  for (int t = 0; t < n && t < MAXTHREADS; t++) share_combined[t] = 0; /* no loop shared yet */
  em_nthreads = n;
  in_parallel = 1;
  if (n == 1) {
    int bt = 0;
    em_tid = 0;
    invoke(fn, &gtid, &bt, argc, a);
  } else if (is_fiber_fn(fn)) {
    par_fn = fn; par_args = a; par_argc = argc; par_gtid = gtid;
    run_fibers(n);
  } else {
    /* thread 0 as a fiber: if it never waits at a barrier the others run directly */
    par_fn = fn; par_args = a; par_argc = argc; par_gtid = gtid;
    yields = 0;
    ensure_fibers(n);
    fibers[0].st = RUN; fibers[0].started = 0;
    fibers[0].ctx.uc_stack.ss_sp = fibers[0].stack;
    fibers[0].ctx.uc_stack.ss_size = STACK;
    fibers[0].ctx.uc_link = NULL;
    fibers[0].ctx.uc_mcontext.fpregs = &fibers[0].ctx.__fpregs_mem; /* moved by realloc */
    makecontext(&fibers[0].ctx, trampoline, 0);
    switch_to(0);
    __rl_reset_stack();
    if (yields || fibers[0].st != DONE) {
      /* it waits: restart the whole parallel region as fibers is not possible (thread 0
       * already ran up to its barrier), so continue thread 0 and start the others */
      if (nfiber_fns < 256) fiber_fns[nfiber_fns++] = fn;
      ensure_fibers(n);
      for (int t = 1; t < n; t++) {
        fiber *f = &fibers[t];
        f->st = RUN; f->started = 0;
        f->ctx.uc_stack.ss_sp = f->stack; f->ctx.uc_stack.ss_size = STACK;
        f->ctx.uc_link = NULL;
        f->ctx.uc_mcontext.fpregs = &f->ctx.__fpregs_mem; /* moved by realloc */
        makecontext(&f->ctx, trampoline, 0);
      }
      /* thread 0 waits at its first barrier (or volatile access: its state says which):
       * run 1..n-1 up to theirs, then all onwards */
      run_rounds(n);
    } else {
      for (int t = 1; t < n; t++) {
        int bt = t;
        em_tid = t;
        invoke(fn, &gtid, &bt, argc, a);
      }
    }
  }
  em_tid = save_tid;
  em_nthreads = save_n;
  in_parallel = save_tid >= 0;
}


/* ---- teams ---------------------------------------------------------------------------- */
/* teams without num_teams in a counted launch: the count is decided by the first distribute
 * loop team 0 meets (one team per 256 iterations), then teams are sampled like a CUDA grid
 * when the loop has more than RL_FULL_THREADS iterations or every team would take longer
 * than RL_LAUNCH_BUDGET seconds (a short loop of long iterations: tissue's 131072 iterations
 * each walk 8192 points), else every team runs, counted */
static uint64_t virt_full;
static int small_split; /* the loop has at most RL_FULL_THREADS iterations */

static void decide_teams(int64_t trip) {
  teams_undecided = 0;
  if (trip > 256) {
    int64_t v = (trip + 255) / 256;
    em_nteams = v > (1 << 30) ? (1 << 30) : (int)v;
    small_split = (uint64_t)trip <= virt_full;
  }
}


/* Float atomics on team memory (rl_count.c, __rl_count_cas_retries): per team, the emulated
 * threads taking their n-th such atomic on one address contend together. */
#define FA_CAP 4096
#define FA_THREADS 1024
typedef struct { uintptr_t addr; uint32_t seq, n; int prec; } fa_slot;
static fa_slot fa_tab[FA_CAP];
static int fa_used[FA_CAP], fa_nused;
static uint32_t fa_seq[FA_THREADS];
static int fa_seq_dirty;
extern void __rl_count_cas_retries(double k, uint64_t blocks, int prec);
extern int __rl_mem_class(const void *p);
extern void __rl_count_extra(int prec, uint64_t flops, uint64_t intops);
/* worksharing-loop set-ups of the launch (rl_count.c reports whether there were any: the
 * GPU's per-thread loop scaffolding, omp.omp_device_int_ops, comes with them) */
extern int __rl_omp_shares;

void __rl_fatomic(void *p, int prec) {
  if (!__rl_on || __rl_mem_class(p) == 0) return; /* device global memory: native */
  __rl_count_extra(prec, 1, 0);
  if (!__rl_omp_active) return;
  int t = in_parallel && em_tid >= 0 && em_tid < FA_THREADS ? em_tid : 0;
  uint32_t seq = fa_seq[t]++;
  fa_seq_dirty = 1;
  uintptr_t a = (uintptr_t)p;
  uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (seq * 0xC2B2AE3D27D4EB4Full);
  for (int probe = 0; probe < FA_CAP; probe++) {
    int i = (int)((h + (uint64_t)probe) % FA_CAP);
    fa_slot *e = &fa_tab[i];
    if (e->n == 0) {
      *e = (fa_slot){a, seq, 1, prec};
      fa_used[fa_nused++] = i;
      return;
    }
    if (e->addr == a && e->seq == seq) { e->n++; return; }
  }
  /* table full: this atomic counts as uncontended */
}

static void fa_team_end(void) {
  uint64_t teams = em_nteams > 0 ? (uint64_t)em_nteams : 1;
  for (int j = 0; j < fa_nused; j++) {
    fa_slot *e = &fa_tab[fa_used[j]];
    __rl_count_cas_retries((double)e->n, teams, e->prec);
    e->n = 0;
  }
  fa_nused = 0;
  if (fa_seq_dirty) { memset(fa_seq, 0, sizeof fa_seq); fa_seq_dirty = 0; }
}

/* one team: its body, then the retries of its contended float atomics */
static void team_invoke(micro_t fn, int *gtid, int *btid, int argc, void **a) {
  dist_valid = 0;
  invoke(fn, gtid, btid, argc, a);
  fa_team_end();
}

/* one team of a sampled launch (a callback of the runtime's block sampler) */
typedef struct { micro_t fn; int argc; void **a; } team_call;
static void run_team(uint64_t t, int counted, void *ctx) {
  (void)counted;
  team_call *c = ctx;
  int gtid = 0, bt = 0;
  em_team = (int)t;
  team_invoke(c->fn, &gtid, &bt, c->argc, c->a);
}

void __rl_kmpc_fork_teams(ident_t *loc, int argc, micro_t fn, ...) {
  COLLECT(argc, a)
  if (!__rl_omp_active || in_teams) {
    if (!__rl_omp_active) { forward_fork(__kmpc_fork_teams, loc, argc, fn, a); return; }
    int gt = omp_get_thread_num(), bt = 0;
    invoke(fn, &gt, &bt, argc, a);
    return;
  }
  int gtid = 0;
  int given = push_teams > 0;
  uint64_t nteams = given ? (uint64_t)push_teams : 1;
  int limit = push_limit > 0 ? push_limit : 0;
  push_teams = push_limit = 0;
  int counted = __rl_in_kernel_now() && __rl_on;
  const char *ft = getenv("RL_FULL_THREADS"), *sk = getenv("RL_SAMPLE_SKIP");
  uint64_t full = ft ? strtoull(ft, NULL, 10) : (1ull << 18);
  int run_rest = sk && *sk == '0'; /* unsampled teams run uncounted instead of not at all */
  uint64_t thr = limit > 0 ? (uint64_t)limit : 1;
  in_teams = 1;
  em_limit = limit;
  if (counted && !given) {
    /* team count decided by the region's first distribute loop (see decide_teams) */
    __rl_window_end_nw(1.0);
    teams_undecided = 1;
    virt_full = full;
    small_split = 0;
    em_nteams = 1;
    em_team = 0;
    double t0 = __rl_now();
    __rl_window_begin();
    int bt = 0;
    team_invoke(fn, &gtid, &bt, argc, a);
    teams_undecided = 0;
    nteams = (uint64_t)em_nteams;
    uint64_t k = 1;
    __rl_window_end_w(1.0);
    if (nteams > 1) {
      team_call c = {fn, argc, a};
      if (!__rl_sampling_allowed() || (small_split && !__rl_over_launch_budget(t0, nteams))) {
        __rl_window_begin();
        for (uint64_t t = 1; t < nteams; t++) run_team(t, 1, &c);
        __rl_window_end_w(1.0);
        k = nteams;
      } else {
        k = __rl_sample_launch(nteams, 1, (double)__rl_last_block_work(), run_team, &c,
                               run_rest);
      }
    }
    __rl_launch_shape(nteams, 1, 1, thr, 1, 1);
    __rl_blocks(nteams, k);
    __rl_window_begin(); /* the region's code after the teams */
  } else if (counted && nteams * thr > full && nteams > 3 && __rl_sampling_allowed()) {
    em_nteams = (int)nteams;
    __rl_launch_shape(nteams, 1, 1, thr, 1, 1);
    __rl_window_end_nw(1.0); /* the region's code before the teams */
    team_call c = {fn, argc, a};
    uint64_t k = __rl_sample_launch(nteams, 0, -1.0, run_team, &c, run_rest);
    __rl_blocks(nteams, k);
    __rl_window_begin(); /* the region's code after the teams */
  } else {
    em_nteams = (int)nteams;
    if (counted) __rl_launch_shape(nteams, 1, 1, thr, 1, 1);
    double t0 = __rl_now();
    uint64_t done = nteams;
    for (uint64_t t = 0; t < nteams; t++) {
      int bt = 0;
      em_team = (int)t;
      team_invoke(fn, &gtid, &bt, argc, a);
      if (t == 0 && counted && __rl_sampling_allowed() && __rl_over_launch_budget(t0, nteams)) {
        /* all teams would take too long: team 0 stands for itself, the rest are sampled */
        __rl_window_end_nw(1.0);
        team_call c = {fn, argc, a};
        done = __rl_sample_launch(nteams, 1, -1.0, run_team, &c, run_rest);
        __rl_window_begin();
        break;
      }
    }
    if (counted) __rl_blocks(nteams, done);
  }
  in_teams = 0;
  em_team = 0; em_nteams = 1; em_limit = 0;
}

void __rl_kmpc_fork_call(ident_t *loc, int argc, micro_t fn, ...) {
  COLLECT(argc, a)
  if (!__rl_omp_active) { forward_fork(__kmpc_fork_call, loc, argc, fn, a); return; }
  int n = push_threads > 0 ? push_threads : em_limit > 0 ? em_limit : 1;
  push_threads = 0;
  if (em_limit > 0 && n > em_limit) n = em_limit;
  if (n > MAXTHREADS) n = MAXTHREADS;
  if (in_parallel) n = 1; /* nested parallel: serialized, as on a GPU */
  if (in_parallel) {
    int bt = 0, gt = 0;
    invoke(fn, &gt, &bt, argc, a);
    return;
  }
  run_parallel(0, fn, argc, a, n);
}

void __rl_kmpc_push_num_teams(ident_t *loc, int gtid, int nteams, int limit) {
  if (!__rl_omp_active) { __kmpc_push_num_teams(loc, gtid, nteams, limit); return; }
  push_teams = nteams;
  push_limit = limit;
}

void __rl_kmpc_push_num_threads(ident_t *loc, int gtid, int n) {
  if (!__rl_omp_active) { __kmpc_push_num_threads(loc, gtid, n); return; }
  push_threads = n;
}

/* the current thread of a parallel construct waits (state *st*) for the scheduler; in
 * direct mode (not a fiber) there is nothing to wait for */
static void wait_in_team(int st) {
  if (!in_parallel || em_nthreads <= 1 || !as_fiber) return;
  yields++;
  fiber *f = &fibers[em_tid];
  f->st = st;
  if (!_setjmp(f->jb)) _longjmp(sched_jb, 1);
}

/* a team variable another thread may read or write at the synchronizing call beside this
 * one (see ompshared.py): nothing to do at run time, the call only orders the optimizer */
void __rl_omp_shared(void *var) { (void)var; }

void __rl_kmpc_barrier(ident_t *loc, int gtid) {
  if (!__rl_omp_active) { __kmpc_barrier(loc, gtid); return; }
  wait_in_team(WAIT);
}

/* before a volatile load or store (instrument.py): the threads of a warp (32 consecutive
 * thread numbers) take it together, as warp-synchronous code written for the GPU expects
 * (split-omp's scan through volatile team-local memory) */
void __rl_vol(void *p) {
  (void)p;
  if (__rl_omp_active) wait_in_team(WAIT_WARP);
}

/* ---- reductions as the GPU runs them --------------------------------------------------
 * clang's offload code for `distribute parallel for reduction(...)` deals the loop out in
 * chunks of one iteration per thread of the block and runs a parallel region, reduction
 * included, per chunk. The device runtime reduces a full warp by shuffles (five combines per
 * thread), a partial warp (a block not a multiple of 32 threads) by a tree over its lanes
 * (lanes - 1 combines), then the warps' results in warp 0. The combine's FLOPs come from the
 * instrumenter (__rl_omp_red_flops, before each __kmpc_reduce call); the emulation itself
 * combines once per thread. Per thread of a full warp and chunk the RTX 3080 rows measure 6
 * combines (babelstream's and dp's dot products, single and double precision: 6.0-6.4 FLOPs
 * an iteration beyond the loop body), per block and chunk W - 1 more in single precision and
 * 32 per step of the warps' tree (3 x 32 for W = 8 warps) in double precision. An integer
 * combine (+, min, max on integers) follows the single-precision tree as integer ops; the
 * runtime's own integer work adds RL_RED_INT_PER_CHUNK per thread and chunk. */

void __rl_omp_red_flops(int sp, int dp, int hp, int ints) {
  red_flops[0] = sp; red_flops[1] = dp; red_flops[2] = hp; red_ints = ints; red_noted = 1;
}

static int64_t trip_of(int64_t lb, int64_t ub, int64_t incr) {
  if (incr == 0) incr = 1;
  return incr > 0 ? (ub < lb ? 0 : (ub - lb) / incr + 1) : (lb < ub ? 0 : (lb - ub) / (-incr) + 1);
}

static int cur_slot(void);
static void my_share(int sched, int *id, int *n);

/* before a worksharing share is computed: a thread's loop over exactly the bounds its team's
 * distribute share gave is the inner loop of a combined `distribute parallel for` */
static void note_share_in(int sched, int64_t lb, int64_t ub, int64_t incr, int64_t chunk) {
  if (sched >= 91 && sched <= 95) return;
  int s = cur_slot();
  int64_t trip = trip_of(lb, ub, incr);
  share_combined[s] = dist_valid && lb == dist_lb && ub == dist_ub;
  int id, n;
  my_share(sched, &id, &n);
  if ((sched == 33 || sched == 65) && chunk > 0) {
    int64_t nchunks = (trip + chunk - 1) / chunk, mine = id < nchunks ? (nchunks - id + n - 1) / n : 0;
    int64_t it = mine * chunk;
    if (mine && (nchunks - 1) % n == id && trip % chunk) it -= chunk - trip % chunk;
    share_iters[s] = it;
  } else {
    share_iters[s] = trip / n + (id < trip % n ? 1 : 0);
  }
}

static void note_share_out(int sched, int64_t lb, int64_t ub, int64_t incr) {
  if (sched < 91 || sched > 95 || in_parallel) return;
  dist_lb = lb; dist_ub = ub; dist_trip = trip_of(lb, ub, incr); dist_valid = 1;
}

static int ceil_log2(int64_t v) {
  int k = 0;
  while (((int64_t)1 << k) < v) k++;
  return k;
}

/* a thread of a parallel construct reaches its reduction: count what the GPU's reduction
 * tree adds to the one combine the emulation runs */
static void gpu_reduction_tree(void) {
  int f[4] = {red_flops[0], red_flops[1], red_flops[2], red_ints};
  int noted = red_noted;
  red_flops[0] = red_flops[1] = red_flops[2] = red_ints = red_noted = 0;
  if (!__rl_on || !in_parallel || em_tid < 0 || !noted) return;
  int s = cur_slot();
  int combined = share_combined[s];
  int64_t n = em_nthreads;
  if (!combined && n <= 1) return; /* one thread: the device runtime returns at once */
  int64_t k = combined ? share_iters[s] : 1;  /* chunks this thread took part in */
  int64_t block = n > 1 ? n : 128;            /* threads of the GPU block */
  int64_t warps = (block + 31) / 32, partial = block % 32;
  int full = n <= 1 || em_tid / 32 < block / 32; /* this thread's warp is a full one */
  /* the team's chunks, counted by thread 0 */
  int64_t chunks = em_tid != 0 ? 0 : combined ? (dist_trip + block - 1) / block : 1;
  for (int p = 0; p < 4; p++) {
    if (!f[p]) continue;
    uint64_t per_thread = k > 0 ? (uint64_t)((full ? 6 : 1) * k - 1) : 0;
    uint64_t per_block = (uint64_t)(partial ? partial - 1 : 0) +
        (p == 1 ? (uint64_t)(32 * ceil_log2(warps)) : (uint64_t)(warps - 1));
    uint64_t ops = (uint64_t)f[p] * (per_thread + per_block * (uint64_t)chunks);
    if (p < 3) __rl_count_extra(p, ops, 0);
    else __rl_count_extra(-1, 0, ops);
  }
  /* the device runtime's own integer work for each chunk's reduction */
  if (k > 0) __rl_count_extra(-1, 0, (uint64_t)RL_RED_INT_PER_CHUNK * (uint64_t)k);
}

/* ---- worksharing ---------------------------------------------------------------------- */
static void my_share(int sched, int *id, int *n) {
  if (sched >= 91 && sched <= 95) { *id = em_team; *n = em_nteams; }
  else if (in_parallel) { *id = em_tid; *n = em_nthreads; }
  else { *id = 0; *n = 1; }
}

static void decide_teams(int64_t trip);

static void static_share(int sched, int *plast, int64_t *lb, int64_t *ub, int64_t *st,
                         int64_t incr, int64_t chunk) {
  if (incr == 0) incr = 1;
  int64_t trip = trip_of(*lb, *ub, incr);
  if (teams_undecided && sched >= 91 && sched <= 95) decide_teams(trip);
  int id, n;
  my_share(sched, &id, &n);
  if (trip == 0) { if (plast) *plast = 0; *st = incr; return; }
  int chunked = (sched == 33 || sched == 91 || sched == 65) && chunk > 0;
  if (chunked) {
    int64_t span = chunk * incr;
    *st = span * n;
    *lb += span * id;
    *ub = *lb + span - incr;
    if (plast) *plast = id == (int)(((trip - 1) / chunk) % n);
    return;
  }
  if (trip <= n) {
    if (id < trip) *ub = *lb = *lb + id * incr;
    else *lb = *ub + incr;
    if (plast) *plast = id == trip - 1;
  } else {
    int64_t small = trip / n, extras = trip % n;
    *lb += incr * (id * small + (id < extras ? id : extras));
    *ub = *lb + small * incr - (id < extras ? 0 : incr);
    if (plast) *plast = id == n - 1;
  }
  *st = trip * incr;
}

#define STATIC_INIT(SUF, T, ST)                                                             \
  void __rl_kmpc_for_static_init_##SUF(ident_t *loc, int gtid, int sched, int *plast,     \
                                       T *plb, T *pub, ST *pst, ST incr, ST chunk) {       \
    if (!__rl_omp_active) {                                                                 \
      __kmpc_for_static_init_##SUF(loc, gtid, sched, plast, plb, pub, pst, incr, chunk);   \
      return;                                                                               \
    }                                                                                       \
    __rl_omp_shares++;                                                                      \
    int64_t lb = (int64_t)*plb, ub = (int64_t)*pub, st = 0;                                 \
    note_share_in(sched, lb, ub, (int64_t)incr, (int64_t)chunk);                             \
    static_share(sched, plast, &lb, &ub, &st, (int64_t)incr, (int64_t)chunk);              \
    note_share_out(sched, lb, ub, (int64_t)incr);                                           \
    *plb = (T)lb; *pub = (T)ub; *pst = (ST)st;                                              \
  }
STATIC_INIT(4, int32_t, int32_t)
STATIC_INIT(4u, uint32_t, int32_t)
STATIC_INIT(8, int64_t, int64_t)
STATIC_INIT(8u, uint64_t, int64_t)

void __rl_kmpc_for_static_fini(ident_t *loc, int gtid) {
  if (!__rl_omp_active) __kmpc_for_static_fini(loc, gtid);
}

/* dynamic / guided / runtime schedules: each emulated thread takes its static share */
static int64_t disp_lb[MAXTHREADS], disp_ub[MAXTHREADS], disp_st[MAXTHREADS];
static int disp_left[MAXTHREADS], disp_last[MAXTHREADS];

static int cur_slot(void) { return in_parallel && em_tid >= 0 ? em_tid : 0; }

#define DISPATCH(SUF, T, ST)                                                                \
  void __rl_kmpc_dispatch_init_##SUF(ident_t *loc, int gtid, int sched, T lb, T ub, ST st,  \
                                     ST chunk) {                                            \
    if (!__rl_omp_active) {                                                                 \
      __kmpc_dispatch_init_##SUF(loc, gtid, sched, lb, ub, st, chunk);                      \
      return;                                                                               \
    }                                                                                       \
    __rl_omp_shares++;                                                                      \
    int s = cur_slot(), last = 0;                                                           \
    int64_t l = (int64_t)lb, u = (int64_t)ub, stride = 0;                                   \
    static_share(34, &last, &l, &u, &stride, (int64_t)st, 0);                               \
    disp_lb[s] = l; disp_ub[s] = u; disp_st[s] = st ? (int64_t)st : 1;                      \
    disp_last[s] = last;                                                                    \
    disp_left[s] = st > 0 ? l <= u : l >= u;                                                \
  }                                                                                         \
  int __rl_kmpc_dispatch_next_##SUF(ident_t *loc, int gtid, int *plast, T *plb, T *pub,    \
                                    ST *pst) {                                              \
    if (!__rl_omp_active) return __kmpc_dispatch_next_##SUF(loc, gtid, plast, plb, pub, pst); \
    int s = cur_slot();                                                                     \
    if (!disp_left[s]) return 0;                                                            \
    disp_left[s] = 0;                                                                       \
    *plb = (T)disp_lb[s]; *pub = (T)disp_ub[s];                                             \
    if (pst) *pst = (ST)disp_st[s];                                                         \
    if (plast) *plast = disp_last[s];                                                       \
    return 1;                                                                               \
  }
DISPATCH(4, int32_t, int32_t)
DISPATCH(4u, uint32_t, int32_t)
DISPATCH(8, int64_t, int64_t)
DISPATCH(8u, uint64_t, int64_t)

/* ---- reductions, critical, single, master --------------------------------------------- */
int __rl_kmpc_reduce_nowait(ident_t *loc, int gtid, int nv, size_t sz, void *d,
                            void (*f)(void *, void *), void *lck) {
  if (!__rl_omp_active) return __kmpc_reduce_nowait(loc, gtid, nv, sz, d, f, lck);
  gpu_reduction_tree();
  return 1; /* threads run one after the other: each combines into the shared copy */
}
void __rl_kmpc_end_reduce_nowait(ident_t *loc, int gtid, void *lck) {
  if (!__rl_omp_active) __kmpc_end_reduce_nowait(loc, gtid, lck);
}
int __rl_kmpc_reduce(ident_t *loc, int gtid, int nv, size_t sz, void *d,
                     void (*f)(void *, void *), void *lck) {
  if (!__rl_omp_active) return __kmpc_reduce(loc, gtid, nv, sz, d, f, lck);
  gpu_reduction_tree();
  return 1;
}
void __rl_kmpc_end_reduce(ident_t *loc, int gtid, void *lck) {
  if (!__rl_omp_active) { __kmpc_end_reduce(loc, gtid, lck); return; }
  __rl_kmpc_barrier(loc, gtid);
}
void __rl_kmpc_critical(ident_t *loc, int gtid, void *c) {
  if (!__rl_omp_active) __kmpc_critical(loc, gtid, c);
}
void __rl_kmpc_end_critical(ident_t *loc, int gtid, void *c) {
  if (!__rl_omp_active) __kmpc_end_critical(loc, gtid, c);
}
void __rl_kmpc_critical_with_hint(ident_t *loc, int gtid, void *c, uint32_t h) {
  if (!__rl_omp_active) __kmpc_critical_with_hint(loc, gtid, c, h);
}
int __rl_kmpc_single(ident_t *loc, int gtid) {
  if (!__rl_omp_active) return __kmpc_single(loc, gtid);
  return !in_parallel || em_tid == 0;
}
void __rl_kmpc_end_single(ident_t *loc, int gtid) {
  if (!__rl_omp_active) __kmpc_end_single(loc, gtid);
}
int __rl_kmpc_master(ident_t *loc, int gtid) {
  if (!__rl_omp_active) return __kmpc_master(loc, gtid);
  return !in_parallel || em_tid == 0;
}
void __rl_kmpc_end_master(ident_t *loc, int gtid) {
  if (!__rl_omp_active) __kmpc_end_master(loc, gtid);
}
int __rl_kmpc_masked(ident_t *loc, int gtid, int filter) {
  if (!__rl_omp_active) return __kmpc_masked(loc, gtid, filter);
  return (in_parallel ? em_tid : 0) == filter;
}
void __rl_kmpc_end_masked(ident_t *loc, int gtid) {
  if (!__rl_omp_active) __kmpc_end_masked(loc, gtid);
}

/* ---- queries -------------------------------------------------------------------------- */
int __rl_omp_get_team_num(void) { return __rl_omp_active ? em_team : omp_get_team_num(); }
int __rl_omp_get_num_teams(void) { return __rl_omp_active ? em_nteams : omp_get_num_teams(); }
int __rl_omp_get_thread_num(void) {
  if (!__rl_omp_active) return omp_get_thread_num();
  return in_parallel && em_tid >= 0 ? em_tid : 0;
}
int __rl_omp_get_num_threads(void) {
  if (!__rl_omp_active) return omp_get_num_threads();
  return in_parallel ? em_nthreads : 1;
}

/* ---- device memory: reserved, not committed, like cudaMalloc's (rl_count.c). The host's
 * libomp has no offload library behind it here: the device memory routines are the host
 * device's (every address present and accessible, copies plain copies) ------------------ */
void *__rl_dev_alloc(size_t n);
void *omp_target_alloc(size_t n, int device) {
  (void)device;
  return n ? __rl_dev_alloc(n) : NULL;
}
void omp_target_free(void *p, int device) {
  (void)device;
  free(p);
}
int omp_target_is_present(const void *p, int device) {
  (void)p, (void)device;
  return 1;
}
int omp_target_is_accessible(const void *p, size_t n, int device) {
  (void)p, (void)n, (void)device;
  return 1;
}
void *omp_get_mapped_ptr(const void *p, int device) {
  (void)device;
  return (void *)p;
}
int omp_target_associate_ptr(const void *h, const void *d, size_t n, size_t off, int device) {
  (void)h, (void)d, (void)n, (void)off, (void)device;
  return 0;
}
int omp_target_disassociate_ptr(const void *h, int device) {
  (void)h, (void)device;
  return 0;
}
int omp_target_memcpy(void *dst, const void *src, size_t n, size_t dst_off, size_t src_off,
                      int dst_dev, int src_dev) {
  (void)dst_dev, (void)src_dev;
  if (n && (!dst || !src)) return -1;
  memmove((char *)dst + dst_off, (const char *)src + src_off, n);
  return 0;
}
int omp_target_memcpy_async(void *dst, const void *src, size_t n, size_t dst_off,
                            size_t src_off, int dst_dev, int src_dev, int ndeps,
                            omp_depend_t *deps) {
  (void)ndeps, (void)deps;
  return omp_target_memcpy(dst, src, n, dst_off, src_off, dst_dev, src_dev);
}
/* a sub-volume of dims dimensions: row-major extents, offsets and the volume's sizes, in
 * elements of elem bytes */
static void copy_rect(char *dst, const char *src, size_t elem, int dims, const size_t *vol,
                      const size_t *doff, const size_t *soff, const size_t *ddim,
                      const size_t *sdim) {
  size_t dstride = elem, sstride = elem;
  for (int k = 1; k < dims; k++) dstride *= ddim[k], sstride *= sdim[k];
  if (dims == 1) {
    memmove(dst + doff[0] * elem, src + soff[0] * elem, vol[0] * elem);
    return;
  }
  for (size_t i = 0; i < vol[0]; i++)
    copy_rect(dst + (doff[0] + i) * dstride, src + (soff[0] + i) * sstride, elem, dims - 1,
              vol + 1, doff + 1, soff + 1, ddim + 1, sdim + 1);
}
int omp_target_memcpy_rect(void *dst, const void *src, size_t elem, int dims,
                           const size_t *vol, const size_t *doff, const size_t *soff,
                           const size_t *ddim, const size_t *sdim, int dst_dev, int src_dev) {
  (void)dst_dev, (void)src_dev;
  if (!dst && !src) return 0x7fffffff; /* the dimensions supported */
  if (!dst || !src || dims < 1) return -1;
  copy_rect(dst, src, elem, dims, vol, doff, soff, ddim, sdim);
  return 0;
}
