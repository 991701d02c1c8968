# OpenCL component (ridgeline.opencl, ridgeline.datagen, ridgeline.profiles.oclgrind):
# PoCL (CPU OpenCL device), the ICD loader, Oclgrind with its plugin headers and the LLVM 14
# headers and g++ that build ridgeline's counting plugin; pyopencl; Ray for --ray scale-out.
# Sourced by scripts/test.sh ($PY, apt_install available).
apt_install pocl-opencl-icd ocl-icd-opencl-dev oclgrind liboclgrind-dev llvm-14-dev g++
"$PY" -c "import pyopencl" 2>/dev/null || "$PY" -m pip install -q 'pyopencl>=2024.1'
"$PY" -c "import ray" 2>/dev/null || nice -n 5 "$PY" -m pip install -q 'ray[default]>=2.9'
