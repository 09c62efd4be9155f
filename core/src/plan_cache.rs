//! The plan cache: a plan that validated and ran is reused for the same question asked
//! again on the same datasource, schema, planner model and day, in the same thread context.
//!
//! Matching is exact on the normalised question (letter case folded, white space collapsed,
//! trailing punctuation dropped). A hit skips the answerability check and the planner; the
//! plan is validated again for the caller's role on every use, so a role that may not read
//! what it reads is refused as if the planner had written it. Plain data: the front end's
//! [`crate::service::Service`] holds one, bounded, clearable, and off in `eval`.

use crate::plan::Plan;
use std::collections::VecDeque;

/// Entries kept when settings say nothing.
pub const DEFAULT_CAPACITY: usize = 256;

/// What a plan is cached under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CacheKey {
    /// The question, normalised ([`normalise`]).
    pub question: String,
    /// The thread's earlier turns as the planner read them (empty: none).
    pub context: String,
    /// The datasource it ran on.
    pub datasource: String,
    /// Its schema's structural fingerprint.
    pub fingerprint: String,
    /// The planner's model.
    pub model: String,
    /// The run's date, when one was pinned (relative dates depend on it).
    pub today: Option<String>,
}

/// Plans that validated and ran, the most recently used last.
#[derive(Debug, Clone)]
pub struct PlanCache {
    entries: VecDeque<(CacheKey, Plan)>,
    capacity: usize,
}

impl Default for PlanCache {
    fn default() -> Self {
        PlanCache::new(DEFAULT_CAPACITY)
    }
}

impl PlanCache {
    /// An empty cache that keeps at most `capacity` plans (0: keeps none).
    pub fn new(capacity: usize) -> PlanCache {
        PlanCache {
            entries: VecDeque::new(),
            capacity,
        }
    }

    /// The plan cached under `key`, marked as just used.
    pub fn get(&mut self, key: &CacheKey) -> Option<Plan> {
        let at = self.entries.iter().position(|(k, _)| k == key)?;
        let entry = self.entries.remove(at)?;
        let plan = entry.1.clone();
        self.entries.push_back(entry);
        Some(plan)
    }

    /// Keeps `plan` under `key`, the least recently used entry going when full.
    pub fn put(&mut self, key: CacheKey, plan: Plan) {
        if self.capacity == 0 {
            return;
        }
        self.entries.retain(|(k, _)| *k != key);
        while self.entries.len() >= self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((key, plan));
    }

    /// Plans kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every plan.
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

/// A question as the cache compares it: letter case folded, white space collapsed, trailing
/// sentence punctuation (`?`, `.`, `!`, `,`, `;`) dropped.
pub fn normalise(question: &str) -> String {
    question
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        // Sentence punctuation only: `5%` is not `5`.
        .trim_end_matches(|c: char| matches!(c, '?' | '.' | '!' | ',' | ';') || c.is_whitespace())
        .to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(q: &str) -> CacheKey {
        CacheKey {
            question: normalise(q),
            context: String::new(),
            datasource: "chinook".into(),
            fingerprint: "f".into(),
            model: "m".into(),
            today: None,
        }
    }

    #[test]
    fn the_same_question_however_spelt_finds_its_plan() {
        let mut cache = PlanCache::new(2);
        cache.put(key("How many tracks?"), Plan::default());
        assert!(cache.get(&key("  how many   TRACKS ?? ")).is_some());
        assert!(cache.get(&key("How many albums?")).is_none());
    }

    #[test]
    fn the_least_recently_used_plan_goes_first() {
        let mut cache = PlanCache::new(2);
        cache.put(key("a"), Plan::default());
        cache.put(key("b"), Plan::default());
        assert!(cache.get(&key("a")).is_some());
        cache.put(key("c"), Plan::default());
        assert!(cache.get(&key("b")).is_none());
        assert!(cache.get(&key("a")).is_some());
        assert_eq!(cache.len(), 2);
        cache.clear();
        assert!(cache.is_empty());
        let mut none = PlanCache::new(0);
        none.put(key("a"), Plan::default());
        assert!(none.is_empty());
    }
}
