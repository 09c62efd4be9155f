//! Who may ask what: API keys, each carrying one role, stored and compared as SHA-256
//! hashes; and the one rule for a request that names another role — it may narrow its
//! key's role (ask as a role that reads nothing the key's cannot), never widen it.

use nl2sql_core::config::Policies;
use nl2sql_core::service::{DatasourceInfo, Unavailable};
use nl2sql_native::project::ApiKeyEntry;
use sha2::{Digest, Sha256};

/// The caller of a request, once its key is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The key's id, for logs and limits (never the key).
    pub key_id: String,
    /// The role it asks as.
    pub role: String,
}

impl Caller {
    /// The one caller of `nl2sql mcp` over stdio: the role the configuration fixes.
    pub fn local(role: String) -> Caller {
        Caller {
            key_id: "stdio".into(),
            role,
        }
    }
}

/// One known key.
#[derive(Clone)]
struct Known {
    id: String,
    role: String,
    sha256: [u8; 32],
}

/// The keys a server accepts. `Debug` shows ids and roles only.
#[derive(Clone, Default)]
pub struct Keys(Vec<Known>);

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|k| (&k.id, &k.role)))
            .finish()
    }
}

impl Keys {
    /// The keys of `NL2SQL_API_KEYS`' form: `role:key` pairs separated by commas (ids
    /// `env-1`, `env-2`, … in order). An error never repeats a key.
    pub fn from_env(text: &str) -> Result<Keys, String> {
        let mut keys = Keys::default();
        for (n, pair) in text.split(',').map(str::trim).enumerate() {
            if pair.is_empty() {
                continue;
            }
            let Some((role, key)) = pair.split_once(':') else {
                return Err(format!("NL2SQL_API_KEYS: entry {} is not role:key", n + 1));
            };
            let (role, key) = (role.trim(), key.trim());
            if role.is_empty() || key.len() < 16 {
                return Err(format!(
                    "NL2SQL_API_KEYS: entry {} needs a role and a key of at least 16 characters",
                    n + 1
                ));
            }
            keys.0.push(Known {
                id: format!("env-{}", n + 1),
                role: role.to_string(),
                sha256: Sha256::digest(key.as_bytes()).into(),
            });
        }
        Ok(keys)
    }

    /// The project file's keys (checked as the file was read: 64 hex digits each).
    pub fn from_config(entries: &[ApiKeyEntry]) -> Keys {
        Keys(
            entries
                .iter()
                .filter_map(|e| {
                    Some(Known {
                        id: e.id.clone(),
                        role: e.role.clone(),
                        sha256: hex32(&e.sha256)?,
                    })
                })
                .collect(),
        )
    }

    /// These keys and `other`'s.
    pub fn and(mut self, other: Keys) -> Keys {
        self.0.extend(other.0);
        self
    }

    /// True when no key is known.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Fails, naming the key's id, when two keys share an id or a key is given twice (in
    /// the file and the environment, say), which would blur logs, limits and roles.
    pub fn check_unique(&self) -> Result<(), String> {
        for (i, k) in self.0.iter().enumerate() {
            if let Some(other) = self.0[..i].iter().find(|o| o.id == k.id) {
                return Err(format!("two API keys have the id {}", other.id));
            }
            if let Some(other) = self.0[..i].iter().find(|o| o.sha256 == k.sha256) {
                return Err(format!(
                    "API keys {} and {} are the same key",
                    other.id, k.id
                ));
            }
        }
        Ok(())
    }

    /// Fails, naming the key's id, when a key carries a role the policies do not have.
    pub fn check_roles(&self, policies: &Policies) -> Result<(), String> {
        match self
            .0
            .iter()
            .find(|k| !policies.roles.contains_key(&k.role))
        {
            Some(k) => Err(format!(
                "API key {}: {:?} is not a role of the policies (roles: {})",
                k.id,
                k.role,
                policies
                    .roles
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
            None => Ok(()),
        }
    }

    /// The caller holding `presented`, if it is a known key.
    pub fn caller(&self, presented: &str) -> Option<Caller> {
        let digest: [u8; 32] = Sha256::digest(presented.as_bytes()).into();
        // Every key is compared in full, so the time taken says nothing about which matched.
        let mut found = None;
        for k in &self.0 {
            let same = k
                .sha256
                .iter()
                .zip(digest.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
            if same && found.is_none() {
                found = Some(Caller {
                    key_id: k.id.clone(),
                    role: k.role.clone(),
                });
            }
        }
        found
    }
}

fn hex32(text: &str) -> Option<[u8; 32]> {
    let mut out = [0u8; 32];
    if text.len() != 64 {
        return None;
    }
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(text.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// True when role `asked` reads nothing role `held` cannot, over every table of
/// `datasources` (the policies are table-level, so this is exact for what is served) and
/// of those `left_out` (not read yet: whatever tables they turn out to hold, so `held` must
/// read all of any `asked` reaches).
pub fn narrows(
    policies: &Policies,
    (datasources, left_out): (&[DatasourceInfo], &[Unavailable]),
    held: &str,
    asked: &str,
) -> bool {
    let (held, asked) = ([held.to_string()], [asked.to_string()]);
    let (held, asked) = (policies.scope(&held), policies.scope(&asked));
    let unread = |u: &Unavailable| !asked.can_reach(&u.id) || held.reads_whole(&u.id);
    left_out.iter().all(unread)
        && datasources.iter().all(|d| {
            (!asked.can_reach(&d.id) || held.can_reach(&d.id))
                && d.schema
                    .tables
                    .iter()
                    .all(|t| !asked.can_read(&d.id, &t.name) || held.can_read(&d.id, &t.name))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_the_environment_are_found_by_their_hash_alone() {
        let keys = Keys::from_env("admin:a-very-long-admin-key-1, viewer:a-very-long-viewer-key")
            .unwrap_or_default();
        let admin = keys.caller("a-very-long-admin-key-1");
        assert_eq!(
            admin.map(|c| (c.key_id, c.role)),
            Some(("env-1".into(), "admin".into()))
        );
        assert_eq!(keys.caller("viewer:a-very-long-viewer-key"), None);
        assert_eq!(keys.caller(""), None);
        assert!(!format!("{keys:?}").contains("long"), "{keys:?}");
        for bad in ["admin", "admin:short", ":a-very-long-admin-key-1"] {
            let e = Keys::from_env(bad).err().unwrap_or_default();
            assert!(e.contains("entry 1") && !e.contains("short"), "{e}");
        }
    }

    #[test]
    fn a_configured_key_is_its_hash() {
        let entry = ApiKeyEntry {
            id: "ops".into(),
            role: "analyst".into(),
            sha256: Sha256::digest(b"the-ops-key-0123456789")
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect(),
        };
        let keys = Keys::from_config(&[entry]);
        assert_eq!(
            keys.caller("the-ops-key-0123456789").map(|c| c.key_id),
            Some("ops".into())
        );
        assert!(keys.check_roles(&Policies::demo()).is_ok());
        let stray = Keys::from_env("owner:a-very-long-owner-key").unwrap_or_default();
        assert!(stray.check_roles(&Policies::demo()).is_err());
        let twice = Keys::from_env("admin:the-ops-key-0123456789").unwrap_or_default();
        let e = keys
            .clone()
            .and(twice)
            .check_unique()
            .err()
            .unwrap_or_default();
        assert!(
            e.contains("ops") && e.contains("env-1") && !e.contains("0123"),
            "{e}"
        );
        assert!(keys.check_unique().is_ok());
    }

    /// A datasource not read yet (left out) holds tables nobody has seen: a role that
    /// reaches it narrows another only when that other reads all of it.
    #[test]
    fn a_role_reaching_a_datasource_left_out_narrows_only_one_that_reads_all_of_it() {
        use nl2sql_core::error::{Error, ErrorCode};
        let policies: Policies = serde_json::from_str(
            r#"{"roles": {
                "all": {"allow": ["*"]},
                "shop_only": {"allow": ["shop"]},
                "hr_only": {"allow": ["hr"]},
                "hr_but_pay": {"allow": ["hr"], "deny": ["hr.salaries"]}
            }}"#,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let down = Unavailable::new(
            "hr",
            &Error::new(ErrorCode::DatasourceUnreachable, "refused"),
        );
        let left_out = [down];
        let narrows = |held: &str, asked: &str| narrows(&policies, (&[], &left_out), held, asked);
        assert!(
            !narrows("shop_only", "hr_only"),
            "shop_only cannot reach hr"
        );
        assert!(
            !narrows("hr_but_pay", "hr_only"),
            "hr_only may read salaries"
        );
        assert!(narrows("all", "hr_only"));
        assert!(narrows("hr_only", "hr_but_pay"));
        assert!(
            narrows("hr_only", "shop_only"),
            "shop_only does not reach hr"
        );
    }
}
