//! The clients layer of the engine: what the bridge keeps per client of its one routing loop
//! (each HTTP session, stateless request and listen stream is a client), and every decision
//! about clients, taken without I/O on the `now` the shell gives.
//!
//! [`Clients`] is a sans-IO machine: the shell hands it [`Event`]s (a client's request with
//! its client identity, a stream opened or dropped, a line from the router) and the current
//! time, and performs the [`Effect`]s it returns (a line to the router, a [`Delivery`] to a
//! waiting request or a stream); it sleeps at most until [`Clients::poll_timeout`]. What a
//! route is (a channel to a waiting HTTP request, in the front) is the shell's: the layer only
//! holds it and hands it back in its effects.
//!
//! - [`ids`]: the table of ids the bridge gives forwarded requests, and the route of each.
//! - [`admission`]: how many requests and streams each client, and all together, may hold
//!   (what a client is: its address).
//! - [`deadlines`]: how long a forwarded request waits (also while a person answers one of the
//!   input shim's questions: the shim itself is a layer of the engine, `input_shim::ShimLayer`,
//!   whose questions come back naming their call), and a quiet listen stream's keep-alives.
//! - `sessions`: legacy sessions, their bound and eviction; `session_posts`: what a request
//!   in a session means.
//! - `routes`: where each line of the router goes (a response by id, progress by token, a log
//!   to the request in flight on the device that wrote it).
//! - `streams`: GET streams, 2026-07-28 listen streams and the task statuses they start with.

pub mod admission;
pub mod deadlines;
mod engine;
mod event;
pub mod ids;
mod routes;
mod session_posts;
pub mod sessions;
mod streams;
mod task_lines;
#[cfg(test)]
mod tests;

pub use engine::{Clients, ClientsConfig};
pub use event::{Answer, Delivery, Effect, Event, NewSession, Owner, SessionPost, Ticket};
