//! Which SIMD instructions this build uses, and which the CPU could use.
//!
//! `wide` chooses its instructions when the crate is compiled (from `-C target-cpu` /
//! `-C target-feature`), not at run time, so a default x86_64 build runs the 8-lane kernel as
//! two SSE2 halves with unfused multiply-adds. [`SIMD_LEVEL`] names what this build was
//! compiled for; [`cpu_simd_level`] what the running CPU supports, so a tool can warn when
//! the two differ (see "Enabling SIMD" in the README).

/// The instruction set the kernel was compiled for: `"avx512f+fma"`, `"avx2+fma"`,
/// `"avx"`, `"sse4.1"`, `"sse2"`, `"neon"`, `"simd128"` or `"scalar"`.
///
/// `"neon"` is every aarch64 build (Graviton, Apple silicon: the aarch64 targets all enable
/// NEON): `wide::f32x8` is two 128-bit NEON registers there, with fused multiply-adds, so
/// the kernel rounds as on x86-64-v3 (docs/architecture.md, "Which builds give the same
/// bits").
///
/// `wide::f32x8` uses 256-bit AVX registers (with FMA when available) on every AVX build; an
/// AVX-512 build is reported as such because it is what the compiler targets, and there the
/// closest-points kernel runs 16 lanes (`wide::f32x16`, one 512-bit register):
/// [`SIMD_LANES`] says how many.
pub const SIMD_LEVEL: &str = if cfg!(all(target_feature = "avx512f", target_feature = "fma")) {
    "avx512f+fma"
} else if cfg!(all(target_feature = "avx2", target_feature = "fma")) {
    "avx2+fma"
} else if cfg!(target_feature = "avx") {
    "avx"
} else if cfg!(target_feature = "sse4.1") {
    "sse4.1"
} else if cfg!(target_feature = "sse2") {
    "sse2"
} else if cfg!(all(target_arch = "aarch64", target_feature = "neon")) {
    "neon"
} else if cfg!(target_feature = "simd128") {
    "simd128"
} else {
    "scalar"
};

/// True in a build with the `same-bits` feature: every result is the same bits on every CPU
/// (x86-64 with SSE2, AVX2 or AVX-512, aarch64), those of a default plain-SSE2 build. No
/// multiply-add is fused ([`FUSED_MUL_ADD`](crate::reference::FUSED_MUL_ADD) is false) and
/// the kernels run 8 lanes (`f64`: 4) whatever the CPU. [`SIMD_LEVEL`] still names the
/// instructions the build uses.
pub const SAME_BITS: bool = cfg!(feature = "same-bits");

/// Pairs per vector in the closest-points kernel of this build: 16 with `avx512f`, else 8
/// ([`Width::BUILD`](crate::pairs::Width::BUILD)).
pub const SIMD_LANES: usize = crate::pairs::Width::BUILD.lanes();

/// Pairs per vector in the `f64` closest-points kernel of this build
/// ([`closest_points`](crate::pairs::closest_points) and the other `f64` queries): 8 with
/// `avx512f` (`wide::f64x8`, one 512-bit register), else 4 (`wide::f64x4`). Always half of
/// [`SIMD_LANES`]: a register holds half as many `f64`.
///
/// ```
/// assert_eq!(2 * segbatch::simd::SIMD_LANES64, segbatch::simd::SIMD_LANES);
/// ```
pub const SIMD_LANES64: usize = <crate::lanes::F64Lanes as crate::lanes::Lane>::WIDTH;

/// The best level (in the terms of [`SIMD_LEVEL`]) the running CPU supports, detected at
/// run time. On targets without run-time detection this is [`SIMD_LEVEL`].
#[must_use]
pub fn cpu_simd_level() -> &'static str {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("fma") {
            "avx512f+fma"
        } else if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            "avx2+fma"
        } else if std::is_x86_feature_detected!("avx") {
            "avx"
        } else if std::is_x86_feature_detected!("sse4.1") {
            "sse4.1"
        } else {
            "sse2"
        }
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        SIMD_LEVEL
    }
}

/// The CPU's level when it is faster for `wide::f32x8` than what this build uses (the
/// build lacks AVX2 + FMA and the CPU has them, or has AVX or SSE4.1 beyond the build's),
/// else `None`. A tool can tell its user to rebuild (see "Enabling SIMD" in the README).
///
/// ```
/// if let Some(cpu) = segbatch::simd::simd_upgrade() {
///     eprintln!("built for {}, the CPU has {cpu}", segbatch::simd::SIMD_LEVEL);
/// }
/// ```
#[must_use]
pub fn simd_upgrade() -> Option<&'static str> {
    let rank = |level: &str| match level {
        "avx512f+fma" | "avx2+fma" => 3,
        "avx" => 2,
        "sse4.1" => 1,
        _ => 0,
    };
    let cpu = cpu_simd_level();
    (rank(cpu) > rank(SIMD_LEVEL)).then_some(cpu)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_level_names_the_architecture() {
        if cfg!(target_arch = "aarch64") {
            assert_eq!(super::SIMD_LEVEL, "neon");
            assert_eq!(super::cpu_simd_level(), "neon");
        }
        if cfg!(target_arch = "x86_64") {
            assert!(super::SIMD_LEVEL.starts_with("avx") || super::SIMD_LEVEL.starts_with("sse"));
        }
        assert_eq!(super::SAME_BITS, cfg!(feature = "same-bits"));
    }
}
