//! Name resolution against the schema: tables, CTEs, aliases and columns, scope by scope
//! (a subquery sees its own tables first, then the enclosing plans'), and the checks that
//! need resolved names: joins and GROUP BY coherence.

use super::similar::closest;
use super::{DeclaredKey, Findings, JoinRule};
use crate::schema::{SchemaSnapshot, Table, TypeCategory};
use crate::walk::{self, has_aggregate, is_aggregate_name, Clause};
use crate::{CastType, Expr, Literal, Plan};
use nl2sql_error::ErrorCode;

/// A result column of a plan: what a CTE offers the plans that read it.
#[derive(Debug, Clone)]
pub struct OutCol {
    name: Option<String>,
    category: Option<TypeCategory>,
}

#[derive(Debug, Clone)]
enum Source<'a> {
    Table(&'a Table),
    Derived(String, Vec<OutCol>),
    Unknown,
}

impl Source<'_> {
    fn label(&self) -> &str {
        match self {
            Source::Table(t) => &t.name,
            Source::Derived(name, _) => name,
            Source::Unknown => "?",
        }
    }

    fn column_names(&self) -> Vec<&str> {
        match self {
            Source::Table(t) => t.columns.iter().map(|c| c.name.as_str()).collect(),
            Source::Derived(_, cols) => cols.iter().filter_map(|c| c.name.as_deref()).collect(),
            Source::Unknown => vec![],
        }
    }

    /// `Some(category)` when the column exists (the category itself may be unknown).
    fn column(&self, name: &str) -> Option<Option<TypeCategory>> {
        match self {
            Source::Table(t) => t.column(name).map(|c| Some(c.category)),
            Source::Derived(_, cols) => cols
                .iter()
                .find(|c| {
                    c.name
                        .as_deref()
                        .is_some_and(|n| n.eq_ignore_ascii_case(name))
                })
                .map(|c| c.category),
            Source::Unknown => Some(None),
        }
    }
}

#[derive(Debug, Clone)]
struct Bound<'a> {
    alias: &'a str,
    source: Source<'a>,
}

#[derive(Debug, Clone)]
struct Level<'a> {
    plan: &'a Plan,
    tables: Vec<Bound<'a>>,
}

impl<'a> Level<'a> {
    fn find(&self, alias: &str) -> Option<&Bound<'a>> {
        self.tables
            .iter()
            .find(|b| b.alias.eq_ignore_ascii_case(alias))
    }

    fn describe(&self) -> String {
        self.tables
            .iter()
            .map(|b| format!("{} ({})", b.alias, b.source.label()))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

type Ctes = Vec<(String, Vec<OutCol>)>;

/// Resolves every name in `plan`, reporting what does not resolve. `readable` says which
/// tables the caller may read: messages list and suggest only those, so a refusal never
/// comes with the refused table's columns.
pub fn resolve(
    plan: &Plan,
    schema: &SchemaSnapshot,
    joins: JoinRule,
    readable: &dyn Fn(&str) -> bool,
    out: &mut Findings,
) -> Vec<OutCol> {
    let mut r = Resolver {
        schema,
        joins,
        readable,
        out,
    };
    r.plan(plan, &[], &Vec::new())
}

/// Checks the result column `key` declares, given the plan's resolved `outputs`. Only a
/// plain column is checked: a computed one has no stored type to hold against the
/// declaration, and the aggregator converts what it can.
pub fn declared_key(plan: &Plan, outputs: &[OutCol], key: DeclaredKey<'_>, out: &mut Findings) {
    if plan
        .select_items
        .iter()
        .any(|s| matches!(&s.expr, Expr::Column { column, .. } if column == "*"))
    {
        return;
    }
    let Some(Expr::Column { alias, column }) = plan.select_items.get(key.position).map(|s| &s.expr)
    else {
        return;
    };
    let Some(found) = outputs.get(key.position).and_then(|c| c.category) else {
        return;
    };
    use TypeCategory::*;
    let never = matches!(
        (key.category, found),
        (Number | Boolean, Temporal) | (Temporal, Number | Boolean)
    );
    if never {
        let named = match alias {
            Some(a) => format!("{a}.{column}"),
            None => column.clone(),
        };
        let wanted = category_word(key.category);
        out.error(
            ErrorCode::JoinKeyTypeMismatch,
            format!(
                "The join key {} is declared {wanted}, but {named} is {}. Select a column that holds {wanted} for this key.",
                key.name,
                category_word(found)
            ),
        );
    }
}

struct Resolver<'s, 'o> {
    schema: &'s SchemaSnapshot,
    joins: JoinRule,
    readable: &'o dyn Fn(&str) -> bool,
    out: &'o mut Findings,
}

fn category_word(c: TypeCategory) -> &'static str {
    match c {
        TypeCategory::Number => "a number",
        TypeCategory::Text => "text",
        TypeCategory::Temporal => "a date",
        TypeCategory::Boolean => "a boolean",
        TypeCategory::Other => "an untyped value",
    }
}

/// Can values of these kinds ever be equal? Dates are often stored as text, so those two
/// may be; a date and a number, or text and a number, never usefully are.
fn compatible(a: TypeCategory, b: TypeCategory) -> bool {
    use TypeCategory::*;
    !matches!(
        (a, b),
        (Temporal, Number)
            | (Number, Temporal)
            | (Temporal, Boolean)
            | (Boolean, Temporal)
            | (Text, Number)
            | (Number, Text)
    )
}

/// Whether `condition` reads a column of each side of a join.
fn relates(condition: &Expr, l: &Bound<'_>, r: &Bound<'_>) -> bool {
    let mut sides = (false, false);
    walk::each_node(condition, &mut |e| {
        if let Expr::Column { alias: Some(a), .. } = e {
            sides.0 |= a.eq_ignore_ascii_case(l.alias);
            sides.1 |= a.eq_ignore_ascii_case(r.alias);
        }
    });
    sides == (true, true)
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::Binary {
            op: crate::BinaryOp::And,
            left,
            right,
        } => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        e => vec![e],
    }
}

impl<'s> Resolver<'s, '_> {
    /// The columns a message may list for this source: none for a table the caller may
    /// not read.
    fn listable<'a>(&self, source: &'a Source) -> Vec<&'a str> {
        match source {
            Source::Table(t) if !(self.readable)(&t.name) => vec![],
            s => s.column_names(),
        }
    }

    fn plan(&mut self, plan: &'s Plan, outer: &[&Level<'s>], ctes: &Ctes) -> Vec<OutCol> {
        self.plan_reading(plan, outer, ctes, None)
    }

    /// A plan whose set operations may also read `itself` (a recursive CTE's name), with the
    /// columns of the plan's first part.
    fn plan_reading(
        &mut self,
        plan: &'s Plan,
        outer: &[&Level<'s>],
        ctes: &Ctes,
        itself: Option<&str>,
    ) -> Vec<OutCol> {
        let mut visible = ctes.clone();
        for c in &plan.ctes {
            if ctes.iter().any(|(n, _)| n.eq_ignore_ascii_case(&c.name)) {
                self.out.invalid(format!(
                    "The CTE {} reuses the name of a CTE around it; give it its own name.",
                    c.name
                ));
            }
            let cols = self.plan_reading(
                &c.plan,
                outer,
                &visible,
                c.recursive.then_some(c.name.as_str()),
            );
            if self.schema.table(&c.name).is_some() {
                self.out.invalid(format!(
                    "The CTE {} has the name of a table; give it a name no table has.",
                    c.name
                ));
            }
            visible.push((c.name.clone(), cols));
        }

        let mut level = Level {
            plan,
            tables: Vec::with_capacity(plan.tables.len()),
        };
        for t in &plan.tables {
            let source = if let Some((name, cols)) = visible
                .iter()
                .rev()
                .find(|(n, _)| n.eq_ignore_ascii_case(&t.name))
            {
                Source::Derived(name.clone(), cols.clone())
            } else if let Some(table) = self.schema.table(&t.name) {
                // The importer names a table of another schema `schema.table`; what is left
                // qualified names a schema (or a database) the table is not in.
                let own = |s: &str| {
                    s.eq_ignore_ascii_case("main")
                        || self
                            .schema
                            .schema
                            .as_deref()
                            .is_some_and(|o| o.eq_ignore_ascii_case(s))
                };
                let elsewhere = t.schema_name.as_deref().is_some_and(|s| !own(s));
                if elsewhere || t.database.is_some() {
                    let qualified = [&t.database, &t.schema_name, &Some(t.name.clone())]
                        .into_iter()
                        .flatten()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(".");
                    self.out.error(
                        ErrorCode::TableNotFound,
                        format!(
                            "Table {qualified} is not in datasource {}; a table outside the \
                             connection's own schema is named schema.table.",
                            self.schema.datasource_id
                        ),
                    );
                }
                Source::Table(table)
            } else {
                self.table_not_found(&t.name, &visible);
                Source::Unknown
            };
            level.tables.push(Bound {
                alias: &t.alias,
                source,
            });
        }

        self.joins(plan, &level, outer);

        let mut chain: Vec<&Level<'s>> = outer.to_vec();
        chain.push(&level);
        for (clause, root) in walk::clauses(plan) {
            self.expr(root, clause, &chain, &visible);
        }

        self.grouping(plan, &chain);
        let outputs = self.outputs(plan, &chain);

        if let Some(name) = itself {
            visible.push((name.to_string(), outputs.clone()));
        }
        let members: Vec<usize> = plan
            .set_operations
            .iter()
            .map(|s| self.plan(&s.plan, outer, &visible).len())
            .collect();
        if let Some(width) = members.into_iter().find(|w| *w != outputs.len()) {
            self.out.invalid(format!(
                "Every plan of a set operation must give the same number of columns: the first \
                 gives {}, another gives {width}.",
                outputs.len()
            ));
        }
        outputs
    }

    fn table_not_found(&mut self, name: &str, ctes: &Ctes) {
        let mut names: Vec<&str> = self
            .schema
            .tables
            .iter()
            .map(|t| t.name.as_str())
            .filter(|t| (self.readable)(t))
            .collect();
        names.extend(ctes.iter().map(|(n, _)| n.as_str()));
        let hint = closest(name, &names)
            .map(|n| format!(" Did you mean {n}?"))
            .unwrap_or_default();
        self.out.error(
            ErrorCode::TableNotFound,
            format!(
                "Table {name} is not in datasource {}.{hint} Its tables: {}.",
                self.schema.datasource_id,
                names.join(", ")
            ),
        );
    }

    fn expr(&mut self, root: &'s Expr, clause: Clause, chain: &[&Level<'s>], ctes: &Ctes) {
        let mut subplans: Vec<(&'s Plan, bool)> = Vec::new();
        let mut columns: Vec<(Option<&'s str>, &'s str)> = Vec::new();
        let mut searched: Vec<(&'s str, &'s Expr)> = Vec::new();
        walk::each_node(root, &mut |e| match e {
            Expr::Column { alias, column } => columns.push((alias.as_deref(), column)),
            Expr::Subquery { plan: p } => subplans.push((p, true)),
            Expr::Exists { plan: p } => subplans.push((p, false)),
            Expr::Func(f) if f.name.to_ascii_uppercase().starts_with("REGEXP_") => {
                if let Some(text) = f.args.first() {
                    searched.push((&f.name, text));
                }
            }
            _ => {}
        });
        for (alias, column) in columns {
            self.column(alias, column, clause, chain);
        }
        // A number or a date is not searched alike: PostgreSQL and DuckDB refuse it, MySQL
        // and Spark print it each their own way first.
        for (name, text) in searched {
            match self.category(text, chain) {
                Some(c) if c != TypeCategory::Text => self.out.invalid(format!(
                    "{name} searches text, and its first argument is {}: cast it to text \
                     first if its printed form is what you mean.",
                    category_word(c)
                )),
                _ => {}
            }
        }
        for (p, single) in subplans {
            let cols = self.plan(p, chain, ctes);
            if single && cols.len() != 1 {
                self.out.invalid(format!(
                    "A subquery used as a value or as the right side of IN must select exactly \
                     one column; this one selects {}.",
                    cols.len()
                ));
            }
        }
    }

    fn column(&mut self, alias: Option<&str>, column: &str, clause: Clause, chain: &[&Level<'s>]) {
        let Some(level) = chain.last() else { return };
        match alias {
            Some(a) => {
                let Some(bound) = chain.iter().rev().find_map(|l| l.find(a)) else {
                    self.out.column(format!(
                        "{a}.{column}: no table in this plan has alias {a}. The aliases are: {}.",
                        level.describe()
                    ));
                    return;
                };
                if column == "*" || bound.source.column(column).is_some() {
                    return;
                }
                let names = self.listable(&bound.source);
                let hint = closest(column, &names)
                    .map(|n| format!(" Did you mean {a}.{n}?"))
                    .unwrap_or_default();
                let listed = if names.is_empty() {
                    String::new()
                } else {
                    format!(" Its columns: {}.", names.join(", "))
                };
                self.out.column(format!(
                    "{a}.{column}: {} (alias {a}) has no column {column}.{hint}{listed}",
                    bound.source.label()
                ));
            }
            None => {
                if column == "*" {
                    return;
                }
                let names_result = matches!(clause, Clause::OrderBy | Clause::Having)
                    && level.plan.select_items.iter().any(|s| {
                        s.alias
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(column))
                    });
                if names_result {
                    return;
                }
                for l in chain.iter().rev() {
                    let owners: Vec<&Bound> = l
                        .tables
                        .iter()
                        .filter(|b| !matches!(b.source, Source::Unknown))
                        .filter(|b| b.source.column(column).is_some())
                        .collect();
                    match owners.len() {
                        0 => continue,
                        1 => return,
                        _ => {
                            let who: Vec<String> = owners
                                .iter()
                                .map(|b| format!("{} ({})", b.alias, b.source.label()))
                                .collect();
                            self.out.column(format!(
                                "Column {column} is ambiguous: {} all have it. Give its alias.",
                                who.join(", ")
                            ));
                            return;
                        }
                    }
                }
                if level
                    .tables
                    .iter()
                    .any(|b| matches!(b.source, Source::Unknown))
                {
                    return;
                }
                let all: Vec<&str> = level
                    .tables
                    .iter()
                    .flat_map(|b| self.listable(&b.source))
                    .collect();
                let hint = closest(column, &all)
                    .map(|n| format!(" Did you mean {n}?"))
                    .unwrap_or_default();
                self.out.column(format!(
                    "Column {column} (in {}) is in none of this plan's tables: {}.{hint}",
                    clause.field(),
                    level.describe()
                ));
            }
        }
    }

    fn category(&self, e: &Expr, chain: &[&Level<'s>]) -> Option<TypeCategory> {
        match e {
            Expr::Column { alias, column } => match alias {
                Some(a) => chain
                    .iter()
                    .rev()
                    .find_map(|l| l.find(a))
                    .and_then(|b| b.source.column(column).flatten()),
                None => chain.last().and_then(|l| {
                    l.tables
                        .iter()
                        .find_map(|b| b.source.column(column).flatten())
                }),
            },
            Expr::Literal(Literal::Integer(_) | Literal::Real(_)) => Some(TypeCategory::Number),
            Expr::Literal(Literal::Text(_)) => Some(TypeCategory::Text),
            Expr::Literal(Literal::Bool(_)) => Some(TypeCategory::Boolean),
            Expr::Cast { to, .. } => Some(match to {
                CastType::Integer | CastType::Real | CastType::Numeric => TypeCategory::Number,
                CastType::Text => TypeCategory::Text,
                CastType::Date | CastType::Timestamp => TypeCategory::Temporal,
            }),
            Expr::Func(f) => match f.name.to_ascii_uppercase().as_str() {
                "COUNT" | "SUM" | "AVG" | "ROUND" | "ABS" | "LENGTH" | "INSTR" | "TRUNC" | "LN"
                | "LOG10" | "EXP" | "ROW_NUMBER" | "RANK" | "DENSE_RANK" | "NTILE"
                | "DATE_PART" | "DATE_DIFF" | "ELAPSED" | "YEAR" | "MONTH" | "DAY" | "QUARTER"
                | "EXTRACT" | "MEDIAN" | "PERCENTILE_CONT" | "STDDEV_SAMP" | "STDDEV_POP"
                | "VAR_SAMP" | "VAR_POP" | "CORR" | "COVAR_POP" | "COVAR_SAMP" | "GROUPING" => {
                    Some(TypeCategory::Number)
                }
                "STRING_AGG" | "DAY_NAME" | "MONTH_NAME" | "JSON_VALUE" | "SPLIT_PART" | "LPAD"
                | "RPAD" | "REGEXP_REPLACE" | "REGEXP_SUBSTR" => Some(TypeCategory::Text),
                "BOOL_OR" | "BOOL_AND" | "REGEXP_LIKE" => Some(TypeCategory::Boolean),
                "DATE_TRUNC" | "DATE_ADD" | "CURRENT_DATE" | "CURRENT_TIMESTAMP" | "MAKE_DATE"
                | "CONVERT_TZ" => Some(TypeCategory::Temporal),
                "MIN" | "MAX" | "FIRST_VALUE" | "LAST_VALUE" | "LAG" | "LEAD" => {
                    f.args.first().and_then(|a| self.category(a, chain))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn outputs(&self, plan: &Plan, chain: &[&Level<'s>]) -> Vec<OutCol> {
        let Some(level) = chain.last() else {
            return vec![];
        };
        let mut cols = Vec::new();
        for item in &plan.select_items {
            match &item.expr {
                Expr::Column { alias, column } if column == "*" => {
                    let sources: Vec<&Source> = match alias {
                        Some(a) => level.find(a).map(|b| &b.source).into_iter().collect(),
                        None => level.tables.iter().map(|b| &b.source).collect(),
                    };
                    for s in sources {
                        for name in s.column_names() {
                            cols.push(OutCol {
                                name: Some(name.to_string()),
                                category: s.column(name).flatten(),
                            });
                        }
                    }
                }
                e => cols.push(OutCol {
                    name: item.alias.clone().or_else(|| match e {
                        Expr::Column { column, .. } => Some(column.clone()),
                        _ => None,
                    }),
                    category: self.category(e, chain),
                }),
            }
        }
        cols
    }

    fn joins(&mut self, plan: &Plan, level: &Level<'s>, outer: &[&Level<'s>]) {
        let mut chain = outer.to_vec();
        chain.push(level);
        for j in &plan.joins {
            let (Some(l), Some(r)) = (level.find(&j.left_alias), level.find(&j.right_alias)) else {
                let missing: Vec<&str> = [&j.left_alias, &j.right_alias]
                    .into_iter()
                    .filter(|a| level.find(a).is_none())
                    .map(String::as_str)
                    .collect();
                self.out.error(
                    ErrorCode::JoinTableNotInPlan,
                    format!(
                        "A join names alias(es) {} that tables does not declare. Declared: {}.",
                        missing.join(", "),
                        level.describe()
                    ),
                );
                continue;
            };
            if l.alias.eq_ignore_ascii_case(r.alias) {
                self.out.invalid(format!(
                    "A join joins alias {} to itself; join two different aliases.",
                    l.alias
                ));
                continue;
            }
            let condition = match (&j.condition, j.join_type) {
                (None, crate::JoinType::Cross) => continue,
                (Some(_), crate::JoinType::Cross) => {
                    self.out.invalid(format!(
                        "The cross join of {} and {} takes no condition: make it an inner join, \
                         or move the condition to where.",
                        l.alias, r.alias
                    ));
                    continue;
                }
                (Some(c), _) => c,
                (None, _) => {
                    self.out.invalid(format!(
                        "The join of {} and {} has no condition: give it one (an equality \
                         between a column of each), or make it a cross join.",
                        l.alias, r.alias
                    ));
                    continue;
                }
            };
            let pairs: Vec<(&str, &str)> = conjuncts(condition)
                .into_iter()
                .filter_map(|c| match c {
                    Expr::Binary {
                        op: crate::BinaryOp::Eq,
                        left,
                        right,
                    } => match (&**left, &**right) {
                        (
                            Expr::Column {
                                alias: Some(a1),
                                column: c1,
                            },
                            Expr::Column {
                                alias: Some(a2),
                                column: c2,
                            },
                        ) if c1 != "*" && c2 != "*" => {
                            if a1.eq_ignore_ascii_case(l.alias) && a2.eq_ignore_ascii_case(r.alias)
                            {
                                Some((c1.as_str(), c2.as_str()))
                            } else if a1.eq_ignore_ascii_case(r.alias)
                                && a2.eq_ignore_ascii_case(l.alias)
                            {
                                Some((c2.as_str(), c1.as_str()))
                            } else {
                                None
                            }
                        }
                        _ => None,
                    },
                    _ => None,
                })
                .collect();
            let both_readable = [l, r].iter().all(|b| match &b.source {
                Source::Table(t) => (self.readable)(&t.name),
                _ => true,
            });
            let known_fks = if both_readable {
                fk_hints(l, r)
            } else {
                vec![]
            };
            if pairs.is_empty() && self.joins == JoinRule::Typed && relates(condition, l, r) {
                // A range or inequality join (a row's period, the rows before it) is what
                // an analyst means by it; a cartesian product stays refused.
                self.out.warn(
                    ErrorCode::UndeclaredJoin,
                    format!(
                        "The join of {} and {} relates them without an equality between their \
                         columns ({condition}); check that it pairs the rows you mean.",
                        l.alias, r.alias
                    ),
                );
                continue;
            }
            if pairs.is_empty() {
                self.out.invalid(format!(
                    "The join of {} ({}) and {} ({}) needs an equality between a column of each \
                     ({}). A join is an equality on a declared foreign key, or between columns \
                     of the same kind; further conditions may be ANDed to it.",
                    l.alias,
                    l.source.label(),
                    r.alias,
                    r.source.label(),
                    if known_fks.is_empty() {
                        "no foreign key relates these two tables".to_string()
                    } else {
                        format!("declared: {}", known_fks.join("; "))
                    }
                ));
                continue;
            }
            // Under `fk_only`, only keys someone declared (the database or the project
            // file); otherwise the engine's inferred ones too.
            let inferred_too = self.joins != JoinRule::FkOnly;
            if pairs
                .iter()
                .any(|(lc, rc)| fk_declared(l, lc, r, rc, inferred_too))
            {
                continue;
            }
            let mut mismatch = false;
            for (lc, rc) in &pairs {
                let lcat = l.source.column(lc).flatten();
                let rcat = r.source.column(rc).flatten();
                if let (Some(a), Some(b)) = (lcat, rcat) {
                    if !compatible(a, b) {
                        mismatch = true;
                        self.out.error(
                            ErrorCode::JoinKeyTypeMismatch,
                            format!(
                                "The join compares {}.{lc} ({}) with {}.{rc} ({}), which can \
                                 never match. Join on columns of the same kind{}.",
                                l.alias,
                                category_word(a),
                                r.alias,
                                category_word(b),
                                if known_fks.is_empty() {
                                    String::new()
                                } else {
                                    format!(", such as the declared {}", known_fks.join("; "))
                                }
                            ),
                        );
                    }
                }
            }
            if mismatch {
                continue;
            }
            let (lc, rc) = pairs[0];
            match self.joins {
                JoinRule::FkOnly => self.out.invalid(format!(
                    "The join {}.{lc} = {}.{rc} is not a declared foreign key, and the setting \
                     joins = fk_only allows only those{}.",
                    l.alias,
                    r.alias,
                    if known_fks.is_empty() {
                        String::new()
                    } else {
                        format!(": {}", known_fks.join("; "))
                    }
                )),
                JoinRule::Typed => self.out.warn(
                    ErrorCode::UndeclaredJoin,
                    format!(
                        "The join {}.{lc} = {}.{rc} is not a declared foreign key; it was allowed \
                         because both columns hold values of the same kind. Check that it \
                         relates the rows you mean.",
                        l.alias, r.alias
                    ),
                ),
            }
        }
    }

    fn grouping(&mut self, plan: &'s Plan, chain: &[&Level<'s>]) {
        let roots: Vec<(Clause, &Expr)> = walk::clauses(plan)
            .into_iter()
            .filter(|(c, _)| matches!(c, Clause::Select | Clause::Having | Clause::OrderBy))
            .collect();
        let aggregated = roots.iter().any(|(_, e)| has_aggregate(e));
        if plan.group_by.is_empty() && !aggregated {
            return;
        }
        for (clause, e) in roots {
            self.coherent(e, clause, plan, chain);
        }
    }

    fn coherent(&mut self, e: &Expr, clause: Clause, plan: &Plan, chain: &[&Level<'s>]) {
        if plan.group_by.contains(e) {
            return;
        }
        match e {
            Expr::Func(f) if f.over.is_none() && is_aggregate_name(&f.name) => {}
            Expr::Literal(_) | Expr::Subquery { .. } | Expr::Exists { .. } => {}
            Expr::Column { alias, column } => {
                if self.grouped_column(alias.as_deref(), column, clause, plan, chain) {
                    return;
                }
                let shown = match alias {
                    Some(a) => format!("{a}.{column}"),
                    None => column.clone(),
                };
                self.out.invalid(format!(
                    "{shown} (in {}) is neither in group_by nor inside an aggregate. Add it to \
                     group_by, or wrap it in an aggregate such as MIN or MAX.",
                    clause.field()
                ));
            }
            e => {
                for c in walk::children(e) {
                    self.coherent(c, clause, plan, chain);
                }
            }
        }
    }

    /// A column is fine in a grouped plan when it belongs to an enclosing plan, names a
    /// result column, or its table's whole primary key is grouped (so it has one value per
    /// group, as standard SQL allows).
    fn grouped_column(
        &self,
        alias: Option<&str>,
        column: &str,
        clause: Clause,
        plan: &Plan,
        chain: &[&Level<'s>],
    ) -> bool {
        let Some(level) = chain.last() else {
            return true;
        };
        if column == "*" {
            return false;
        }
        let bound = match alias {
            Some(a) => match level.find(a) {
                Some(b) => b,
                // An enclosing plan's column is one value per row of this plan.
                None => return true,
            },
            None => {
                if matches!(clause, Clause::OrderBy | Clause::Having)
                    && plan.select_items.iter().any(|s| {
                        s.alias
                            .as_deref()
                            .is_some_and(|n| n.eq_ignore_ascii_case(column))
                    })
                {
                    return true;
                }
                match level
                    .tables
                    .iter()
                    .find(|b| b.source.column(column).is_some())
                {
                    Some(b) => b,
                    None => return true,
                }
            }
        };
        let Source::Table(table) = bound.source else {
            return matches!(bound.source, Source::Unknown);
        };
        let key = table.primary_key();
        !key.is_empty()
            && key.iter().all(|k| {
                plan.group_by.iter().any(|g| match g {
                    Expr::Column {
                        alias: Some(a),
                        column,
                    } => a.eq_ignore_ascii_case(bound.alias) && column.eq_ignore_ascii_case(k),
                    _ => false,
                })
            })
    }
}

fn fk_declared(l: &Bound, lc: &str, r: &Bound, rc: &str, inferred_too: bool) -> bool {
    let (Source::Table(lt), Source::Table(rt)) = (&l.source, &r.source) else {
        return false;
    };
    let counts = |fk: &crate::schema::ForeignKey| {
        inferred_too || !matches!(fk.source, crate::schema::KeySource::Inferred { .. })
    };
    let declares = |from: &Table, fc: &str, to: &Table, tc: &str| {
        from.foreign_keys.iter().filter(|fk| counts(fk)).any(|fk| {
            fk.referenced_table.eq_ignore_ascii_case(&to.name)
                && fk
                    .columns
                    .iter()
                    .zip(&fk.referenced_columns)
                    .any(|(a, b)| a.eq_ignore_ascii_case(fc) && b.eq_ignore_ascii_case(tc))
        })
    };
    declares(lt, lc, rt, rc) || declares(rt, rc, lt, lc)
}

/// The declared foreign keys between two bound tables, written with the plan's aliases.
fn fk_hints(l: &Bound, r: &Bound) -> Vec<String> {
    let (Source::Table(lt), Source::Table(rt)) = (&l.source, &r.source) else {
        return vec![];
    };
    let mut out = Vec::new();
    for (from, fa, to, ta) in [(lt, l.alias, rt, r.alias), (rt, r.alias, lt, l.alias)] {
        for fk in &from.foreign_keys {
            if fk.referenced_table.eq_ignore_ascii_case(&to.name) {
                for (a, b) in fk.columns.iter().zip(&fk.referenced_columns) {
                    out.push(format!("{fa}.{a} = {ta}.{b}"));
                }
            }
        }
    }
    out.dedup();
    out
}
