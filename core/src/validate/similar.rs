//! "Did you mean …?": the closest known name to a misspelt one.

fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
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
        assert_eq!(closest("customerid", &names), Some("CustomerId"));
        assert_eq!(closest("Mail", &names), Some("Email"));
        assert_eq!(closest("Invoice", &names), None);
        assert_eq!(closest("x", &[]), None);
    }
}
