//! The host side of the routing loop when its host is the clients layer (the HTTP front): the
//! layer runs in the loop's own task, its events arriving on a channel from hyper's handlers,
//! every line the machine writes for its host going to it, and its effects performed here
//! (lines into the machine, deliveries onto each request's channel).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender};

use crate::bridge::clients::{Clients, Delivery, Effect, Event};
use crate::bridge::machine::{Input, Machine};

/// Where a request's or a stream's deliveries go.
pub(crate) type Sink = UnboundedSender<Delivery>;

/// The clients layer and its inbox.
pub(super) struct ClientsHost {
    pub(super) layer: Clients<Sink>,
    pub(super) events: UnboundedReceiver<Event<Sink>>,
    pub(super) list_generation: Arc<AtomicU64>,
    pub(super) max_line: usize,
}

impl ClientsHost {
    /// Hands the layer's lines to `machine` and its deliveries to their channels; true when the
    /// machine got a line (it may have outputs).
    pub(super) fn perform<M: Machine>(&mut self, machine: &mut M, now: Instant) -> bool {
        let mut fed = false;
        while let Some(effect) = self.layer.poll_effect() {
            match effect {
                Effect::ToRouter(line) => {
                    let input = if line.len() > self.max_line {
                        Input::HostOverlong(line.len())
                    } else {
                        Input::HostLine(line)
                    };
                    machine.handle(input, now);
                    fed = true;
                }
                // A receiver gone is a client gone: the layer hears of it (`Dropped`).
                Effect::Deliver(sink, delivery) => {
                    let _ = sink.send(delivery);
                }
                Effect::ListChanged => {
                    self.list_generation.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        fed
    }
}
