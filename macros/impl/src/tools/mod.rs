//! `#[tools]` on an `impl` block: its `#[tool]` methods become typed tools. Emitted beside the
//! block (with the `#[tool]` attributes removed): the `Toolbox` impl (static tool definitions
//! and the derived programs) and the handler dispatching `tools/call` to the methods, a
//! `Handler` when every tool is sync and takes no `Context`, an `AsyncHandler` otherwise.

mod inline;
mod options;
mod signature;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{GenericArgument, ImplItem, ItemImpl, Lifetime, LitStr, PathArguments, Type};

use inline::Inlined;
use options::Options;
use signature::{Param, ToolSig};

/// One typed tool, read from its method.
struct ToolDef {
    method: syn::Ident,
    name: LitStr,
    description: Option<String>,
    options: Options,
    sig: ToolSig,
    /// An async tool's body, to be written into the dispatcher's future.
    inlined: Option<Inlined>,
}

/// The same rule as the core's `is_valid_tool_name`: `^[A-Za-z0-9_.-]{1,128}$`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 128
        && name
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
}

/// `ty` with every lifetime made `'static` (a schema does not depend on lifetimes, and the
/// definitions are `const` items, where `'_` is not allowed).
fn with_static_lifetimes(ty: &Type) -> Type {
    let mut ty = ty.clone();
    make_static(&mut ty);
    ty
}

fn make_static(ty: &mut Type) {
    let stat = || Lifetime::new("'static", Span::call_site());
    match ty {
        Type::Reference(r) => {
            r.lifetime = Some(stat());
            make_static(&mut r.elem);
        }
        Type::Path(p) => {
            for seg in &mut p.path.segments {
                if let PathArguments::AngleBracketed(a) = &mut seg.arguments {
                    for arg in &mut a.args {
                        match arg {
                            GenericArgument::Lifetime(l) => *l = stat(),
                            GenericArgument::Type(t) => make_static(t),
                            _ => {}
                        }
                    }
                }
            }
        }
        Type::Array(a) => make_static(&mut a.elem),
        Type::Slice(s) => make_static(&mut s.elem),
        Type::Paren(p) => make_static(&mut p.elem),
        Type::Group(g) => make_static(&mut g.elem),
        Type::Tuple(t) => t.elems.iter_mut().for_each(make_static),
        _ => {}
    }
}

/// The embedded-mcp path: `#[tools(crate = "path")]`, `::embedded_mcp` by default.
fn core_path(attr: TokenStream) -> syn::Result<TokenStream> {
    let mut core = quote!(::embedded_mcp);
    if attr.is_empty() {
        return Ok(core);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("crate") {
            let path: LitStr = meta.value()?.parse()?;
            let path: syn::Path = path.parse()?;
            core = quote!(#path);
            Ok(())
        } else {
            Err(meta.error("unknown option: expected `crate = \"path\"`"))
        }
    });
    syn::parse::Parser::parse2(parser, attr)?;
    Ok(core)
}

/// Reads the `#[tool]` methods and removes their attributes from the block.
fn collect(block: &mut ItemImpl) -> syn::Result<Vec<ToolDef>> {
    let mut tools: Vec<ToolDef> = Vec::new();
    for item in &mut block.items {
        let ImplItem::Fn(f) = item else { continue };
        let Some(pos) = f.attrs.iter().position(|a| a.path().is_ident("tool")) else {
            continue;
        };
        let attr = f.attrs.remove(pos);
        if let Some(again) = f.attrs.iter().find(|a| a.path().is_ident("tool")) {
            return Err(syn::Error::new(again.span(), "`#[tool]` given twice"));
        }
        let options = Options::parse(&attr)?;
        let sig = signature::parse(&f.sig)?;
        let inlined = inline::inline(f, sig.fallible);
        if inlined.is_some() {
            // The dispatcher runs the body itself; the method stays for direct calls.
            f.attrs.push(syn::parse_quote!(#[allow(dead_code)]));
        }
        let name = options
            .name
            .clone()
            .unwrap_or_else(|| LitStr::new(&f.sig.ident.to_string(), f.sig.ident.span()));
        if !valid_name(&name.value()) {
            return Err(syn::Error::new(
                name.span(),
                "a tool name must match ^[A-Za-z0-9_.-]{1,128}$",
            ));
        }
        if tools.iter().any(|t| t.name.value() == name.value()) {
            return Err(syn::Error::new(
                name.span(),
                format!("tool name `{}` is used twice", name.value()),
            ));
        }
        let description = match &options.description {
            Some(d) => Some(d.value()),
            None => crate::attrs::docs(&f.attrs),
        };
        tools.push(ToolDef {
            method: f.sig.ident.clone(),
            name,
            description,
            options,
            sig,
            inlined,
        });
    }
    if tools.is_empty() {
        return Err(syn::Error::new(
            block.self_ty.span(),
            "`#[tools]` found no `#[tool]` method in this impl block",
        ));
    }
    Ok(tools)
}

/// The `Tool` definition: the derived schemas and the declared options.
fn definition(t: &ToolDef, core: &TokenStream) -> TokenStream {
    let name = &t.name;
    let out = with_static_lifetimes(&t.sig.output);
    let out_span = t.sig.output.span();
    let mut def = match t.sig.arguments() {
        Some(args) => {
            let args_s = with_static_lifetimes(args);
            quote_spanned!(args.span()=> #core::server::typed::tool::<#args_s, #out>(#name))
        }
        None => {
            quote_spanned!(out_span=> #core::server::typed::tool_no_arguments::<#out>(#name))
        }
    };
    let o = &t.options;
    if let Some(title) = &o.title {
        def = quote!(#def.title(#title));
    }
    if let Some(d) = &t.description {
        def = quote!(#def.description(#d));
    }
    if o.annotations.is_some() || !o.hints.is_empty() {
        let mut ann = match &o.annotations {
            Some(e) => quote!((#e)),
            None => quote!(#core::server::Annotations::NONE),
        };
        for (setter, value) in &o.hints {
            ann = quote!(#ann.#setter(#value));
        }
        def = quote!(#def.annotations(#ann));
    }
    if let Some(icons) = &o.icons {
        def = quote!(#def.icons(#icons));
    }
    if let Some(meta) = &o.meta {
        def = quote!(#def.meta(#meta));
    }
    if let Some(task) = &o.task {
        let support = match task.value().as_str() {
            "required" => quote!(#core::server::TaskSupport::Required),
            _ => quote!(#core::server::TaskSupport::Optional),
        };
        def = quote!(#def.task_support(#support));
    }
    def
}

/// The derived programs of a tool.
fn programs(t: &ToolDef, core: &TokenStream) -> TokenStream {
    let out = with_static_lifetimes(&t.sig.output);
    match t.sig.arguments() {
        Some(args) => {
            let args_s = with_static_lifetimes(args);
            quote_spanned!(args.span()=> #core::server::typed::programs::<#args_s, #out>())
        }
        None => quote_spanned!(t.sig.output.span()=>
            #core::server::typed::programs_no_arguments::<#out>()),
    }
}

/// The dispatch arm of a tool: parse, call, write. `exit` ends the dispatch early with a value
/// (`return` in a `Handler`, a `break` out of the labelled dispatch in an `AsyncHandler`).
fn arm(t: &ToolDef, core: &TokenStream, exit: &TokenStream) -> TokenStream {
    let name = &t.name;
    let method = &t.method;
    let parse = t.sig.arguments().map(|args| {
        let scratch = t.options.scratch.as_ref().map_or_else(
            || quote!(#core::server::typed::DEFAULT_SCRATCH),
            |s| quote!(#s),
        );
        quote! {
            let mut __scratch = [0u8; #scratch];
            #[allow(unused_imports)]
            use #core::server::typed::args::{ByFromJson as _, BySerde as _};
            let __args: #args =
                match (&&#core::server::typed::args::Args::<#args>::NEW).arguments(__call, &mut __scratch) {
                    ::core::result::Result::Ok(__args) => __args,
                    ::core::result::Result::Err(__e) => #exit (::core::result::Result::Err(__e.into())),
                };
        }
    });
    // `confirm`: nothing of the tool runs before the gate lets the call through.
    let gate = t.options.confirm.as_ref().map(|confirm| {
        let asked = if t.sig.arguments().is_some() {
            quote!(#confirm(self, &__args))
        } else {
            quote!(#confirm(self))
        };
        quote! {
            let __out = match #core::server::approval::gate(#asked, __call, __out) {
                #core::server::approval::Confirmed::Approved(__out) => __out,
                #core::server::approval::Confirmed::Answered(__done) => {
                    #exit (::core::result::Result::Ok(__done))
                }
            };
        }
    });
    let params = t.sig.params.iter().map(|p| match p {
        Param::Arguments(_) => quote!(__args),
        Param::Context => quote!(&mut *__cx),
    });
    let callee = if t.sig.has_receiver {
        quote!(self.#method)
    } else {
        quote!(Self::#method)
    };
    let awaited = t.sig.is_async.then(|| quote!(.await));
    let mut values = t.sig.params.iter().map(|p| match p {
        Param::Arguments(_) => quote!(__args),
        Param::Context => quote!(&mut *__cx),
    });
    let call = match &t.inlined {
        Some(Inlined {
            params,
            block,
            output,
        }) => {
            let label = inline::label();
            let bindings = params.iter().map(|(pat, ty)| {
                let value = values.next();
                quote!(let #pat: #ty = #value;)
            });
            quote!(#label: { #(#bindings)* let __value: #output = #block; __value })
        }
        None => quote!(#callee(#(#params),*) #awaited),
    };
    // The output through its derived `ToJson` (serde's `Serialize` for a type without one).
    let json = |v: TokenStream| {
        quote! {{
            #[allow(unused_imports)]
            use #core::json::via::{ByNothing as _, BySerde as _, ByToJson as _};
            __out.structured_json((&&&#core::json::via::Via(#core::json::Serde(&#v))).pick())
        }}
    };
    let write = if t.sig.fallible {
        let ok = json(quote!(__value));
        quote! {
            match __outcome {
                ::core::result::Result::Ok(__value) => #ok,
                ::core::result::Result::Err(__e) => __out.failure(&__e),
            }
        }
    } else {
        json(quote!(__outcome))
    };
    quote! {
        #name => {
            #parse
            #gate
            let __outcome = #call;
            ::core::result::Result::Ok(#write)
        }
    }
}

/// The expansion; on an error, the block without its `#[tool]` attributes and the error (so
/// that the error is the only one reported).
pub(crate) fn tools(attr: TokenStream, item: TokenStream) -> TokenStream {
    let mut block: ItemImpl = match syn::parse2(item) {
        Ok(b) => b,
        Err(e) => return e.into_compile_error(),
    };
    match expand(attr, &mut block) {
        Ok(ts) => ts,
        Err(e) => {
            strip(&mut block);
            let e = e.into_compile_error();
            quote!(#block #e)
        }
    }
}

/// Removes every `#[tool]` attribute of the block.
fn strip(block: &mut ItemImpl) {
    for item in &mut block.items {
        if let ImplItem::Fn(f) = item {
            f.attrs.retain(|a| !a.path().is_ident("tool"));
        }
    }
}

fn expand(attr: TokenStream, block: &mut ItemImpl) -> syn::Result<TokenStream> {
    let core = core_path(attr)?;
    if let Some((_, path, _)) = &block.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "`#[tools]` goes on an inherent impl block (`impl Board { … }`), not a trait impl",
        ));
    }
    let tools = collect(block)?;
    let n = tools.len();
    let (impl_g, _, where_c) = block.generics.split_for_impl();
    let self_ty = &block.self_ty;
    let defs = tools.iter().map(|t| definition(t, &core));
    let progs = tools.iter().map(|t| programs(t, &core));
    let is_async = tools
        .iter()
        .any(|t| t.sig.is_async || t.sig.takes_context());
    let s = quote!(#core::server);
    let handler = if is_async {
        let dispatch = syn::Lifetime::new("'__embedded_mcp_dispatch", Span::call_site());
        let exit = quote!(break #dispatch);
        let arms = tools.iter().map(|t| arm(t, &core, &exit));
        // The future never returns: it hands its outcome to the context and parks, so it has
        // no "resumed after completion" panic (`Server::serve_async_into` takes the outcome).
        quote! {
            #[allow(clippy::needless_borrow)]
            impl #impl_g #s::AsyncHandler for #self_ty #where_c {
                type Error = #s::ToolError;
                #[allow(clippy::manual_async_fn, unreachable_code, unused_labels)]
                fn call(
                    &mut self,
                    __call: &#s::Call<'_>,
                    __out: #s::Output<'_>,
                    __cx: &mut #s::Context<'_>,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<#s::Done, #s::ToolError>,
                > {
                    async move {
                        let __done: ::core::result::Result<#s::Done, #s::ToolError> = #dispatch: {
                            match __call.name() {
                                #(#arms)*
                                _ => ::core::result::Result::Err(#s::ToolError::NotImplemented),
                            }
                        };
                        __cx.__hand_over(__done);
                        loop {
                            ::core::future::pending::<()>().await;
                        }
                    }
                }
            }
        }
    } else {
        let arms = tools.iter().map(|t| arm(t, &core, &quote!(return)));
        quote! {
            #[allow(clippy::needless_borrow)]
            impl #impl_g #s::Handler for #self_ty #where_c {
                type Error = #s::ToolError;
                fn call(
                    &mut self,
                    __call: &#s::Call<'_>,
                    __out: #s::Output<'_>,
                ) -> ::core::result::Result<#s::Done, #s::ToolError> {
                    match __call.name() {
                        #(#arms)*
                        _ => ::core::result::Result::Err(#s::ToolError::NotImplemented),
                    }
                }
            }
        }
    };
    Ok(quote! {
        #block
        impl #impl_g #self_ty #where_c {
            /// The number of tools: `Self` is a `Toolbox<{ Self::TOOL_COUNT }>` (written by
            /// `#[tools]`).
            pub const TOOL_COUNT: usize = #n;
        }
        impl #impl_g #s::Toolbox<#n> for #self_ty #where_c {
            const TOOLS: &'static [#s::Tool; #n] = &[#(#defs),*];
            const PROGRAMS: [#s::ToolSchemas<'static>; #n] = [#(#progs),*];
        }
        #handler
    })
}
