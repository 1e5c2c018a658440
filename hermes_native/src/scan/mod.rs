//! scan: see the module docs once implemented.
