//! `wyrd check`: trees, flags files and sim scripts, alone or as folders,
//! checked as the game's loader checks them when the game's vocabulary is
//! known (`--vocabulary FILE`, or a `wyrd.toml` project file found by
//! walking up from each file), and world names checked against the flags
//! files that declare them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use wyrd_bt::{Vocabulary, VocabularyFile};
use wyrd_state::{FlagsFile, WorldState};

use crate::{Failure, bad, load_tree_and_files, load_tree_with, script_error, usage, with_caret};

/// The project file's name.
pub(crate) const PROJECT_FILE: &str = "wyrd.toml";

/// What `wyrd check` was asked.
pub(crate) struct CheckArgs {
    /// Files and folders.
    pub paths: Vec<String>,
    /// The tree scripts are checked against.
    pub tree: Option<String>,
    /// The game's vocabulary (overrides project files).
    pub vocabulary: Option<PathBuf>,
    /// The assets folder the vocabulary's world files are relative to.
    pub assets: Option<PathBuf>,
}

/// `wyrd.toml`: where a game keeps its vocabulary and assets.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ProjectToml {
    /// The vocabulary file, relative to the project file.
    vocabulary: Option<String>,
    /// The assets folder (the root of asset paths), relative to the
    /// project file.
    assets: Option<String>,
}

/// A vocabulary and where its world values come from.
struct Context {
    /// Where it came from, for messages.
    origin: String,
    vocabulary: Option<Vocabulary>,
    /// Declared world values (flags and counters), when known.
    world: Option<BTreeSet<String>>,
    /// Of those, the flags (the others are counters): what a world
    /// action may write to each.
    world_flags: BTreeSet<String>,
    /// Flags files the world names came from, for messages.
    world_files: Vec<String>,
    /// The assets folder, when known: a tree in it may use only files in
    /// it (the game's loader reads nowhere else).
    assets: Option<PathBuf>,
}

const KINDS: [&str; 4] = [".bt.ron", ".flags.ron", ".script.ron", ".breakpoints.ron"];

/// Files and folders to the files to check: a folder gives every tree,
/// flags file and script under it, sorted.
fn expand(paths: &[String]) -> Result<Vec<String>, Failure> {
    fn walk(dir: &Path, out: &mut Vec<String>) -> std::io::Result<()> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                walk(&path, out)?;
            } else {
                let name = path.to_string_lossy().into_owned();
                if KINDS.iter().any(|k| name.ends_with(k)) {
                    out.push(name);
                }
            }
        }
        Ok(())
    }
    let mut files = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let before = files.len();
            walk(path, &mut files)
                .map_err(|e| usage(format!("{p}: cannot read the folder: {e}")))?;
            if files.len() == before {
                return Err(usage(format!(
                    "{p}: no *.bt.ron, *.flags.ron, *.script.ron or *.breakpoints.ron file in this folder"
                )));
            }
        } else if path.exists() {
            files.push(p.clone());
        } else {
            return Err(usage(format!("{p}: no such file or folder")));
        }
    }
    // One file named twice (a folder and a file in it) is checked once: its
    // flags would conflict with themselves.
    let mut seen = BTreeSet::new();
    files.retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| PathBuf::from(f))));
    Ok(files)
}

/// The nearest `wyrd.toml` at or above `file`'s folder.
fn project_of(file: &str) -> Option<PathBuf> {
    let start = std::fs::canonicalize(file).ok()?;
    start
        .ancestors()
        .skip(1)
        .map(|dir| dir.join(PROJECT_FILE))
        .find(|p| p.is_file())
}

/// A flags file, read and parsed.
fn read_flags(path: &Path) -> Result<FlagsFile, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    FlagsFile::from_bytes(path, &bytes).map_err(|e| e.to_string())
}

/// The names of a flags file's flags and counters.
fn declared_names(f: &FlagsFile) -> BTreeSet<String> {
    f.flags
        .iter()
        .map(|d| d.name.clone())
        .chain(f.counters.iter().map(|d| d.name.clone()))
        .collect()
}

/// Merges a flags file into the files checked before it, as the game's
/// world state merges the files it loads: an id or a name another file
/// declared refuses the file (the game logs it and applies none of it).
fn merge_checked(merged: &mut WorldState, file: &FlagsFile) -> Result<(), String> {
    merged.merge_file(file).map(|_| ()).map_err(|conflicts| {
        conflicts
            .iter()
            .map(|c| format!("{}: {c}", file.path.display()))
            .collect::<Vec<_>>()
            .join("\n")
    })
}

/// Reads a vocabulary file and the flags files it names (relative to
/// `assets`).
fn context_from(
    vocabulary: &Path,
    assets: Option<&Path>,
    origin: String,
) -> Result<Context, Failure> {
    let text = std::fs::read_to_string(vocabulary).map_err(|e| {
        usage(format!(
            "{}: cannot read the vocabulary: {e}",
            vocabulary.display()
        ))
    })?;
    let file = VocabularyFile::from_json(&text)
        .map_err(|e| usage(format!("{}: {e}", vocabulary.display())))?;
    let vocab = file
        .to_vocabulary()
        .map_err(|e| usage(format!("{}: {e}", vocabulary.display())))?;
    let mut world = None;
    let mut world_flags = BTreeSet::new();
    let mut world_files = Vec::new();
    if !file.world_files.is_empty() {
        // The world files are asset paths: without the assets folder, the
        // folder above the vocabulary where the first of them is (a
        // vocabulary written into its game's folder of the assets).
        let root = assets.map(Path::to_owned).unwrap_or_else(|| {
            let beside = vocabulary.parent().map(Path::to_owned).unwrap_or_default();
            beside
                .ancestors()
                .find(|dir| dir.join(&file.world_files[0]).is_file())
                .map_or(beside.clone(), Path::to_owned)
        });
        let mut names = BTreeSet::new();
        let mut merged = WorldState::default();
        for f in &file.world_files {
            let path = root.join(f);
            let flags = read_flags(&path).map_err(|e| {
                usage(format!(
                    "{e} (a world file of the vocabulary {}; give the assets folder with --assets or `assets` in {PROJECT_FILE})",
                    vocabulary.display()
                ))
            })?;
            world_flags.extend(flags.flags.iter().map(|d| d.name.clone()));
            merge_checked(&mut merged, &flags).map_err(|e| {
                bad(format!(
                    "{e}\n(world files of the vocabulary {}: the game loads them together)",
                    vocabulary.display()
                ))
            })?;
            names.extend(declared_names(&flags));
            world_files.push(shown(&path));
        }
        world = Some(names);
    }
    Ok(Context {
        origin,
        vocabulary: Some(vocab),
        world,
        world_flags,
        world_files,
        assets: assets.map(Path::to_owned),
    })
}

/// The context of one project file.
fn context_of_project(project: &Path) -> Result<Context, Failure> {
    let text = std::fs::read_to_string(project)
        .map_err(|e| usage(format!("{}: {e}", project.display())))?;
    let toml: ProjectToml = toml::from_str(&text)
        .map_err(|e| usage(format!("{}: {}", project.display(), e.message())))?;
    let dir = project.parent().unwrap_or(Path::new("."));
    let assets = toml.assets.as_ref().map(|a| dir.join(a));
    match toml.vocabulary {
        Some(v) => context_from(
            &dir.join(v),
            assets.as_deref(),
            format!("the vocabulary of {}", shown(project)),
        ),
        None => Ok(Context {
            origin: shown(project),
            vocabulary: None,
            world: None,
            world_flags: BTreeSet::new(),
            world_files: Vec::new(),
            assets,
        }),
    }
}

/// The vocabulary `wyrd sim` runs `tree` with: the game's vocabulary file
/// (`given`, else that of the `wyrd.toml` above the tree) for its actions'
/// parameters, so that an action whose input key is unset fails without
/// starting as in the game (a recording of the game diverged at its first
/// tick without it); any other name accepted, and predicates answered by
/// the script (the file's predicates have no code). Without a file: any
/// name, no parameters known.
pub(crate) fn sim_vocabulary(tree: &str, given: Option<&Path>) -> Result<Vocabulary, Failure> {
    // The vocabulary file alone: a sim sets world values from its script,
    // so the vocabulary's flags files are not read (one that listed them
    // was refused without `--assets`, which `sim` does not take).
    let path = match given {
        Some(v) => Some(v.to_owned()),
        None => match project_of(tree) {
            Some(project) => {
                let text = std::fs::read_to_string(&project)
                    .map_err(|e| usage(format!("{}: {e}", project.display())))?;
                let toml: ProjectToml = toml::from_str(&text)
                    .map_err(|e| usage(format!("{}: {}", project.display(), e.message())))?;
                let dir = project.parent().unwrap_or(Path::new("."));
                toml.vocabulary.map(|v| dir.join(v))
            }
            None => None,
        },
    };
    let Some(path) = path else {
        return Ok(Vocabulary::permissive());
    };
    let origin = format!("the vocabulary {}", path.display());
    let text = std::fs::read_to_string(&path).map_err(|e| {
        usage(format!(
            "{}: cannot read the vocabulary: {e}",
            path.display()
        ))
    })?;
    let mut vocabulary = VocabularyFile::from_json(&text)
        .and_then(|f| f.to_vocabulary())
        .map_err(|e| usage(format!("{}: {e}", path.display())))?;
    eprintln!("note: actions' parameters as {origin} declares them");
    vocabulary.predicates.clear();
    vocabulary.permissive = true;
    Ok(vocabulary)
}

/// Why a check could not be done, in words, for a tree's `ok` line.
fn not_checked(ctx: &Context, p: &wyrd_bt::Program, uses_files: bool) -> Vec<&'static str> {
    let mut out = Vec::new();
    if ctx.vocabulary.is_none() {
        out.push("action names and parameters, predicates and custom nodes (no vocabulary)");
    }
    if ctx.world.is_none() && !p.globals().is_empty() {
        out.push("world values (no flags file)");
    }
    if ctx.assets.is_none() && uses_files {
        out.push("that the files it uses are in the assets folder, as the game's loader needs (no assets folder: --assets, or `assets` in wyrd.toml)");
    }
    out
}

/// `path` with `.` and `a/..` folded away (a leading `..` stays): no file
/// system look-up.
fn fold(path: &Path) -> PathBuf {
    let mut folded = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir
                if matches!(
                    folded.components().next_back(),
                    Some(std::path::Component::Normal(_))
                ) =>
            {
                folded.pop();
            }
            std::path::Component::CurDir => {}
            other => folded.push(other),
        }
    }
    folded
}

/// A path as the user would type it: folded, relative to the current
/// folder when it is under it.
fn shown(path: &Path) -> String {
    let folded = fold(path);
    std::env::current_dir()
        .ok()
        .and_then(|cwd| folded.strip_prefix(cwd).ok().map(Path::to_owned))
        .unwrap_or(folded)
        .display()
        .to_string()
}

/// `path` made absolute (from the current folder) and folded, as the
/// game's asset paths are.
fn absolute(path: &Path) -> PathBuf {
    fold(&std::env::current_dir().unwrap_or_default().join(path))
}

/// A tree in the assets folder that uses files above it: the game's
/// loader refuses it (Bevy reads assets inside the folder, and a packaged
/// game has nothing outside), so the check does too, by the loader's own
/// rule on the tree's asset path. A tree outside the assets folder is not
/// the game's: not checked for this.
fn outside_assets(file: &str, assets: &Path) -> Result<(), String> {
    // Symbolic links resolved (a temporary folder is often behind one).
    let real = |p: &Path| p.canonicalize().unwrap_or_else(|_| absolute(p));
    let root = real(assets);
    let Ok(inside) = real(Path::new(file))
        .strip_prefix(&root)
        .map(Path::to_owned)
    else {
        return Ok(());
    };
    let asset_path = inside.to_string_lossy().replace('\\', "/");
    let mut read = |p: &str| std::fs::read(root.join(p)).map_err(|e| e.to_string());
    let files =
        wyrd_bt::load_tree_files(&asset_path, &mut read).map_err(|e| format!("{file}: {e}"))?;
    // Each file's uses above the folder, where it names them (the loader
    // stops at the first; all are shown here).
    let mut above = Vec::new();
    let mut paths: Vec<&String> = files.keys().collect();
    paths.sort_unstable();
    for path in paths {
        let parsed = &files[path];
        for used in wyrd_bt::file_uses(path, &parsed.def) {
            if !wyrd_bt::above_root(&used.path) {
                continue;
            }
            let (line, column) = used.position(&parsed.text);
            let shown_path = shown(&assets.join(path));
            above.push(with_caret(
                &format!(
                    "{shown_path}:{line}:{column}: cannot read {}: it is above the assets folder {}/ ({} from it), where the game's loader reads a tree's `Use(file: ..)`",
                    used.written,
                    shown(assets).trim_end_matches('/'),
                    used.path
                ),
                Some(&parsed.text),
                line,
                column,
            ));
        }
    }
    if above.is_empty() {
        Ok(())
    } else {
        Err(above.join("\n"))
    }
}

/// Checks a tree: compiled as the game's loader would, then its world
/// names against the declared flags and counters.
fn check_tree(file: &str, ctx: &Context) -> Result<String, String> {
    let permissive = Vocabulary::permissive();
    let vocab = ctx.vocabulary.as_ref().unwrap_or(&permissive);
    let (p, files) = match load_tree_and_files(file, vocab) {
        Ok(loaded) => loaded,
        Err(e) => {
            // A tree whose only errors are the vocabulary's (an unknown
            // action) compiles without it: its world values are checked in
            // the same run, not only once the rest is fixed.
            let mut message = e.message;
            if ctx.vocabulary.is_some()
                && let Ok((p, _)) = load_tree_and_files(file, &permissive)
                && let Err(world) = world_errors(&p, ctx)
            {
                message.push('\n');
                message.push_str(&world);
            }
            return Err(message);
        }
    };
    if let Some(root) = &ctx.assets {
        outside_assets(file, root)?;
    }
    world_errors(&p, ctx)?;
    let mut line = format!(
        "{file}: ok ({} nodes, {} actions, {} impulses)",
        p.main_len(),
        p.actions()
            .iter()
            .filter(|a| (a.node() as usize) < p.main_len())
            .count(),
        p.impulses().len()
    );
    let missing = not_checked(ctx, &p, files.len() > 1);
    if !missing.is_empty() {
        line.push_str(&format!("; not checked: {}", missing.join("; ")));
    }
    Ok(line)
}

/// The world values a compiled tree reads that no flags file of the
/// check declares, each at its place (nothing to check without flags
/// files).
fn world_errors(p: &wyrd_bt::Program, ctx: &Context) -> Result<(), String> {
    let Some(world) = &ctx.world else {
        return Ok(());
    };
    let known: Vec<&str> = world.iter().map(String::as_str).collect();
    // Each file read once, however many unknown names it has.
    let mut texts: BTreeMap<&str, Option<String>> = BTreeMap::new();
    let unknown: Vec<String> = p
        .globals()
        .iter()
        .filter_map(|g| {
            if !world.contains(&g.name) {
                return Some((g, None));
            }
            // A world action's write its flag or counter cannot hold.
            let what = g.write_misfit(ctx.world_flags.contains(&g.name))?;
            Some((g, Some(what)))
        })
        .map(|(g, wrong_type)| {
            let text = texts
                .entry(g.file.as_str())
                .or_insert_with(|| std::fs::read_to_string(&g.file).ok())
                .as_deref();
            let message = match (wrong_type, g.written) {
                (Some(what), Some(written)) => format!(
                    "{}:{}:{}: {} is {what}; the action here writes {written} to it",
                    g.file, g.line, g.column, g.name
                ),
                _ => {
                    let hint = wyrd_bt::closest_name(&g.name, known.iter().copied());
                    format!(
                        "{}:{}:{}: no flags file declares the world value {:?}{hint} (declared in {})",
                        g.file,
                        g.line,
                        g.column,
                        g.name,
                        ctx.world_files.join(", ")
                    )
                }
            };
            with_caret(&message, text, g.line, g.column)
        })
        .collect();
    if !unknown.is_empty() {
        return Err(unknown.join("\n"));
    }
    Ok(())
}

/// `wyrd check`: every file; 0 all ok, 1 problems, 2 usage.
pub(crate) fn check(args: &CheckArgs, out: &mut String) -> Result<(), Failure> {
    let files = expand(&args.paths)?;
    // World names declared by the flags files on the line (or in the
    // folders): what trees are checked against without a vocabulary.
    let mut line_world = BTreeSet::new();
    let mut line_flags = BTreeSet::new();
    let mut line_world_files = Vec::new();
    for f in files.iter().filter(|f| f.ends_with(".flags.ron")) {
        if let Ok(flags) = read_flags(Path::new(f)) {
            line_world.extend(declared_names(&flags));
            line_flags.extend(flags.flags.iter().map(|d| d.name.clone()));
            line_world_files.push(f.clone());
        }
    }
    let given = match &args.vocabulary {
        Some(v) => Some(context_from(
            v,
            args.assets.as_deref(),
            format!("the vocabulary {}", v.display()),
        )?),
        None => None,
    };
    let mut projects: BTreeMap<PathBuf, Context> = BTreeMap::new();
    let plain = Context {
        origin: String::new(),
        vocabulary: None,
        world: (!line_world.is_empty()).then(|| line_world.clone()),
        world_flags: line_flags,
        world_files: line_world_files.clone(),
        assets: args.assets.clone(),
    };
    let mut used = BTreeSet::new();
    let mut errors = Vec::new();
    // Each error shown once: one in a file of behaviors is met again by
    // every checked tree that uses it, and by the file itself.
    let mut shown = BTreeSet::new();
    let mut last_tree: Option<&str> = None;
    // The line's flags files, merged in order as the game merges its files:
    // one that reuses another's id or name is refused, as the game does.
    // One world per project (`wyrd.toml`): two games in one repository
    // do not load each other's files.
    let mut worlds: BTreeMap<Option<PathBuf>, WorldState> = BTreeMap::new();
    for file in &files {
        let result = if file.ends_with(".bt.ron") {
            last_tree = Some(file);
            let project = if given.is_some() {
                None
            } else {
                project_of(file)
            };
            if let Some(p) = &project
                && !projects.contains_key(p)
            {
                projects.insert(p.clone(), context_of_project(p)?);
            }
            let ctx = given
                .as_ref()
                .or_else(|| project.as_ref().and_then(|p| projects.get(p)))
                .unwrap_or(&plain);
            if !ctx.origin.is_empty() {
                used.insert(ctx.origin.clone());
            }
            check_tree(file, ctx)
        } else if file.ends_with(".flags.ron") {
            let path = Path::new(file);
            std::fs::read(path)
                .map_err(|e| format!("{file}: cannot read: {e}"))
                .and_then(|bytes| {
                    let f = FlagsFile::from_bytes(path, &bytes).map_err(|e| {
                        let text = String::from_utf8_lossy(&bytes);
                        with_caret(&e.to_string(), Some(&text), e.line, e.column)
                    })?;
                    merge_checked(worlds.entry(project_of(file)).or_default(), &f)?;
                    Ok(format!(
                        "{file}: ok ({} flags, {} counters)",
                        f.flags.len(),
                        f.counters.len()
                    ))
                })
        } else if file.ends_with(".script.ron") {
            std::fs::read(file)
                .map_err(|e| format!("{file}: cannot read: {e}"))
                .and_then(|bytes| {
                    let tree = script_tree(file, &bytes, args.tree.as_deref(), last_tree)?;
                    check_script(file, &bytes, tree.as_ref())
                })
        } else if file.ends_with(".breakpoints.ron") {
            // Breakpoints are for the tree beside them (NAME.bt.ron).
            let sibling = format!("{}.bt.ron", file.trim_end_matches(".breakpoints.ron"));
            let tree = args
                .tree
                .clone()
                .or_else(|| Path::new(&sibling).exists().then_some(sibling));
            std::fs::read(file)
                .map_err(|e| format!("{file}: cannot read: {e}"))
                .and_then(|bytes| check_breakpoints(file, &bytes, tree.as_deref()))
        } else {
            Err(format!(
                "{file}: unknown file kind (expected *.bt.ron, *.flags.ron, *.script.ron or *.breakpoints.ron)"
            ))
        };
        match result {
            Ok(line) => {
                out.push_str(&line);
                out.push('\n');
            }
            Err(e) => errors.push(once_each(file, &e, &mut shown)),
        }
    }
    for origin in used {
        out.push_str(&format!("(trees checked with {origin})\n"));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(bad(errors.join("\n")))
    }
}

/// The errors of `file` that `shown` does not have yet (each an error line
/// with the source lines and caret under it), which it then has; an error
/// all of whose errors were shown says so in a line of its own.
fn once_each(file: &str, error: &str, shown: &mut BTreeSet<String>) -> String {
    // A source line (`7 |     root: ..`) or a caret line (`  |   ^`).
    let is_source = |line: &str| {
        line.starts_with(|c: char| c.is_ascii_digit() || c == ' ')
            && line
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .trim_start()
                .starts_with('|')
    };
    let mut blocks: Vec<String> = Vec::new();
    for line in error.lines() {
        match blocks.last_mut() {
            Some(block) if is_source(line) => {
                block.push('\n');
                block.push_str(line);
            }
            _ => blocks.push(line.to_owned()),
        }
    }
    let new: Vec<String> = blocks
        .into_iter()
        .filter(|block| shown.insert(block.clone()))
        .collect();
    if new.is_empty() {
        format!("{file}: fails with the error above")
    } else {
        new.join("\n")
    }
}

/// Checks a breakpoints file: its syntax, and every node, action and key
/// it names against its tree.
fn check_breakpoints(file: &str, bytes: &[u8], tree: Option<&str>) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8"))?;
    let def = wyrd_bt::BreakpointsDef::parse(file, text).map_err(|e| match &e {
        wyrd_bt::BreakpointError::Syntax { line, column, .. } => {
            with_caret(&e.to_string(), Some(text), *line, *column)
        }
        _ => e.to_string(),
    })?;
    let Some(tree) = tree else {
        return Err(format!(
            "{file}: which tree are these breakpoints for? give --tree TREE or put NAME.bt.ron beside NAME.breakpoints.ron"
        ));
    };
    let program = load_tree_with(tree, &Vocabulary::permissive()).map_err(|e| e.message)?;
    // Each error at its breakpoint's line, as a tree's errors are.
    let places = wyrd_bt::BreakpointsDef::places(text);
    let placed = |e: &wyrd_bt::BreakpointError| match e {
        wyrd_bt::BreakpointError::Breakpoint {
            number,
            name,
            message,
            ..
        } if places.get(number - 1).is_some() => {
            let (line, column) = named_value_place(text, places[number - 1], *number, message);
            with_caret(
                &format!("{file}:{line}:{column}: breakpoint {number} ({name}): {message}"),
                Some(text),
                line,
                column,
            )
        }
        other => other.to_string(),
    };
    match wyrd_bt::Breakpoints::resolve(&def, &program, file) {
        Ok(b) => Ok(format!(
            "{file}: ok ({} breakpoints, against {tree})",
            b.len()
        )),
        Err(errors) => Err(errors.iter().map(placed).collect::<Vec<_>>().join("\n")),
    }
}

/// Where an error about breakpoint `number` points: at the value its
/// message names (`the tree has no node "root/fle"`), as the parser places
/// it, else at the breakpoint.
fn named_value_place(
    text: &str,
    at: (usize, usize),
    number: usize,
    message: &str,
) -> (usize, usize) {
    message
        .split('"')
        .nth(1)
        .and_then(|name| wyrd_bt::BreakpointsDef::value_place(text, number, name))
        .unwrap_or(at)
}

/// The tree a script drives, and how it was found (said on the script's
/// lines: a script checked against the wrong tree fails with errors that
/// make sense only against that tree).
struct ScriptTree {
    path: String,
    by: String,
}

/// Which tree a script is checked against: `--tree`; else the tree its
/// `// tree: PATH` line names (the scripts `wyrd sim --replay
/// --emit-script` writes have one): the script says what it drives, and
/// the order of files on the line or in a folder does not (`wyrd check
/// assets/` checked a script against whichever tree sorted before it);
/// else NAME.bt.ron beside NAME.script.ron; else the last tree before it
/// on the line.
fn script_tree(
    file: &str,
    bytes: &[u8],
    given: Option<&str>,
    last_tree: Option<&str>,
) -> Result<Option<ScriptTree>, String> {
    if let Some(tree) = given {
        return Ok(Some(ScriptTree {
            path: tree.to_owned(),
            by: "given with --tree".into(),
        }));
    }
    // A `// tree:` line that names no file (the tree renamed or moved
    // since) falls back to the others, said on the script's line.
    let unnamed = match named_tree(file, bytes) {
        Some(Ok(path)) => {
            return Ok(Some(ScriptTree {
                path,
                by: "named by its `// tree:` line".into(),
            }));
        }
        Some(Err(why)) => Some(why),
        None => None,
    };
    let sibling = format!("{}.bt.ron", file.trim_end_matches(".script.ron"));
    let fallback = if Path::new(&sibling).is_file() {
        Some(ScriptTree {
            path: sibling,
            by: "the tree beside it".into(),
        })
    } else {
        last_tree.map(|tree| ScriptTree {
            path: tree.to_owned(),
            by: "the last tree before it on the line".into(),
        })
    };
    match (fallback, unnamed) {
        (Some(mut tree), Some(_)) => {
            tree.by = format!("{} (its `// tree:` line names no file)", tree.by);
            Ok(Some(tree))
        }
        (None, Some(why)) => Err(why),
        (tree, None) => Ok(tree),
    }
}

/// The tree a script names in a `// tree: PATH` line. PATH is as `wyrd
/// sim` was given it, from the folder it ran in: looked for from the
/// script's folder, then the current one, then by its file name beside
/// the script (a script saved beside its tree is found from any folder).
fn named_tree(file: &str, bytes: &[u8]) -> Option<Result<String, String>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let named = text
        .trim_start_matches('\u{feff}')
        .lines()
        .take_while(|l| l.trim_start().starts_with("//") || l.trim().is_empty())
        .find_map(|l| l.trim_start().strip_prefix("// tree:"))?
        .trim();
    let dir = Path::new(file).parent().unwrap_or(Path::new(""));
    let candidates = [
        dir.join(named),
        Path::new(named).to_path_buf(),
        dir.join(Path::new(named).file_name().unwrap_or_default()),
    ];
    Some(
        match candidates.iter().find(|p| p.is_file() && !named.is_empty()) {
            Some(p) => Ok(p.to_string_lossy().into_owned()),
            None => Err(format!(
                "{file}: its `// tree: {named}` names no file (looked from the script's folder, from the current one, and for its file name beside the script); give --tree TREE"
            )),
        },
    )
}

/// Checks a `wyrd sim` script: its syntax, and every name it uses against
/// the tree it drives.
fn check_script(file: &str, bytes: &[u8], tree: Option<&ScriptTree>) -> Result<String, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| format!("{file}: not UTF-8"))?;
    let script = wyrd_bt::sim::Script::parse(text).map_err(|e| script_error(file, text, &e))?;
    let Some(ScriptTree { path: tree, by }) = tree else {
        return Err(format!(
            "{file}: which tree does this script drive? give --tree TREE, name it in a `// tree: PATH` line, put NAME.bt.ron beside NAME.script.ron, or list the tree before it"
        ));
    };
    let program = load_tree_with(tree, &Vocabulary::permissive()).map_err(|e| e.message)?;
    let problems = script.check(&program);
    if problems.is_empty() {
        Ok(format!(
            "{file}: ok ({} events, against {tree}, {by})",
            script.events.len()
        ))
    } else {
        let mut lines: Vec<String> = problems
            .iter()
            .map(|p| script_error(file, text, p))
            .collect();
        lines.push(format!("{file}: checked against {tree}, {by}"));
        Err(lines.join("\n"))
    }
}
