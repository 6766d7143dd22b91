//! `embedded-mcp bridge|tools|call|codegen`: the commands that talk to a device.
//!
//! Their options are declared in [`args`] (clap); each command returns its exit code, or a
//! [`UsageError`] for a command line clap accepted but the command refuses. Exit codes: 0 ok,
//! 1 tool error or invalid result, 2 usage or transport error.

mod approve;
pub mod args;
mod bridge;
mod bridge_http;
mod call;
mod codegen;
mod connect;
mod exit_code;
mod form;
mod hub_link;
mod summary;
mod tools;
mod usage_error;

pub use bridge::bridge_main;
pub use call::{call_main, render_result};
pub use codegen::{codegen_main, CodegenArgs};
pub use summary::summarize;
pub use tools::{render_tools, tools_main};
pub use usage_error::UsageError;
