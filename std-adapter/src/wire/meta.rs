//! `_meta` keys the bridge reads or writes (the protocol's from [`embedded_mcp::protocol`]).

/// The member of `params` (and of results) holding metadata.
pub const KEY: &str = "_meta";
/// 2026-07-28: the revision of a request.
pub const PROTOCOL_VERSION: &str = embedded_mcp::protocol::PROTOCOL_VERSION_KEY;
/// 2026-07-28: the client's capabilities, sent with each request.
pub const CLIENT_CAPABILITIES: &str = embedded_mcp::protocol::CLIENT_CAPABILITIES_KEY;
/// 2026-07-28: the client's name and version, sent with each request.
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// 2026-07-28: the server's name and version, in results.
pub const SERVER_INFO: &str = embedded_mcp::protocol::SERVER_INFO_KEY;
/// The token a request gives for its progress notifications.
pub const PROGRESS_TOKEN: &str = embedded_mcp::protocol::PROGRESS_TOKEN_KEY;
/// The prefix of the keys the protocol reserves for itself.
pub const PROTOCOL_PREFIX: &str = "io.modelcontextprotocol/";
/// 2026-07-28: the listen stream a notification belongs to (the listen request's id).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// 2026-07-28: the log level a request asks for (legacy sessions use `logging/setLevel`).
pub const LOG_LEVEL: &str = embedded_mcp::protocol::LOG_LEVEL_KEY;
