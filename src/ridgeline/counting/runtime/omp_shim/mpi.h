/* ridgeline counting runtime, OpenMP builds: a single-rank MPI for programs that are
 * written for MPI + offload (e.g. miniWeather).  Found only when no real mpi.h is (the
 * folder is searched after the system folders).  One rank: sizes are 1, ranks 0, reductions
 * copy, and point-to-point messages go to the same process (matched by tag, in order), which
 * is what a periodic neighbour exchange on one rank does.  Header-only: the message queue is
 * per translation unit, enough for programs whose MPI calls sit in one file. */
#ifndef RL_MPI_SHIM_H
#define RL_MPI_SHIM_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int MPI_Comm;
typedef int MPI_Datatype; /* the element size in bytes */
typedef int MPI_Op;
typedef int MPI_Request;
typedef struct { int MPI_SOURCE, MPI_TAG, MPI_ERROR; } MPI_Status;

#define MPI_SUCCESS 0
#define MPI_COMM_WORLD 1
#define MPI_CHAR 1
#define MPI_BYTE 1
#define MPI_SHORT 2
#define MPI_INT 4
#define MPI_UNSIGNED 4
#define MPI_FLOAT 4
#define MPI_LONG 8
#define MPI_LONG_LONG 8
#define MPI_UNSIGNED_LONG 8
#define MPI_DOUBLE 8
#define MPI_SUM 1
#define MPI_MAX 2
#define MPI_MIN 3
#define MPI_PROD 4
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_REQUEST_NULL 0
#define MPI_IN_PLACE ((void *)1)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

#define RL_MPI_MAXMSG 64
typedef struct { void *buf; size_t bytes; int tag, used; } rl_mpi_msg;
static rl_mpi_msg rl_mpi_recv[RL_MPI_MAXMSG], rl_mpi_send[RL_MPI_MAXMSG];

/* deliver every pending send that has a pending receive with its tag */
static void rl_mpi_match(void) {
  for (int s = 0; s < RL_MPI_MAXMSG; s++) {
    if (!rl_mpi_send[s].used) continue;
    for (int r = 0; r < RL_MPI_MAXMSG; r++) {
      rl_mpi_msg *q = &rl_mpi_recv[r];
      if (q->used && (q->tag == rl_mpi_send[s].tag || q->tag == MPI_ANY_TAG)) {
        size_t n = q->bytes < rl_mpi_send[s].bytes ? q->bytes : rl_mpi_send[s].bytes;
        memcpy(q->buf, rl_mpi_send[s].buf, n);
        q->used = 0;
        rl_mpi_send[s].used = 0;
        break;
      }
    }
  }
}

static int rl_mpi_post(rl_mpi_msg *table, void *buf, int count, MPI_Datatype t, int tag,
                       MPI_Request *req) {
  for (int i = 0; i < RL_MPI_MAXMSG; i++)
    if (!table[i].used) {
      table[i].buf = buf;
      table[i].bytes = (size_t)count * (size_t)t;
      table[i].tag = tag;
      table[i].used = 1;
      if (req) *req = i + 1;
      rl_mpi_match();
      return MPI_SUCCESS;
    }
  return 1;
}

static inline int MPI_Init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
static inline int MPI_Finalize(void) { return 0; }
static inline int MPI_Initialized(int *flag) { *flag = 1; return 0; }
static inline int MPI_Abort(MPI_Comm c, int code) { (void)c; exit(code); }
static inline int MPI_Comm_rank(MPI_Comm c, int *r) { (void)c; *r = 0; return 0; }
static inline int MPI_Comm_size(MPI_Comm c, int *n) { (void)c; *n = 1; return 0; }
static inline int MPI_Barrier(MPI_Comm c) { (void)c; return 0; }
static inline double MPI_Wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static inline int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  (void)b; (void)n; (void)t; (void)root; (void)c; return 0;
}
static inline int MPI_Allreduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op,
                                MPI_Comm c) {
  (void)op; (void)c;
  if (in != MPI_IN_PLACE && in != out) memcpy(out, in, (size_t)n * (size_t)t);
  return 0;
}
static inline int MPI_Reduce(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op,
                             int root, MPI_Comm c) {
  (void)root;
  return MPI_Allreduce(in, out, n, t, op, c);
}
static inline int MPI_Irecv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                            MPI_Request *req) {
  (void)src; (void)c;
  return rl_mpi_post(rl_mpi_recv, b, n, t, tag, req);
}
static inline int MPI_Isend(const void *b, int n, MPI_Datatype t, int dst, int tag,
                            MPI_Comm c, MPI_Request *req) {
  (void)dst; (void)c;
  return rl_mpi_post(rl_mpi_send, (void *)b, n, t, tag, req);
}
static inline int MPI_Send(const void *b, int n, MPI_Datatype t, int dst, int tag,
                           MPI_Comm c) {
  return MPI_Isend(b, n, t, dst, tag, c, NULL);
}
static inline int MPI_Recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c,
                           MPI_Status *st) {
  (void)st;
  return MPI_Irecv(b, n, t, src, tag, c, NULL);
}
static inline int MPI_Wait(MPI_Request *r, MPI_Status *st) {
  (void)st;
  rl_mpi_match();
  if (r) *r = MPI_REQUEST_NULL;
  return 0;
}
static inline int MPI_Waitall(int n, MPI_Request *r, MPI_Status *st) {
  (void)st;
  rl_mpi_match();
  for (int i = 0; i < n; i++) r[i] = MPI_REQUEST_NULL;
  return 0;
}
#endif
