//! What a `#[tool]` method's signature says: how it is called, what it takes and returns.

use syn::spanned::Spanned;
use syn::{FnArg, GenericArgument, PathArguments, ReturnType, Signature, Type};

/// One parameter after the receiver, in declaration order.
pub(crate) enum Param {
    /// The tool's arguments (a `#[derive(McpSchema, Deserialize)]` type).
    Arguments(Box<Type>),
    /// `&mut Context<'_>`.
    Context,
}

/// A tool method's signature, checked.
pub(crate) struct ToolSig {
    pub(crate) is_async: bool,
    /// `&self` / `&mut self` (false: an associated function, called as `Self::name`).
    pub(crate) has_receiver: bool,
    pub(crate) params: Vec<Param>,
    /// The output type (`T` of `Result<T, E>` for a fallible tool).
    pub(crate) output: Type,
    /// Returns a `Result`.
    pub(crate) fallible: bool,
}

impl ToolSig {
    /// The arguments type, if the tool takes arguments.
    pub(crate) fn arguments(&self) -> Option<&Type> {
        self.params.iter().find_map(|p| match p {
            Param::Arguments(t) => Some(&**t),
            Param::Context => None,
        })
    }

    /// True when the tool takes a `Context`.
    pub(crate) fn takes_context(&self) -> bool {
        self.params.iter().any(|p| matches!(p, Param::Context))
    }
}

const SHAPE: &str =
    "a tool is `[async] fn name(&mut self, [args: Args,] [cx: &mut Context<'_>]) -> Out` \
     or `-> Result<Out, E>`, with `Args` and `Out` deriving `McpSchema` and serde";

fn err(span: proc_macro2::Span, what: &str) -> syn::Error {
    syn::Error::new(span, format!("{what}; {SHAPE}"))
}

/// True for `&mut Context<…>` (any path ending in `Context`).
fn is_context(ty: &Type) -> bool {
    let Type::Reference(r) = ty else {
        return false;
    };
    let Type::Path(p) = &*r.elem else {
        return false;
    };
    r.mutability.is_some() && p.path.segments.last().is_some_and(|s| s.ident == "Context")
}

/// True for `Context<…>` taken by value or by shared reference (a likely mistake).
fn mentions_context(ty: &Type) -> bool {
    let inner = match ty {
        Type::Reference(r) => &*r.elem,
        other => other,
    };
    matches!(inner, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Context"))
}

/// `Result<T, …>` → `Some(T)`.
fn result_ok(ty: &Type) -> Option<Type> {
    let Type::Path(p) = ty else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "Result" {
        return None;
    }
    let PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.first()? {
        GenericArgument::Type(t) => Some(t.clone()),
        _ => None,
    }
}

pub(crate) fn parse(sig: &Signature) -> syn::Result<ToolSig> {
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(err(sig.generics.span(), "a tool method cannot be generic"));
    }
    if let Some(v) = &sig.variadic {
        return Err(err(v.span(), "a tool method cannot be variadic"));
    }
    let mut has_receiver = false;
    let mut params = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                if r.reference.is_none() {
                    return Err(err(
                        r.span(),
                        "a tool borrows its state: take `&mut self` or `&self`, not `self`",
                    ));
                }
                has_receiver = true;
            }
            FnArg::Typed(pt) if is_context(&pt.ty) => {
                if params.iter().any(|p| matches!(p, Param::Context)) {
                    return Err(err(
                        pt.span(),
                        "a tool takes at most one `&mut Context<'_>`",
                    ));
                }
                params.push(Param::Context);
            }
            FnArg::Typed(pt) if mentions_context(&pt.ty) => {
                return Err(err(
                    pt.ty.span(),
                    "the context is taken as `&mut Context<'_>`",
                ));
            }
            FnArg::Typed(pt) => {
                if params.iter().any(|p| matches!(p, Param::Arguments(_))) {
                    return Err(err(
                        pt.span(),
                        "a tool takes its arguments as one type: put them into one struct",
                    ));
                }
                params.push(Param::Arguments(pt.ty.clone()));
            }
        }
    }
    let ty = match &sig.output {
        ReturnType::Default => {
            return Err(err(
                sig.ident.span(),
                "a tool returns its output (its `outputSchema`), this method returns nothing",
            ))
        }
        ReturnType::Type(_, ty) => (**ty).clone(),
    };
    let (output, fallible) = match result_ok(&ty) {
        Some(ok) => (ok, true),
        None => (ty, false),
    };
    if matches!(&output, Type::Tuple(t) if t.elems.is_empty()) {
        return Err(err(
            output.span(),
            "a tool returns its output (its `outputSchema`), not `()`",
        ));
    }
    Ok(ToolSig {
        is_async: sig.asyncness.is_some(),
        has_receiver,
        params,
        output,
        fallible,
    })
}
