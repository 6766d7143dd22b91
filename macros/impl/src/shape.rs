//! What a field's Rust type looks like on the wire.

use syn::{Expr, ExprLit, GenericArgument, Lit, PathArguments, Type};

/// A Rust type's wire shape.
#[derive(Clone, Debug)]
pub(crate) enum Shape {
    Bool,
    /// An integer type and its range, as exact decimal text.
    Int {
        min: i128,
        max: i128,
        name: String,
    },
    /// A number; `max`: the type's largest finite magnitude as JSON text (`f32`, `f64`), `None`
    /// for a decimal type with no range of its own.
    Number {
        max: Option<&'static str>,
    },
    Char,
    /// A string of at most `max` bytes (`None`: unbounded).
    Str {
        max: Option<u64>,
    },
    Array {
        item: Box<Shape>,
        min: Option<u64>,
        max: Option<u64>,
    },
    Option(Box<Shape>),
    /// Another derived type: index into the list of nested types.
    Nested(usize),
}

/// Reads a type; nested derived types are pushed to `needs` (their paths, without generic
/// arguments, which are also the paths of the macros the derive defines for them).
pub(crate) fn shape(ty: &Type, needs: &mut Vec<syn::Path>) -> syn::Result<Shape> {
    let unsupported = |why: &str| Err(syn::Error::new_spanned(ty, format!("McpSchema: {why}")));
    match ty {
        Type::Paren(p) => shape(&p.elem, needs),
        Type::Group(g) => shape(&g.elem, needs),
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) if p.path.is_ident("str") => Ok(Shape::Str { max: None }),
            _ => unsupported("only `&str` references are supported"),
        },
        Type::Array(a) => {
            let n = literal_usize(&a.len).ok_or_else(|| {
                syn::Error::new_spanned(
                    &a.len,
                    "McpSchema: array length must be an integer literal",
                )
            })?;
            Ok(Shape::Array {
                item: Box::new(shape(&a.elem, needs)?),
                min: Some(n),
                max: Some(n),
            })
        }
        Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return unsupported("empty path");
            };
            let name = last.ident.to_string();
            let args: Vec<&GenericArgument> = match &last.arguments {
                PathArguments::AngleBracketed(a) => a.args.iter().collect(),
                PathArguments::None => Vec::new(),
                PathArguments::Parenthesized(_) => {
                    return unsupported("function types are not supported")
                }
            };
            let int = |min: i128, max: i128| {
                Ok(Shape::Int {
                    min,
                    max,
                    name: name.clone(),
                })
            };
            match (name.as_str(), args.as_slice()) {
                ("bool", []) => Ok(Shape::Bool),
                ("u8", []) => int(0, u8::MAX.into()),
                ("u16", []) => int(0, u16::MAX.into()),
                ("u32", []) => int(0, u32::MAX.into()),
                ("u64", []) => int(0, u64::MAX.into()),
                ("i8", []) => int(i8::MIN.into(), i8::MAX.into()),
                ("i16", []) => int(i16::MIN.into(), i16::MAX.into()),
                ("i32", []) => int(i32::MIN.into(), i32::MAX.into()),
                ("i64", []) => int(i64::MIN.into(), i64::MAX.into()),
                ("usize" | "isize" | "u128" | "i128", []) => unsupported(
                    "use a fixed-width integer of at most 64 bits (the range must not depend on the target)",
                ),
                // `f32::MAX` and `f64::MAX` in their shortest round-trip text: a larger number
                // is refused by the schema, before the reader.
                ("f32", []) => Ok(Shape::Number {
                    max: Some("3.4028235e38"),
                }),
                ("f64", []) => Ok(Shape::Number {
                    max: Some("1.7976931348623157e308"),
                }),
                // `embedded_mcp::json::FixedPoint<PLACES>`: a decimal written without float code.
                ("FixedPoint", [GenericArgument::Const(_) | GenericArgument::Type(_)]) => {
                    Ok(Shape::Number { max: None })
                }
                ("char", []) => Ok(Shape::Char),
                ("Option", [GenericArgument::Type(t)]) => Ok(Shape::Option(Box::new(shape(t, needs)?))),
                ("String", []) => Ok(Shape::Str { max: None }),
                ("String", [n]) => Ok(Shape::Str {
                    max: Some(capacity(n)?),
                }),
                ("Vec", [GenericArgument::Type(t)]) => Ok(Shape::Array {
                    item: Box::new(shape(t, needs)?),
                    min: None,
                    max: None,
                }),
                ("Vec", [GenericArgument::Type(t), n]) => Ok(Shape::Array {
                    item: Box::new(shape(t, needs)?),
                    min: None,
                    max: Some(capacity(n)?),
                }),
                (_, args) if args.iter().all(|a| matches!(a, GenericArgument::Lifetime(_))) => {
                    let mut path = p.path.clone();
                    for seg in &mut path.segments {
                        seg.arguments = PathArguments::None;
                    }
                    needs.push(path);
                    Ok(Shape::Nested(needs.len() - 1))
                }
                _ => unsupported("generic types other than `Option`, `heapless::Vec` and `heapless::String` are not supported"),
            }
        }
        _ => unsupported("unsupported type"),
    }
}

fn literal_usize(e: &Expr) -> Option<u64> {
    match e {
        Expr::Lit(ExprLit {
            lit: Lit::Int(i), ..
        }) => i.base10_parse().ok(),
        Expr::Block(b) => match b.block.stmts.as_slice() {
            [syn::Stmt::Expr(e, None)] => literal_usize(e),
            _ => None,
        },
        _ => None,
    }
}

fn capacity(arg: &GenericArgument) -> syn::Result<u64> {
    match arg {
        GenericArgument::Const(e) => literal_usize(e),
        _ => None,
    }
    .ok_or_else(|| {
        syn::Error::new_spanned(arg, "McpSchema: the capacity must be an integer literal")
    })
}
