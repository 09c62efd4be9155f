//! SQLite specifics shared by every SQLite adapter (sql.js and rusqlite): quoting, and
//! sorting SQLite's error messages into the datasource error kinds (its catalogue is read
//! in [`crate::introspect`]).

mod errors;

pub use errors::classify_error;

/// Quotes an identifier for SQLite: wrapped in double quotes, inner quotes doubled.
pub fn quote_ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Quotes a string literal for SQLite: wrapped in single quotes, inner quotes doubled.
pub fn quote_literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_doubles_the_quote_character() {
        assert_eq!(quote_ident("a\"b"), "\"a\"\"b\"");
        assert_eq!(quote_literal("it's"), "'it''s'");
    }
}
