//! (family to be filled)

use crate::registry::FilterDef;

/// Registry entries of this family.
pub static DEFS: &[&FilterDef] = &[];
