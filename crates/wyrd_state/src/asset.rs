//! The `*.flags.ron` asset: flag and counter declarations, and its loader.

use std::fmt;
use std::path::{Path, PathBuf};

use bevy::asset::io::Reader;
use bevy::asset::{Asset, AssetLoader, LoadContext};
use bevy::reflect::TypePath;
use serde::Deserialize;

use crate::id::StableId;

/// Whether an entry survives the end of a run.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Default,
    Deserialize,
    serde::Serialize,
    bevy::reflect::Reflect,
)]
pub enum Scope {
    /// Meta progression: kept across runs and written to the save.
    #[default]
    Meta,
    /// Reset to its default when a run begins; never saved.
    Run,
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Scope::Meta => "Meta",
            Scope::Run => "Run",
        })
    }
}

/// One declared flag (`bool`) or counter (`i64`).
#[derive(Debug, Clone, PartialEq)]
pub struct EntryDecl<T> {
    /// Stable identity, used by saves.
    pub id: StableId,
    /// Debug name, unique, used by code and trees (e.g. `NPC_DRONE_SPK_01`).
    pub name: String,
    /// The value a fresh world starts with.
    pub default: T,
    /// Bumped by designers to reset a saved value to the default on load.
    pub version: u32,
    /// Meta (saved) or Run (reset when a run begins).
    pub scope: Scope,
    /// What the entry means, for designers and the inspector.
    pub description: String,
    /// 1-based line of the entry in its file (for later error messages).
    pub line: usize,
}

/// A declaration of flags: boolean, counters: 64-bit integers.
pub type FlagDecl = EntryDecl<bool>;
/// A declaration of a counter.
pub type CounterDecl = EntryDecl<i64>;

/// A parsed, validated `*.flags.ron` file.
///
/// ```ron
/// (
///     flags: [
///         (
///             id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58",
///             name: "NPC_DRONE_SPK_01",
///             default: false,
///             scope: Meta,      // optional, Meta by default
///             version: 1,       // optional, 1 by default
///             description: "The player exhausted the Drone's first dialogue.",
///         ),
///     ],
///     counters: [
///         (id: "5904375b06586af41bd4c25aedc0b193", name: "QST_DST_TOWER_5", default: 0),
///     ],
/// )
/// ```
#[derive(Asset, TypePath, Debug, Clone, PartialEq, Default)]
pub struct FlagsFile {
    /// Where the file came from, as given to the parser (for messages).
    pub path: PathBuf,
    /// Declared flags, in file order.
    pub flags: Vec<FlagDecl>,
    /// Declared counters, in file order.
    pub counters: Vec<CounterDecl>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    #[serde(default)]
    flags: Vec<RawEntry<bool>>,
    #[serde(default)]
    counters: Vec<RawEntry<i64>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry<T> {
    id: String,
    name: String,
    default: T,
    #[serde(default = "one")]
    version: u32,
    #[serde(default)]
    scope: Scope,
    #[serde(default)]
    description: String,
}

fn one() -> u32 {
    1
}

/// What is wrong with a flags file, and where.
///
/// Displays as `path:line:column: problem`, the form editors and terminals
/// turn into a link.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}:{line}:{column}: {problem}", path.display())]
pub struct FlagsFileError {
    /// The file.
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// What is wrong.
    pub problem: FlagsProblem,
}

/// The kinds of [`FlagsFileError`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlagsProblem {
    /// The file could not be read.
    #[error("cannot read the file: {0}")]
    Io(String),
    /// The file is not valid UTF-8.
    #[error("the file is not valid UTF-8")]
    NotUtf8,
    /// RON syntax or shape error (includes values of the wrong type).
    #[error("{0}")]
    Syntax(String),
    /// An id that is not 32 lowercase hex characters.
    #[error("{0}")]
    BadId(String),
    /// An empty or malformed name.
    #[error("name {0:?} must be non-empty and made of A-Z, a-z, 0-9 and _")]
    BadName(String),
    /// Two entries of the file share an id.
    #[error("id {id} is declared twice (first at line {first_line})")]
    DuplicateId {
        /// The id.
        id: String,
        /// Line of the first declaration.
        first_line: usize,
    },
    /// Two entries of the file share a name.
    #[error("name {name:?} is declared twice (first at line {first_line})")]
    DuplicateName {
        /// The name.
        name: String,
        /// Line of the first declaration.
        first_line: usize,
    },
    /// Version 0 is reserved: versions start at 1.
    #[error("version of {0:?} must be at least 1")]
    ZeroVersion(String),
}

/// 1-based line and column of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    // In characters, as editors and ron count.
    let column = before[before.rfind('\n').map_or(0, |nl| nl + 1)..]
        .chars()
        .count()
        + 1;
    (line, column)
}

/// The byte offset of the bracket that the `)` at 1-based `line` and
/// `column` closes, skipping strings and comments (descriptions hold
/// brackets); `None` if there is no `)` there.
fn opening_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    let close = line_start
        + text[line_start..]
            .char_indices()
            .nth(column.saturating_sub(1))?
            .0;
    if text.as_bytes().get(close) != Some(&b')') {
        return None;
    }
    let mut open = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if at == close {
            return open.pop();
        }
        match c {
            '"' => {
                while let Some((_, c)) = chars.next() {
                    match c {
                        '\\' => {
                            chars.next();
                        }
                        '"' => break,
                        _ => {}
                    }
                }
            }
            '/' if chars.peek().is_some_and(|&(_, n)| n == '/') => {
                for (_, c) in chars.by_ref() {
                    if c == '\n' {
                        break;
                    }
                }
            }
            '(' | '[' | '{' => open.push(at),
            ')' | ']' | '}' => {
                open.pop();
            }
            _ => {}
        }
    }
    None
}

/// Position of the `nth` (0-based) occurrence of `"needle"` (quoted) in `text`,
/// or of the bare needle when it is not found quoted.
///
/// The RON parser does not give spans for values that parse but fail
/// validation, so we look the offending literal up in the source.
fn find_literal(text: &str, needle: &str, nth: usize) -> Option<usize> {
    let quoted = format!("\"{needle}\"");
    text.match_indices(&quoted)
        .nth(nth)
        .map(|(at, _)| at + 1)
        .or_else(|| text.match_indices(needle).nth(nth).map(|(at, _)| at))
}

/// The fields of a flag or counter declaration, as written in a file.
const ENTRY_FIELDS: [&str; 6] = ["id", "name", "default", "version", "scope", "description"];

/// A RON error in the file's words: the parser names its own types
/// ("in `RawEntry`") and says "Expected boolean" where a designer wrote a
/// counter's default on a flag.
fn syntax_message(code: &ron::Error) -> String {
    match code {
        ron::Error::NoSuchStructField { found, outer, .. }
            if outer.as_deref() == Some("RawFile") =>
        {
            format!("unknown field `{found}`: a flags file has `flags` and `counters`")
        }
        ron::Error::NoSuchStructField { found, .. } => format!(
            "unknown field `{found}` in a flag or counter (its fields: {})",
            ENTRY_FIELDS.join(", ")
        ),
        ron::Error::MissingStructField { field, .. } => {
            format!("a flag or counter without `{field}`")
        }
        ron::Error::ExpectedBoolean => {
            "expected true or false: a flag's default is true or false".to_owned()
        }
        ron::Error::ExpectedInteger => {
            "expected a whole number (a counter's default, a `version`)".to_owned()
        }
        other => other.to_string(),
    }
}

/// Whether a flag or counter name is one a flags file accepts: letters,
/// digits, `_`, `.` and `-`, not empty.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-')
}

impl FlagsFile {
    /// Parses and validates a flags file's bytes. `path` is only used in
    /// errors. Never panics.
    pub fn from_bytes(path: impl AsRef<Path>, bytes: &[u8]) -> Result<Self, FlagsFileError> {
        let path = path.as_ref();
        let err = |line, column, problem| FlagsFileError {
            path: path.to_owned(),
            line,
            column,
            problem,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let (line, column) = line_col(
                &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
                e.valid_up_to(),
            );
            err(line, column, FlagsProblem::NotUtf8)
        })?;
        // A byte-order mark is not content (editors count columns without it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let raw: RawFile =
            ron::Options::default()
                .from_str(text)
                .map_err(|e: ron::error::SpannedError| {
                    // A missing field is noticed at the entry's closing
                    // bracket: point at the entry's opening one.
                    let (line, column) = match e.code {
                        ron::Error::MissingStructField { .. } => {
                            opening_of(text, e.span.start.line, e.span.start.col)
                                .map_or((e.span.start.line, e.span.start.col), |at| {
                                    line_col(text, at)
                                })
                        }
                        _ => (e.span.start.line, e.span.start.col),
                    };
                    err(line, column, FlagsProblem::Syntax(syntax_message(&e.code)))
                })?;

        let mut out = FlagsFile {
            path: path.to_owned(),
            ..Default::default()
        };
        // Occurrence counters so that a duplicated literal points at the
        // right copy.
        let mut seen: std::collections::HashMap<String, (usize, usize)> = Default::default();
        let mut locate = |needle: &str| -> (usize, usize, usize) {
            let entry = seen.entry(needle.to_owned()).or_insert((0, 0));
            let at = find_literal(text, needle, entry.0).unwrap_or(0);
            entry.0 += 1;
            let (line, col) = line_col(text, at);
            if entry.1 == 0 {
                entry.1 = line;
            }
            (line, col, entry.1)
        };

        let mut ids: std::collections::HashMap<StableId, usize> = Default::default();
        let mut names: std::collections::HashMap<String, usize> = Default::default();
        macro_rules! convert {
            ($raw:expr, $into:expr) => {
                for e in $raw {
                    let (id_line, id_col, _) = locate(&e.id);
                    let id = StableId::parse(&e.id)
                        .map_err(|x| err(id_line, id_col, FlagsProblem::BadId(x.to_string())))?;
                    if let Some(&first_line) = ids.get(&id) {
                        return Err(err(
                            id_line,
                            id_col,
                            FlagsProblem::DuplicateId {
                                id: e.id.clone(),
                                first_line,
                            },
                        ));
                    }
                    ids.insert(id, id_line);
                    let (name_line, name_col, _) = locate(&e.name);
                    if !valid_name(&e.name) {
                        return Err(err(name_line, name_col, FlagsProblem::BadName(e.name)));
                    }
                    if let Some(&first_line) = names.get(&e.name) {
                        return Err(err(
                            name_line,
                            name_col,
                            FlagsProblem::DuplicateName {
                                name: e.name,
                                first_line,
                            },
                        ));
                    }
                    names.insert(e.name.clone(), name_line);
                    if e.version == 0 {
                        return Err(err(name_line, name_col, FlagsProblem::ZeroVersion(e.name)));
                    }
                    $into.push(EntryDecl {
                        id,
                        name: e.name,
                        default: e.default,
                        version: e.version,
                        scope: e.scope,
                        description: e.description,
                        line: id_line,
                    });
                }
            };
        }
        convert!(raw.flags, out.flags);
        convert!(raw.counters, out.counters);
        Ok(out)
    }
}

/// Loads `*.flags.ron` files into [`FlagsFile`] assets.
#[derive(Default, TypePath)]
pub struct FlagsFileLoader;

impl AssetLoader for FlagsFileLoader {
    type Asset = FlagsFile;
    type Settings = ();
    type Error = FlagsFileError;

    async fn load(
        &self,
        reader: &mut dyn Reader,
        _settings: &(),
        load_context: &mut LoadContext<'_>,
    ) -> Result<FlagsFile, FlagsFileError> {
        let path = load_context.path().path().to_owned();
        let mut bytes = Vec::new();
        reader
            .read_to_end(&mut bytes)
            .await
            .map_err(|e| FlagsFileError {
                path: path.clone(),
                line: 1,
                column: 1,
                problem: FlagsProblem::Io(e.to_string()),
            })?;
        FlagsFile::from_bytes(path, &bytes)
    }

    fn extensions(&self) -> &[&str] {
        &["flags.ron"]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<FlagsFile, FlagsFileError> {
        FlagsFile::from_bytes("test.flags.ron", text.as_bytes())
    }

    #[test]
    fn parses_defaults() {
        let f = parse(
            r#"(flags: [(id: "a3f19c7e52d04b8e9c1f6d2a7b4e0c58", name: "A", default: true)],
               counters: [(id: "5904375b06586af41bd4c25aedc0b193", name: "C", default: -3, scope: Run, version: 4)])"#,
        )
        .unwrap();
        assert_eq!(f.flags[0].version, 1);
        assert_eq!(f.flags[0].scope, Scope::Meta);
        assert!(f.flags[0].default);
        assert_eq!(f.counters[0].default, -3);
        assert_eq!(f.counters[0].scope, Scope::Run);
        assert_eq!(f.counters[0].version, 4);
        assert_eq!(f.counters[0].line, 2);
    }

    #[test]
    fn line_col_is_one_based() {
        assert_eq!(line_col("ab\ncd", 0), (1, 1));
        assert_eq!(line_col("ab\ncd", 4), (2, 2));
    }
}
