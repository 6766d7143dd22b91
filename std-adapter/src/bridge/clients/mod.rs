//! The clients layer of the engine: what the bridge keeps per client of its one routing loop
//! (the stdio host is one client; each HTTP session, stateless request and listen stream is
//! another), and the decisions about clients, taken without I/O on the `now` the shell gives.
//!
//! - [`ids`]: the table of ids the bridge gives the requests its clients forward, and the route
//!   back of each.
//! - [`deadlines`]: how long a forwarded request waits (also while a person answers the input
//!   shim), and a quiet listen stream's keep-alives.
//!
//! Per-client bounds (requests in flight, listen streams, questions to a person) belong here
//! too: every forwarded request and every stream passes through this layer.

pub mod deadlines;
pub mod ids;
