//! The device link's life: connecting with the reconnection policy, the link being up (and
//! ready once the handshake is replayed), and its loss.

use std::sync::atomic::AtomicBool;
use std::sync::mpsc::SyncSender;
use std::sync::Arc;

use super::checking::Fetch;
use super::device_io::{sleep_unless_stopped, spawn_device_threads};
use super::events::Event;
use super::flight::InternalKind;
use super::Router;
use crate::bridge::message::{error_response, CONNECTION_CLOSED};
use crate::device::{Closer, Link};

/// A link that is open.
pub(super) struct Up {
    pub(super) gen: u64,
    /// Lines for the device writer.
    pub(super) tx: SyncSender<Vec<u8>>,
    pub(super) closer: Closer,
    /// False while the handshake is being replayed.
    pub(super) ready: bool,
    /// The device has sent at least one line on this link.
    pub(super) heard: bool,
}

/// Where the device link stands.
pub(super) enum LinkState {
    /// The connector thread of generation `gen` is trying; `stop` ends it.
    Connecting {
        gen: u64,
        stop: Arc<AtomicBool>,
    },
    Up(Up),
    /// No link, and nobody trying (until the host sends something).
    Down {
        error: String,
    },
}

/// One device link and its reconnection bookkeeping.
pub(super) struct DeviceLink {
    pub(super) link: LinkState,
    /// Generation of the newest connection attempt or link.
    pub(super) gen: u64,
    /// Failed connection attempts in the current cycle.
    pub(super) attempts: u32,
}

impl DeviceLink {
    pub(super) fn new() -> Self {
        Self {
            link: LinkState::Down {
                error: "not connected yet".into(),
            },
            gen: 0,
            attempts: 0,
        }
    }

    /// The generation of the link when it is up.
    pub(super) fn up_gen(&self) -> Option<u64> {
        match &self.link {
            LinkState::Up(up) => Some(up.gen),
            _ => None,
        }
    }

    /// True when the link is up and the handshake replayed.
    pub(super) fn ready(&self) -> bool {
        matches!(&self.link, LinkState::Up(up) if up.ready)
    }

    /// Writes `line` to the device if the link is up (best effort: bridge-made messages).
    pub(super) fn try_send(&self, line: Vec<u8>) {
        if let LinkState::Up(up) = &self.link {
            let _ = up.tx.try_send(line);
        }
    }
}

impl Router {
    pub(super) fn start_connecting(&mut self, first_attempt: u32) {
        let policy = self.cfg.reconnect;
        if first_attempt >= policy.attempts {
            let error = format!("gave up after {} failed attempts", policy.attempts);
            self.device.gen += 1;
            let gen = self.device.gen;
            self.device.link = LinkState::Connecting {
                gen,
                stop: Arc::new(AtomicBool::new(true)),
            };
            self.on_gave_up(gen, error);
            return;
        }
        self.device.gen += 1;
        let gen = self.device.gen;
        let stop = Arc::new(AtomicBool::new(false));
        let thread_stop = Arc::clone(&stop);
        let endpoint = self.cfg.endpoint.clone();
        let events = self.events.clone();
        let log = self.log.clone();
        let spawned = std::thread::Builder::new()
            .name("device-connector".into())
            .spawn(move || {
                let mut last = String::from("no attempt made");
                for attempt in first_attempt..policy.attempts {
                    if !sleep_unless_stopped(policy.delay(attempt), &thread_stop) {
                        return;
                    }
                    match endpoint.open(&log) {
                        Ok(link) => {
                            log.info(format_args!(
                                "connected to {endpoint} (attempt {})",
                                attempt + 1
                            ));
                            let _ = events.send(Event::Connected { gen, attempt, link });
                            return;
                        }
                        Err(e) => {
                            log.warn(format_args!(
                                "connecting to {endpoint} failed (attempt {} of {}): {e}",
                                attempt + 1,
                                policy.attempts
                            ));
                            last = e.to_string();
                        }
                    }
                }
                let _ = events.send(Event::GaveUp { gen, error: last });
            });
        match spawned {
            Ok(_) => self.device.link = LinkState::Connecting { gen, stop },
            Err(e) => {
                self.device.link = LinkState::Connecting {
                    gen,
                    stop: Arc::new(AtomicBool::new(true)),
                };
                self.on_gave_up(gen, format!("cannot start the connector thread: {e}"));
            }
        }
    }

    pub(super) fn on_gave_up(&mut self, gen: u64, error: String) {
        if !matches!(&self.device.link, LinkState::Connecting { gen: g, .. } if *g == gen) {
            return;
        }
        self.log.warn(format_args!(
            "device unavailable: {error}; the next message from the host starts a new attempt"
        ));
        let why = format!("device unavailable: {error}");
        for q in std::mem::take(&mut self.flight.queue) {
            self.refuse(q.key, &q.line, &why);
        }
        self.device.attempts = 0;
        self.device.link = LinkState::Down { error };
    }

    pub(super) fn on_connected(&mut self, gen: u64, attempt: u32, link: Link) {
        if !matches!(&self.device.link, LinkState::Connecting { gen: g, .. } if *g == gen) {
            return; // Stale: dropping the link closes it.
        }
        let Link {
            reader,
            writer,
            closer,
        } = link;
        let tx = match spawn_device_threads(gen, reader, writer, self.cfg.max_line, &self.events) {
            Ok(tx) => tx,
            Err(e) => {
                self.log
                    .warn(format_args!("cannot start the device threads: {e}"));
                self.device.link = LinkState::Down {
                    error: e.to_string(),
                };
                return;
            }
        };
        if let Some(pid) = closer.child_pid() {
            self.log.info(format_args!("device process pid {pid}"));
        }
        self.device.attempts = attempt;
        self.check.catalog.reset();
        self.check.listing = None;
        self.check.forget_tried();
        self.device.link = LinkState::Up(Up {
            gen,
            tx,
            closer,
            ready: false,
            heard: false,
        });
        if std::mem::replace(&mut self.was_up, true) {
            self.announce_list_change();
        }
        match self.session.init_params.clone() {
            Some(params) => {
                self.log
                    .info(format_args!("replaying the initialize handshake"));
                self.send_internal(InternalKind::ReplayInit, "initialize", params, false);
            }
            None => self.set_ready(),
        }
    }

    pub(super) fn set_ready(&mut self) {
        if let LinkState::Up(up) = &mut self.device.link {
            up.ready = true;
        }
        self.flush_queue();
    }

    pub(super) fn on_device_closed(&mut self, gen: u64, why: &str) {
        if self.device.up_gen() != Some(gen) {
            return;
        }
        let LinkState::Up(up) = std::mem::replace(
            &mut self.device.link,
            LinkState::Down {
                error: why.to_string(),
            },
        ) else {
            return;
        };
        let exit = up
            .closer
            .child_exited()
            .map(|s| format!(" (process {s})"))
            .unwrap_or_default();
        self.log
            .warn(format_args!("device link closed: {why}{exit}"));
        let heard = up.heard;
        drop(up);
        for key in self.flight.sent_on(gen) {
            if let Some(p) = self.flight.pending.remove(&key) {
                let text = format!(
                    "The device link closed before `{}` was answered ({why}); the bridge is reconnecting",
                    p.method
                );
                self.emit(error_response(Some(&p.id.raw), CONNECTION_CLOSED, &text));
            }
        }
        self.flight.internal.clear();
        if self.check.fetch == Fetch::Fetching {
            self.check.fetch = Fetch::NotTried;
        }
        self.release_held("the device link closed while its tool list was fetched");
        self.check.catalog.reset();
        self.check.listing = None;
        self.device.attempts = if heard { 0 } else { self.device.attempts + 1 };
        self.announce_list_change();
        if self.host.eof && self.flight.pending.is_empty() {
            return;
        }
        self.start_connecting(self.device.attempts);
    }
}

impl Router {
    /// In a hub: the device's tools may have changed (its link closed or came back).
    fn announce_list_change(&mut self) {
        if self.announce_links {
            self.emit(br#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#.to_vec());
        }
    }
}
