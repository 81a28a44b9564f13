//! The other copies of the extension in a wheel: `SEGBATCH_SIMD_COPIES` lists them (`v3`,
//! `v4`, comma-separated; pyproject.toml's `[tool.maturin]` sets `v3,v4` for every maturin
//! build, `maturin build`, `pip install`, `maturin develop`, unless the environment has the
//! variable). For each, this script builds the extension again, for x86-64-v3 (AVX2 + FMA)
//! as `segbatch._segbatch_v3` and for x86-64-v4 (AVX-512) as `segbatch._segbatch_v4`, and
//! puts it beside the Python sources, where maturin packs it with the baseline build
//! (x86-64, SSE2) it is making. `import segbatch` then picks the best copy the CPU runs;
//! `segbatch._segbatch.simd_copies()` names the copies the build made (`None` for a build
//! that was not asked for any list: a plain cargo build, another target).
//!
//! Why more builds and not one: `wide` picks its instructions at compile time only
//! (`cfg(target_feature)`), so AVX-512, AVX2 and SSE2 kernels cannot come from one
//! compilation. Each copy is built by a nested `cargo build` (side by side, sharing cargo's
//! job slots) into its own target directory under `OUT_DIR` (incremental on the next run),
//! with the rustflags set to its level over whatever the outer build uses. Plain cargo
//! builds of this package (clippy, `cargo build`) do not set the variable and build one
//! module.
//!
//! Only for x86-64 Linux targets (the `.abi3.so` name and the levels are theirs); other
//! targets get one module at the flags they are built with.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The copies: name (the module is `_segbatch_{name}`), the feature that gives the module
/// that name, `target-cpu`.
const COPIES: [(&str, &str, &str); 2] = [
    ("v3", "v3-module", "x86-64-v3"),
    ("v4", "v4-module", "x86-64-v4"),
];

fn main() {
    println!("cargo:rerun-if-env-changed=SEGBATCH_SIMD_COPIES");
    println!("cargo:rerun-if-changed=build.rs");
    let a_copy = COPIES.iter().any(|(_, feature, _)| {
        let var = format!("CARGO_FEATURE_{}", feature.to_uppercase().replace('-', "_"));
        env::var_os(var).is_some()
    });
    let target = env::var("TARGET").unwrap_or_default();
    // Plain cargo builds, the copies themselves and other targets: one module, and no
    // list of copies (`simd_copies()` is None).
    let listed = match env::var("SEGBATCH_SIMD_COPIES") {
        Ok(listed) if !a_copy && target == "x86_64-unknown-linux-gnu" => listed,
        _ => return,
    };
    let wanted: Vec<_> = listed
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            COPIES
                .iter()
                .find(|(copy, _, _)| *copy == name)
                .unwrap_or_else(|| {
                    panic!("SEGBATCH_SIMD_COPIES: unknown copy {name:?} (expected v3, v4 or both)")
                })
        })
        .collect();
    // The copies this build makes (perhaps none), for `simd_copies()`.
    let names: Vec<&str> = wanted.iter().map(|(copy, _, _)| *copy).collect();
    println!(
        "cargo:rustc-env=SEGBATCH_SIMD_COPIES_BUILT={}",
        names.join(",")
    );
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // The copies are rebuilt when the sources of the crate or of the extension change.
    for path in [
        "src",
        "Cargo.toml",
        "../src",
        "../Cargo.toml",
        "../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    // The Python sources: python/segbatch in the repository, segbatch/ beside python/ in a
    // source distribution (maturin moves them to the project root).
    let package = [
        manifest_dir.join("segbatch"),
        manifest_dir.join("../segbatch"),
    ]
    .into_iter()
    .find(|dir| dir.join("__init__.py").is_file())
    .unwrap_or_else(|| {
        panic!(
            "the extension's SIMD copies: no segbatch/__init__.py in or beside {}",
            manifest_dir.display()
        )
    });
    // A copy an earlier build left and this one does not make would be packed, stale.
    for (copy, _, _) in COPIES.iter().filter(|c| !wanted.contains(c)) {
        let stale = package.join(format!("_segbatch_{copy}.abi3.so"));
        if stale.exists() {
            std::fs::remove_file(&stale)
                .unwrap_or_else(|e| panic!("removing {}: {e}", stale.display()));
        }
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let builds: Vec<(String, PathBuf, Child)> = wanted
        .into_iter()
        .map(|&(copy, feature, cpu)| {
            let target_dir = out_dir.join(format!("{cpu}-target"));
            let child = build(&manifest_dir, &target, &target_dir, feature, cpu, release);
            (format!("_segbatch_{copy}"), target_dir, child)
        })
        .collect();
    for (module, target_dir, mut child) in builds {
        let status = child
            .wait()
            .unwrap_or_else(|e| panic!("{module}: waiting for cargo: {e}"));
        assert!(status.success(), "{module}: cargo build failed ({status})");
        let built = target_dir
            .join(&target)
            .join(if release { "release" } else { "debug" })
            .join("lib_segbatch.so");
        let dest = package.join(format!("{module}.abi3.so"));
        std::fs::copy(&built, &dest).unwrap_or_else(|e| {
            panic!(
                "{module}: copying {} to {}: {e}",
                built.display(),
                dest.display()
            )
        });
    }
}

/// Starts `cargo build` of this package's library with `feature`, for `cpu`, into
/// `target_dir`.
fn build(
    manifest_dir: &Path,
    target: &str,
    target_dir: &Path,
    feature: &str,
    cpu: &str,
    release: bool,
) -> Child {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command
        .current_dir(manifest_dir)
        .args(["build", "--quiet", "--lib", "--features", feature])
        .arg("--manifest-path")
        .arg(manifest_dir.join("Cargo.toml"))
        .arg("--target")
        .arg(target)
        .arg("--target-dir")
        .arg(target_dir)
        // The copy's flags replace every other source of rustflags.
        .env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={cpu}"))
        .env_remove("RUSTFLAGS")
        .env_remove("SEGBATCH_SIMD_COPIES");
    if release {
        command.arg("--release");
    }
    command
        .spawn()
        .unwrap_or_else(|e| panic!("the {cpu} copy of the extension: cannot run cargo: {e}"))
}
