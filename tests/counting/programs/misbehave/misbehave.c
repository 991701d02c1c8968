// A program that misbehaves on request, for the sandbox tests (tests/counting/test_sandbox.py).
// misbehave MODE [ARG]: prints what it managed, one "key=value" line per attempt.
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int write_file(const char *path) {
  FILE *f = fopen(path, "w");
  if (!f) {
    printf("write=failed %s\n", strerror(errno));
    return 1;
  }
  fputs("escaped\n", f);
  fclose(f);
  printf("write=ok\n");
  return 0;
}

static int read_file(const char *path) {
  char buf[256] = {0};
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("read=failed %s\n", strerror(errno));
    return 1;
  }
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  printf("read=%.*s\n", (int)n, buf);
  return 0;
}

static int connect_to(int port) {
  int s = socket(AF_INET, SOCK_STREAM, 0);
  if (s < 0) {
    printf("connect=failed socket: %s\n", strerror(errno));
    return 1;
  }
  struct sockaddr_in a = {0};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
    printf("connect=failed %s\n", strerror(errno));
    return 1;
  }
  printf("connect=ok\n");
  return 0;
}

// children that leave the process group and the session, and sleep on
static int detach(int n) {
  for (int i = 0; i < n; i++) {
    pid_t p = fork();
    if (p == 0) {
      setsid();
      if (fork() == 0) {
        sleep(300);
      }
      _exit(0);
    }
  }
  printf("detached=%d\n", n);
  fflush(stdout);
  return 0;
}

// forks until the system refuses; the children sleep
static int fork_bomb(void) {
  for (int n = 0;; n++) {
    pid_t p = fork();
    if (p < 0) {
      printf("fork=failed after %d: %s\n", n, strerror(errno));
      fflush(stdout);
      fprintf(stderr, "fork: %s\n", strerror(errno));
      return 3;
    }
    if (p == 0) {
      sleep(300);
      _exit(0);
    }
  }
}

// a fork bomb: every process forks on and on, so their number doubles until a limit holds it
static int real_fork_bomb(void) {
  for (;;) {
    if (fork() < 0) usleep(1000);
  }
}

static char *volatile kept[256];

static int allocate(void) {
  size_t chunk = (size_t)256 << 20, total = 0;
  for (int i = 0; i < 256; i++) {  // up to 64 GiB, kept (not optimized away)
    char *p = kept[i] = malloc(chunk);
    if (!p) {
      fprintf(stderr, "cannot allocate memory after %zu MiB\n", total >> 20);
      return 2;
    }
    memset(p, 1, chunk);
    total += chunk;
  }
  printf("allocated=%zu\n", total);
  return 0;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  const char *arg = argc > 2 ? argv[2] : "";
  if (!strcmp(mode, "write")) return write_file(arg);
  if (!strcmp(mode, "read")) return read_file(arg);
  if (!strcmp(mode, "env")) {
    const char *v = getenv(arg);
    printf("env=%s\n", v ? v : "(unset)");
    return 0;
  }
  if (!strcmp(mode, "connect")) return connect_to(atoi(arg));
  if (!strcmp(mode, "detach")) return detach(atoi(arg));
  if (!strcmp(mode, "forkbomb")) return fork_bomb();
  if (!strcmp(mode, "bomb")) return real_fork_bomb();
  if (!strcmp(mode, "uid")) {
    printf("uid=%d\n", (int)getuid());
    return 0;
  }
  if (!strcmp(mode, "alloc")) return allocate();
  if (!strcmp(mode, "hang")) {
    if (*arg) detach(atoi(arg));
    for (volatile unsigned long i = 0;; i++) {
    }
  }
  fprintf(stderr, "usage: misbehave write|read|env|connect|detach|forkbomb|bomb|uid|alloc|hang [ARG]\n");
  return 64;
}
