//! Every tool's `inputSchema` and `outputSchema`, compiled at start-up by the core's schema
//! compiler (`embedded_mcp::schema::compile`) into storage sized for exactly these schemas, then
//! handed to the engine (`Server::with_programs`), which checks the arguments of every call
//! before the handler runs and every structured result before it is sent.
//!
//! Why not `Server::with_config` and its `SchemaStorage<TOOLS, NODES, OPS, TEXT>`: that gives
//! every schema the room of the largest one (`<12, 40, 130>` here), 4.9 KB of RAM for these 8
//! schemas instead of the 1.7 KB below.
//!
//! A schema that outgrows its storage fails at start-up with the compiler's capacity error,
//! logged, and the firmware stops (QEMU exits with status 1).

use core::fmt;

use embedded_mcp::schema::{compile, CompileError, Program, Storage};
use embedded_mcp::server::{SchemaRole, ToolSchemas};

use crate::tools::{self, TOOLS, TOOL_COUNT};

/// Room for the compiled programs: `Storage<subschemas, instructions, text bytes>` each, the
/// capacities the compiler needs for the schemas of tools.rs (a node costs 14 bytes of RAM, an
/// instruction 8; text capacity includes room the compiler needs before it merges equal
/// strings, so it can exceed the program's final `text_len`).
pub struct SchemaStorage {
    temperature_in: Storage<3, 7, 8>,
    temperature_out: Storage<6, 20, 59>,
    /// `tools::NO_ARGUMENTS`, shared by the tools without arguments.
    no_arguments: Storage<2, 3, 0>,
    acceleration_out: Storage<2, 7, 5>,
    led_in: Storage<4, 14, 35>,
    led_out: Storage<5, 19, 46>,
    info_out: Storage<12, 40, 130>,
    sample_in: Storage<5, 15, 31>,
    sample_out: Storage<7, 21, 53>,
}

impl SchemaStorage {
    /// Empty storage.
    pub const fn new() -> Self {
        Self {
            temperature_in: Storage::new(),
            temperature_out: Storage::new(),
            no_arguments: Storage::new(),
            acceleration_out: Storage::new(),
            led_in: Storage::new(),
            led_out: Storage::new(),
            info_out: Storage::new(),
            sample_in: Storage::new(),
            sample_out: Storage::new(),
        }
    }
}

/// A schema of tools.rs that did not compile.
#[derive(Debug, Clone, Copy)]
pub struct SchemaError {
    /// The tool's name.
    pub tool: &'static str,
    /// Which of its schemas.
    pub role: SchemaRole,
    /// What the compiler said.
    pub error: CompileError,
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} of tool {}: {}", self.role, self.tool, self.error)
    }
}

fn compiled<const N: usize, const O: usize, const T: usize>(
    tool: usize,
    role: SchemaRole,
    storage: &mut Storage<N, O, T>,
) -> Result<Program<'_>, SchemaError> {
    let definition = &TOOLS[tool];
    let text = match role {
        SchemaRole::Input => Some(definition.input_schema),
        SchemaRole::Output => definition.output_schema,
    };
    let refused = |error| SchemaError {
        tool: definition.name,
        role,
        error,
    };
    // Every tool of tools.rs has an outputSchema; an empty text fails to compile, loudly.
    compile(text.unwrap_or_default().as_bytes(), storage).map_err(refused)
}

// The array built by `compile_all` lists the tools in this order.
const _: () = assert!(
    tools::TEMPERATURE == 0
        && tools::ACCELERATION == 1
        && tools::LED == 2
        && tools::INFO == 3
        && tools::SAMPLE == 4
);

/// Compiles every tool's schemas into `storage`, in [`TOOLS`] order, for
/// `Server::with_programs`.
pub fn compile_all(
    storage: &mut SchemaStorage,
) -> Result<[ToolSchemas<'_>; TOOL_COUNT], SchemaError> {
    use SchemaRole::{Input, Output};
    // `read_acceleration` and `device_info` share `tools::NO_ARGUMENTS`.
    let no_arguments = compiled(tools::ACCELERATION, Input, &mut storage.no_arguments)?;
    Ok([
        ToolSchemas {
            input: compiled(tools::TEMPERATURE, Input, &mut storage.temperature_in)?,
            output: Some(compiled(
                tools::TEMPERATURE,
                Output,
                &mut storage.temperature_out,
            )?),
        },
        ToolSchemas {
            input: no_arguments,
            output: Some(compiled(
                tools::ACCELERATION,
                Output,
                &mut storage.acceleration_out,
            )?),
        },
        ToolSchemas {
            input: compiled(tools::LED, Input, &mut storage.led_in)?,
            output: Some(compiled(tools::LED, Output, &mut storage.led_out)?),
        },
        ToolSchemas {
            input: no_arguments,
            output: Some(compiled(tools::INFO, Output, &mut storage.info_out)?),
        },
        ToolSchemas {
            input: compiled(tools::SAMPLE, Input, &mut storage.sample_in)?,
            output: Some(compiled(tools::SAMPLE, Output, &mut storage.sample_out)?),
        },
    ])
}

/// Distinct programs, and their total nodes, instructions and text bytes (for the start-up
/// log).
pub fn totals(schemas: &[ToolSchemas<'_>]) -> (usize, usize, usize, usize) {
    let mut seen: [Option<Program<'_>>; 2 * TOOL_COUNT] = [None; 2 * TOOL_COUNT];
    let mut totals = (0, 0, 0, 0);
    for program in schemas
        .iter()
        .flat_map(|s| core::iter::once(s.input).chain(s.output))
    {
        if seen.iter().flatten().any(|p| *p == program) {
            continue;
        }
        if let Some(slot) = seen.iter_mut().find(|slot| slot.is_none()) {
            *slot = Some(program);
        }
        totals.0 += 1;
        totals.1 += program.node_count();
        totals.2 += program.op_count();
        totals.3 += program.text_len();
    }
    totals
}
