#!/usr/bin/env bash
# Lists the reachable panic sites of the firmware: builds it with a defined panic handler
# (`--features locate`), finds every call into the panic machinery in the disassembly, and
# prints each call's inline chain (innermost frame first) as addr2line reports it from the
# debug info. With no reachable panic, it prints "0 panic call sites".
#
# Usage: ./locate.sh [cargo build options]   (e.g. --features overflow for overflow checks)
set -euo pipefail
cd "$(dirname "$0")"
tools="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
cargo build --release --features locate "$@" >&2
# rustup's llvm-tools has no addr2line; Debian's llvm (or binutils) does.
addr2line=$(command -v llvm-addr2line || command -v addr2line)
out=${CARGO_TARGET_DIR:-target}/thumbv7m-none-eabi/release
elf=$out/panic-free
# The panic machinery: core's panicking module and its cold helpers (bounds, slice and str
# index failures, unwrap/expect, overflow, division by zero, copy_from_slice length mismatch).
pattern='core::panicking::|core::slice::index::slice_index_fail|slice_end_index_len_fail|slice_start_index_len_fail|slice_index_order_fail|core::str::slice_error_fail|copy_from_slice_impl::len_mismatch_fail|core::option::unwrap_failed|core::option::expect_failed|core::result::unwrap_failed|core::cell::panic_already|core::fmt::.*::panic|panic_const'
"$tools/llvm-objdump" -d -C --no-show-raw-insn "$elf" >"$out"/locate.dis
# Call and tail-call instructions whose target is a panic function, outside those functions.
awk -v pat="$pattern" '
    /^[0-9a-f]+ <.*>:$/ { fn = $0; inside = (fn ~ pat); next }
    !inside && $2 ~ /^b/ && $0 ~ ("<[^>]*(" pat ")") { sub(":", "", $1); print $1 }
' "$out"/locate.dis >"$out"/locate.addrs
demangle() {
    sed -E 's/::h[0-9a-f]{16}//g; s/^_\$LT\$/</; s/\$LT\$/</g; s/\$GT\$/>/g; s/\$u20\$/ /g;
        s/\$C\$/,/g; s/\$u5b\$/[/g; s/\$u5d\$/]/g; s/\$u3b\$/;/g; s/\$RF\$/\&/g; s/\.\./::/g'
}
count=$(wc -l <"$out"/locate.addrs)
echo "$count panic call sites"
while read -r addr; do
    echo "--- 0x$addr"
    "$addr2line" -f -i -C -e "$elf" "0x$addr" | paste - - | demangle | sed 's/^/    /'
done <"$out"/locate.addrs
# Summary: per site, the innermost frame inside embedded-mcp (function and line), or the
# innermost frame when the site is outside the core.
echo "=== by innermost embedded-mcp frame"
while read -r addr; do
    chain=$("$addr2line" -f -i -C -e "$elf" "0x$addr" | paste - - | demangle)
    own=$(grep -m1 '^<*embedded_mcp::' <<<"$chain" || head -1 <<<"$chain")
    sed -E 's/\t.*\/(core\/src\/)/  \1/; s/\t.*\/library\//  library\//' <<<"$own"
done <"$out"/locate.addrs | sort | uniq -c | sort -k2
