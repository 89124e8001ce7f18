//! Schedule overrides: kernel-shape choices (variant, tile size, pixels per invocation) belong
//! to the executor, not to a filter's math (Halide's algorithm/schedule split). Each filter
//! picks a measured default; overrides let `texelflow bench` and the equivalence tests
//! run the other variants side by side, so a faster schedule replaces the default only
//! after it has been measured on the GPU and has passed the same tests.
//!
//! Keys are `<filter>` (e.g. `gaussian_blur`), values a variant name the filter documents.
//! Overrides are an option of a run, `RunOptions::schedules` (the CLI maps
//! `TEXELFLOW_SCHEDULE=gaussian_blur=sweep,box_blur=sweep` into it, `texelflow bench
//! --schedule` sets each case's, tests pass their own): the executor hands them, as
//! [`Schedules`], to every `NodeRecorder` of the run, and a filter asks its recorder
//! (`NodeRecorder::schedule`) while it records. Nothing is kept per thread or per process: two
//! runs side by side (threads, tests) each have only their own. Where the list names a key more
//! than once, the last entry wins.
//! An unknown variant is an error at record time, never a silent fallback.

use std::sync::Arc;

/// Parses `key=value,key=value`; malformed items are dropped (`bench --schedule` rejects a
/// list with none left, and a filter rejects a variant name it does not know).
pub fn parse(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// One run's schedule overrides, `(filter, variant)` as in `RunOptions::schedules`, shared
/// (cheap to clone) by the recorders of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedules(Arc<[(String, String)]>);

impl Default for Schedules {
    fn default() -> Self {
        Self(Arc::from(Vec::new()))
    }
}

impl Schedules {
    /// The overrides of `list` (`RunOptions::schedules`).
    pub fn new(list: &[(String, String)]) -> Self {
        Self(Arc::from(list))
    }
    /// The variant named for `key`, if any entry names it: the last one that does.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    /// Whether there are no overrides.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// Error text for a variant a filter does not know.
pub fn unknown(filter: &str, variant: &str, known: &[&str]) -> crate::Error {
    crate::Error::Graph(crate::GraphError::UnknownSchedule {
        filter: filter.to_string(),
        variant: variant.to_string(),
        known: known.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn parse_and_the_last_entry_wins() {
        assert_eq!(
            parse("a=1, b = 2,bad,c="),
            vec![("a".into(), "1".into()), ("b".into(), "2".into())]
        );
        let s = Schedules::new(&parse("k=x,other=z,k=y"));
        assert_eq!(s.get("k"), Some("y"));
        assert_eq!(s.get("other"), Some("z"));
        assert_eq!(s.get("missing"), None);
        assert!(Schedules::default().is_empty() && Schedules::default().get("k").is_none());
    }
}
