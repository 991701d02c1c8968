from tests.sources.conftest import cl_file, clang, cuda_file, omp_file  # noqa: F401
