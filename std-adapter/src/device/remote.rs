//! Where a remote gateway is: another MCP Streamable HTTP server (an `embedded-mcp bridge
//! --http`, or any other) that a hub links to as one of its devices, written
//! `http://HOST:PORT/PATH` or `https://...`, with options after `#` (never sent: a URL's
//! fragment stays with the client) joined by `&`:
//!
//! - `token-file=PATH`: send `Authorization: Bearer TOKEN`, TOKEN being the file's text
//!   (surrounding whitespace trimmed; read again at every reconnect, so a rotated token is
//!   picked up);
//! - `ca-file=PATH`: trust the PEM certificates of this file for `https://` instead of the
//!   platform's roots.
//!
//! The link itself (HTTP requests, the two protocol eras) is the bridge's
//! (`bridge::remote`): it needs the bridge's tokio runtime and its message helpers.

use std::path::PathBuf;

/// A remote gateway's address and what its link needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteConfig {
    /// The endpoint's URL, without the `#` options (`http://127.0.0.1:8080/mcp`).
    pub url: String,
    /// `https://`: the link uses TLS.
    pub tls: bool,
    /// The file holding the bearer token, if any.
    pub token_file: Option<PathBuf>,
    /// PEM certificates to trust instead of the platform's roots (`https://` only).
    pub ca_file: Option<PathBuf>,
}

impl RemoteConfig {
    /// Parses `http://HOST:PORT/PATH[#token-file=PATH&ca-file=PATH]` (or `https://`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let (url, options) = text.split_once('#').unwrap_or((text, ""));
        let tls = if url.starts_with("https://") {
            true
        } else if url.starts_with("http://") {
            false
        } else {
            return Err("a gateway's URL starts with http:// or https://".into());
        };
        let uri: hyper::Uri = url
            .parse()
            .map_err(|e| format!("the gateway's URL `{url}` is not valid: {e}"))?;
        if uri.host().is_none_or(str::is_empty) {
            return Err(format!("the gateway's URL `{url}` has no host"));
        }
        if uri.query().is_some() {
            return Err("the gateway's URL takes no query (options go after #)".into());
        }
        let mut config = Self {
            url: url.to_owned(),
            tls,
            token_file: None,
            ca_file: None,
        };
        for option in options.split('&').filter(|o| !o.is_empty()) {
            match option.split_once('=') {
                Some(("token-file", path)) if !path.is_empty() => {
                    config.token_file = Some(PathBuf::from(path));
                }
                Some(("ca-file", path)) if !path.is_empty() => {
                    config.ca_file = Some(PathBuf::from(path));
                }
                _ => {
                    return Err(format!(
                        "unknown gateway option `{option}` (token-file=PATH, ca-file=PATH)"
                    ))
                }
            }
        }
        if config.ca_file.is_some() && !tls {
            return Err("ca-file= needs an https:// gateway".into());
        }
        Ok(config)
    }
}

impl std::fmt::Display for RemoteConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "gateway {}", self.url)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls_and_options() {
        let c = RemoteConfig::parse("http://127.0.0.1:8080/mcp").unwrap();
        assert_eq!(c.url, "http://127.0.0.1:8080/mcp");
        assert!(!c.tls && c.token_file.is_none() && c.ca_file.is_none());
        let c =
            RemoteConfig::parse("https://pi.lab:8443/mcp#token-file=/t&ca-file=/ca.pem").unwrap();
        assert_eq!(c.url, "https://pi.lab:8443/mcp");
        assert!(c.tls);
        assert_eq!(c.token_file, Some(PathBuf::from("/t")));
        assert_eq!(c.ca_file, Some(PathBuf::from("/ca.pem")));
        assert!(RemoteConfig::parse("ftp://x/mcp").is_err());
        assert!(RemoteConfig::parse("http:///mcp").is_err());
        assert!(RemoteConfig::parse("http://x/mcp?a=1").is_err());
        assert!(RemoteConfig::parse("http://x/mcp#tokenfile=/t").is_err());
        assert!(RemoteConfig::parse("http://x/mcp#ca-file=/ca.pem").is_err());
    }
}
