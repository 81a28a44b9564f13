//! `docs/cli.md` lists every subcommand and every option that `segbatch --help` and each
//! subcommand's `--help` show: a new option without its line in the reference fails here.

use std::process::Command;

/// The long help of `segbatch ARGS --help`.
fn help(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_segbatch"))
        .args(args)
        .arg("--help")
        .output()
        .expect("the segbatch binary runs");
    assert!(out.status.success(), "segbatch {args:?} --help");
    String::from_utf8(out.stdout).expect("UTF-8 help")
}

/// The options of a help text: the `-x` and `--name` at the start of each line of its
/// `Options:` section.
fn options(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.starts_with("Options:") {
            inside = true;
            continue;
        }
        if inside && !line.is_empty() && !line.starts_with(' ') {
            inside = false;
        }
        let trimmed = line.trim_start();
        if !inside || !trimmed.starts_with('-') || line.len() - trimmed.len() > 6 {
            continue;
        }
        for word in trimmed.split([',', ' ']) {
            let name: String = word
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name.starts_with('-') && name.len() > 1 {
                found.push(name);
            }
        }
    }
    found
}

/// The subcommands `segbatch --help` lists.
fn subcommands(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_subcommand_and_option_is_in_the_reference() {
    let docs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/cli.md"))
        .expect("docs/cli.md");
    let top = help(&[]);
    let commands = subcommands(&top);
    assert!(commands.len() >= 7, "subcommands: {commands:?}");
    let mut missing = Vec::new();
    for option in options(&top) {
        if !docs.contains(&format!("`{option}")) {
            missing.push(format!("segbatch {option}"));
        }
    }
    for command in &commands {
        if !docs.contains(&format!("## `segbatch {command}")) {
            missing.push(format!("the section of segbatch {command}"));
        }
        let listed = options(&help(&[command]));
        assert!(
            listed.contains(&"--help".to_owned()),
            "{command}: {listed:?}"
        );
        for option in listed {
            if !docs.contains(&format!("`{option}")) {
                missing.push(format!("segbatch {command} {option}"));
            }
        }
    }
    assert!(missing.is_empty(), "not in docs/cli.md: {missing:?}");
}
