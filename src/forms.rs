//! The four public forms of every batched query, written once.
//!
//! A query supplies one function, `run(inputs…, options…, parallel, &mut out) ->
//! Result<(), Error>`, and [`query_forms!`] writes
//!
//! | form | what it does |
//! |---|---|
//! | `q(inputs…) -> Out` | default options, a new output; panics on an [`Error`](crate::Error) |
//! | `q_into(inputs…, options…, &mut out) -> Result<(), Error>` | the general call, buffers reused |
//! | `par_q(inputs…) -> Out` | `q` on all cores (feature `rayon`) |
//! | `par_q_into(inputs…, options…, &mut out) -> Result<(), Error>` | `q_into` on all cores |
//!
//! so that the naming rule of the crate docs holds for every query by construction, and
//! every cell of the modules' tables exists.

/// Writes the four forms of a query (see the module docs). The doc comments given are those
/// of `q` (its `# Panics` section is added) and of `q_into` (its `# Errors` section is the
/// query's own); the parallel forms refer to them.
macro_rules! query_forms {
    (
        $(#[$doc:meta])*
        pub fn $name:ident / $into:ident / $par:ident / $par_into:ident
            <$($lt:lifetime),* $(; $($tp:ident: $bound:path),+)?> ($($arg:ident: $ty:ty),* $(,)?)
            with ($($opt:ident: $oty:ty = $default:expr),* $(,)?)
            -> $out:ty = $run:path;
        $(#[$into_doc:meta])*
        into;
    ) => {
        $(#[$doc])*
        ///
        /// # Panics
        #[doc = concat!(
            "When [`", stringify!($into), "`] returns an error (the inputs do not fit ",
            "together, or the output cannot be allocated): this form panics with its message."
        )]
        #[must_use]
        pub fn $name<$($lt,)* $($($tp: $bound),+)?>($($arg: $ty),*) -> $out {
            let mut out = <$out>::default();
            $run($($arg.into(),)* $($default,)* false, &mut out)
                .unwrap_or_else(|e| panic!("segbatch: {e}"));
            out
        }

        $(#[$into_doc])*
        pub fn $into<$($lt,)* $($($tp: $bound),+)?>(
            $($arg: $ty,)*
            $($opt: $oty,)*
            out: &mut $out,
        ) -> Result<(), crate::batch::Error> {
            $run($($arg.into(),)* $($opt,)* false, out)
        }

        #[doc = concat!("[`", stringify!($name), "`] on all cores, bitwise the same results.")]
        ///
        /// # Panics
        #[doc = concat!("As [`", stringify!($name), "`].")]
        #[cfg(feature = "rayon")]
        #[must_use]
        pub fn $par<$($lt,)* $($($tp: $bound),+)?>($($arg: $ty),*) -> $out {
            let mut out = <$out>::default();
            $run($($arg.into(),)* $($default,)* true, &mut out)
                .unwrap_or_else(|e| panic!("segbatch: {e}"));
            out
        }

        #[doc = concat!("[`", stringify!($into), "`] on all cores, bitwise the same results.")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($into), "`].")]
        #[cfg(feature = "rayon")]
        pub fn $par_into<$($lt,)* $($($tp: $bound),+)?>(
            $($arg: $ty,)*
            $($opt: $oty,)*
            out: &mut $out,
        ) -> Result<(), crate::batch::Error> {
            $run($($arg.into(),)* $($opt,)* true, out)
        }
    };
}
pub(crate) use query_forms;

/// Writes the two forms of a streaming query from one function `run(inputs…, parallel,
/// &mut dyn FnMut(&[Hit]) -> bool) -> Result<(), Error>` (the sink answering whether to go
/// on): `q(inputs…, sink)` and `par_q(inputs…, sink)` (feature `rayon`), the second handing
/// the same blocks in the same order to `sink` on the calling thread. The sink returns `()`
/// or a [`ControlFlow<()>`](core::ops::ControlFlow) ([`SinkFlow`](crate::prune::SinkFlow)),
/// so a sink that may stop needs no third form. The doc comment given is `q`'s (with its
/// `# Errors`); a `# Stopping early` section is added.
macro_rules! stream_forms {
    (
        $(#[$doc:meta])*
        pub fn $name:ident / $par:ident <$($lt:lifetime),* $(; $($tp:ident: $bound:path),+)?> ($($arg:ident: $ty:ty),* $(,)?)
            -> sink(&[$hit:ty]) = $run:path;
    ) => {
        $(#[$doc])*
        ///
        /// # Stopping early
        /// `sink` returns `()` to take every hit, or a
        /// [`ControlFlow<()>`](core::ops::ControlFlow): [`ControlFlow::Break`](core::ops::ControlFlow::Break)
        /// ends the query promptly, with no further block handed on and `Ok(())` returned
        /// (see [`SinkFlow`](crate::sets::SinkFlow)).
        pub fn $name<$($lt,)* $($($tp: $bound,)+)? F: crate::prune::SinkFlow>(
            $($arg: $ty,)*
            mut sink: impl FnMut(&[$hit]) -> F,
        ) -> Result<(), crate::batch::Error> {
            $run($($arg.into(),)* false, &mut |block: &[$hit]| crate::prune::SinkFlow::go_on(sink(block)))
        }

        #[doc = concat!(
            "[`", stringify!($name), "`] on all cores: the blocks are computed on as many ",
            "threads as the rayon pool has (each a few blocks ahead at most) and handed to ",
            "`sink` on the calling thread, the same blocks in the same order as the ",
            "sequential form; a sink that stops it stops every thread at its next block."
        )]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`].")]
        #[cfg(feature = "rayon")]
        pub fn $par<$($lt,)* $($($tp: $bound,)+)? F: crate::prune::SinkFlow>(
            $($arg: $ty,)*
            mut sink: impl FnMut(&[$hit]) -> F,
        ) -> Result<(), crate::batch::Error> {
            $run($($arg.into(),)* true, &mut |block: &[$hit]| crate::prune::SinkFlow::go_on(sink(block)))
        }
    };
}
pub(crate) use stream_forms;
