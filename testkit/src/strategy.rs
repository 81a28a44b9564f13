//! The generators as proptest strategies (feature `proptest`).
//!
//! A strategy draws a *tape* of random words and runs a generator on
//! [`Rng::from_tape`](crate::Rng::from_tape): proptest shrinks the words towards zero, so a
//! failing case shrinks to simpler draws of the same generator. Case counts come from
//! `PROPTEST_CASES` as usual (this module never sets them).

use proptest::prelude::*;

use crate::motion::{IntPair, MovingPair};
use crate::pairs::{self, Pair, PairFn};
use crate::rng::Rng;

/// Words on the tape; a generator that draws more continues with a seeded stream.
const TAPE: usize = 48;

/// A generator seeded by proptest (see the module docs).
pub fn rng() -> impl Strategy<Value = Rng> {
    (prop::collection::vec(any::<u64>(), TAPE), any::<u64>())
        .prop_map(|(tape, seed)| Rng::from_tape(tape, seed))
}

/// The strategy of one generator function.
pub fn of<T: core::fmt::Debug>(f: fn(&mut Rng) -> T) -> impl Strategy<Value = T> {
    rng().prop_map(move |mut r| f(&mut r))
}

/// The strategy of a pair generator, boxed (for tables of classes).
pub fn pair(f: PairFn) -> BoxedStrategy<Pair> {
    of(f).boxed()
}

/// The class named `name` in [`pairs::CLASSES`]; panics on an unknown name.
pub fn class(name: &str) -> BoxedStrategy<Pair> {
    let c = pairs::find_class(name).unwrap_or_else(|| panic!("unknown class {name}"));
    pair(c.pair)
}

/// Random position and orientation ([`pairs::general`]).
pub fn general() -> impl Strategy<Value = Pair> {
    of(pairs::general)
}

/// [`pairs::near_parallel`].
pub fn near_parallel() -> impl Strategy<Value = Pair> {
    of(pairs::near_parallel)
}

/// [`pairs::collinear`].
pub fn collinear() -> impl Strategy<Value = Pair> {
    of(pairs::collinear)
}

/// [`pairs::parallel_overlapping`] or [`pairs::parallel_disjoint`].
pub fn parallel() -> impl Strategy<Value = Pair> {
    prop_oneof![
        of(pairs::parallel_overlapping),
        of(pairs::parallel_disjoint)
    ]
}

/// [`pairs::tiny`] or [`pairs::zero_length`].
pub fn tiny_or_zero() -> impl Strategy<Value = Pair> {
    prop_oneof![of(pairs::tiny), of(pairs::zero_length)]
}

/// [`pairs::small_angle_cross`].
pub fn small_angle_cross() -> impl Strategy<Value = Pair> {
    of(pairs::small_angle_cross)
}

/// [`pairs::long_skinny`].
pub fn long_skinny() -> impl Strategy<Value = Pair> {
    of(pairs::long_skinny)
}

/// [`pairs::far_from_origin`].
pub fn far_from_origin() -> impl Strategy<Value = Pair> {
    of(pairs::far_from_origin)
}

/// [`pairs::extreme_scale`].
pub fn extreme_scale() -> impl Strategy<Value = Pair> {
    of(pairs::extreme_scale)
}

/// [`pairs::non_finite`].
pub fn non_finite() -> impl Strategy<Value = Pair> {
    of(pairs::non_finite)
}

/// [`pairs::full_range`]: the whole finite f32 range.
pub fn full_range() -> impl Strategy<Value = Pair> {
    of(pairs::full_range)
}

/// Every finite class, mixed evenly ([`pairs::any_finite`]).
pub fn any_finite() -> impl Strategy<Value = Pair> {
    of(pairs::any_finite)
}

/// Every finite class at its own scale ([`pairs::any_unscaled`]), for tests that scale.
pub fn any_unscaled() -> impl Strategy<Value = Pair> {
    of(pairs::any_unscaled)
}

/// Every class including non-finite ([`pairs::any`]).
pub fn any_pair() -> impl Strategy<Value = Pair> {
    of(pairs::any)
}

/// A moving pair of a random kind ([`crate::motion::moving_pair`]).
pub fn moving_pair() -> impl Strategy<Value = MovingPair> {
    of(|r| {
        let kind = r.below(crate::motion::MOTION_KINDS);
        crate::motion::moving_pair(r, kind)
    })
}

/// Integer 2D pairs that meet ([`crate::motion::meeting_int_pair`]).
pub fn meeting_int_pair() -> impl Strategy<Value = IntPair> {
    of(crate::motion::meeting_int_pair)
}

/// Integer 2D pairs apart by more than `gap_rel · S` ([`crate::motion::disjoint_int_pair`]).
pub fn disjoint_int_pair(gap_rel: f64) -> impl Strategy<Value = IntPair> {
    rng().prop_map(move |mut r| crate::motion::disjoint_int_pair(&mut r, gap_rel))
}
