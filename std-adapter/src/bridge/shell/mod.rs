//! The bridge's I/O shell on tokio: the one place that reads the clock and does I/O for a
//! [`Machine`] (the engine's layers around a [`Router`] or a [`Hub`]).
//!
//! One task loops: it performs the machine's outputs (host lines, link opens, writes, closes),
//! then waits for the next event in its inbox or for the machine's next deadline, whichever
//! comes first. The inbox is fed by the host's streams ([`host_stdio`]) and by each device link
//! ([`link_pump`]), all through one bounded channel.
//!
//! With the clients layer as its host (the HTTP front, [`serve_clients`]), the layer runs in
//! this same task: its events arrive on a channel from hyper's handlers, every line the machine
//! writes for its host goes to it, and its effects are performed here (lines into the machine,
//! deliveries onto each request's channel, a [`Sink`]).

mod host_stdio;
mod link_pump;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::time::Instant;

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::{channel, Receiver, Sender, UnboundedReceiver};
use tokio::sync::watch;

use super::catalog::ToolsView;
use super::clients::{Clients, ClientsConfig, Delivery, Effect, Event as ClientEvent, Ticket};
use super::hub::Hub;
use super::input_shim::ShimLayer;
use super::machine::{Input, LinkAction, LinkEvent, Machine, Output};
use super::old_revisions::RevisionLayer;
use super::router::Router;
use super::tasks::TaskLayer;
use super::{BridgeConfig, BridgeError};
use crate::device::{Endpoint, TokioLink};
use crate::log::Logger;
use host_stdio::{HostIn, HostOut, Writer};
use link_pump::{OpenLink, Written};

/// Capacity of the shell's inbox and of the host writer's queue.
const QUEUE: usize = 256;

/// Deliveries one request or stream may have waiting for its client: a client that stops
/// reading loses its stream when they are all taken, the bridge keeps no more of its lines.
pub(crate) const DELIVERY_QUEUE: usize = 256;

/// Where a request's or a stream's deliveries go: a bounded channel to the HTTP exchange.
#[derive(Debug, Clone)]
pub(crate) struct Sink {
    /// The exchange's ticket.
    pub(crate) ticket: Ticket,
    /// Its channel.
    pub(crate) tx: Sender<Delivery>,
}

/// What reaches the shell's inbox.
pub(super) enum Event {
    /// An input for the machine.
    Input(Input),
    /// Link `gen` of device `device` is open (the shell keeps the link, the machine learns of it).
    Opened {
        device: usize,
        gen: u64,
        link: TokioLink,
    },
    /// Writing to the host failed.
    HostOutputFailed(String),
}

/// Runs the bridge on blocking host streams (see [`crate::bridge::run`]): a tokio runtime of one
/// thread drives a router, or a hub when `cfg.devices` is not empty.
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
    let streams = |_: &tokio::runtime::Runtime| {
        (
            HostIn::Blocking(Box::new(host_in)),
            HostOut::Blocking(Box::new(host_out)),
        )
    };
    run_streams(cfg, streams, log)
}

/// Runs the bridge on the host's descriptors (see [`crate::bridge::run_fds`]): a pipe or a unix
/// socket is tokio I/O of the runtime, anything else a blocking stream on a thread.
pub(super) fn run_fds(
    cfg: BridgeConfig,
    host_in: OwnedFd,
    host_out: OwnedFd,
    log: Logger,
) -> Result<(), BridgeError> {
    let streams = |runtime: &tokio::runtime::Runtime| {
        let _inside = runtime.enter();
        (host_stdio::host_in(host_in), host_stdio::host_out(host_out))
    };
    run_streams(cfg, streams, log)
}

fn run_streams(
    cfg: BridgeConfig,
    streams: impl FnOnce(&tokio::runtime::Runtime) -> (HostIn, HostOut),
    log: Logger,
) -> Result<(), BridgeError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .enable_io()
        .build()
        .map_err(BridgeError::Runtime)?;
    let (host_in, host_out) = streams(&runtime);
    let (events, inbox) = channel(QUEUE);
    let (host_tx, host_rx) = channel(QUEUE);
    let started = {
        let _inside = runtime.enter();
        host_stdio::start_writer(host_out, host_rx, events.clone()).and_then(|writer| {
            host_stdio::start_reader(host_in, cfg.max_line, events.clone()).map(|()| writer)
        })
    };
    let writer = started?;
    let tools = watch::channel(ToolsView::default()).0;
    let result = runtime.block_on(bridge(
        cfg,
        log,
        events,
        inbox,
        HostSide::Lines(host_tx),
        tools,
    ));
    // Every link is closed (QEMU and children stopped) before the host writer drains.
    match writer {
        Writer::Thread(thread) => {
            let _ = thread.join();
        }
        Writer::Task(task) => {
            let _ = runtime.block_on(task);
        }
    }
    // A link still opening (QEMU waiting for its UART socket) is not waited for: its opener
    // closes what it opened when it finds the shell gone.
    runtime.shutdown_background();
    result
}

/// Where [`serve`] takes the host's lines from: a bounded or an unbounded tokio channel (the
/// HTTP front's clients write into an unbounded one, bounded by its connection and body limits).
pub(super) trait HostLines: Send + 'static {
    /// The next line; `None` when the host closed its input.
    fn next_line(&mut self) -> impl std::future::Future<Output = Option<Vec<u8>>> + Send;
}

impl HostLines for Receiver<Vec<u8>> {
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        self.recv().await
    }
}

impl HostLines for tokio::sync::mpsc::UnboundedReceiver<Vec<u8>> {
    async fn next_line(&mut self) -> Option<Vec<u8>> {
        self.recv().await
    }
}

/// Runs the bridge in the caller's tokio runtime (time and I/O drivers enabled; see
/// [`crate::bridge::serve`]): host lines from
/// `host_in` (its end is the host's end of input), answers into `host_out`, the devices' tool
/// catalogs published into `tools`.
pub(super) async fn serve(
    cfg: BridgeConfig,
    mut host_in: impl HostLines,
    host_out: Sender<Vec<u8>>,
    tools: watch::Sender<ToolsView>,
    log: Logger,
) -> Result<(), BridgeError> {
    let (events, inbox) = channel(QUEUE);
    let forward = events.clone();
    let max_line = cfg.max_line;
    tokio::spawn(async move {
        while let Some(line) = host_in.next_line().await {
            let input = if line.len() > max_line {
                Input::HostOverlong(line.len())
            } else {
                Input::HostLine(line)
            };
            if forward.send(Event::Input(input)).await.is_err() {
                return;
            }
        }
        let _ = forward.send(Event::Input(Input::HostEof(None))).await;
    });
    bridge(cfg, log, events, inbox, HostSide::Lines(host_out), tools).await
}

/// Runs the bridge in the caller's tokio runtime with the clients layer as its host (the HTTP
/// front): the layer's events come on `client_events` (their end stops the bridge), and every
/// line the machine writes for its host goes to the layer, in this one task.
pub(super) async fn serve_clients(
    cfg: BridgeConfig,
    clients: ClientsConfig,
    client_events: UnboundedReceiver<ClientEvent<Sink>>,
    tools: watch::Sender<ToolsView>,
    log: Logger,
) -> Result<(), BridgeError> {
    let (events, inbox) = channel(QUEUE);
    let host = ClientsHost {
        layer: Clients::new(clients, log.clone(), Instant::now()),
        events: client_events,
    };
    bridge(
        cfg,
        log,
        events,
        inbox,
        HostSide::Clients(Box::new(host)),
        tools,
    )
    .await
}

/// The clients layer and its inbox.
struct ClientsHost {
    layer: Clients<Sink>,
    events: UnboundedReceiver<ClientEvent<Sink>>,
}

/// Where the machine's host lines go.
enum HostSide {
    /// A host's stream of lines (stdio, or a caller's channel).
    Lines(Sender<Vec<u8>>),
    /// The clients layer, in this task.
    Clients(Box<ClientsHost>),
}

impl HostSide {
    /// The next client event (never, for a stream of lines); `None` when the front is gone.
    async fn next_client_event(&mut self) -> Option<ClientEvent<Sink>> {
        match self {
            Self::Lines(_) => std::future::pending().await,
            Self::Clients(host) => host.events.recv().await,
        }
    }

    fn poll_timeout(&self) -> Option<Instant> {
        match self {
            Self::Lines(_) => None,
            Self::Clients(host) => host.layer.poll_timeout(),
        }
    }
}

/// Drives a router (or a hub) until it is finished, then closes every link.
async fn bridge(
    cfg: BridgeConfig,
    log: Logger,
    events: Sender<Event>,
    inbox: Receiver<Event>,
    host: HostSide,
    tools: watch::Sender<ToolsView>,
) -> Result<(), BridgeError> {
    let devices: Vec<(Endpoint, Logger)> = if cfg.devices.is_empty() {
        vec![(cfg.endpoint.clone(), log.clone())]
    } else {
        let named = |d: &super::HubDevice| (d.endpoint.clone(), log.named(&d.name));
        cfg.devices.iter().map(named).collect()
    };
    let mut shell = Shell {
        devices,
        max_line: cfg.max_line,
        log: log.clone(),
        events,
        host,
        tools,
        links: HashMap::new(),
    };
    let now = Instant::now();
    let (tasks, wall) = (cfg.tasks.clone(), std::time::SystemTime::now());
    let input_timeout = cfg.input_timeout;
    let result = if cfg.devices.is_empty() {
        let router = Router::new(cfg, log, false, now);
        let tasks = TaskLayer::new(router, tasks, now, wall, Box::new(random_task_id));
        shell.drive_layers(tasks, inbox, input_timeout, now).await
    } else {
        let hub = Hub::new(&cfg, log, now);
        let tasks = TaskLayer::new(hub, tasks, now, wall, Box::new(random_task_id));
        shell.drive_layers(tasks, inbox, input_timeout, now).await
    };
    // Dropping the links closes them: QEMU and children are stopped here.
    shell.links.clear();
    result
}

/// A task id: 128 bits from the OS's secure random source as 32 hex digits (a task id is the
/// client's only handle on its task, so it must not be guessable); `None` when the OS gives
/// no randomness: no fallback, the call is refused.
fn random_task_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).ok()?;
    Some(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// The shell's state: where the devices are, and the links it holds open.
struct Shell {
    /// Where each device is, and its logger.
    devices: Vec<(Endpoint, Logger)>,
    max_line: usize,
    log: Logger,
    /// The inbox's sending side, cloned into every task and thread the shell starts.
    events: Sender<Event>,
    /// Where the machine's host lines go.
    host: HostSide,
    /// Where the devices' tool catalogs are published (the HTTP front reads them).
    tools: watch::Sender<ToolsView>,
    links: HashMap<(usize, u64), OpenLink>,
}

impl Shell {
    /// Drives the engine's layers above `tasks` (the tasks layer around the router or the
    /// hub), outermost first: old revisions (a host of lines only: HTTP clients are never of an
    /// old revision), the input shim.
    async fn drive_layers<M: Machine>(
        &mut self,
        tasks: M,
        inbox: Receiver<Event>,
        input_timeout: std::time::Duration,
        now: Instant,
    ) -> Result<(), BridgeError> {
        let shim = ShimLayer::new(tasks, input_timeout, now);
        match self.host {
            HostSide::Lines(_) => self.drive(RevisionLayer::new(shim), inbox).await,
            HostSide::Clients(_) => self.drive(shim, inbox).await,
        }
    }

    async fn drive<M: Machine>(
        &mut self,
        mut machine: M,
        mut inbox: Receiver<Event>,
    ) -> Result<(), BridgeError> {
        // One timer, moved only when the next deadline moves (not one per event).
        let sleep = tokio::time::sleep_until(tokio::time::Instant::now());
        tokio::pin!(sleep);
        let mut armed: Option<Instant> = None;
        let result = loop {
            if let Err(e) = self.perform(&mut machine).await {
                break Err(e);
            }
            if machine.is_finished() {
                break Ok(());
            }
            let deadline = match (machine.poll_timeout(), self.host.poll_timeout()) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            if deadline != armed {
                if let Some(at) = deadline {
                    sleep.as_mut().reset(at.into());
                }
                armed = deadline;
            }
            tokio::select! {
                event = inbox.recv() => match event {
                    Some(event) => {
                        if let Err(e) = self.on_event(&mut machine, event) {
                            break Err(e);
                        }
                    }
                    None => break Ok(()),
                },
                event = self.host.next_client_event() => match (event, &mut self.host) {
                    (Some(event), HostSide::Clients(host)) => host.layer.handle(event, Instant::now()),
                    // The front is gone: so is every client.
                    _ => break Ok(()),
                },
                () = &mut sleep, if armed.is_some() => {
                    armed = None;
                    let now = Instant::now();
                    if machine.poll_timeout().is_some_and(|at| at <= now) {
                        machine.handle_timeout(now);
                    }
                    if let HostSide::Clients(host) = &mut self.host {
                        host.layer.handle_timeout(now);
                    }
                }
            }
        };
        machine.stop();
        let _ = self.perform(&mut machine).await;
        result
    }

    fn on_event<M: Machine>(&mut self, machine: &mut M, event: Event) -> Result<(), BridgeError> {
        let now = Instant::now();
        match event {
            Event::Input(Input::Link {
                device,
                event: LinkEvent::Closed { gen, why },
            }) => {
                let exit = self
                    .links
                    .get(&(device, gen))
                    .and_then(|l| l.closer.child_exited())
                    .map(|s| format!(" (process {s})"))
                    .unwrap_or_default();
                let why = format!("{why}{exit}");
                let event = LinkEvent::Closed { gen, why };
                machine.handle(Input::Link { device, event }, now);
            }
            Event::Input(input) => machine.handle(input, now),
            Event::Opened { device, gen, link } => {
                if let (Some(pid), Some((_, log))) =
                    (link.closer().child_pid(), self.devices.get(device))
                {
                    log.info(format_args!("device process pid {pid}"));
                }
                let event = match link_pump::start(device, gen, link, self.max_line, &self.events) {
                    Ok(open) => {
                        self.links.insert((device, gen), open);
                        LinkEvent::Opened { gen }
                    }
                    Err(e) => LinkEvent::OpenFailed {
                        gen,
                        error: format!("cannot start the device link: {e}"),
                    },
                };
                machine.handle(Input::Link { device, event }, now);
            }
            Event::HostOutputFailed(why) => {
                self.log
                    .warn(format_args!("writing to the host failed: {why}"));
                return Err(BridgeError::HostOutput(why));
            }
        }
        Ok(())
    }

    /// Performs every output the machine has (and, with the clients layer as host, every
    /// effect of the layer, which may give the machine more lines).
    async fn perform<M: Machine>(&mut self, machine: &mut M) -> Result<(), BridgeError> {
        loop {
            while let Some(output) = machine.poll_output() {
                match output {
                    Output::Host(line) => self.host_line(line, None).await?,
                    Output::HostFrom { device, line } => {
                        self.host_line(line, Some(device)).await?;
                    }
                    Output::Question { call, line } => match &mut self.host {
                        HostSide::Clients(host) => {
                            host.layer.on_question(&call, line, Instant::now());
                        }
                        HostSide::Lines(_) => self.host_line(line, None).await?,
                    },
                    Output::Link { device, action } => self.link_action(machine, device, action),
                    Output::Tools(view) => {
                        self.tools.send_replace(view);
                    }
                }
            }
            if !self.perform_clients(machine) {
                return Ok(());
            }
        }
    }

    /// Hands the clients layer's lines to `machine` and its deliveries to their channels; true
    /// when the machine got a line (it may have outputs).
    fn perform_clients<M: Machine>(&mut self, machine: &mut M) -> bool {
        let HostSide::Clients(host) = &mut self.host else {
            return false;
        };
        // The clock is read once, and only when there is an effect (most turns have none).
        let mut read = None;
        let mut fed = false;
        while let Some(effect) = host.layer.poll_effect() {
            let now = *read.get_or_insert_with(Instant::now);
            match effect {
                Effect::ToRouter {
                    line,
                    msg,
                    client,
                    asker,
                } => {
                    let input = if line.len() > self.max_line {
                        Input::HostOverlong(line.len())
                    } else {
                        Input::ClientLine {
                            line,
                            msg,
                            client,
                            asker,
                        }
                    };
                    machine.handle(input, now);
                    fed = true;
                }
                Effect::Ended { client } => {
                    machine.handle(Input::ClientEnded { client }, now);
                    fed = true;
                }
                // A receiver gone is a client gone: the layer hears of it (`Dropped`) from the
                // exchange. A full queue is a client that stopped reading: it loses its stream.
                Effect::Deliver(sink, delivery) => {
                    if let Err(TrySendError::Full(_)) = sink.tx.try_send(delivery) {
                        self.log.info(format_args!(
                            "closed a stream whose client stopped reading ({DELIVERY_QUEUE} lines waiting)"
                        ));
                        let ticket = sink.ticket;
                        drop(sink);
                        host.layer.handle(ClientEvent::Dropped { ticket }, now);
                    }
                }
            }
        }
        fed
    }

    /// A line of the machine for its host (`from`: the device that wrote it, if known).
    async fn host_line(&mut self, line: Vec<u8>, from: Option<usize>) -> Result<(), BridgeError> {
        match &mut self.host {
            HostSide::Lines(host) => host
                .send(line)
                .await
                .map_err(|_| BridgeError::HostOutput("the host writer stopped".into())),
            HostSide::Clients(host) => {
                host.layer.on_router_line(line, from, Instant::now());
                Ok(())
            }
        }
    }

    fn link_action<M: Machine>(&mut self, machine: &mut M, device: usize, action: LinkAction) {
        match action {
            LinkAction::Open { gen } => {
                let target = self.devices.get(device).cloned();
                if let Some((endpoint, log)) = target {
                    link_pump::open(
                        device,
                        gen,
                        endpoint,
                        log,
                        self.events.clone(),
                        self.max_line,
                    );
                } else {
                    let error = "no such device".to_string();
                    let event = LinkEvent::OpenFailed { gen, error };
                    machine.handle(Input::Link { device, event }, Instant::now());
                }
            }
            LinkAction::Write { gen, line, key } => {
                let written = self.links.get(&(device, gen)).map(|l| l.write(line));
                if matches!(written, Some(Written::Refused)) {
                    let event = LinkEvent::WriteRefused { gen, key };
                    machine.handle(Input::Link { device, event }, Instant::now());
                }
            }
            LinkAction::Close { gen } => {
                // Dropping it closes the link and stops QEMU or the child process.
                self.links.remove(&(device, gen));
            }
        }
    }
}
