//! The `segbatch` command-line tool.
fn main() {}
