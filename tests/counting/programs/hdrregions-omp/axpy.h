#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
for (int i = 0; i < n; i++) y[i] = 3.0f * x[i] + y[i] * y[i];
