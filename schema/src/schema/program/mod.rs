//! The compiled program: its instructions, the caller-provided [`Storage`] it lives in, its
//! postcard form, and the checks run when a stored program is loaded.
//!
//! A program is three arrays:
//! - `nodes`: one entry per compiled (sub)schema, the index of its first instruction; node `i`'s
//!   instructions run up to the next node's first one. Node 0 is the root.
//! - `ops`: instructions ([`Op`]). A keyword is one op, followed by its payload ops (children,
//!   property entries, enum values) when it has any.
//! - `text`: UTF-8 bytes holding property names, number lexemes, `const`/`enum` JSON texts and
//!   regular expressions, referenced by [`Str`] (offset, length).
//!
//! Everything is indexed with `u16`, so a program has at most 65 534 nodes, 65 535 ops and
//! 65 535 text bytes. [`NONE`] marks an absent optional child.

mod address;
mod layout;
mod op;
mod verify;
mod wire;

pub(crate) use self::address::{skip, NONE};
pub(crate) use self::layout::{types, Parts, Scratch};
pub use self::layout::{Program, Storage, PROGRAM_MAGIC, PROGRAM_VERSION};
pub(crate) use self::op::payload_ops;
pub use self::op::{Op, Str};
pub(crate) use self::verify::{find_loop, verify_structure};
