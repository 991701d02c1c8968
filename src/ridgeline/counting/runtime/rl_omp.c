/* OpenMP builds only: calls of the team/thread queries inside a target region mark the
 * launch as SPMD-style (work split by omp_get_team_num/omp_get_thread_num): on the host the
 * region runs as one team of one thread, so its counts cover only that thread's share. */
#include <omp.h>

extern int __rl_spmd_flag;
extern int __rl_in_kernel_now(void);

int __rl_omp_get_team_num(void) { if (__rl_in_kernel_now()) __rl_spmd_flag = 1; return omp_get_team_num(); }
int __rl_omp_get_thread_num(void) { if (__rl_in_kernel_now()) __rl_spmd_flag = 1; return omp_get_thread_num(); }
int __rl_omp_get_num_teams(void) { if (__rl_in_kernel_now()) __rl_spmd_flag = 1; return omp_get_num_teams(); }
int __rl_omp_get_num_threads(void) { if (__rl_in_kernel_now()) __rl_spmd_flag = 1; return omp_get_num_threads(); }
