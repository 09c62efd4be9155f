//! Objects tagged by `kind`, read and written through serde's own derives.
//!
//! The plan's expressions (and window frame bounds) are JSON objects whose `kind` says which
//! other fields apply, the way the reference engine writes them. serde's internally tagged
//! enums buffer every object before reading it, which made parsing a plan 2.2 times as
//! costly (measured with callgrind); so the types derive serde's plain (externally tagged)
//! form under `#[serde(remote = "Self")]`, and these adapters translate: [`deserialize_tagged`]
//! reads `kind` first and streams the rest of the same object into the derived variant, and
//! [`KindFirst`] writes the variant as one object with `kind` first. What the derive never
//! sees, the adapter decides: the reference's own fields present on a kind that does not use
//! them are ignored when they hold their default (the reference writes every field on every
//! kind), and anything else not of the kind is refused by name.
//!
//! Every writer we know puts `kind` first (the plan's schema, the reference, this crate); an
//! object that puts it later is gathered whole, written again with `kind` first and read
//! from that text, through the same code.

use serde::de::value::BorrowedStrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, IgnoredAny, MapAccess,
    VariantAccess, Visitor,
};
use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

/// What a field that does not belong to an object's kind may hold and still be ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ignored {
    /// Its default: null, false, or an empty list.
    Default,
    /// Any true or false (the reference's `is_aggregate`, which nothing reads).
    AnyBool,
    /// Exactly `"READ"` (the reference's `query_type`: only reads are plans).
    Read,
}

/// The fields an object may carry beyond its own, and what they may hold.
pub(crate) type Tolerance = &'static [(&'static str, Ignored)];

/// A `remote = "Self"` derived enum read from objects tagged by `kind`.
pub(crate) trait Tagged: DeserializeOwned {
    /// The other kinds' fields an object may carry.
    const TOLERANCE: Tolerance;
    /// The derived (externally tagged) reading.
    fn derived<'de, D: Deserializer<'de>>(d: D) -> Result<Self, D::Error>;
}

/// Reads a [`Tagged`] enum from an object tagged by `kind`.
pub(crate) fn deserialize_tagged<'de, T: Tagged, D: Deserializer<'de>>(
    d: D,
) -> Result<T, D::Error> {
    d.deserialize_map(TagFirst(PhantomData))
}

struct TagFirst<T>(PhantomData<T>);

impl<'de, T: Tagged> Visitor<'de> for TagFirst<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object with a `kind`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let Some(first) = map.next_key::<Cow<'de, str>>()? else {
            return Err(de::Error::missing_field("kind"));
        };
        if first != "kind" {
            return late_kind(first.into_owned(), map);
        }
        let kind = map.next_value::<Cow<'de, str>>()?;
        T::derived(Open {
            kind,
            map,
            tolerance: T::TOLERANCE,
        })
    }
}

/// An object whose `kind` came after other fields: gathered whole, then read again from its
/// text with `kind` first.
fn late_kind<'de, T: Tagged, A: MapAccess<'de>>(first: String, mut map: A) -> Result<T, A::Error> {
    let mut object = Map::new();
    let value = map.next_value::<Value>()?;
    object.insert(first, value);
    while let Some((key, value)) = map.next_entry::<String, Value>()? {
        object.insert(key, value);
    }
    if !object.contains_key("kind") {
        return Err(de::Error::missing_field("kind"));
    }
    let mut text = String::new();
    write_kind_first(&Value::Object(object), &mut text);
    crate::read::from_str(&text).map_err(de::Error::custom)
}

/// `value` as JSON text, every object's `kind` first.
fn write_kind_first(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            out.push('{');
            let entries = map
                .get_key_value("kind")
                .into_iter()
                .chain(map.iter().filter(|(k, _)| *k != "kind"));
            for (i, (key, item)) in entries.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(key.clone()).to_string());
                out.push(':');
                write_kind_first(item, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_kind_first(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// An object whose `kind` has been read, as the derived enum reads it.
struct Open<'de, A> {
    kind: Cow<'de, str>,
    map: A,
    tolerance: Tolerance,
}

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Open<'de, A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, A::Error> {
        Err(de::Error::custom("a tagged object is read as an enum"))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        let variant = variants
            .iter()
            .find(|v| **v == self.kind)
            .copied()
            .ok_or_else(|| de::Error::unknown_variant(&self.kind, variants))?;
        visitor.visit_enum(Access {
            variant,
            map: self.map,
            tolerance: self.tolerance,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
        ignored_any
    }
}

/// A deserializer for a `remote = "Self"` derived struct whose object may carry fields of
/// the reference's that the struct does not have ([`Tolerance`]).
pub(crate) struct Lenient<D> {
    pub inner: D,
    pub tolerance: Tolerance,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Lenient<D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(Fields {
            visitor,
            fields,
            tolerance: self.tolerance,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// Reads a struct's object through [`Filter`].
struct Fields<V> {
    visitor: V,
    fields: &'static [&'static str],
    tolerance: Tolerance,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Fields<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(Filter {
            map,
            fields: self.fields,
            kind: None,
            tolerance: self.tolerance,
        })
    }
}

/// The rest of a tagged object, as the derived variant reads it.
struct Access<A> {
    variant: &'static str,
    map: A,
    tolerance: Tolerance,
}

impl<A> Access<A> {
    fn filter(self, fields: &'static [&'static str]) -> Filter<A> {
        Filter {
            map: self.map,
            fields,
            kind: Some(self.variant),
            tolerance: self.tolerance,
        }
    }
}

impl<'de, A: MapAccess<'de>> EnumAccess<'de> for Access<A> {
    type Error = A::Error;
    type Variant = Self;

    fn variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<(S::Value, Self), A::Error> {
        let value = seed.deserialize(BorrowedStrDeserializer::new(self.variant))?;
        Ok((value, self))
    }
}

impl<'de, A: MapAccess<'de>> VariantAccess<'de> for Access<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        let mut rest = self.filter(&[]);
        while rest.next_key::<IgnoredAny>()?.is_some() {
            rest.next_value::<IgnoredAny>()?;
        }
        Ok(())
    }

    fn newtype_variant_seed<S: DeserializeSeed<'de>>(self, seed: S) -> Result<S::Value, A::Error> {
        seed.deserialize(Rest(self))
    }

    fn tuple_variant<V: Visitor<'de>>(
        self,
        _len: usize,
        _visitor: V,
    ) -> Result<V::Value, A::Error> {
        Err(de::Error::custom("a tagged object has named fields"))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.filter(fields))
    }
}

/// A newtype variant's struct, read from the rest of its tagged object.
struct Rest<A>(Access<A>);

impl<'de, A: MapAccess<'de>> Deserializer<'de> for Rest<A> {
    type Error = A::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.0.filter(&[]))
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        visitor.visit_map(self.0.filter(fields))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier
        ignored_any
    }
}

/// An object's entries with the fields of another kind taken out (when they hold what
/// [`Ignored`] allows) or refused by name.
struct Filter<A> {
    map: A,
    fields: &'static [&'static str],
    kind: Option<&'static str>,
    tolerance: Tolerance,
}

impl<A> Filter<A> {
    fn not_ours<E: de::Error>(&self, key: &str) -> E {
        match self.kind {
            Some(kind) => E::custom(format!(
                "`{key}` is not a field of kind \"{kind}\" (its fields: {})",
                self.fields.join(", ")
            )),
            None => E::unknown_field(key, self.fields),
        }
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Filter<A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        loop {
            let class = self.map.next_key_seed(Classify {
                fields: self.fields,
                tolerance: self.tolerance,
            })?;
            match class {
                None => return Ok(None),
                Some(Key::Field(name)) => {
                    return seed
                        .deserialize(BorrowedStrDeserializer::new(name))
                        .map(Some)
                }
                Some(Key::Ignored(name, ignored)) => {
                    if !self.map.next_value_seed(Holds(ignored))? {
                        return Err(match (ignored, self.kind) {
                            (Ignored::Read, _) => de::Error::custom(
                                "only read-only plans exist: `query_type` is \"READ\" or absent",
                            ),
                            (_, Some(kind)) => de::Error::custom(format!(
                                "`{name}` does not apply to kind \"{kind}\""
                            )),
                            (_, None) => self.not_ours(name),
                        });
                    }
                }
                Some(Key::Unknown(name)) => return Err(self.not_ours(&name)),
            }
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        self.map.next_value_seed(seed)
    }
}

/// A key, sorted: one of the object's fields, a field another kind uses, or unknown.
enum Key {
    Field(&'static str),
    Ignored(&'static str, Ignored),
    Unknown(String),
}

struct Classify {
    fields: &'static [&'static str],
    tolerance: Tolerance,
}

impl<'de> DeserializeSeed<'de> for Classify {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for Classify {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a field name")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
        if let Some(field) = self.fields.iter().find(|f| **f == key) {
            return Ok(Key::Field(field));
        }
        Ok(match self.tolerance.iter().find(|(name, _)| *name == key) {
            Some((name, ignored)) => Key::Ignored(name, *ignored),
            None => Key::Unknown(key.to_string()),
        })
    }
}

/// Whether a value is one [`Ignored`] allows.
struct Holds(Ignored);

impl<'de> DeserializeSeed<'de> for Holds {
    type Value = bool;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Holds {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
        Ok(self.0 == Ignored::Default)
    }

    fn visit_none<E: de::Error>(self) -> Result<bool, E> {
        Ok(self.0 == Ignored::Default)
    }

    fn visit_bool<E: de::Error>(self, b: bool) -> Result<bool, E> {
        Ok(match self.0 {
            Ignored::Default => !b,
            Ignored::AnyBool => true,
            Ignored::Read => false,
        })
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<bool, E> {
        Ok(self.0 == Ignored::Read && s == "READ")
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<bool, E> {
        Ok(false)
    }

    fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<bool, A::Error> {
        let empty = seq.next_element::<IgnoredAny>()?.is_none();
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(empty && self.0 == Ignored::Default)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<bool, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(false)
    }
}

/// A serializer for one `remote = "Self"` derived enum: each variant is written as one
/// object, `kind` first.
pub(crate) struct KindFirst<S>(pub S);

/// Every other shape is unsupported: the adapters serve derived enums of named variants.
fn unsupported<E: ser::Error>() -> E {
    E::custom("a tagged object is written from a variant with named fields")
}

macro_rules! refuse {
    ($($method:ident($($arg:ty),*) -> $ret:ty;)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<$ret, Self::Error> {
            Err(unsupported())
        })*
    };
}

impl<S: Serializer> Serializer for KindFirst<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = Impossible<S::Ok, S::Error>;
    type SerializeTuple = Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = Impossible<S::Ok, S::Error>;
    type SerializeMap = Impossible<S::Ok, S::Error>;
    type SerializeStruct = Impossible<S::Ok, S::Error>;
    type SerializeStructVariant = Entries<S::SerializeMap>;

    refuse! {
        serialize_bool(bool) -> S::Ok;
        serialize_i8(i8) -> S::Ok;
        serialize_i16(i16) -> S::Ok;
        serialize_i32(i32) -> S::Ok;
        serialize_i64(i64) -> S::Ok;
        serialize_u8(u8) -> S::Ok;
        serialize_u16(u16) -> S::Ok;
        serialize_u32(u32) -> S::Ok;
        serialize_u64(u64) -> S::Ok;
        serialize_f32(f32) -> S::Ok;
        serialize_f64(f64) -> S::Ok;
        serialize_char(char) -> S::Ok;
        serialize_str(&str) -> S::Ok;
        serialize_bytes(&[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(&'static str) -> S::Ok;
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct(&'static str, usize) -> Self::SerializeStruct;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<S::Ok, S::Error> {
        Err(unsupported())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(unsupported())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<S::Ok, S::Error> {
        let mut map = self.0.serialize_map(Some(1))?;
        map.serialize_entry("kind", variant)?;
        map.end()
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        let mut map = self.0.serialize_map(None)?;
        map.serialize_entry("kind", variant)?;
        value.serialize(Flatten(&mut map))?;
        map.end()
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Entries<S::SerializeMap>, S::Error> {
        let mut map = self.0.serialize_map(Some(len + 1))?;
        map.serialize_entry("kind", variant)?;
        Ok(Entries(map))
    }
}

/// A variant's fields, as entries of its object.
pub(crate) struct Entries<M>(M);

impl<M: SerializeMap> ser::SerializeStructVariant for Entries<M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.0.end()
    }
}

/// A newtype variant's struct, written into its variant's object.
struct Flatten<'a, M>(&'a mut M);

impl<'a, M: SerializeMap> Serializer for Flatten<'a, M> {
    type Ok = ();
    type Error = M::Error;
    type SerializeSeq = Impossible<(), M::Error>;
    type SerializeTuple = Impossible<(), M::Error>;
    type SerializeTupleStruct = Impossible<(), M::Error>;
    type SerializeTupleVariant = Impossible<(), M::Error>;
    type SerializeMap = Impossible<(), M::Error>;
    type SerializeStruct = Self;
    type SerializeStructVariant = Impossible<(), M::Error>;

    refuse! {
        serialize_bool(bool) -> ();
        serialize_i8(i8) -> ();
        serialize_i16(i16) -> ();
        serialize_i32(i32) -> ();
        serialize_i64(i64) -> ();
        serialize_u8(u8) -> ();
        serialize_u16(u16) -> ();
        serialize_u32(u32) -> ();
        serialize_u64(u64) -> ();
        serialize_f32(f32) -> ();
        serialize_f64(f64) -> ();
        serialize_char(char) -> ();
        serialize_str(&str) -> ();
        serialize_bytes(&[u8]) -> ();
        serialize_none() -> ();
        serialize_unit() -> ();
        serialize_unit_struct(&'static str) -> ();
        serialize_unit_variant(&'static str, u32, &'static str) -> ();
        serialize_seq(Option<usize>) -> Self::SerializeSeq;
        serialize_tuple(usize) -> Self::SerializeTuple;
        serialize_tuple_struct(&'static str, usize) -> Self::SerializeTupleStruct;
        serialize_tuple_variant(&'static str, u32, &'static str, usize) -> Self::SerializeTupleVariant;
        serialize_map(Option<usize>) -> Self::SerializeMap;
        serialize_struct_variant(&'static str, u32, &'static str, usize) -> Self::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<(), M::Error> {
        Err(unsupported())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(unsupported())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), M::Error> {
        Err(unsupported())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self, M::Error> {
        Ok(self)
    }
}

impl<'a, M: SerializeMap> SerializeStruct for Flatten<'a, M> {
    type Ok = ();
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), M::Error> {
        self.0.serialize_entry(key, value)
    }

    fn end(self) -> Result<(), M::Error> {
        Ok(())
    }
}
