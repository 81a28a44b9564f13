//! The pruning layer under the set queries: a uniform grid of bounding spheres that names
//! candidate pairs, conservatively, for the kernel to decide.
//!
//! # Why a grid (and not sort-and-sweep)
//!
//! Sort-and-sweep on one axis tests every pair whose intervals overlap on that axis: for
//! `N` short segments spread through a cube that is `N·w/L` candidates per segment (`w` the
//! interval width, `L` the cube's side), growing like `N^(2/3)`. The grid tests only the
//! neighbouring cells, a constant number of candidates per segment at a given density, so
//! the work is `O(N log N + K)` (the log from sorting the cell keys). Measured on the
//! `sets` workload (`segbatch bench --only sets`, docs/performance.md): at 100K hair-like
//! segments the sweep over x tests about 40 times as many candidates as the grid's
//! half-shell, and the gap grows with `N`.
//!
//! # The grid
//!
//! Every object is reduced to a bounding sphere (centre, radius inflated against rounding:
//! [`sphere`], the sphere of the brute-force queries' prefilter too). The cell edge is
//! `c >= 2·cap + r`, `cap` the largest sphere radius kept in the cells and `r` the query
//! radius: two spheres within `r` of each other then have their centres in the same or
//! neighbouring cells. With a radius an object (capsules) each sphere is grown by its
//! object's own radius and `r` is 0: two capsules within `rI + rJ` then have spheres that
//! meet, the cells are sized by the largest grown sphere, and the kernel decides each
//! candidate once with `rI + rJ`. `cap` is the largest radius when that is at most twice
//! the 99th percentile, else the 99th percentile ([`Grid::build`]); the spheres above it (at most
//! 1% of the set) are kept aside as *big* objects and meet the others through box queries
//! over the cells, so a few very long segments do not inflate every cell.
//!
//! Objects are sorted by cell key (`z`, then `y`, then `x`, most significant first), then
//! by centre `x` within a cell, so a run of cells along `x` is one contiguous range of the
//! sorted sphere columns, sorted by `x`: the pair loop reads 8 candidate spheres at a time
//! straight from memory. Within one set the pairs are enumerated once, over a half shell
//! (the cell itself, its `+x` neighbour and the rows `y+1` and `z+1`: 13 neighbours in 3D,
//! 4 in 2D), with cursors that only move forward.
//!
//! The pair enumeration ([`Plan`]) cuts space into columns along `x` instead of cubes
//! (cells on the other axes only) and sweeps along `x` within each column and its half
//! shell of neighbouring columns: object `p` meets only the window of each neighbour whose
//! centres lie within the largest bound of the sphere test on `x` (two cursors a neighbour
//! that only move forward). Measured on 100K hair sticks
//! (callgrind, one thread), this tests 156 lanes an object where the 3x3x3 cubes tested 249
//! (the candidates are the same), and takes the whole query from 567M to 552M
//! instructions: the lanes saved pay for the cursors and a little more.
//!
//! The grid never decides a result: it only names candidates, and its sphere test is the
//! prefilter of the brute-force queries, so a query with and without it reports the same
//! pairs with the same values. The scan hands its candidates on a group of eight at a time
//! ([`Group`](store::Group)); a narrow phase may drop lanes with a tighter test that is as
//! conservative ([`Narrow::refine`]: the radius queries test the segment against the
//! other's sphere, which halves the candidates the gathered kernel sees on short segments).
//!
//! # Running a set query
//!
//! A query supplies its narrow phase ([`Narrow`]: which pair a candidate stands for, and
//! the kernel run that decides a batch of candidates); a [`Plan`] cuts the grid into tasks
//! of about [`TASK_OBJECTS`](plan::TASK_OBJECTS) objects (whole cells; a crowded cell, such
//! as a set along one line or many copies of one object, in runs of its objects; then runs
//! of big objects), feeds each task's candidates to the narrow phase [`FLUSH`](plan::FLUSH)
//! at a time, and hands each task's hits on in task order, in blocks of at most
//! [`MAX_BLOCK_HITS`]: a task hands its hits on whenever another run of the narrow phase
//! could take them past the cap, so no layout of the set (collinear, identical, dense)
//! makes a block larger. The parallel forms run the tasks on as many threads as the rayon
//! pool has, each with a queue of at most [`BLOCKS_AHEAD`](stream::BLOCKS_AHEAD) finished
//! blocks that the calling thread reads in task order ([`ordered`]). The tasks and their
//! blocks do not depend on the thread count, so every thread count gives the same blocks in
//! the same order, and a streamed query holds the input, the grid and a few blocks a
//! thread, never its whole output.
//!
//! # Extreme inputs
//!
//! The grid is built for any finite radius and any coordinates: its cell and origin are
//! `f64`, the spheres' lengths are measured in `f64`, and a sphere whose radius overflows
//! `f32` is a big object, met through the box queries (which then cover every cell). So a
//! set with a wall from `-f32::MAX` to `f32::MAX` still gets a grid, whose big objects
//! cost a pass over the others each. Objects with a NaN or infinite coordinate have no
//! sphere: they are never within any radius and are left out of the grid.
//!
//! # `f64` sets
//!
//! The grid stays `f32` for `f64` sets: the set is moved to a local frame ([`LocalFrame`], the
//! centre of its bounding box subtracted in `f64`) and rounded to `f32`, and each sphere is
//! grown by the `f64` kernel's error bound, so the spheres hold the `f64` objects and every
//! pair the `f64` kernel reports is a candidate. The narrow phase reads the `f64` objects,
//! unmoved (the `f64` radius queries, `src/sets/near.rs`; the 2D crossing sets move
//! to the same kind of frame).

mod frame;
mod grid;
mod plan;
mod spheres;
mod store;
mod stream;

pub(crate) use frame::{LocalFrame, rounding as frame_rounding};
pub(crate) use grid::Grid;
pub use plan::MAX_BLOCK_HITS;
pub(crate) use plan::{Narrow, Plan};
pub(crate) use spheres::{
    BOUND_REL, KERNEL_ABS64, SphereColumns, each_bit, lane_bits, pad_slot, sphere,
};
pub(crate) use store::{Kept, fill_each};
pub(crate) use stream::ordered;
pub use stream::{SinkFlow, Stop};
