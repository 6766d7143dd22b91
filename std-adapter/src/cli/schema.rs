//! `embedded-mcp schema check|compile|validate|derive`: the core's schema dialect on the host.
//! The subcommands and their options are [`SchemaCommand`] (clap).
//!
//! `check` lists every refused or invalid keyword with its JSON Pointer (exit 1 if there is
//! any). `compile` writes the postcard program that firmware loads with
//! `embedded_mcp::schema::Program::from_postcard` and prints its size. `validate` exits 0 when
//! the instance is valid, 1 when it is not (the reason on stderr), 2 when the schema is refused
//! or a file is unreadable. `--engine full` uses the host's full 2020-12 validator
//! ([`crate::full::FullValidator`]) instead of the core's compiled subset. `derive` prints the
//! schema `#[derive(McpSchema)]` makes for a type of a Rust source file (the derive's own logic,
//! `embedded_mcp_macros_impl::schemas_in_file`), byte for byte the text a tool sends.

use std::fs;
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use embedded_mcp::schema::{compile_reporting, CompileError, Program, Storage, ViolationKind};

use crate::full::FullValidator;

/// The schema subcommands.
#[derive(Subcommand, Debug, Clone)]
pub enum SchemaCommand {
    /// Does the schema fit the core's dialect?
    ///
    /// Lists every refused keyword with its JSON Pointer; exit 1 if there is any.
    Check {
        /// The JSON Schema
        #[arg(value_name = "SCHEMA.json")]
        schema: PathBuf,
    },
    /// Write the postcard program that firmware loads
    ///
    /// Firmware loads it with Program::from_postcard; its size is printed.
    Compile {
        /// The JSON Schema
        #[arg(value_name = "SCHEMA.json")]
        schema: PathBuf,
        /// Where to write the program
        #[arg(short, long, value_name = "PROGRAM.bin")]
        output: PathBuf,
    },
    /// Validate an instance: exit 0 valid, 1 invalid
    ///
    /// The reason goes to stderr; exit 2 when the schema is refused or a file is unreadable.
    Validate {
        /// The JSON Schema
        #[arg(value_name = "SCHEMA.json")]
        schema: PathBuf,
        /// The instance to validate
        #[arg(value_name = "INSTANCE.json")]
        instance: PathBuf,
        /// The validator
        #[arg(long, value_enum, default_value_t = Engine::Core)]
        engine: Engine,
    },
    /// Print the schema #[derive(McpSchema)] makes for a type
    ///
    /// TYPE is a struct or enum of SOURCE.rs; nested derived types must be in the same file.
    Derive {
        /// The Rust source file
        #[arg(value_name = "SOURCE.rs")]
        source: PathBuf,
        /// The struct or enum
        #[arg(value_name = "TYPE")]
        type_name: String,
        /// Print the output schema instead
        #[arg(long)]
        output: bool,
    },
}

/// The validator of `schema validate`.
#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// The core's compiled subset (what firmware runs).
    Core,
    /// The host's full JSON Schema 2020-12 validator.
    Full,
}

/// Host-side storage: as large as the program format allows for ops and text.
type HostStorage = Storage<16_384, 65_535, 65_535>;

/// Stack for the thread that owns a [`HostStorage`] (about 1 MiB, built on the stack).
const WORKER_STACK: usize = 64 << 20;

/// Runs `command` and returns the exit code.
pub fn schema_main(command: SchemaCommand) -> i32 {
    let worker = std::thread::Builder::new()
        .name("schema".into())
        .stack_size(WORKER_STACK)
        .spawn(move || run(&command));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("embedded-mcp schema: internal error");
            2
        }
    }
}

fn run(command: &SchemaCommand) -> i32 {
    match command {
        SchemaCommand::Check { schema } => check(schema),
        SchemaCommand::Compile { schema, output } => compile_to(schema, output),
        SchemaCommand::Validate {
            schema,
            instance,
            engine,
        } => validate(schema, instance, *engine),
        SchemaCommand::Derive {
            source,
            type_name,
            output,
        } => derive(source, type_name, *output),
    }
}

/// Prints `ty`'s derived input (or output) schema; 2 when the file is unreadable or the derive
/// refuses the type.
fn derive(source: &Path, ty: &str, output: bool) -> i32 {
    let text = match read(source).map(String::from_utf8) {
        Ok(Ok(text)) => text,
        Ok(Err(_)) => {
            eprintln!("embedded-mcp: {} is not UTF-8", source.display());
            return 2;
        }
        Err(code) => return code,
    };
    match embedded_mcp_macros_impl::schemas_in_file(&text, ty) {
        Ok(s) => {
            println!("{}", if output { s.output } else { s.input });
            0
        }
        Err(e) => {
            eprintln!("{}: {e}", source.display());
            2
        }
    }
}

fn read(path: &Path) -> Result<Vec<u8>, i32> {
    fs::read(path).map_err(|e| {
        eprintln!("embedded-mcp: cannot read {}: {e}", path.display());
        2
    })
}

/// Compiles with every problem collected; prints them to stderr with the file name.
fn compile_all<'p>(
    path: &Path,
    schema: &[u8],
    storage: &'p mut HostStorage,
) -> Result<Program<'p>, Vec<CompileError>> {
    let mut problems = Vec::new();
    let result = compile_reporting(schema, storage, &mut |e| problems.push(*e));
    match result {
        Ok(p) => Ok(p),
        Err(first) => {
            if problems.is_empty() {
                problems.push(first);
            }
            for p in &problems {
                eprintln!("{}: {p}", path.display());
            }
            Err(problems)
        }
    }
}

fn describe(p: &Program<'_>) -> String {
    format!(
        "{} nodes, {} ops, {} text bytes; postcard program {} bytes",
        p.node_count(),
        p.op_count(),
        p.text_len(),
        p.postcard_len()
    )
}

fn check(path: &Path) -> i32 {
    let schema = match read(path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut storage = Box::new(HostStorage::new());
    match compile_all(path, &schema, &mut storage) {
        Ok(p) => {
            println!("{}: fits the dialect ({})", path.display(), describe(&p));
            0
        }
        Err(problems) => {
            let unreadable = problems
                .iter()
                .any(|p| matches!(p, CompileError::NotJson(_)));
            println!(
                "{}: does not fit the dialect ({} problem{})",
                path.display(),
                problems.len(),
                if problems.len() == 1 { "" } else { "s" }
            );
            if unreadable {
                2
            } else {
                1
            }
        }
    }
}

fn compile_to(path: &Path, out: &Path) -> i32 {
    let schema = match read(path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut storage = Box::new(HostStorage::new());
    let program = match compile_all(path, &schema, &mut storage) {
        Ok(p) => p,
        Err(_) => return 2,
    };
    let mut buf = vec![0u8; program.postcard_len()];
    let bytes = match program.to_postcard(&mut buf) {
        Ok(b) => b.to_vec(),
        Err(e) => {
            eprintln!("embedded-mcp: {e}");
            return 2;
        }
    };
    // Load it back, exactly as firmware will, before writing it.
    let mut check = Box::new(HostStorage::new());
    if let Err(e) = Program::from_postcard(&bytes, &mut check) {
        eprintln!("embedded-mcp: the written program does not load back: {e}");
        return 2;
    }
    if let Err(e) = fs::write(out, &bytes) {
        eprintln!("embedded-mcp: cannot write {}: {e}", out.display());
        return 2;
    }
    println!(
        "{}: {} bytes ({})",
        out.display(),
        bytes.len(),
        describe(&program)
    );
    0
}

fn validate(schema_path: &Path, instance_path: &Path, engine: Engine) -> i32 {
    let (schema, instance) = match (read(schema_path), read(instance_path)) {
        (Ok(s), Ok(i)) => (s, i),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    if engine == Engine::Full {
        return validate_full(schema_path, &schema, instance_path, &instance);
    }
    let mut storage = Box::new(HostStorage::new());
    let program = match compile_all(schema_path, &schema, &mut storage) {
        Ok(p) => p,
        Err(_) => return 2,
    };
    match program.validate_bytes(&instance) {
        Ok(()) => {
            println!("{}: valid", instance_path.display());
            0
        }
        Err(v) => {
            eprintln!("{}: {v}", instance_path.display());
            match v.kind {
                ViolationKind::NotJson | ViolationKind::TooLarge => 2,
                _ => 1,
            }
        }
    }
}

fn validate_full(schema_path: &Path, schema: &[u8], instance_path: &Path, instance: &[u8]) -> i32 {
    let parse = |path: &Path, bytes: &[u8]| {
        serde_json::from_slice::<serde_json::Value>(bytes).map_err(|e| {
            eprintln!("{}: not JSON: {e}", path.display());
            2
        })
    };
    let (schema, instance) = match (parse(schema_path, schema), parse(instance_path, instance)) {
        (Ok(s), Ok(i)) => (s, i),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let validator = match FullValidator::new(&schema) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("{}: {e}", schema_path.display());
            return 2;
        }
    };
    match validator.validate(&instance) {
        Ok(()) => {
            println!("{}: valid", instance_path.display());
            0
        }
        Err(f) => {
            eprintln!("{}: {f}", instance_path.display());
            1
        }
    }
}
