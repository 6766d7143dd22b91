//! The second stage: collects the schemas of nested derived types (each one's hidden macro
//! appends its schema to this stage's input and calls it again), then fills the templates,
//! compiles the schemas with embedded-mcp's compiler, and emits the `McpSchema` impl, the
//! statics and the hidden macro that hands this type's schema to the types nesting it.

use embedded_mcp_schema::schema::{compile, Storage};
use proc_macro2::{Literal, TokenStream, TokenTree};
use quote::{format_ident, quote};

use crate::emit::{self, Parts};
use crate::render::Side;
use crate::template::{Piece, Template};

/// Storage the macro compiles into (a schema that needs more is refused with the compiler's
/// capacity error).
type MacroStorage = Storage<2048, 16384, 32768>;

struct Field {
    span: proc_macro2::Span,
    name: String,
    input: Template,
    output: Template,
}

/// A nested type's schema: input members, output members, its own annotations.
struct Answer {
    input: String,
    output: String,
    annotations: String,
}

fn group(tt: Option<&TokenTree>) -> syn::Result<TokenStream> {
    match tt {
        Some(TokenTree::Group(g)) => Ok(g.stream()),
        _ => Err(syn::Error::new(
            proc_macro2::Span::call_site(),
            "McpSchema: malformed stage input",
        )),
    }
}

fn string(tt: Option<&TokenTree>) -> syn::Result<String> {
    let tt = tt.ok_or_else(|| {
        syn::Error::new(
            proc_macro2::Span::call_site(),
            "McpSchema: malformed stage input",
        )
    })?;
    Ok(syn::parse2::<syn::LitStr>(tt.clone().into())?.value())
}

/// What one run of the second stage found.
pub(crate) enum Step {
    /// A nested type's schema is still missing: `path!` is that type's hidden macro, to be
    /// called with `input`; it appends the type's answer (three string literals) and calls the
    /// stage again.
    Ask {
        path: TokenStream,
        input: TokenStream,
    },
    /// Every schema is known and compiled.
    Done(Box<Done>),
}

/// The second stage's result for one type.
pub(crate) struct Done {
    /// A tool's `inputSchema` (top level).
    pub(crate) input_schema: String,
    /// A tool's `outputSchema`.
    pub(crate) output_schema: String,
    /// What this type hands to the types nesting it: input members, output members and its own
    /// annotations (the three literals its hidden macro appends).
    pub(crate) answer: [String; 3],
    /// The impl, the statics and the hidden macro.
    pub(crate) tokens: TokenStream,
}

/// The second stage as the proc-macro runs it: asks the next nested type, or emits.
pub(crate) fn compose(input: TokenStream) -> syn::Result<TokenStream> {
    Ok(match step(input)? {
        Step::Ask { path, input } => quote!(#path! { #input }),
        Step::Done(done) => done.tokens,
    })
}

pub(crate) fn step(input: TokenStream) -> syn::Result<Step> {
    let t: Vec<TokenTree> = input.clone().into_iter().collect();
    let core = group(t.first())?;
    group(t.get(1))?; // the stage path: only the hidden macros use it
    let impl_g = group(t.get(2))?;
    let self_ty = group(t.get(3))?;
    let where_c = group(t.get(4))?;
    let ident: syn::Ident = syn::parse2(group(t.get(5))?)?;
    let annotations = string(t.get(6))?;
    let tmpl = |i: usize| {
        t.get(i).map(Template::from_tokens).unwrap_or_else(|| {
            Err(syn::Error::new(
                ident.span(),
                "McpSchema: malformed stage input",
            ))
        })
    };
    let (top_input, input_t, output_t) = (tmpl(7)?, tmpl(8)?, tmpl(9)?);
    let mut fields = Vec::new();
    for f in group(t.get(10))? {
        let parts: Vec<TokenTree> = group(Some(&f))?.into_iter().collect();
        fields.push(Field {
            span: parts
                .first()
                .map_or_else(proc_macro2::Span::call_site, TokenTree::span),
            name: string(parts.get(1))?,
            input: parts
                .get(2)
                .map(Template::from_tokens)
                .transpose()?
                .unwrap_or_default(),
            output: parts
                .get(3)
                .map(Template::from_tokens)
                .transpose()?
                .unwrap_or_default(),
        });
    }
    let needs: Vec<TokenStream> = group(t.get(11))?
        .into_iter()
        .map(|n| group(Some(&n)))
        .collect::<syn::Result<_>>()?;
    let rest = t.get(12..).unwrap_or_default();
    let answers: Vec<Answer> = rest
        .chunks(3)
        .map(|c| {
            Ok(Answer {
                input: string(c.first())?,
                output: string(c.get(1))?,
                annotations: string(c.get(2))?,
            })
        })
        .collect::<syn::Result<_>>()?;
    if let Some(next) = needs.get(answers.len()) {
        // Ask the next nested type for its schema; it calls this stage again with it appended.
        return Ok(Step::Ask {
            path: next.clone(),
            input,
        });
    }

    let filler = Filler {
        fields: &fields,
        answers: &answers,
    };
    for f in &fields {
        for (side, t) in [(Side::Input, &f.input), (Side::Output, &f.output)] {
            if t.is_empty() {
                continue;
            }
            let text = filler.fill(t, side);
            if let Err(e) = compiled(&text) {
                return Err(syn::Error::new(
                    f.span,
                    format!("McpSchema: field `{}`: {e} (schema {text})", f.name),
                ));
            }
        }
    }
    let whole = |members: &str| {
        if annotations.is_empty() {
            format!("{{{members}}}")
        } else {
            format!("{{{annotations},{members}}}")
        }
    };
    let input_schema = whole(&filler.fill(&top_input, Side::Input));
    let output_schema = whole(&filler.fill(&output_t, Side::Output));
    crate::headers::marks(&input_schema)
        .map_err(|e| syn::Error::new(ident.span(), format!("McpSchema: {e}")))?;
    let fail = |e| syn::Error::new(ident.span(), format!("McpSchema: {e}"));
    let (in_statics, in_prog) =
        emit::program(&compiled(&input_schema).map_err(fail)?, &core, "INPUT")?;
    let (out_statics, out_prog) =
        emit::program(&compiled(&output_schema).map_err(fail)?, &core, "OUTPUT")?;
    let (in_lit, out_lit) = (
        Literal::string(&input_schema),
        Literal::string(&output_schema),
    );
    let answer = [
        filler.fill(&input_t, Side::Input),
        filler.fill(&output_t, Side::Output),
        annotations.clone(),
    ];
    let [nested_in, nested_out, ann] = answer.each_ref().map(|a| Literal::string(a));
    // Exported, so that a type of another crate can nest this one: `#[macro_export]` puts the
    // macro at the crate root under a name unique to this definition, and the `pub use` beside
    // the type gives it the type's name, so `use other::Type;` imports both. The macro answers
    // through the stage path the asking type passed in (its own core path), never this crate's.
    let mac = format_ident!(
        "__embedded_mcp_schema_{}_{:016x}",
        ident,
        fnv1a(&input.to_string())
    );
    let tokens = quote! {
        const _: () = {
            #in_statics
            #out_statics
            impl #impl_g #core::schema::McpSchema for #self_ty #where_c {
                const INPUT_SCHEMA: &'static str = #in_lit;
                const INPUT_PROGRAM: #core::schema::Program<'static> = #in_prog;
                const OUTPUT_SCHEMA: &'static str = #out_lit;
                const OUTPUT_PROGRAM: #core::schema::Program<'static> = #out_prog;
            }
        };
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #mac {
            ([$($core:tt)*] [$($stages:tt)*] $($t:tt)*) => {
                $($stages)*::__compose! {
                    [$($core)*] [$($stages)*] $($t)* #nested_in #nested_out #ann
                }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub use #mac as #ident;
    };
    Ok(Step::Done(Box::new(Done {
        input_schema,
        output_schema,
        answer,
        tokens,
    })))
}

struct Filler<'a> {
    fields: &'a [Field],
    answers: &'a [Answer],
}

impl Filler<'_> {
    fn fill(&self, t: &Template, side: Side) -> String {
        let mut out = String::new();
        for p in &t.0 {
            match p {
                Piece::Text(s) => out.push_str(s),
                Piece::Hole { need, own } => {
                    if let Some(a) = self.answers.get(*need) {
                        if *own && !a.annotations.is_empty() {
                            out.push_str(&a.annotations);
                            out.push(',');
                        }
                        out.push_str(match side {
                            Side::Input => &a.input,
                            Side::Output => &a.output,
                        });
                    }
                }
                Piece::Field(k) => {
                    if let Some(f) = self.fields.get(*k) {
                        let t = match side {
                            Side::Input => &f.input,
                            Side::Output => &f.output,
                        };
                        out.push_str(&self.fill(t, side));
                    }
                }
            }
        }
        out
    }
}

/// Compiles `text` with the core's compiler and copies the program out.
fn compiled(text: &str) -> Result<Parts, embedded_mcp_schema::schema::CompileError> {
    let mut storage = Box::new(MacroStorage::new());
    let p = compile(text.as_bytes(), &mut storage)?;
    let (nodes, ops, text) = p.parts();
    Ok(Parts {
        nodes: nodes.to_vec(),
        ops: ops.to_vec(),
        text: text.to_owned(),
    })
}

/// 64-bit FNV-1a: a stable name for the hidden macro of one definition.
fn fnv1a(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}
