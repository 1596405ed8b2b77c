//! Parsing `*.bt.ron` files and compiling them into a [`Program`].
//!
//! - `files`: parsing a file, the files a tree uses, [`compile_str`];
//! - `errors`: [`BtError`] / [`BtProblem`] and where an error points;
//! - `conditions`: checks to compiled conditions, folding bool guards into
//!   bit tests;
//! - `emit`: laying a tree out flat, node by node (each kind lowered by
//!   `kind.rs`).

mod conditions;
mod emit;
mod errors;
mod files;
mod lower;
pub(crate) mod outline;
mod params;
mod scores;
mod spans;

use std::collections::HashMap;

pub(crate) use errors::line_col;
pub use errors::{BtError, BtProblem, closest_name, with_caret};
pub use files::{
    FileUse, ParsedFile, above_root, compile_str, file_refs, file_uses, load_tree_files,
    parse_tree, parse_tree_all, resolve,
};

use conditions::{all_of, fold_bits, instant_cond};
pub(crate) use scores::score_number;

use crate::program::{Kind, NONE, Program};
use crate::registry::Vocabulary;
use crate::value::ValueDef;

/// An in-place impulse's behavior, emitted as the impulse's child.
pub(crate) struct InPlace {
    /// The file whose behaviors the name is looked up in.
    pub(crate) file: String,
    /// The behavior run in place.
    pub(crate) behavior: String,
    /// Its parameters' bindings.
    pub(crate) with: crate::value::Bindings,
}

/// A redirecting impulse, resolved once every behavior is placed.
pub(crate) struct Redirect {
    /// The impulse's index.
    pub(crate) impulse: u32,
    /// The file whose behaviors the name is looked up in.
    pub(crate) file: String,
    /// The behavior it redirects to.
    pub(crate) behavior: String,
    /// The file the reference is written in (where an error points).
    pub(crate) from: String,
}

pub(crate) struct Compiler<'a> {
    pub(crate) vocab: &'a Vocabulary,
    files: &'a HashMap<String, ParsedFile>,
    pub(crate) p: Program,
    stack: Vec<(String, String)>,
    native: HashMap<(String, String), Vec<u32>>,
    pub(crate) redirects: Vec<Redirect>,
    detached: bool,
    predicate_index: HashMap<String, u32>,
    /// Bound parameters of the behaviors being emitted (innermost last).
    pub(crate) scopes: Vec<params::Scope>,
    /// The next node emitted is a named behavior's root (it may declare
    /// `parameters`).
    pub(crate) entering_behavior: bool,
    /// Where each node of the files is (by [`spans::node_id`]).
    spans: HashMap<usize, spans::NodeSpan>,
    /// The node being compiled ([`spans::node_id`]; 0: none): errors point
    /// into it.
    cur: std::cell::Cell<usize>,
    /// Every error found so far, when compiling for [`compile_all`]
    /// (`None`: stop at the first).
    errors: Option<Vec<BtError>>,
}

impl Compiler<'_> {
    /// Notes an error to report with the others (once: a behavior used
    /// twice fails twice at the same place).
    fn note(&mut self, e: BtError) {
        if let Some(errors) = &mut self.errors
            && !errors.iter().any(|seen| same_error(seen, &e))
        {
            errors.push(e);
        }
    }

    /// Whether an error was noted.
    fn failed(&self) -> bool {
        self.errors.as_ref().is_some_and(|e| !e.is_empty())
    }
}

/// Compiles the tree in `files[main]` (and what it uses) into a program;
/// the first error found stops it (see [`compile_all`] for all of them).
pub fn compile(
    main: &str,
    files: &HashMap<String, ParsedFile>,
    vocab: &Vocabulary,
) -> Result<Program, BtError> {
    compile_with(main, files, vocab, None).map_err(|mut e| e.swap_remove(0))
}

/// Compiles like [`compile`], but an error in a node does not stop the
/// rest: each failing node's error is reported, once, the main file's
/// first, then by file, line and column (what `wyrd check` prints).
/// A node that fails is left out with its children (their own errors
/// show once it is fixed), and its siblings are compiled without it; an
/// error that only such a gap could cause (an impulse redirecting to a
/// behavior that failed) is not reported. Errors in the declarations
/// (blackboard keys, tags, behavior names) and syntax errors still stop
/// at the first: the nodes after them would fail for their sake.
///
/// ```
/// use wyrd_bt::{Vocabulary, compile_all, load_tree_files};
/// let text = r#"(root: Sequence(children: [
///     Wait(seconds: -1.0),
///     Action(action: "Go"),
///     Use(behavior: "nowhere"),
/// ]))"#;
/// let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
/// let errors = compile_all("t.bt.ron", &files, &Vocabulary::permissive()).unwrap_err();
/// let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
/// assert_eq!(lines, [2, 4]);
/// ```
pub fn compile_all(
    main: &str,
    files: &HashMap<String, ParsedFile>,
    vocab: &Vocabulary,
) -> Result<Program, Vec<BtError>> {
    compile_with(main, files, vocab, Some(Vec::new())).map_err(|mut errors| {
        errors.sort_by(|a, b| {
            (a.file != main, &a.file, a.line, a.column).cmp(&(
                b.file != main,
                &b.file,
                b.line,
                b.column,
            ))
        });
        errors
    })
}

/// [`compile`] and [`compile_all`]: `errors` is `Some` to collect them.
fn compile_with(
    main: &str,
    files: &HashMap<String, ParsedFile>,
    vocab: &Vocabulary,
    errors: Option<Vec<BtError>>,
) -> Result<Program, Vec<BtError>> {
    let Some(main_file) = files.get(main) else {
        return Err(vec![BtError {
            file: main.to_owned(),
            line: 1,
            column: 1,
            problem: BtProblem::Io {
                file: main.to_owned(),
                error: "not loaded".into(),
            },
        }]);
    };
    let mut c = Compiler {
        vocab,
        files,
        p: Program {
            source: main.to_owned(),
            ..Default::default()
        },
        stack: Vec::new(),
        native: HashMap::new(),
        redirects: Vec::new(),
        detached: false,
        predicate_index: HashMap::new(),
        scopes: Vec::new(),
        entering_behavior: false,
        spans: spans::node_spans(files),
        cur: std::cell::Cell::new(0),
        errors,
    };
    // Declarations: the main file's, then any other file's (union).
    let mut order: Vec<&String> = files.keys().filter(|k| *k != main).collect();
    order.sort();
    for f in std::iter::once(&main.to_owned())
        .chain(order.into_iter().cloned().collect::<Vec<_>>().iter())
    {
        let pf = &files[f];
        for t in &pf.def.tags {
            if !c.p.tag_names.contains(t) {
                c.p.tag_names.push(t.clone());
            }
        }
        for (k, v) in &pf.def.blackboard {
            let (ty, default) = match v {
                ValueDef::Value(v) => (v.value_type(), Some(*v)),
                ValueDef::Type(t) => (*t, None),
                ValueDef::Ref(r) => {
                    return Err(vec![c.err_at(
                        f,
                        &format!("{{{r}}}"),
                        BtProblem::RefAsDeclaration(k.clone()),
                    )]);
                }
            };
            match c.p.bb_keys.iter().position(|x| x == k) {
                Some(i) if c.p.bb_types[i] != ty => {
                    return Err(vec![c.err_at(
                        f,
                        k,
                        BtProblem::KeyType {
                            key: k.clone(),
                            expected: c.p.bb_types[i].name(),
                            found: ty.name(),
                        },
                    )]);
                }
                Some(_) => {}
                None => {
                    c.p.bb_keys.push(k.clone());
                    c.p.bb_types.push(ty);
                    c.p.bb_defaults.push(default);
                }
            }
        }
        // Behavior names must be unique and named.
        let mut seen = Vec::new();
        for b in &pf.def.behaviors {
            match b.common().name {
                None => {
                    return Err(vec![c.err_kind(
                        f,
                        b.kind_name(),
                        BtProblem::UnnamedBehavior,
                    )]);
                }
                Some(n) if seen.contains(&n) => {
                    let problem = BtProblem::DuplicateBehavior(n.to_owned());
                    return Err(vec![c.err_nth(f, n, 1, problem)]);
                }
                Some(n) => seen.push(n),
            }
        }
    }
    if c.p.tag_names.len() > 64 {
        let problem = BtProblem::TooManyTags(c.p.tag_names.len());
        return Err(vec![c.err_at(main, "tags", problem)]);
    }
    let root_seg = main_file
        .def
        .root
        .common()
        .name
        .unwrap_or("root")
        .to_owned();
    let root = c.emit(&main_file.def.root, main, NONE, root_seg, 0, (0, 0, 0));
    c.kept(root).map_err(|e| vec![e])?;
    c.p.detached_start = c.p.nodes.len() as u32;
    c.detached = true;
    let no_bindings = Default::default();
    for b in &main_file.def.behaviors {
        let name = b.common().name.unwrap_or_default().to_owned();
        // A behavior whose parameters cannot be bound without a `Use`
        // (no default, no key of that name) cannot be a stimulus.
        let at = params::Placement {
            file: main,
            place: None,
            target_file: main,
            behavior: &name,
        };
        let Ok(scope) = c.bind(&at, b.common().parameters, &no_bindings, true) else {
            continue;
        };
        c.stack.push((main.to_owned(), name.clone()));
        c.scopes.push(scope);
        c.entering_behavior = true;
        let idx = c.emit(b, main, NONE, format!("~{name}"), 0, (0, 0, 0));
        c.scopes.pop();
        c.stack.pop();
        if let Some(idx) = c.kept(idx).map_err(|e| vec![e])? {
            c.p.detached.insert(name, idx);
        }
    }
    // A node that failed is not in the program: checks of the whole tree
    // would report its absence.
    if c.failed() {
        return Err(c.errors.take().unwrap_or_default());
    }
    for Redirect {
        impulse,
        file,
        behavior,
        from,
    } in std::mem::take(&mut c.redirects)
    {
        match c.native.get(&(file.clone(), behavior.clone())) {
            Some(places) if places.len() > 1 => {
                let paths: Vec<&str> = places
                    .iter()
                    .map(|&n| c.p.paths[n as usize].as_str())
                    .collect();
                return Err(vec![c.err_ref(
                    &from,
                    &behavior,
                    BtProblem::PlacedTwice {
                        behavior: behavior.clone(),
                        count: places.len(),
                        paths: paths.join(", "),
                    },
                )]);
            }
            Some(places) => {
                let target = places[0];
                let node = c.p.impulses[impulse as usize].node;
                if target <= node && node < c.p.nodes[target as usize].end {
                    return Err(vec![c.err_ref(
                        &from,
                        &behavior,
                        BtProblem::RedirectIntoItself {
                            behavior: behavior.clone(),
                            path: c.p.paths[target as usize].clone(),
                        },
                    )]);
                }
                c.p.impulses[impulse as usize].redirect_to = target;
            }
            None => {
                return Err(vec![c.err_ref(
                    &from,
                    &behavior,
                    BtProblem::NoNativePosition(behavior.clone()),
                )]);
            }
        }
    }
    c.p.skippable = !c.p.nodes.iter().any(|n| n.kind.timed());
    c.p.commits = (0..c.p.nodes.len() as u32)
        .filter_map(|i| Some((i, c.p.nodes[i as usize].kind.commit_ms()?)))
        .collect();
    c.p.random = c.p.nodes.iter().any(|n| n.kind.uses_random());
    // (A commitment's end decides too: resuming assumes nothing but a
    // report does; Utility rows are not resumable anyway.)
    c.p.resumable = c.p.skippable
        && c.p.commits.is_empty()
        && c.p.impulses.is_empty()
        && c.p.nodes.iter().all(|n| n.kind.resumable(n.instant));
    c.p.max_concurrent_actions = max_concurrent(&c.p, 0);
    for i in 0..c.p.nodes.len() as u32 {
        let n = &c.p.nodes[i as usize];
        let guard = match n.kind {
            Kind::Condition { cond } | Kind::Guard { cond, .. } => cond,
            Kind::Impulse { impulse } => c.p.impulses[impulse as usize].when,
            k if k.info().leading_guards && n.guard_len > 0 => {
                let kids: Vec<u32> = c.p.children_of(i)[..n.guard_len as usize].to_vec();
                let conds: Vec<u32> = kids.iter().map(|&k| instant_cond(&mut c.p, k)).collect();
                all_of(&mut c.p, conds)
            }
            _ if n.instant => instant_cond(&mut c.p, i),
            _ => NONE,
        };
        c.p.nodes[i as usize].guard = guard;
    }
    fold_bits(&mut c.p);
    // A consideration reads its key as a condition does (unset: 0, noted).
    let score_keys =
        c.p.considerations
            .iter()
            .any(|c| matches!(c.source, crate::program::ScoreSource::Key(_)));
    c.p.reads_unset = score_keys
        || c.p.conds.iter().any(|c| {
            matches!(
                c,
                crate::program::Cond::BbIs { .. }
                    | crate::program::Cond::Bb { .. }
                    | crate::program::Cond::BbKey { .. }
            )
        });
    // An action leaf notes the keys its inputs read unset too (its fresh
    // walks still come from the table: one that would start such an
    // action walks).
    c.p.notes_unset = c.p.reads_unset || c.p.actions.iter().any(|a| !a.needs.is_empty());
    // The texts only, in file order: the same tree loaded by the game
    // (paths relative to its assets) and by `wyrd` (paths from the shell)
    // has the same hash.
    let mut names: Vec<&String> = files.keys().collect();
    names.sort();
    let mut text = String::new();
    for n in names {
        text.push_str(&files[n].text);
        text.push('\u{0}');
    }
    c.p.content_hash = crate::registry::fnv64(&text);
    c.p.bb_names = std::sync::Arc::new(crate::blackboard::KeyNames::bound(
        &c.p.bb_keys,
        &c.p.bb_types,
        &c.p.tag_names,
    ));
    c.p.fresh = crate::program::FreshTable::build(&c.p).map(Box::new);
    Ok(c.p)
}

/// Whether two errors are one: the same, or one cycle of behaviors met
/// from two of its members (a stimulus's behavior is compiled on its own
/// too, and walks into the cycle from there).
fn same_error(a: &BtError, b: &BtError) -> bool {
    let members = |chain: &str| {
        let mut names: Vec<String> = chain.split(" -> ").map(str::to_owned).collect();
        names.sort();
        names.dedup();
        names
    };
    match (&a.problem, &b.problem) {
        (BtProblem::Cycle(x), BtProblem::Cycle(y)) => a.file == b.file && members(x) == members(y),
        _ => a == b,
    }
}

/// Most actions that can run at once under node `i`.
fn max_concurrent(p: &Program, i: u32) -> u32 {
    let n = &p.nodes[i as usize];
    match n.kind {
        Kind::Action { .. } => 1,
        k if k.concurrent() => p.children_of(i).iter().map(|&c| max_concurrent(p, c)).sum(),
        _ => p
            .children_of(i)
            .iter()
            .map(|&c| max_concurrent(p, c))
            .max()
            .unwrap_or(0),
    }
}
