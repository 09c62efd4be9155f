//! Reading any typed value from JSON text so that a fault says where it is
//! (`select_items[0].expr.args[1]: …`): the plan's reader and the kind-tagged objects'
//! second read both go through it.

use crate::{Error, ErrorKind};
use serde::de::DeserializeOwned;

/// Reads `T` from JSON text, saying where a fault is. serde_json bounds the nesting of the
/// text itself (128 levels), so reading never runs out of stack.
///
/// It reads once without tracking where it is (tracking costs a third of a plan's parse),
/// and only when that fails a second time, to say where.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    serde_json::from_str(text).map_err(|first| {
        let mut reader = serde_json::Deserializer::from_str(text);
        match serde_path_to_error::deserialize::<_, T>(&mut reader) {
            Err(e) => {
                let path = e.path().to_string();
                shape(if path == "." { "" } else { &path }, e.inner())
            }
            // Text after the value: only the whole read (the first) sees it.
            Ok(_) => shape("", &first),
        }
    })
}

fn shape(path: &str, e: &serde_json::Error) -> Error {
    // serde_json ends its messages with the place in the text, which the path says better.
    let message = e.to_string();
    let message = match message.rfind(" at line ") {
        Some(at) if !path.is_empty() => message[..at].to_string(),
        _ => message,
    };
    Error::new(
        ErrorKind::Shape {
            path: path.to_string(),
        },
        message,
    )
}
