//! The fixture tools' results: the reference server's texts and payloads (a 1x1 PNG and a
//! 44-byte WAV header, both in flash as base64).

use embedded_mcp::server::{Call, Done, Handler, Output};

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

impl Handler for Fixtures {
    type Error = Unknown;

    fn call(&mut self, call: &Call<'_>, out: Output<'_>) -> Result<Done, Unknown> {
        self.calls = self.calls.wrapping_add(1);
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
            "test_tool_with_logging" => out.text("Tool with logging executed successfully"),
            "test_tool_with_progress" => out.text("Tool with progress executed successfully"),
            "test_error_handling" => {
                out.error("This tool intentionally returns an error for testing")
            }
            "json_schema_2020_12_tool" => out.blocks(|w| {
                w.text_fmt(format_args!(
                    "JSON Schema 2020-12 tool called with: {}",
                    call.arguments().raw()
                ))
            }),
            "test_streaming_elicitation" => out.text("Streaming test completed"),
            "test_logging_tool" => out.text("Logging tool executed"),
            _ => return Err(Unknown),
        })
    }
}
