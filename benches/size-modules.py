#!/usr/bin/env python3
"""Flash of a linked firmware grouped by module, from `llvm-nm --size-sort -S -C`.

    benches/size-modules.py ELF [DEPTH]

Prints a markdown table: one row per module (the symbol's path cut to DEPTH segments, 3 by
default: `embedded_mcp_schema::schema::validate`), code and read-only data symbols only (`t`,
`T`, `r`, `R`). `Display`/`Debug` implementations are counted under `fmt impls` with the type's
module, whatever crate they are in, so that what `core::fmt` costs shows in one place. Bytes of
`.text` and `.rodata` that no symbol covers (merged string literals, padding) are the last row,
from `llvm-size -A`.
"""
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def tool(name):
    sysroot = subprocess.check_output(["rustc", "--print", "sysroot"], text=True).strip()
    host = re.search(r"^host: (.*)$", subprocess.check_output(["rustc", "-vV"], text=True), re.M)
    return str(Path(sysroot) / "lib/rustlib" / host.group(1) / "bin" / name)


def unescape(name):
    for a, b in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$u7b$", "{"), ("$u7d$", "}"),
                 ("$C$", ","), ("$RF$", "&"), ("$BP$", "*"), ("$u27$", "'"), ("$u5b$", "["),
                 ("$u5d$", "]"), ("$u3b$", ";"), ("..", "::")):
        name = name.replace(a, b)
    name = re.sub(r"::h[0-9a-f]{16}", "", name)
    name = re.sub(r" \(\.\d+\)$", "", name)
    return name.lstrip("_")


def path_of(name):
    """The module path a symbol belongs to, and whether it is a fmt trait impl."""
    fmt = bool(re.search(r" as core::fmt::(Display|Debug|Write)>", name))
    m = re.match(r"<impl (?:[^<>]*(?:<[^<>]*>)?[^<>]* for )?&?(?:mut )?([A-Za-z_][\w:]*)", name)
    if m is None:
        m = re.match(r"<&?(?:mut )?([A-Za-z_][\w:]*)", name)
    if m is not None and name.startswith("<"):
        path = m.group(1)
    else:
        path = name
    segments = [s for s in path.split("::") if s]
    # Drop the item name (last segment starting with a lower-case fn or an upper-case type).
    while len(segments) > 1 and (segments[-1][:1].isupper() or "<" in segments[-1]):
        segments.pop()
    return segments, fmt


def main():
    elf = sys.argv[1]
    depth = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    out = subprocess.check_output([tool("llvm-nm"), "--size-sort", "-S", "-C", elf], text=True)
    groups = defaultdict(int)
    covered = 0
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) < 4 or parts[2] not in "tTrR":
            continue
        size = int(parts[1], 16)
        name = unescape(parts[3])
        if name.startswith("Lanon") or name.startswith(".Lanon"):
            key = "(anonymous read-only data)"
        else:
            segments, fmt = path_of(name)
            crate = segments[0] if segments else "?"
            cut = depth if crate.startswith("embedded_mcp") else 2
            key = "::".join(segments[:cut])
            if name.startswith("OUTLINED_FUNCTION"):
                key = "(machine outliner: OUTLINED_FUNCTION_*)"
            elif "::" not in key and not name.startswith("<"):
                key = "(runtime, compiler-builtins and linker symbols)"
            if fmt:
                if "::" not in key or key.startswith("core::"):
                    key = "core::fmt"
                else:
                    key = "fmt impls: " + key
        groups[key] += size
        covered += size
    sections = subprocess.check_output([tool("llvm-size"), "-A", elf], text=True)
    flash = 0
    for line in sections.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0] in (".vector_table", ".text", ".rodata", ".data",
                                              ".init", ".srodata", ".sdata"):
            flash += int(parts[1])
    print("| module | bytes |")
    print("|---|---|")
    small = 0
    for key, size in sorted(groups.items(), key=lambda kv: -kv[1]):
        if size < 100:
            small += size
            continue
        print(f"| `{key}` | {size:,} |")
    print(f"| (other modules, under 100 bytes each) | {small:,} |")
    print(f"| (not in a symbol: merged strings, padding, vector table) | {flash - covered:,} |")
    print(f"| **flash (sections)** | **{flash:,}** |")


if __name__ == "__main__":
    main()
