//! index: see the module docs once implemented.
