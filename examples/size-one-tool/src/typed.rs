//! The same tool written with the derive (feature `typed`): `#[derive(McpSchema)]` argument and
//! result types, `#[embedded_mcp::tools]` on the handler, served with `Server::from_tools`.
//! The schemas and their programs are made while the crate builds, so the device links the
//! validator (when `validator` is on) but no schema compiler.

use core::mem::MaybeUninit;
use core::ptr::addr_of_mut;

use embedded_mcp::server::{output_len, Annotations, Config, Server, ServerInfo, ToolError};
use embedded_mcp::transport::LineReader;
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

use crate::uart::Uart;
use crate::{halt, raw_reading, LINE, OUT};

/// Which sensor to read.
#[derive(McpSchema, Deserialize)]
struct ReadArgs {
    /// 0: board, 1: ambient.
    #[mcp(maximum = 1)]
    sensor: u8,
}

/// One reading.
#[derive(McpSchema, Serialize)]
struct Temperature {
    /// In hundredths of a degree Celsius.
    #[mcp(minimum = -4000, maximum = 12500)]
    centi: i32,
    #[serde(rename = "sensorId")]
    sensor_id: &'static str,
    #[mcp(minimum = 1)]
    sample: u32,
}

/// The sensor (see `crate::raw_reading`).
struct Board {
    samples: u32,
}

#[tools]
impl Board {
    /// Reads one temperature sensor.
    #[tool(title = "Read temperature", annotations = Annotations::SENSOR)]
    fn read_temperature(&mut self, args: ReadArgs) -> Result<Temperature, ToolError> {
        let sensor_id = match args.sensor {
            0 => "tmp-board",
            1 => "tmp-ambient",
            _ => return Err(ToolError::Message("no such sensor")),
        };
        self.samples = self.samples.wrapping_add(1);
        let raw = (raw_reading() & 0x7ff) as i32;
        Ok(Temperature {
            centi: raw * 625 / 100 - 4000,
            sensor_id,
            sample: self.samples,
        })
    }
}

const INFO: ServerInfo = ServerInfo::new("size-one-tool", env!("CARGO_PKG_VERSION"));
// The output buffer holds every response: checked while compiling.
const _: () = assert!(OUT >= output_len::<Board, { Board::TOOL_COUNT }>(&INFO, &Config::DEFAULT));

static mut SERVER: MaybeUninit<Server<'static, Board, 1>> = MaybeUninit::uninit();
static mut READER: LineReader<Uart, LINE> = LineReader::new(Uart);
static mut OUT_BUF: [u8; OUT] = [0; OUT];

pub(crate) fn main() -> ! {
    // SAFETY: `main` runs once; these are its only references to the statics.
    let (server, reader, out) = unsafe {
        (
            &mut *addr_of_mut!(SERVER),
            &mut *addr_of_mut!(READER),
            &mut *addr_of_mut!(OUT_BUF),
        )
    };
    let Ok(built) = Server::from_tools(INFO, Board { samples: 0 }) else {
        halt()
    };
    let server = server.write(built);
    let mut writer = Uart;
    loop {
        // The UART never ends and never fails.
        let _ = server.serve(reader, &mut writer, out);
    }
}
