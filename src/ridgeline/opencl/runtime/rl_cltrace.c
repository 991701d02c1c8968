/* rl_cltrace: an LD_PRELOAD interposer that times every kernel launch and host-device
 * transfer of an unmodified OpenCL host program with the runtime's own profiling events.
 *
 *   RL_CLTRACE=trace.jsonl LD_PRELOAD=rl_cltrace.so ./program args
 *
 * Every command queue is created with CL_QUEUE_PROFILING_ENABLE. Each record is one JSON
 * line appended with a single write(2), so a program stopped by a time limit keeps the
 * records of the commands that completed:
 *   {"ev":"program","id":P,"source":"..."}            clCreateProgramWithSource (the text)
 *   {"ev":"build","id":P,"options":"...","status":S}  clBuildProgram / clCompileProgram
 *   {"ev":"launch","seq":N,"kernel":"name","program":P,"dim":D,"global":[..],
 *    "local":[..]|null,"args":[{"kind":"buffer","bytes":B},{"kind":"scalar","bytes":4,
 *    "hex":"..."},{"kind":"local","bytes":B}],"queued":T,"submit":T,"start":T,"end":T}
 *   {"ev":"transfer","seq":N,"op":"read|write|copy|fill|map|unmap|...","bytes":B,
 *    "blocking":0|1,"queued":T,"submit":T,"start":T,"end":T}
 * Times are the device's nanosecond clock (CL_PROFILING_COMMAND_*). A command whose event
 * ends in error carries "status" < 0 and no times.
 *
 * With RL_CLTRACE_ANY_DEVICE=1, a program that asks for a device type the platform does not
 * have (a GPU, on a CPU runtime) gets the platform's devices instead (PoCL answers
 * clCreateContextFromType with a context of no device), and the trace says so:
 *   {"ev":"device_fallback","call":"clGetDeviceIDs","asked":TYPE}
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 220
#define CL_USE_DEPRECATED_OPENCL_1_1_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 128
#define TABLE_BITS 16
#define TABLE_SIZE (1u << TABLE_BITS)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int out_fd = -2;
static long next_seq = 0;
static long next_program = 0;

/* ---- growing string buffer ------------------------------------------------------------ */
typedef struct { char *p; size_t n, cap; } sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) return;
    b->p = q;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}

static void sb_printf(sbuf *b, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n > 0) sb_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

static void sb_json_str(sbuf *b, const char *s, size_t n) {
  sb_put(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\') { char e[2] = {'\\', (char)c}; sb_put(b, e, 2); }
    else if (c == '\n') sb_put(b, "\\n", 2);
    else if (c == '\t') sb_put(b, "\\t", 2);
    else if (c < 0x20 || c >= 0x7f) sb_printf(b, "\\u%04x", c);
    else sb_put(b, (const char *)&c, 1);
  }
  sb_put(b, "\"", 1);
}

static void emit(sbuf *b) {
  sb_put(b, "\n", 1);
  pthread_mutex_lock(&lock);
  if (out_fd == -2) {
    const char *path = getenv("RL_CLTRACE");
    out_fd = path && *path ? open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644) : -1;
  }
  if (out_fd >= 0) {
    size_t off = 0;
    while (off < b->n) {
      ssize_t w = write(out_fd, b->p + off, b->n - off);
      if (w <= 0) break;
      off += (size_t)w;
    }
  }
  pthread_mutex_unlock(&lock);
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

/* ---- the real entry points ------------------------------------------------------------ */
static void *real(const char *name) {
  void *f = dlsym(RTLD_NEXT, name);
  if (!f) fprintf(stderr, "rl_cltrace: %s not found in the OpenCL library\n", name);
  return f;
}
#define REAL(name) static __typeof__(&name) real_##name; \
  if (!real_##name) real_##name = (__typeof__(&name))real(#name)

/* ---- handle tables: memory objects, programs, kernels ---------------------------------- */
typedef struct { const void *key; size_t bytes; int image; } mem_entry;
typedef struct { int kind; size_t bytes; unsigned char val[16]; } arg_entry;
typedef struct {
  const void *key;
  char name[128];
  long program;
  int nargs;
  arg_entry args[MAX_ARGS];
} kernel_entry;
typedef struct { const void *key; long id; } program_entry;

enum { ARG_UNSET, ARG_BUFFER, ARG_IMAGE, ARG_LOCAL, ARG_SCALAR };

static mem_entry mems[TABLE_SIZE];
static program_entry programs[TABLE_SIZE];
static kernel_entry *kernels[TABLE_SIZE];

static size_t slot_of(const void *key) {
  uintptr_t h = (uintptr_t)key;
  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> (64 - TABLE_BITS));
}

#define FIND_SLOT(table, keyexpr, key, create) ({                      \
  size_t _i = slot_of(key), _n = 0;                                   \
  while (keyexpr(table[_i]) && keyexpr(table[_i]) != (key) && _n < TABLE_SIZE) { \
    _i = (_i + 1) & (TABLE_SIZE - 1); _n++;                            \
  }                                                                    \
  (_n < TABLE_SIZE && (create || keyexpr(table[_i]) == (key))) ? (long)_i : -1L; })

#define MEM_KEY(e) ((e).key)
#define PROG_KEY(e) ((e).key)
#define KERN_KEY(e) ((e) ? (e)->key : NULL)

static void remember_mem(cl_mem m, size_t bytes, int image) {
  if (!m) return;
  pthread_mutex_lock(&lock);
  long i = FIND_SLOT(mems, MEM_KEY, (const void *)m, 1);
  if (i >= 0) mems[i] = (mem_entry){m, bytes, image};
  pthread_mutex_unlock(&lock);
}

static long program_id(cl_program p, int create) {
  pthread_mutex_lock(&lock);
  long i = FIND_SLOT(programs, PROG_KEY, (const void *)p, create);
  long id = -1;
  if (i >= 0) {
    if (create) programs[i] = (program_entry){p, next_program++};
    id = programs[i].id;
  }
  pthread_mutex_unlock(&lock);
  return id;
}

/* the kernel's entry; the lock must be held */
static kernel_entry *kernel_of(cl_kernel k, int create) {
  long i = FIND_SLOT(kernels, KERN_KEY, (const void *)k, create);
  if (i < 0) return NULL;
  if (create) {
    if (!kernels[i]) kernels[i] = calloc(1, sizeof(kernel_entry));
    if (!kernels[i]) return NULL;
    memset(kernels[i], 0, sizeof(kernel_entry));
    kernels[i]->key = k;
  }
  return kernels[i];
}

static void remember_kernel(cl_kernel k, cl_program p, const char *name) {
  if (!k) return;
  long pid = program_id(p, 0);
  pthread_mutex_lock(&lock);
  kernel_entry *e = kernel_of(k, 1);
  if (e) {
    snprintf(e->name, sizeof e->name, "%s", name ? name : "");
    e->program = pid;
  }
  pthread_mutex_unlock(&lock);
}

/* ---- completion: the event's profiling times are read when it completes ---------------- */
typedef struct { sbuf head; cl_event ev; } pending;

static void CL_CALLBACK on_complete(cl_event ev, cl_int status, void *user) {
  REAL(clGetEventProfilingInfo);
  REAL(clReleaseEvent);
  pending *p = user;
  sbuf *b = &p->head;
  if (status < 0) {
    sb_printf(b, ",\"status\":%d}", (int)status);
  } else {
    cl_ulong t[4] = {0, 0, 0, 0};
    const cl_profiling_info what[4] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    cl_int err = CL_SUCCESS;
    for (int i = 0; i < 4 && err == CL_SUCCESS; i++)
      err = real_clGetEventProfilingInfo(ev, what[i], sizeof(cl_ulong), &t[i], NULL);
    if (err != CL_SUCCESS)
      sb_printf(b, ",\"status\":%d,\"profiling_error\":%d}", (int)status, (int)err);
    else
      sb_printf(b, ",\"queued\":%llu,\"submit\":%llu,\"start\":%llu,\"end\":%llu}",
                (unsigned long long)t[0], (unsigned long long)t[1], (unsigned long long)t[2],
                (unsigned long long)t[3]);
  }
  emit(b);
  real_clReleaseEvent(p->ev);
  free(p);
}

/* Hand the command's event to on_complete: *event is the caller's out-parameter (may be
 * NULL, then the event is ours); the callback holds one reference of its own. */
static void watch(cl_int rc, cl_event *event, cl_event *own, sbuf *head) {
  REAL(clSetEventCallback);
  REAL(clRetainEvent);
  REAL(clReleaseEvent);
  cl_event ev = event ? *event : *own;
  if (rc != CL_SUCCESS || !ev) { free(head->p); return; }
  pending *p = malloc(sizeof *p);
  if (!p) { free(head->p); if (!event) real_clReleaseEvent(ev); return; }
  p->head = *head;
  p->ev = ev;
  if (event) real_clRetainEvent(ev);  /* the caller keeps its own reference */
  if (real_clSetEventCallback(ev, CL_COMPLETE, on_complete, p) != CL_SUCCESS) {
    free(p->head.p);
    real_clReleaseEvent(ev);
    free(p);
  }
}

static long seq(void) {
  pthread_mutex_lock(&lock);
  long s = next_seq++;
  pthread_mutex_unlock(&lock);
  return s;
}

/* ---- devices: any device when the asked type is absent (RL_CLTRACE_ANY_DEVICE) ---------- */
static int any_device(void) {
  const char *v = getenv("RL_CLTRACE_ANY_DEVICE");
  return v && *v && strcmp(v, "0") != 0;
}

static void fallback_record(const char *call, cl_device_type asked) {
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"device_fallback\",\"call\":\"%s\",\"asked\":%llu}", call,
            (unsigned long long)asked);
  emit(&b);
}

CL_API_ENTRY cl_int CL_API_CALL clGetDeviceIDs(cl_platform_id pf, cl_device_type type,
                                               cl_uint n, cl_device_id *devs, cl_uint *found) {
  REAL(clGetDeviceIDs);
  cl_int rc = real_clGetDeviceIDs(pf, type, n, devs, found);
  if (rc == CL_DEVICE_NOT_FOUND && type != CL_DEVICE_TYPE_ALL && any_device()) {
    rc = real_clGetDeviceIDs(pf, CL_DEVICE_TYPE_ALL, n, devs, found);
    if (rc == CL_SUCCESS) fallback_record("clGetDeviceIDs", type);
  }
  return rc;
}

CL_API_ENTRY cl_context CL_API_CALL clCreateContextFromType(
    const cl_context_properties *props, cl_device_type type,
    void(CL_CALLBACK *notify)(const char *, const void *, size_t, void *), void *user,
    cl_int *err) {
  REAL(clCreateContextFromType);
  REAL(clGetContextInfo);
  REAL(clReleaseContext);
  cl_int rc = CL_SUCCESS;
  cl_context c = real_clCreateContextFromType(props, type, notify, user, &rc);
  cl_uint n = 0;
  if (c && type != CL_DEVICE_TYPE_ALL && any_device() &&
      real_clGetContextInfo(c, CL_CONTEXT_NUM_DEVICES, sizeof n, &n, NULL) == CL_SUCCESS &&
      n == 0) {
    real_clReleaseContext(c);
    c = NULL;
  }
  if (!c && type != CL_DEVICE_TYPE_ALL && any_device()) {
    c = real_clCreateContextFromType(props, CL_DEVICE_TYPE_ALL, notify, user, &rc);
    if (c) fallback_record("clCreateContextFromType", type);
  }
  if (err) *err = rc;
  return c;
}

/* ---- queues: profiling always on ------------------------------------------------------- */
CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueue(
    cl_context c, cl_device_id d, cl_command_queue_properties props, cl_int *err) {
  REAL(clCreateCommandQueue);
  return real_clCreateCommandQueue(c, d, props | CL_QUEUE_PROFILING_ENABLE, err);
}

CL_API_ENTRY cl_command_queue CL_API_CALL clCreateCommandQueueWithProperties(
    cl_context c, cl_device_id d, const cl_queue_properties *props, cl_int *err) {
  REAL(clCreateCommandQueueWithProperties);
  cl_queue_properties mine[64];
  int n = 0, found = 0;
  for (int i = 0; props && props[i] && n < 60; i += 2) {
    mine[n++] = props[i];
    mine[n++] = props[i] == CL_QUEUE_PROPERTIES ? (found = 1, props[i + 1] |
                                                   CL_QUEUE_PROFILING_ENABLE) : props[i + 1];
  }
  if (!found) { mine[n++] = CL_QUEUE_PROPERTIES; mine[n++] = CL_QUEUE_PROFILING_ENABLE; }
  mine[n] = 0;
  return real_clCreateCommandQueueWithProperties(c, d, mine, err);
}

/* ---- memory objects -------------------------------------------------------------------- */
CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags f, size_t size,
                                               void *host, cl_int *err) {
  REAL(clCreateBuffer);
  cl_mem m = real_clCreateBuffer(c, f, size, host, err);
  remember_mem(m, size, 0);
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateSubBuffer(cl_mem parent, cl_mem_flags f,
                                                  cl_buffer_create_type t, const void *info,
                                                  cl_int *err) {
  REAL(clCreateSubBuffer);
  cl_mem m = real_clCreateSubBuffer(parent, f, t, info, err);
  if (t == CL_BUFFER_CREATE_TYPE_REGION && info)
    remember_mem(m, ((const cl_buffer_region *)info)->size, 0);
  return m;
}

static size_t image_bytes(cl_mem m) {
  REAL(clGetMemObjectInfo);
  size_t s = 0;
  if (m && real_clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof s, &s, NULL) != CL_SUCCESS) s = 0;
  return s;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage(cl_context c, cl_mem_flags f,
                                              const cl_image_format *fmt,
                                              const cl_image_desc *desc, void *host,
                                              cl_int *err) {
  REAL(clCreateImage);
  cl_mem m = real_clCreateImage(c, f, fmt, desc, host, err);
  remember_mem(m, image_bytes(m), 1);
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage2D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *fmt, size_t w, size_t h,
                                                size_t pitch, void *host, cl_int *err) {
  REAL(clCreateImage2D);
  cl_mem m = real_clCreateImage2D(c, f, fmt, w, h, pitch, host, err);
  remember_mem(m, image_bytes(m), 1);
  return m;
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateImage3D(cl_context c, cl_mem_flags f,
                                                const cl_image_format *fmt, size_t w, size_t h,
                                                size_t d, size_t rp, size_t sp, void *host,
                                                cl_int *err) {
  REAL(clCreateImage3D);
  cl_mem m = real_clCreateImage3D(c, f, fmt, w, h, d, rp, sp, host, err);
  remember_mem(m, image_bytes(m), 1);
  return m;
}

/* ---- programs: the exact text and build options ---------------------------------------- */
CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithSource(cl_context c, cl_uint count,
                                                              const char **strings,
                                                              const size_t *lengths,
                                                              cl_int *err) {
  REAL(clCreateProgramWithSource);
  cl_program p = real_clCreateProgramWithSource(c, count, strings, lengths, err);
  if (!p) return p;
  long id = program_id(p, 1);
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"program\",\"id\":%ld,\"source\":", id);
  sbuf text = {0};
  for (cl_uint i = 0; strings && i < count; i++) {
    if (!strings[i]) continue;
    size_t n = lengths && lengths[i] ? lengths[i] : strlen(strings[i]);
    sb_put(&text, strings[i], n);
  }
  sb_json_str(&b, text.p ? text.p : "", text.n);
  free(text.p);
  sb_put(&b, "}", 1);
  emit(&b);
  return p;
}

CL_API_ENTRY cl_program CL_API_CALL clCreateProgramWithBinary(
    cl_context c, cl_uint n, const cl_device_id *d, const size_t *lengths,
    const unsigned char **bins, cl_int *status, cl_int *err) {
  REAL(clCreateProgramWithBinary);
  cl_program p = real_clCreateProgramWithBinary(c, n, d, lengths, bins, status, err);
  if (!p) return p;
  long id = program_id(p, 1);
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"program\",\"id\":%ld,\"binary\":true}", id);
  emit(&b);
  return p;
}

static void build_record(cl_program p, const char *options, cl_int rc, const char *how) {
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"build\",\"id\":%ld,\"call\":\"%s\",\"options\":", program_id(p, 0),
            how);
  sb_json_str(&b, options ? options : "", options ? strlen(options) : 0);
  sb_printf(&b, ",\"status\":%d}", (int)rc);
  emit(&b);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint n, const cl_device_id *d,
                                               const char *options,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user) {
  REAL(clBuildProgram);
  cl_int rc = real_clBuildProgram(p, n, d, options, notify, user);
  build_record(p, options, rc, "clBuildProgram");
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clCompileProgram(
    cl_program p, cl_uint n, const cl_device_id *d, const char *options, cl_uint nh,
    const cl_program *headers, const char **names,
    void(CL_CALLBACK *notify)(cl_program, void *), void *user) {
  REAL(clCompileProgram);
  cl_int rc = real_clCompileProgram(p, n, d, options, nh, headers, names, notify, user);
  build_record(p, options, rc, "clCompileProgram");
  return rc;
}

/* ---- kernels and their arguments ------------------------------------------------------- */
CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *err) {
  REAL(clCreateKernel);
  cl_kernel k = real_clCreateKernel(p, name, err);
  remember_kernel(k, p, name);
  return k;
}

CL_API_ENTRY cl_int CL_API_CALL clCreateKernelsInProgram(cl_program p, cl_uint n, cl_kernel *ks,
                                                         cl_uint *ret) {
  REAL(clCreateKernelsInProgram);
  REAL(clGetKernelInfo);
  cl_int rc = real_clCreateKernelsInProgram(p, n, ks, ret);
  for (cl_uint i = 0; rc == CL_SUCCESS && ks && i < n; i++) {
    char name[128] = "";
    if (real_clGetKernelInfo(ks[i], CL_KERNEL_FUNCTION_NAME, sizeof name, name, NULL) !=
        CL_SUCCESS)
      name[0] = 0;
    remember_kernel(ks[i], p, name);
  }
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint idx, size_t size,
                                               const void *value) {
  REAL(clSetKernelArg);
  cl_int rc = real_clSetKernelArg(k, idx, size, value);
  if (rc != CL_SUCCESS || idx >= MAX_ARGS) return rc;
  pthread_mutex_lock(&lock);
  kernel_entry *e = kernel_of(k, 0);
  if (e) {
    arg_entry *a = &e->args[idx];
    memset(a, 0, sizeof *a);
    long m = -1;
    if (value && size == sizeof(cl_mem))
      m = FIND_SLOT(mems, MEM_KEY, (const void *)*(cl_mem const *)value, 0);
    if (!value) { a->kind = ARG_LOCAL; a->bytes = size; }
    else if (m >= 0 && *(cl_mem const *)value) {
      a->kind = mems[m].image ? ARG_IMAGE : ARG_BUFFER;
      a->bytes = mems[m].bytes;
    } else {
      a->kind = ARG_SCALAR;
      a->bytes = size;
      memcpy(a->val, value, size < sizeof a->val ? size : sizeof a->val);
    }
    if ((int)idx + 1 > e->nargs) e->nargs = (int)idx + 1;
  }
  pthread_mutex_unlock(&lock);
  return rc;
}

static void put_sizes(sbuf *b, const char *key, cl_uint dim, const size_t *v) {
  sb_printf(b, ",\"%s\":", key);
  if (!v) { sb_put(b, "null", 4); return; }
  sb_put(b, "[", 1);
  for (cl_uint i = 0; i < dim; i++) sb_printf(b, i ? ",%zu" : "%zu", v[i]);
  sb_put(b, "]", 1);
}

static void put_args(sbuf *b, const kernel_entry *e) {
  static const char *kinds[] = {"unset", "buffer", "image", "local", "scalar"};
  sb_put(b, ",\"args\":[", 9);
  for (int i = 0; e && i < e->nargs; i++) {
    const arg_entry *a = &e->args[i];
    sb_printf(b, "%s{\"kind\":\"%s\",\"bytes\":%zu", i ? "," : "", kinds[a->kind], a->bytes);
    if (a->kind == ARG_SCALAR) {
      sb_put(b, ",\"hex\":\"", 8);
      size_t n = a->bytes < sizeof a->val ? a->bytes : sizeof a->val;
      for (size_t j = 0; j < n; j++) sb_printf(b, "%02x", a->val[j]);
      sb_put(b, "\"", 1);
    }
    sb_put(b, "}", 1);
  }
  sb_put(b, "]", 1);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(
    cl_command_queue q, cl_kernel k, cl_uint dim, const size_t *offset, const size_t *global,
    const size_t *local, cl_uint nwait, const cl_event *wait, cl_event *event) {
  REAL(clEnqueueNDRangeKernel);
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"launch\",\"seq\":%ld,\"kernel\":", seq());
  pthread_mutex_lock(&lock);
  const kernel_entry *e = kernel_of(k, 0);
  sb_json_str(&b, e ? e->name : "", e ? strlen(e->name) : 0);
  sb_printf(&b, ",\"program\":%ld,\"dim\":%u", e ? e->program : -1L, dim);
  put_sizes(&b, "global", dim, global);
  put_sizes(&b, "local", dim, local);
  put_sizes(&b, "offset", dim, offset);
  put_args(&b, e);
  pthread_mutex_unlock(&lock);
  cl_event own = NULL;
  cl_int rc = real_clEnqueueNDRangeKernel(q, k, dim, offset, global, local, nwait, wait,
                                          event ? event : &own);
  watch(rc, event, &own, &b);
  return rc;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueTask(cl_command_queue q, cl_kernel k, cl_uint nwait,
                                              const cl_event *wait, cl_event *event) {
  const size_t one = 1;
  return clEnqueueNDRangeKernel(q, k, 1, NULL, &one, &one, nwait, wait, event);
}

/* ---- transfers ------------------------------------------------------------------------- */
static sbuf transfer_head(const char *op, size_t bytes, cl_bool blocking) {
  sbuf b = {0};
  sb_printf(&b, "{\"ev\":\"transfer\",\"seq\":%ld,\"op\":\"%s\",\"bytes\":%zu,\"blocking\":%d",
            seq(), op, bytes, blocking ? 1 : 0);
  return b;
}

#define TRANSFER(op, bytes, blocking, call)                      \
  do {                                                           \
    sbuf b = transfer_head(op, bytes, blocking);                 \
    cl_event own = NULL;                                         \
    cl_event *ev = event ? event : &own;                         \
    cl_int rc = (call);                                          \
    watch(rc, event, &own, &b);                                  \
    return rc;                                                   \
  } while (0)

static size_t region_bytes(const size_t *r) { return r ? r[0] * r[1] * r[2] : 0; }

static size_t pixel_bytes(cl_mem m) {
  REAL(clGetImageInfo);
  size_t s = 0;
  if (real_clGetImageInfo(m, CL_IMAGE_ELEMENT_SIZE, sizeof s, &s, NULL) != CL_SUCCESS) s = 0;
  return s;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool blk,
                                                    size_t off, size_t n, void *ptr,
                                                    cl_uint nw, const cl_event *w,
                                                    cl_event *event) {
  REAL(clEnqueueReadBuffer);
  TRANSFER("read", n, blk, real_clEnqueueReadBuffer(q, m, blk, off, n, ptr, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBuffer(cl_command_queue q, cl_mem m, cl_bool blk,
                                                     size_t off, size_t n, const void *ptr,
                                                     cl_uint nw, const cl_event *w,
                                                     cl_event *event) {
  REAL(clEnqueueWriteBuffer);
  TRANSFER("write", n, blk, real_clEnqueueWriteBuffer(q, m, blk, off, n, ptr, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBuffer(cl_command_queue q, cl_mem s, cl_mem d,
                                                    size_t so, size_t dof, size_t n,
                                                    cl_uint nw, const cl_event *w,
                                                    cl_event *event) {
  REAL(clEnqueueCopyBuffer);
  TRANSFER("copy", n, 0, real_clEnqueueCopyBuffer(q, s, d, so, dof, n, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueFillBuffer(cl_command_queue q, cl_mem m,
                                                    const void *pat, size_t ps, size_t off,
                                                    size_t n, cl_uint nw, const cl_event *w,
                                                    cl_event *event) {
  REAL(clEnqueueFillBuffer);
  TRANSFER("fill", n, 0, real_clEnqueueFillBuffer(q, m, pat, ps, off, n, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBufferRect(
    cl_command_queue q, cl_mem m, cl_bool blk, const size_t *bo, const size_t *ho,
    const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, void *ptr, cl_uint nw,
    const cl_event *w, cl_event *event) {
  REAL(clEnqueueReadBufferRect);
  TRANSFER("read_rect", region_bytes(r), blk, real_clEnqueueReadBufferRect(
      q, m, blk, bo, ho, r, brp, bsp, hrp, hsp, ptr, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteBufferRect(
    cl_command_queue q, cl_mem m, cl_bool blk, const size_t *bo, const size_t *ho,
    const size_t *r, size_t brp, size_t bsp, size_t hrp, size_t hsp, const void *ptr,
    cl_uint nw, const cl_event *w, cl_event *event) {
  REAL(clEnqueueWriteBufferRect);
  TRANSFER("write_rect", region_bytes(r), blk, real_clEnqueueWriteBufferRect(
      q, m, blk, bo, ho, r, brp, bsp, hrp, hsp, ptr, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueCopyBufferRect(
    cl_command_queue q, cl_mem s, cl_mem d, const size_t *so, const size_t *dof,
    const size_t *r, size_t srp, size_t ssp, size_t drp, size_t dsp, cl_uint nw,
    const cl_event *w, cl_event *event) {
  REAL(clEnqueueCopyBufferRect);
  TRANSFER("copy_rect", region_bytes(r), 0, real_clEnqueueCopyBufferRect(
      q, s, d, so, dof, r, srp, ssp, drp, dsp, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadImage(cl_command_queue q, cl_mem m, cl_bool blk,
                                                   const size_t *o, const size_t *r,
                                                   size_t rp, size_t sp, void *ptr, cl_uint nw,
                                                   const cl_event *w, cl_event *event) {
  REAL(clEnqueueReadImage);
  TRANSFER("read_image", pixel_bytes(m) * region_bytes(r), blk,
           real_clEnqueueReadImage(q, m, blk, o, r, rp, sp, ptr, nw, w, ev));
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueWriteImage(cl_command_queue q, cl_mem m, cl_bool blk,
                                                    const size_t *o, const size_t *r,
                                                    size_t rp, size_t sp, const void *ptr,
                                                    cl_uint nw, const cl_event *w,
                                                    cl_event *event) {
  REAL(clEnqueueWriteImage);
  TRANSFER("write_image", pixel_bytes(m) * region_bytes(r), blk,
           real_clEnqueueWriteImage(q, m, blk, o, r, rp, sp, ptr, nw, w, ev));
}

CL_API_ENTRY void *CL_API_CALL clEnqueueMapBuffer(cl_command_queue q, cl_mem m, cl_bool blk,
                                                  cl_map_flags f, size_t off, size_t n,
                                                  cl_uint nw, const cl_event *w,
                                                  cl_event *event, cl_int *err) {
  REAL(clEnqueueMapBuffer);
  sbuf b = transfer_head("map", n, blk);
  cl_event own = NULL;
  cl_int rc = CL_SUCCESS;
  void *p = real_clEnqueueMapBuffer(q, m, blk, f, off, n, nw, w, event ? event : &own, &rc);
  if (err) *err = rc;
  watch(rc, event, &own, &b);
  return p;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueUnmapMemObject(cl_command_queue q, cl_mem m,
                                                        void *ptr, cl_uint nw,
                                                        const cl_event *w, cl_event *event) {
  REAL(clEnqueueUnmapMemObject);
  TRANSFER("unmap", 0, 0, real_clEnqueueUnmapMemObject(q, m, ptr, nw, w, ev));
}
