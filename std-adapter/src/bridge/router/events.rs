//! The one inbox of the routing loop: what the I/O threads and the connector report.

use crate::device::Link;

/// Something that happened outside the routing loop.
///
/// Device events carry the generation (`gen`) of the link they come from, so that events of a
/// link already replaced are ignored.
pub(super) enum Event {
    /// A line from the host.
    HostLine(Vec<u8>),
    /// A host line longer than the limit (its length), skipped.
    HostOverlong(usize),
    /// The host closed its input (with the read error, if any).
    HostEof(Option<String>),
    /// Writing to the host failed.
    HostOutputFailed(String),
    /// A line from the device.
    DeviceLine { gen: u64, line: Vec<u8> },
    /// A device line longer than the limit, skipped.
    DeviceOverlong { gen: u64, len: usize },
    /// The device link closed.
    DeviceClosed { gen: u64, why: String },
    /// The connector opened a link.
    Connected { gen: u64, attempt: u32, link: Link },
    /// The connector used up its attempts.
    GaveUp { gen: u64, error: String },
    /// Hub: a line from the router of device `device` (its host output).
    HubLine { device: usize, line: Vec<u8> },
    /// Hub: the router of device `device` stopped.
    HubDeviceDone { device: usize },
}
