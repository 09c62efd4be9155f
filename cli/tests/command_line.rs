//! The command line itself, as clap reads it: help, version and completions exit 0 on
//! standard output; every wrong command line exits 2 and names what is wrong.

use std::process::{Command, Output};

fn nl2sql(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(args)
        .output()
        .expect("the nl2sql binary runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn help_lists_every_subcommand() {
    let out = nl2sql(&["--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let listed: Vec<&str> = text
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    for command in [
        "plan",
        "sql",
        "schema",
        "route",
        "retrieve",
        "index",
        "ask",
        "replay",
        "catalogue",
        "eval",
        "completions",
    ] {
        assert!(listed.contains(&command), "{command} is missing: {text}");
    }
}

#[test]
fn a_subcommand_help_describes_its_options() {
    let out = nl2sql(&["sql", "--help"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("--row-cap"), "{text}");
    assert!(text.contains("[default: 100000]"), "{text}");
}

#[test]
fn version_names_the_program_and_its_version() {
    let out = nl2sql(&["--version"]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out).trim(),
        format!("nl2sql {}", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn completions_print_a_script_for_each_shell() {
    let out = nl2sql(&["completions", "bash"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let script = stdout(&out);
    assert!(
        script.contains("nl2sql") && script.contains("complete"),
        "{script}"
    );
    for shell in ["zsh", "fish"] {
        let out = nl2sql(&["completions", shell]);
        assert_eq!(out.status.code(), Some(0), "{shell}");
        assert!(stdout(&out).contains("nl2sql"), "{shell}");
    }
}

#[test]
fn an_unknown_option_exits_2() {
    let out = nl2sql(&["sql", "--bogus", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("'--bogus'"), "{}", stderr(&out));
}

#[test]
fn a_value_outside_a_closed_set_exits_2_naming_the_allowed_ones() {
    let out = nl2sql(&["sql", "--joins", "nonsense", "SELECT 1"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("nonsense") && err.contains("typed") && err.contains("fk_only"),
        "{err}"
    );
}

#[test]
fn options_that_exclude_each_other_exit_2() {
    let out = nl2sql(&["schema", "--datasource", "chinook", "--file", "x.sqlite"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_rule_the_command_checks_itself_exits_2_with_a_hint() {
    let out = nl2sql(&["route", "--embeddings", "compatible", "a question"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.starts_with("nl2sql: --embeddings compatible needs --base-url"),
        "{err}"
    );
    assert!(err.contains("nl2sql route --help"), "{err}");
}

#[test]
fn a_single_valued_option_given_twice_keeps_the_last() {
    let data = nl2sql_tests::native::data_dir();
    let out = nl2sql(&[
        "route",
        "--json",
        "--data",
        &data.to_string_lossy(),
        "--role",
        "admin",
        "--role",
        "viewer",
        "How many urgent tickets are still open?",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A viewer reaches nothing in support (see route_command.rs); an admin would.
    assert!(!stdout(&out).contains("support"), "{}", stdout(&out));
}

/// `nl2sql catalogue | head -c 100`: the reader goes away after a few bytes of 160 kB, more
/// than a pipe holds, so the command is still writing. It ends as a Unix tool does, by the
/// pipe's signal, with nothing on standard error (it used to panic, exit 101).
#[cfg(unix)]
#[test]
fn a_closed_pipe_ends_the_command_quietly() {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let data = nl2sql_tests::native::data_dir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nl2sql"))
        .args(["catalogue", "--data", &data.to_string_lossy()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the nl2sql binary runs");
    let mut first = [0u8; 100];
    child
        .stdout
        .take()
        .expect("its standard output")
        .read_exact(&mut first)
        .expect("a first hundred bytes");
    let out = child.wait_with_output().expect("it ends");
    assert_eq!(
        out.status.signal(),
        Some(13),
        "{:?}: {}",
        out.status,
        stderr(&out)
    );
    assert_eq!(stderr(&out), "");
}
