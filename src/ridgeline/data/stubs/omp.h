/* ridgeline: minimal OpenMP runtime declarations for parsing (not libomp's header). */
#ifndef __RIDGELINE_OMP_H
#define __RIDGELINE_OMP_H
#ifdef __cplusplus
extern "C" {
#endif
double omp_get_wtime(void);
int omp_get_thread_num(void);
int omp_get_num_threads(void);
int omp_get_max_threads(void);
int omp_get_team_num(void);
int omp_get_num_teams(void);
int omp_get_num_devices(void);
int omp_get_default_device(void);
int omp_get_initial_device(void);
int omp_is_initial_device(void);
void omp_set_num_threads(int);
void *omp_target_alloc(unsigned long, int);
void omp_target_free(void *, int);
int omp_target_memcpy(void *, const void *, unsigned long, unsigned long, unsigned long, int,
                      int);
#ifdef __cplusplus
}
#endif
#endif
