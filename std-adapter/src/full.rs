//! Full JSON Schema 2020-12 validation (filled by the full-validation work).
