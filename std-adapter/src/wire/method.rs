//! The MCP method names the bridge routes on or sends itself.

/// The legacy handshake's request.
pub const INITIALIZE: &str = "initialize";
/// The legacy handshake's closing notification.
pub const INITIALIZED: &str = "notifications/initialized";
/// 2026-07-28 discovery.
pub const DISCOVER: &str = "server/discover";
/// Liveness check.
pub const PING: &str = "ping";
/// A page of the tool list.
pub const TOOLS_LIST: &str = "tools/list";
/// A tool call.
pub const TOOLS_CALL: &str = "tools/call";
/// A request given up by its sender.
pub const CANCELLED: &str = "notifications/cancelled";
/// Progress of a request that asked for it.
pub const PROGRESS: &str = "notifications/progress";
/// Legacy: the host's log level for the session.
pub const SET_LEVEL: &str = "logging/setLevel";
/// A log message.
pub const LOG_MESSAGE: &str = "notifications/message";
/// The server's tool list changed.
pub const TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// 2026-07-28: a client opens a stream of the notifications tied to no request.
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// 2026-07-28: the first message of a listen stream, naming what it will carry.
pub const SUBSCRIPTIONS_ACKNOWLEDGED: &str = "notifications/subscriptions/acknowledged";
/// The tasks extension: a task's status (only the bridge's task table may send it).
pub const TASK_STATUS: &str = "notifications/tasks";
