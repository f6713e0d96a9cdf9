//! Lenient JSON leaves: a field of the wrong type reads as absent, never as
//! an error, and a string borrows from the input when it has no escapes.
//!
//! One visitor does it all: any JSON value reads once into a [`Scalar`]
//! (`deserialize_any`), and each leaf type keeps what it can use of it.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One JSON value as the leaves see it: a scalar, an object read as `O`
/// (skipped unless asked for), or nothing usable (null, an array).
pub(super) enum Scalar<'a, O = IgnoredAny> {
    Str(Cow<'a, str>),
    Int(i64),
    UInt(u64),
    Float(f64),
    Bool(bool),
    Object(O),
    Other,
}

impl<'de: 'a, 'a, O: Deserialize<'de>> Deserialize<'de> for Scalar<'a, O> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor(PhantomData))
    }
}

struct ScalarVisitor<'a, O>(PhantomData<(&'a (), O)>);

impl<'de: 'a, 'a, O: Deserialize<'de>> Visitor<'de> for ScalarVisitor<'a, O> {
    type Value = Scalar<'a, O>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_string())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::Int(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::UInt(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::Float(v))
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Other)
    }
    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        O::deserialize(de::value::MapAccessDeserializer::new(map)).map(Scalar::Object)
    }
}

/// A string field; numbers are kept as their text, other types read as absent.
#[derive(Default)]
pub(super) struct Text<'a>(pub Option<Cow<'a, str>>);

impl<'a> std::ops::Deref for Text<'a> {
    type Target = Option<Cow<'a, str>>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Text(match <Scalar<'a>>::deserialize(d)? {
            Scalar::Str(s) => Some(s),
            Scalar::Int(n) => Some(Cow::Owned(n.to_string())),
            Scalar::UInt(n) => Some(Cow::Owned(n.to_string())),
            _ => None,
        }))
    }
}

/// An integer field (also accepts integral floats and numeric strings).
#[derive(Default)]
pub(super) struct Int(pub Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Int(match <Scalar<'de>>::deserialize(d)? {
            Scalar::Int(n) => Some(n),
            Scalar::UInt(n) => i64::try_from(n).ok(),
            Scalar::Float(v) => {
                let ok = v.is_finite() && v.fract() == 0.0 && v.abs() < 9.0e15;
                // The range check above makes the cast exact.
                ok.then_some(v as i64)
            }
            Scalar::Str(s) => s.trim().parse().ok(),
            _ => None,
        }))
    }
}

/// A boolean field.
#[derive(Default)]
pub(super) struct Flag(pub Option<bool>);

impl Flag {
    pub(super) fn unwrap_or(&self, d: bool) -> bool {
        self.0.unwrap_or(d)
    }
}

impl<'de> Deserialize<'de> for Flag {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Flag(match <Scalar<'de>>::deserialize(d)? {
            Scalar::Bool(b) => Some(b),
            _ => None,
        }))
    }
}

/// An object whose wrong-typed value reads as its default.
#[derive(Default)]
pub(super) struct Lenient<T>(pub T);

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Lenient(match Scalar::<'de, T>::deserialize(d)? {
            Scalar::Object(t) => t,
            _ => T::default(),
        }))
    }
}

/// A field that is a string in some shapes and an object in others
/// (`tool_response`: Claude's object or Codex's plain string; opencode's
/// `output`: our plugin's object or the spread hook's plain string).
pub(super) enum StringOr<'a, T> {
    Text(Cow<'a, str>),
    Object(T),
    Other,
}

impl<'de: 'a, 'a, T: Deserialize<'de>> Deserialize<'de> for StringOr<'a, T> {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Scalar::<'a, T>::deserialize(d)? {
            Scalar::Str(s) => StringOr::Text(s),
            Scalar::Object(t) => StringOr::Object(t),
            _ => StringOr::Other,
        })
    }
}

/// For `deserialize_with`: the field is there, whatever its value.
pub(super) fn present<'de, D: de::Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    IgnoredAny::deserialize(d).map(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default, Deserialize)]
    struct Leaves<'a> {
        #[serde(borrow, default)]
        text: Text<'a>,
        #[serde(default)]
        int: Int,
        #[serde(default)]
        flag: Flag,
        #[serde(borrow, default)]
        either: Option<StringOr<'a, Inner<'a>>>,
        #[serde(borrow, default)]
        object: Option<Lenient<Inner<'a>>>,
    }

    #[derive(Default, Deserialize)]
    struct Inner<'a> {
        #[serde(borrow, default)]
        text: Text<'a>,
    }

    fn leaves(json: &str) -> Leaves<'_> {
        serde_json::from_str(json).expect("lenient leaves never fail on valid JSON")
    }

    #[test]
    fn each_leaf_keeps_what_it_can_use_and_drops_the_rest() {
        let values = [
            r#""s""#,
            r#""a\nb""#,
            "7",
            "-7",
            "18446744073709551615",
            "2.0",
            "2.5",
            "1e300",
            "true",
            "null",
            "[1,[2]]",
            r#"{"text":"in"}"#,
            r#"" 42 ""#,
        ];
        let mut got = Vec::new();
        for v in values {
            let json = format!(r#"{{"text":{v},"int":{v},"flag":{v},"either":{v},"object":{v}}}"#);
            let l = leaves(&json);
            let either = match l.either {
                Some(StringOr::Text(t)) => format!("text {t}"),
                Some(StringOr::Object(o)) => format!("object {:?}", o.text.0),
                Some(StringOr::Other) => "other".into(),
                None => "none".into(),
            };
            let object = l.object.map(|o| o.0.text.0);
            got.push(format!(
                "{v} -> {:?} {:?} {:?} {either} {object:?}",
                l.text.0, l.int.0, l.flag.0
            ));
        }
        let want = [
            r#""s" -> Some("s") None None text s Some(None)"#,
            r#""a\nb" -> Some("a\nb") None None text a
b Some(None)"#,
            r#"7 -> Some("7") Some(7) None other Some(None)"#,
            r#"-7 -> Some("-7") Some(-7) None other Some(None)"#,
            r#"18446744073709551615 -> Some("18446744073709551615") None None other Some(None)"#,
            r#"2.0 -> None Some(2) None other Some(None)"#,
            r#"2.5 -> None None None other Some(None)"#,
            r#"1e300 -> None None None other Some(None)"#,
            r#"true -> None None Some(true) other Some(None)"#,
            r#"null -> None None None none None"#,
            r#"[1,[2]] -> None None None other Some(None)"#,
            r#"{"text":"in"} -> None None None object Some("in") Some(Some("in"))"#,
            r#"" 42 " -> Some(" 42 ") Some(42) None text  42  Some(None)"#,
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn strings_without_escapes_are_borrowed() {
        let l = leaves(r#"{"text":"plain","either":"plain too"}"#);
        assert!(matches!(l.text.0, Some(Cow::Borrowed("plain"))));
        assert!(matches!(
            l.either,
            Some(StringOr::Text(Cow::Borrowed("plain too")))
        ));
        let l = leaves(r#"{"text":"esc\"aped"}"#);
        assert!(matches!(l.text.0, Some(Cow::Owned(_))));
    }
}
