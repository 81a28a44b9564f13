//! The second copy of the extension in a wheel: when `SEGBATCH_V3_COPY=1` (set by
//! pyproject.toml's `[tool.maturin]` for every maturin build: `maturin build`, `pip install`,
//! `maturin develop`), this script builds the extension again for x86-64-v3 (AVX2 + FMA)
//! as `segbatch._segbatch_v3` and puts it beside the Python sources, where maturin packs it
//! with the baseline build (x86-64, SSE2) it is making. `import segbatch` then picks the v3
//! copy on a CPU that has those instructions and the baseline one elsewhere.
//!
//! Why a second build and not one: `wide` picks its instructions at compile time only
//! (`cfg(target_feature)`), so the AVX2 kernels and the SSE2 ones cannot come from one
//! compilation. The copy is built by a nested `cargo build` into its own target directory
//! under `OUT_DIR` (incremental on the next run), with the rustflags set to x86-64-v3 over
//! whatever the outer build uses. Plain cargo builds of this package (the oracle, clippy)
//! do not set the variable and build one copy.
//!
//! Only for x86-64 Linux targets (the `.abi3.so` name and the v3 level are theirs); other
//! targets get one copy at the flags they are built with.

use std::env;
use std::path::PathBuf;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-env-changed=SEGBATCH_V3_COPY");
    println!("cargo:rerun-if-changed=build.rs");
    let wanted = env::var("SEGBATCH_V3_COPY").is_ok_and(|v| v == "1");
    let copy = env::var_os("CARGO_FEATURE_V3_MODULE").is_some();
    let target = env::var("TARGET").unwrap_or_default();
    if !wanted || copy || target != "x86_64-unknown-linux-gnu" {
        return;
    }
    let manifest_dir = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    // The copy is rebuilt when the sources of the crate or of the extension change.
    for path in [
        "src",
        "Cargo.toml",
        "../src",
        "../Cargo.toml",
        "../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets it"));
    let target_dir = out_dir.join("v3-target");
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let profile = env::var("PROFILE").unwrap_or_else(|_| "release".into());
    let mut build = Command::new(cargo);
    build
        .current_dir(&manifest_dir)
        .args(["build", "--quiet", "--lib", "--features", "v3-module"])
        .arg("--manifest-path")
        .arg(manifest_dir.join("Cargo.toml"))
        .arg("--target")
        .arg(&target)
        .arg("--target-dir")
        .arg(&target_dir)
        // The copy's flags replace every other source of rustflags.
        .env("CARGO_ENCODED_RUSTFLAGS", "-Ctarget-cpu=x86-64-v3")
        .env_remove("RUSTFLAGS")
        .env_remove("SEGBATCH_V3_COPY");
    if profile == "release" {
        build.arg("--release");
    }
    let status = build
        .status()
        .unwrap_or_else(|e| panic!("the x86-64-v3 copy of the extension: cannot run cargo: {e}"));
    assert!(
        status.success(),
        "the x86-64-v3 copy of the extension: cargo build failed ({status})"
    );
    let built = target_dir
        .join(&target)
        .join(if profile == "release" {
            "release"
        } else {
            "debug"
        })
        .join("lib_segbatch.so");
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
            "the x86-64-v3 copy of the extension: no segbatch/__init__.py in or beside {}",
            manifest_dir.display()
        )
    });
    let dest = package.join("_segbatch_v3.abi3.so");
    std::fs::copy(&built, &dest).unwrap_or_else(|e| {
        panic!(
            "the x86-64-v3 copy of the extension: copying {} to {}: {e}",
            built.display(),
            dest.display()
        )
    });
}
