//! The test build reuses the release build: every crate the library and binary depend on is
//! built with the same features whether or not the dev-dependencies are in the build, and
//! with the same profile.

use std::collections::BTreeSet;
use std::process::Command;

/// `cargo tree`'s packages with their features, one line each, dev-dependencies in the
/// resolution or not.
fn packages_with_features(with_dev: bool) -> BTreeSet<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["tree", "--locked", "--offline", "--prefix", "none"])
        .args(["--format", "{p} [{f}]"]);
    if !with_dev {
        command.args(["--edges", "no-dev"]);
    }
    let output = command.output().expect("cargo tree runs");
    assert!(
        output.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .expect("cargo tree writes UTF-8")
        .lines()
        // A package seen again is printed with `(*)` after it: the first line holds it.
        .filter(|line| !line.ends_with("(*)"))
        .map(str::to_string)
        .collect()
}

#[test]
fn dev_dependencies_turn_on_no_feature_of_a_normal_dependency() {
    let release = packages_with_features(false);
    let test = packages_with_features(true);
    let differing: Vec<&String> = release.difference(&test).collect();
    assert!(
        differing.is_empty(),
        "the test build would rebuild these with other features (ask for the test build's \
         features in Cargo.toml's [dependencies]; `cargo tree -e features -i NAME` shows who \
         asks): {differing:#?}\nas the test build has them: {:#?}",
        test.iter()
            .filter(|line| differing
                .iter()
                .any(|d| d.split(' ').take(2).eq(line.split(' ').take(2))))
            .collect::<Vec<_>>()
    );
}

#[test]
fn the_release_profile_says_how_it_strips() {
    let manifest = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .expect("Cargo.toml reads");
    let release: Vec<&str> = manifest
        .lines()
        .skip_while(|line| line.trim() != "[profile.release]")
        .skip(1)
        .take_while(|line| !line.starts_with('['))
        .collect();
    assert!(
        release
            .iter()
            .any(|line| line.trim_start().starts_with("strip")),
        "[profile.release] must set `strip`, not leave it to Cargo's default (which follows \
         the debug setting), so the release and test builds resolve one profile; it has: \
         {release:#?}"
    );
}
