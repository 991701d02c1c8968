// MPI + offload on one rank: a periodic halo exchange with itself, then a region that uses
// the received halos, then a global sum. Prints OK when the exchange delivered the halos.
#include <mpi.h>
#include <cstdio>
#include <cstdlib>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int n = argc > 1 ? atoi(argv[1]) : 1024;
  double *u = (double *)malloc((n + 2) * sizeof(double));
  double *v = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++) u[i + 1] = (double)i;
  int left = (rank - 1 + size) % size, right = (rank + 1) % size;
  MPI_Request req[4];
  MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD, &req[0]);
  MPI_Irecv(&u[n + 1], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[1]);
  MPI_Isend(&u[n], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD, &req[2]);
  MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[3]);
  MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

  #pragma omp target teams distribute parallel for map(to: u[0:n + 2]) map(from: v[0:n])
  for (int i = 0; i < n; i++) v[i] = 0.5 * (u[i] + u[i + 2]);

  double local = 0.0, global = 0.0;
  for (int i = 0; i < n; i++) local += v[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  // periodic: the sum of neighbour means is the sum of u
  double want = 0.5 * (double)n * (double)(n - 1);
  printf("%s %g %g %g\n", global == want && u[0] == n - 1 && u[n + 1] == 0 ? "OK" : "FAIL",
         global, u[0], u[n + 1]);
  MPI_Finalize();
  return 0;
}
