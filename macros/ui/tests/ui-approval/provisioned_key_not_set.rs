// A real board's key from provisioning, built without EMBEDDED_MCP_APPROVAL_KEY: the build
// fails and says what to set.
use embedded_mcp::server::approval::Key;

const KEY: Key = embedded_mcp::provisioned_key!();

fn main() {
    let _ = KEY;
}
