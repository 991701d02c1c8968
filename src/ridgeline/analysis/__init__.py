"""Host and kernel code read as text and evaluated to numbers, without a compiler.

``srcscan`` finds a program's functions, kernels, launch sites and OpenMP target regions
(``text`` strips comments and matches brackets, ``macros`` resolves preprocessor conditionals
and expands macros); ``argeval`` evaluates a host expression to a number, ``hostenv`` binds
the host variables a launch sees; ``kernelstats`` counts operations and accesses from a
kernel's text, ``declscan`` reads its declarations and ``guards`` its leading bounds guard;
``scope`` is what a kernel sees beyond its body (aliases, callees, file-scope pointers, its
footprint); ``kernel.analyze_launch`` puts them together into one
:class:`~ridgeline.analysis.kernel.KernelAnalysis` of a launch.
"""
