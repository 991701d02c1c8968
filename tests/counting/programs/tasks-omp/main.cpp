// A task queue written the CUDA way (HeCBench's tqs): thread 0 of each team takes a task id
// into a team-local array, then after a barrier every thread adds to its element of the data
// queue `iters` times. On the GPU the team's array is shared memory and the captured scalars
// are registers, so the compiler knows a store to the data queue leaves them alone and the
// loop becomes one addition; the host build passes them by pointer (checks ompshared.py).
#include <omp.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  const int iters = argc > 1 ? atoi(argv[1]) : 100;
  const int teams = 4, threads = 64, offset = 3;
  int *tasks = (int *)malloc(teams * sizeof(int));
  int *data = (int *)calloc(teams * threads, sizeof(int));
  for (int i = 0; i < teams; i++) tasks[i] = teams - 1 - i + offset;
  #pragma omp target teams num_teams(teams) thread_limit(threads) \
      map(to: tasks[0:teams]) map(tofrom: data[0:teams * threads])
  {
    int task[2];
    #pragma omp parallel
    {
      const int tid = omp_get_thread_num();
      const int nt = omp_get_num_threads();
      if (tid == 0) task[0] = tasks[omp_get_team_num()];
      #pragma omp barrier
      for (int i = 0; i < iters; i++) data[(task[0] - offset) * nt + tid] += nt;
    }
  }
  int ok = 1;
  for (int i = 0; i < teams * threads; i++) ok &= data[i] == iters * threads;
  printf("%s\n", ok ? "OK" : "FAIL");
  free(tasks);
  free(data);
  return ok ? 0 : 1;
}
