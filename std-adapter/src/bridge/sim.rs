//! Tests only: a [`Machine`] driven under simulated time (a fixed base [`Instant`] plus
//! offsets; nothing sleeps), with its outputs read back as text.

use std::time::{Duration, Instant};

use super::catalog::ToolsView;
use super::machine::{Input, LinkAction, LinkEvent, Machine, Output};
use super::{BridgeConfig, HubDevice};
use crate::device::Endpoint;
use crate::log::Logger;

/// A machine, the simulated clock, and the outputs taken so far.
pub(crate) struct Sim<M> {
    pub(crate) machine: M,
    pub(crate) t0: Instant,
    pub(crate) now: Instant,
    /// Lines written to the host.
    pub(crate) host: Vec<String>,
    /// Lines written to the devices: (device, link generation, line).
    pub(crate) device: Vec<(usize, u64, String)>,
    /// Links opened and closed: (device, generation, opened at (ms), true = open).
    pub(crate) links: Vec<(usize, u64, u128, bool)>,
    /// The tool catalogs published, in order.
    pub(crate) tools: Vec<ToolsView>,
}

/// A silent logger.
pub(crate) fn quiet() -> Logger {
    Logger::to_writer(0, "sim", Box::new(std::io::sink()))
}

/// The default configuration for a device the shell is never asked to reach, without the
/// lean hop: these simulations follow the host's lines to the device byte for byte (the lean
/// hop's own simulations turn it on).
pub(crate) fn config() -> BridgeConfig {
    let mut cfg = BridgeConfig::new(Endpoint::Tcp("simulated:1".into()));
    cfg.lean_hop = false;
    cfg
}

/// A hub configuration of devices named `names` (without the lean hop, as [`config`]).
pub(crate) fn hub_config(names: &[&str]) -> BridgeConfig {
    let mut cfg = BridgeConfig::hub(
        names
            .iter()
            .map(|n| HubDevice {
                name: (*n).to_string(),
                endpoint: Endpoint::Tcp(format!("{n}:1")),
            })
            .collect(),
    );
    cfg.lean_hop = false;
    cfg
}

impl<M: Machine> Sim<M> {
    /// Starts the simulation with `make(t0)`.
    pub(crate) fn new(make: impl FnOnce(Instant) -> M) -> Self {
        let t0 = Instant::now();
        let mut sim = Self {
            machine: make(t0),
            t0,
            now: t0,
            host: Vec::new(),
            device: Vec::new(),
            links: Vec::new(),
            tools: Vec::new(),
        };
        sim.take();
        sim
    }

    /// Milliseconds since the start.
    pub(crate) fn ms(&self) -> u128 {
        (self.now - self.t0).as_millis()
    }

    fn take(&mut self) {
        while let Some(output) = self.machine.poll_output() {
            let ms = self.ms();
            match output {
                Output::Host(line)
                | Output::HostFrom { line, .. }
                | Output::Question { line, .. } => self.host.push(text(line)),
                Output::Tools(view) => self.tools.push(view),
                Output::Link { device, action } => match action {
                    LinkAction::Open { gen } => self.links.push((device, gen, ms, true)),
                    LinkAction::Close { gen } => self.links.push((device, gen, ms, false)),
                    LinkAction::Write { gen, line, .. } => {
                        self.device.push((device, gen, text(line)));
                    }
                },
            }
        }
    }

    /// Hands the machine an input now.
    pub(crate) fn input(&mut self, input: Input) {
        self.machine.handle(input, self.now);
        self.take();
    }

    /// A line from the host.
    pub(crate) fn host_line(&mut self, line: &str) {
        self.input(Input::HostLine(line.as_bytes().to_vec()));
    }

    /// An event of device `device`'s link.
    pub(crate) fn link(&mut self, device: usize, event: LinkEvent) {
        self.input(Input::Link { device, event });
    }

    /// A line from device `device` on link `gen`.
    pub(crate) fn device_line(&mut self, device: usize, gen: u64, line: &str) {
        let line = line.as_bytes().to_vec();
        self.link(device, LinkEvent::Line { gen, line });
    }

    /// The bridge stops ([`Machine::stop`]); its outputs are taken.
    pub(crate) fn stop(&mut self) {
        self.machine.stop();
        self.take();
    }

    /// Lets `by` pass, firing every deadline on the way at its own time.
    pub(crate) fn advance(&mut self, by: Duration) {
        let end = self.now + by;
        while let Some(at) = self.machine.poll_timeout().filter(|at| *at <= end) {
            self.now = at.max(self.now);
            self.machine.handle_timeout(self.now);
            self.take();
        }
        self.now = end;
    }

    /// The host lines since the last call.
    pub(crate) fn host_out(&mut self) -> Vec<String> {
        std::mem::take(&mut self.host)
    }

    /// The device lines since the last call (lines only).
    pub(crate) fn device_out(&mut self) -> Vec<String> {
        std::mem::take(&mut self.device)
            .into_iter()
            .map(|(_, _, l)| l)
            .collect()
    }
}

fn text(line: Vec<u8>) -> String {
    String::from_utf8(line).unwrap_or_else(|e| format!("{e}"))
}
