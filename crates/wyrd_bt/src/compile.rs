//! Parsing `*.bt.ron` files and compiling them into a [`Program`].

use std::collections::HashMap;

use ron::extensions::Extensions;

use crate::def::{Check, NodeDef, TreeDef};
use crate::kind::{AuxInit, CursorInit};
use crate::program::{Cond, Kind, NONE, Node, PredicateSlot, Program};
use crate::registry::Vocabulary;
use crate::value::Value;

/// A tree file that could not be loaded, with where and why.
///
/// Displays as `file:line:column: problem`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}:{column}: {problem}")]
pub struct BtError {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub problem: BtProblem,
}

/// What is wrong with a tree file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BtProblem {
    /// Cannot read a file.
    #[error("cannot read {file}: {error}")]
    Io {
        /// The file.
        file: String,
        /// Why.
        error: String,
    },
    /// RON syntax or shape.
    #[error("{0}")]
    Syntax(String),
    /// A node kind that does not exist.
    #[error("unknown node kind {found:?} (known: {known})")]
    UnknownNodeKind {
        /// What was written.
        found: String,
        /// The kinds that exist.
        known: String,
    },
    /// Children given to a leaf.
    #[error("a {kind} is a leaf and cannot have children")]
    ChildrenOnLeaf {
        /// The leaf's kind.
        kind: String,
    },
    /// `child` given to a composite or `children` to a decorator.
    #[error("`{found}` is not a field of this node: it takes `{expected}`")]
    WrongChildField {
        /// What was written.
        found: String,
        /// What the node takes.
        expected: &'static str,
    },
    /// An action no system registered.
    #[error("unknown action {0:?}: register it with app.register_bt_action({0:?})")]
    UnknownAction(String),
    /// A predicate no system registered.
    #[error("unknown predicate {0:?}: register it with app.register_bt_predicate({0:?}, ..)")]
    UnknownPredicate(String),
    /// A custom node kind no system registered.
    #[error("unknown custom node kind {0:?}: register it with app.register_bt_node({0:?}, ..)")]
    UnknownCustom(String),
    /// A blackboard key the file does not declare.
    #[error("unknown blackboard key {0:?} (declare it under `blackboard`)")]
    UnknownKey(String),
    /// A blackboard key compared with a value of another type.
    #[error(
        "blackboard key {key:?} is {}, compared with {}",
        crate::value::with_article(expected),
        crate::value::with_article(found)
    )]
    KeyType {
        /// The key.
        key: String,
        /// Its declared type.
        expected: &'static str,
        /// The compared value's type.
        found: &'static str,
    },
    /// A tag the file does not declare.
    #[error("unknown tag {0:?} (declare it under `tags`)")]
    UnknownTag(String),
    /// More than 64 tags.
    #[error("{0} tags declared; at most 64 fit the tag mask")]
    TooManyTags(usize),
    /// A reference to a behavior that does not exist.
    #[error("unknown behavior {0:?}")]
    UnknownBehavior(String),
    /// A behavior that (indirectly) uses itself.
    #[error("cyclic reference: {0}")]
    Cycle(String),
    /// Two nodes with the same path.
    #[error("duplicate path {0:?}: give one of the nodes another name")]
    DuplicatePath(String),
    /// Two behaviors with the same name.
    #[error("behavior {0:?} is declared twice")]
    DuplicateBehavior(String),
    /// A behavior without a name.
    #[error("every entry of `behaviors` needs a name")]
    UnnamedBehavior,
    /// Wrong number of children.
    #[error("a {kind} needs {}, it has {found}", arity_text(*min, *max))]
    Arity {
        /// Kind.
        kind: String,
        /// Minimum.
        min: usize,
        /// Maximum.
        max: usize,
        /// Given.
        found: usize,
    },
    /// Weights that do not match the children.
    #[error("{weights} weights for {children} children (give one non-negative weight per child)")]
    BadWeights {
        /// Weights given.
        weights: usize,
        /// Children.
        children: usize,
    },
    /// A negative or non-finite duration.
    #[error("duration {0} s must be a finite number >= 0")]
    BadDuration(f32),
    /// A redirect to a behavior that is not placed in the tree.
    #[error(
        "impulse redirects to {0:?}, which is not placed in the tree (add Use(behavior: {0:?}) where it belongs, or use mode: InPlace)"
    )]
    NoNativePosition(String),
    /// A parallel policy that no number of finished children can meet.
    #[error(
        "Parallel policy Count({policy}) needs {policy} of its {children} children: use Count(1..={children}), One or All"
    )]
    BadPolicy {
        /// Policy count.
        policy: u16,
        /// Children.
        children: usize,
    },
    /// A count of 0 where at least one run is meant.
    #[error("{kind}({field}: 0) {hint}: give {field} >= 1")]
    ZeroCount {
        /// The node kind.
        kind: &'static str,
        /// The field.
        field: &'static str,
        /// Why 0 means nothing useful.
        hint: &'static str,
    },
    /// A redirect to a behavior placed more than once.
    #[error(
        "impulse redirects to {behavior:?}, which is placed {count} times ({paths}): a redirect needs exactly one native position (place it once, or use mode: InPlace)"
    )]
    PlacedTwice {
        /// The behavior.
        behavior: String,
        /// How many placements.
        count: usize,
        /// Their paths.
        paths: String,
    },
    /// A redirect to a behavior that contains the impulse itself.
    #[error(
        "impulse redirects to {behavior:?} at {path:?}, which contains the impulse: it would run itself (use mode: InPlace, or place the impulse outside {path:?})"
    )]
    RedirectIntoItself {
        /// The behavior.
        behavior: String,
        /// The behavior's native path.
        path: String,
    },
    /// Switch cases that do not match the children.
    #[error(
        "Switch has {cases} cases and {children} children: give one child per case, then the default"
    )]
    SwitchArity {
        /// Cases.
        cases: usize,
        /// Children.
        children: usize,
    },
}

fn arity_text(min: usize, max: usize) -> String {
    let child = |n: usize| if n == 1 { "child" } else { "children" };
    if max == usize::MAX {
        format!("at least {min} {}", child(min))
    } else if min == max {
        format!("exactly {min} {}", child(min))
    } else {
        format!("{min} to {max} children")
    }
}

/// Node kinds as written in files, for error messages: every compiled kind
/// plus the file-only forms.
fn known_kinds() -> String {
    let mut names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
    names.extend([
        "Fallback",
        "CheckWorldStateFlags",
        "CheckWorldStateCounters",
        "Use",
    ]);
    names.join(", ")
}

fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rfind('\n')
        .map_or(before.len(), |nl| before.len() - nl - 1)
        + 1;
    (line, column)
}

/// Parses a tree file (RON). Never panics.
pub fn parse_tree(file: &str, bytes: &[u8]) -> Result<(TreeDef, String), BtError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = line_col(
            &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
            e.valid_up_to(),
        );
        BtError {
            file: file.to_owned(),
            line,
            column,
            problem: BtProblem::Syntax("the file is not valid UTF-8".into()),
        }
    })?;
    let options = ron::Options::default()
        .with_default_extension(Extensions::UNWRAP_VARIANT_NEWTYPES | Extensions::IMPLICIT_SOME);
    let def: TreeDef = options
        .from_str(text)
        .map_err(|e: ron::error::SpannedError| {
            let problem = match &e.code {
                ron::Error::NoSuchEnumVariant { found, outer, .. }
                    if outer.as_deref() == Some("NodeDef") =>
                {
                    BtProblem::UnknownNodeKind {
                        found: found.clone(),
                        known: known_kinds(),
                    }
                }
                ron::Error::NoSuchStructField { found, outer, .. }
                    if found == "children" || found == "child" =>
                {
                    match child_field(outer.as_deref()) {
                        Some(expected) => BtProblem::WrongChildField {
                            found: found.clone(),
                            expected,
                        },
                        None => BtProblem::ChildrenOnLeaf {
                            kind: leaf_kind_name(outer.as_deref()),
                        },
                    }
                }
                other => BtProblem::Syntax(other.to_string()),
            };
            BtError {
                file: file.to_owned(),
                line: e.span.start.line,
                column: e.span.start.col,
                problem,
            }
        })?;
    Ok((def, text.to_owned()))
}

/// The field a node with children takes: `child` for decorators,
/// `children` for composites (`None`: a leaf).
fn child_field(outer: Option<&str>) -> Option<&'static str> {
    let outer = outer?;
    let outer = if outer == "Fallback" {
        "Selector"
    } else {
        outer
    };
    let kind = Kind::ALL.iter().find(|k| k.name() == outer)?;
    match kind.info().family {
        crate::kind::Family::Leaf => None,
        crate::kind::Family::Decorator => Some("child: Node(..)"),
        _ if matches!(kind, Kind::Impulse { .. }) => None,
        _ => Some("children: [..]"),
    }
}

fn leaf_kind_name(outer: Option<&str>) -> String {
    match outer {
        Some(
            k @ ("Action" | "Condition" | "Rule" | "Threshold" | "Wait" | "Succeed" | "Fail"
            | "Forever" | "Use" | "Impulse"),
        ) => k,
        Some("ActionDef") => "Action",
        Some("ConditionDef") => "Condition or Rule",
        Some("ThresholdDef") => "Threshold",
        Some("WaitDef") => "Wait",
        Some("LeafDef") => "Succeed, Fail or Forever",
        Some("UseDef") => "Use (a reference)",
        Some("ImpulseDef") => "Impulse (a reference)",
        _ => "leaf",
    }
    .to_owned()
}

/// Files a tree refers to with `Use(file: ..)`, relative to the tree's
/// folder, resolved to paths relative to the same root as `file`.
pub fn file_refs(file: &str, def: &TreeDef) -> Vec<String> {
    fn walk(file: &str, node: &NodeDef, out: &mut Vec<String>) {
        if let NodeDef::Use(u) = node
            && let Some(f) = &u.file
        {
            let p = resolve(file, f);
            if !out.contains(&p) {
                out.push(p);
            }
        }
        for c in node.children() {
            walk(file, c, out);
        }
    }
    let mut out = Vec::new();
    walk(file, &def.root, &mut out);
    for b in &def.behaviors {
        walk(file, b, &mut out);
    }
    out
}

/// `other` relative to the folder of `file` (`/`-separated, `..` allowed).
pub fn resolve(file: &str, other: &str) -> String {
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    for seg in other.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// A parsed file: its definition and its text (for error positions).
#[derive(Debug, Clone)]
pub struct ParsedFile {
    /// The definition.
    pub def: TreeDef,
    /// The source text.
    pub text: String,
}

/// Reads and parses a tree and every file it uses, depth first, with `read`
/// (path → bytes). Cycles between files are fine here; they are reported
/// by [`compile`] if behaviors really use each other.
pub fn load_tree_files(
    file: &str,
    read: &mut dyn FnMut(&str) -> Result<Vec<u8>, String>,
) -> Result<HashMap<String, ParsedFile>, BtError> {
    let mut files = HashMap::new();
    let mut todo = vec![(file.to_owned(), None::<(String, String)>)];
    while let Some((path, from)) = todo.pop() {
        if files.contains_key(&path) {
            continue;
        }
        let bytes = read(&path).map_err(|error| {
            let (f, line, column) = match &from {
                Some((from, needle)) => {
                    let text = files
                        .get(from)
                        .map(|p: &ParsedFile| p.text.as_str())
                        .unwrap_or("");
                    let at = text.find(&format!("\"{needle}\"")).map_or(0, |i| i + 1);
                    let (l, c) = line_col(text, at);
                    (from.clone(), l, c)
                }
                None => (path.clone(), 1, 1),
            };
            BtError {
                file: f,
                line,
                column,
                problem: BtProblem::Io {
                    file: path.clone(),
                    error,
                },
            }
        })?;
        let (def, text) = parse_tree(&path, &bytes)?;
        for r in file_refs(&path, &def) {
            let needle = r.rsplit('/').next().unwrap_or(&r).to_owned();
            todo.push((r, Some((path.clone(), needle))));
        }
        files.insert(path, ParsedFile { def, text });
    }
    Ok(files)
}

pub(crate) struct Compiler<'a> {
    pub(crate) vocab: &'a Vocabulary,
    files: &'a HashMap<String, ParsedFile>,
    pub(crate) p: Program,
    stack: Vec<(String, String)>,
    native: HashMap<(String, String), Vec<u32>>,
    pub(crate) redirects: Vec<(u32, String, String, String)>,
    detached: bool,
    predicate_index: HashMap<String, u32>,
}

/// Compiles the tree in `files[main]` (and what it uses) into a program.
pub fn compile(
    main: &str,
    files: &HashMap<String, ParsedFile>,
    vocab: &Vocabulary,
) -> Result<Program, BtError> {
    let Some(main_file) = files.get(main) else {
        return Err(BtError {
            file: main.to_owned(),
            line: 1,
            column: 1,
            problem: BtProblem::Io {
                file: main.to_owned(),
                error: "not loaded".into(),
            },
        });
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
            match c.p.bb_keys.iter().position(|x| x == k) {
                Some(i) if !c.p.bb_defaults[i].same_kind(v) => {
                    return Err(c.err_at(
                        f,
                        k,
                        BtProblem::KeyType {
                            key: k.clone(),
                            expected: c.p.bb_defaults[i].type_name(),
                            found: v.type_name(),
                        },
                    ));
                }
                Some(_) => {}
                None => {
                    c.p.bb_keys.push(k.clone());
                    c.p.bb_defaults.push(*v);
                }
            }
        }
        // Behavior names must be unique and named.
        let mut seen = Vec::new();
        for b in &pf.def.behaviors {
            match b.common().name {
                None => return Err(c.err_kind(f, b.kind_name(), BtProblem::UnnamedBehavior)),
                Some(n) if seen.contains(&n) => {
                    return Err(c.err_nth(f, n, 1, BtProblem::DuplicateBehavior(n.to_owned())));
                }
                Some(n) => seen.push(n),
            }
        }
    }
    if c.p.tag_names.len() > 64 {
        return Err(c.err_at(main, "tags", BtProblem::TooManyTags(c.p.tag_names.len())));
    }
    let root_seg = main_file
        .def
        .root
        .common()
        .name
        .unwrap_or("root")
        .to_owned();
    c.emit(&main_file.def.root, main, NONE, root_seg, 0, (0, 0, 0))?;
    c.p.detached_start = c.p.nodes.len() as u32;
    c.detached = true;
    for b in &main_file.def.behaviors {
        let name = b.common().name.unwrap_or_default().to_owned();
        c.stack.push((main.to_owned(), name.clone()));
        let idx = c.emit(b, main, NONE, format!("~{name}"), 0, (0, 0, 0))?;
        c.stack.pop();
        c.p.detached.insert(name, idx);
    }
    for (impulse, file, behavior, from) in std::mem::take(&mut c.redirects) {
        match c.native.get(&(file.clone(), behavior.clone())) {
            Some(places) if places.len() > 1 => {
                let paths: Vec<&str> = places
                    .iter()
                    .map(|&n| c.p.paths[n as usize].as_str())
                    .collect();
                return Err(c.err_ref(
                    &from,
                    &behavior,
                    BtProblem::PlacedTwice {
                        behavior: behavior.clone(),
                        count: places.len(),
                        paths: paths.join(", "),
                    },
                ));
            }
            Some(places) => {
                let target = places[0];
                let node = c.p.impulses[impulse as usize].node;
                if target <= node && node < c.p.nodes[target as usize].end {
                    return Err(c.err_ref(
                        &from,
                        &behavior,
                        BtProblem::RedirectIntoItself {
                            behavior: behavior.clone(),
                            path: c.p.paths[target as usize].clone(),
                        },
                    ));
                }
                c.p.impulses[impulse as usize].redirect_to = target;
            }
            None => {
                return Err(c.err_ref(
                    &from,
                    &behavior,
                    BtProblem::NoNativePosition(behavior.clone()),
                ));
            }
        }
    }
    c.p.skippable = !c.p.nodes.iter().any(|n| n.kind.info().timed);
    c.p.max_concurrent_actions = max_concurrent(&c.p, 0);
    for i in 0..c.p.nodes.len() as u32 {
        let n = &c.p.nodes[i as usize];
        let guard = match n.kind {
            Kind::Condition { cond } | Kind::Guard { cond } => cond,
            Kind::Impulse { impulse } => c.p.impulses[impulse as usize].when,
            Kind::Sequence
            | Kind::GuardSequence
            | Kind::SequenceWithMemory
            | Kind::ReactiveSequence
                if n.guard_len > 0 =>
            {
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
    c.p.bb_shared = c.p.bb_keys.as_slice().into();
    c.p.tags_shared = c.p.tag_names.as_slice().into();
    Ok(c.p)
}

/// Folds conditions on bool keys (below 64) into bit tests over the
/// blackboard's bool mask: `BbIs`, and `All` / `Any` / `Not` made only of
/// them. A condition's parts always come before it, so one pass in order
/// sees folded parts.
fn fold_bits(p: &mut Program) {
    for i in 0..p.conds.len() {
        let folded = match p.conds[i] {
            Cond::BbIs { key, value } if key < 64 => {
                let bit = 1u64 << key;
                Some(Cond::Bits {
                    mask: bit,
                    want: if value { bit } else { 0 },
                })
            }
            Cond::Not(x) => match p.conds[x as usize] {
                // Not all as wanted: one differs.
                Cond::Bits { mask, want } => Some(Cond::AnyBits {
                    mask,
                    want: want ^ mask,
                }),
                Cond::AnyBits { mask, want } => Some(Cond::Bits {
                    mask,
                    want: want ^ mask,
                }),
                _ => None,
            },
            // All as wanted: the union; a bit wanted both ways never holds.
            Cond::All { start, len } => merge_bits(p, start, len, |c| match c {
                Cond::Bits { mask, want } => Some((mask, want)),
                _ => None,
            })
            .map(|(mask, want, clash)| {
                if clash {
                    Cond::Const(false)
                } else {
                    Cond::Bits { mask, want }
                }
            }),
            // One as wanted: single-bit tests and any-of tests merge; a bit
            // wanted both ways always holds.
            Cond::Any { start, len } => merge_bits(p, start, len, |c| match c {
                Cond::AnyBits { mask, want } => Some((mask, want)),
                Cond::Bits { mask, want } if mask.count_ones() == 1 => Some((mask, want)),
                _ => None,
            })
            .map(|(mask, want, clash)| {
                if clash {
                    Cond::Const(true)
                } else {
                    Cond::AnyBits { mask, want }
                }
            }),
            _ => None,
        };
        if let Some(c) = folded {
            p.conds[i] = c;
        }
    }
}

/// The bit tests of `cond_lists[start..start + len]` as one (mask, wanted
/// bits), when `part` accepts every condition of the list, and whether two
/// of them want a bit both ways.
fn merge_bits(
    p: &Program,
    start: u32,
    len: u32,
    part: impl Fn(Cond) -> Option<(u64, u64)>,
) -> Option<(u64, u64, bool)> {
    let (mut mask, mut want, mut clash) = (0u64, 0u64, false);
    for &x in &p.cond_lists[start as usize..(start + len) as usize] {
        let (m, w) = part(p.conds[x as usize])?;
        clash |= mask & m & (want ^ w) != 0;
        mask |= m;
        want |= w;
    }
    Some((mask, want, clash))
}

fn push(p: &mut Program, c: Cond) -> u32 {
    p.conds.push(c);
    p.conds.len() as u32 - 1
}

fn all_of(p: &mut Program, conds: Vec<u32>) -> u32 {
    if conds.len() == 1 {
        return conds[0];
    }
    let start = p.cond_lists.len() as u32;
    let len = conds.len() as u32;
    p.cond_lists.extend(conds);
    push(p, Cond::All { start, len })
}

/// An instant subtree (conditions only) as one condition, tags included.
fn instant_cond(p: &mut Program, i: u32) -> u32 {
    let n = p.nodes[i as usize].clone();
    let kids: Vec<u32> = p.children_of(i).to_vec();
    let body = match n.kind {
        Kind::Condition { cond } => cond,
        Kind::Succeed => push(p, Cond::Const(true)),
        Kind::Fail => push(p, Cond::Const(false)),
        Kind::Invert => {
            let inner = instant_cond(p, kids[0]);
            push(p, Cond::Not(inner))
        }
        Kind::Sequence
        | Kind::GuardSequence
        | Kind::SequenceWithMemory
        | Kind::ReactiveSequence => {
            let conds = kids.iter().map(|&k| instant_cond(p, k)).collect();
            all_of(p, conds)
        }
        _ => {
            let conds: Vec<u32> = kids.iter().map(|&k| instant_cond(p, k)).collect();
            let start = p.cond_lists.len() as u32;
            let len = conds.len() as u32;
            p.cond_lists.extend(conds);
            push(p, Cond::Any { start, len })
        }
    };
    if !n.is_tagged() {
        body
    } else {
        let tags = push(
            p,
            Cond::TagReq {
                all: n.tags_all,
                any: n.tags_any,
                not: n.tags_not,
            },
        );
        all_of(p, vec![tags, body])
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

type TagMasks = (u64, u64, u64);

impl<'a> Compiler<'a> {
    fn text(&self, file: &str) -> &str {
        self.files.get(file).map_or("", |f| f.text.as_str())
    }

    pub(crate) fn err_nth(
        &self,
        file: &str,
        needle: &str,
        nth: usize,
        problem: BtProblem,
    ) -> BtError {
        let text = self.text(file);
        let quoted = format!("\"{needle}\"");
        let at = text
            .match_indices(&quoted)
            .nth(nth)
            .or_else(|| text.match_indices(&quoted).next())
            .map(|(i, _)| i + 1)
            .or_else(|| text.find(needle))
            .unwrap_or(0);
        let (line, column) = line_col(text, at);
        BtError {
            file: file.to_owned(),
            line,
            column,
            problem,
        }
    }

    pub(crate) fn err_at(&self, file: &str, needle: &str, problem: BtProblem) -> BtError {
        self.err_nth(file, needle, 0, problem)
    }

    /// Error at a `behavior: "name"` reference (falls back to the name).
    pub(crate) fn err_ref(&self, file: &str, behavior: &str, problem: BtProblem) -> BtError {
        let text = self.text(file);
        match text.find(&format!("behavior: \"{behavior}\"")) {
            Some(at) => {
                let (line, column) = line_col(text, at);
                BtError {
                    file: file.to_owned(),
                    line,
                    column,
                    problem,
                }
            }
            None => self.err_at(file, behavior, problem),
        }
    }

    pub(crate) fn err_kind(&self, file: &str, kind: &str, problem: BtProblem) -> BtError {
        let text = self.text(file);
        let at = text.find(&format!("{kind}(")).unwrap_or(0);
        let (line, column) = line_col(text, at);
        BtError {
            file: file.to_owned(),
            line,
            column,
            problem,
        }
    }

    /// Error located at a node: its name, else its kind.
    pub(crate) fn err_node(&self, file: &str, def: &NodeDef, problem: BtProblem) -> BtError {
        match def.common().name {
            Some(n) => self.err_at(file, n, problem),
            None => self.err_kind(file, def.kind_name(), problem),
        }
    }

    pub(crate) fn tag_mask(&self, file: &str, tags: &[String]) -> Result<u64, BtError> {
        let mut mask = 0;
        for t in tags {
            match self.p.tag_names.iter().position(|n| n == t) {
                Some(i) => mask |= 1u64 << i,
                None => return Err(self.err_at(file, t, BtProblem::UnknownTag(t.clone()))),
            }
        }
        Ok(mask)
    }

    /// A node's number of children is within `min..=max`.
    pub(crate) fn check_arity(
        &self,
        file: &str,
        def: &NodeDef,
        min: usize,
        max: usize,
    ) -> Result<(), BtError> {
        let n = def.children().len();
        if n < min || n > max {
            return Err(self.err_node(
                file,
                def,
                BtProblem::Arity {
                    kind: def.kind_name().into(),
                    min,
                    max,
                    found: n,
                },
            ));
        }
        Ok(())
    }

    /// An error at the first place a condition or node uses key `k` (not
    /// its declaration under `blackboard`), else at the key.
    pub(crate) fn err_key_use(&self, file: &str, k: &str, problem: BtProblem) -> BtError {
        let text = self.text(file);
        let uses = [
            format!("Is(\"{k}\")"),
            format!("IsNot(\"{k}\")"),
            format!("Bb(\"{k}\""),
            format!("key: \"{k}\""),
        ];
        match uses.iter().filter_map(|u| text.find(u.as_str())).min() {
            Some(at) => {
                let (line, column) = line_col(text, at);
                BtError {
                    file: file.to_owned(),
                    line,
                    column,
                    problem,
                }
            }
            None => self.err_at(file, k, problem),
        }
    }

    /// The index of a declared blackboard key.
    pub(crate) fn key_index(&self, file: &str, k: &str) -> Result<u16, BtError> {
        self.p
            .bb_keys
            .iter()
            .position(|x| x == k)
            .map(|i| i as u16)
            .ok_or_else(|| self.err_at(file, k, BtProblem::UnknownKey(k.to_owned())))
    }

    pub(crate) fn push_cond(&mut self, c: Cond) -> u32 {
        self.p.conds.push(c);
        self.p.conds.len() as u32 - 1
    }

    pub(crate) fn check(&mut self, file: &str, check: &Check) -> Result<u32, BtError> {
        let key = |this: &Self, k: &str| {
            this.p
                .bb_keys
                .iter()
                .position(|x| x == k)
                .map(|i| i as u16)
                .ok_or_else(|| this.err_at(file, k, BtProblem::UnknownKey(k.to_owned())))
        };
        let cond = match check {
            Check::Is(k) | Check::IsNot(k) => {
                let i = key(self, k)?;
                let def = self.p.bb_defaults[i as usize];
                if !matches!(def, Value::Bool(_)) {
                    return Err(self.err_key_use(
                        file,
                        k,
                        BtProblem::KeyType {
                            key: k.clone(),
                            expected: def.type_name(),
                            found: "bool",
                        },
                    ));
                }
                Cond::BbIs {
                    key: i,
                    value: matches!(check, Check::Is(_)),
                }
            }
            Check::Bb(k, op, v) => {
                let i = key(self, k)?;
                let def = self.p.bb_defaults[i as usize];
                if !def.same_kind(v) {
                    return Err(self.err_key_use(
                        file,
                        k,
                        BtProblem::KeyType {
                            key: k.clone(),
                            expected: def.type_name(),
                            found: v.type_name(),
                        },
                    ));
                }
                Cond::Bb {
                    key: i,
                    op: *op,
                    value: *v,
                }
            }
            Check::Predicate(name) => {
                let idx = match self.predicate_index.get(name) {
                    Some(&i) => i,
                    None => {
                        let f = self.vocab.predicates.get(name).cloned();
                        if f.is_none() && !self.vocab.permissive {
                            return Err(self.err_at(
                                file,
                                name,
                                BtProblem::UnknownPredicate(name.clone()),
                            ));
                        }
                        self.p.predicates.push(PredicateSlot {
                            name: name.clone(),
                            f,
                        });
                        let i = self.p.predicates.len() as u32 - 1;
                        self.predicate_index.insert(name.clone(), i);
                        i
                    }
                };
                Cond::Predicate(idx)
            }
            Check::HasTag(t) => Cond::Tags(self.tag_mask(file, std::slice::from_ref(t))?),
            Check::World(name, op, value) => {
                let slot = match self.p.globals.iter().position(|g| g.name == *name) {
                    Some(i) => i as u32,
                    None => {
                        let e = self.err_at(file, name, BtProblem::UnknownKey(String::new()));
                        self.p.globals.push(crate::program::GlobalRef {
                            name: name.clone(),
                            file: file.to_owned(),
                            line: e.line,
                            column: e.column,
                        });
                        self.p.globals.len() as u32 - 1
                    }
                };
                Cond::Global {
                    slot,
                    op: *op,
                    value: *value,
                }
            }
            Check::All(list) | Check::Any(list) => {
                let mut idx = Vec::with_capacity(list.len());
                for c in list {
                    idx.push(self.check(file, c)?);
                }
                let start = self.p.cond_lists.len() as u32;
                self.p.cond_lists.extend(idx);
                let len = list.len() as u32;
                if matches!(check, Check::All(_)) {
                    Cond::All { start, len }
                } else {
                    Cond::Any { start, len }
                }
            }
            Check::Not(inner) => {
                let i = self.check(file, inner)?;
                Cond::Not(i)
            }
        };
        Ok(self.push_cond(cond))
    }

    pub(crate) fn checks(&mut self, file: &str, list: &[Check]) -> Result<u32, BtError> {
        match list {
            [] => Ok(NONE),
            [one] => self.check(file, one),
            many => self.check(file, &Check::All(many.to_vec())),
        }
    }

    pub(crate) fn ms(&self, file: &str, def: &NodeDef, seconds: f32) -> Result<u32, BtError> {
        if !seconds.is_finite() || seconds < 0.0 {
            return Err(self.err_node(file, def, BtProblem::BadDuration(seconds)));
        }
        Ok((seconds * 1000.0).round().min(u32::MAX as f32) as u32)
    }

    pub(crate) fn find_behavior(&self, file: &str, name: &str) -> Option<&'a NodeDef> {
        let files: &'a HashMap<String, ParsedFile> = self.files;
        files
            .get(file)?
            .def
            .behaviors
            .iter()
            .find(|b| b.common().name == Some(name))
    }

    fn auto_segment(def: &NodeDef) -> String {
        if let Some(n) = def.common().name {
            return n.to_owned();
        }
        fn check_text(c: &Check) -> String {
            match c {
                Check::Is(k) => format!("?{k}"),
                Check::IsNot(k) => format!("?!{k}"),
                Check::Bb(k, op, v) => format!("?{k}{}{v}", op.symbol()),
                Check::Predicate(p) => format!("?{p}"),
                Check::HasTag(t) => format!("?#{t}"),
                Check::World(k, op, v) => format!("?{k}{}{v}", op.symbol()),
                Check::All(_) => "?all".into(),
                Check::Any(_) => "?any".into(),
                Check::Not(c) => format!("?not({})", check_text(c).trim_start_matches('?')),
            }
        }
        match def {
            NodeDef::Use(u) => u.behavior.clone(),
            NodeDef::Impulse(i) => format!("impulse:{}", i.behavior),
            NodeDef::Action(a) => a.action.clone(),
            NodeDef::Condition(c) | NodeDef::Rule(c) => check_text(&c.check),
            NodeDef::CheckWorldStateFlags(c) => {
                let names: Vec<&str> = c.flags.iter().map(|(n, _)| n.as_str()).collect();
                format!("?{}", names.join("&"))
            }
            NodeDef::CheckWorldStateCounters(c) => {
                let names: Vec<String> = c
                    .counters
                    .iter()
                    .map(|(n, op, v)| format!("{n}{}{v}", op.symbol()))
                    .collect();
                format!("?{}", names.join("&"))
            }
            NodeDef::Threshold(t) => format!("threshold{}", check_text(&t.check)),
            NodeDef::Custom(c) => c.kind.clone(),
            other => {
                let k = other.kind_name();
                let mut s = String::new();
                for (i, ch) in k.chars().enumerate() {
                    if ch.is_uppercase() && i > 0 {
                        s.push('_');
                    }
                    s.push(ch.to_ascii_lowercase());
                }
                s
            }
        }
    }

    /// Segments for children: explicit names as given, automatic ones made
    /// unique among siblings with `#2`, `#3`...
    fn segments(children: &[NodeDef]) -> Vec<String> {
        let explicit: Vec<Option<&str>> = children
            .iter()
            .map(|c| match c {
                NodeDef::Use(u) => u.name.as_deref(),
                other => other.common().name,
            })
            .collect();
        let mut used: HashMap<String, usize> = HashMap::new();
        for n in explicit.iter().flatten() {
            used.insert((*n).to_owned(), 1);
        }
        children
            .iter()
            .zip(&explicit)
            .map(|(c, e)| match e {
                Some(n) => (*n).to_owned(),
                None => {
                    let base = Self::auto_segment(c);
                    let count = used.entry(base.clone()).or_insert(0);
                    *count += 1;
                    if *count == 1 {
                        base
                    } else {
                        format!("{base}#{count}")
                    }
                }
            })
            .collect()
    }

    fn emit(
        &mut self,
        def: &NodeDef,
        file: &str,
        parent: u32,
        seg: String,
        depth: u16,
        extra_tags: TagMasks,
    ) -> Result<u32, BtError> {
        let common = def.common();
        let tags = (
            self.tag_mask(file, common.tags)? | extra_tags.0,
            self.tag_mask(file, common.any_tags)? | extra_tags.1,
            self.tag_mask(file, common.not_tags)? | extra_tags.2,
        );
        if let NodeDef::Use(u) = def {
            let target_file = u
                .file
                .as_ref()
                .map_or_else(|| file.to_owned(), |f| resolve(file, f));
            let key = (target_file.clone(), u.behavior.clone());
            if let Some(i) = self.stack.iter().position(|s| *s == key) {
                let mut chain: Vec<String> =
                    self.stack[i..].iter().map(|(_, b)| b.clone()).collect();
                chain.push(u.behavior.clone());
                return Err(self.err_ref(file, &u.behavior, BtProblem::Cycle(chain.join(" -> "))));
            }
            let Some(bdef) = self.find_behavior(&target_file, &u.behavior) else {
                return Err(self.err_ref(
                    file,
                    &u.behavior,
                    BtProblem::UnknownBehavior(u.behavior.clone()),
                ));
            };
            self.stack.push(key.clone());
            let idx = self.emit(bdef, &target_file, parent, seg, depth, tags)?;
            self.stack.pop();
            if !self.detached {
                self.native.entry(key).or_default().push(idx);
            }
            return Ok(idx);
        }

        let idx = self.p.nodes.len() as u32;
        let path = if parent == NONE {
            seg
        } else {
            format!("{}/{}", self.p.paths[parent as usize], seg)
        };
        if self.p.path_index.contains_key(&path) {
            let name = path.rsplit('/').next().unwrap_or(&path).to_owned();
            return Err(self.err_nth(file, &name, 1, BtProblem::DuplicatePath(path)));
        }
        self.p.path_index.insert(path.clone(), idx);
        self.p.paths.push(path);
        self.p.nodes.push(Node {
            kind: Kind::Succeed,
            parent,
            end: idx + 1,
            first_child: 0,
            child_count: 0,
            depth,
            tags_all: tags.0,
            tags_any: tags.1,
            tags_not: tags.2,
            does_complete: true,
            instant: false,
            guard_len: 0,
            aux: NONE,
            cursor: NONE,
            guard: NONE,
            facts: crate::program::NodeFacts::of(&Kind::Succeed),
        });

        let mut in_place_impulse: Option<(String, String)> = None;
        let kind = crate::kind::lower(self, def, file, idx, &mut in_place_impulse)?;
        // Arity and per-agent state come from the kind's table.
        let info = kind.info();
        if !matches!(kind, Kind::Impulse { .. } | Kind::Custom { .. }) {
            self.check_arity(file, def, info.min_children, info.max_children)?;
        }
        if info.aux != AuxInit::None {
            self.p.nodes[idx as usize].aux = self.p.aux_count;
            self.p.aux_count += 1;
        }
        if info.cursor != CursorInit::None {
            self.p.nodes[idx as usize].cursor = self.p.cursor_count;
            self.p.cursor_count += 1;
        }
        self.p.nodes[idx as usize].kind = kind;
        self.p.nodes[idx as usize].facts = crate::program::NodeFacts::of(&kind);

        // Children.
        let mut kids = Vec::new();
        if let Some((bfile, behavior)) = in_place_impulse {
            let use_def = NodeDef::Use(crate::def::UseDef {
                name: None,
                tags: vec![],
                any_tags: vec![],
                not_tags: vec![],
                behavior: behavior.clone(),
                file: None,
            });
            kids.push(self.emit(&use_def, &bfile, idx, behavior, depth + 1, (0, 0, 0))?);
        } else {
            let segs = Self::segments(def.children());
            for (child, seg) in def.children().iter().zip(segs) {
                kids.push(self.emit(child, file, idx, seg, depth + 1, (0, 0, 0))?);
            }
        }
        let first_child = self.p.children.len() as u32;
        self.p.children.extend(&kids);
        let end = self.p.nodes.len() as u32;
        let child_nodes: Vec<&Node> = kids.iter().map(|&k| &self.p.nodes[k as usize]).collect();
        let all_instant = !child_nodes.is_empty() && child_nodes.iter().all(|n| n.instant);
        let all_done = child_nodes.iter().all(|n| n.does_complete);
        let any_done = child_nodes.iter().any(|n| n.does_complete);
        let guard_len = child_nodes.iter().take_while(|n| n.instant).count() as u16;
        let facts = crate::kind::ChildFacts {
            count: child_nodes.len(),
            all_instant,
            all_done,
            any_done,
            done: child_nodes.iter().filter(|n| n.does_complete).count(),
            later_done: child_nodes.iter().skip(1).any(|n| n.does_complete),
            redirect: matches!(kind, Kind::Impulse { .. }) && kids.is_empty(),
        };
        let (instant, does_complete) = kind.completes(&facts);
        let n = &mut self.p.nodes[idx as usize];
        n.first_child = first_child;
        n.child_count = kids.len() as u16;
        n.end = end;
        n.instant = instant;
        n.does_complete = does_complete;
        n.guard_len = if matches!(
            kind,
            Kind::Sequence
                | Kind::GuardSequence
                | Kind::SequenceWithMemory
                | Kind::ReactiveSequence
        ) {
            guard_len
        } else {
            0
        };
        Ok(idx)
    }
}

/// Parses and compiles a single-file tree from text (tests, tools).
pub fn compile_str(file: &str, text: &str, vocab: &Vocabulary) -> Result<Program, BtError> {
    let (def, text) = parse_tree(file, text.as_bytes())?;
    let mut files = HashMap::new();
    files.insert(file.to_owned(), ParsedFile { def, text });
    if let Some(missing) = file_refs(file, &files[file].def)
        .into_iter()
        .find(|f| !files.contains_key(f))
    {
        return Err(BtError {
            file: file.to_owned(),
            line: 1,
            column: 1,
            problem: BtProblem::Io {
                file: missing,
                error: "other files are not available here".into(),
            },
        });
    }
    compile(file, &files, vocab)
}
