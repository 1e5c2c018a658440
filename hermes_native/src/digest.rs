//! digest: see the module docs once implemented.
