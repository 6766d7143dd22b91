//! The JSON Schema dialects the validator serves, directly or through registered meta-schemas.

use serde_json::Value;

use super::remotes::Remotes;

/// The dialects served, as `$schema` names them (without a trailing `#`).
pub(crate) const SUPPORTED_DIALECTS: [&str; 6] = [
    "https://json-schema.org/draft/2020-12/schema",
    "http://json-schema.org/draft/2020-12/schema",
    "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema",
];

/// How many registered meta-schemas a `$schema` chain may pass through.
const MAX_META_CHAIN: usize = 8;

/// Whether `uri` names a served dialect, directly or through registered meta-schemas.
pub(crate) fn served(uri: &str, remotes: &Remotes) -> bool {
    let mut current = uri.trim_end_matches('#').to_owned();
    for _ in 0..=MAX_META_CHAIN {
        if SUPPORTED_DIALECTS.contains(&current.as_str()) {
            return true;
        }
        let next = remotes
            .get(&current)
            .and_then(|doc| doc.get("$schema"))
            .and_then(Value::as_str)
            .map(|meta| meta.trim_end_matches('#').to_owned());
        match next {
            Some(meta) if meta != current => current = meta,
            _ => return false,
        }
    }
    false
}
