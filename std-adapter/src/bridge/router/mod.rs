//! The routing loop of the bridge: owns all session state, is fed by the I/O threads through one
//! bounded channel, and wakes up for the next deadline (timeouts, startup re-sends).
//!
//! The state is grouped by concern, each with the code that drives it:
//! [`host`] (the host end, and what a host line means), [`dispatch`] (host messages on their way
//! to the device), [`connection`] (the device link and its reconnection), [`device`] (lines from
//! the device), [`session`] (the legacy handshake kept for replay), [`checking`] (results
//! checked against their output schema), [`own_requests`] (the bridge's own requests),
//! [`flight`] (requests in flight) and [`timers`] (deadlines and re-sends). The threads are in
//! [`stdio`] (the host front) and [`device_io`] (one device link).

mod checking;
mod connection;
mod device;
mod device_io;
mod dispatch;
mod era;
mod events;
mod flight;
mod front;
mod host;
mod hub;
mod own_requests;
mod pages;
mod session;
mod stdio;
mod timers;

use std::io::{Read, Write};
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError, SyncSender};
use std::time::{Duration, Instant};

use super::message::{error_response, INVALID_REQUEST};
use super::{BridgeConfig, BridgeError};
use crate::device::log::preview;
use crate::device::Logger;
use checking::Checking;
use connection::{DeviceLink, LinkState};
use events::Event;
use flight::InFlight;
use front::HostFront;
use host::HostSide;
use session::Session;

/// Capacity of the channel into the routing loop.
const EVENT_QUEUE: usize = 256;
/// Capacity of each writer's channel (host output, device input).
const WRITE_QUEUE: usize = 256;
/// Longest sleep of the routing loop without an event.
const MAX_WAIT: Duration = Duration::from_millis(500);
/// Methods that may be re-sent safely while a fresh link is silent.
const RESENDABLE: [&str; 4] = ["initialize", "server/discover", "tools/list", "ping"];
/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

/// The routing loop's state.
struct Router {
    cfg: BridgeConfig,
    log: Logger,
    /// The inbox, cloned into every thread the loop starts.
    events: SyncSender<Event>,
    host: HostSide,
    device: DeviceLink,
    flight: InFlight,
    session: Session,
    check: Checking,
    /// See [`run_device`].
    announce_links: bool,
    /// A link has been up before (so a new one may bring other tools).
    was_up: bool,
}

/// Runs the bridge (see [`crate::bridge::run`]): a hub when `cfg.devices` is not empty.
pub(super) fn run<R, W>(
    cfg: BridgeConfig,
    host_in: R,
    host_out: W,
    log: Logger,
) -> Result<(), BridgeError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    if cfg.devices.is_empty() {
        run_device(cfg, host_in, host_out, log, false)
    } else {
        hub::run(cfg, host_in, host_out, log)
    }
}

/// Runs the router of one device. `announce_links`: tell the host
/// `notifications/tools/list_changed` when the link closes or comes back (a hub re-lists then).
fn run_device<R, W>(
    cfg: BridgeConfig,
    host_in: R,
    host_out: W,
    log: Logger,
    announce_links: bool,
) -> Result<(), BridgeError>
where
    R: Read + Send + 'static,
    W: Write + Send + 'static,
{
    let (events, rx) = sync_channel(EVENT_QUEUE);
    let (out, out_rx) = sync_channel::<Vec<u8>>(WRITE_QUEUE);
    let writer = stdio::spawn_host_writer(host_out, out_rx, events.clone())?;
    stdio::spawn_host_reader(host_in, cfg.max_line, events.clone())?;
    let mut router = Router {
        cfg,
        log,
        events,
        host: HostSide {
            out: Some(out),
            eof: false,
            output_failed: None,
            front: HostFront::default(),
        },
        device: DeviceLink::new(),
        flight: InFlight::new(),
        session: Session::default(),
        check: Checking::new(),
        announce_links,
        was_up: false,
    };
    router
        .log
        .info(format_args!("bridging to {}", router.cfg.endpoint));
    router.start_connecting(0);
    let result = router.run(&rx);
    router.shutdown();
    // All responses are queued: let the writer drain them before returning.
    let _ = writer.join();
    result
}

impl Router {
    fn run(&mut self, rx: &Receiver<Event>) -> Result<(), BridgeError> {
        loop {
            if let Some(why) = self.host.output_failed.take() {
                return Err(BridgeError::HostOutput(why));
            }
            if self.finished() {
                return Ok(());
            }
            let now = Instant::now();
            let wait = self.flight.next_wakeup().map_or(MAX_WAIT, |at| {
                at.saturating_duration_since(now).min(MAX_WAIT)
            });
            match rx.recv_timeout(wait) {
                Ok(event) => self.handle(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Ok(()),
            }
            self.tick(Instant::now());
        }
    }

    fn finished(&self) -> bool {
        self.host.eof && self.flight.pending.is_empty() && self.check.held.is_empty()
    }

    fn shutdown(&mut self) {
        if let LinkState::Connecting { stop, .. } = &self.device.link {
            stop.store(true, Ordering::SeqCst);
        }
        // Dropping the link closes it: QEMU or the child process is stopped here.
        self.device.link = LinkState::Down {
            error: "bridge stopped".into(),
        };
        for q in self.flight.queue.drain(..) {
            if q.key.is_none() {
                self.log.info(format_args!(
                    "dropped at exit, the device never got it: {}",
                    preview(&q.line, PREVIEW)
                ));
            }
        }
        self.host.out = None;
    }

    fn handle(&mut self, event: Event) {
        match event {
            Event::HostLine(line) => self.on_host_line(line),
            Event::HostOverlong(len) => {
                let text = format!(
                    "Invalid request: a line of {len} bytes is longer than the bridge's limit of {} bytes",
                    self.cfg.max_line
                );
                self.log.warn(format_args!("{text}; skipped"));
                self.emit(error_response(None, INVALID_REQUEST, &text));
            }
            Event::HostEof(error) => {
                match error {
                    Some(e) => self
                        .log
                        .warn(format_args!("reading the host failed: {e}; finishing")),
                    None => self.log.info(format_args!(
                        "host closed its input; finishing {} request(s) in flight",
                        self.flight.pending.len()
                    )),
                }
                self.host.eof = true;
            }
            Event::HostOutputFailed(why) => {
                self.log
                    .warn(format_args!("writing to the host failed: {why}"));
                self.host.output_failed = Some(why);
            }
            Event::DeviceLine { gen, line } => self.on_device_line(gen, line),
            Event::DeviceOverlong { gen, len } => {
                if self.device.up_gen() == Some(gen) {
                    self.log.warn(format_args!(
                        "skipped a device line of {len} bytes (longer than {} bytes)",
                        self.cfg.max_line
                    ));
                }
            }
            Event::DeviceClosed { gen, why } => self.on_device_closed(gen, &why),
            Event::Connected { gen, attempt, link } => self.on_connected(gen, attempt, link),
            Event::GaveUp { gen, error } => self.on_gave_up(gen, error),
            Event::HubLine { .. } | Event::HubDeviceDone { .. } => {}
        }
    }
}
