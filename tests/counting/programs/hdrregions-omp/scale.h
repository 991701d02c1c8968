#pragma omp target teams distribute parallel for map(to: x[0:n]) map(from: y[0:n])
for (int i = 0; i < n; i++) y[i] = 2.0f * x[i];
