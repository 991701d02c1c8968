"""``ridgeline features``: the feature record of one kernel."""

from __future__ import annotations

import argparse
from pathlib import Path

from ridgeline.cli._common import build_of, print_json
from ridgeline.cli.kernels import add_source_options


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "features",
        help="print the feature record of one kernel",
        description="Static source features (operations by precision, loops with symbolic trip "
        "counts, memory accesses and their patterns, atomics, barriers, branches) and, for "
        "CUDA with --arch, the compiled SASS opcode histogram and register use.",
        epilog="examples:\n  ridgeline features prog-cuda/ --kernel saxpy\n"
        "  ridgeline features main.cu --kernel saxpy --arch sm_86 --json\n"
        "  ridgeline features prog-omp/ --kernel main_l57",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_options(p)
    p.add_argument("--kernel", required=True, metavar="NAME",
                   help="kernel name (OpenMP: main_l57 or the __omp_offloading_... name)")
    p.add_argument("--arch", metavar="SM", help="compile CUDA for this architecture (sm_86...)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ridgeline.features import kernel_record
    from ridgeline.sources import get_kernel, load_program

    build = build_of(args)
    prog = load_program(args.paths, language=args.language, build=build)
    kernel = get_kernel(prog, args.kernel)
    rec = kernel_record(kernel, prog, arch=args.arch,
                        defines=build.for_file(Path(kernel.file), kernel.language).defines)
    if args.json:
        print_json(rec)
        return 0
    st = rec["static"]
    print(f"{rec['name']} ({rec['language']}) {rec['file']}:{rec['line']}")
    print("  params: " + ", ".join(f"{p['name']}:{p['address_space']}"
                                   f"{'*' if p['pointer'] else ''}" for p in rec["params"]))
    for s in rec["launches"]:
        print(f"  launch {s['file']}:{s['line']}: <<<{s['grid']}, {s['block']}>>>")
    print(f"  flops (as written): {st['flops']}")
    print(f"  flops (loop-weighted): {st['flops_weighted']}")
    for lp in st["loops"]:
        print(f"  loop L{lp['id']} line {lp['line']} depth {lp['depth']}: trip "
              f"{lp['trip_count']} depends on {','.join(lp['depends_on'])}")
    print(f"  memory: {st['memory']}")
    print(f"  atomics {st['atomics']}, barriers {st['barriers']}, branches {st['branches']} "
          f"(divergent {st['divergent_branches']}), special {st['special_functions']}")
    if rec.get("compiled"):
        c = rec["compiled"]
        top = sorted(c["opcodes"].items(), key=lambda kv: -kv[1])[:12]
        print(f"  SASS {c['arch']}: {c['instructions']} instructions; top {dict(top)}")
        print(f"  resources: {c['resources']}")
    if rec.get("compiled_note"):
        print(f"  note: {rec['compiled_note']}")
    for p in rec["problems"]:
        print(f"  problem: {p}")
    return 0
