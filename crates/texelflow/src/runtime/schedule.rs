//! Schedule overrides: kernel-shape choices (variant, tile size, pixels per invocation) belong
//! to the executor, not to a filter's math (Halide's algorithm/schedule split). Each filter
//! picks a measured default; this table lets `texelflow bench` and the equivalence tests
//! run the other variants side by side, so a faster schedule replaces the default only
//! after it has been measured on the GPU and has passed the same tests.
//!
//! Keys are `<filter>` (e.g. `gaussian_blur`), values a variant name the filter documents.
//! Overrides come from `RunOptions::schedules` (the executor scopes them around each
//! recording; the CLI maps `TEXELFLOW_SCHEDULE=gaussian_blur=sweep,box_blur=sweep` into it)
//! or from [`with_overrides`] scopes (innermost wins).
//! An unknown variant is an error at record time, never a silent fallback.

use std::cell::RefCell;

thread_local! {
    // Per thread: tests run in parallel and each may scope its own variant; recording
    // happens on the thread that runs the graph.
    static SCOPED: RefCell<Vec<(String, String)>> = const { RefCell::new(Vec::new()) };
}

/// Parses `key=value,key=value`; malformed items are dropped (`bench --schedule` rejects a
/// list with none left, and a filter rejects a variant name it does not know).
pub fn parse(s: &str) -> Vec<(String, String)> {
    s.split(',')
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .filter(|(k, v)| !k.is_empty() && !v.is_empty())
        .collect()
}

/// The schedule variant chosen for `key`, if any override names it.
pub fn get(key: &str) -> Option<String> {
    SCOPED.with(|g| {
        g.borrow()
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
    })
}

/// Runs `f` with `overrides` in force (nested scopes stack; the innermost wins).
pub fn with_overrides<T>(overrides: &[(String, String)], f: impl FnOnce() -> T) -> T {
    struct Pop(usize);
    impl Drop for Pop {
        fn drop(&mut self) {
            SCOPED.with(|g| {
                let mut g = g.borrow_mut();
                let keep = g.len().saturating_sub(self.0);
                g.truncate(keep);
            });
        }
    }
    SCOPED.with(|g| g.borrow_mut().extend(overrides.iter().cloned()));
    let _pop = Pop(overrides.len());
    f()
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
    fn scoped_overrides_nest_and_pop() {
        assert_eq!(
            parse("a=1, b = 2,bad,c="),
            vec![("a".into(), "1".into()), ("b".into(), "2".into())]
        );
        let o1 = vec![("sched_test_k".to_string(), "x".to_string())];
        let o2 = vec![("sched_test_k".to_string(), "y".to_string())];
        assert_eq!(get("sched_test_k"), None);
        with_overrides(&o1, || {
            assert_eq!(get("sched_test_k").as_deref(), Some("x"));
            with_overrides(&o2, || {
                assert_eq!(get("sched_test_k").as_deref(), Some("y"))
            });
            assert_eq!(get("sched_test_k").as_deref(), Some("x"));
        });
        assert_eq!(get("sched_test_k"), None);
    }
}
