//! The host side of the routing loop when its host is the clients layer (the HTTP front): the
//! layer runs in the loop's own task, its events arriving on a channel from hyper's handlers,
//! every line the machine writes for its host going to it, and its effects performed here
//! (lines into the machine, deliveries onto each request's channel).

use std::time::Instant;

use tokio::sync::mpsc::error::TrySendError;
use tokio::sync::mpsc::{Sender, UnboundedReceiver};

use crate::bridge::clients::{Clients, Delivery, Effect, Event, Ticket};
use crate::bridge::machine::{Input, Machine};
use crate::log::Logger;

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

/// The clients layer and its inbox.
pub(super) struct ClientsHost {
    pub(super) layer: Clients<Sink>,
    pub(super) events: UnboundedReceiver<Event<Sink>>,
    pub(super) max_line: usize,
    pub(super) log: Logger,
}

impl ClientsHost {
    /// Hands the layer's lines to `machine` and its deliveries to their channels; true when the
    /// machine got a line (it may have outputs).
    pub(super) fn perform<M: Machine>(&mut self, machine: &mut M, now: Instant) -> bool {
        let mut fed = false;
        while let Some(effect) = self.layer.poll_effect() {
            match effect {
                Effect::ToRouter {
                    line,
                    client,
                    asker,
                } => {
                    let input = match client {
                        _ if line.len() > self.max_line => Input::HostOverlong(line.len()),
                        Some(client) => Input::ClientLine {
                            line,
                            client,
                            asker,
                        },
                        None => Input::HostLine(line),
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
                        self.layer.handle(Event::Dropped { ticket }, now);
                    }
                }
            }
        }
        fed
    }
}
