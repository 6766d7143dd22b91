//! The checks every HTTP request passes before it can reach a device: `Host` (DNS rebinding),
//! `Origin` (browsers), and the bearer token; and the rule on where the front may listen
//! without a token ([`Exposure`]).

use std::fmt;
use std::net::{IpAddr, SocketAddr};

/// How exposed a front listening on an address is, by the rule "non-loopback binds need a
/// key": anyone who can reach a non-loopback address can drive the device, unless a bearer
/// token is required.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposure {
    /// A loopback address: only this machine reaches it.
    Loopback,
    /// Reachable from other machines, and clients need the bearer token.
    Keyed,
    /// Reachable from other machines without a token, as the operator said
    /// (`--allow-unauthenticated`): started with a warning.
    Unauthenticated,
}

impl Exposure {
    /// The exposure of a front on `ip`; `None` when it must not start: not loopback, no
    /// token, and no explicit consent.
    pub fn of(ip: IpAddr, token: bool, allow_unauthenticated: bool) -> Option<Self> {
        match (ip.is_loopback(), token, allow_unauthenticated) {
            (true, _, _) => Some(Self::Loopback),
            (false, true, _) => Some(Self::Keyed),
            (false, false, true) => Some(Self::Unauthenticated),
            (false, false, false) => None,
        }
    }
}

/// A secret bearer token (its `Debug` and `Display` never show it).
#[derive(Clone)]
pub struct Token(Vec<u8>);

impl Token {
    /// A token from the contents of a token file: surrounding whitespace (the final newline) is
    /// dropped; `None` when nothing is left or it holds a control character or a space.
    pub fn from_file_text(text: &str) -> Option<Self> {
        let token = text.trim();
        let ok = !token.is_empty() && token.bytes().all(|b| b.is_ascii_graphic());
        ok.then(|| Self(token.as_bytes().to_vec()))
    }

    /// True when `offered` is the token, in time that does not depend on where they differ.
    pub fn matches(&self, offered: &[u8]) -> bool {
        constant_time_eq(&self.0, offered)
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Token(<hidden>)")
    }
}

/// Compares every byte of the longer input, so the time depends only on the lengths.
fn constant_time_eq(expected: &[u8], offered: &[u8]) -> bool {
    let mut diff = u8::from(expected.len() != offered.len());
    for i in 0..expected.len().max(offered.len()) {
        let a = expected.get(i).copied().unwrap_or(0);
        let b = offered.get(i).copied().unwrap_or(0xff);
        diff |= std::hint::black_box(a ^ b);
    }
    std::hint::black_box(diff) == 0
}

/// Which `Host` and `Origin` values are accepted.
#[derive(Debug, Clone)]
pub(super) struct Doors {
    /// Accepted `Host` values, lower case (`127.0.0.1:8080`, ...).
    hosts: Vec<String>,
    /// Accepted `Origin` values, lower case, without a trailing slash.
    origins: Vec<String>,
    token: Option<Token>,
}

/// Why a request is turned away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Refusal {
    /// `Host` missing or not the bound address (403).
    Host,
    /// `Origin` present and foreign (403).
    Origin,
    /// No bearer token (401).
    NoToken,
    /// A wrong bearer token (401).
    BadToken,
}

impl Refusal {
    /// The HTTP status.
    pub(super) fn status(self) -> u16 {
        match self {
            Self::Host | Self::Origin => 403,
            Self::NoToken | Self::BadToken => 401,
        }
    }

    /// The message of the error body.
    pub(super) fn message(self) -> &'static str {
        match self {
            Self::Host => "Forbidden: the Host header does not name this server",
            Self::Origin => "Forbidden: this Origin is not allowed",
            Self::NoToken => "Unauthorized: send Authorization: Bearer <token>",
            Self::BadToken => "Unauthorized: the bearer token is not valid",
        }
    }

    /// The `WWW-Authenticate` challenge of a 401.
    pub(super) fn challenge(self) -> Option<&'static str> {
        match self {
            Self::NoToken => Some("Bearer realm=\"embedded-mcp\""),
            Self::BadToken => Some("Bearer realm=\"embedded-mcp\", error=\"invalid_token\""),
            Self::Host | Self::Origin => None,
        }
    }
}

impl Doors {
    /// The doors of a server bound to `bound`: `Host` may be the bound address itself, the
    /// host of an allowed origin, and, only when the server listens on loopback,
    /// `localhost`, `127.0.0.1` or `[::1]` with the bound port (on any other address those
    /// names would let a machine of the network in by naming this one's loopback); `Origin`
    /// may be `http://` or `https://` one of those hosts, or an allowed origin.
    pub(super) fn new(bound: SocketAddr, allowed_origins: &[String], token: Option<Token>) -> Self {
        let port = bound.port();
        let mut hosts = Vec::new();
        if bound.ip().is_loopback() {
            hosts.extend([
                format!("localhost:{port}"),
                format!("127.0.0.1:{port}"),
                format!("[::1]:{port}"),
            ]);
        }
        if !bound.ip().is_unspecified() {
            hosts.push(bound.to_string());
        }
        let origins: Vec<String> = allowed_origins
            .iter()
            .map(|o| o.trim_end_matches('/').to_ascii_lowercase())
            .collect();
        for origin in &origins {
            if let Some(host) = origin_host(origin) {
                hosts.push(host);
            }
        }
        hosts.sort();
        hosts.dedup();
        Self {
            hosts,
            origins,
            token,
        }
    }

    /// Also accepts these `Host` values (`--allowed-host`, as a reverse proxy in front of the
    /// replica sends them: `lab.example:8080`, or `lab.example` on the scheme's default port);
    /// an `Origin` of such a host is accepted too.
    pub(super) fn with_hosts(mut self, hosts: &[String]) -> Self {
        self.hosts
            .extend(hosts.iter().map(|h| h.trim().to_ascii_lowercase()));
        self.hosts.sort();
        self.hosts.dedup();
        self
    }

    /// Checks one request's `Host`, `Origin` and `Authorization` values.
    pub(super) fn check(
        &self,
        host: Option<&str>,
        origin: Option<&str>,
        authorization: Option<&str>,
    ) -> Result<(), Refusal> {
        let host = host.map(str::to_ascii_lowercase).ok_or(Refusal::Host)?;
        if !self.hosts.contains(&host) {
            return Err(Refusal::Host);
        }
        if let Some(origin) = origin {
            let origin = origin.trim_end_matches('/').to_ascii_lowercase();
            let same_host = origin_host(&origin).is_some_and(|h| self.hosts.contains(&h));
            if !same_host && !self.origins.contains(&origin) {
                return Err(Refusal::Origin);
            }
        }
        if let Some(token) = &self.token {
            let offered = authorization
                .and_then(|a| a.split_once(' '))
                .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
                .map(|(_, t)| t.trim());
            match offered {
                None => return Err(Refusal::NoToken),
                Some(t) if !token.matches(t.as_bytes()) => return Err(Refusal::BadToken),
                Some(_) => {}
            }
        }
        Ok(())
    }
}

/// `host:port` of an `http://` or `https://` origin (the scheme's default port when absent).
fn origin_host(origin: &str) -> Option<String> {
    let (rest, default_port) = if let Some(rest) = origin.strip_prefix("http://") {
        (rest, 80)
    } else {
        (origin.strip_prefix("https://")?, 443)
    };
    if rest.is_empty() || rest.contains('/') || rest.contains('@') {
        return None;
    }
    let has_port = match rest.rfind(']') {
        Some(end) => rest.get(end + 1..).is_some_and(|t| t.starts_with(':')),
        None => rest.contains(':'),
    };
    Some(if has_port {
        rest.to_owned()
    } else {
        format!("{rest}:{default_port}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doors(token: Option<&str>, origins: &[&str]) -> Doors {
        let origins: Vec<String> = origins.iter().map(|s| s.to_string()).collect();
        Doors::new(
            "127.0.0.1:3000".parse().unwrap(),
            &origins,
            token.and_then(Token::from_file_text),
        )
    }

    #[test]
    fn allowed_hosts_are_let_in_as_a_proxy_sends_them() {
        let hosts = ["Lab.Example:8080".to_owned(), "lab.example".to_owned()];
        let d = doors(None, &[]).with_hosts(&hosts);
        for host in ["lab.example:8080", "LAB.example", "127.0.0.1:3000"] {
            assert_eq!(d.check(Some(host), None, None), Ok(()), "{host}");
        }
        for host in ["lab.example:8081", "other.example", "lab.example.evil:8080"] {
            assert_eq!(
                d.check(Some(host), None, None),
                Err(Refusal::Host),
                "{host}"
            );
        }
        let origin = Some("http://lab.example:8080");
        assert_eq!(d.check(Some("lab.example:8080"), origin, None), Ok(()));
        let d = doors(None, &[]);
        assert_eq!(
            d.check(Some("lab.example:8080"), None, None),
            Err(Refusal::Host)
        );
    }

    #[test]
    fn host_is_the_bound_address() {
        let d = doors(None, &[]);
        for host in [
            "127.0.0.1:3000",
            "localhost:3000",
            "[::1]:3000",
            "LOCALHOST:3000",
        ] {
            assert_eq!(d.check(Some(host), None, None), Ok(()), "{host}");
        }
        for host in ["evil.example.com", "127.0.0.1:3001", "127.0.0.1", ""] {
            assert_eq!(
                d.check(Some(host), None, None),
                Err(Refusal::Host),
                "{host}"
            );
        }
        assert_eq!(d.check(None, None, None), Err(Refusal::Host));
    }

    #[test]
    fn loopback_names_are_hosts_only_on_a_loopback_bind() {
        for bound in ["0.0.0.0:3000", "192.168.1.5:3000", "[::]:3000"] {
            let d = Doors::new(bound.parse().unwrap(), &[], None);
            for host in ["127.0.0.1:3000", "localhost:3000", "[::1]:3000"] {
                assert_eq!(
                    d.check(Some(host), None, None),
                    Err(Refusal::Host),
                    "{host} on {bound}"
                );
            }
        }
        let lan = Doors::new("192.168.1.5:3000".parse().unwrap(), &[], None);
        assert_eq!(lan.check(Some("192.168.1.5:3000"), None, None), Ok(()));
        let any = Doors::new(
            "0.0.0.0:3000".parse().unwrap(),
            &["https://bench.example.com".to_owned()],
            None,
        );
        assert_eq!(any.check(Some("bench.example.com:443"), None, None), Ok(()));
        let v6 = Doors::new("[::1]:3000".parse().unwrap(), &[], None);
        assert_eq!(v6.check(Some("localhost:3000"), None, None), Ok(()));
    }

    #[test]
    fn a_non_loopback_bind_needs_a_token_or_explicit_consent() {
        let ip = |t: &str| t.parse::<IpAddr>().unwrap();
        for lo in ["127.0.0.1", "127.0.0.2", "::1"] {
            assert_eq!(Exposure::of(ip(lo), false, false), Some(Exposure::Loopback));
        }
        for open in ["0.0.0.0", "::", "192.168.1.5", "10.0.0.1"] {
            assert_eq!(Exposure::of(ip(open), false, false), None, "{open}");
            assert_eq!(Exposure::of(ip(open), true, false), Some(Exposure::Keyed));
            assert_eq!(
                Exposure::of(ip(open), false, true),
                Some(Exposure::Unauthenticated)
            );
            assert_eq!(Exposure::of(ip(open), true, true), Some(Exposure::Keyed));
        }
    }

    #[test]
    fn origin_is_this_server_or_allowed() {
        let d = doors(None, &["https://app.example.com/"]);
        let host = Some("127.0.0.1:3000");
        assert_eq!(d.check(host, Some("http://127.0.0.1:3000"), None), Ok(()));
        assert_eq!(d.check(host, Some("http://localhost:3000"), None), Ok(()));
        assert_eq!(d.check(host, Some("https://app.example.com"), None), Ok(()));
        // The allowed origin's host becomes an accepted Host.
        assert_eq!(d.check(Some("app.example.com:443"), None, None), Ok(()));
        for bad in [
            "http://evil.example.com",
            "null",
            "http://127.0.0.1:3001",
            "file://",
        ] {
            assert_eq!(
                d.check(host, Some(bad), None),
                Err(Refusal::Origin),
                "{bad}"
            );
        }
    }

    #[test]
    fn bearer_token() {
        let d = doors(Some("s3cret\n"), &[]);
        let host = Some("127.0.0.1:3000");
        assert_eq!(d.check(host, None, None), Err(Refusal::NoToken));
        assert_eq!(
            d.check(host, None, Some("Basic s3cret")),
            Err(Refusal::NoToken)
        );
        assert_eq!(
            d.check(host, None, Some("Bearer s3cre")),
            Err(Refusal::BadToken)
        );
        assert_eq!(
            d.check(host, None, Some("Bearer s3cret!")),
            Err(Refusal::BadToken)
        );
        assert_eq!(d.check(host, None, Some("bearer s3cret")), Ok(()));
        assert_eq!(
            format!("{:?}", Token::from_file_text("s3cret").unwrap()),
            "Token(<hidden>)"
        );
        assert!(Token::from_file_text(" \n").is_none());
        assert!(Token::from_file_text("a b").is_none());
        assert!(constant_time_eq(b"", b""));
        assert!(!constant_time_eq(b"a", b""));
    }
}
