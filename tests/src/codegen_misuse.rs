//! The generated Rust types are narrow: each snippet below misuses the functions generated for
//! qemu-sensors (`tests/codegen/golden/qemu_sensors_2025_11_25.rs`) and must fail to compile
//! with the stated error (the Rust counterpart of the `@ts-expect-error` and
//! `# type: ignore[...]` lines in `tests/codegen/usage`).
//!
//! A brightness is a `u8` (0 to 100), not a string:
//!
//! ```compile_fail,E0308
//! mod sensors {
//!     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen/golden/qemu_sensors_2025_11_25.rs"));
//! }
//! let _ = sensors::SetLedInput { led: sensors::SetLedInputLed::Red, brightness: "40" };
//! ```
//!
//! There is no purple channel:
//!
//! ```compile_fail,E0599
//! mod sensors {
//!     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen/golden/qemu_sensors_2025_11_25.rs"));
//! }
//! let _ = sensors::SetLedInputLed::Purple;
//! ```
//!
//! The brightness is required:
//!
//! ```compile_fail,E0063
//! mod sensors {
//!     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen/golden/qemu_sensors_2025_11_25.rs"));
//! }
//! let _ = sensors::SetLedInput { led: sensors::SetLedInputLed::Red };
//! ```
//!
//! The accelerometer gives exactly three axes:
//!
//! ```compile_fail,E0308
//! mod sensors {
//!     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen/golden/qemu_sensors_2025_11_25.rs"));
//! }
//! fn axes(c: &mut embedded_mcp_std::device::client::Client) -> Result<Vec<f64>, sensors::CallError> {
//!     sensors::read_acceleration(c, &sensors::ReadAccelerationInput {})
//! }
//! ```
//!
//! And the same module, used rightly, compiles:
//!
//! ```
//! mod sensors {
//!     include!(concat!(env!("CARGO_MANIFEST_DIR"), "/codegen/golden/qemu_sensors_2025_11_25.rs"));
//! }
//! fn axes(c: &mut embedded_mcp_std::device::client::Client) -> Result<[f64; 3], sensors::CallError> {
//!     sensors::read_acceleration(c, &sensors::ReadAccelerationInput {})
//! }
//! let _ = sensors::SetLedInput { led: sensors::SetLedInputLed::Red, brightness: 40 };
//! ```
