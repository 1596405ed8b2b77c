//! The `wyrd` command: check Wyrd asset files and inspect, verify and sign
//! saves.
//!
//! ```text
//! wyrd check FILE... [--tree TREE]
//! wyrd sim TREE --script SCRIPT [--ticks N] [--seed S]
//! wyrd graph TREE [--format dot|mermaid]
//! wyrd save verify FILE --key-file K
//! wyrd save show FILE --key-file K
//! wyrd save sign FILE --key-file K [-o OUT]
//! wyrd save status DIR --key-file K [--schema N]
//! wyrd save diff A B --key-file K
//! ```
//!
//! Exit codes: 0 success, 1 the file is bad (or did not verify), 2 usage.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use wyrd_save::{LoadError, SaveKey};
use wyrd_state::FlagsFile;

mod save_cmd;

const USAGE: &str = "\
usage:
  wyrd check FILE... [--tree T]               validate *.bt.ron, *.flags.ron and *.script.ron files (errors as
                                              file:line:column); a script is checked against --tree, else the
                                              last tree before it on the line, else NAME.bt.ron beside it
  wyrd sim TREE --script S [--ticks N] [--seed S]
                                              run a tree against a scripted timeline; one JSON line per tick
  wyrd graph TREE [--format dot|mermaid]      the tree as Graphviz dot (default) or Mermaid
  wyrd save verify FILE --key-file K          exit 0 and print \"ok\" if the signature holds
  wyrd save show FILE --key-file K            print the document and whether it verified
  wyrd save sign FILE --key-file K [-o OUT]   sign a JSON document (or re-sign a signed file)
  wyrd save status DIR --key-file K [--schema N]
                                              which copy of each document would load and why, every
                                              file's verdict, the newest valid progress (exit 1: none usable)
  wyrd save diff A B --key-file K             flags, counters and events that differ between two world-state
                                              saves (files, or folders: the copy that would load)

The key file's bytes are the key; one trailing newline is ignored.";

/// A failure with the exit code it maps to.
struct Failure {
    code: u8,
    message: String,
}

fn usage(message: impl Into<String>) -> Failure {
    Failure {
        code: 2,
        message: format!("{}\n\n{USAGE}", message.into()),
    }
}

fn bad(message: impl Into<String>) -> Failure {
    Failure {
        code: 1,
        message: message.into(),
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut out = String::new();
    match run(&args, &mut out) {
        Ok(()) => {
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(f) => {
            print!("{out}");
            eprintln!("{}", f.message);
            ExitCode::from(f.code)
        }
    }
}

fn run(args: &[String], out: &mut String) -> Result<(), Failure> {
    match args.first().map(String::as_str) {
        Some("check") => check(&args[1..], out),
        Some("save") => save(&args[1..], out),
        Some("sim") => sim(&args[1..], out),
        Some("graph") => graph(&args[1..], out),
        Some("-h" | "--help" | "help") => {
            out.push_str(USAGE);
            out.push('\n');
            Ok(())
        }
        Some(other) => Err(usage(format!("unknown command {other:?}"))),
        None => Err(usage("no command given")),
    }
}

fn check(files: &[String], out: &mut String) -> Result<(), Failure> {
    if files.is_empty() {
        return Err(usage("wyrd check needs at least one file"));
    }
    let mut errors = Vec::new();
    let mut tree_opt: Option<String> = None;
    let mut list: Vec<&String> = Vec::new();
    let mut it = files.iter();
    while let Some(f) = it.next() {
        if f == "--tree" {
            tree_opt = Some(
                it.next()
                    .cloned()
                    .ok_or_else(|| usage("--tree needs a tree file"))?,
            );
        } else if f.starts_with('-') {
            return Err(usage(format!("unknown option {f}")));
        } else {
            list.push(f);
        }
    }
    let mut last_tree: Option<&str> = None;
    for file in list {
        let path = Path::new(file);
        if file.ends_with(".bt.ron") {
            last_tree = Some(file);
        }
        let result = std::fs::read(path)
            .map_err(|e| format!("{file}: cannot read: {e}"))
            .and_then(|bytes| {
                if file.ends_with(".bt.ron") {
                    load_tree(file).map_err(|e| e.message).map(|p| {
                        format!(
                            "{file}: ok ({} nodes, {} actions, {} impulses)",
                            p.main_len(),
                            p.actions
                                .iter()
                                .filter(|a| (a.node as usize) < p.main_len())
                                .count(),
                            p.impulses.len()
                        )
                    })
                } else if file.ends_with(".flags.ron") {
                    FlagsFile::from_bytes(path, &bytes)
                        .map(|f| {
                            format!(
                                "{file}: ok ({} flags, {} counters)",
                                f.flags.len(),
                                f.counters.len()
                            )
                        })
                        .map_err(|e| e.to_string())
                } else if file.ends_with(".script.ron") {
                    let sibling = format!("{}.bt.ron", file.trim_end_matches(".script.ron"));
                    let tree = tree_opt
                        .clone()
                        .or_else(|| last_tree.map(str::to_owned))
                        .or_else(|| Path::new(&sibling).exists().then_some(sibling));
                    check_script(file, &bytes, tree.as_deref())
                } else {
                    Err(format!(
                        "{file}: unknown file kind (expected *.bt.ron, *.flags.ron or *.script.ron)"
                    ))
                }
            });
        match result {
            Ok(line) => {
                out.push_str(&line);
                out.push('\n');
            }
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(bad(errors.join("\n")))
    }
}

/// Checks a `wyrd sim` script: its syntax, and every name it uses against
/// the tree it drives.
fn check_script(file: &str, bytes: &[u8], tree: Option<&str>) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8"))?;
    let script = wyrd_bt::sim::Script::parse(text).map_err(|e| format!("{file}:{e}"))?;
    let Some(tree) = tree else {
        return Err(format!(
            "{file}: which tree does this script drive? give --tree TREE, list the tree before it, or put NAME.bt.ron beside NAME.script.ron"
        ));
    };
    let program = load_tree(tree).map_err(|e| e.message)?;
    let problems = script.check(&program);
    if problems.is_empty() {
        Ok(format!(
            "{file}: ok ({} events, against {tree})",
            script.events.len()
        ))
    } else {
        Err(problems
            .iter()
            .map(|p| format!("{file}:{p}"))
            .collect::<Vec<_>>()
            .join("\n"))
    }
}

struct SaveArgs {
    file: PathBuf,
    key: SaveKey,
    output: Option<PathBuf>,
}

fn parse_save_args(args: &[String], allow_output: bool) -> Result<SaveArgs, Failure> {
    let mut file = None;
    let mut key_file = None;
    let mut output = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--key-file" => {
                key_file = Some(it.next().ok_or_else(|| usage("--key-file needs a path"))?)
            }
            "-o" | "--output" if allow_output => {
                output = Some(PathBuf::from(
                    it.next().ok_or_else(|| usage("-o needs a path"))?,
                ))
            }
            flag if flag.starts_with('-') => return Err(usage(format!("unknown option {flag}"))),
            path if file.is_none() => file = Some(PathBuf::from(path)),
            extra => return Err(usage(format!("unexpected argument {extra:?}"))),
        }
    }
    let file = file.ok_or_else(|| usage("no save file given"))?;
    let key_file = key_file.ok_or_else(|| usage("--key-file is required"))?;
    let mut key = std::fs::read(key_file)
        .map_err(|e| bad(format!("{key_file}: cannot read the key: {e}")))?;
    if key.last() == Some(&b'\n') {
        key.pop();
        if key.last() == Some(&b'\r') {
            key.pop();
        }
    }
    if key.is_empty() {
        return Err(bad(format!("{key_file}: the key file is empty")));
    }
    Ok(SaveArgs {
        file,
        key: SaveKey::new(key),
        output,
    })
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

fn save(args: &[String], out: &mut String) -> Result<(), Failure> {
    let Some(sub) = args.first() else {
        return Err(usage("wyrd save needs verify, show, sign, status or diff"));
    };
    match sub.as_str() {
        "verify" => {
            let a = parse_save_args(&args[1..], false)?;
            let bytes = read_save(&a.file)?;
            let body = a
                .key
                .open(&bytes)
                .map_err(|e| bad(format!("{}: {e}", a.file.display())))?;
            wyrd_save::parse_document::<wyrd_state::WorldStateDocument>(
                body,
                wyrd_state::WORLD_STATE_SCHEMA_VERSION,
            )
            .map_err(|e| bad(format!("{}: signature ok, but {e}", a.file.display())))?;
            out.push_str("ok\n");
            Ok(())
        }
        "show" => {
            let a = parse_save_args(&args[1..], false)?;
            let bytes = read_save(&a.file)?;
            let (verdict, body) = match a.key.open(&bytes) {
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
            out.push_str(&format!("-- {}: {verdict}\n", a.file.display()));
            if verdict.starts_with("NOT") {
                Err(bad(format!("{}: {verdict}", a.file.display())))
            } else {
                Ok(())
            }
        }
        "sign" => {
            let a = parse_save_args(&args[1..], true)?;
            let bytes = read_save(&a.file)?;
            // A signed file's first line is a signature: replace it. A plain
            // document starts with '{'.
            let trimmed = bytes.iter().position(|b| !b.is_ascii_whitespace());
            let body: &[u8] = match trimmed.map(|i| bytes[i]) {
                Some(b'{') => &bytes,
                _ => match bytes.iter().position(|&b| b == b'\n') {
                    Some(nl) => &bytes[nl + 1..],
                    None => return Err(bad(format!("{}: not a JSON document", a.file.display()))),
                },
            };
            // Refuse to sign what the game would refuse to load.
            wyrd_save::parse_document::<wyrd_state::WorldStateDocument>(
                body,
                wyrd_state::WORLD_STATE_SCHEMA_VERSION,
            )
            .map_err(|e| bad(format!("{}: {e}", a.file.display())))?;
            let sealed = a.key.seal(body);
            let target = a.output.unwrap_or_else(|| a.file.clone());
            std::fs::write(&target, sealed)
                .map_err(|e| bad(format!("{}: cannot write: {e}", target.display())))?;
            out.push_str(&format!("signed {}\n", target.display()));
            Ok(())
        }
        "status" => save_cmd::status(&args[1..], out),
        "diff" => save_cmd::diff(&args[1..], out),
        other => Err(usage(format!("unknown save command {other:?}"))),
    }
}

/// Loads and compiles a tree file and the files it uses. Tools accept any
/// action and predicate name (the game registers them); everything else is
/// checked.
fn load_tree(file: &str) -> Result<wyrd_bt::Program, Failure> {
    let mut read = |p: &str| std::fs::read(p).map_err(|e| e.to_string());
    let files = wyrd_bt::load_tree_files(file, &mut read).map_err(|e| bad(e.to_string()))?;
    wyrd_bt::compile(file, &files, &wyrd_bt::Vocabulary::permissive())
        .map_err(|e| bad(e.to_string()))
}

fn sim(args: &[String], out: &mut String) -> Result<(), Failure> {
    let mut tree = None;
    let mut script = None;
    let mut ticks = None;
    let mut seed = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| usage(format!("{name} needs a value")))
        };
        match a.as_str() {
            "--script" => script = Some(value("--script")?),
            "--ticks" => {
                ticks = Some(
                    value("--ticks")?
                        .parse::<u64>()
                        .map_err(|_| usage("--ticks needs a number"))?,
                )
            }
            "--seed" => {
                seed = Some(
                    value("--seed")?
                        .parse::<u64>()
                        .map_err(|_| usage("--seed needs a number"))?,
                )
            }
            flag if flag.starts_with('-') => return Err(usage(format!("unknown option {flag}"))),
            path if tree.is_none() => tree = Some(path.to_owned()),
            extra => return Err(usage(format!("unexpected argument {extra:?}"))),
        }
    }
    let tree = tree.ok_or_else(|| usage("wyrd sim needs a tree file"))?;
    let script_path = script.ok_or_else(|| usage("wyrd sim needs --script FILE"))?;
    let program = load_tree(&tree)?;
    let text =
        std::fs::read_to_string(&script_path).map_err(|e| bad(format!("{script_path}: {e}")))?;
    let mut script =
        wyrd_bt::sim::Script::parse(&text).map_err(|e| bad(format!("{script_path}:{e}")))?;
    if ticks.is_some() {
        script.ticks = ticks;
    }
    if let Some(s) = seed {
        script.seed = s;
    }
    wyrd_bt::sim::Sim::run_script(&program, &script, |r| {
        out.push_str(&r.to_json());
        out.push('\n');
    })
    .map_err(|e| bad(format!("{script_path}: {e}")))?;
    Ok(())
}

/// What an edge means, for parents whose children have roles: the cases of
/// a `Switch`, the branches of `IfThenElse` / `WhileDoElse`.
fn edge_label(p: &wyrd_bt::Program, parent: u32, child: u32) -> Option<String> {
    let k = p.children_of(parent).iter().position(|&c| c == child)?;
    match p.nodes[parent as usize].kind {
        wyrd_bt::Kind::Switch { cases, .. } => {
            let n = p.nodes[parent as usize].child_count as usize - 1;
            Some(if k < n {
                format!("= {}", p.switch_cases[cases as usize + k])
            } else {
                "default".into()
            })
        }
        wyrd_bt::Kind::IfThenElse => Some(["if", "then", "else"][k].into()),
        wyrd_bt::Kind::WhileDoElse => Some(["while", "do", "else"][k].into()),
        _ => None,
    }
}

fn graph(args: &[String], out: &mut String) -> Result<(), Failure> {
    let mut tree = None;
    let mut format = "dot".to_owned();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--format" => {
                format = it
                    .next()
                    .cloned()
                    .ok_or_else(|| usage("--format needs dot or mermaid"))?
            }
            flag if flag.starts_with('-') => return Err(usage(format!("unknown option {flag}"))),
            path if tree.is_none() => tree = Some(path.to_owned()),
            extra => return Err(usage(format!("unexpected argument {extra:?}"))),
        }
    }
    let tree = tree.ok_or_else(|| usage("wyrd graph needs a tree file"))?;
    let p = load_tree(&tree)?;
    let label = |i: usize| {
        let n = &p.nodes[i];
        let name = p.name(i as u32);
        let detail = match n.kind {
            wyrd_bt::Kind::Action { action } => format!("!{}", p.actions[action as usize].name),
            k => k.name().to_owned(),
        };
        if name == detail.trim_start_matches('!') {
            detail
        } else {
            format!("{detail}\\n{name}")
        }
    };
    match format.as_str() {
        "dot" => {
            out.push_str("digraph tree {\n  node [shape=box, fontname=\"Helvetica\"];\n");
            for i in 0..p.main_len() {
                let shape = if p.nodes[i].kind.is_leaf() {
                    "ellipse"
                } else {
                    "box"
                };
                out.push_str(&format!(
                    "  n{i} [label=\"{}\", shape={shape}];\n",
                    label(i).replace('"', "\\\"")
                ));
                let parent = p.nodes[i].parent;
                if parent != wyrd_bt::NONE {
                    match edge_label(&p, parent, i as u32) {
                        Some(l) => out.push_str(&format!("  n{parent} -> n{i} [label=\"{l}\"];\n")),
                        None => out.push_str(&format!("  n{parent} -> n{i};\n")),
                    }
                }
            }
            for imp in &p.impulses {
                if imp.redirect_to != wyrd_bt::NONE {
                    out.push_str(&format!(
                        "  n{} -> n{} [style=dashed, label=\"redirect\"];\n",
                        imp.node, imp.redirect_to
                    ));
                }
            }
            out.push_str("}\n");
        }
        "mermaid" => {
            out.push_str("flowchart TD\n");
            for i in 0..p.main_len() {
                let text = label(i).replace("\\n", "<br/>").replace('"', "#quot;");
                out.push_str(&format!("  n{i}[\"{text}\"]\n"));
                let parent = p.nodes[i].parent;
                if parent != wyrd_bt::NONE {
                    match edge_label(&p, parent, i as u32) {
                        Some(l) => out.push_str(&format!("  n{parent} -- \"{l}\" --> n{i}\n")),
                        None => out.push_str(&format!("  n{parent} --> n{i}\n")),
                    }
                }
            }
            for imp in &p.impulses {
                if imp.redirect_to != wyrd_bt::NONE {
                    out.push_str(&format!(
                        "  n{} -. redirect .-> n{}\n",
                        imp.node, imp.redirect_to
                    ));
                }
            }
        }
        other => return Err(usage(format!("unknown format {other:?} (dot or mermaid)"))),
    }
    Ok(())
}
