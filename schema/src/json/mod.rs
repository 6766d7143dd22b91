//! The JSON wire format, strict and allocation-free.
//!
//! - Writing: [`Sink`] is where bytes go; [`SliceSink`] writes into a `&mut [u8]` and, when the
//!   buffer is too small, keeps counting so the error says how many bytes were needed.
//!   [`to_slice`] / [`to_sink`] serialise any `T: Serialize` (RFC 8259 escaping, exact integers,
//!   shortest round-trip floats, non-finite floats refused).
//! - Reading: [`Value::parse`] checks a whole document once (UTF-8, grammar, escapes, surrogate
//!   pairs, nesting depth, no trailing data) without recursion; afterwards [`Value`] gives
//!   borrowed, panic-free access to objects, arrays, strings and numbers. [`from_slice`]
//!   deserialises a `T: Deserialize` with escaped strings decoded into caller-provided scratch.

mod compact;
mod de;
mod describe;
mod display;
mod error;
mod escape;
mod fixed;
mod from_json;
mod messages;
// Compiled always, so that the tests compare it with `ryu` whatever the features.
#[cfg_attr(not(feature = "compact-float"), allow(dead_code))]
mod float;
mod number;
mod observe;
mod parse_float;
mod scan;
mod scan_error;
mod ser;
mod shift;
mod sink;
mod to_json;
mod value;
mod words;

pub use compact::write_compact;
pub use de::{from_slice, from_value};
pub use describe::{describe_displayed, fmt_described, Describe, Piece};
#[doc(hidden)]
pub use display::{Dec, Text};
pub use error::{DecodeError, DecodeErrorKind, EncodeError};
#[doc(hidden)]
pub use escape::{escape_word, plain_run};
pub use escape::{write_escaped, write_string};
pub use fixed::FixedPoint;
#[doc(hidden)]
pub use from_json::pick;
pub use from_json::{from_value_json, FromJson, Reader};
pub use number::{write_f32, write_f64, write_i64, write_u64, Number};
#[doc(hidden)]
pub use observe::Observer;
pub use scan::{check_utf8, Scanner};
pub use scan::{Limits, DEFAULT_MAX_DEPTH, MAX_DEPTH_LIMIT};
#[doc(hidden)]
pub use scan_error::{Fault, ScanError};
pub use ser::{to_sink, to_slice, Serializer};
#[doc(hidden)]
pub use shift::{copy_bytes, move_within};
pub use sink::{CountingSink, Sink, SliceSink};
#[doc(hidden)]
pub use to_json::{member, member_after, members_end, object, via};
pub use to_json::{Serde, ToJson, Written};
pub use value::{Elements, JsonStr, Kind, Members, Value};
pub use words::find_byte;
