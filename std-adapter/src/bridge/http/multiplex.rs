//! The front's handle on the clients layer ([`crate::bridge::clients`]): every request of every
//! HTTP client becomes an event for the one task that owns the layer (with the routing loop),
//! and its answer arrives on a channel of its own. The handle holds no state of any client:
//! only the next ticket.

use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc::{channel, Receiver, UnboundedSender};

use crate::bridge::clients::{Delivery, Event, Owner, Ticket};
pub(super) use crate::bridge::shell::Sink;
use crate::bridge::shell::DELIVERY_QUEUE;

/// An event of the clients layer, as the front sends it.
pub(crate) type ClientEvent = Event<Sink>;

/// A request or stream handed to the layer: its ticket and where its deliveries arrive.
pub(super) struct Awaited {
    pub(super) id: Ticket,
    /// The client's id, exact JSON text (for the front's own error answers; `null` if none).
    pub(super) client_id: String,
    pub(super) lines: Receiver<Delivery>,
}

/// Why a request could not be handed to the layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ForwardError {
    /// The routing loop stopped.
    RouterGone,
}

/// The handle (see the module documentation).
pub(super) struct Multiplex {
    events: UnboundedSender<ClientEvent>,
    next: AtomicU64,
}

impl Multiplex {
    /// A handle sending to the layer's task through `events`.
    pub(super) fn new(events: UnboundedSender<ClientEvent>) -> Self {
        Self {
            events,
            next: AtomicU64::new(1),
        }
    }

    /// A new ticket and the channel of its deliveries.
    pub(super) fn ticket(&self, client_id: &str) -> (Awaited, Sink) {
        let (tx, lines) = channel(DELIVERY_QUEUE);
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let client_id = client_id.to_owned();
        (
            Awaited {
                id,
                client_id,
                lines,
            },
            Sink { ticket: id, tx },
        )
    }

    /// Hands `event` to the layer.
    pub(super) fn send(&self, event: ClientEvent) -> Result<(), ForwardError> {
        self.events
            .send(event)
            .map_err(|_| ForwardError::RouterGone)
    }

    /// Forwards `request` (a JSON-RPC request line, exactly as the client wrote it) of `owner`.
    pub(super) fn forward(&self, request: &[u8], owner: Owner) -> Result<Awaited, ForwardError> {
        self.forward_tool(request, owner, None)
    }

    /// [`Multiplex::forward`] of a `tools/call` of `tool` (a hub routes it by its prefix).
    pub(super) fn forward_tool(
        &self,
        request: &[u8],
        owner: Owner,
        tool: Option<String>,
    ) -> Result<Awaited, ForwardError> {
        let (ticket, route) = self.ticket(&owner.id_raw);
        self.send(Event::Forward {
            ticket: ticket.id,
            line: request.to_vec(),
            owner,
            tool,
            route,
        })?;
        Ok(ticket)
    }

    /// Sends a notification line as it is (nothing comes back for it).
    pub(super) fn notify(&self, line: Vec<u8>) -> Result<(), ForwardError> {
        self.send(Event::Notify(line))
    }

    /// The client of `ticket` went away (or gave up waiting).
    pub(super) fn dropped(&self, ticket: Ticket) {
        let _ = self.send(Event::Dropped { ticket });
    }
}
