//! The HTTP side of a remote link: one hyper client (HTTP/1.1, kept-alive connections) per
//! link, over plain TCP or rustls, and the reading of answers: a JSON body or an event stream,
//! each message bounded by the bridge's line limit before it is buffered.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::CertificateDer;

use super::eras::Post;
use super::sse::{SseFramer, SseItem};
use crate::device::RemoteConfig;

/// How long connecting to the gateway may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A link's HTTP client.
pub(super) struct Http {
    client: Client<HttpsConnector<HttpConnector>, Full<Bytes>>,
    uri: Uri,
    /// `Bearer TOKEN`, when the link has a token file.
    authorization: Option<HeaderValue>,
    /// The most bytes one message (a JSON body, an event's data) may have.
    max: usize,
}

/// What an answer carries.
pub(super) enum Body {
    /// Nothing (202 Accepted).
    Empty,
    /// One JSON message.
    Json(Vec<u8>),
    /// An event stream, read with [`Http::events`].
    Events(Incoming),
    /// A JSON body over the line limit, not read.
    TooLong,
}

impl Http {
    /// The client of `remote`; reads its token file (at every reconnect: a rotated token is
    /// picked up) and, for `https://`, the CA file or the platform's roots.
    pub(super) fn new(remote: &RemoteConfig, max: usize) -> Result<Self, String> {
        let uri: Uri = remote
            .url
            .parse()
            .map_err(|e| format!("bad gateway URL: {e}"))?;
        let authorization = match &remote.token_file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| format!("cannot read the token file {}: {e}", path.display()))?;
                let token = text.trim();
                if token.is_empty() {
                    return Err(format!("the token file {} is empty", path.display()));
                }
                let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                    .map_err(|_| format!("the token in {} is no header text", path.display()))?;
                value.set_sensitive(true);
                Some(value)
            }
            None => None,
        };
        let mut http = HttpConnector::new();
        http.enforce_http(false);
        http.set_nodelay(true);
        http.set_connect_timeout(Some(CONNECT_TIMEOUT));
        // ring rather than aws-lc-rs (see BRIDGE.md, "Remote gateways"): rustls marks it
        // deprecated for its lack of post-quantum key exchange, not for a flaw.
        #[allow(deprecated)]
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let tls = match &remote.ca_file {
            Some(path) => {
                let mut roots = rustls::RootCertStore::empty();
                let certs = CertificateDer::pem_file_iter(path)
                    .map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?;
                for cert in certs {
                    let cert = cert.map_err(|e| format!("bad CA file {}: {e}", path.display()))?;
                    roots
                        .add(cert)
                        .map_err(|e| format!("bad CA in {}: {e}", path.display()))?;
                }
                let config = rustls::ClientConfig::builder_with_provider(provider)
                    .with_safe_default_protocol_versions()
                    .map_err(|e| e.to_string())?
                    .with_root_certificates(roots)
                    .with_no_client_auth();
                hyper_rustls::HttpsConnectorBuilder::new().with_tls_config(config)
            }
            None => hyper_rustls::HttpsConnectorBuilder::new()
                .with_provider_and_native_roots(provider)
                .map_err(|e| format!("no platform roots for https: {e}"))?,
        };
        let builder = if remote.tls {
            tls.https_only()
        } else {
            tls.https_or_http()
        };
        let connector = builder.enable_http1().wrap_connector(http);
        let client = Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(30))
            .build(connector);
        Ok(Self {
            client,
            uri,
            authorization,
            max,
        })
    }

    fn request(
        &self,
        method: Method,
        headers: &[(&'static str, String)],
    ) -> hyper::http::request::Builder {
        let mut builder = Request::builder()
            .method(method)
            .uri(self.uri.clone())
            .header(ACCEPT, "application/json, text/event-stream");
        if let Some(auth) = &self.authorization {
            builder = builder.header(AUTHORIZATION, auth.clone());
        }
        for (name, value) in headers {
            builder = builder.header(*name, value.as_str());
        }
        builder
    }

    /// POSTs `post`; a transport error (the gateway cannot be reached, or went away) is `Err`.
    pub(super) async fn post(
        &self,
        post: &Post,
    ) -> Result<(StatusCode, hyper::HeaderMap, Body), String> {
        let mut request = self
            .request(Method::POST, &post.headers)
            .header(CONTENT_TYPE, "application/json");
        for (name, value) in &post.param_headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let request = request
            .body(Full::new(Bytes::from(post.body.clone())))
            .map_err(|e| format!("cannot make the request: {e}"))?;
        self.send(request).await
    }

    /// A legacy session's GET stream (or DELETE, ending the session).
    pub(super) async fn session(
        &self,
        method: Method,
        headers: &[(&'static str, String)],
    ) -> Result<(StatusCode, hyper::HeaderMap, Body), String> {
        let request = self
            .request(method, headers)
            .body(Full::new(Bytes::new()))
            .map_err(|e| format!("cannot make the request: {e}"))?;
        self.send(request).await
    }

    async fn send(
        &self,
        request: Request<Full<Bytes>>,
    ) -> Result<(StatusCode, hyper::HeaderMap, Body), String> {
        let response: Response<Incoming> = self
            .client
            .request(request)
            .await
            .map_err(|e| describe(&e))?;
        let (parts, incoming) = response.into_parts();
        let content_type = parts
            .headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let body = if content_type.starts_with("text/event-stream") {
            Body::Events(incoming)
        } else {
            let bytes = match Limited::new(incoming, self.max).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
                    // Dropped unread (the connection with it): one request's error.
                    return Ok((parts.status, parts.headers, Body::TooLong));
                }
                Err(e) => return Err(format!("the gateway went away mid-answer: {e}")),
            };
            if bytes.iter().all(u8::is_ascii_whitespace) {
                Body::Empty
            } else {
                Body::Json(bytes.trim_ascii().to_vec())
            }
        };
        Ok((parts.status, parts.headers, body))
    }

    /// The most bytes one message may have.
    pub(super) fn max(&self) -> usize {
        self.max
    }

    /// The events of a stream, each bounded by the line limit.
    pub(super) fn events(&self, body: Incoming) -> Events {
        Events {
            body,
            framer: SseFramer::new(self.max),
            ready: VecDeque::new(),
        }
    }
}

/// An answer's event stream, read event by event.
pub(super) struct Events {
    body: Incoming,
    framer: SseFramer,
    ready: VecDeque<SseItem>,
}

impl Events {
    /// The next event; `None` at the stream's end, `Err` when it broke.
    pub(super) async fn next(&mut self) -> Option<Result<SseItem, String>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(Ok(item));
            }
            let frame = match self.body.frame().await? {
                Ok(frame) => frame,
                Err(e) => return Some(Err(format!("the gateway went away mid-answer: {e}"))),
            };
            if let Some(data) = frame.data_ref() {
                let mut items = Vec::new();
                self.framer.push(data, &mut items);
                self.ready.extend(items);
            }
        }
    }
}

/// A hyper client error with its cause (hyper's own text is only "client error (Connect)").
fn describe(e: &hyper_util::client::legacy::Error) -> String {
    let mut text = if e.is_connect() {
        format!("the gateway cannot be reached: {e}")
    } else {
        format!("the gateway went away: {e}")
    };
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
