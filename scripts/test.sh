#!/usr/bin/env bash
# Runs every check and test of the project. On a fresh machine it first installs what it needs
# (scripts/setup.sh: Rust targets, llvm-tools, QEMU; the client tests make their own venv and
# npm folder). This is the command README.md names and .ci/run calls.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

# Every vector the tests read is vendored under tests/vectors (see its README); nothing here
# reads a folder beside the checkout.

# Each step's heading says how long the run has taken so far (the CI log then shows where the
# time goes).
run_start=$(date +%s)
step() { printf '\n==> [%s s] %s\n' "$(($(date +%s) - run_start))" "$*" >&2; }

# A cold run writes about 15 GB of build output (the workspace, eight firmware crates, the fuzz
# targets). Say so up front rather than failing later with a full disk in some build.
free_kb=$(df -Pk . | awk 'NR == 2 { print $4 }')
if [ "${free_kb:-0}" -lt $((20 * 1024 * 1024)) ]; then
    echo "test: warning: only $((free_kb / 1024 / 1024)) GB free here; a cold run needs about 15 GB" >&2
fi

# Firmware crates outside the workspace, each built for its own target: the RISC-V QEMU firmware
# (its QEMU sessions run with the tests below) and the real-board examples.
BOARDS=(examples/qemu-riscv examples/rp2040-usb examples/esp32c3)

# One target folder for every firmware crate of this run (examples, boards, and the crates the
# tests build or scaffold: tests/src/qemu.rs and the scripts below read this variable). Their
# host-side code (build scripts, proc-macros: syn, darling, serde_derive, the derive) then
# compiles once instead of once per example's own target folder, and crates of one target with
# the same lock-file versions and flags are shared; cargo keeps builds that differ in flags or
# features side by side. Without the variable, each crate builds in its own `target/`, as the
# examples' READMEs say.
export EMCP_FIRMWARE_TARGET_DIR="$root/target/firmware"
# `fw DIR cargo-args...`: cargo in a firmware crate's folder, in that shared target folder.
fw() {
    local dir=$1
    shift
    (cd "$dir" && CARGO_TARGET_DIR="$EMCP_FIRMWARE_TARGET_DIR" cargo "$@")
}
# The host-built crates beside the firmware (sensor-tools, rx-ring) share the workspace's
# target folder: the same dependencies, already checked by the workspace's clippy.
host() {
    local dir=$1
    shift
    (cd "$dir" && CARGO_TARGET_DIR="$root/target" cargo "$@")
}

step "setup"
bash scripts/setup.sh

# The firmware crates outside the workspace (other targets, own lock files): fmt and clippy each.
# The QEMU firmware (their QEMU sessions run with the tests below), and the board libraries.
FIRMWARE_BINS=(examples/qemu-sensors examples/qemu-conformance examples/m4f-smoke
    examples/panic-free examples/microbit)
BOARD_LIBS=(boards/cortex-m-glue boards/qemu-lm3s6965 boards/qemu-virt boards/qemu-mps2-an386)

step "format"
cargo fmt --all --check
for crate in "${FIRMWARE_BINS[@]}" "${BOARD_LIBS[@]}" "${BOARDS[@]}" examples/sensor-tools \
    boards/rx-ring boards/rp2040-mcp; do
    (cd "$crate" && cargo fmt --check)
done

# No crate's modules import each other in a circle (issues 24, 34); the script lists any. Every
# crate of the workspace and the library crates beside it (about 3 s, its self-test included).
python3 scripts/check-circles.py --self-test
python3 scripts/check-circles.py core schema macros macros/impl macros/fixture macros/ui \
    std-adapter tests benches examples/host-sensors boards/* examples/sensor-tools

step "clippy (warnings denied; the core also denies unwrap/expect/panic/indexing outside tests)"
cargo clippy --workspace --all-targets -- -D warnings

step "firmware crates: release builds for their targets, linted by clippy as they compile"
# One compile for both: clippy's driver is the compiler of the crate being built (cargo's
# RUSTC_WORKSPACE_WRAPPER, as `cargo clippy` sets it, with the arguments of `cargo clippy -- -D
# warnings` in CLIPPY_ARGS, `__CLIPPY_HACKERY__` between them: cargo-clippy's way of handing them
# to the driver). The dependencies compile once, for real, with the crate's own rustc flags, and
# the QEMU tests, the size check and the demo reuse them (they rebuild only the crate itself).
# `cargo clippy` would check every dependency (metadata only) and a build then compile it again:
# measured on the 2-core machine, clippy of these crates 520 s (shared target folder) before the
# builds; see the step times this script prints for what the single pass takes.
clippy_driver=$(rustup which clippy-driver)
lint_build() { # DIR [cargo build args...]
    local dir=$1
    shift
    (
        export RUSTC_WORKSPACE_WRAPPER="$clippy_driver"
        export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"
        fw "$dir" build -q --release "$@"
    )
}
for crate in "${FIRMWARE_BINS[@]}" "${BOARDS[@]}"; do
    lint_build "$crate"
done
# The micro:bit's QEMU build too (its `qemu` feature logs through semihosting; the default above
# is the real board's build): only the crate and cortex-m-glue compile again.
lint_build examples/microbit --features qemu
# The board libraries, each its own workspace (so a crate of its own to lint): `cargo clippy`, as
# a library has nothing to link.
for crate in "${BOARD_LIBS[@]}"; do
    fw "$crate" clippy -q --release -- -D warnings
done
# The RP2040 board library (its lints with the core's `approval` feature, as sensor-tools turns it
# on in rp2040-usb, whose build above compiles it), and the Cortex-M parts the boards share with
# semihosting, as under QEMU (the line above checks them without it, as the real micro:bit
# builds them).
fw boards/rp2040-mcp clippy -q --release --features embedded-mcp/approval -- -D warnings
fw boards/cortex-m-glue clippy -q --release --features semihosting -- -D warnings
# The tools library of the sensor and board firmware, on the host: its lints and its tests
# (the chip tools served byte for byte).
host examples/sensor-tools clippy -q --all-targets -- -D warnings
host examples/sensor-tools test -q
# The UART receive ring of the QEMU boards (a host-buildable no_std library): its lints.
host boards/rx-ring clippy -q --all-targets -- -D warnings

step "docs (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps -p embedded-mcp -p embedded-mcp-schema \
    -p embedded-mcp-macros -p embedded-mcp-macros-impl -p embedded-mcp-std

step "packaging: the published crates as a registry takes them (cargo package, verified; the CLI installed from its .crate)"
# Each crate's .crate is unpacked and built against the others' (a local registry of this run),
# as `cargo publish` would; publish = false crates (tests, benches, fixtures, examples) are left
# out. Measured on the 2-core machine: 60 s cold, 9 s when target/package is warm.
cargo package -q --allow-dirty -p embedded-mcp-schema -p embedded-mcp-macros-impl \
    -p embedded-mcp-macros -p embedded-mcp -p embedded-mcp-std
# The board libraries (outside the workspace: other targets, own lock files), as a registry
# would take them once the crates above are published: the `patch` stands in this checkout's
# crates for the registry's. The QEMU ones are verified (the unpacked .crate built for its target,
# in the workspace's target folder so the host crates are shared): measured on the 2-core
# machine 100 s with the embedded targets cold (the host crates built), 7 s warm. rp2040-mcp is
# packaged without the verifying build (embassy-rp's debug build and its build scripts would add
# minutes): its sources are built for its target by examples/rp2040-usb above and, as a
# dependency from outside, by tests/tests/scaffold_boards.rs. Each board is named with its
# target and the crates of this checkout it depends on (only those: an unused patch would be
# written into its Cargo.lock).
package_board() { # NAME TARGET|- DEPENDENCY...
    local name=$1 target=$2 patch=() dep
    shift 2
    for dep in "$@"; do
        patch+=(--config "patch.crates-io.${dep%%=*}.path=\"$root/${dep#*=}\"")
    done
    if [ "$target" = - ]; then
        (cd "boards/$name" && cargo package -q --allow-dirty --no-verify \
            --target-dir "$root/target" "${patch[@]}")
    else
        (cd "boards/$name" && cargo package -q --allow-dirty --target-dir "$root/target" \
            --target "$target" "${patch[@]}")
    fi
}
package_board rx-ring thumbv7m-none-eabi
package_board cortex-m-glue thumbv7m-none-eabi embedded-mcp=core
package_board qemu-lm3s6965 thumbv7m-none-eabi embedded-mcp=core rx-ring=boards/rx-ring \
    cortex-m-glue=boards/cortex-m-glue
package_board qemu-virt riscv32imac-unknown-none-elf embedded-mcp=core rx-ring=boards/rx-ring
package_board qemu-mps2-an386 thumbv7em-none-eabihf
package_board rp2040-mcp - embedded-mcp=core

# The CLI installs from its packaged .crate, as `cargo install embedded-mcp-std` will from the
# registry: `cargo install` of the package unpacked above, the four crates it depends on taken
# from their own unpacked packages (the registry's stand-in), into a temporary root (a debug
# build in the workspace's target folder: the verifying build above compiled its dependencies).
# The installed command must run.
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
pkg="$root/target/package"
install_root=$(mktemp -d)
cargo install -q --debug --offline --path "$pkg/embedded-mcp-std-$version" --root "$install_root" \
    --target-dir "$root/target" \
    --config "patch.crates-io.embedded-mcp.path=\"$pkg/embedded-mcp-$version\"" \
    --config "patch.crates-io.embedded-mcp-schema.path=\"$pkg/embedded-mcp-schema-$version\"" \
    --config "patch.crates-io.embedded-mcp-macros.path=\"$pkg/embedded-mcp-macros-$version\"" \
    --config "patch.crates-io.embedded-mcp-macros-impl.path=\"$pkg/embedded-mcp-macros-impl-$version\""
installed=$("$install_root/bin/embedded-mcp" --version)
rm -rf "$install_root"
if [ "$installed" != "embedded-mcp $version" ]; then
    echo "test: the CLI installed from its .crate says '$installed', not 'embedded-mcp $version'" >&2
    exit 1
fi

step "no_std checks of the core and of its json/schema crate (three targets, with and without defmt)"
# `check`, not `build`: these are libraries, so a build adds only codegen; the firmware crates
# above build the core for real for every target they have. Each of the three targets (Cortex-M0
# without atomic compare-and-swap, Cortex-M4F, RISC-V) gets the default features and defmt with
# pattern, compact-float and approval (each only adds code). The feature sets that do not depend
# on the target (every target is 32-bit, the only width the core's code tells apart) run on the
# most restricted one: no default features, and the schema crate with ryu's small tables.
for target in thumbv6m-none-eabi thumbv7em-none-eabihf riscv32imac-unknown-none-elf; do
    cargo check -q -p embedded-mcp --target "$target"
    cargo check -q -p embedded-mcp --target "$target" --features defmt,pattern,compact-float,approval
done
cargo check -q -p embedded-mcp --target thumbv6m-none-eabi --no-default-features
cargo check -q -p embedded-mcp-schema --target thumbv6m-none-eabi --features small-float-tables

step "panic-free firmware links (its panic handler calls an undefined symbol: no panic is reachable in the core)"
# Its step 6 is the shipped path (serve_async_into, typed tools with confirm and a Context). The
# firmware builds above already linked it (this is a no-op; the build itself takes about 14 s
# when only the firmware changed, 51 s with the core). On failure,
# examples/panic-free/locate.sh lists the call sites of the panic machinery.
fw examples/panic-free build -q --release

step "unit tests without the default features (core: no validator, no derive; json/schema: no pattern)"
cargo test -q -p embedded-mcp --no-default-features --lib
cargo test -q -p embedded-mcp-schema --lib

step "tests (unit, integration, official vectors, QEMU sessions)"
cargo test --workspace --exclude embedded-mcp-benches

step "firmware size against the recorded baseline (fails past +5 %)"
bash benches/size-check.sh

if [ -f tests/clients/run.sh ]; then
    step "real MCP clients through the bridge"
    bash tests/clients/run.sh
fi

step "generated code (embedded-mcp codegen): tsc --strict and prettier, mypy --strict and black, rustfmt"
bash tests/codegen/run.sh

step "the official MCP conformance suite against bridge --http and examples/qemu-conformance"
bash tests/conformance/run.sh

step "demo: the main job runs and shows only commands, answers and the CLI's notes"
demo_out=$(mktemp)
demo_err=$(mktemp)
if ! bash scripts/demo.sh >"$demo_out" 2>"$demo_err"; then
    echo "test: scripts/demo.sh failed; its output:" >&2
    cat "$demo_out" "$demo_err" >&2
    exit 1
fi
if grep -E 'QEMU waiting|Timer with period|qemu-sensors:|Compiling' "$demo_out" "$demo_err"; then
    echo "test: demo.sh printed diagnostics in its quiet mode" >&2
    exit 1
fi
valid=$(grep -c '^verdict: valid' "$demo_out" || true)
answers=$(grep -c '^{"jsonrpc":"2.0","id":[123],"result"' "$demo_out" || true)
if [ "$valid" != 4 ] || [ "$answers" != 3 ]; then
    echo "test: demo.sh gave $valid valid calls (want 4) and $answers bridge answers (want 3)" >&2
    cat "$demo_out" "$demo_err" >&2
    exit 1
fi
rm -f "$demo_out" "$demo_err"

step "fuzz: each of the 7 targets 45 s from the checked-in seeds (cargo-fuzz, nightly)"
# Not `grep -q`: with pipefail, grep leaving early could fail the pipeline on SIGPIPE.
if ! rustup toolchain list | grep nightly >/dev/null; then
    rustup toolchain install nightly --profile minimal
fi
# FUZZ_KEEP_CORPUS=0: fuzz/corpus/ is only read; what the runs find goes to a temporary folder,
# so the checkout keeps just the seeds (a crash's reproducer goes to fuzz/artifacts/<target>/).
# Its last line, "fuzz: N passed, M failed", is the closing line of this script.
FUZZ_KEEP_CORPUS=0 bash fuzz/run.sh 45
