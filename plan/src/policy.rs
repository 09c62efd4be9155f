//! Role policies: which tables a caller may read.
//!
//! A role has allow and deny patterns (`*`, `datasource`, `datasource.table`; globs with `*`
//! and `?`, matched case-insensitively). A table is readable when some role of the caller
//! allows it and that same role does not deny it; roles add up. A caller with no role gets
//! the `default_role`; an unknown role, or no role at all, reads nothing. A [`Scope`] answers
//! for one caller, for the retriever (which hides what it may not read) and the validator
//! (which refuses it).

use crate::{Error, ErrorKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// The policies section of the configuration.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policies {
    /// The role used when the caller names none; must be one of `roles`.
    #[serde(default)]
    pub default_role: Option<String>,
    /// Whether a refusal may name the role and table (otherwise it names nothing).
    #[serde(default)]
    pub refusal_names_tables: bool,
    /// The roles by name.
    #[serde(default)]
    pub roles: BTreeMap<String, Role>,
}

/// One role.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Role {
    /// What the role is for, shown in the UI.
    #[serde(default)]
    pub description: String,
    /// What the role may read.
    #[serde(default)]
    pub allow: Vec<Pattern>,
    /// What it may not, even where `allow` matches.
    #[serde(default)]
    pub deny: Vec<Pattern>,
    /// May approve, edit and delete verified queries proposed from feedback.
    #[serde(default)]
    pub approves: bool,
}

/// `*`, `datasource`, `datasource.table` or `datasource.schema.table` (a table outside the
/// connection's own schema), each part a case-insensitive glob; a table glob's `*` also
/// crosses the schema's dot, so `datasource.*` is every table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Pattern {
    datasource: String,
    /// `None` covers every table of the matching datasources.
    table: Option<String>,
}

impl TryFrom<String> for Pattern {
    type Error = Error;

    fn try_from(text: String) -> Result<Pattern, Error> {
        let parts: Vec<&str> = text.split('.').map(str::trim).collect();
        match parts.as_slice() {
            [ds] if !ds.is_empty() => Ok(Pattern {
                datasource: ds.to_lowercase(),
                table: None,
            }),
            // A table outside the connection's own schema is named `schema.table`.
            [ds, name @ ..]
                if !ds.is_empty() && name.len() <= 2 && name.iter().all(|p| !p.is_empty()) =>
            {
                Ok(Pattern {
                    datasource: ds.to_lowercase(),
                    table: Some(name.join(".").to_lowercase()),
                })
            }
            _ => Err(Error::new(
                ErrorKind::Policy,
                format!(
                    "policy pattern {text:?} is not `*`, `datasource`, `datasource.table` or \
                     `datasource.schema.table`"
                ),
            )),
        }
    }
}

impl From<Pattern> for String {
    fn from(p: Pattern) -> String {
        p.to_string()
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.table {
            Some(t) => write!(f, "{}.{t}", self.datasource),
            None => f.write_str(&self.datasource),
        }
    }
}

impl Pattern {
    /// Whether the pattern covers this table of this datasource.
    pub fn covers(&self, datasource: &str, table: &str) -> bool {
        glob(&self.datasource, datasource) && self.table.as_deref().is_none_or(|t| glob(t, table))
    }

    /// Whether the pattern could cover some table of this datasource.
    fn reaches(&self, datasource: &str) -> bool {
        glob(&self.datasource, datasource)
    }

    /// Whether the pattern covers every table of the datasources it matches.
    fn covers_all_tables(&self) -> bool {
        self.table
            .as_deref()
            .is_none_or(|t| t.chars().all(|c| c == '*'))
    }
}

/// Glob with `*` (any run) and `?` (one character): the pattern already lower-cased, the
/// text compared lower-cased. Every search asks it of every table (a warehouse's 2,000),
/// so the common cases allocate nothing.
fn glob(pattern: &str, text: &str) -> bool {
    if pattern.bytes().all(|b| b == b'*') {
        return true;
    }
    if pattern.is_ascii() && text.is_ascii() {
        return glob_units(pattern.as_bytes(), text.as_bytes(), b'*', b'?', |b| {
            b.to_ascii_lowercase()
        });
    }
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    glob_units(&p, &t, '*', '?', |c| c)
}

/// [`glob`] over units (bytes or characters), the text's lowered by `lower` as it is read.
fn glob_units<T: Copy + PartialEq>(
    p: &[T],
    t: &[T],
    star: T,
    one: T,
    lower: impl Fn(T) -> T,
) -> bool {
    // Iterative matching with one backtrack point: linear in practice, never recursive.
    let (mut pi, mut ti) = (0, 0);
    let mut back: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == one || p[pi] == lower(t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == star {
            back = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = back {
            pi = sp + 1;
            ti = st + 1;
            back = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    p[pi..].iter().all(|c| *c == star)
}

impl Policies {
    /// Checks what serde cannot: the default role exists.
    pub fn validate(&self) -> Result<(), Error> {
        match &self.default_role {
            Some(role) if !self.roles.contains_key(role) => Err(Error::new(
                ErrorKind::Policy,
                format!(
                    "default_role {role:?} is not one of the roles ({})",
                    self.roles.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The scope of a caller with these roles (none: the default role).
    pub fn scope(&self, roles: &[String]) -> Scope<'_> {
        let roles = if roles.is_empty() {
            self.default_role.iter().cloned().collect()
        } else {
            roles.to_vec()
        };
        Scope {
            policies: self,
            roles,
        }
    }

    /// One role, `reader` (the default), that reads every table of every datasource: for
    /// front ends given no policy, and for checking declarations (verified queries) against
    /// a schema regardless of who will ask.
    pub fn read_all() -> Policies {
        let all = Pattern::try_from("*".to_string()).map_or_else(|_| vec![], |p| vec![p]);
        Policies {
            default_role: Some("reader".into()),
            refusal_names_tables: true,
            roles: BTreeMap::from([(
                "reader".to_string(),
                Role {
                    description: "Reads every table.".into(),
                    allow: all,
                    deny: vec![],
                    approves: true,
                },
            )]),
        }
    }

    /// The demo policy: `admin` reads everything and approves verified queries; `analyst` everything but
    /// `chinook.Employee` and `support.agents`; `viewer` only the music catalogue and
    /// webanalytics' devices, page views and referrers. The default role is `admin`.
    pub fn demo() -> Policies {
        // Constant, well-formed patterns: a typo here must fail loudly (the tests run this),
        // never silently drop a deny and widen access.
        let patterns = |list: &[&str]| -> Vec<Pattern> {
            list.iter()
                .map(|p| Pattern::try_from(p.to_string()).expect("demo policy patterns are valid"))
                .collect()
        };
        let role = |description: &str, allow: &[&str], deny: &[&str]| Role {
            description: description.to_string(),
            allow: patterns(allow),
            deny: patterns(deny),
            approves: false,
        };
        let roles = BTreeMap::from([
            (
                "admin".to_string(),
                Role {
                    approves: true,
                    ..role("Reads everything; approves verified queries.", &["*"], &[])
                },
            ),
            (
                "analyst".to_string(),
                role(
                    "Reads everything except staff records.",
                    &["*"],
                    &["chinook.Employee", "support.agents"],
                ),
            ),
            (
                "viewer".to_string(),
                role(
                    "Reads the music catalogue and anonymous web traffic only.",
                    &[
                        "chinook.Album",
                        "chinook.Artist",
                        "chinook.Genre",
                        "chinook.MediaType",
                        "chinook.Playlist",
                        "chinook.PlaylistTrack",
                        "chinook.Track",
                        "webanalytics.devices",
                        "webanalytics.page_views",
                        "webanalytics.referrers",
                    ],
                    &[],
                ),
            ),
        ]);
        Policies {
            default_role: Some("admin".to_string()),
            // As the reference demo: in the playground a refusal may say what it refused.
            refusal_names_tables: true,
            roles,
        }
    }
}

/// What one caller may read.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    policies: &'a Policies,
    roles: Vec<String>,
}

impl Scope<'_> {
    /// The caller's roles after the default was applied.
    pub fn roles(&self) -> &[String] {
        &self.roles
    }

    /// May the caller approve, edit and delete verified queries?
    pub fn may_approve(&self) -> bool {
        self.known_roles().any(|role| role.approves)
    }

    /// May a refusal name the role and the table it refused?
    pub fn refusal_names_tables(&self) -> bool {
        self.policies.refusal_names_tables
    }

    fn known_roles(&self) -> impl Iterator<Item = &Role> {
        self.roles.iter().filter_map(|r| self.policies.roles.get(r))
    }

    /// May the caller read this table?
    pub fn can_read(&self, datasource: &str, table: &str) -> bool {
        self.known_roles().any(|role| {
            role.allow.iter().any(|p| p.covers(datasource, table))
                && !role.deny.iter().any(|p| p.covers(datasource, table))
        })
    }

    /// May the caller read anything at all in this datasource? A role that allows the
    /// datasource but denies all of it by a bare `datasource` pattern reaches nothing.
    pub fn can_reach(&self, datasource: &str) -> bool {
        self.known_roles().any(|role| {
            role.allow.iter().any(|p| p.reaches(datasource))
                && !role
                    .deny
                    .iter()
                    .any(|p| p.covers_all_tables() && p.reaches(datasource))
        })
    }

    /// May the caller read every table of this datasource, whatever it holds: a role allows
    /// all of it and denies none of it. What a datasource not read yet may be checked by.
    pub fn reads_whole(&self, datasource: &str) -> bool {
        self.known_roles().any(|role| {
            role.allow
                .iter()
                .any(|p| p.covers_all_tables() && p.reaches(datasource))
                && !role.deny.iter().any(|p| p.reaches(datasource))
        })
    }

    /// Why the caller may not read this table, for the trace: the deny pattern that fired,
    /// or the missing allow.
    pub fn rule_for(&self, datasource: &str, table: &str) -> String {
        if self.roles.is_empty() {
            return "no role was given and there is no default_role".to_string();
        }
        for name in &self.roles {
            let Some(role) = self.policies.roles.get(name) else {
                continue;
            };
            if role.allow.iter().any(|p| p.covers(datasource, table)) {
                if let Some(deny) = role.deny.iter().find(|p| p.covers(datasource, table)) {
                    return format!("role {name} denies {deny}");
                }
            }
        }
        let unknown: Vec<&str> = self
            .roles
            .iter()
            .filter(|r| !self.policies.roles.contains_key(*r))
            .map(String::as_str)
            .collect();
        if unknown.len() == self.roles.len() {
            return format!("unknown role {}", unknown.join(", "));
        }
        format!(
            "no allow pattern of role {} covers {datasource}.{table}",
            self.roles.join(", ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roles(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_demo_roles_read_what_the_issue_says() {
        let p = Policies::demo();
        p.validate().unwrap();
        let admin = p.scope(&roles(&["admin"]));
        assert!(admin.can_read("chinook", "Employee"));
        assert!(admin.can_read("support", "agents"));

        let analyst = p.scope(&roles(&["analyst"]));
        assert!(!analyst.can_read("chinook", "Employee"));
        assert!(!analyst.can_read("CHINOOK", "employee"), "case-insensitive");
        assert!(!analyst.can_read("support", "agents"));
        assert!(analyst.can_read("chinook", "Invoice"));
        assert!(analyst.can_read("support", "tickets"));
        assert_eq!(
            analyst.rule_for("chinook", "Employee"),
            "role analyst denies chinook.employee"
        );

        let viewer = p.scope(&roles(&["viewer"]));
        for t in [
            "Album",
            "Artist",
            "Genre",
            "MediaType",
            "Playlist",
            "PlaylistTrack",
            "Track",
        ] {
            assert!(viewer.can_read("chinook", t), "{t}");
        }
        for t in ["Customer", "Invoice", "InvoiceLine", "Employee"] {
            assert!(!viewer.can_read("chinook", t), "{t}");
        }
        assert!(viewer.can_read("webanalytics", "page_views"));
        assert!(!viewer.can_read("webanalytics", "sessions"));
        assert!(!viewer.can_reach("support"));
        assert!(viewer.can_reach("webanalytics"));
        assert_eq!(
            viewer.rule_for("support", "tickets"),
            "no allow pattern of role viewer covers support.tickets"
        );
    }

    #[test]
    fn no_role_means_the_default_and_unknown_roles_read_nothing() {
        let p = Policies::demo();
        assert_eq!(p.scope(&[]).roles(), ["admin"]);
        assert!(p.scope(&[]).can_read("support", "agents"));
        let stranger = p.scope(&roles(&["intern"]));
        assert!(!stranger.can_read("chinook", "Track"));
        assert!(!stranger.can_reach("chinook"));
        assert_eq!(stranger.rule_for("chinook", "Track"), "unknown role intern");

        let no_default = Policies {
            default_role: None,
            ..Policies::demo()
        };
        assert!(!no_default.scope(&[]).can_read("chinook", "Track"));
    }

    #[test]
    fn a_datasource_wide_deny_leaves_nothing_to_reach() {
        let p: Policies = serde_json::from_str(
            r#"{"roles": {"r": {"allow": ["*"], "deny": ["support.*", "webanalytics"]}}}"#,
        )
        .unwrap();
        let scope = p.scope(&roles(&["r"]));
        assert!(!scope.can_reach("support"));
        assert!(!scope.can_reach("webanalytics"));
        assert!(scope.can_reach("chinook"));
    }

    #[test]
    fn roles_add_up_but_a_deny_binds_only_its_own_role() {
        let p = Policies::demo();
        let both = p.scope(&roles(&["viewer", "analyst"]));
        assert!(both.can_read("chinook", "Invoice"), "analyst adds Invoice");
        assert!(
            !both.can_read("chinook", "Employee"),
            "no role allows Employee undenied"
        );
        let admin_and_analyst = p.scope(&roles(&["analyst", "admin"]));
        assert!(
            admin_and_analyst.can_read("chinook", "Employee"),
            "admin allows it"
        );
    }

    #[test]
    fn patterns_are_globs_and_bad_ones_are_refused() {
        let pattern = |s: &str| Pattern::try_from(s.to_string());
        let p = pattern("web*.page_?iews").unwrap();
        assert!(p.covers("webanalytics", "page_views"));
        assert!(!p.covers("webanalytics", "sessions"));
        assert!(pattern("*").unwrap().covers("anything", "at_all"));
        assert!(pattern("chinook").unwrap().covers("Chinook", "Track"));
        for bad in ["", "a..b", "a.b.c.d", "a.b.", ".t", "ds.", " . "] {
            assert!(pattern(bad).is_err(), "{bad:?}");
        }
        // A table outside the connection's own schema is `schema.table`.
        let sales = pattern("shop.sales.*").unwrap();
        assert!(sales.covers("shop", "sales.deals") && !sales.covers("shop", "deals"));
        assert!(pattern("shop.*").unwrap().covers("shop", "sales.deals"));
        let spaced = pattern(" chinook . Employee ").unwrap();
        assert!(spaced.covers("chinook", "Employee"), "parts are trimmed");
        assert!(glob("a*b*c", "aXXbYYc"));
        assert!(!glob("a*b*c", "aXXbYY"));
        assert!(glob("**", ""));
        // A pattern built to make naive backtracking exponential stays a quick "no".
        let pattern = format!("{}b", "*a".repeat(50));
        assert!(!glob(&pattern, &"a".repeat(10_000)));
    }

    #[test]
    fn policies_parse_from_json_and_check_the_default_role() {
        let p: Policies = serde_json::from_str(
            r#"{"default_role": "ops", "roles": {"ops": {"allow": ["support"], "deny": ["support.agents"]}}}"#,
        )
        .unwrap();
        p.validate().unwrap();
        assert!(p.scope(&[]).can_read("support", "tickets"));
        assert!(!p.scope(&[]).can_read("support", "agents"));

        let bad: Policies =
            serde_json::from_str(r#"{"default_role": "boss", "roles": {}}"#).unwrap();
        assert!(bad
            .validate()
            .unwrap_err()
            .message
            .contains("default_role \"boss\""));
        let err = serde_json::from_str::<Policies>(r#"{"roles": {"x": {"allow": ["a.b.c.d"]}}}"#)
            .unwrap_err();
        assert!(err.to_string().contains("a.b.c.d"), "{err}");
        assert!(serde_json::from_str::<Policies>(r#"{"rolez": {}}"#).is_err());
    }
}
