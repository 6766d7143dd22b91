//! Async tools: handlers that may await drivers and timers, report progress and log.

use super::{Call, Context, Done, Handler, Output};

/// The device side of `tools/call` for [`Server::serve_async`](super::Server::serve_async):
/// like [`Handler`], but the call may `.await` (drivers, timers) and gets a [`Context`] to
/// report progress, log, and see a cancellation.
///
/// Every [`Handler`] (closures included) is an `AsyncHandler` that ignores the context, so
/// sync tools work with both serve loops. The futures are polled by the serve loop on the
/// firmware's executor and need not be `Send`.
///
/// Only the serve loops poll `call`: the future `#[tools]` generates never completes on its own
/// (it hands its outcome to the serve loop through the [`Context`] and stays pending, so it has
/// no "resumed after completion" panic; see
/// [`Server::serve_async_into`](super::Server::serve_async_into)).
///
/// ```
/// use embedded_mcp::protocol::LogLevel;
/// use embedded_mcp::server::{AsyncHandler, Call, Context, Done, Output, ToolError};
///
/// struct Sensors;
///
/// impl AsyncHandler for Sensors {
///     type Error = ToolError;
///
///     async fn call(
///         &mut self,
///         call: &Call<'_>,
///         out: Output<'_>,
///         cx: &mut Context<'_>,
///     ) -> Result<Done, ToolError> {
///         match call.name() {
///             "average" => {
///                 cx.log(LogLevel::Info, Some("average"), "sampling").await;
///                 let mut sum = 0u32;
///                 for i in 0..4u32 {
///                     if cx.is_cancelled() {
///                         break;
///                     }
///                     sum += i; // read_sensor().await
///                     cx.progress(i + 1, Some(4), None).await;
///                 }
///                 Ok(out.structured(&(sum / 4)))
///             }
///             _ => Err(ToolError::NotImplemented),
///         }
///     }
/// }
/// ```
#[allow(async_fn_in_trait)] // single-threaded executors: the futures need not be `Send`
pub trait AsyncHandler {
    /// The handler's failure; its [`ToolFailure`](super::ToolFailure) text becomes the
    /// `isError` result's message.
    type Error: super::ToolFailure;

    /// Runs one call. The result is written through `out`, as with [`Handler::call`].
    async fn call(
        &mut self,
        call: &Call<'_>,
        out: Output<'_>,
        cx: &mut Context<'_>,
    ) -> Result<Done, Self::Error>;

    /// Runs while the serve loop waits for the next request, to log from firmware code
    /// outside a call (a fault seen by a driver, a button): `cx.log(...)` is sent on a legacy
    /// stream after `initialize`, at the stream's level (`logging/setLevel`); never to a
    /// 2026-07-28 peer, where every message belongs to a request. The future is dropped as
    /// soon as a line arrives, at whichever `.await` it is (so keep what it owns consistent
    /// at each one), and started again after that request; when it returns, it is started
    /// again at once. The default never completes and sends nothing.
    async fn idle(&mut self, cx: &mut Context<'_>) {
        let _ = cx;
        // A loop, not one `pending().await`: a body that cannot return has no "resumed after
        // completion" panic (see `Server::serve_async_into`).
        loop {
            core::future::pending::<()>().await;
        }
    }
}

impl<H: Handler> AsyncHandler for H {
    type Error = H::Error;

    async fn call(
        &mut self,
        call: &Call<'_>,
        out: Output<'_>,
        _cx: &mut Context<'_>,
    ) -> Result<Done, H::Error> {
        Handler::call(self, call, out)
    }
}
