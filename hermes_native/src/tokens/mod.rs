//! tokens: see the module docs once implemented.
