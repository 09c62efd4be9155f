//! `#[derive(Clean)]`: the trust-boundary cleaner written where a type is defined.
//!
//! A value crossing to a caller who may not see everything (a server's client, MCP) goes
//! through `nl2sql_error::Clean::cleaned`. The derived cleaning keeps a field only when the
//! field says so, so a field added later is hidden (its `Default`) until someone decides:
//!
//! - `#[clean(keep)]`: shown as it is;
//! - `#[clean(nested)]`: shown through its own `Clean` (a list or an option of values
//!   that clean themselves too);
//! - no attribute: hidden — replaced by its type's `Default`.
//!
//! Enums clean each variant's fields by the same rules.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{parse_macro_input, Data, DeriveInput, Fields};

/// See the crate's documentation.
#[proc_macro_derive(Clean, attributes(clean))]
pub fn derive_clean(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// What a field's attribute says.
enum Rule {
    Keep,
    Nested,
    Hide,
}

fn rule(field: &syn::Field) -> syn::Result<Rule> {
    let mut found = Rule::Hide;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("clean")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("keep") {
                found = Rule::Keep;
                Ok(())
            } else if meta.path.is_ident("nested") {
                found = Rule::Nested;
                Ok(())
            } else {
                Err(meta.error("expected `keep` or `nested`"))
            }
        })?;
    }
    Ok(found)
}

/// The cleaned value of one field, bound as `binding`.
fn field_value(field: &syn::Field, binding: &syn::Ident) -> syn::Result<Tokens> {
    Ok(match rule(field)? {
        Rule::Keep => quote! { #binding },
        Rule::Nested => quote! { ::nl2sql_error::Clean::cleaned(#binding, boundary) },
        Rule::Hide => quote! { { let _ = #binding; ::core::default::Default::default() } },
    })
}

/// `(pattern binding the fields, expression rebuilding them cleaned)` for one set of fields.
fn rebuild(path: Tokens, fields: &Fields) -> syn::Result<(Tokens, Tokens)> {
    match fields {
        Fields::Named(named) => {
            let mut binds = Vec::new();
            let mut values = Vec::new();
            for f in &named.named {
                let name = f
                    .ident
                    .clone()
                    .ok_or_else(|| syn::Error::new_spanned(f, "a named field without a name"))?;
                let value = field_value(f, &name)?;
                binds.push(quote! { #name });
                values.push(quote! { #name: #value });
            }
            Ok((
                quote! { #path { #(#binds),* } },
                quote! { #path { #(#values),* } },
            ))
        }
        Fields::Unnamed(unnamed) => {
            let mut binds = Vec::new();
            let mut values = Vec::new();
            for (i, f) in unnamed.unnamed.iter().enumerate() {
                let name = format_ident!("field_{i}");
                values.push(field_value(f, &name)?);
                binds.push(quote! { #name });
            }
            Ok((
                quote! { #path ( #(#binds),* ) },
                quote! { #path ( #(#values),* ) },
            ))
        }
        Fields::Unit => Ok((quote! { #path }, quote! { #path })),
    }
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let name = &input.ident;
    let (impl_generics, type_generics, where_clause) = input.generics.split_for_impl();
    let body = match &input.data {
        Data::Struct(s) => {
            let (pattern, value) = rebuild(quote! { #name }, &s.fields)?;
            quote! {
                let #pattern = self;
                #value
            }
        }
        Data::Enum(e) => {
            let mut arms = Vec::new();
            for v in &e.variants {
                let variant = &v.ident;
                let (pattern, value) = rebuild(quote! { #name::#variant }, &v.fields)?;
                arms.push(quote! { #pattern => #value });
            }
            quote! {
                match self {
                    #(#arms),*
                }
            }
        }
        Data::Union(u) => {
            return Err(syn::Error::new_spanned(
                u.union_token,
                "Clean is derived for structs and enums",
            ))
        }
    };
    Ok(quote! {
        impl #impl_generics ::nl2sql_error::Clean for #name #type_generics #where_clause {
            #[allow(unused_variables)]
            fn cleaned(self, boundary: &::nl2sql_error::Boundary) -> Self {
                #body
            }
        }
    })
}
