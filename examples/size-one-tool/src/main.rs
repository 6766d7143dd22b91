//! A minimal embedded-mcp firmware: one tool (`read_temperature`, an object result) served over
//! a blocking UART, one JSON-RPC message per line. It exists to be measured
//! (`benches/size-table.sh`): flash is `text + data` and RAM `data + bss` of the linked ELF;
//! the stack comes on top (see README.md).
//!
//! Features: `validator` (the engine compiles the schemas at start-up and checks arguments and
//! output), `floats` (the result holds an `f32`; otherwise an integer in hundredths),
//! `compact-float` / `small-float-tables` (the core's float formatting options).
#![no_std]
#![no_main]
// With `typed`, the hand-written tool and its statics are not used.
#![cfg_attr(feature = "typed", allow(dead_code))]

#[cfg(feature = "icount")]
mod icount;
mod rt;
#[cfg(feature = "typed")]
mod typed;
mod uart;

use core::mem::MaybeUninit;
#[cfg(not(feature = "typed"))]
use core::ptr::addr_of_mut;

use embedded_mcp::server::{
    output_len_of, Annotations, Call, Config, Done, Handler, Output, SchemaStorage, Server,
    ServerInfo, Tool,
};
use embedded_mcp::transport::LineReader;
use serde::Serialize;

use uart::Uart;

const INPUT: &str = r#"{"type":"object","properties":{"sensor":{"type":"integer","minimum":0,"maximum":1}},"additionalProperties":false}"#;

#[cfg(feature = "floats")]
const OUTPUT: &str = r#"{"type":"object","properties":{"value":{"type":"number","minimum":-40,"maximum":125},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["value","unit","sensorId","sample"],"additionalProperties":false}"#;
#[cfg(not(feature = "floats"))]
const OUTPUT: &str = r#"{"type":"object","properties":{"centi":{"type":"integer","minimum":-4000,"maximum":12500},"unit":{"const":"°C"},"sensorId":{"enum":["tmp-board","tmp-ambient"]},"sample":{"type":"integer","minimum":1}},"required":["centi","unit","sensorId","sample"],"additionalProperties":false}"#;

static TOOLS: [Tool; 1] = [Tool::new("read_temperature", INPUT)
    .title("Read temperature")
    .output_schema(OUTPUT)
    .annotations(Annotations::SENSOR)];

const INFO: ServerInfo = ServerInfo::new("size-one-tool", env!("CARGO_PKG_VERSION"));

/// One reading.
#[derive(Serialize)]
struct Temperature {
    #[cfg(feature = "floats")]
    value: f32,
    #[cfg(not(feature = "floats"))]
    centi: i32,
    unit: &'static str,
    #[serde(rename = "sensorId")]
    sensor_id: &'static str,
    sample: u32,
}

/// The sensor: a raw reading from a free-running counter (SysTick on Cortex-M, the CLINT's
/// `mtime` on RISC-V), so nothing is known at compile time.
struct Sensor {
    samples: u32,
}

/// Starts the counter `raw_reading` reads (SysTick: 24-bit reload, processor clock).
fn start_timer() {
    #[cfg(target_arch = "arm")]
    // SAFETY: SysTick's reload and control registers; nothing else uses SysTick.
    unsafe {
        (0xE000_E014 as *mut u32).write_volatile(0x00FF_FFFF);
        (0xE000_E010 as *mut u32).write_volatile(0b101);
    }
}

fn raw_reading() -> u32 {
    #[cfg(target_arch = "arm")]
    let register = 0xE000_E018 as *const u32;
    #[cfg(target_arch = "riscv32")]
    let register = 0x0200_BFF8 as *const u32;
    // SAFETY: a read-only timer register of this memory map.
    unsafe { register.read_volatile() }
}

impl Handler for Sensor {
    // Its one failure is a fixed message: `&'static str` is a `ToolFailure`. (`ToolError` would
    // also link the JSON layer's argument-error messages for its `Arguments` case, about 770
    // bytes, which this handler never returns: it reads its argument with `Value::get`.)
    type Error = &'static str;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, Self::Error> {
        let sensor = call
            .arguments()
            .get("sensor")
            .and_then(|v| v.as_number())
            .and_then(|n| n.as_u64())
            .unwrap_or(0);
        let sensor_id = match sensor {
            0 => "tmp-board",
            1 => "tmp-ambient",
            _ => return Err("no such sensor"),
        };
        self.samples = self.samples.wrapping_add(1);
        // 12-bit reading, 1/16 °C per step, from -40 °C: -40.0 ..= 215.9375 would exceed the
        // schema's 125, so the top bit is dropped: -40 ..= 87.9375 °C.
        let raw = (raw_reading() & 0x7ff) as i32;
        let reading = Temperature {
            #[cfg(feature = "floats")]
            value: raw as f32 * 0.0625 - 40.0,
            #[cfg(not(feature = "floats"))]
            centi: raw * 625 / 100 - 4000,
            unit: "°C",
            sensor_id,
            sample: self.samples,
        };
        Ok(out.structured(&reading))
    }
}

/// Longest request line, LF included.
const LINE: usize = 512;
/// Output buffer: at least what the server needs, asserted while compiling (no start-up
/// check, no code for it).
const OUT: usize = 1024;
const _: () = assert!(OUT >= output_len_of(&INFO, &TOOLS, &Config::DEFAULT));

pub(crate) type McpServer = Server<'static, Sensor, 1>;

// All of the engine's memory is static, so that it shows in `.bss`.
static mut SCHEMAS: SchemaStorage<1, 6, 20, 60> = SchemaStorage::new();
static mut SERVER: MaybeUninit<McpServer> = MaybeUninit::uninit();
static mut READER: LineReader<Uart, LINE> = LineReader::new(Uart);
static mut OUT_BUF: [u8; OUT] = [0; OUT];

fn main() -> ! {
    start_timer();
    #[cfg(feature = "typed")]
    typed::main();
    #[cfg(not(feature = "typed"))]
    main_compiled()
}

/// The hand-written tool, its schemas compiled at start-up.
#[cfg(not(feature = "typed"))]
fn main_compiled() -> ! {
    // SAFETY: `main` runs once; these are its only references to the statics.
    let (schemas, server, reader, out) = unsafe {
        (
            &mut *addr_of_mut!(SCHEMAS),
            &mut *addr_of_mut!(SERVER),
            &mut *addr_of_mut!(READER),
            &mut *addr_of_mut!(OUT_BUF),
        )
    };
    let Ok(built) = Server::new(INFO, &TOOLS, schemas, Sensor { samples: 0 }) else {
        halt()
    };
    let server = server.write(built);
    #[cfg(feature = "icount")]
    {
        let _ = reader;
        icount::report(server, out)
    }
    #[cfg(not(feature = "icount"))]
    {
        let mut writer = Uart;
        loop {
            // The UART never ends and never fails.
            let _ = server.serve(reader, &mut writer, out);
        }
    }
}

fn halt() -> ! {
    loop {}
}
