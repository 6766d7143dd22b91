//! An async tool's body, inlined into the dispatcher's future.
//!
//! The compiler gives every `async fn` that can return a check that panics when its future is
//! polled after it completed, and the optimiser cannot remove it. The dispatcher's future
//! never returns (it hands its outcome to the `Context` and parks), so an async tool's body is
//! written into it rather than awaited as the method's own future: `return` becomes a `break`
//! out of the body's labelled block and `?` a `match` that breaks with the error. A body that
//! cannot be rewritten (a `?` in a tool that does not return `Result`, or `return`/`?` inside
//! a macro call, which the rewrite cannot see) is awaited as before.

use proc_macro2::{TokenStream, TokenTree};
use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, FnArg, ImplItemFn, Item, Macro, Pat, ReturnType, Type};

/// The label of an inlined body's block.
pub(crate) fn label() -> syn::Lifetime {
    syn::Lifetime::new("'__embedded_mcp_tool", proc_macro2::Span::call_site())
}

/// An async tool method's body, rewritten, and its parameters.
pub(crate) struct Inlined {
    /// Each parameter after the receiver: its pattern and type.
    pub(crate) params: Vec<(Pat, Type)>,
    /// The body, with `return` and `?` breaking out of [`label`].
    pub(crate) block: Block,
    /// The method's return type (the body's value, which `?`'s `From` needs to infer).
    pub(crate) output: Type,
}

/// The body of `f` to inline, when `f` is async and its body can be rewritten.
pub(crate) fn inline(f: &ImplItemFn, fallible: bool) -> Option<Inlined> {
    f.sig.asyncness?;
    let ReturnType::Type(_, output) = &f.sig.output else {
        return None;
    };
    let mut block = f.block.clone();
    let mut rewrite = Rewrite { fallible, ok: true };
    rewrite.visit_block_mut(&mut block);
    if !rewrite.ok {
        return None;
    }
    let params = f
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(pt) => Some(((*pt.pat).clone(), (*pt.ty).clone())),
            FnArg::Receiver(_) => None,
        })
        .collect();
    Some(Inlined {
        params,
        block,
        output: (**output).clone(),
    })
}

/// Rewrites `return` and `?` of the body itself (not of closures, async blocks or items in it).
struct Rewrite {
    fallible: bool,
    /// False once something was found that cannot be rewritten.
    ok: bool,
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let label = label();
        match e {
            // Their own `return` scope.
            Expr::Closure(_) | Expr::Async(_) | Expr::Const(_) => {}
            Expr::Return(r) => {
                if let Some(value) = &mut r.expr {
                    self.visit_expr_mut(value);
                }
                // In parentheses: `break 'label ::path` would read as a labelled loop.
                let value = r.expr.take().map_or_else(|| quote!(()), |v| quote!(#v));
                *e = syn::parse_quote!(break #label (#value));
            }
            Expr::Try(t) => {
                if !self.fallible {
                    self.ok = false;
                    return;
                }
                self.visit_expr_mut(&mut t.expr);
                let inner = &t.expr;
                *e = syn::parse_quote! {
                    match #inner {
                        ::core::result::Result::Ok(__v) => __v,
                        ::core::result::Result::Err(__e) => break #label
                            (::core::result::Result::Err(::core::convert::From::from(__e))),
                    }
                };
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    // Nested items have their own bodies.
    fn visit_item_mut(&mut self, _: &mut Item) {}

    fn visit_macro_mut(&mut self, m: &mut Macro) {
        if returns_early(m.tokens.clone()) {
            self.ok = false;
        }
    }
}

/// True when `tokens` hold a `return` or a `?` (a macro call's tokens, which may expand to
/// either).
fn returns_early(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == "return",
        TokenTree::Punct(p) => p.as_char() == '?',
        TokenTree::Group(g) => returns_early(g.stream()),
        TokenTree::Literal(_) => false,
    })
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;

    fn method(src: &str) -> ImplItemFn {
        syn::parse_str(src).unwrap()
    }

    fn body(src: &str, fallible: bool) -> Option<String> {
        inline(&method(src), fallible).map(|i| i.block.to_token_stream().to_string())
    }

    #[test]
    fn return_and_try_break_out_of_the_body() {
        let text = body(
            "async fn t(&mut self, a: A, cx: &mut Context<'_>) -> Result<B, E> { \
             let x = f()?; if x { return Err(E); } Ok(B) }",
            true,
        )
        .unwrap();
        assert!(!text.contains("return"), "{text}");
        assert!(!text.contains('?'), "{text}");
        assert_eq!(
            text.matches("break '__embedded_mcp_tool").count(),
            2,
            "{text}"
        );
        let inlined = inline(&method("async fn t(&mut self, a: A) -> B { B }"), false).unwrap();
        assert_eq!(inlined.params.len(), 1);
        assert_eq!(inlined.output.to_token_stream().to_string(), "B");
    }

    #[test]
    fn closures_async_blocks_and_items_keep_their_own_return() {
        let text = body(
            "async fn t(&mut self) -> Result<B, E> { \
             let c = || { return 1; }; let d = async { g()?; Ok::<_, E>(()) }; \
             fn h() -> u8 { return 2; } Ok(B) }",
            true,
        )
        .unwrap();
        assert!(!text.contains("break"), "{text}");
        assert_eq!(text.matches("return").count(), 2, "{text}");
    }

    #[test]
    fn what_cannot_be_rewritten_is_awaited_as_before() {
        // `?` in a tool that does not return `Result`.
        assert_eq!(
            body("async fn t(&mut self) -> Option<B> { Some(f()?) }", false),
            None
        );
        // `return` or `?` inside a macro call.
        assert_eq!(
            body("async fn t(&mut self) -> B { m!(return B); B }", false),
            None
        );
        assert_eq!(
            body(
                "async fn t(&mut self) -> Result<B, E> { m!(f()?); Ok(B) }",
                true
            ),
            None
        );
        // A sync method is not inlined.
        assert_eq!(body("fn t(&mut self) -> B { B }", false), None);
    }
}
