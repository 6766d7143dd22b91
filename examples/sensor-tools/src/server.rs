//! The server the QEMU sensor boards run (`examples/qemu-sensors`, `examples/qemu-riscv`): the
//! tools of [`Device`] with one set of buffer sizes and engine settings, so every board answers
//! byte for byte alike. The schemas are the derive's static programs: nothing is compiled at
//! boot and no schema storage is sized.

use embedded_mcp::server::{self, CacheScope, Clock, Config, DefinitionError, Server, ServerInfo};

use crate::board::Board;
use crate::device::{Device, TOOL_COUNT};

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line. At least [`output_len`], which a `tools/list` page holding
/// `device_info` (the largest tool: its derived `outputSchema` states the range of each integer
/// type) sets; each firmware asserts it while compiling, next to its `ServerInfo`.
pub const OUTPUT_BYTES: usize = 1400;

/// The engine with the sensor tools on board `B`.
pub type SensorServer<B> = Server<'static, Device<B>, TOOL_COUNT>;

/// The engine's settings on board `B`.
pub const fn config<B: Board>() -> Config {
    Config {
        // `tools/list` pages by the output buffer: the six tools take several pages, so hosts
        // see (and tests exercise) pagination.
        page_bytes: OUTPUT_BYTES,
        ttl_ms: 300_000,
        cache_scope: CacheScope::Public,
        // Requests to this device nest at most 4 levels; 16 leaves room and bounds the parser.
        max_depth: 16,
        // At most one progress report per 50 ms on the 115200-baud line; a faster tool's last
        // report still goes out before its response.
        progress_interval_ms: 50,
        clock: Some(Clock(B::uptime_ms)),
        ..Config::DEFAULT
    }
}

/// The output buffer the server of the sensor tools on board `B` needs, while compiling
/// (`embedded_mcp::server::output_len`): a firmware writes
/// `const _: () = assert!(OUTPUT_BYTES >= output_len::<MyBoard>(&SERVER_INFO));`, so a buffer
/// that is too small fails its build.
pub const fn output_len<B: Board>(info: &ServerInfo) -> usize {
    server::output_len::<Device<B>, TOOL_COUNT>(info, &config::<B>())
}

/// The server of the sensor tools on board `B`, at power-on. Refused definitions are a bug in
/// this crate (its tests say which).
pub fn server<B: Board>(info: ServerInfo) -> Result<SensorServer<B>, DefinitionError> {
    let device = Device::new(INPUT_LINE_BYTES as u32, OUTPUT_BYTES as u32);
    Server::from_tools_with_config(info, device, config::<B>())
}

#[cfg(test)]
mod tests {
    use embedded_mcp::server::Toolbox;

    use super::*;
    use crate::test_support::TestBoard;

    #[test]
    fn the_definitions_are_checked_while_compiling() {
        // `Some`: the firmware carries no run-time definition checks (see
        // `Server::from_tools`); `device_info`'s output is an object.
        let checked = <Device<TestBoard> as Toolbox<TOOL_COUNT>>::CHECKED;
        assert_eq!(checked, Some(Ok([true, false, true, true, true, true])));
    }

    #[test]
    fn the_output_length_known_while_compiling_is_the_one_measured() {
        let info = ServerInfo::new("qemu-sensors", "0.1.0").instructions("Simulated sensors.");
        let server = server::<TestBoard>(info).unwrap();
        assert_eq!(output_len::<TestBoard>(&info), server.required_output_len());
        assert!(output_len::<TestBoard>(&info) <= OUTPUT_BYTES);
    }
}
