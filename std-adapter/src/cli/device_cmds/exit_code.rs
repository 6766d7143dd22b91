//! The exit codes of the device commands (the CLI's rule).

/// Success.
pub(super) const OK: i32 = 0;
/// The tool reported an error, or its result broke its schema.
pub(super) const NEGATIVE: i32 = 1;
/// Usage, input or transport error.
pub(super) const FAILURE: i32 = 2;
