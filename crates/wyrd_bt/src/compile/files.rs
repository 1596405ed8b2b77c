//! Reading tree files: parsing, the files a tree uses, single-file
//! compiles.

use std::collections::HashMap;

use ron::extensions::Extensions;

use super::errors::{known_kinds, line_col};
use super::{BtError, BtProblem, compile};
use crate::def::{NodeDef, TreeDef};
use crate::program::Program;
use crate::registry::Vocabulary;

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
    // A byte-order mark (Windows Notepad writes one) is not content:
    // editors count columns without it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
                        hint: super::errors::bt_cpp_hint(found),
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
                ron::Error::ExceededRecursionLimit => BtProblem::Syntax(
                    "the nodes nest deeper than a tree file may (about 20 levels): move a branch into a behavior (`behaviors: [...]`, then `Use`)".into(),
                ),
                ron::Error::NoSuchStructField { found, outer, .. } => {
                    let hint = outer
                        .as_deref()
                        .map_or_else(String::new, |kind| {
                            super::errors::bt_cpp_field_hint(kind, found)
                        });
                    BtProblem::Syntax(format!("{}{hint}", other_char(text, e.span.start, &e.code)))
                }
                ron::Error::ExpectedFloat | ron::Error::ExpectedInteger
                    if string_at(text, e.span.start) =>
                {
                    BtProblem::Syntax(format!(
                        "{}: a node's own fields (seconds, count, attempts...) are constants, not keys (\"{{key}}\" goes in action parameters, comparisons, SetBlackboard values and `with` bindings; a duration from a key is an action or custom node of the game's)",
                        e.code
                    ))
                }
                other => BtProblem::Syntax(other_char(text, e.span.start, other)),
            };
            // A bracket never closed says more than ron's "expected
            // identifier" where it noticed: which one, and where it opened.
            if let BtProblem::Syntax(_) = problem
                && let Some(u) = super::outline::unclosed(text)
            {
                let (line, column) = line_col(text, u.at);
                if line <= e.span.start.line {
                    let (open_line, open_column) = line_col(text, u.opened_at);
                    return BtError {
                        file: file.to_owned(),
                        line,
                        column,
                        problem: BtProblem::Unclosed {
                            close: u.close(),
                            what: u.what(),
                            line: open_line,
                            column: open_column,
                            found: u.found,
                        },
                    };
                }
            }
            // A missing field is noticed at the node's closing bracket:
            // the error points at the node it is missing from.
            let (line, column) = match &e.code {
                ron::Error::MissingStructField { outer, .. } => outer
                    .as_deref()
                    .and_then(|kind| {
                        let close = offset_of(text, e.span.start.line, e.span.start.col);
                        super::outline::node_closed_at(text, kind, close)
                    })
                    .map_or((e.span.start.line, e.span.start.col), |at| line_col(text, at)),
                _ => (e.span.start.line, e.span.start.col),
            };
            BtError {
                file: file.to_owned(),
                line,
                column,
                problem,
            }
        })?;
    Ok((def, text.to_owned()))
}

/// ron's message, and when the error is at a character outside ASCII
/// (a no-break space pasted from a web page, a typographic quote), which
/// one: RON reads plain spaces and quotes only.
/// Whether a string starts at a position ron reports (after spaces).
fn string_at(text: &str, at: ron::error::Position) -> bool {
    text.lines().nth(at.line.saturating_sub(1)).and_then(|l| {
        l.chars()
            .skip(at.col.saturating_sub(1))
            .find(|c| !c.is_whitespace())
    }) == Some('"')
}

/// The character at a position ron reports (1-based line and column).
fn char_at(text: &str, at: ron::error::Position) -> Option<char> {
    text.lines()
        .nth(at.line.saturating_sub(1))
        .and_then(|l| l.chars().nth(at.col.saturating_sub(1)))
}

fn other_char(text: &str, at: ron::error::Position, error: &ron::Error) -> String {
    let found = char_at(text, at).filter(|c| !c.is_ascii());
    match found {
        Some(c) => format!(
            "{error} (the character there is U+{:04X} {c:?}: RON reads plain ASCII spaces, quotes and brackets outside strings)",
            u32::from(c)
        ),
        None => error.to_string(),
    }
}

/// Errors [`parse_tree_all`] reports at most in one file.
const MAX_PARSE_ERRORS: usize = 50;

/// Parses a tree file like [`parse_tree`]; when the parser refuses a
/// node (an unknown kind, a field the kind does not have), it goes on
/// past it and reports every node it refuses, in file order (what `wyrd
/// check` prints). Each refused node is read as `Fail()`, with its
/// children, to parse the rest (the children's own errors show once it
/// is fixed); an error the outline cannot place in a node (an unclosed
/// bracket, a missing comma between nodes) stops it there.
///
/// ```
/// let text = "(root: Sequence(children: [\n    Wiat(seconds: 1.0),\n    Action(acton: \"Go\"),\n]))";
/// let errors = wyrd_bt::parse_tree_all("t.bt.ron", text.as_bytes()).unwrap_err();
/// let lines: Vec<usize> = errors.iter().map(|e| e.line).collect();
/// assert_eq!(lines, [2, 3]);
/// ```
pub fn parse_tree_all(file: &str, bytes: &[u8]) -> Result<(TreeDef, String), Vec<BtError>> {
    let first = match parse_tree(file, bytes) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    let mut errors = vec![first];
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Err(errors);
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut text = text.to_owned();
    while errors.len() < MAX_PARSE_ERRORS {
        let Some(last) = errors.last() else { break };
        if matches!(last.problem, BtProblem::Unclosed { .. }) {
            break;
        }
        let Some(node) = refused_node(&text, offset_of(&text, last.line, last.column)) else {
            break;
        };
        mask(&mut text, node);
        match parse_tree(file, text.as_bytes()) {
            Ok(_) => break,
            // Read as `Fail()`, the node still fails there: the error is
            // not the node's (a missing comma before it).
            Err(e)
                if errors
                    .iter()
                    .any(|x| (x.line, x.column) == (e.line, e.column)) =>
            {
                break;
            }
            Err(e) => errors.push(e),
        }
    }
    errors.sort_by_key(|e| (e.line, e.column));
    Err(errors)
}

/// The byte offset of a 1-based line and column (in characters, as the
/// errors' are).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    // `column` counts characters.
    let rest = text.get(start..).unwrap_or("");
    let within = rest
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(rest.len(), |(i, _)| i);
    (start + within).min(text.len())
}

/// The byte range of the innermost node of the file (the root, a
/// behavior, a `child`, an entry of `children`) around `offset`.
fn refused_node(text: &str, offset: usize) -> Option<std::ops::Range<usize>> {
    use super::outline::{Body, Item};
    fn nodes<'i>(item: &'i Item, out: &mut Vec<&'i Item>) {
        let item = item.unwrapped();
        out.push(item);
        if let Some(child) = item.field("child") {
            nodes(child, out);
        }
        if let Some(Item {
            body: Body::List(list),
            ..
        }) = item.field("children")
        {
            for child in list {
                nodes(child, out);
            }
        }
    }
    let top = super::outline::outline(text)?;
    let top = top.unwrapped();
    let mut all = Vec::new();
    if let Some(root) = top.field("root") {
        nodes(root, &mut all);
    }
    if let Some(Item {
        body: Body::List(list),
        ..
    }) = top.field("behaviors")
    {
        for b in list {
            nodes(b, &mut all);
        }
    }
    all.into_iter()
        .filter(|n| n.start <= offset && offset < n.end && n.name().is_some())
        .min_by_key(|n| n.end - n.start)
        .map(|n| n.start..n.end)
}

/// Writes `Fail()` over a node's text, blanks the rest of it and keeps
/// its line breaks (the errors after it keep their lines).
fn mask(text: &mut String, node: std::ops::Range<usize>) {
    let mut bytes = std::mem::take(text).into_bytes();
    let placeholder = b"Fail()";
    // The first run of the node without a line break long enough.
    let mut run = node.start;
    let mut at = None;
    for i in node.clone() {
        if bytes[i] == b'\n' {
            run = i + 1;
        } else if i + 1 - run >= placeholder.len() {
            at = Some(run);
            break;
        }
    }
    for b in &mut bytes[node] {
        if *b != b'\n' {
            *b = b' ';
        }
    }
    if let Some(at) = at {
        bytes[at..at + placeholder.len()].copy_from_slice(placeholder);
    }
    *text = String::from_utf8(bytes).unwrap_or_default();
}

/// The field a node with children takes: `child` for decorators,
/// `children` for composites (`None`: a leaf), from the kind's fields
/// struct.
fn child_field(outer: Option<&str>) -> Option<&'static str> {
    match outer? {
        "Fallback" => NodeDef::child_field_of("Selector"),
        kind => NodeDef::child_field_of(kind),
    }
}

/// The leaf kind an error is about: its own name, or the kinds whose
/// fields struct serde names (`ConditionDef`: "Condition or Rule").
fn leaf_kind_name(outer: Option<&str>) -> String {
    let Some(outer) = outer else {
        return "leaf".to_owned();
    };
    if NodeDef::KINDS.contains(&outer) {
        return outer.to_owned();
    }
    match NodeDef::kinds_with_fields(outer).as_slice() {
        [] => "leaf".to_owned(),
        [one] => (*one).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Files a tree refers to with `Use(file: ..)`, relative to the tree's
/// folder, resolved to paths relative to the same root as `file`.
pub fn file_refs(file: &str, def: &TreeDef) -> Vec<String> {
    file_uses(file, def).into_iter().map(|u| u.path).collect()
}

/// A file a tree uses: resolved, and as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUse {
    /// Relative to the same root as the tree ([`resolve`]).
    pub path: String,
    /// As the tree's `Use(file: ..)` wrote it.
    pub written: String,
}

impl FileUse {
    /// Where the tree names it (line and column of the path's first
    /// character in `text`; the file's start if it is not found as
    /// written).
    pub fn position(&self, text: &str) -> (usize, usize) {
        text.find(&format!("\"{}\"", self.written))
            .map_or((1, 1), |at| super::errors::line_col(text, at + 1))
    }
}

/// [`file_refs`], with each path as written (the first `Use` of each).
pub fn file_uses(file: &str, def: &TreeDef) -> Vec<FileUse> {
    fn walk(file: &str, node: &NodeDef, out: &mut Vec<FileUse>) {
        if let NodeDef::Use(u) = node
            && let Some(f) = &u.file
        {
            let path = resolve(file, f);
            if !out.iter().any(|u| u.path == path) {
                out.push(FileUse {
                    path,
                    written: f.clone(),
                });
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
///
/// A `..` above the folder `file` is relative to is kept (`a.bt.ron` and
/// `../x.bt.ron` give `../x.bt.ron`): the path names the file meant, and
/// a loader that must stay inside its root refuses it ([`above_root`]: the
/// game's asset loader does), where dropping them would name another file
/// of that name. Above an absolute path's root there is
/// nothing (`/..` is `/`). A `\` in `other` is read as `/` (a path written
/// on Windows): Bevy's asset paths use `/`.
pub fn resolve(file: &str, other: &str) -> String {
    // `file`'s own segments are kept as written (`./` too): the main
    // tree's key is its path as given, and a used file's key starts alike.
    let mut parts: Vec<&str> = file.split('/').collect();
    parts.pop();
    let other = other.replace('\\', "/");
    for seg in other.split('/') {
        match seg {
            "" | "." => {}
            ".." => match parts.last() {
                None | Some(&"..") => parts.push(".."),
                Some(&".") => {
                    parts.pop();
                    parts.push("..");
                }
                Some(&"") if parts.len() == 1 => {}
                Some(_) => {
                    parts.pop();
                }
            },
            s => parts.push(s),
        }
    }
    parts.join("/")
}

/// Whether a path [`resolve`] gave is above the root the paths are
/// relative to (it starts with `..`): a game's assets folder, where the
/// asset loader reads. The game's loader refuses such a file, and `wyrd
/// check` does too.
pub fn above_root(path: &str) -> bool {
    path == ".." || path.starts_with("../")
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
    // Each file with the file that uses it and where (an unreadable one is
    // that file's error, at its `Use`).
    let mut todo = vec![(file.to_owned(), (file.to_owned(), 1, 1))];
    while let Some((path, (by, line, column))) = todo.pop() {
        if files.contains_key(&path) {
            continue;
        }
        let bytes = read(&path).map_err(|error| BtError {
            file: by,
            line,
            column,
            problem: BtProblem::Io {
                file: path.clone(),
                error,
            },
        })?;
        let (def, text) = parse_tree(&path, &bytes)?;
        for used in file_uses(&path, &def) {
            let (line, column) = used.position(&text);
            todo.push((used.path, (path.clone(), line, column)));
        }
        files.insert(path, ParsedFile { def, text });
    }
    Ok(files)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `Use(file: ..)` paths: a `..` above the tree's root is kept (it was
    /// dropped, naming the root's file of that name instead); above an
    /// absolute path's root there is nothing.
    #[test]
    fn a_use_above_the_root_keeps_its_dots() {
        for (file, other, want) in [
            ("trees/a.bt.ron", "b.bt.ron", "trees/b.bt.ron"),
            ("trees/a.bt.ron", "../x.bt.ron", "x.bt.ron"),
            ("trees/a.bt.ron", "../../x.bt.ron", "../x.bt.ron"),
            ("a.bt.ron", "../x.bt.ron", "../x.bt.ron"),
            ("./trees/a.bt.ron", "../../x.bt.ron", "../x.bt.ron"),
            ("../t/a.bt.ron", "../../x.bt.ron", "../../x.bt.ron"),
            ("/t/a.bt.ron", "../../../x.bt.ron", "/x.bt.ron"),
            ("./trees/a.bt.ron", "lib/./c.bt.ron", "./trees/lib/c.bt.ron"),
            ("./a.bt.ron", "../x.bt.ron", "../x.bt.ron"),
            ("trees/a.bt.ron", "..\\..\\x.bt.ron", "../x.bt.ron"),
        ] {
            assert_eq!(resolve(file, other), want, "{file} + {other}");
        }
        assert!(above_root("../x.bt.ron"));
        assert!(!above_root("x.bt.ron") && !above_root("..x.bt.ron"));
    }
}
