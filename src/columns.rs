//! Columns stored in whole SIMD groups, and the one definition every result batch is made
//! from ([`result_batch!`]).
//!
//! A [`Column`] holds `LANES` values per group, so a kernel loads and stores whole groups
//! with no scalar tail; `f32` groups are `wide::f32x8` values, so every 32-byte load and
//! store is aligned (unaligned columns from the system allocator start 16 bytes into a
//! cache line, and half of all accesses would then split two lines). Columns of one-byte
//! values (flags, `bool`, kinds) are plain `[T; LANES]` groups.
//!
//! A result batch is a set of such columns of one length: `result_batch!` writes the struct,
//! its accessors (each returning exactly `len()` values), `get` (an `Option`, as std's),
//! `iter`, the sizing used by the queries, and the view of its columns as groups that the
//! driver stores into (`…Out`, split in two for a tail or for threads).

use wide::{f32x8, f64x4};

/// Pairs processed at once by the kernel (the width of `wide::f32x8`).
pub const LANES: usize = 8;

/// `n` rounded up to a multiple of [`LANES`].
#[inline]
#[must_use]
pub const fn padded_len(n: usize) -> usize {
    n.div_ceil(LANES) * LANES
}

/// `len()` and `is_empty()` of a collection with a `len` field (`$what` names its items in
/// the docs).
macro_rules! len_methods {
    ($what:literal) => {
        #[doc = concat!("Number of ", $what, ".")]
        #[inline]
        #[must_use]
        pub fn len(&self) -> usize {
            self.len
        }

        #[doc = concat!("True when there are no ", $what, ".")]
        #[inline]
        #[must_use]
        pub fn is_empty(&self) -> bool {
            self.len == 0
        }
    };
}
pub(crate) use len_methods;

/// A value a column can hold, with how `LANES` of them are grouped in storage: `f32` and
/// `f64` coordinates and results, one-byte flags and kinds.
///
/// Public only so that [`Soa`](crate::Soa) can name its coordinate type; it lives in a
/// private module, so no other crate can implement it (a sealed trait).
pub trait Cell: Copy + PartialEq + core::fmt::Debug + Send + Sync + 'static {
    /// `LANES` values stored together.
    type Group: Copy + Send + Sync;
    /// A group of zeros (or defaults): the padding.
    const ZERO_GROUP: Self::Group;
    /// What `get` reports for a column that was not computed.
    const MISSING: Self;
    /// The groups as values.
    fn cells(groups: &[Self::Group]) -> &[Self];
    /// The groups as mutable values.
    fn cells_mut(groups: &mut [Self::Group]) -> &mut [Self];
    /// The groups as arrays, for stores of whole groups.
    fn groups_mut(groups: &mut [Self::Group]) -> &mut [[Self; LANES]];
}

impl Cell for f32 {
    type Group = f32x8;
    const ZERO_GROUP: f32x8 = f32x8::ZERO;
    const MISSING: f32 = f32::NAN;
    fn cells(groups: &[f32x8]) -> &[f32] {
        bytemuck::cast_slice(groups)
    }
    fn cells_mut(groups: &mut [f32x8]) -> &mut [f32] {
        bytemuck::cast_slice_mut(groups)
    }
    fn groups_mut(groups: &mut [f32x8]) -> &mut [[f32; LANES]] {
        bytemuck::cast_slice_mut(groups)
    }
}

/// `Cell` for one-byte values grouped as plain arrays; `$missing` is what an absent column
/// reports.
macro_rules! byte_cell {
    ($($t:ty = $missing:expr),* $(,)?) => {$(
        impl crate::columns::Cell for $t {
            type Group = [$t; crate::columns::LANES];
            const ZERO_GROUP: Self::Group = [$missing; crate::columns::LANES];
            const MISSING: $t = $missing;
            fn cells(groups: &[Self::Group]) -> &[$t] {
                groups.as_flattened()
            }
            fn cells_mut(groups: &mut [Self::Group]) -> &mut [$t] {
                groups.as_flattened_mut()
            }
            fn groups_mut(groups: &mut [Self::Group]) -> &mut [[$t; crate::columns::LANES]] {
                groups
            }
        }
    )*};
}
pub(crate) use byte_cell;

impl Cell for f64 {
    type Group = [f64x4; 2];
    const ZERO_GROUP: [f64x4; 2] = [f64x4::ZERO; 2];
    const MISSING: f64 = f64::NAN;
    fn cells(groups: &[[f64x4; 2]]) -> &[f64] {
        bytemuck::cast_slice(groups)
    }
    fn cells_mut(groups: &mut [[f64x4; 2]]) -> &mut [f64] {
        bytemuck::cast_slice_mut(groups)
    }
    fn groups_mut(groups: &mut [[f64x4; 2]]) -> &mut [[f64; LANES]] {
        bytemuck::cast_slice_mut(groups)
    }
}

byte_cell!(bool = false);

/// A column of `T` in whole groups of [`LANES`] values.
pub(crate) struct Column<T: Cell> {
    groups: Vec<T::Group>,
}

impl<T: Cell> Column<T> {
    /// A column with room for `n` values.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Column {
            groups: Vec::with_capacity(n.div_ceil(LANES)),
        }
    }

    /// Sets the length to `n` values rounded up to whole groups; new values are zero.
    pub(crate) fn resize_padded(&mut self, n: usize) {
        self.groups.resize(n.div_ceil(LANES), T::ZERO_GROUP);
    }

    /// Removes every value, keeping the allocation.
    pub(crate) fn clear(&mut self) {
        self.groups.clear();
    }

    /// Room for at least `n` more values.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.groups.reserve(n.div_ceil(LANES));
    }

    /// The column as whole groups, for stores.
    pub(crate) fn groups_mut(&mut self) -> &mut [[T; LANES]] {
        T::groups_mut(&mut self.groups)
    }
}

impl<T: Cell> Default for Column<T> {
    fn default() -> Self {
        Column { groups: Vec::new() }
    }
}

impl<T: Cell> Clone for Column<T> {
    fn clone(&self) -> Self {
        Column {
            groups: self.groups.clone(),
        }
    }
}

impl<T: Cell> core::ops::Deref for Column<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        T::cells(&self.groups)
    }
}

impl<T: Cell> core::ops::DerefMut for Column<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        T::cells_mut(&mut self.groups)
    }
}

impl<T: Cell> PartialEq for Column<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Cell> core::fmt::Debug for Column<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The first `len` values of `col`, or all of it when it is shorter (a column that was not
/// computed is empty).
#[inline]
pub(crate) fn first<T: Cell>(col: &Column<T>, len: usize) -> &[T] {
    &col[..col.len().min(len)]
}

/// Value `i` of `col`, or [`Cell::MISSING`] when the column was not computed.
#[inline]
pub(crate) fn value<T: Cell>(col: &Column<T>, i: usize) -> T {
    col.get(i).copied().unwrap_or(T::MISSING)
}

/// `groups` split after `mid` groups: the part before has exactly `mid` groups, which the
/// compiler sees when this is inlined into the driver's loop function, so the loop stores
/// without bounds checks.
///
/// # Panics
/// When the column has fewer than `mid` groups (a batch not sized for the call: a bug).
#[inline(always)]
pub(crate) fn split_groups<T, const W: usize>(
    groups: &mut [[T; W]],
    mid: usize,
) -> (&mut [[T; W]], &mut [[T; W]]) {
    groups.split_at_mut(mid)
}

/// Groups of [`LANES`] values as groups of `W` (`W` divides [`LANES`]): the store groups
/// of a kernel whose lane type is narrower than a storage group (`f64x4`).
#[inline]
pub(crate) fn regroup<T, const W: usize>(groups: &mut [[T; LANES]]) -> &mut [[T; W]] {
    const { assert!(LANES.is_multiple_of(W)) };
    groups.as_flattened_mut().as_chunks_mut::<W>().0
}

/// An array of pairs as a pair of arrays.
#[inline(always)]
pub(crate) fn unzip<A, B, const D: usize>(pairs: [(A, B); D]) -> ([A; D], [B; D]) {
    let mut firsts: [Option<A>; D] = core::array::from_fn(|_| None);
    let mut seconds: [Option<B>; D] = core::array::from_fn(|_| None);
    for (k, (a, b)) in pairs.into_iter().enumerate() {
        firsts[k] = Some(a);
        seconds[k] = Some(b);
    }
    (
        firsts.map(|a| a.expect("filled")),
        seconds.map(|b| b.expect("filled")),
    )
}

/// A batch's columns as groups, split in two (what [`result_batch!`] writes for its `…Out`).
pub(crate) trait SplitColumns: Sized {
    /// Splits every column after `mid` groups (see [`split_groups`]).
    fn split_columns(self, mid: usize) -> (Self, Self);
}

/// Output columns as whole groups: what the driver stores a kernel's results into.
pub(crate) trait GroupStore: Sized + Send {
    /// One group of results (a lane each), as the kernel returns them.
    type Lanes;
    /// Stores group `g`.
    fn store(&mut self, g: usize, lanes: &Self::Lanes);
    /// Splits after `mid` groups; the first part has exactly `mid` groups.
    fn split_at(self, mid: usize) -> (Self, Self);
}

/// Defines a result batch: a struct of columns of one length with accessors, `get`, `iter`,
/// sizing and a view as groups for the driver.
///
/// ```text
/// result_batch! {
///     /// docs
///     pub struct CpaBatch(Cpa) stored as CpaOut {
///         columns {
///             /// docs of the accessor
///             t: f32,
///             ...
///         }
///         points {
///             /// docs of the accessor
///             point_a: 3,
///             ...
///         }
///     }
/// }
/// ```
///
/// The item type (`Cpa`) has one field per column with the same name (`[f32; D]` for
/// points), which `get` fills. `points(f64) {…}` stores `f64` points;
/// `pub struct ClosestBatch<E>(Closest) …` writes a batch generic over its element type
/// (the columns typed `E` and the points `E`, the item `Closest<E>`). The driver stores into
/// `out::<W>()`, groups of `W` values (the kernel's lane width, a divisor of [`LANES`]).
macro_rules! result_batch {
    (
        $(#[$meta:meta])*
        pub struct $batch:ident($item:ident) stored as $out:ident {
            columns { $( $(#[$cmeta:meta])* $col:ident: $ty:ty, )* }
            points { $( $(#[$pmeta:meta])* $pcol:ident: $dim:literal, )* }
        }
    ) => {
        crate::columns::result_batch! {
            $(#[$meta])*
            pub struct $batch($item) stored as $out {
                columns { $( $(#[$cmeta])* $col: $ty, )* }
                points(f32) { $( $(#[$pmeta])* $pcol: $dim, )* }
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $batch:ident($item:ident) stored as $out:ident {
            columns { $( $(#[$cmeta:meta])* $col:ident: $ty:ty, )* }
            points($pty:ty) { $( $(#[$pmeta:meta])* $pcol:ident: $dim:literal, )* }
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $batch {
            len: usize,
            $( $col: crate::columns::Column<$ty>, )*
            $( $pcol: [crate::columns::Column<$pty>; $dim], )*
        }

        crate::columns::result_batch! {
            @impls [] $batch, $item, $item, $pty, $out, [] {
                columns { $( $(#[$cmeta])* $col: $ty, )* }
                points { $( $(#[$pmeta])* $pcol: $dim, )* }
            }
        }
    };
    (
        $(#[$meta:meta])*
        pub struct $batch:ident<$e:ident>($item:ident) stored as $out:ident {
            columns { $( $(#[$cmeta:meta])* $col:ident: $ty:ty, )* }
            points { $( $(#[$pmeta:meta])* $pcol:ident: $dim:literal, )* }
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, Default)]
        pub struct $batch<$e: crate::columns::Cell = f32> {
            len: usize,
            $( $col: crate::columns::Column<$ty>, )*
            $( $pcol: [crate::columns::Column<$e>; $dim], )*
        }

        crate::columns::result_batch! {
            @impls [$e: crate::columns::Cell] $batch<$e>, $item<$e>, $item, $e, $out, [$e,] {
                columns { $( $(#[$cmeta])* $col: $ty, )* }
                points { $( $(#[$pmeta])* $pcol: $dim, )* }
            }
        }
    };
    // What both forms share: `[$gen]` the batch's generic parameters, `$pty` its points'
    // element, `[$og]` the element parameter of `$out` (empty when the batch has none).
    (
        @impls [$($gen:tt)*] $self_ty:ty, $item_ty:ty, $item:ident, $pty:ty, $out:ident, [$($og:tt)*] {
            columns { $( $(#[$cmeta:meta])* $col:ident: $ty:ty, )* }
            points { $( $(#[$pmeta:meta])* $pcol:ident: $dim:literal, )* }
        }
    ) => {
        /// Two batches are equal when they hold the same results: the padding past `len`
        /// (what a reused batch kept from an earlier, longer call) is not compared.
        impl<$($gen)*> PartialEq for $self_ty {
            fn eq(&self, other: &Self) -> bool {
                self.len == other.len
                    $( && self.$col() == other.$col() )*
                    $( && self.$pcol() == other.$pcol() )*
            }
        }

        impl<$($gen)*> $self_ty {
            /// An empty batch (no allocation).
            #[must_use]
            pub fn new() -> Self {
                Self {
                    len: 0,
                    $( $col: Default::default(), )*
                    $( $pcol: Default::default(), )*
                }
            }

            crate::columns::len_methods!("results");

            $(
                $(#[$cmeta])*
                #[inline]
                #[must_use]
                pub fn $col(&self) -> &[$ty] {
                    crate::columns::first(&self.$col, self.len)
                }
            )*

            $(
                $(#[$pmeta])*
                #[must_use]
                pub fn $pcol(&self) -> [&[$pty]; $dim] {
                    core::array::from_fn(|k| crate::columns::first(&self.$pcol[k], self.len))
                }
            )*

            /// Result `i`, or `None` when `i >= len()`. Columns that were not computed read
            /// as NaN (flags as empty).
            #[must_use]
            pub fn get(&self, i: usize) -> Option<$item_ty> {
                (i < self.len).then(|| $item {
                    $( $col: crate::columns::value(&self.$col, i), )*
                    $( $pcol: core::array::from_fn(|k| crate::columns::value(&self.$pcol[k], i)), )*
                })
            }

            /// The results in order.
            pub fn iter(&self) -> impl ExactSizeIterator<Item = $item_ty> + '_ {
                (0..self.len).map(|i| self.get(i).expect("i < len"))
            }

            /// Sizes the columns for `len` results, padded to whole groups; the columns whose
            /// name `keep` rejects are emptied. Allocations are reused.
            #[allow(dead_code)]
            pub(crate) fn reset(&mut self, len: usize, keep: impl Fn(&str) -> bool) {
                self.len = len;
                $(
                    if keep(stringify!($col)) {
                        self.$col.resize_padded(len);
                    } else {
                        self.$col.clear();
                    }
                )*
                $(
                    for col in &mut self.$pcol {
                        if keep(stringify!($pcol)) {
                            col.resize_padded(len);
                        } else {
                            col.clear();
                        }
                    }
                )*
            }

            /// The columns as groups of `W` (a divisor of [`LANES`](crate::LANES): the lane
            /// width of the kernel that fills them), for the driver.
            pub(crate) fn out<const W: usize>(&mut self) -> $out<'_, $($og)* W> {
                $( let $pcol = {
                    let cols: [&mut crate::columns::Column<$pty>; $dim] = self.$pcol.each_mut();
                    cols.map(|c| crate::columns::regroup::<_, W>(c.groups_mut()))
                }; )*
                $out {
                    $( $col: crate::columns::regroup::<_, W>(self.$col.groups_mut()), )*
                    $( $pcol, )*
                }
            }
        }

        /// The columns of a batch as whole groups of `W`: what the driver stores into.
        pub(crate) struct $out<'a, $($og)* const W: usize> {
            $( pub $col: &'a mut [[$ty; W]], )*
            $( pub $pcol: [&'a mut [[$pty; W]]; $dim], )*
        }

        impl<$($og)* const W: usize> crate::columns::SplitColumns for $out<'_, $($og)* W> {
            #[inline(always)]
            fn split_columns(self, mid: usize) -> (Self, Self) {
                $( let $col = crate::columns::split_groups(self.$col, mid); )*
                $( let $pcol = crate::columns::unzip(
                    self.$pcol.map(|c| crate::columns::split_groups(c, mid)),
                ); )*
                (
                    $out {
                        $( $col: $col.0, )*
                        $( $pcol: $pcol.0, )*
                    },
                    $out {
                        $( $col: $col.1, )*
                        $( $pcol: $pcol.1, )*
                    },
                )
            }
        }
    };
}
pub(crate) use result_batch;

/// The rows of `D` columns as points of any type that converts from `[f32; D]`: read a
/// result's point columns (`point_a()`, `point_b()`) as `glam::Vec3`, `mint::Point3<f32>`,
/// `[f32; 3]`…
///
/// ```
/// use segbatch::{closest_points, Segment, Segments};
/// use segbatch::pairs::rows;
/// let a = Segments::from(&[Segment::new([0.0, 0.0, 0.0], [2.0, 0.0, 0.0])]);
/// let b = Segments::from(&[Segment::new([1.0, 1.0, 0.0], [1.0, 3.0, 0.0])]);
/// let out = closest_points(&a, &b);
/// let points: Vec<[f32; 3]> = rows(out.point_b()).collect();
/// assert_eq!(points, vec![[1.0, 1.0, 0.0]]);
/// ```
pub fn rows<'a, V: From<[f32; D]>, const D: usize>(
    columns: [&'a [f32]; D],
) -> impl ExactSizeIterator<Item = V> + 'a {
    let len = columns.iter().map(|c| c.len()).min().unwrap_or(0);
    (0..len).map(move |i| V::from(core::array::from_fn(|k| columns[k][i])))
}
