//! The legacy input-required shim, as a state machine without I/O: a host of the 2025
//! revisions (one that sent `initialize`) and declared `elicitation` gets its `tools/call`s sent
//! to the device in 2026-07-28 form; when the device answers `input_required`, the shim puts
//! each input request to the host as a request of its own (`elicitation/create`, under an id the
//! bridge owns), waits for the answers at human pace (bounded by `--input-timeout-ms`, while no
//! device deadline runs), retries the call on the device with `inputResponses` and the device's
//! `requestState` byte for byte, as many rounds as the device asks (at most [`MAX_ROUNDS`]), and
//! answers under the host's own id with a legacy-shaped result.
//!
//! One layer of the engine drives it ([`ShimLayer`], around the tasks layer and the router or
//! the hub), for the stdio host and for each HTTP legacy session alike: it hands the shim the
//! host's handshake, each converted call's answers from below, the host's responses and
//! cancellations, and the time; the shim returns [`Action`]s. Failures are `isError`
//! results that say what happened (the host refused to ask, nobody answered in time, the host
//! cannot show what the device asks for); a call the host cancelled is answered with nothing,
//! as MCP asks, and its open questions to the host are cancelled too.

mod layer;
#[cfg(test)]
mod tests;
mod wire;

use std::collections::{BTreeMap, HashMap};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::message::{self, tool_error_response, Id};
pub use layer::{ShimLayer, ASK_PREFIX};
pub(crate) use wire::legacy_result;
use wire::{host_can, host_request, modern_params, read_device_answer, round_line, DeviceAnswer};

/// Most rounds of one call (the TypeScript SDK's shim allows 8 too): a device that keeps asking
/// is answered with a tool error.
pub const MAX_ROUNDS: u32 = 8;

/// How long a person may take to answer, by default: the device's own approvals live two
/// minutes (`embedded_mcp::server::approval::DEFAULT_LIFETIME_MS`), and a later answer would be
/// refused as expired anyway.
pub const DEFAULT_INPUT_TIMEOUT: Duration = Duration::from_secs(120);

/// Something the shim asks its driver to do.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// Write this line to the host (a request for input of call `key`, or the cancellation of
    /// one).
    Host {
        /// The host's id key of the call it belongs to.
        key: String,
        /// The line.
        line: Vec<u8>,
    },
    /// Send this round of call `key` to the device (the host's id, the call's 2026-07-28 form).
    Device {
        /// The host's id key.
        key: String,
        /// The request line.
        line: Vec<u8>,
    },
    /// Call `key` is over with this result (JSON text), legacy-shaped: check it as any result
    /// and answer the host with it.
    Complete {
        /// The host's id key.
        key: String,
        /// The host's id, exactly as it wrote it.
        id: String,
        /// The `result` object.
        result: Vec<u8>,
    },
    /// Call `key` is over: answer the host with this response line as it is.
    Answer {
        /// The host's id key.
        key: String,
        /// The response line (under the host's id).
        line: Vec<u8>,
    },
}

/// True when a host with these `capabilities` can be asked for input (it declared
/// `elicitation`).
pub fn can_ask(capabilities: &Value) -> bool {
    capabilities
        .get("elicitation")
        .is_some_and(Value::is_object)
}

/// True when a request's `params` name a revision in `_meta` (the shim leaves it alone).
pub fn names_revision(params: Option<&Value>) -> bool {
    params
        .and_then(|p| p.get(message::meta::KEY))
        .and_then(|m| m.get(message::meta::PROTOCOL_VERSION))
        .is_some()
}

/// The host's side as its `initialize` said it.
struct Host {
    /// The revision agreed to.
    version: String,
    /// Its `capabilities`.
    capabilities: Value,
}

/// Where one call stands.
enum Phase {
    /// A round is on the device.
    Device,
    /// Waiting for the host's answers (by input key; `None` until answered) until `deadline`.
    Asking {
        answers: BTreeMap<String, Option<String>>,
        deadline: Instant,
    },
}

/// One converted call.
struct Call {
    id: Id,
    tool: String,
    /// Its 2026-07-28 `params` (JSON text), without the answers of any round.
    params: String,
    /// Rounds the device asked for so far.
    rounds: u32,
    /// The device's last `requestState` (exact JSON text).
    state: Option<String>,
    phase: Phase,
}

/// A question put to the host: which call, which input key.
struct Ask {
    call: String,
    input: String,
}

/// The shim of one host (see the module documentation).
pub struct InputShim {
    timeout: Duration,
    /// Prefix of the bridge's ids toward the host.
    prefix: String,
    host: Option<Host>,
    /// The level the host set with `logging/setLevel`, carried into each converted call.
    log_level: Option<String>,
    calls: HashMap<String, Call>,
    /// Open questions, by the key of the bridge's id.
    asks: HashMap<String, Ask>,
    next_ask: u64,
}

impl InputShim {
    /// A shim whose people have `timeout` to answer; its ids toward the host start with
    /// `prefix` (unique among the bridge's own ids).
    pub fn new(timeout: Duration, prefix: &str) -> Self {
        Self {
            timeout,
            prefix: prefix.to_owned(),
            host: None,
            log_level: None,
            calls: HashMap::new(),
            asks: HashMap::new(),
            next_ask: 1,
        }
    }

    /// The host's legacy `initialize` was answered with `version`: `params` are the host's.
    /// The shim engages when the host declared `elicitation`.
    pub fn initialized(&mut self, version: &str, params: Option<&Value>) {
        let capabilities = params
            .and_then(|p| p.get("capabilities"))
            .filter(|c| c.is_object())
            .cloned()
            .unwrap_or_else(|| Value::Object(serde_json::Map::new()));
        let legacy = embedded_mcp::protocol::Version::parse(version).is_none_or(|v| v.is_legacy());
        self.host = (legacy && can_ask(&capabilities)).then(|| Host {
            version: version.to_owned(),
            capabilities,
        });
    }

    /// The host set its log level (`logging/setLevel`).
    pub fn set_log_level(&mut self, level: Option<&str>) {
        self.log_level = level.map(str::to_owned);
    }

    /// True when a `tools/call` with `params` goes through the shim: the host is a legacy one
    /// that declared `elicitation`, and the request does not name a revision itself.
    pub fn wants(&self, params: Option<&Value>) -> bool {
        self.host.is_some() && !names_revision(params)
    }

    /// True when the host can be asked (a legacy host that declared `elicitation`).
    pub fn is_engaged(&self) -> bool {
        self.host.is_some()
    }

    /// Starts call `id` (a `tools/call` with `params`, their exact JSON text): returns its first
    /// round's line for the device (in 2026-07-28 form, under the host's id, the host's members
    /// byte for byte).
    pub fn begin(&mut self, id: &Id, params: Option<&str>) -> Option<Vec<u8>> {
        let host = self.host.as_ref()?;
        let params = modern_params(params, &host.capabilities, self.log_level.as_deref());
        let line = round_line(&id.raw, &params, None, None)?;
        let tool = serde_json::from_str::<Value>(&params)
            .ok()
            .and_then(|p| p.get("name").and_then(Value::as_str).map(str::to_owned))
            .unwrap_or_default();
        self.forget(&id.key);
        self.calls.insert(
            id.key.clone(),
            Call {
                id: id.clone(),
                tool,
                params,
                rounds: 0,
                state: None,
                phase: Phase::Device,
            },
        );
        Some(line)
    }

    /// True when call `key` is the shim's and waits for the device.
    pub fn on_device(&self, key: &str) -> bool {
        self.calls
            .get(key)
            .is_some_and(|c| matches!(c.phase, Phase::Device))
    }

    /// True when call `key` waits for the host's answers (its id is in use).
    pub fn asking(&self, key: &str) -> bool {
        self.calls
            .get(key)
            .is_some_and(|c| matches!(c.phase, Phase::Asking { .. }))
    }

    /// True when no call waits for the host.
    pub fn is_idle(&self) -> bool {
        !self
            .calls
            .values()
            .any(|c| matches!(c.phase, Phase::Asking { .. }))
    }

    /// True when `key` is the id of one of the shim's open questions to the host.
    pub fn owns(&self, key: &str) -> bool {
        self.asks.contains_key(key)
    }

    /// Forgets call `key` (answered elsewhere: a timeout, a lost link); its open questions stay
    /// unanswered.
    pub fn forget(&mut self, key: &str) {
        if self.calls.remove(key).is_some() {
            self.asks.retain(|_, a| a.call != key);
        }
    }

    /// The device answered round of call `key` with `line`.
    pub fn on_device_answer(&mut self, key: &str, line: &[u8], now: Instant) -> Vec<Action> {
        let Some(call) = self.calls.get_mut(key) else {
            return Vec::new();
        };
        let answer = read_device_answer(line);
        let (requests, state) = match answer {
            DeviceAnswer::Complete(result) => {
                let id = call.id.raw.clone();
                self.calls.remove(key);
                let key = key.to_owned();
                return vec![Action::Complete { key, id, result }];
            }
            DeviceAnswer::Other => {
                self.calls.remove(key);
                let key = key.to_owned();
                return vec![Action::Answer {
                    key,
                    line: line.to_vec(),
                }];
            }
            DeviceAnswer::MissingCapability(names) => {
                let text = format!(
                    "Tool {} did not act: the device needs to ask the user through client \
                     capabilities your host did not declare in initialize ({}); use a host that \
                     supports them",
                    call.tool,
                    names.join(", ")
                );
                return self.fail(key, &text);
            }
            DeviceAnswer::InputRequired { requests, state } => (requests, state),
        };
        call.rounds += 1;
        if call.rounds > MAX_ROUNDS {
            let text = format!(
                "Tool {} did not act: the device asked for input more than {MAX_ROUNDS} times",
                call.tool
            );
            return self.fail(key, &text);
        }
        if state.is_some() {
            call.state = state;
        }
        let host = self.host.as_ref();
        let refused = requests
            .iter()
            .find(|r| !host.is_some_and(|h| host_can(&h.capabilities, r)));
        if let Some(request) = refused {
            let text = format!(
                "Tool {} did not act: the device asks for input ({} \"{}\") that your host did \
                 not declare it can give in initialize",
                call.tool, request.method, request.key
            );
            return self.fail(key, &text);
        }
        if requests.is_empty() {
            // Only a state: retry at once (counted in the rounds).
            let line = round_line(&call.id.raw, &call.params, None, call.state.as_deref());
            return match line {
                Some(line) => vec![Action::Device {
                    key: key.to_owned(),
                    line,
                }],
                None => self.fail(key, "The bridge could not encode the call's retry"),
            };
        }
        let version = host.map(|h| h.version.clone()).unwrap_or_default();
        let mut actions = Vec::new();
        let mut answers = BTreeMap::new();
        for request in &requests {
            let id = format!("{}{}", self.prefix, self.next_ask);
            self.next_ask += 1;
            let Some(line) = host_request(&id, request, &version) else {
                continue;
            };
            self.asks.insert(
                format!("\"{id}\""),
                Ask {
                    call: key.to_owned(),
                    input: request.key.clone(),
                },
            );
            answers.insert(request.key.clone(), None);
            actions.push(Action::Host {
                key: key.to_owned(),
                line,
            });
        }
        call.phase = Phase::Asking {
            answers,
            deadline: now + self.timeout,
        };
        actions
    }

    /// The host answered the shim's question `key` with `value` (a response).
    pub fn on_host_answer(&mut self, key: &str, value: &Value) -> Vec<Action> {
        let Some(ask) = self.asks.remove(key) else {
            return Vec::new();
        };
        let Some(call) = self.calls.get_mut(&ask.call) else {
            return Vec::new();
        };
        let Some(result) = value.get("result") else {
            let why = value
                .get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
                .unwrap_or("an error without a message");
            let text = format!(
                "Tool {} did not act: the host could not ask the user ({why})",
                call.tool
            );
            return self.fail(&ask.call, &text);
        };
        let Phase::Asking { answers, .. } = &mut call.phase else {
            return Vec::new();
        };
        if let Some(slot) = answers.get_mut(&ask.input) {
            *slot = Some(result.to_string());
        }
        if answers.values().any(Option::is_none) {
            return Vec::new();
        }
        let mut responses = Vec::new();
        responses.push(b'{');
        for (n, (input, answer)) in answers.iter().enumerate() {
            if n > 0 {
                responses.push(b',');
            }
            message::push_json_string(&mut responses, input);
            responses.push(b':');
            responses.extend_from_slice(answer.as_deref().unwrap_or("{}").as_bytes());
        }
        responses.push(b'}');
        let responses = String::from_utf8(responses).unwrap_or_default();
        let line = round_line(
            &call.id.raw,
            &call.params,
            Some(&responses),
            call.state.as_deref(),
        );
        call.phase = Phase::Device;
        match line {
            Some(line) => vec![Action::Device {
                key: ask.call,
                line,
            }],
            None => self.fail(&ask.call, "The bridge could not encode the call's retry"),
        }
    }

    /// The host cancelled its call `key`. Returns `None` when the shim does not hold it (the
    /// driver goes on as for any request, a round on the device included: the call is
    /// forgotten here); else the cancellations of its open questions, and nothing is answered.
    pub fn cancel(&mut self, key: &str) -> Option<Vec<Action>> {
        if !self.asking(key) {
            self.forget(key);
            return None;
        }
        Some(self.close_asks(key, "the call was cancelled"))
    }

    /// When [`InputShim::on_timeout`] is due next.
    pub fn next_deadline(&self) -> Option<Instant> {
        self.calls
            .values()
            .filter_map(|c| match &c.phase {
                Phase::Asking { deadline, .. } => Some(*deadline),
                Phase::Device => None,
            })
            .min()
    }

    /// Answers the calls whose people did not answer by `now`.
    pub fn on_timeout(&mut self, now: Instant) -> Vec<Action> {
        let late: Vec<String> = self
            .calls
            .iter()
            .filter(|(_, c)| matches!(&c.phase, Phase::Asking { deadline, .. } if *deadline <= now))
            .map(|(k, _)| k.clone())
            .collect();
        let ms = self.timeout.as_millis();
        let mut actions = Vec::new();
        for key in late {
            let tool = self.calls.get(&key).map(|c| c.tool.clone());
            let text = format!(
                "Tool {} did not act: nobody answered its question within {ms} ms (the bridge's --input-timeout-ms)",
                tool.unwrap_or_default()
            );
            actions.extend(self.fail(&key, &text));
        }
        actions
    }

    /// Ends call `key` with a tool error saying `text`, and cancels its open questions.
    fn fail(&mut self, key: &str, text: &str) -> Vec<Action> {
        let Some(call) = self.calls.get(key) else {
            return Vec::new();
        };
        let line = tool_error_response(&call.id.raw, text, false);
        let mut actions = self.close_asks(key, "the call is over");
        actions.push(Action::Answer {
            key: key.to_owned(),
            line,
        });
        actions
    }

    /// Forgets call `key` and tells the host its open questions are withdrawn.
    fn close_asks(&mut self, key: &str, reason: &str) -> Vec<Action> {
        self.calls.remove(key);
        let mut open: Vec<String> = self
            .asks
            .iter()
            .filter(|(_, a)| a.call == key)
            .map(|(id, _)| id.clone())
            .collect();
        open.sort();
        self.asks.retain(|_, a| a.call != key);
        open.into_iter()
            .map(|id| Action::Host {
                key: key.to_owned(),
                line: message::cancelled(&id, reason),
            })
            .collect()
    }
}
