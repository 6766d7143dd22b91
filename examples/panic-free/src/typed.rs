//! The second phase: the path a QEMU firmware runs. Typed tools (`#[tools]`) whose arguments are
//! read by the derive's `FromJson` readers and whose results are written by its writers, one of
//! them async with a [`Context`] (logs, progress) and gated by a person's approval (`confirm`,
//! sealed with the board library's key, boot salt and clock), served by `serve_async`.

use embedded_mcp::json::Piece;
use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::approval::{Approvals, Ask};
use embedded_mcp::server::{Annotations, Context, ServerInfo};
use embedded_mcp::{tools, McpSchema};
use serde::{Deserialize, Serialize};

/// Who the second server is.
pub const SERVER_INFO: ServerInfo = ServerInfo::new("panic-free-typed", env!("CARGO_PKG_VERSION"));

/// `switch`'s arguments: an optional level takes `null`, a float field its type's range.
#[derive(McpSchema, Deserialize)]
struct SwitchArgs {
    /// Relay 0 or 1
    #[mcp(maximum = 1)]
    relay: u8,
    /// On or off (on asks a person first)
    on: bool,
    /// A level to report
    level: Option<f32>,
}

/// `switch`'s result.
#[derive(McpSchema, Serialize)]
#[serde(rename_all = "camelCase")]
struct Switched {
    relay: u8,
    on: bool,
    was_on: bool,
    level: Option<f32>,
}

/// `count`'s result.
#[derive(McpSchema, Serialize)]
struct Count {
    calls: u32,
}

/// Two relays behind approval, and a call counter.
pub struct Typed {
    approvals: Approvals,
    relays: [bool; 2],
    calls: u32,
}

impl Typed {
    /// Relays off; approvals sealed as the board library seals them.
    pub fn new() -> Self {
        Self {
            approvals: Approvals::new(qemu_lm3s6965::approval::sealing()),
            relays: [false; 2],
            calls: 0,
        }
    }

    /// Switching on needs a person's yes.
    fn ask_switch(&mut self, args: &SwitchArgs) -> Option<Ask<'_, [Piece<'static>; 3]>> {
        args.on.then(|| Ask {
            approvals: &mut self.approvals,
            message: [
                Piece::Text("Switch relay "),
                Piece::Dec(u64::from(args.relay)),
                Piece::Text(" on?"),
            ],
        })
    }
}

#[tools]
impl Typed {
    /// Switches a relay; logs and reports progress on the way.
    #[tool(annotations = Annotations::NONE, destructive, confirm = Self::ask_switch)]
    async fn switch(&mut self, args: SwitchArgs, cx: &mut Context<'_>) -> Switched {
        self.calls = self.calls.wrapping_add(1);
        cx.progress(1, Some(2), None).await;
        let was_on = match self.relays.get_mut(usize::from(args.relay)) {
            Some(relay) => core::mem::replace(relay, args.on),
            None => false,
        };
        let done = Switched {
            relay: args.relay,
            on: args.on,
            was_on,
            level: args.level,
        };
        cx.log_json(LogLevel::Info, Some("switch"), &done).await;
        done
    }

    /// Calls so far.
    #[tool(annotations = Annotations::SENSOR)]
    fn count(&mut self) -> Count {
        self.calls = self.calls.wrapping_add(1);
        Count { calls: self.calls }
    }
}

/// Polls `serving`, a future that never completes, on this core until it has put why it
/// stopped into `ended`, and gives that. The UART adapters never wait (they poll the
/// hardware), so each poll makes progress; between polls the core spins.
pub fn run_until<F: core::future::Future<Output = core::convert::Infallible>, T>(
    serving: F,
    ended: &core::cell::Cell<Option<T>>,
) -> T {
    let mut serving = core::pin::pin!(serving);
    let mut cx = core::task::Context::from_waker(core::task::Waker::noop());
    loop {
        if let core::task::Poll::Ready(never) = serving.as_mut().poll(&mut cx) {
            match never {}
        }
        if let Some(end) = ended.take() {
            return end;
        }
        core::hint::spin_loop();
    }
}

/// A blocking stream as an async one whose operations complete at once.
pub struct Polled<T>(pub T);

/// A future already complete: its value on the first poll. Not an `async fn` body (whose state
/// machine panics when polled after completion) nor `core::future::Ready` (which panics too):
/// polled again, it stays pending.
pub struct Now<T>(Option<T>);

impl<T> core::future::Future for Now<T> {
    type Output = T;

    fn poll(
        self: core::pin::Pin<&mut Self>,
        _: &mut core::task::Context<'_>,
    ) -> core::task::Poll<T> {
        // `Now` holds no self-reference: it is `Unpin` when `T` is, and the value moves out.
        match self.get_mut().0.take() {
            Some(v) => core::task::Poll::Ready(v),
            None => core::task::Poll::Pending,
        }
    }
}

impl<T> Unpin for Now<T> {}

impl<T: embedded_io::ErrorType> embedded_io::ErrorType for Polled<T> {
    type Error = T::Error;
}

impl<T: embedded_io::Read> embedded_io_async::Read for Polled<T> {
    #[allow(clippy::manual_async_fn)]
    fn read(
        &mut self,
        buf: &mut [u8],
    ) -> impl core::future::Future<Output = Result<usize, Self::Error>> {
        Now(Some(self.0.read(buf)))
    }
}

impl<T: embedded_io::Write> embedded_io_async::Write for Polled<T> {
    #[allow(clippy::manual_async_fn)]
    fn write(
        &mut self,
        buf: &[u8],
    ) -> impl core::future::Future<Output = Result<usize, Self::Error>> {
        Now(Some(self.0.write(buf)))
    }

    #[allow(clippy::manual_async_fn)]
    fn flush(&mut self) -> impl core::future::Future<Output = Result<(), Self::Error>> {
        Now(Some(self.0.flush()))
    }
}
