//! Errors of tree files and where they point.

use std::collections::HashMap;

use super::Compiler;
use super::ParsedFile;
use crate::def::NodeDef;

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
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub problem: BtProblem,
}

impl BtError {
    /// The error, then the line of `text` it points at with a caret under
    /// its column.
    pub fn with_source(&self, text: &str) -> String {
        with_caret(&self.to_string(), Some(text), self.line, self.column)
    }

    /// For a misspelt blackboard key or behavior, the nearest one the
    /// `files` declare (`; did you mean "health"?`), else empty.
    pub fn hint(&self, files: &HashMap<String, ParsedFile>) -> String {
        match &self.problem {
            BtProblem::UnknownKey(k) => closest_name(
                k,
                files
                    .values()
                    .flat_map(|f| f.def.blackboard.keys().map(String::as_str)),
            ),
            BtProblem::UnknownBehavior(b) => {
                let hint = closest_name(
                    b,
                    files
                        .values()
                        .flat_map(|f| f.def.behaviors.iter().filter_map(|b| b.common().name)),
                );
                if hint.is_empty() {
                    behaviors_known(&self.file, files)
                } else {
                    hint
                }
            }
            _ => String::new(),
        }
    }

    /// The error with its hint, then the line of its file it points at
    /// with a caret (the form `wyrd check` and the game's log show).
    ///
    /// ```
    /// use wyrd_bt::{Vocabulary, compile_all, load_tree_files};
    /// let text = r#"(
    ///     blackboard: {"health": 10},
    ///     root: Condition(check: Bb("helth", Lt, 3)),
    /// )"#;
    /// let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
    /// let errors = compile_all("t.bt.ron", &files, &Vocabulary::permissive()).unwrap_err();
    /// let shown = errors[0].explain(&files);
    /// assert!(shown.starts_with("t.bt.ron:3:"), "{shown}");
    /// assert!(shown.contains("unknown blackboard key \"helth\""), "{shown}");
    /// assert!(shown.contains("did you mean \"health\"?"), "{shown}");
    /// assert!(shown.contains("^"), "{shown}");
    /// ```
    pub fn explain(&self, files: &HashMap<String, ParsedFile>) -> String {
        with_caret(
            &format!("{self}{}", self.hint(files)),
            files.get(&self.file).map(|f| f.text.as_str()),
            self.line,
            self.column,
        )
    }
}

/// A message followed by the source line it points at and a caret under
/// the column, the way rustc shows errors:
///
/// ```text
/// assets/a.bt.ron:3:20: unknown kind "Sequnce"
///   |
/// 3 |     children: [Sequnce(children: [])],
///   |                ^
/// ```
///
/// Without the text or the line, the message stands alone. Columns count
/// characters (as editors do); the caret keeps the line's tabs so that it
/// lines up.
pub fn with_caret(message: &str, text: Option<&str>, line: usize, column: usize) -> String {
    let Some(src) = text.and_then(|t| t.lines().nth(line.checked_sub(1)?)) else {
        return message.to_owned();
    };
    let number = line.to_string();
    let pad = " ".repeat(number.len());
    // Columns count characters (as editors and ron do).
    let at = src
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(src.len(), |(i, _)| i);
    let before = &src[..at];
    // A long line is shown around the column (a generated file's one line
    // of megabytes would be printed whole), and control characters as `?`
    // (a file of garbage would reach the terminal).
    let (before, after) = (before.chars().count(), src.chars().count());
    let (from, to) = if after <= LONG_LINE {
        (0, after)
    } else {
        (
            before.saturating_sub(SHOWN_AROUND),
            (before + SHOWN_AROUND).min(after),
        )
    };
    let shown = |c: char| if c.is_control() && c != '\t' { '?' } else { c };
    let mut line_text: String = src.chars().skip(from).take(to - from).map(shown).collect();
    let mut lead: String = src
        .chars()
        .skip(from)
        .take(before - from)
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    if from > 0 {
        line_text.insert(0, '\u{2026}');
        lead.insert(0, ' ');
    }
    if to < after {
        line_text.push('\u{2026}');
    }
    format!("{message}\n{pad} |\n{number} | {line_text}\n{pad} | {lead}^")
}

/// Characters of a long source line shown before and after an error's
/// column.
const SHOWN_AROUND: usize = 80;

/// A line longer than this (in characters) is shown around the column.
const LONG_LINE: usize = 240;

/// What is wrong with a tree file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BtProblem {
    /// A bracket opened and never closed (RON syntax).
    #[error(
        "expected \"{close}\" to close the {what} opened at {line}:{column}{}",
        found.map_or_else(|| ", found the end of the file".to_owned(), |c| format!(", found \"{c}\""))
    )]
    Unclosed {
        /// The closer it needs.
        close: char,
        /// `list`, `map` or `parentheses`.
        what: &'static str,
        /// Where it opened: 1-based line.
        line: usize,
        /// Where it opened: 1-based column.
        column: usize,
        /// The closer found instead (`None`: the end of the file).
        found: Option<char>,
    },
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
    #[error("unknown node kind {found:?}{hint} (known: {known})")]
    UnknownNodeKind {
        /// What was written.
        found: String,
        /// The kinds that exist.
        known: String,
        /// When `found` is a BehaviorTree.CPP node's name, which kind is
        /// that node here (from the node table); else the kind nearest a
        /// misspelt one (`; did you mean "Sequence"?`); empty otherwise.
        hint: String,
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
    #[error(
        "unknown action {name:?}{hint} (known: {known}): register it with app.register_bt_action({name:?}) or app.add_bt_action::<T>()"
    )]
    UnknownAction {
        /// What was written.
        name: String,
        /// `; did you mean "Shoot"?` for a registered action near it, else
        /// empty.
        hint: String,
        /// The registered actions.
        known: String,
    },
    /// Two action names of one tree with the same 32-bit [`ActionId`](crate::ActionId).
    #[error(
        "actions {name:?} and {other:?} have the same ActionId (a 32-bit hash of the name): rename one"
    )]
    ActionIdClash {
        /// The action.
        name: String,
        /// The action already in the tree with that id.
        other: String,
    },
    /// A parameter the action's schema does not have.
    // With the nearest parameter (`; did you mean "speed"?`), from the
    // list: a field of its own made every compile error too large.
    #[error(
        "{action} has no parameter {name:?}{} (its parameters: {known})",
        closest_name(name, known.split(", "))
    )]
    UnknownActionParam {
        /// The action.
        action: String,
        /// What was written.
        name: String,
        /// The schema's parameters.
        known: String,
    },
    /// A parameter the action needs, missing.
    #[error("{action} needs parameter {name:?} ({}{})", crate::value::with_article(ty.name()), if *output { ", an output: give a \"{key}\"" } else { "" })]
    MissingActionParam {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
        /// Its type.
        ty: crate::value::ValueType,
        /// Whether it is an output port.
        output: bool,
    },
    /// A parameter of the wrong type (or a constant for an output).
    #[error("parameter {name:?} of {action} is {}, given {}{}", crate::value::with_article(expected.name()), crate::value::with_article(found.name()), if *output { " constant: an output needs a \"{key}\"" } else { "" })]
    ActionParamType {
        /// The action.
        action: String,
        /// The parameter.
        name: String,
        /// Its type.
        expected: crate::value::ValueType,
        /// What was given.
        found: crate::value::ValueType,
        /// A constant was given for an output.
        output: bool,
    },
    /// A binding for a parameter the behavior does not declare.
    #[error("behavior {behavior} has no parameter {name:?} (its parameters: {known})")]
    UnknownParameter {
        /// The behavior.
        behavior: String,
        /// What was written.
        name: String,
        /// Its declared parameters.
        known: String,
    },
    /// A parameter without default and without binding.
    #[error("behavior {behavior} needs parameter {name:?} ({}): bind it with `with: {{{name:?}: ...}}`", crate::value::with_article(ty.name()))]
    MissingBinding {
        /// The behavior.
        behavior: String,
        /// The parameter.
        name: String,
        /// Its type.
        ty: crate::value::ValueType,
    },
    /// A binding of the wrong type.
    #[error("parameter {name:?} of behavior {behavior} is {}, bound to {}", crate::value::with_article(expected.name()), crate::value::with_article(found.name()))]
    BindingType {
        /// The behavior.
        behavior: String,
        /// The parameter.
        name: String,
        /// Its declared type.
        expected: crate::value::ValueType,
        /// The binding's type.
        found: crate::value::ValueType,
    },
    /// A declaration (a key's default, a parameter's) that refers to a key.
    #[error("{0:?} is declared here: give it a default value or a type, not a \"{{key}}\"")]
    RefAsDeclaration(String),
    /// A type where a value is needed.
    #[error("{what} needs a value or a \"{{key}}\", not the type {ty}")]
    TypeNotValue {
        /// The place.
        what: String,
        /// The type written.
        ty: crate::value::ValueType,
    },
    /// `parameters` on a node that is not a named behavior.
    #[error("only a named behavior (under `behaviors`) takes `parameters`")]
    ParametersOnNode,
    /// A redirect impulse given bindings.
    #[error(
        "a redirect runs {0} where it is placed, with that place's bindings: `with` is for in-place impulses"
    )]
    RedirectWith(String),
    /// An ordering operator on values that only compare equal or not.
    #[error("{key} is {}: compare it with Eq or Ne, not {op:?}", crate::value::with_article(ty.name()))]
    Unordered {
        /// The key or parameter.
        key: String,
        /// Its type.
        ty: crate::value::ValueType,
        /// The operator.
        op: crate::value::Op,
    },
    /// A predicate no system registered.
    #[error(
        "unknown predicate {name:?}{hint} (known: {known}): register it with app.register_bt_predicate({name:?}, ..)"
    )]
    UnknownPredicate {
        /// What was written.
        name: String,
        /// `; did you mean "can_see"?` for a registered predicate near it,
        /// else empty.
        hint: String,
        /// The registered predicates.
        known: String,
    },
    /// A predicate's call does not fit the arguments it was registered
    /// with ([`Vocabulary::add_predicate_args`](crate::Vocabulary::add_predicate_args)).
    #[error("predicate {predicate:?}: {problem}")]
    PredicateArgument {
        /// The predicate.
        predicate: String,
        /// What does not fit, in words.
        problem: String,
    },
    /// A world action given a key for a value: it writes the file's
    /// constants (a `"{key}"` did nothing, silently).
    #[error(
        "{action} writes the values written here: {name:?} is given a key (a world action's values are constants)"
    )]
    WorldActionKey {
        /// The action.
        action: String,
        /// The flag or counter.
        name: String,
    },
    /// A custom node's parameters do not fit what it declares
    /// ([`CustomNode::params`](crate::CustomNode::params)), or one is a
    /// `"{key}"` (its parameters are constants).
    #[error("{problem}")]
    CustomParam {
        /// The custom node's kind.
        kind: String,
        /// What does not fit, in words.
        problem: String,
    },
    /// A custom node kind no system registered.
    #[error(
        "unknown custom node kind {kind:?}{hint} (known: {known}): register it with app.register_bt_node({kind:?}, ..)"
    )]
    UnknownCustom {
        /// What was written.
        kind: String,
        /// `; did you mean "Majority"?` for a registered kind near it, else
        /// empty.
        hint: String,
        /// The registered custom kinds.
        known: String,
    },
    /// A blackboard key the file does not declare.
    #[error("unknown blackboard key {0:?} (declare it under `blackboard`)")]
    UnknownKey(String),
    /// A `SetBlackboard` / `UnsetBlackboard` names a parameter of its
    /// behavior as a key: a parameter is written through as `"{name}"`
    /// (BT.CPP's port remapping).
    #[error(
        "{0:?} is a parameter of this behavior, not a blackboard key: write \"{{{0}}}\" to write the key it is bound to"
    )]
    ParameterAsKey(String),
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
    /// A `SetBlackboard` value of another type than its key's.
    #[error(
        "blackboard key {key:?} is {}; SetBlackboard cannot write {} to it",
        crate::value::with_article(expected),
        crate::value::with_article(found)
    )]
    WriteType {
        /// The key.
        key: String,
        /// Its declared type.
        expected: &'static str,
        /// The written value's type.
        found: &'static str,
    },
    /// An `AddBlackboard` on a key that is not a number, or adding a value
    /// of another type than the key's.
    #[error("{}", add_type_text(key, declared, found))]
    AddType {
        /// The key.
        key: String,
        /// Its declared type.
        declared: &'static str,
        /// The added value's type.
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
    /// The tree nests deeper than the compiler follows.
    #[error(
        "the tree nests more than {0} levels deep here, counting behaviors placed in behaviors: a `Use` chain that long is likely a mistake"
    )]
    TooDeep(usize),
    /// The tree lays out more nodes than the compiler takes.
    #[error(
        "the tree lays out more than {0} nodes here (every `Use` places a copy of its behavior): behaviors placed in each other repeatedly multiply"
    )]
    TooLarge(usize),
    /// A node name that cannot be a segment of a path.
    #[error(
        "node name {0:?}: a name is one segment of the node's path (`root/fight/aim`), not empty, without `/`, not starting with `~`"
    )]
    BadNodeName(String),
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
    /// A `Utility` number (margin, weight, curve parameter) that is not a
    /// finite number in its range.
    #[error("{what} {value} must be a finite number{range}")]
    BadNumber {
        /// What the number is (`margin`, `score weight`, ...).
        what: &'static str,
        /// Its value.
        value: f32,
        /// Its range as text (` >= 0`, or empty).
        range: &'static str,
    },
    /// A consideration's range that maps nothing.
    #[error(
        "consideration range ({lo}, {hi}) needs two different finite numbers: the input values mapped to 0 and to 1"
    )]
    ScoreRange {
        /// The value mapped to 0.
        lo: f32,
        /// The value mapped to 1.
        hi: f32,
    },
    /// A consideration reading a value that is not a number.
    #[error(
        "consideration input {key:?} is {found}: a consideration reads a number (int, float) or a bool"
    )]
    ScoreInputType {
        /// The key or parameter.
        key: String,
        /// Its type.
        found: &'static str,
    },
    /// A `score` on a node whose parent is not a `Utility`.
    #[error("`score` only counts on a child of a Utility (this node's parent is {0})")]
    ScoreOutsideUtility(String),
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

/// [`BtProblem::AddType`]'s text: the key is not a number, or the amount
/// is not of its type.
fn add_type_text(key: &str, declared: &str, found: &str) -> String {
    if matches!(declared, "int" | "float") {
        format!(
            "blackboard key {key:?} is {}; AddBlackboard cannot add {} to it",
            crate::value::with_article(declared),
            crate::value::with_article(found)
        )
    } else {
        format!(
            "blackboard key {key:?} is {}; AddBlackboard adds to int and float keys only",
            crate::value::with_article(declared)
        )
    }
}

/// The longest name [`closest_name`] looks for a near miss of.
const MAX_HINTED_NAME: usize = 128;

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

/// For a node kind written with its BehaviorTree.CPP name (`Inverter`,
/// `AlwaysSuccess`, `Sleep`), which kind it is here, as the node table's
/// BT.CPP column says; else the kind nearest a misspelt one (`Sequnce`);
/// empty when neither.
pub(super) fn bt_cpp_hint(found: &str) -> String {
    // The file-only forms, which the node table (compiled kinds) lacks.
    const FILE_FORMS: [(&str, &str); 2] = [("SubTree", "Use"), ("SubTreePlus", "Use")];
    if let Some((_, here)) = FILE_FORMS.iter().find(|(theirs, _)| *theirs == found) {
        return format!("; BehaviorTree.CPP's {found} is `{here}` here");
    }
    let kinds: Vec<&str> = crate::kind::kinds()
        .filter(|k| bt_cpp_words(k.bt_cpp).any(|word| word == found))
        .map(|k| k.name)
        .collect();
    match kinds.as_slice() {
        [] => closest_name(found, crate::def::NodeDef::KINDS.iter().copied()),
        kinds => format!(
            "; BehaviorTree.CPP's {found} is {} here",
            kinds
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    }
}

/// The names in a node table's BT.CPP column.
fn bt_cpp_words(column: &str) -> impl Iterator<Item = &str> {
    column.split([' ', '(', ')', '/', ',', ';', ':'])
}

/// For a field a node kind does not have that is a BehaviorTree.CPP port
/// of its equivalent (`num_cycles` of `Repeat`), the field it is here, as
/// the node table's BT.CPP column says (`Repeat (num_cycles: count)`).
pub(super) fn bt_cpp_field_hint(kind: &str, found: &str) -> String {
    let Some(info) = crate::kind::kinds().find(|k| k.name == kind) else {
        return String::new();
    };
    let pairs = info
        .bt_cpp
        .split(['(', ')', '/', ';'])
        .filter_map(|part| part.split_once(':'))
        .map(|(theirs, here)| (theirs.trim(), here.trim()));
    pairs
        .filter(|(theirs, _)| *theirs == found)
        .map(|(_, here)| format!("; BehaviorTree.CPP's {found} is `{here}` here"))
        .next()
        .unwrap_or_default()
}

/// `"; did you mean X?"` for the known name nearest a misspelt one (at
/// most two edits, or a quarter of its length), else nothing: what the
/// compiler, the breakpoints and `wyrd check` add to a name they do not
/// know.
///
/// ```
/// let hint = wyrd_bt::closest_name("Sequnce", ["Sequence", "Selector"].into_iter());
/// assert_eq!(hint, "; did you mean \"Sequence\"?");
/// assert_eq!(wyrd_bt::closest_name("Dance", ["Sequence"].into_iter()), "");
/// ```
pub fn closest_name<'a>(name: &str, known: impl Iterator<Item = &'a str>) -> String {
    fn distance(a: &str, b: &str) -> usize {
        let b: Vec<char> = b.chars().collect();
        let mut row: Vec<usize> = (0..=b.len()).collect();
        for (i, ca) in a.chars().enumerate() {
            let mut diagonal = row[0];
            row[0] = i + 1;
            for (j, cb) in b.iter().enumerate() {
                let above = row[j + 1];
                row[j + 1] = (diagonal + usize::from(ca != *cb))
                    .min(row[j] + 1)
                    .min(above + 1);
                diagonal = above;
            }
        }
        row[b.len()]
    }
    // A long name is no typo of a short one, and the distance costs the
    // product of the lengths per name known: a 100,000-character name
    // sent over the remote protocol froze the game for minutes.
    let length = name.chars().count();
    if length > MAX_HINTED_NAME {
        return String::new();
    }
    let limit = (length / 4).max(2);
    known
        .filter(|k| *k != name && k.chars().count().abs_diff(length) <= limit)
        .map(|k| (distance(name, k), k))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map_or_else(String::new, |(_, k)| format!("; did you mean {k:?}?"))
}

/// The hint and the sorted list (`none` for none) of the registered names
/// a misspelt `name` is reported against.
pub(super) fn registered_near<'a>(
    name: &str,
    registered: impl Iterator<Item = &'a String>,
) -> (String, String) {
    let mut known: Vec<&str> = registered.map(String::as_str).collect();
    known.sort_unstable();
    let hint = closest_name(name, known.iter().copied());
    let known = if known.is_empty() {
        "none".to_owned()
    } else {
        known.join(", ")
    };
    (hint, known)
}

/// Node kinds as written in files, for error messages: every compiled kind
/// plus the file-only forms.
pub(super) fn known_kinds() -> String {
    // Every name of the file format (one list, `def.rs`), and the alias.
    let mut names = crate::def::NodeDef::KINDS.to_vec();
    names.push("Fallback");
    names.join(", ")
}

/// The behaviors `file` and the files it uses declare, for an unknown
/// behavior without a near name (` (behaviors: flee in common.bt.ron,
/// patrol)`).
fn behaviors_known(file: &str, files: &HashMap<String, ParsedFile>) -> String {
    let mut paths: Vec<&String> = files.keys().collect();
    paths.sort_unstable();
    let named: Vec<String> = paths
        .into_iter()
        .flat_map(|path| {
            let names = files[path]
                .def
                .behaviors
                .iter()
                .filter_map(|b| b.common().name);
            names.map(move |n| {
                if path == file {
                    n.to_owned()
                } else {
                    format!("{n} in {path}")
                }
            })
        })
        .collect();
    if named.is_empty() {
        " (no behaviors are declared)".to_owned()
    } else {
        format!(" (behaviors: {})", named.join(", "))
    }
}

pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset.min(text.len())).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    // In characters, as editors and ron count (a line with an accent
    // before the error put editors in the wrong place).
    let column = before[before.rfind('\n').map_or(0, |nl| nl + 1)..]
        .chars()
        .count()
        + 1;
    (line, column)
}

impl Compiler<'_> {
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
        self.err_offset(file, at, problem)
    }

    /// An error at a byte offset of a file's text.
    fn err_offset(&self, file: &str, at: usize, problem: BtProblem) -> BtError {
        let (line, column) = line_col(self.text(file), at);
        BtError {
            file: file.to_owned(),
            line,
            column,
            problem,
        }
    }

    /// An error at the first `"needle"` after the first `"anchor"` (a
    /// binding of a `Use` named `anchor`), else at the needle.
    pub(crate) fn err_after(
        &self,
        file: &str,
        anchor: Option<&str>,
        needle: &str,
        problem: BtProblem,
    ) -> BtError {
        let text = self.text(file);
        let found = anchor
            .and_then(|a| text.find(&format!("\"{a}\"")))
            .and_then(|start| {
                text[start..]
                    .find(&format!("\"{needle}\""))
                    .map(|i| start + i + 1)
            });
        match found {
            Some(at) => self.err_offset(file, at, problem),
            None => self.err_at(file, needle, problem),
        }
    }

    pub(crate) fn err_at(&self, file: &str, needle: &str, problem: BtProblem) -> BtError {
        match self.find_in_node(file, &format!("\"{needle}\"")) {
            Some(at) => self.err_offset(file, at + 1, problem),
            None => self.err_nth(file, needle, 0, problem),
        }
    }

    /// Error at a `behavior: "name"` reference (falls back to the name).
    pub(crate) fn err_ref(&self, file: &str, behavior: &str, problem: BtProblem) -> BtError {
        let reference = format!("behavior: \"{behavior}\"");
        match self
            .find_in_node(file, &reference)
            .or_else(|| self.text(file).find(&reference))
        {
            Some(at) => self.err_offset(file, at, problem),
            None => self.err_at(file, behavior, problem),
        }
    }

    /// Where `pattern` is first written from the start of the node being
    /// compiled on, if that node is in `file`: the same text may be
    /// written in an earlier node too (one typo made twice), and the
    /// error is this node's.
    fn find_in_node(&self, file: &str, pattern: &str) -> Option<usize> {
        let span = self.spans.get(&self.cur.get()).filter(|s| s.file == file)?;
        let text = self.text(file);
        Some(span.start + text.get(span.start..)?.find(pattern)?)
    }

    pub(crate) fn err_kind(&self, file: &str, kind: &str, problem: BtProblem) -> BtError {
        let at = self.text(file).find(&format!("{kind}(")).unwrap_or(0);
        self.err_offset(file, at, problem)
    }

    /// Error located at a node: where the parser saw it, else its name,
    /// else its kind.
    pub(crate) fn err_node(&self, file: &str, def: &NodeDef, problem: BtProblem) -> BtError {
        if let Some(span) = self
            .spans
            .get(&super::spans::node_id(def))
            .filter(|s| s.file == file)
        {
            return self.err_offset(file, span.start, problem);
        }
        match def.common().name {
            Some(n) => self.err_at(file, n, problem),
            None => self.err_kind(file, def.kind_name(), problem),
        }
    }

    /// Sets the node being compiled (its errors point into it); returns
    /// the one before, for [`leave_node`](Self::leave_node). A node the
    /// outline does not know (built by the compiler) keeps its parent's.
    pub(crate) fn enter_node(&self, def: &NodeDef) -> usize {
        let id = super::spans::node_id(def);
        let prev = self.cur.get();
        if self.spans.contains_key(&id) {
            self.cur.set(id);
        }
        prev
    }

    /// Back to the node before [`enter_node`](Self::enter_node).
    pub(crate) fn leave_node(&self, prev: usize) {
        self.cur.set(prev);
    }

    /// Where a part of the node being compiled is (`""`: the node itself;
    /// `"action"`, `"params/speed"`, `"with/target:key"`: see
    /// `spans::NodeSpan::parts`), when it is in `file`.
    fn part_at(&self, file: &str, part: &str) -> Option<usize> {
        let span = self.spans.get(&self.cur.get()).filter(|s| s.file == file)?;
        if part.is_empty() {
            Some(span.start)
        } else {
            span.part(part)
        }
    }

    /// An error at a part of the node being compiled, as the parser placed
    /// it; the problem back when the part is not known.
    pub(crate) fn try_part(
        &self,
        file: &str,
        part: &str,
        problem: BtProblem,
    ) -> Result<BtError, BtProblem> {
        match self.part_at(file, part) {
            Some(at) => Ok(self.err_offset(file, at, problem)),
            None => Err(problem),
        }
    }

    /// An error at a part of the node being compiled, as the parser placed
    /// it; else (a node built by the compiler) at the first `"needle"`.
    pub(crate) fn err_part(
        &self,
        file: &str,
        part: &str,
        needle: &str,
        problem: BtProblem,
    ) -> BtError {
        match self.part_at(file, part) {
            Some(at) => self.err_offset(file, at, problem),
            None => self.err_at(file, needle, problem),
        }
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
                    // A custom node by the kind the game registered.
                    kind: match def {
                        NodeDef::Custom(d) => format!("Custom {}", d.kind),
                        _ => def.kind_name().into(),
                    },
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
            Some(at) => self.err_offset(file, at, problem),
            None => self.err_at(file, k, problem),
        }
    }
}

#[cfg(test)]
mod caret_tests {
    use super::*;

    /// The form the CLI and the game's log show: the message, the line, a
    /// caret under the column (tabs kept so it lines up).
    #[test]
    fn an_error_shows_its_line_and_a_caret() {
        let e = BtError {
            file: "a.bt.ron".into(),
            line: 2,
            column: 4,
            problem: BtProblem::Syntax("here".into()),
        };
        assert_eq!(
            e.with_source("(\n\tx: Oops,\n)"),
            "a.bt.ron:2:4: here\n  |\n2 | \tx: Oops,\n  | \t  ^"
        );
        assert_eq!(e.with_source("one line"), "a.bt.ron:2:4: here");
    }
}
