//! The `wyrd` command: check Wyrd asset files and inspect, verify and sign
//! saves.
//!
//! ```text
//! wyrd check FILE_OR_FOLDER... [--tree TREE] [--vocabulary FILE] [--assets DIR]
//! wyrd sim TREE --script SCRIPT [--ticks N] [--seed S]
//! wyrd graph TREE [--format dot|mermaid]
//! wyrd flags new NAME [--counter]
//! wyrd monitor [--game PORT|HOST:PORT|URL] [--port P]
//! wyrd save verify FILE --key-file K
//! wyrd save show FILE --key-file K
//! wyrd save sign FILE --key-file K [-o OUT]
//! wyrd save status DIR --key-file K [--schema N]
//! wyrd save diff A B --key-file K [--exit-code]
//! ```
//!
//! Exit codes: 0 success, 1 the file is bad (or did not verify), 2 usage.
//! `diff` and `save diff` with `--exit-code` follow `diff`: 0 the same, 1
//! they differ, 2 trouble (a bad file, usage).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
// Errors of trees, flags files and scripts, with the source line and caret.
use wyrd_bt::with_caret;
use wyrd_save::{LoadError, SaveKey};

mod check_cmd;
mod monitor_cmd;
mod save_cmd;

/// Check Wyrd asset files, run trees against scripted timelines, draw them,
/// and inspect, verify and sign saves.
///
/// Exit codes: 0 success, 1 a file is bad (or did not verify), 2 usage.
#[derive(Parser)]
#[command(name = "wyrd", version, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate trees (*.bt.ron), flags files (*.flags.ron), sim scripts
    /// (*.script.ron) and breakpoints (*.breakpoints.ron); errors as
    /// file:line:column.
    #[command(after_help = "\
Trees are checked as the game's loader checks them when the game's vocabulary is
known: --vocabulary FILE, else the `vocabulary` of the nearest wyrd.toml above the
tree (`vocabulary = \"guard.vocabulary.json\"`, `assets = \"..\"`: paths relative to
wyrd.toml). Without one, action names and parameters, predicates and custom nodes
are not checked, and the ok line says so. World values (World(\"NAME\", ..)) are
checked against the vocabulary's flags files, else the flags files given.

A script is checked against --tree, else the tree its `// tree: PATH` line names
(looked for from the script's folder, the current one, then by file name beside
the script), else NAME.bt.ron beside NAME.script.ron, else the last tree before it
on the line; each script's line says which. A breakpoints file against --tree, else
NAME.bt.ron beside NAME.breakpoints.ron. Every faulty node of a tree is reported,
not only the first.

Exit codes: 0 every file is ok, 1 a file has problems, 2 usage (a path that does
not exist, a folder with nothing to check, an unreadable vocabulary).

Examples:
  wyrd check assets/
  wyrd check --vocabulary guard.vocabulary.json assets/guard/guard.bt.ron
  wyrd check assets/squad_ai/combat.bt.ron assets/drone_quest/world_state.flags.ron
  wyrd check crates/wyrd_bt/tests/conformance/std_switch_changes_case.script.ron
  wyrd check grunt.bt.ron fight.script.ron flee.script.ron")]
    Check {
        /// The files, or folders (every *.bt.ron, *.flags.ron,
        /// *.script.ron and *.breakpoints.ron under them).
        #[arg(required = true)]
        files: Vec<String>,
        /// The tree scripts are checked against.
        #[arg(long, value_name = "TREE")]
        tree: Option<String>,
        /// The game's vocabulary (written by `App::write_bt_vocabulary`):
        /// trees are then checked exactly as the game's loader checks them
        /// (action names, parameters and their types, predicates, custom
        /// nodes), and world values against the game's flags files.
        /// Default: the `vocabulary` of the nearest wyrd.toml above each
        /// tree.
        #[arg(long, value_name = "FILE")]
        vocabulary: Option<PathBuf>,
        /// The assets folder the vocabulary's flags files are relative to
        /// (default: `assets` of wyrd.toml, else the vocabulary's folder).
        #[arg(long, value_name = "DIR")]
        assets: Option<PathBuf>,
    },
    /// Run a tree against a scripted timeline: one JSON line per tick
    /// (status, running leaves, actions started / finished / aborted, nodes
    /// ticked, rule flags).
    #[command(after_help = "\
Examples:
  wyrd sim assets/squad_ai/combat.bt.ron --script crates/wyrd_bt/tests/trees/combat_infantry.script.ron
  wyrd sim session.bt.ron --script drive.script.ron --ticks 100 --seed 7
  wyrd sim assets/squad_ai/combat.bt.ron --script fight.script.ron --break assets/squad_ai/combat.breakpoints.ron
  wyrd sim assets/squad_ai/combat.bt.ron --replay grunt.recording.json
  wyrd sim assets/squad_ai/combat.bt.ron --replay grunt.recording.json --emit-script > grunt.script.ron
  wyrd sim assets/squad_ai/combat.bt.ron --replay grunt.recording.json --stats")]
    Sim {
        /// The tree file.
        tree: String,
        /// The script (RON: ticks, seed, hz, events).
        #[arg(
            long,
            value_name = "SCRIPT",
            required_unless_present = "replay",
            conflicts_with = "replay"
        )]
        script: Option<String>,
        /// A flight recording (JSON) to re-run from its recorded inputs,
        /// checking tick by tick that the tree does what was recorded.
        #[arg(long, value_name = "FILE")]
        replay: Option<String>,
        /// With --replay: replay a recording made with another version of
        /// the tree, to see where it diverges.
        #[arg(long, requires = "replay")]
        allow_changed: bool,
        /// With --replay: print the recording's inputs as a sim script (a
        /// regression test of what the agent did) instead of replaying.
        #[arg(long, requires = "replay")]
        emit_script: bool,
        /// With --replay: per node, the ticks it ran, its longest run, its
        /// status changes, successes and failures over the recording.
        #[arg(long, requires = "replay", conflicts_with = "emit_script")]
        stats: bool,
        /// Ticks to run (default: the script's).
        #[arg(long)]
        ticks: Option<u64>,
        /// Seed of random choices (default: the script's).
        #[arg(long)]
        seed: Option<u64>,
        /// Breakpoints (a `NAME.breakpoints.ron` file): stop at the first
        /// that hits and print the tick's state; with the script's
        /// `expect_breaks` / `never_breaks`, run to the end and check them.
        #[arg(long = "break", value_name = "FILE", conflicts_with = "replay")]
        breaks: Option<String>,
        /// The game's vocabulary file (`NAME.vocabulary.json`): its
        /// actions' parameters, as the game's loader reads them (an action
        /// whose input key is unset fails without starting, as in the
        /// game). Default: the vocabulary of the `wyrd.toml` above the
        /// tree, if any.
        #[arg(long, value_name = "FILE")]
        vocabulary: Option<PathBuf>,
    },
    /// What changed between two versions of a tree, by node path: `~`
    /// changed (kind, parameters, guard, bindings or children), `+` added,
    /// `-` removed, `>` moved. Hot reload keeps the running state of what
    /// did not change.
    #[command(after_help = "\
Examples:
  wyrd diff old/combat.bt.ron assets/squad_ai/combat.bt.ron")]
    Diff {
        /// The old version.
        old: String,
        /// The new version.
        new: String,
        /// For CI, as `diff`: exit 0 when the same, 1 when they differ, 2
        /// when a file is bad.
        #[arg(long)]
        exit_code: bool,
    },
    /// The tree as a picture: Graphviz dot (default) or Mermaid.
    #[command(after_help = "\
Examples:
  wyrd graph assets/squad_ai/combat.bt.ron | dot -Tpng > combat.png
  wyrd graph assets/squad_ai/combat.bt.ron --format mermaid")]
    Graph {
        /// The tree file.
        tree: String,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Dot)]
        format: Format,
    },
    /// Inspect, verify and sign saves. The key file's bytes are the key;
    /// one trailing newline is ignored.
    #[command(subcommand)]
    Save(SaveCommand),
    /// Flags files: a new declaration with a fresh stable id.
    #[command(subcommand)]
    Flags(FlagsCommand),
    /// Watch a running game in the browser: serves a page on localhost
    /// that shows the game's agents, the selected agent's tree live, its
    /// blackboard, crowd counts and the world state (editable), with
    /// pause and step. The game runs with `WyrdRemotePlugin` (the example
    /// games: --remote).
    #[command(after_help = "\
The page polls the selected agent's tree 5 times a second and the rest once a
second through this command (which passes its
requests on to the game's Bevy Remote Protocol endpoint), so the game needs no
CORS setting and may be on another machine.

Examples:
  cargo run --example squad_ai -- --remote      # the game, on port 15702
  wyrd monitor                                  # then open http://127.0.0.1:15703/
  wyrd monitor --game 192.168.1.20:15702 --port 8080")]
    Monitor {
        /// The game's remote endpoint: its port, HOST:PORT or
        /// http://HOST:PORT.
        #[arg(long, value_name = "GAME", default_value = "15702")]
        game: String,
        /// The port the page is served on.
        #[arg(long, value_name = "PORT", default_value_t = 15703)]
        port: u16,
        /// The address the page is served on (localhost by default; the
        /// page can pause the game and edit its world state).
        #[arg(long, value_name = "IP", default_value = "127.0.0.1")]
        address: String,
    },
}

#[derive(Subcommand)]
enum FlagsCommand {
    /// Print a flag (or counter) declaration with a fresh 32-hex id, to
    /// paste under `flags: [` (or `counters: [`) of a *.flags.ron file. The
    /// id is what saves match entries by: keep it when renaming.
    #[command(
        after_help = "Examples:\n  wyrd flags new SMITH_MET\n  wyrd flags new ALARMS_RAISED --counter"
    )]
    New {
        /// The name trees and code use.
        name: String,
        /// A counter (default 0) instead of a flag (default false).
        #[arg(long)]
        counter: bool,
    },
}

/// A fresh id: 128 bits from the process's random hash keys, the time and
/// the name (no two calls give the same one).
fn fresh_id(name: &str) -> String {
    use std::hash::{BuildHasher, Hasher};
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let half = |salt: u8| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u8(salt);
        h.write_u128(now);
        h.write(name.as_bytes());
        h.write_u32(std::process::id());
        h.finish()
    };
    format!("{:016x}{:016x}", half(1), half(2))
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// Graphviz.
    Dot,
    /// Mermaid (Markdown diagrams).
    Mermaid,
}

#[derive(Subcommand)]
enum SaveCommand {
    /// Exit 0 and print "ok" if the signature holds and the document loads.
    #[command(
        after_help = "Example:\n  wyrd save verify ~/.local/share/wyrd/drone_quest/world_state.json --key-file key.txt"
    )]
    Verify {
        /// The save file.
        file: PathBuf,
        /// The key.
        #[arg(long, value_name = "K")]
        key_file: PathBuf,
    },
    /// Print the document and whether it verified.
    Show {
        /// The save file.
        file: PathBuf,
        /// The key.
        #[arg(long, value_name = "K")]
        key_file: PathBuf,
    },
    /// Sign a JSON document (or re-sign a signed file); refuses what the
    /// game would not load.
    #[command(
        after_help = "Example:\n  wyrd save sign edited.json --key-file key.txt -o world_state.json"
    )]
    Sign {
        /// The document.
        file: PathBuf,
        /// The key.
        #[arg(long, value_name = "K")]
        key_file: PathBuf,
        /// Where to write (default: in place).
        #[arg(short, long, value_name = "OUT")]
        output: Option<PathBuf>,
    },
    /// Which copy of each document would load and why, every file's
    /// verdict, the newest valid progress (exit 1: nothing usable). Touches
    /// nothing.
    #[command(
        after_help = "Example:\n  wyrd save status ~/.local/share/wyrd/drone_quest --key-file key.txt"
    )]
    Status {
        /// The save folder.
        dir: PathBuf,
        /// The key.
        #[arg(long, value_name = "K")]
        key_file: PathBuf,
        /// The schema version this build reads.
        #[arg(long, default_value_t = wyrd_state::WORLD_STATE_SCHEMA_VERSION)]
        schema: u32,
    },
    /// Flags, counters, events and saved agents that differ between two
    /// saves (folders: the copies that would load; or two world-state
    /// files, or two agents.json files). Agents are compared by their
    /// tree, ticks, running nodes and actions, stimuli, blackboard, tags
    /// and entity references.
    #[command(
        after_help = "Examples:\n  wyrd save diff old/world_state.json ~/.local/share/wyrd/drone_quest --key-file key.txt\n  wyrd save diff before/ after/ --key-file key.txt --exit-code"
    )]
    Diff {
        /// The first save (file or folder).
        a: PathBuf,
        /// The second save.
        b: PathBuf,
        /// The key.
        #[arg(long, value_name = "K")]
        key_file: PathBuf,
        /// For CI, as `diff`: exit 0 when the same, 1 when they differ, 2
        /// when a file is bad.
        #[arg(long)]
        exit_code: bool,
    },
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
struct Failure {
    code: u8,
    message: String,
}

/// With `--exit-code` a failure exits 2, as `diff` has it (1 is "they
/// differ"): a CI job tells a broken save from a changed one.
fn with_diff_codes<T>(exit_code: bool, result: Result<T, Failure>) -> Result<T, Failure> {
    result.map_err(|mut f| {
        if exit_code {
            f.code = 2;
        }
        f
    })
}

/// `--exit-code`: 1 when the two differ (nothing on stderr: the
/// differences are the output).
fn differ_exit(differ: bool) -> Result<(), Failure> {
    if differ { Err(bad("")) } else { Ok(()) }
}

/// A usage error: the command line, not a file, is wrong (exit 2).
fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: message.into(),
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with 0; usage errors to stderr
            // with 2.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let mut out = String::new();
    match run(cli.command, &mut out) {
        Ok(()) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(f) => {
            print!("{out}");
            if !f.message.is_empty() {
                eprintln!("{}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}

fn run(command: Command, out: &mut String) -> Result<(), Failure> {
    match command {
        Command::Check {
            files,
            tree,
            vocabulary,
            assets,
        } => check_cmd::check(
            &check_cmd::CheckArgs {
                paths: files,
                tree,
                vocabulary,
                assets,
            },
            out,
        ),
        Command::Sim {
            tree,
            script,
            replay,
            allow_changed,
            emit_script,
            stats,
            ticks,
            seed,
            breaks,
            vocabulary,
        } => {
            let vocab = check_cmd::sim_vocabulary(&tree, vocabulary.as_deref())?;
            // Options of the other mode are a mistake, not ignored (clap's
            // `requires` does not hold flags back; its conflicts do).
            match (script, replay) {
                (Some(_), None) if stats || emit_script || allow_changed => Err(usage(
                    "--stats, --emit-script and --allow-changed go with --replay, not --script",
                )),
                (None, Some(_)) if ticks.is_some() || seed.is_some() || breaks.is_some() => {
                    Err(usage(
                        "--ticks, --seed and --break go with --script (a replay runs the recording's ticks)",
                    ))
                }
                (_, Some(file)) if stats => {
                    load_tree(&tree)?;
                    recording_stats(&file, out)
                }
                (_, Some(file)) => {
                    let replay = Replay {
                        allow_changed,
                        emit_script,
                    };
                    replay_recording(&tree, &vocab, &file, replay, out)
                }
                (Some(script), None) => {
                    let run = ScriptRun {
                        breaks: breaks.as_deref(),
                        ticks,
                        seed,
                    };
                    sim(&tree, &vocab, &script, run, out)
                }
                (None, None) => Err(bad("give --script or --replay")),
            }
        }
        Command::Graph { tree, format } => graph(&tree, format, out),
        Command::Diff {
            old,
            new,
            exit_code,
        } => {
            let (a, b) = with_diff_codes(
                exit_code,
                load_tree(&old).and_then(|a| Ok((a, load_tree(&new)?))),
            )?;
            // The diff the game's reload log summarises, declarations
            // included (a key's default or type changes what every agent
            // starts with, though no node changed).
            let d = wyrd_bt::diff(&a, &b);
            out.push_str(&d.to_string());
            out.push_str(&d.summary());
            out.push('\n');
            differ_exit(exit_code && !d.is_empty())
        }
        Command::Save(sub) => save(sub, out),
        Command::Monitor {
            game,
            port,
            address,
        } => monitor_cmd::monitor(&monitor_cmd::MonitorArgs {
            game,
            address,
            port,
        }),
        Command::Flags(FlagsCommand::New { name, counter }) => {
            // What it prints must be what a flags file accepts.
            if !wyrd_state::valid_flag_name(&name) {
                return Err(usage(format!(
                    "{name:?} is not a flag name: use letters, digits, `_`, `.` and `-` (SMITH_MET)"
                )));
            }
            let default = if counter { "0" } else { "false" };
            out.push_str(&format!(
                "(id: \"{}\", name: \"{name}\", default: {default}),\n",
                fresh_id(&name)
            ));
            Ok(())
        }
    }
}

/// Reads a key file: its bytes, one trailing newline ignored.
fn read_key(key_file: &Path) -> Result<SaveKey, Failure> {
    let mut key = std::fs::read(key_file)
        .map_err(|e| bad(format!("{}: cannot read the key: {e}", key_file.display())))?;
    if key.last() == Some(&b'\n') {
        key.pop();
        if key.last() == Some(&b'\r') {
            key.pop();
        }
    }
    if key.is_empty() {
        return Err(bad(format!(
            "{}: the key file is empty",
            key_file.display()
        )));
    }
    Ok(SaveKey::new(key))
}

/// Reads at most the save size limit, like the game does.
fn read_save(path: &Path) -> Result<Vec<u8>, Failure> {
    let meta = std::fs::metadata(path).map_err(|e| bad(format!("{}: {e}", path.display())))?;
    if meta.len() > wyrd_save::DEFAULT_MAX_SIZE {
        return Err(bad(format!(
            "{}: {}",
            path.display(),
            LoadError::TooLarge {
                size: meta.len(),
                limit: wyrd_save::DEFAULT_MAX_SIZE
            }
        )));
    }
    std::fs::read(path).map_err(|e| bad(format!("{}: {e}", path.display())))
}

/// The slot's name of a save file (`agents.json` for `agents.json.bak`
/// and `.tmp` alike).
fn document_name(file: &Path) -> String {
    file.file_name().map_or(String::new(), |n| {
        let n = n.to_string_lossy();
        n.trim_end_matches(".bak")
            .trim_end_matches(".tmp")
            .to_owned()
    })
}

/// What a save document is, checked as the game would load it: the
/// agents (`agents.json`, `.bak`, `.tmp`) and the world state by their
/// schema; a document of the game's own type (it has a `SchemaVersion`
/// but not the world state's fields) by its header only (its content is
/// the game's to check: `wyrd save verify` on a stranger's `agents.json`
/// said it lacked `BoolFlags`).
/// `None`: a world state (what `verify` always said `ok` to).
fn document_kind(file: &Path, body: &[u8]) -> Result<Option<String>, wyrd_save::LoadError> {
    if document_name(file) == "agents.json" {
        wyrd_save::parse_document::<wyrd_state::agents::AgentsDocument>(
            body,
            wyrd_state::agents::AGENTS_SCHEMA_VERSION,
        )?;
        return Ok(Some("the agents' tree states".into()));
    }
    // Not a world state at all (none of its fields): the game's own. A
    // file the slot names `world_state.json` is a world state, whatever is
    // misspelt in it (the game would refuse it).
    let own = document_name(file) != "world_state.json"
        && serde_json::from_slice::<serde_json::Value>(body)
            .is_ok_and(|v| v.get("BoolFlags").is_none() && v.get("IntCounters").is_none());
    if own {
        let header = wyrd_save::read_header(body, u32::MAX)?;
        return Ok(Some(format!(
            "a document of the game's own, SchemaVersion {}: its content is the game's to check",
            header.schema_version
        )));
    }
    let doc = wyrd_save::parse_document::<wyrd_state::WorldStateDocument>(
        body,
        wyrd_state::WORLD_STATE_SCHEMA_VERSION,
    )?;
    // An id twice: the game would keep one of the values (and warn).
    fn twice(ids: Vec<&str>) -> Option<&str> {
        let mut seen = std::collections::BTreeSet::new();
        ids.into_iter().find(|id| !seen.insert(*id))
    }
    let flags = doc.bool_flags.iter().map(|e| e.id.as_str()).collect();
    let counters = doc.int_counters.iter().map(|e| e.id.as_str()).collect();
    let events = doc.completed_event_ids.iter().map(String::as_str).collect();
    for (what, ids) in [("flag", flags), ("counter", counters), ("event", events)] {
        if let Some(id) = twice(ids) {
            return Err(wyrd_save::LoadError::WrongSchema(format!(
                "{what} id {id} is listed twice"
            )));
        }
    }
    Ok(None)
}

fn save(sub: SaveCommand, out: &mut String) -> Result<(), Failure> {
    match sub {
        SaveCommand::Verify { file, key_file } => {
            let key = read_key(&key_file)?;
            let bytes = read_save(&file)?;
            let body = key
                .open(&bytes)
                .map_err(|e| bad(format!("{}: {e}", file.display())))?;
            let kind = document_kind(&file, body)
                .map_err(|e| bad(format!("{}: signature ok, but {e}", file.display())))?;
            match kind {
                Some(kind) => out.push_str(&format!("ok ({kind})\n")),
                None => out.push_str("ok\n"),
            }
            Ok(())
        }
        SaveCommand::Show { file, key_file } => {
            let key = read_key(&key_file)?;
            let bytes = read_save(&file)?;
            let (verdict, body) = match key.open(&bytes) {
                Ok(body) => ("verified: the signature holds".to_string(), body),
                Err(e) => {
                    let body = bytes
                        .iter()
                        .position(|&b| b == b'\n')
                        .map_or(&bytes[..], |nl| &bytes[nl + 1..]);
                    (format!("NOT verified: {e}"), body)
                }
            };
            out.push_str(&String::from_utf8_lossy(body));
            if !body.ends_with(b"\n") {
                out.push('\n');
            }
            // The verdict on stderr: stdout is the document alone, ready
            // to edit and `save sign` again.
            if verdict.starts_with("NOT") {
                Err(bad(format!("{}: {verdict}", file.display())))
            } else {
                eprintln!("{}: {verdict}", file.display());
                Ok(())
            }
        }
        SaveCommand::Sign {
            file,
            key_file,
            output,
        } => {
            let key = read_key(&key_file)?;
            let bytes = read_save(&file)?;
            // A signed file's first line is a signature: replace it. A plain
            // document starts with '{'.
            let trimmed = bytes.iter().position(|b| !b.is_ascii_whitespace());
            let body: &[u8] = match trimmed.map(|i| bytes[i]) {
                Some(b'{') => &bytes,
                _ => match bytes.iter().position(|&b| b == b'\n') {
                    Some(nl) => &bytes[nl + 1..],
                    None => return Err(bad(format!("{}: not a JSON document", file.display()))),
                },
            };
            // Refuse to sign what the game would refuse to load.
            document_kind(&file, body).map_err(|e| bad(format!("{}: {e}", file.display())))?;
            let sealed = key.seal(body);
            let target = output.unwrap_or_else(|| file.clone());
            std::fs::write(&target, sealed)
                .map_err(|e| bad(format!("{}: cannot write: {e}", target.display())))?;
            out.push_str(&format!("signed {}\n", target.display()));
            Ok(())
        }
        SaveCommand::Status {
            dir,
            key_file,
            schema,
        } => save_cmd::status(&dir, &read_key(&key_file)?, schema, out),
        SaveCommand::Diff {
            a,
            b,
            key_file,
            exit_code,
        } => {
            let differ = with_diff_codes(
                exit_code,
                read_key(&key_file).and_then(|key| save_cmd::diff(&a, &b, &key, out)),
            )?;
            differ_exit(differ && exit_code)
        }
    }
}

/// Loads and compiles a tree file and the files it uses. Tools accept any
/// action and predicate name (the game registers them); everything else is
/// checked.
fn load_tree(file: &str) -> Result<wyrd_bt::Program, Failure> {
    load_tree_with(file, &wyrd_bt::Vocabulary::permissive())
}

/// Loads and compiles a tree file with a vocabulary (the game's, read from
/// its vocabulary file, checks exactly what the game's loader checks).
fn load_tree_with(
    file: &str,
    vocabulary: &wyrd_bt::Vocabulary,
) -> Result<wyrd_bt::Program, Failure> {
    load_tree_and_files(file, vocabulary).map(|(program, _)| program)
}

/// [`load_tree_with`], and the files read (the tree's and those it uses,
/// by path).
fn load_tree_and_files(
    file: &str,
    vocabulary: &wyrd_bt::Vocabulary,
) -> Result<
    (
        wyrd_bt::Program,
        std::collections::HashMap<String, wyrd_bt::ParsedFile>,
    ),
    Failure,
> {
    let mut read = |p: &str| std::fs::read(p).map_err(|e| e.to_string());
    // A file the parser refuses: every node it refuses in that file (read
    // once for all of them).
    let files = wyrd_bt::load_tree_files(file, &mut read).map_err(|e| {
        let bytes = std::fs::read(&e.file).ok();
        let text = bytes.as_deref().map(String::from_utf8_lossy);
        let errors = match bytes
            .as_deref()
            .map(|b| wyrd_bt::parse_tree_all(&e.file, b))
        {
            Some(Err(errors)) if errors.contains(&e) => errors,
            _ => vec![e],
        };
        let shown: Vec<String> = errors
            .iter()
            .map(|e| with_caret(&e.to_string(), text.as_deref(), e.line, e.column))
            .collect();
        bad(shown.join("\n"))
    })?;
    // Every node's error, not only the first: one run of `check` (or of
    // any command) shows all there is to fix; a misspelt key or behavior
    // with the nearest declared one. The files' texts are those loaded.
    let explain = |errors: Vec<wyrd_bt::BtError>| {
        let text: Vec<String> = errors.iter().map(|e| e.explain(&files)).collect();
        bad(text.join("\n"))
    };
    let program = match wyrd_bt::compile_all(file, &files, vocabulary) {
        Ok(program) => program,
        // Without the game's vocabulary (a permissive one), a custom node
        // kind is the game's code the tool does not have: it stands in for
        // it (any children, fails when ticked), as it accepts any action
        // and predicate, and the ok line says custom nodes were not checked.
        Err(errors) if vocabulary.permissive && !unknown_customs(&errors).is_empty() => {
            // The vocabulary's action schemas kept (`wyrd sim` with the
            // game's vocabulary file).
            let mut stand_in = vocabulary.clone();
            for kind in unknown_customs(&errors) {
                stand_in.customs.insert(kind, std::sync::Arc::new(StandIn));
            }
            wyrd_bt::compile_all(file, &files, &stand_in).map_err(explain)?
        }
        Err(errors) => return Err(explain(errors)),
    };
    Ok((program, files))
}

/// The custom node kinds a compile did not know.
fn unknown_customs(errors: &[wyrd_bt::BtError]) -> Vec<String> {
    let mut kinds: Vec<String> = errors
        .iter()
        .filter_map(|e| match &e.problem {
            wyrd_bt::BtProblem::UnknownCustom { kind, .. } => Some(kind.clone()),
            _ => None,
        })
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// A custom node kind the tool has no code for: any number of children,
/// fails when ticked (`wyrd sim` says so).
struct StandIn;

impl wyrd_bt::CustomNode for StandIn {
    fn arity(&self) -> (usize, usize) {
        (0, usize::MAX)
    }
    fn tick(&self, _ctx: &mut wyrd_bt::CustomCtx<'_, '_>) -> wyrd_bt::Status {
        wyrd_bt::Status::Failure
    }
}

/// The custom node kinds of a program (its game's code: the tools have
/// none, and `wyrd sim` ticks them as failing).
fn custom_kinds(program: &wyrd_bt::Program) -> Vec<String> {
    let mut kinds: Vec<String> = program
        .nodes()
        .filter_map(|n| n.custom_kind().map(str::to_owned))
        .collect();
    kinds.sort();
    kinds.dedup();
    kinds
}

/// A script error with its place in the script shown.
fn script_error(file: &str, text: &str, e: &wyrd_bt::sim::SimError) -> String {
    match e.position() {
        Some((line, column)) => with_caret(&format!("{file}:{e}"), Some(text), line, column),
        None => format!("{file}: {e}"),
    }
}

/// What `wyrd sim --script` was asked besides the tree and the script.
struct ScriptRun<'a> {
    breaks: Option<&'a str>,
    ticks: Option<u64>,
    seed: Option<u64>,
}

fn sim(
    tree: &str,
    vocabulary: &wyrd_bt::Vocabulary,
    script_path: &str,
    run: ScriptRun<'_>,
    out: &mut String,
) -> Result<(), Failure> {
    let ScriptRun {
        breaks,
        ticks,
        seed,
    } = run;
    let program = load_tree_with(tree, vocabulary)?;
    let customs = custom_kinds(&program);
    if !customs.is_empty() {
        eprintln!(
            "note: custom nodes {customs:?} are the game's code: wyrd sim has none, they fail when ticked"
        );
    }
    let text =
        std::fs::read_to_string(script_path).map_err(|e| bad(format!("{script_path}: {e}")))?;
    let mut script = wyrd_bt::sim::Script::parse(&text)
        .map_err(|e| bad(script_error(script_path, &text, &e)))?;
    // Every name the script uses, before any tick (a misspelt path ran the
    // ticks before it, then failed there; `wyrd check` found it at once).
    let problems = script.check(&program);
    if !problems.is_empty() {
        let lines: Vec<String> = problems
            .iter()
            .map(|p| script_error(script_path, &text, p))
            .collect();
        return Err(bad(lines.join("\n")));
    }
    if ticks.is_some() {
        script.ticks = ticks;
    }
    if let Some(s) = seed {
        script.seed = s;
    }
    let breakpoints = breaks
        .map(|file| load_breakpoints(file, &program))
        .transpose()?;
    let asserts = !script.expect_breaks.is_empty() || !script.never_breaks.is_empty();
    if asserts {
        check_break_names(&script, script_path, breaks, breakpoints.as_ref())?;
    }
    let mut hits: Vec<(u64, wyrd_bt::BreakHit)> = Vec::new();
    let mut unset_said = 0u64;
    wyrd_bt::sim::Sim::run_script_breaking(&program, &script, breakpoints.as_ref(), |r, sim| {
        out.push_str(&r.to_json());
        out.push('\n');
        // A key read before the script set it, said once, as the game's
        // log says it: an action reading it failed without starting, and
        // the line said only "failure".
        let unset = sim.state.unset_reads() & !unset_said;
        unset_said |= unset;
        for k in (0..64).filter(|k| unset & (1u64 << k) != 0) {
            let key = program.blackboard_keys().get(k).map_or("?", String::as_str);
            let problem = wyrd_bt::AgentProblem::UnsetKey {
                tree: program.source().to_owned(),
                key: key.to_owned(),
            };
            eprintln!("note: tick {}: {problem}", r.tick);
        }
        let Some(hit) = sim.last_break() else {
            return true;
        };
        out.push_str(&break_line(r, hit, sim));
        out.push('\n');
        hits.push((r.tick, hit.clone()));
        // Without assertions the run stops at the first hit, as a debugger.
        asserts
    })
    .map_err(|e| bad(script_error(script_path, &text, &e)))?;
    for name in &script.expect_breaks {
        if !hits.iter().any(|(_, h)| &h.name == name) {
            return Err(bad(format!(
                "{script_path}: breakpoint {name:?} was expected to hit; it never did"
            )));
        }
    }
    for name in &script.never_breaks {
        if let Some((tick, hit)) = hits.iter().find(|(_, h)| &h.name == name) {
            return Err(bad(format!(
                "{script_path}: breakpoint {name:?} hit at tick {tick} ({}), and the script says it never does",
                hit.why
            )));
        }
    }
    Ok(())
}

/// Reads and resolves a breakpoints file against the tree.
fn load_breakpoints(
    file: &str,
    program: &wyrd_bt::Program,
) -> Result<wyrd_bt::Breakpoints, Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| bad(format!("{file}: {e}")))?;
    let def = wyrd_bt::BreakpointsDef::parse(file, &text).map_err(|e| match &e {
        wyrd_bt::BreakpointError::Syntax { line, column, .. } => {
            bad(with_caret(&e.to_string(), Some(&text), *line, *column))
        }
        _ => bad(e.to_string()),
    })?;
    wyrd_bt::Breakpoints::resolve(&def, program, file).map_err(|errors| {
        bad(errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("\n"))
    })
}

/// A script's breakpoint assertions name breakpoints of the file given.
fn check_break_names(
    script: &wyrd_bt::sim::Script,
    script_path: &str,
    file: Option<&str>,
    breakpoints: Option<&wyrd_bt::Breakpoints>,
) -> Result<(), Failure> {
    let (Some(file), Some(b)) = (file, breakpoints) else {
        return Err(bad(format!(
            "{script_path}: the script checks breakpoints (expect_breaks / never_breaks): give them with --break FILE"
        )));
    };
    for name in script.expect_breaks.iter().chain(&script.never_breaks) {
        if !b.names().any(|n| n == name) {
            let known: Vec<String> = b.names().map(|n| format!("{n:?}")).collect();
            return Err(bad(format!(
                "{script_path}: no breakpoint named {name:?} in {file} (it has {})",
                known.join(", ")
            )));
        }
    }
    Ok(())
}

/// One JSON line for a breakpoint that hit: which, why, and the agent's
/// state after the tick (running leaves, blackboard), keys in that order.
fn break_line(
    r: &wyrd_bt::sim::TickRecord,
    hit: &wyrd_bt::BreakHit,
    sim: &wyrd_bt::sim::Sim<'_>,
) -> String {
    #[derive(serde::Serialize)]
    struct Line<'a> {
        #[serde(rename = "break")]
        name: &'a str,
        tick: u64,
        why: &'a str,
        active: &'a [String],
        blackboard: serde_json::Map<String, serde_json::Value>,
    }
    let line = Line {
        name: &hit.name,
        tick: r.tick,
        why: &hit.why,
        active: &r.active,
        blackboard: sim
            .blackboard_lines()
            .into_iter()
            .map(|(k, v)| (k, serde_json::Value::String(v)))
            .collect(),
    };
    serde_json::to_string(&line).expect("a break line is plain strings and numbers")
}

/// `wyrd sim TREE --replay FILE --stats`: what each node did over the
/// recording, as a table.
fn recording_stats(file: &str, out: &mut String) -> Result<(), Failure> {
    let text = std::fs::read_to_string(file).map_err(|e| bad(format!("{file}: {e}")))?;
    let rec: wyrd_bt::Recording =
        serde_json::from_str(&text).map_err(|e| bad(format!("{file}: not a recording: {e}")))?;
    let (first, last) = (
        rec.ticks.first().map_or(0, |t| t.tick),
        rec.ticks.last().map_or(0, |t| t.tick),
    );
    out.push_str(&format!(
        "{file}: {} ticks recorded ({first}..={last}) of {}\n",
        rec.ticks.len(),
        rec.tree
    ));
    out.push_str(&wyrd_bt::sim::stats_table(&wyrd_bt::sim::recording_stats(
        &rec,
    )));
    Ok(())
}

/// `wyrd sim TREE --replay FILE`: re-runs a flight recording and says
/// whether the tree still does what was recorded (exit 1 at the first
/// divergence, naming the tick and node).
/// What `wyrd sim --replay` was asked besides the tree and the recording.
struct Replay {
    allow_changed: bool,
    emit_script: bool,
}

fn replay_recording(
    tree: &str,
    vocabulary: &wyrd_bt::Vocabulary,
    file: &str,
    replay: Replay,
    out: &mut String,
) -> Result<(), Failure> {
    let Replay {
        allow_changed,
        emit_script,
    } = replay;
    let program = load_tree_with(tree, vocabulary)?;
    let text = std::fs::read_to_string(file).map_err(|e| bad(format!("{file}: {e}")))?;
    let rec: wyrd_bt::Recording =
        serde_json::from_str(&text).map_err(|e| bad(format!("{file}: not a recording: {e}")))?;
    if emit_script {
        let script = wyrd_bt::sim::recording_script(&program, &rec, allow_changed)
            .map_err(|e| bad(format!("{file}: {e}")))?;
        // The tree it drives, as given here: `wyrd check` finds it there.
        out.push_str(&format!("// tree: {tree}\n"));
        out.push_str(&script);
        return Ok(());
    }
    let report = wyrd_bt::sim::replay(&program, &rec, allow_changed)
        .map_err(|e| bad(format!("{file}: {e}")))?;
    match report.divergence {
        None => {
            out.push_str(&format!(
                "{file}: ok: {} ticks replayed exactly{}\n",
                report.ticks,
                if report.changed_tree {
                    " (the tree changed since the recording, and does the same with these inputs)"
                } else {
                    ""
                }
            ));
            Ok(())
        }
        Some(d) => Err(bad(format!(
            "{file}: diverges at {d}{}",
            if report.changed_tree {
                " (the tree changed since the recording)"
            } else {
                ""
            }
        ))),
    }
}

/// What an edge means, for parents whose children have roles: the cases of
/// a `Switch`, the branches of `IfThenElse` / `WhileDoElse`.
fn edge_label(node: wyrd_bt::NodeView<'_>) -> Option<String> {
    let parent = node.parent()?;
    let k = parent.children().position(|c| c.index() == node.index())?;
    parent.child_role(k)
}

/// Text inside a DOT string: backslashes and quotes escaped (a name
/// ending in `\` closed the string), lines as `\n`.
fn dot_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

fn graph(tree: &str, format: Format, out: &mut String) -> Result<(), Failure> {
    let p = load_tree(tree)?;
    // An action shows its parameters as bound at its place: keys as
    // `{key}`, constants (a behavior's `with` included) as values.
    let bindings = |a: &wyrd_bt::ActionInfo| -> String {
        a.params()
            .iter()
            .map(|(k, v)| match v {
                wyrd_bt::Param::Key { key, .. } => {
                    let name = p
                        .blackboard_keys()
                        .get(*key as usize)
                        .map_or("?", String::as_str);
                    format!("{k}={{{name}}}")
                }
                wyrd_bt::Param::Const(c) => format!("{k}={c}"),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    let label = |n: wyrd_bt::NodeView<'_>| {
        let name = n.name();
        let (detail, params) = match n.action() {
            Some(a) => (format!("!{}", a.name()), bindings(a)),
            None => (n.label(), String::new()),
        };
        let mut text = if name == detail.trim_start_matches('!') {
            detail
        } else {
            format!("{detail}\n{name}")
        };
        // What a condition, guard or impulse checks, when its name does not
        // already say it: `World(QST_DST_TOWER_5 >= 5)`, `Is(target_visible)`.
        let check = n.check_text();
        if !check.is_empty() && check != name {
            text.push('\n');
            text.push_str(&check);
        }
        let settings = n.settings();
        if !settings.is_empty() {
            text.push('\n');
            text.push_str(&settings);
        }
        if !params.is_empty() {
            text.push('\n');
            text.push_str(&params);
        }
        text
    };
    // Detached behaviors (the stimuli's) are drawn apart, each in a dashed
    // box of its own: (root index, name) in node order.
    let detached_roots: Vec<(u32, String)> = p
        .all_nodes()
        .filter(|n| n.is_detached() && n.parent().is_none())
        .map(|n| (n.index(), n.name().to_owned()))
        .collect();
    let cluster_of = |n: wyrd_bt::NodeView<'_>| {
        detached_roots
            .iter()
            .rposition(|(root, _)| *root <= n.index())
            .filter(|_| n.is_detached())
    };
    match format {
        Format::Dot => {
            out.push_str("digraph tree {\n  node [shape=box, fontname=\"Helvetica\"];\n");
            let mut open: Option<usize> = None;
            for n in p.all_nodes() {
                let i = n.index();
                let cluster = cluster_of(n);
                if cluster != open {
                    if open.is_some() {
                        out.push_str("  }\n");
                    }
                    if let Some(k) = cluster {
                        out.push_str(&format!(
                            "  subgraph cluster_{k} {{\n  label=\"{} (stimulus target)\"; style=dashed;\n",
                            dot_text(&detached_roots[k].1)
                        ));
                    }
                    open = cluster;
                }
                let shape = if n.is_leaf() { "ellipse" } else { "box" };
                out.push_str(&format!(
                    "  n{i} [label=\"{}\", shape={shape}];\n",
                    dot_text(&label(n))
                ));
                if let Some(parent) = n.parent().map(|p| p.index()) {
                    match edge_label(n) {
                        Some(l) => out.push_str(&format!(
                            "  n{parent} -> n{i} [label=\"{}\"];\n",
                            dot_text(&l)
                        )),
                        None => out.push_str(&format!("  n{parent} -> n{i};\n")),
                    }
                }
            }
            if open.is_some() {
                out.push_str("  }\n");
            }
            for imp in p.impulses() {
                if let Some(to) = imp.redirect_to() {
                    out.push_str(&format!(
                        "  n{} -> n{} [style=dashed, label=\"redirect\"];\n",
                        imp.node().index(),
                        to.index()
                    ));
                }
            }
            out.push_str("}\n");
        }
        Format::Mermaid => {
            out.push_str("flowchart TD\n");
            let mut open: Option<usize> = None;
            for n in p.all_nodes() {
                let i = n.index();
                let cluster = cluster_of(n);
                if cluster != open {
                    if open.is_some() {
                        out.push_str("  end\n");
                    }
                    if let Some(k) = cluster {
                        out.push_str(&format!(
                            "  subgraph stimulus_{k}[\"{} (stimulus target)\"]\n",
                            detached_roots[k].1.replace('"', "#quot;")
                        ));
                    }
                    open = cluster;
                }
                let text = label(n)
                    .replace('&', "#amp;")
                    .replace('<', "#lt;")
                    .replace('>', "#gt;")
                    .replace('\n', "<br/>")
                    .replace('"', "#quot;");
                out.push_str(&format!("  n{i}[\"{text}\"]\n"));
                if let Some(parent) = n.parent().map(|p| p.index()) {
                    match edge_label(n) {
                        Some(l) => out.push_str(&format!("  n{parent} -- \"{l}\" --> n{i}\n")),
                        None => out.push_str(&format!("  n{parent} --> n{i}\n")),
                    }
                }
            }
            if open.is_some() {
                out.push_str("  end\n");
            }
            for imp in p.impulses() {
                if let Some(to) = imp.redirect_to() {
                    out.push_str(&format!(
                        "  n{} -. redirect .-> n{}\n",
                        imp.node().index(),
                        to.index()
                    ));
                }
            }
        }
    }
    Ok(())
}
