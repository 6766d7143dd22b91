# Sourced by the scripts that build and run firmware (scripts/demo.sh, benches/size-check.sh,
# tests/clients/run.sh, tests/codegen/run.sh, tests/conformance/run.sh): one way to build a
# firmware crate and name its ELF.
#
# firmware_elf DIR TARGET [cargo build args...]
#   Builds the firmware crate in DIR (release, for TARGET) with the command and environment of
#   tests/src/qemu.rs `build_firmware` (the QEMU tests' builds, so each reuses the other's), in
#   the firmware target folder scripts/test.sh shares (EMCP_FIRMWARE_TARGET_DIR) or else the
#   crate's own `target/`, and prints the ELF's path as cargo's JSON messages name it (the last
#   compiler artifact with an `executable`). Diagnostics go to stderr; on failure it prints
#   nothing and returns 1.
firmware_elf() {
    local dir=$1 target=$2 target_dir json elf
    shift 2
    dir=$(cd "$dir" && pwd) || return 1
    target_dir=${EMCP_FIRMWARE_TARGET_DIR:-$dir/target}
    # The crate's .cargo/config.toml sets the linker flags; flags meant for a host build must
    # not replace them.
    json=$(cd "$dir" && env -u RUSTFLAGS -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS \
        -u CARGO_BUILD_TARGET CARGO_TARGET_DIR="$target_dir" \
        cargo build --release --quiet --target "$target" \
        --message-format=json-render-diagnostics "$@") || return 1
    elf=$(printf '%s\n' "$json" | grep '"reason":"compiler-artifact"' |
        grep -o '"executable":"[^"]*"' | tail -n 1 | sed 's/^"executable":"//; s/"$//')
    if [ -z "$elf" ]; then
        echo "firmware.sh: cargo build in $dir named no executable" >&2
        return 1
    fi
    printf '%s\n' "$elf"
}
