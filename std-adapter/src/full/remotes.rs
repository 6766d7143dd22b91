//! Documents served from memory to `$ref` and `$schema`, and the retriever that never fetches.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use jsonschema::{Retrieve, Uri};
use serde_json::Value;

use super::depth::first_too_deep;
use super::prepare::{self, Rules};
use super::SchemaError;

/// Deepest registered document accepted (registered documents are trusted, but the preparation
/// walk recurses).
const MAX_REMOTE_DEPTH: usize = 256;

/// Why [`Remotes::load_dir`] failed.
#[derive(Debug)]
#[non_exhaustive]
pub enum LoadDirError {
    /// A folder or file could not be read.
    Read {
        /// The folder or file.
        path: PathBuf,
        /// The operating system's error.
        source: std::io::Error,
    },
    /// A `*.json` file is not JSON.
    NotJson {
        /// The file.
        path: PathBuf,
        /// The parser's error.
        source: serde_json::Error,
    },
    /// A file found below the folder does not start with the folder's path.
    NotBelow {
        /// The file.
        path: PathBuf,
    },
    /// A document was refused by [`Remotes::insert`].
    Refused {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SchemaError,
    },
}

impl fmt::Display for LoadDirError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            Self::NotJson { path, source } => write!(f, "{} is not JSON: {source}", path.display()),
            Self::NotBelow { path } => write!(f, "{}: prefix not found", path.display()),
            Self::Refused { path, source } => write!(f, "{}: {source}", path.display()),
        }
    }
}

impl std::error::Error for LoadDirError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } => Some(source),
            Self::NotJson { source, .. } => Some(source),
            Self::Refused { source, .. } => Some(source),
            Self::NotBelow { .. } => None,
        }
    }
}

/// Known remote schema documents, served from memory; nothing else is ever retrieved.
///
/// Opt-in: [`FullOptions::remotes`](super::FullOptions::remotes) is empty by default. Cloning is
/// cheap (the documents are shared).
#[derive(Clone, Default)]
pub struct Remotes {
    documents: Arc<HashMap<String, Arc<Value>>>,
}

impl fmt::Debug for Remotes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut uris: Vec<&String> = self.documents.keys().collect();
        uris.sort();
        f.debug_struct("Remotes").field("uris", &uris).finish()
    }
}

/// `uri` without its fragment.
fn document_uri(uri: &str) -> &str {
    uri.split('#').next().unwrap_or(uri)
}

impl Remotes {
    /// No documents.
    pub fn new() -> Self {
        Self::default()
    }

    /// Registers `document` under `uri` (its fragment, if any, is ignored).
    ///
    /// Fails only for a document nested deeper than 256 levels.
    pub fn insert(&mut self, uri: &str, document: Value) -> Result<(), SchemaError> {
        if let Some(path) = first_too_deep(&document, MAX_REMOTE_DEPTH) {
            return Err(SchemaError::TooDeep {
                path,
                max: MAX_REMOTE_DEPTH,
            });
        }
        let rules = Rules {
            max_subschemas: usize::MAX,
            dialect_served: None,
        };
        let prepared = prepare::prepare(&document, &rules)?;
        Arc::make_mut(&mut self.documents).insert(document_uri(uri).to_owned(), Arc::new(prepared));
        Ok(())
    }

    /// Registers every `*.json` file below `dir` as `base_uri` + its relative path with `/`
    /// separators (`remotes/draft2020-12/integer.json` under `http://localhost:1234/` becomes
    /// `http://localhost:1234/draft2020-12/integer.json`). Returns how many were registered.
    pub fn load_dir(&mut self, base_uri: &str, dir: &Path) -> Result<usize, LoadDirError> {
        let read_error = |path: &Path| {
            let path = path.to_path_buf();
            move |source| LoadDirError::Read { path, source }
        };
        let mut pending = vec![dir.to_path_buf()];
        let mut loaded = 0;
        while let Some(folder) = pending.pop() {
            let entries = std::fs::read_dir(&folder).map_err(read_error(&folder))?;
            for entry in entries {
                let path = entry.map_err(read_error(&folder))?.path();
                if path.is_dir() {
                    pending.push(path);
                    continue;
                }
                if path.extension().and_then(|e| e.to_str()) != Some("json") {
                    continue;
                }
                let relative = path
                    .strip_prefix(dir)
                    .map_err(|_| LoadDirError::NotBelow { path: path.clone() })?;
                let relative: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                let text = std::fs::read_to_string(&path).map_err(read_error(&path))?;
                let document: Value =
                    serde_json::from_str(&text).map_err(|source| LoadDirError::NotJson {
                        path: path.clone(),
                        source,
                    })?;
                let uri = format!("{base_uri}{}", relative.join("/"));
                self.insert(&uri, document)
                    .map_err(|source| LoadDirError::Refused {
                        path: path.clone(),
                        source,
                    })?;
                loaded += 1;
            }
        }
        Ok(loaded)
    }

    /// How many documents are registered.
    pub fn len(&self) -> usize {
        self.documents.len()
    }

    /// Whether no document is registered.
    pub fn is_empty(&self) -> bool {
        self.documents.is_empty()
    }

    /// The prepared document registered under `uri` (fragment ignored).
    pub(crate) fn get(&self, uri: &str) -> Option<&Arc<Value>> {
        self.documents.get(document_uri(uri))
    }
}

/// The retriever given to `jsonschema`: registered documents only, and a log of every URI it
/// refused, so that a failed build can name the reference.
pub(crate) struct MemoryRetriever {
    pub(crate) remotes: Remotes,
    pub(crate) refused: Arc<Mutex<Vec<String>>>,
}

impl Retrieve for MemoryRetriever {
    fn retrieve(
        &self,
        uri: &Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        if let Some(document) = self.remotes.get(uri.as_str()) {
            return Ok(Value::clone(document));
        }
        self.refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(uri.as_str().to_owned());
        Err(format!("{uri} is not a registered document and is never fetched").into())
    }
}

/// Whether `uri` names a resource on a network host (a scheme followed by a non-empty
/// authority, as in `http://host/…`); `json-schema:///x`, `file:///x` and `urn:x` do not.
pub(crate) fn is_network_uri(uri: &str) -> bool {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return false;
    };
    let scheme_ok = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
    let Some(authority) = rest.strip_prefix("//") else {
        return false;
    };
    let host = authority.split(['/', '?', '#']).next().unwrap_or("");
    scheme_ok && !host.is_empty()
}
