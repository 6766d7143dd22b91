//! The fixture tools' results: the reference server's texts and payloads (a 1x1 PNG and a
//! 44-byte WAV header, both in flash as base64). An `AsyncHandler`: `test_tool_with_logging`
//! and `test_tool_with_progress` send their notifications (through [`Context`]) before the
//! result, as the reference does (without its 50 ms pauses: the suite only counts them).

use embedded_mcp::protocol::LogLevel;
use embedded_mcp::server::{AsyncHandler, Call, Context, Done, Output};

/// A 1x1 red PNG (70 bytes), the reference server's image.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";
/// A RIFF/WAVE header (8 kHz mono 16-bit, no samples), the reference server's audio.
pub const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Answers the fixture tools.
pub struct Fixtures {
    /// Calls answered since boot (logged now and then).
    pub calls: u32,
}

/// A tool name the handler has no code for (cannot happen: the engine only calls listed tools).
#[derive(Debug)]
pub struct Unknown;

impl core::fmt::Display for Unknown {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("this tool is not implemented")
    }
}

/// The text is written without `core::fmt`.
impl embedded_mcp::server::ToolFailure for Unknown {
    fn write_message(
        &self,
        out: &mut dyn embedded_mcp::json::Sink,
    ) -> Result<(), embedded_mcp::json::EncodeError> {
        out.put(b"this tool is not implemented")
    }
}

/// `test_tool_with_logging`'s three `info` messages (the reference's, without a `logger`).
const LOG_STEPS: [&str; 3] = [
    "Tool execution started",
    "Tool processing data",
    "Tool execution completed",
];

/// `test_tool_with_progress`'s reports (of a total of 100), with their messages.
const PROGRESS_STEPS: [(u32, &str); 3] = [
    (0, "Completed step 0 of 100"),
    (50, "Completed step 50 of 100"),
    (100, "Completed step 100 of 100"),
];

impl AsyncHandler for Fixtures {
    type Error = Unknown;

    async fn call(
        &mut self,
        call: &Call<'_>,
        out: Output<'_>,
        cx: &mut Context<'_>,
    ) -> Result<Done, Unknown> {
        self.calls = self.calls.wrapping_add(1);
        match call.name() {
            "test_tool_with_logging" => {
                for step in LOG_STEPS {
                    cx.log(LogLevel::Info, None, step).await;
                }
                Ok(out.text("Tool with logging executed successfully"))
            }
            "test_tool_with_progress" => {
                for (progress, message) in PROGRESS_STEPS {
                    cx.progress(progress, Some(100), Some(message)).await;
                }
                Ok(out.text("Tool with progress executed successfully"))
            }
            // The stateless diagnostics: one notification each, which only the request's own
            // stream may carry (a log only when the request names a level).
            "test_streaming_elicitation" => {
                cx.progress(1, Some(1), None).await;
                Ok(out.text("Streaming test completed"))
            }
            "test_logging_tool" => {
                cx.log(LogLevel::Info, None, "Logging tool executed").await;
                Ok(out.text("Logging tool executed"))
            }
            _ => {
                let out = match crate::tasks::answer_async(call, out).await {
                    Ok(done) => return Ok(done),
                    Err(out) => out,
                };
                let out = match crate::tasks::answer(call, out) {
                    Ok(done) => return Ok(done),
                    Err(out) => out,
                };
                match crate::asks::answer(call, out) {
                    Ok(done) => Ok(done),
                    Err(out) => answer(call, out),
                }
            }
        }
    }
}

/// The fixture tools that send no notifications.
fn answer(call: &Call<'_>, out: Output<'_>) -> Result<Done, Unknown> {
    Ok(match call.name() {
        "test_simple_text" => out.text("This is a simple text response for testing."),
        "test_image_content" => out.blocks(|w| w.image(PNG, "image/png")),
        "test_audio_content" => out.blocks(|w| w.audio(WAV, "audio/wav")),
        "test_embedded_resource" => out.blocks(|w| {
            w.resource_text(
                "test://embedded-resource",
                Some("text/plain"),
                "This is an embedded resource content.",
            )
        }),
        "test_multiple_content_types" => out.blocks(|w| {
            w.text("Multiple content types test:")?;
            w.image(PNG, "image/png")?;
            w.resource_text(
                "test://mixed-content-resource",
                Some("application/json"),
                r#"{"test":"data","value":123}"#,
            )
        }),
        "test_error_handling" => out.error("This tool intentionally returns an error for testing"),
        "test_custom_headers" => out.blocks(|w| {
            w.text_fmt(format_args!(
                "Custom headers tool called with: {}",
                call.arguments().raw()
            ))
        }),
        "json_schema_2020_12_tool" => out.blocks(|w| {
            w.text_fmt(format_args!(
                "JSON Schema 2020-12 tool called with: {}",
                call.arguments().raw()
            ))
        }),
        _ => return Err(Unknown),
    })
}
