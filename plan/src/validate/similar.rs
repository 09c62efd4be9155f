//! "Did you mean …?": the closest known name to a misspelt one.

/// Edits between two names, case-insensitively: insertions, deletions, substitutions and
/// swaps of neighbours (the commonest typo), each counting one.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        d[i * width] = i;
    }
    for (j, cell) in d.iter_mut().enumerate().take(width) {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

/// The candidate closest to `name`, when it is close enough to be a likely typo (at most a
/// third of the name's length in edits, and at least one), or when one contains the other.
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // Names longer than this are not typos worth the quadratic comparison.
    const LONGEST: usize = 128;
    if name.len() > LONGEST {
        return None;
    }
    let lower = name.to_lowercase();
    let budget = (name.chars().count() / 3).max(1);
    candidates
        .iter()
        .filter(|c| c.len() <= LONGEST)
        .map(|c| {
            let cl = c.to_lowercase();
            let contained = lower.len() >= 3 && (cl.contains(&lower) || lower.contains(&cl));
            let d = distance(name, c);
            (if contained { d.min(budget) } else { d }, *c)
        })
        .filter(|(d, _)| *d <= budget)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn typos_find_their_name_and_strangers_find_none() {
        let names = ["CustomerId", "FirstName", "LastName", "Email"];
        assert_eq!(closest("FirstNme", &names), Some("FirstName"));
        assert_eq!(closest("Emial", &names), Some("Email"));
        assert_eq!(closest("customerid", &names), Some("CustomerId"));
        assert_eq!(closest("Mail", &names), Some("Email"));
        assert_eq!(closest("Invoice", &names), None);
        assert_eq!(closest("x", &[]), None);
    }
}
