//! What `call` asks a person when the device answers `input_required`: each input request's
//! question and form (an `elicitation/create` in form mode), and the answers typed in, read
//! into the `inputResponses` the retry carries. No I/O here: [`Form::from_request`] reads the
//! device's request, [`Form::read`] one typed line; the terminal is `approve`'s.

use serde_json::{json, Map, Value};

/// One field of a form: a top-level property of `requestedSchema`.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Field {
    /// Its property name.
    pub(super) name: String,
    /// `boolean`, `string`, `integer` or `number`.
    pub(super) kind: String,
    /// `title`, else `description`, else the name: what the prompt shows.
    pub(super) label: String,
    /// The choices of an `enum`.
    pub(super) choices: Vec<String>,
    /// Its `default`.
    pub(super) default: Option<Value>,
    /// Whether `required` names it.
    pub(super) required: bool,
}

/// A question from the device: its message and fields.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Form {
    /// The device's `message`.
    pub(super) message: String,
    /// The fields, in name order (as `serde_json` keeps an object's members).
    pub(super) fields: Vec<Field>,
}

/// What a typed line means for a field.
#[derive(Debug, PartialEq)]
pub(super) enum Typed {
    /// The field's value.
    Value(Value),
    /// Left empty: the default, or nothing for an optional field.
    Empty,
    /// Not a value of the field; the text says why (ask again).
    Invalid(String),
}

impl Form {
    /// The form of one input request (`method` and `params` of an `inputRequests` entry);
    /// `Err` says why `call` cannot show it.
    pub(super) fn from_request(method: &str, params: Option<&Value>) -> Result<Self, String> {
        if method != "elicitation/create" {
            return Err(format!(
                "the device asks for `{method}`, which `call` cannot answer"
            ));
        }
        let params = params.cloned().unwrap_or(Value::Null);
        if params.get("mode").and_then(Value::as_str).unwrap_or("form") != "form" {
            return Err("the device asks for a URL elicitation, which `call` cannot show".into());
        }
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_owned();
        let schema = params
            .get("requestedSchema")
            .cloned()
            .unwrap_or(Value::Null);
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            let text = |key: &str| property.get(key).and_then(Value::as_str);
            let choices: Vec<String> = property
                .get("enum")
                .or_else(|| property.get("oneOf"))
                .and_then(Value::as_array)
                .map(|c| {
                    c.iter()
                        .filter_map(|v| v.as_str().or_else(|| v.get("const")?.as_str()))
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default();
            fields.push(Field {
                name: name.clone(),
                kind: text("type").unwrap_or("string").to_owned(),
                label: text("title")
                    .or_else(|| text("description"))
                    .unwrap_or(name)
                    .to_owned(),
                choices,
                default: property.get("default").cloned(),
                required: required.contains(&name.as_str()),
            });
        }
        Ok(Self { message, fields })
    }

    /// A yes-or-no question: one boolean field.
    pub(super) fn is_yes_no(&self) -> bool {
        matches!(self.fields.as_slice(), [field] if field.kind == "boolean")
    }

    /// The prompt of `field` (after the message).
    pub(super) fn prompt(field: &Field) -> String {
        let mut prompt = format!("{} ({}", field.label, field.kind);
        if !field.choices.is_empty() {
            prompt.push_str(": ");
            prompt.push_str(&field.choices.join(", "));
        }
        if let Some(default) = &field.default {
            prompt.push_str(&format!("; empty: {default}"));
        } else if !field.required {
            prompt.push_str("; optional");
        }
        prompt.push_str("): ");
        prompt
    }

    /// What the line `line` typed for `field` means.
    pub(super) fn read(field: &Field, line: &str) -> Typed {
        let text = line.trim();
        if text.is_empty() {
            return match (&field.default, field.required) {
                (Some(default), _) => Typed::Value(default.clone()),
                (None, false) => Typed::Empty,
                (None, true) => Typed::Invalid(format!("`{}` is required", field.name)),
            };
        }
        let value = match field.kind.as_str() {
            "boolean" => match yes_no(text) {
                Some(b) => Value::Bool(b),
                None => return Typed::Invalid("answer y or n".into()),
            },
            "integer" => match text.parse::<i64>() {
                Ok(n) => json!(n),
                Err(_) => return Typed::Invalid("not an integer".into()),
            },
            "number" => match text.parse::<f64>() {
                Ok(n) if n.is_finite() => json!(n),
                _ => return Typed::Invalid("not a number".into()),
            },
            _ => Value::String(text.to_owned()),
        };
        if !field.choices.is_empty() && !field.choices.iter().any(|c| c == text) {
            return Typed::Invalid(format!("one of: {}", field.choices.join(", ")));
        }
        Typed::Value(value)
    }

    /// The content `--yes` answers with: `true` for each boolean, the default of the others;
    /// `Err` names a required field that has neither.
    pub(super) fn approved(&self) -> Result<Map<String, Value>, String> {
        let mut content = Map::new();
        for field in &self.fields {
            let value = match (&field.default, field.kind.as_str()) {
                (_, "boolean") => Value::Bool(true),
                (Some(default), _) => default.clone(),
                (None, _) if !field.required => continue,
                (None, _) => {
                    return Err(format!(
                        "--yes cannot fill in `{}`: it has no default; answer on a terminal",
                        field.name
                    ))
                }
            };
            content.insert(field.name.clone(), value);
        }
        Ok(content)
    }
}

/// `y`/`yes` or `n`/`no`, any case.
pub(super) fn yes_no(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "y" | "yes" | "true" => Some(true),
        "n" | "no" | "false" => Some(false),
        _ => None,
    }
}

/// An accepted answer with `content`.
pub(super) fn accept(content: Map<String, Value>) -> Value {
    json!({"action": "accept", "content": content})
}

/// The answer of a person who said no.
pub(super) fn decline() -> Value {
    json!({"action": "decline"})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approval() -> Value {
        json!({"mode": "form", "message": "Switch relay 1 on?", "requestedSchema": {"type": "object",
            "properties": {"approve": {"type": "boolean", "title": "Approve", "description": "Let the device go ahead"}},
            "required": ["approve"]}})
    }

    #[test]
    fn an_approval_is_a_yes_no_question() {
        let form = Form::from_request("elicitation/create", Some(&approval())).unwrap();
        assert_eq!(form.message, "Switch relay 1 on?");
        assert!(form.is_yes_no());
        assert_eq!(Form::prompt(&form.fields[0]), "Approve (boolean): ");
        assert_eq!(
            form.approved().unwrap(),
            json!({"approve": true}).as_object().unwrap().clone()
        );
        assert_eq!(yes_no(" Y "), Some(true));
        assert_eq!(yes_no("no"), Some(false));
        assert_eq!(yes_no("maybe"), None);
    }

    #[test]
    fn a_larger_form_reads_each_field() {
        let params = json!({"message": "Valve", "requestedSchema": {"type": "object", "properties": {
            "mode": {"type": "string", "enum": ["slow", "fast"], "default": "slow"},
            "litres": {"type": "integer", "description": "How much"},
            "note": {"type": "string"}}, "required": ["litres"]}});
        let form = Form::from_request("elicitation/create", Some(&params)).unwrap();
        assert!(!form.is_yes_no());
        let [litres, mode, note] = form.fields.as_slice() else {
            panic!("{form:?}")
        };
        assert_eq!(
            Form::prompt(mode),
            "mode (string: slow, fast; empty: \"slow\"): "
        );
        assert_eq!(Form::read(mode, ""), Typed::Value(json!("slow")));
        assert_eq!(Form::read(mode, "fast"), Typed::Value(json!("fast")));
        assert_eq!(
            Form::read(mode, "medium"),
            Typed::Invalid("one of: slow, fast".into())
        );
        assert_eq!(Form::read(litres, "12"), Typed::Value(json!(12)));
        assert_eq!(
            Form::read(litres, ""),
            Typed::Invalid("`litres` is required".into())
        );
        assert_eq!(Form::read(note, ""), Typed::Empty);
        assert_eq!(
            form.approved().unwrap_err(),
            "--yes cannot fill in `litres`: it has no default; answer on a terminal"
        );
    }

    #[test]
    fn what_call_cannot_show_is_said() {
        assert_eq!(
            Form::from_request("sampling/createMessage", None).unwrap_err(),
            "the device asks for `sampling/createMessage`, which `call` cannot answer"
        );
        let url = json!({"mode": "url", "url": "https://example.com"});
        assert!(Form::from_request("elicitation/create", Some(&url)).is_err());
    }
}
