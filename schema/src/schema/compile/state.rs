//! The compiler's state and vocabulary: the keywords it knows ([`Kw`]), why it stops early
//! ([`Halt`]) and the [`Compiler`] itself, whose passes live in the sibling modules.

use crate::json::Value;
use crate::schema::error::CompileError;
use crate::schema::program::{Op, Scratch};

macro_rules! keywords {
    ($($v:ident = $s:literal),* $(,)?) => {
        /// Keywords with an effect on validation (annotations and unknown keywords are not listed).
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub(super) enum Kw { $($v),* }
        pub(super) const KEYWORDS: &[Kw] = &[$(Kw::$v),*];
        impl Kw {
            pub(super) const fn name(self) -> &'static str {
                match self { $(Kw::$v => $s),* }
            }
        }
    };
}

keywords! {
    Schema = "$schema", Id = "$id", Ref = "$ref", Anchor = "$anchor",
    DynamicRef = "$dynamicRef", DynamicAnchor = "$dynamicAnchor",
    Type = "type", Const = "const", Enum = "enum", MultipleOf = "multipleOf",
    Minimum = "minimum", ExclusiveMinimum = "exclusiveMinimum", Maximum = "maximum",
    ExclusiveMaximum = "exclusiveMaximum", MinLength = "minLength", MaxLength = "maxLength",
    Pattern = "pattern", MinItems = "minItems", MaxItems = "maxItems", UniqueItems = "uniqueItems",
    PrefixItems = "prefixItems", Items = "items", Contains = "contains",
    MinContains = "minContains", MaxContains = "maxContains", Required = "required",
    MinProperties = "minProperties", MaxProperties = "maxProperties", Properties = "properties",
    PatternProperties = "patternProperties", AdditionalProperties = "additionalProperties",
    PropertyNames = "propertyNames", DependentRequired = "dependentRequired",
    DependentSchemas = "dependentSchemas", AllOf = "allOf", AnyOf = "anyOf", OneOf = "oneOf",
    Not = "not", If = "if", Then = "then", Else = "else", UnevaluatedItems = "unevaluatedItems",
    UnevaluatedProperties = "unevaluatedProperties", Dependencies = "dependencies",
}

pub(super) const KW_COUNT: usize = KEYWORDS.len();

/// Why compilation stopped early: a problem (the [`CompileError`] is in
/// `Compiler::first`) or a bound; converted to a [`CompileError`] once, at the top. Internal
/// results carry this one byte instead of a 120-byte [`CompileError`], which keeps the
/// compiler's frames small.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Halt {
    Problem,
    TooManyNodes,
    TooManyOps,
    TextFull,
    TooComplex,
    Internal,
}

/// Receives every problem in "collect" mode.
pub(crate) type Report<'r> = Option<&'r mut dyn FnMut(&CompileError)>;

pub(crate) struct Compiler<'s, 'p, 'r> {
    pub(super) doc: &'s str,
    pub(super) root: Value<'s>,
    pub(super) nodes: &'p mut [u16],
    pub(super) scratch: &'p mut [Scratch],
    pub(super) n_nodes: usize,
    pub(super) ops: &'p mut [Op],
    pub(super) n_ops: usize,
    pub(super) text: &'p mut [u8],
    pub(super) n_text: usize,
    pub(super) report: Report<'r>,
    pub(super) first: Option<CompileError>,
    /// Whether any schema in the document has an `$id` (then references are resolved as URIs
    /// against each schema's base URI; otherwise only fragments are same-document).
    pub(super) has_ids: bool,
    /// Bytes scanned while resolving references and anchors (bounded by
    /// [`REF_WORK_LIMIT`](super::REF_WORK_LIMIT)).
    pub(super) work: core::cell::Cell<u64>,
}
