//! How the guard and the importer read Spark SQL: sqlparser's Spark dialect (`DIV`, nested
//! comments, `"…"` a string, backticks for names) with one change, backslash escapes in
//! strings, which Spark's lexer reads and sqlparser's Spark dialect does not. Without it
//! the guard would end a string at `\'` where Spark reads on, and the two would disagree on
//! what is code: `'a\', '…'` hides a call from the guard. sqlparser's documented way to
//! change one rule is a wrapper that hands every other question to the dialect it wraps.

use sqlparser::ast::Expr;
use sqlparser::dialect::{Dialect, SparkSqlDialect};
use sqlparser::parser::{Parser, ParserError};

/// Spark SQL as Spark itself tokenises it.
#[derive(Debug, Default)]
pub struct SparkSql(pub SparkSqlDialect);

impl Dialect for SparkSql {
    /// The parser's own checks for Spark (`dialect_of!`) apply here too.
    fn dialect(&self) -> std::any::TypeId {
        self.0.dialect()
    }

    fn supports_string_literal_backslash_escape(&self) -> bool {
        true
    }

    fn is_delimited_identifier_start(&self, ch: char) -> bool {
        self.0.is_delimited_identifier_start(ch)
    }

    fn supports_string_literal_column_alias(&self, explicit: bool) -> bool {
        self.0.supports_string_literal_column_alias(explicit)
    }

    fn supports_string_literal_table_alias(&self, explicit: bool) -> bool {
        self.0.supports_string_literal_table_alias(explicit)
    }

    fn supports_comparison_in_between_low_bound(&self) -> bool {
        self.0.supports_comparison_in_between_low_bound()
    }

    fn identifier_quote_style(&self, identifier: &str) -> Option<char> {
        self.0.identifier_quote_style(identifier)
    }

    fn is_identifier_start(&self, ch: char) -> bool {
        self.0.is_identifier_start(ch)
    }

    fn is_identifier_part(&self, ch: char) -> bool {
        self.0.is_identifier_part(ch)
    }

    fn supports_filter_during_aggregation(&self) -> bool {
        self.0.supports_filter_during_aggregation()
    }

    fn supports_group_by_expr(&self) -> bool {
        self.0.supports_group_by_expr()
    }

    fn supports_group_by_with_modifier(&self) -> bool {
        self.0.supports_group_by_with_modifier()
    }

    fn supports_lambda_functions(&self) -> bool {
        self.0.supports_lambda_functions()
    }

    fn supports_select_wildcard_except(&self) -> bool {
        self.0.supports_select_wildcard_except()
    }

    fn supports_struct_literal(&self) -> bool {
        self.0.supports_struct_literal()
    }

    fn supports_nested_comments(&self) -> bool {
        self.0.supports_nested_comments()
    }

    fn supports_create_table_using(&self) -> bool {
        self.0.supports_create_table_using()
    }

    fn supports_long_type_as_bigint(&self) -> bool {
        self.0.supports_long_type_as_bigint()
    }

    fn supports_values_as_table_factor(&self) -> bool {
        self.0.supports_values_as_table_factor()
    }

    fn require_interval_qualifier(&self) -> bool {
        self.0.require_interval_qualifier()
    }

    fn supports_bang_not_operator(&self) -> bool {
        self.0.supports_bang_not_operator()
    }

    fn supports_select_item_multi_column_alias(&self) -> bool {
        self.0.supports_select_item_multi_column_alias()
    }

    fn supports_cte_without_as(&self) -> bool {
        self.0.supports_cte_without_as()
    }

    fn supports_map_literal_with_angle_brackets(&self) -> bool {
        self.0.supports_map_literal_with_angle_brackets()
    }

    fn supports_pipe_operator(&self) -> bool {
        self.0.supports_pipe_operator()
    }

    fn parse_infix(
        &self,
        parser: &mut Parser,
        expr: &Expr,
        precedence: u8,
    ) -> Option<Result<Expr, ParserError>> {
        self.0.parse_infix(parser, expr, precedence)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sqlparser::tokenizer::{Token, Tokenizer};

    fn strings(sql: &str) -> Vec<String> {
        Tokenizer::new(&SparkSql::default(), sql)
            .tokenize()
            .unwrap()
            .into_iter()
            .filter_map(|t| match t {
                Token::SingleQuotedString(s) | Token::DoubleQuotedString(s) => Some(s),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn strings_end_where_spark_ends_them() {
        assert_eq!(strings(r"SELECT 'a\', ' , 'c'"), vec!["a', ", "c"]);
        assert_eq!(strings(r#"SELECT "x\"y""#), vec![r#"x"y"#]);
        assert_eq!(strings(r"SELECT 'a\\'"), vec![r"a\"]);
        let parsed = Parser::new(&SparkSql::default())
            .try_with_sql("SELECT 7 DIV 2 FROM t /* a /* nested */ comment */")
            .and_then(|mut p| p.parse_query());
        assert!(parsed.is_ok(), "{parsed:?}");
    }
}
