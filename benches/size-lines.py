#!/usr/bin/env python3
"""Flash of a linked firmware's `.text` by source file or line, inlined code included.

    benches/size-lines.py ELF [file|line|func] [ROWS]

`size-modules.py` counts symbols; with LTO most of the engine is inlined into a few large
functions, so a symbol says little about what its bytes are for. This script reads the
disassembly with line information (`llvm-objdump -d -l`) and gives each instruction's bytes to
the innermost source location it was compiled from (an inlined function's own line, the `?`
operator's `branch` in `core/src/result.rs`, ...), then prints the largest rows: by `file`
(the default), by `line`, or by the enclosing symbol (`func`). Paths of the Rust standard
library start with `std:`, those of this repository are relative to it.
"""
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

ROOT = str(Path(__file__).resolve().parent.parent) + "/"


def tool(name):
    sysroot = subprocess.check_output(["rustc", "--print", "sysroot"], text=True).strip()
    host = re.search(r"^host: (.*)$", subprocess.check_output(["rustc", "-vV"], text=True), re.M)
    return str(Path(sysroot) / "lib/rustlib" / host.group(1) / "bin" / name)


def text_range(elf):
    for line in subprocess.check_output([tool("llvm-size"), "-A", elf], text=True).splitlines():
        parts = line.split()
        if parts and parts[0] == ".text":
            return int(parts[2]), int(parts[2]) + int(parts[1])
    sys.exit("size-lines: no .text section in " + elf)


def place(path):
    path = re.sub(r"^/rustc/[0-9a-f]+/library/", "std:", path)
    path = re.sub(r"^.*/lib/rustlib/src/rust/library/", "std:", path)
    path = re.sub(r"^.*/\.cargo/registry/src/[^/]+/", "crate:", path)
    return path[len(ROOT):] if path.startswith(ROOT) else path


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    elf = sys.argv[1]
    mode = sys.argv[2] if len(sys.argv) > 2 else "file"
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 40
    start, end = text_range(elf)
    listing = subprocess.run(
        [tool("llvm-objdump"), "-d", "-l", "--no-show-raw-insn",
         f"--start-address={start}", f"--stop-address={end}", elf],
        capture_output=True, text=True, check=True).stdout
    sizes = defaultdict(int)
    where, func, previous, owner = "?", "?", None, None
    for line in listing.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            func = m.group(1)
            continue
        m = re.match(r"^; (/.*?):(\d+)", line)
        if m:
            where = place(m.group(1)) + ("" if mode == "file" else ":" + m.group(2))
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s", line)
        if m:
            address = int(m.group(1), 16)
            # An instruction ends where the next begins (literal pools included).
            if previous is not None and 0 < address - previous < 64:
                sizes[owner] += address - previous
            previous, owner = address, (func if mode == "func" else where)
    print("| " + mode + " | bytes |\n|---|---|")
    for key, size in sorted(sizes.items(), key=lambda kv: -kv[1])[:rows]:
        print(f"| `{key}` | {size:,} |")
    print(f"| **attributed of .text ({end - start:,})** | **{sum(sizes.values()):,}** |")


if __name__ == "__main__":
    main()
