//! Build-time code generation. Each concept that needs generated data has its own module under
//! `build/`; this file only dispatches to them.

#[path = "build/tokens.rs"]
mod tokens;

fn main() {
    tokens::generate();
}
