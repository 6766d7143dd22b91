//! The router of one device, as a state machine without I/O ([`Machine`]): host lines, device
//! lines, link events and the time go in; lines for the host, writes to the device, link opens
//! and closes come out.
//!
//! The state is grouped by concern, each with the code that drives it: `host_lines` (what a
//! host line means, its way to the device, and the one way out to the host), `link` (the
//! device link and its reconnection), `device_lines` (lines from the device), `handshake` (the legacy handshake kept for replay), `checking` (results
//! checked against their output schema), `listing` (the device's one tool catalog),
//! `device_rules` (what a device may not say to the host: task statuses, progress of calls it
//! does not have, requests of its own), `own_requests` (the bridge's own requests),
//! `pages` (one-page tool lists), `flight` (requests in flight) and `timers` (deadlines,
//! progress and re-sends).

#[cfg(test)]
mod catalog_tests;
mod checking;
mod device_lines;
mod device_rules;
mod flight;
mod handshake;
mod host_lines;
mod lean;
mod link;
mod listing;
mod own_requests;
mod pages;
#[cfg(test)]
mod tests;
mod timers;

use std::collections::VecDeque;
use std::time::Instant;

use super::config::BridgeConfig;
use super::machine::{Input, LinkAction, LinkEvent, Machine, Output};
use super::message::{error_response, INVALID_REQUEST};
use crate::log::preview;
use crate::log::Logger;
use checking::Checking;
use flight::InFlight;
use handshake::Handshake;
use link::{DeviceLink, LinkState};

/// Methods that may be re-sent safely while a fresh link is silent.
const RESENDABLE: [&str; 4] = [
    super::message::method::INITIALIZE,
    super::message::method::DISCOVER,
    super::message::method::TOOLS_LIST,
    super::message::method::PING,
];
/// Bytes of a line shown in a log message.
const PREVIEW: usize = 200;

/// The router of one device (see the module documentation).
pub struct Router {
    cfg: BridgeConfig,
    log: Logger,
    /// Outputs not taken yet.
    out: VecDeque<Output>,
    /// The time of the input being handled.
    now: Instant,
    /// The host closed its input: finish what is in flight, then stop.
    host_eof: bool,
    device: DeviceLink,
    flight: InFlight,
    handshake: Handshake,
    check: Checking,
    /// In a hub: tell the host `notifications/tools/list_changed` when the link closes or
    /// comes back (the hub re-lists then).
    announce_links: bool,
    /// The lean hop's knowledge of the link and the tools.
    lean: lean::LeanLink,
    /// Device lines dropped by the rules of `device_rules`, counted for the log.
    dropped: device_rules::Dropped,
}

impl Router {
    /// A router for `cfg.endpoint`; it asks for its first link at once.
    pub fn new(cfg: BridgeConfig, log: Logger, announce_links: bool, now: Instant) -> Self {
        let mut router = Self {
            cfg,
            log,
            out: VecDeque::new(),
            now,
            host_eof: false,
            device: DeviceLink::new(),
            flight: InFlight::new(),
            handshake: Handshake::default(),
            check: Checking::new(),
            announce_links,
            lean: lean::LeanLink::default(),
            dropped: device_rules::Dropped::default(),
        };
        router
            .log
            .info(format_args!("bridging to {}", router.cfg.endpoint));
        router.start_connecting(0);
        router
    }

    /// Asks the shell to act on the device link.
    fn link_action(&mut self, action: LinkAction) {
        self.out.push_back(Output::Link { device: 0, action });
    }

    fn on_link_event(&mut self, event: LinkEvent) {
        match event {
            LinkEvent::Line { gen, line } => self.on_device_line(gen, line),
            LinkEvent::Overlong { gen, len } => {
                if self.device.up_gen() == Some(gen) {
                    self.log.warn(format_args!(
                        "skipped a device line of {len} bytes (longer than {} bytes)",
                        self.cfg.max_line
                    ));
                }
            }
            LinkEvent::Closed { gen, why } => self.on_device_closed(gen, &why),
            LinkEvent::Opened { gen } => self.on_connected(gen),
            LinkEvent::OpenFailed { gen, error } => self.on_open_failed(gen, error),
            LinkEvent::WriteRefused { gen, key } => self.on_write_refused(gen, key),
        }
    }
}

impl Machine for Router {
    fn handle(&mut self, input: Input, now: Instant) {
        self.now = now;
        match input {
            Input::HostLine(line) => self.on_host_line(line, None),
            Input::ClientLine { line, msg, .. } => self.on_host_line(line, msg),
            Input::HostOverlong(len) => {
                let text = format!(
                    "Invalid request: a line of {len} bytes is longer than the bridge's limit of {} bytes",
                    self.cfg.max_line
                );
                self.log.warn(format_args!("{text}; skipped"));
                self.emit(error_response(None, INVALID_REQUEST, &text));
            }
            Input::HostEof(error) => {
                match error {
                    Some(e) => self
                        .log
                        .warn(format_args!("reading the host failed: {e}; finishing")),
                    None => self.log.info(format_args!(
                        "host closed its input; finishing {} request(s) in flight",
                        self.flight.pending.len()
                    )),
                }
                self.host_eof = true;
            }
            Input::Link { event, .. } => self.on_link_event(event),
            Input::ClientEnded { .. } => {}
        }
    }

    fn handle_timeout(&mut self, now: Instant) {
        self.now = now;
        self.tick();
    }

    fn poll_output(&mut self) -> Option<Output> {
        self.out.pop_front()
    }

    fn poll_timeout(&self) -> Option<Instant> {
        let connect = match &self.device.link {
            LinkState::Connecting {
                open_at,
                opening: false,
                ..
            } => Some(*open_at),
            _ => None,
        };
        [self.flight.next_wakeup(), connect]
            .into_iter()
            .flatten()
            .min()
    }

    fn is_finished(&self) -> bool {
        self.host_eof && self.flight.pending.is_empty() && self.check.held.is_empty()
    }

    fn stop(&mut self) {
        let gen = match &self.device.link {
            LinkState::Up(up) => Some(up.gen),
            LinkState::Connecting { gen, .. } => Some(*gen),
            LinkState::Down { .. } => None,
        };
        self.device.link = LinkState::Down {
            error: "bridge stopped".into(),
        };
        if let Some(gen) = gen {
            self.link_action(LinkAction::Close { gen });
        }
        for q in self.flight.queue.drain(..) {
            if q.key.is_none() {
                self.log.info(format_args!(
                    "dropped at exit, the device never got it: {}",
                    preview(&q.line, PREVIEW)
                ));
            }
        }
    }
}
