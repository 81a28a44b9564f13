//! The library side of the `segbatch` command: the file readers and writers of
//! `segbatch run` and the temporary-file cleanup on signals, exposed so that the fuzz
//! targets (in `fuzz/`) and the tests can call the readers on bytes.

pub mod cleanup;
pub mod format;
pub mod io;
