//! A checked view of one incoming JSON-RPC 2.0 message.

use core::fmt;

use crate::json::{JsonStr, Kind, Value};

/// A request id exactly as it was written: a JSON string (quotes and escapes included) or an
/// integer lexeme. Never null. Echoed byte for byte in the response.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RequestId<'a> {
    raw: &'a str,
}

impl<'a> RequestId<'a> {
    /// The id held by `value` if it is a string or an integer (a number without fraction or
    /// exponent).
    pub fn from_value(value: Value<'a>) -> Option<Self> {
        let ok = match value.kind() {
            Kind::String => true,
            Kind::Number => value.as_number().is_some_and(|n| n.is_plain_integer()),
            _ => false,
        };
        ok.then_some(Self { raw: value.raw() })
    }

    /// The id whose JSON text `raw` is known to be a string or an integer (a recovered id,
    /// checked when it was captured).
    pub(crate) fn from_checked(raw: &'a str) -> Self {
        Self { raw }
    }

    /// The id's JSON text.
    pub fn raw(&self) -> &'a str {
        self.raw
    }
}

/// Why a message is not a valid JSON-RPC 2.0 request or notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum InvalidReason {
    /// The message is not a JSON object (batches, arrays and scalars are not accepted).
    NotAnObject,
    /// `jsonrpc` is missing or is not `"2.0"`.
    BadJsonRpcVersion,
    /// `id` is present but neither a string nor an integer (null included).
    BadId,
    /// `method` is missing (and the message is not a response either).
    MissingMethod,
    /// `method` is not a string.
    MethodNotString,
    /// `params` is present but not an object.
    ParamsNotObject,
}

impl InvalidReason {
    /// A short message for the error response.
    pub const fn message(self) -> &'static str {
        match self {
            Self::NotAnObject => {
                "Invalid request: a message must be a JSON object (batches are not supported)"
            }
            Self::BadJsonRpcVersion => "Invalid request: \"jsonrpc\" must be \"2.0\"",
            Self::BadId => "Invalid request: \"id\" must be a string or an integer",
            Self::MissingMethod => "Invalid request: \"method\" is missing",
            Self::MethodNotString => "Invalid request: \"method\" must be a string",
            Self::ParamsNotObject => "Invalid request: \"params\" must be an object",
        }
    }
}

impl fmt::Display for InvalidReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// A message that is JSON but not a valid request or notification.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Invalid<'a> {
    /// What is wrong.
    pub reason: InvalidReason,
    /// The id, when it could be read (the error response then carries it).
    pub id: Option<RequestId<'a>>,
    /// True when the message has no `id` member but has a `method`: a (malformed)
    /// notification, which is never answered.
    pub notification: bool,
}

/// One incoming message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Message<'a> {
    /// A request: it gets exactly one response.
    Request {
        /// The id to echo.
        id: RequestId<'a>,
        /// The method name.
        method: JsonStr<'a>,
        /// The params object, if present.
        params: Option<Value<'a>>,
    },
    /// A notification: never answered.
    Notification {
        /// The method name.
        method: JsonStr<'a>,
        /// The params object, if present.
        params: Option<Value<'a>>,
    },
    /// A response or error from the peer (the server sends no requests, so it is ignored).
    Response,
}

impl<'a> Message<'a> {
    /// Classifies a parsed JSON value.
    pub fn classify(value: Value<'a>) -> Result<Self, Invalid<'a>> {
        let Some(members) = value.members() else {
            return Err(Invalid {
                reason: InvalidReason::NotAnObject,
                id: None,
                notification: false,
            });
        };
        let (mut jsonrpc, mut id, mut method, mut params, mut reply) =
            (None, None, None, None, false);
        for (key, v) in members {
            // The first occurrence of a key wins, as in `Value::get`.
            if key.eq_str("jsonrpc") {
                jsonrpc = jsonrpc.or(Some(v));
            } else if key.eq_str("id") {
                id = id.or(Some(v));
            } else if key.eq_str("method") {
                method = method.or(Some(v));
            } else if key.eq_str("params") {
                params = params.or(Some(v));
            } else if key.eq_str("result") || key.eq_str("error") {
                reply = true;
            }
        }
        Self::from_members(jsonrpc, id, method, params, reply)
    }

    /// Classifies an object message from its members (the first of each name), as
    /// [`Message::classify`] does; `reply` is true when it has `result` or `error`.
    pub(crate) fn from_members(
        jsonrpc: Option<Value<'a>>,
        id: Option<Value<'a>>,
        method: Option<Value<'a>>,
        params: Option<Value<'a>>,
        reply: bool,
    ) -> Result<Self, Invalid<'a>> {
        let request_id = id.and_then(RequestId::from_value);
        let invalid = |reason| Invalid {
            reason,
            id: request_id,
            notification: id.is_none() && method.is_some(),
        };
        let Some(method) = method else {
            if reply {
                return Ok(Message::Response);
            }
            return Err(invalid(InvalidReason::MissingMethod));
        };
        if id.is_some() && request_id.is_none() {
            return Err(invalid(InvalidReason::BadId));
        }
        if !jsonrpc
            .and_then(|v| v.as_str())
            .is_some_and(|s| s.eq_str("2.0"))
        {
            return Err(invalid(InvalidReason::BadJsonRpcVersion));
        }
        let Some(method) = method.as_str() else {
            return Err(invalid(InvalidReason::MethodNotString));
        };
        if params.is_some_and(|p| p.kind() != Kind::Object) {
            return Err(invalid(InvalidReason::ParamsNotObject));
        }
        Ok(match request_id {
            Some(id) => Message::Request { id, method, params },
            None => Message::Notification { method, params },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(text: &str) -> Result<Message<'_>, Invalid<'_>> {
        Message::classify(Value::parse(text.as_bytes()).unwrap())
    }

    #[test]
    fn requests_and_notifications() {
        let Ok(Message::Request { id, method, params }) =
            classify(r#"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#)
        else {
            panic!()
        };
        assert_eq!(id.raw(), r#""a\"b""#);
        assert!(method.eq_str("ping"));
        assert!(params.is_none());
        assert!(matches!(
            classify(r#"{"method":"notifications/initialized","jsonrpc":"2.0"}"#),
            Ok(Message::Notification { .. })
        ));
        assert!(matches!(
            classify(r#"{"jsonrpc":"2.0","id":1,"result":{}}"#),
            Ok(Message::Response)
        ));
        let Ok(Message::Request { id, .. }) =
            classify(r#"{"jsonrpc":"2.0","id":-12345678901234567890123,"method":"x"}"#)
        else {
            panic!()
        };
        assert_eq!(id.raw(), "-12345678901234567890123");
    }

    #[test]
    fn invalid_messages() {
        let e = classify("[1]").unwrap_err();
        assert_eq!(
            (e.reason, e.id, e.notification),
            (InvalidReason::NotAnObject, None, false)
        );
        let e = classify(r#"{"jsonrpc":"2.0","id":null,"method":"x"}"#).unwrap_err();
        assert_eq!((e.reason, e.id), (InvalidReason::BadId, None));
        let e = classify(r#"{"jsonrpc":"2.0","id":1.5,"method":"x"}"#).unwrap_err();
        assert_eq!(e.reason, InvalidReason::BadId);
        let e = classify(r#"{"jsonrpc":"1.0","id":7,"method":"x"}"#).unwrap_err();
        assert_eq!(e.reason, InvalidReason::BadJsonRpcVersion);
        assert_eq!(e.id.unwrap().raw(), "7");
        let e = classify(r#"{"jsonrpc":"2.0","method":"x","params":[1]}"#).unwrap_err();
        assert_eq!(e.reason, InvalidReason::ParamsNotObject);
        assert!(e.notification);
        let e = classify(r#"{"jsonrpc":"2.0","id":"q","method":3}"#).unwrap_err();
        assert_eq!(e.reason, InvalidReason::MethodNotString);
        let e = classify(r#"{"jsonrpc":"2.0","id":"q"}"#).unwrap_err();
        assert_eq!(e.reason, InvalidReason::MissingMethod);
        assert!(!e.notification);
    }
}
