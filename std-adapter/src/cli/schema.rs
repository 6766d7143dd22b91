//! `embedded-mcp schema check|compile|validate|derive`: the core's schema dialect on the host.
//!
//! The usage text is [`USAGE`] (written once, in [`crate::cli::usage`]).
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
use std::path::Path;

use embedded_mcp::schema::{compile_reporting, CompileError, Program, Storage, ViolationKind};

use crate::full::FullValidator;

/// Usage text of the schema commands.
pub const USAGE: &str = super::usage::SCHEMA;

/// Host-side storage: as large as the program format allows for ops and text.
type HostStorage = Storage<16_384, 65_535, 65_535>;

/// Stack for the thread that owns a [`HostStorage`] (about 1 MiB, built on the stack).
const WORKER_STACK: usize = 64 << 20;

/// Runs `embedded-mcp schema ARGS...` and returns the exit code.
pub fn schema_main(args: &[String]) -> i32 {
    let args = args.to_vec();
    let worker = std::thread::Builder::new()
        .name("schema".into())
        .stack_size(WORKER_STACK)
        .spawn(move || run(&args));
    match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("embedded-mcp schema: internal error");
            2
        }
    }
}

fn run(args: &[String]) -> i32 {
    let rest = args.get(1..).unwrap_or_default();
    match args.first().map(String::as_str) {
        Some("check") => match rest {
            [schema] => check(Path::new(schema)),
            _ => usage(),
        },
        Some("compile") => match rest {
            [schema, o, out] | [o, out, schema] if o == "-o" || o == "--output" => {
                compile_to(Path::new(schema), Path::new(out))
            }
            _ => usage(),
        },
        Some("validate") => {
            let mut engine = "core";
            let mut files = Vec::new();
            let mut args = rest.iter().map(String::as_str);
            while let Some(a) = args.next() {
                let choice = match a {
                    "--engine" => args.next(),
                    _ => a.strip_prefix("--engine="),
                };
                match (a.starts_with("--engine"), choice) {
                    (true, Some("core")) => engine = "core",
                    (true, Some("full")) => engine = "full",
                    (true, _) => return usage(),
                    (false, _) => files.push(a),
                }
            }
            match files.as_slice() {
                [schema, instance] => validate(Path::new(schema), Path::new(instance), engine),
                _ => usage(),
            }
        }
        Some("derive") => match rest {
            [source, ty] => derive(Path::new(source), ty, false),
            [source, ty, o] | [o, source, ty] if o == "--output" => {
                derive(Path::new(source), ty, true)
            }
            _ => usage(),
        },
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            0
        }
        _ => usage(),
    }
}

fn usage() -> i32 {
    eprintln!("{USAGE}");
    2
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

fn validate(schema_path: &Path, instance_path: &Path, engine: &str) -> i32 {
    let (schema, instance) = match (read(schema_path), read(instance_path)) {
        (Ok(s), Ok(i)) => (s, i),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    if engine == "full" {
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
