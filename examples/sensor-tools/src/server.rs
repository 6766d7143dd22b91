//! The server the QEMU sensor boards run (`examples/qemu-sensors`, `examples/qemu-riscv`): the
//! tools of [`Device`] with one set of buffer sizes and engine settings, so every board answers
//! byte for byte alike. The schemas are the derive's static programs: nothing is compiled at
//! boot and no schema storage is sized.

use core::fmt;

use embedded_mcp::server::{CacheScope, Clock, Config, DefinitionError, Server, ServerInfo};

use crate::board::Board;
use crate::device::{Device, TOOL_COUNT};

/// Longest request line accepted, LF included. Longer lines are skipped up to their LF and
/// answered with -32600 when their `id` can be recovered.
pub const INPUT_LINE_BYTES: usize = 512;

/// Output buffer: one response line. At least `Server::required_output_len` (checked by
/// [`server`]; 1,394 bytes), which a `tools/list` page holding `device_info` (the largest tool:
/// its derived `outputSchema` states the range of each integer type) sets.
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

/// Why [`server`] refused to start: a bug in the tool definitions or the buffer sizes.
#[derive(Debug)]
#[non_exhaustive]
pub enum SetupError {
    /// The engine refused a tool definition.
    Definitions(DefinitionError),
    /// [`OUTPUT_BYTES`] is smaller than the largest response the server can write.
    OutputBuffer {
        /// The bytes the server needs.
        required: usize,
    },
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Definitions(e) => write!(f, "tool definitions refused: {e}"),
            Self::OutputBuffer { required } => write!(
                f,
                "output buffer of {OUTPUT_BYTES} bytes is smaller than the {required} bytes required"
            ),
        }
    }
}

impl core::error::Error for SetupError {}

/// The server of the sensor tools on board `B`, at power-on.
pub fn server<B: Board>(info: ServerInfo) -> Result<SensorServer<B>, SetupError> {
    let device = Device::new(INPUT_LINE_BYTES as u32, OUTPUT_BYTES as u32);
    let server = Server::from_tools_with_config(info, device, config::<B>())
        .map_err(SetupError::Definitions)?;
    let required = server.required_output_len();
    if required > OUTPUT_BYTES {
        return Err(SetupError::OutputBuffer { required });
    }
    Ok(server)
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
}
