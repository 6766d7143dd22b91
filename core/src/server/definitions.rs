//! The checks a server's definitions pass before it is built: those that parse JSON, and
//! [`Tool::check_static`] again for every tool.

use crate::json::{self, Kind, Limits, Value};
use crate::protocol::parse_value;

use super::{is_allowed_icon_src, DefinitionError, SchemaRole, ServerInfo, Tool};

/// Checks the definitions that need no compiler; returns, per tool, whether its output
/// schema's root `type` is `"object"`.
pub(super) fn check_definitions<const TOOLS: usize>(
    info: &ServerInfo,
    tools: &[Tool; TOOLS],
) -> Result<[bool; TOOLS], DefinitionError> {
    if TOOLS > usize::from(u16::MAX) {
        return Err(DefinitionError::TooManyTools);
    }
    check_server_icons(info)?;
    let mut object_output = [false; TOOLS];
    for (index, tool) in tools.iter().enumerate() {
        tool.check_static()
            .map_err(|error| DefinitionError::Static { tool: index, error })?;
        if let Some(first) = tools
            .iter()
            .take(index)
            .position(|other| other.name == tool.name)
        {
            return Err(DefinitionError::DuplicateName { tool: index, first });
        }
        if !check_schema(tool.input_schema, index, SchemaRole::Input)? {
            return Err(DefinitionError::SchemaNotObject {
                tool: index,
                role: SchemaRole::Input,
            });
        }
        if let Some(output) = tool.output_schema {
            let is_object = check_schema(output, index, SchemaRole::Output)?;
            if let Some(slot) = object_output.get_mut(index) {
                *slot = is_object;
            }
        }
        if let Some(meta) = tool.meta {
            let ok = parse_value(meta.as_bytes(), Limits::default())
                .is_ok_and(|v| v.kind() == Kind::Object);
            if !ok {
                return Err(DefinitionError::MetaNotObject { tool: index });
            }
        }
    }
    Ok(object_output)
}

/// Checks the server's icons (the first check of [`check_definitions`]).
pub(super) fn check_server_icons(info: &ServerInfo) -> Result<(), DefinitionError> {
    for (icon, i) in info.icons.iter().enumerate() {
        if !is_allowed_icon_src(i.src) {
            return Err(DefinitionError::ServerIconScheme { icon });
        }
    }
    Ok(())
}

/// True when a schema's root has `"type": "object"`.
fn root_is_object(schema: Value<'_>) -> bool {
    schema
        .get("type")
        .and_then(|t| t.as_str())
        .is_some_and(|t| t.eq_str("object"))
}

/// Checks one schema text: JSON, an object; returns whether its root type is `"object"`.
fn check_schema(text: &str, tool: usize, role: SchemaRole) -> Result<bool, DefinitionError> {
    let value = parse_value(
        text.as_bytes(),
        Limits {
            max_depth: json::MAX_DEPTH_LIMIT,
        },
    )
    .map_err(|error| DefinitionError::SchemaNotJson { tool, role, error })?;
    if value.kind() != Kind::Object {
        return Err(DefinitionError::SchemaNotObject { tool, role });
    }
    Ok(root_is_object(value))
}
