//! Helpers shared by the CLI's integration tests (`mod common;` in each): the binary, a run of
//! it, its standard error, and temporary paths. Each test file uses only some of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `texelflow` binary, on the Vulkan backend (lavapipe where no GPU is), with an
/// `XDG_RUNTIME_DIR` (`/tmp` where none is set). `CUDA_VISIBLE_DEVICES` is removed: a machine
/// (or a scheduler) that sets it would otherwise choose the tests' device.
pub fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_texelflow"));
    c.env(
        "XDG_RUNTIME_DIR",
        std::env::var("XDG_RUNTIME_DIR").unwrap_or_else(|_| "/tmp".into()),
    );
    c.env("WGPU_BACKEND", "vulkan");
    c.env_remove("CUDA_VISIBLE_DEVICES");
    c
}

/// Runs the binary with `args` to its end.
pub fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

/// Standard error, less the note that the adapter is a software rasterizer (lavapipe in CI),
/// so that tests can count the lines a case gives.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .filter(|l| !l.contains("is a software rasterizer"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `name` in this test binary's temporary folder (`texelflow-TEST-PID`, made if missing).
pub fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "texelflow-{}-{}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// A fresh, empty folder for one test (`texelflow-TEST-PID-test`).
pub fn dir(test: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!(
        "texelflow-{}-{}-{test}",
        env!("CARGO_CRATE_NAME"),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// A path as the `&str` argument it is given as.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
