//! What passes between the bridge's state machines (the router of one device, the hub of many)
//! and the shell that does their I/O.
//!
//! A machine never starts a thread, never reads the clock and owns no channel: the shell hands
//! it [`Input`]s with the current time, and after each one takes its [`Output`]s
//! ([`Machine::poll_output`]) and sleeps at most until [`Machine::poll_timeout`], when it calls
//! [`Machine::handle_timeout`]. Tests drive a machine the same way under simulated time.

use std::time::Instant;

use super::message::Message;

/// Something the shell saw.
#[derive(Debug)]
pub enum Input {
    /// A line from the host.
    HostLine(Vec<u8>),
    /// A line of a client of the clients layer (the HTTP front), naming it when it has one: the
    /// tasks the line makes are that client's (`tasks::owners`), and so are the input shim's
    /// questions about it. A layer that read a host line hands it down in this form too
    /// (`client: None`), with what it read.
    ClientLine {
        /// The line.
        line: Vec<u8>,
        /// The line as the front (or a layer above) read it, its id and progress token the ones
        /// the line carries: a layer that must read the line takes it from here rather than
        /// parsing it again (the envelope of a message; `None` when nobody read this line, or
        /// it was changed after reading).
        msg: Option<Message>,
        /// The client: its session, or the bearer token; `None` for a client with no identity
        /// (a stateless request without a token) and the front's own lines.
        client: Option<String>,
        /// A legacy `tools/call` whose client can be asked a person's questions (the input
        /// shim takes it): what the client's session declared.
        asker: Option<Asker>,
    },
    /// Client `client` of the clients layer is gone (its session ended): forget what is kept
    /// for it.
    ClientEnded {
        /// The client, as [`Input::ClientLine`] named it.
        client: String,
    },
    /// A host line longer than the limit (its length), skipped.
    HostOverlong(usize),
    /// The host closed its input (with the read error, if any).
    HostEof(Option<String>),
    /// Something happened on the link of device `device` (0 for a bridge of one device).
    Link {
        /// Which device (its index in [`super::BridgeConfig::devices`]).
        device: usize,
        /// What happened.
        event: LinkEvent,
    },
}

/// A legacy client that can be asked for input (the input shim's `elicitation/create`), as its
/// session's `initialize` said.
#[derive(Debug, Clone)]
pub struct Asker {
    /// The revision its session agreed to.
    pub version: String,
    /// Its `capabilities`.
    pub capabilities: serde_json::Value,
    /// The log level carried into its calls (`None`: the device sends none).
    pub log_level: Option<&'static str>,
}

/// Something that happened on a device link. `gen` names the link ([`LinkAction::Open`]):
/// events of a link the machine has replaced are ignored.
#[derive(Debug)]
pub enum LinkEvent {
    /// The link asked for is open.
    Opened {
        /// Its generation.
        gen: u64,
    },
    /// Opening it failed.
    OpenFailed {
        /// Its generation.
        gen: u64,
        /// Why.
        error: String,
    },
    /// A line from the device.
    Line {
        /// The link's generation.
        gen: u64,
        /// The line, without its newline.
        line: Vec<u8>,
    },
    /// A device line longer than the limit (its length), skipped.
    Overlong {
        /// The link's generation.
        gen: u64,
        /// Its length.
        len: usize,
    },
    /// The link closed (end of stream, a read or write error).
    Closed {
        /// Its generation.
        gen: u64,
        /// Why.
        why: String,
    },
    /// A [`LinkAction::Write`] was not done: the device is not reading (its write queue is full).
    WriteRefused {
        /// The link's generation.
        gen: u64,
        /// The write's `key`.
        key: Option<String>,
    },
}

/// Something the machine asks the shell to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Output {
    /// Write this line to the host (the shell adds the newline).
    Host(Vec<u8>),
    /// Write this line to the host: a notification device `device` wrote (a hub says which of
    /// its devices; the clients layer gives a device's log to the request in flight there).
    HostFrom {
        /// Which device.
        device: usize,
        /// The line.
        line: Vec<u8>,
    },
    /// Write this line to the host: one of the input shim's questions (or its withdrawal)
    /// about the host's call `call` (that call's id key), so a front that keeps a stream per
    /// call puts it there.
    Question {
        /// The id key of the call it is about.
        call: String,
        /// The line.
        line: Vec<u8>,
    },
    /// Act on the link of device `device`.
    Link {
        /// Which device.
        device: usize,
        /// What to do.
        action: LinkAction,
    },
    /// The devices' tool catalogs changed (filled, emptied, listing): what readers outside
    /// the machine see (the HTTP front's header checks).
    Tools(super::catalog::ToolsView),
}

/// What to do with a device link.
#[derive(Debug, PartialEq, Eq)]
pub enum LinkAction {
    /// Open a link (connect, or start QEMU or the child process) and call it `gen`; answer with
    /// [`LinkEvent::Opened`] or [`LinkEvent::OpenFailed`].
    Open {
        /// The new link's generation.
        gen: u64,
    },
    /// Write a line (the shell adds the newline).
    Write {
        /// The link.
        gen: u64,
        /// The line.
        line: Vec<u8>,
        /// Handed back in [`LinkEvent::WriteRefused`] when the write cannot be queued.
        key: Option<String>,
    },
    /// Close the link (and stop the process behind it).
    Close {
        /// The link.
        gen: u64,
    },
}

/// A bridge state machine (see the module documentation).
pub trait Machine {
    /// Takes one input at time `now`.
    fn handle(&mut self, input: Input, now: Instant);
    /// The time [`Machine::poll_timeout`] named has come (or passed).
    fn handle_timeout(&mut self, now: Instant);
    /// The next thing to do, if any.
    fn poll_output(&mut self) -> Option<Output>;
    /// When [`Machine::handle_timeout`] is due next, if ever.
    fn poll_timeout(&self) -> Option<Instant>;
    /// The host closed its input and every request was answered: the shell may stop.
    fn is_finished(&self) -> bool;
    /// The bridge stops: close every link (outputs follow).
    fn stop(&mut self);
}
