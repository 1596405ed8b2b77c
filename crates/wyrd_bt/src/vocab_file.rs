//! The game's vocabulary as a file (the format is documented on
//! [`VocabularyFile`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::custom::{CustomCtx, CustomNode};
use crate::registry::{ParamSpec, Vocabulary};
use crate::status::Status;
use crate::value::{Value, ValueType};

/// The newest vocabulary format version this build reads and writes.
pub const VOCABULARY_VERSION: u32 = 1;

/// The `format` field's value.
pub const VOCABULARY_FORMAT: &str = "wyrd-vocabulary";

/// The game's vocabulary as a file: what an app registered (actions with
/// their parameter schemas, predicates, custom nodes, the flags files that
/// declare its world values), written by the game and read by `wyrd check`,
/// which then checks trees exactly as the game's loader does.
///
/// The format is JSON, versioned by `version` ([`VOCABULARY_VERSION`]):
///
/// ```json
/// {
///   "format": "wyrd-vocabulary",
///   "version": 1,
///   "actions": [
///     { "name": "Chase", "params": [
///         { "name": "target", "type": "Entity" },
///         { "name": "speed", "type": "float", "default": 3.5 },
///         { "name": "found", "type": "Entity", "output": true } ] },
///     { "name": "Wave" }
///   ],
///   "predicates": ["within"],
///   "predicate_args": { "within": [
///       { "name": "of", "type": "Vec3" }, { "name": "meters", "type": "float" } ] },
///   "nodes": [ { "kind": "Majority", "min_children": 1, "max_children": null } ],
///   "world_files": ["guard/world.flags.ron"]
/// }
/// ```
///
/// - `actions`: every registered action; `params` is present for actions
///   declared as types ([`bt_action!`](crate::bt_action)), whose parameters
///   are then checked by name, type and presence. `type` is a
///   [`ValueType`] name (`bool`, `int`, `float`, `Entity`, `Vec2`, `Vec3`,
///   `String`); `default` is the value a tree may leave out (absent:
///   required); `output` marks a port the action writes.
/// - `predicates`: names usable in `Predicate("name")`.
/// - `predicate_args`: the arguments of the predicates registered with
///   theirs ([`Vocabulary::add_predicate_args`]), checked by name and type.
/// - `nodes`: custom nodes (`Custom(kind: ..)`) with the number of
///   children they take, and `params` for those that declare theirs
///   ([`CustomNode::params`]), checked as an action's.
/// - `world_files`: asset paths of the flags files whose flags and counters
///   trees may read with `World(..)`.
/// - `world_actions` (absent when none): actions whose parameters are named
///   by the flags and counters they write (`SetFlagValue`), checked as
///   `World(..)` names are.
///
/// A file of a newer `version` is refused with a message; unknown fields
/// are ignored, so that later minor additions stay readable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VocabularyFile {
    /// Always [`VOCABULARY_FORMAT`].
    pub format: String,
    /// The format version ([`VOCABULARY_VERSION`]).
    pub version: u32,
    /// Registered actions, sorted by name.
    #[serde(default)]
    pub actions: Vec<ActionDecl>,
    /// Registered predicates, sorted.
    #[serde(default)]
    pub predicates: Vec<String>,
    /// The arguments of predicates registered with theirs, by predicate.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub predicate_args: BTreeMap<String, Vec<ParamDecl>>,
    /// Registered custom nodes, sorted by kind.
    #[serde(default)]
    pub nodes: Vec<NodeDecl>,
    /// Flags files (asset paths) declaring the world values trees may read.
    #[serde(default)]
    pub world_files: Vec<String>,
    /// Actions whose parameters are named by world values they write
    /// ([`Vocabulary::world_actions`]), sorted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub world_actions: Vec<String>,
}

/// An action a game registered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActionDecl {
    /// The name trees use.
    pub name: String,
    /// The parameter schema of an action declared as a type; `None` for a
    /// name registered alone (its parameters are not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<ParamDecl>>,
}

/// One parameter of an action's schema.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParamDecl {
    /// Its name in tree files.
    pub name: String,
    /// Its type's name ([`ValueType::name`]).
    #[serde(rename = "type")]
    pub ty: String,
    /// The value when a tree leaves it out (absent: required).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// Whether it is an output port.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub output: bool,
}

/// A custom node kind a game registered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NodeDecl {
    /// The kind trees name (`Custom(kind: "Majority")`).
    pub kind: String,
    /// Fewest children.
    pub min_children: usize,
    /// Most children (`None`: no limit).
    #[serde(default)]
    pub max_children: Option<usize>,
    /// The parameters it declares ([`CustomNode::params`]), checked by
    /// name, type and presence; absent: not declared, any accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<Vec<ParamDecl>>,
}

/// Why a vocabulary file was not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VocabularyError {
    /// Not JSON, or not of this shape.
    #[error("not a vocabulary file at line {line}, column {column}: {message}")]
    Parse {
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// The parser's words.
        message: String,
    },
    /// `format` is not [`VOCABULARY_FORMAT`].
    #[error("not a vocabulary file: \"format\" is {0:?}, expected \"wyrd-vocabulary\"")]
    Format(String),
    /// Written by a newer Wyrd.
    #[error(
        "the vocabulary is format version {found}; this build reads up to {VOCABULARY_VERSION} (update wyrd)"
    )]
    Newer {
        /// The file's version.
        found: u32,
    },
    /// A parameter names a type that does not exist.
    #[error(
        "action {action:?}, parameter {param:?}: unknown type {ty:?} (expected bool, int, float, Entity, Vec2, Vec3 or String)"
    )]
    UnknownType {
        /// The action.
        action: String,
        /// The parameter.
        param: String,
        /// The type named.
        ty: String,
    },
}

/// A custom node known only by its declaration: enough to check trees (its
/// arity), not to run them.
struct DeclaredNode {
    min: usize,
    max: usize,
    params: Option<Vec<ParamSpec>>,
}

impl CustomNode for DeclaredNode {
    fn arity(&self) -> (usize, usize) {
        (self.min, self.max)
    }
    fn params(&self) -> Option<&[ParamSpec]> {
        self.params.as_deref()
    }
    fn tick(&self, _ctx: &mut CustomCtx<'_, '_>) -> Status {
        Status::Failure
    }
}

fn type_from_name(name: &str) -> Option<ValueType> {
    [
        ValueType::Bool,
        ValueType::Int,
        ValueType::Float,
        ValueType::Entity,
        ValueType::Vec2,
        ValueType::Vec3,
        ValueType::Str,
    ]
    .into_iter()
    .find(|t| t.name() == name)
}

/// A schema as the file writes it.
fn decls_of(schema: &[ParamSpec]) -> Vec<ParamDecl> {
    schema
        .iter()
        .map(|p| ParamDecl {
            name: p.name.to_owned(),
            ty: p.ty.name().to_owned(),
            default: p.default,
            output: p.output,
        })
        .collect()
}

/// The schema a file declares for `owner` (an action, `predicate NAME`).
/// Names are leaked to the `'static` names schemas use (a tool reads one
/// vocabulary per run).
fn schema_of(owner: &str, params: &[ParamDecl]) -> Result<Vec<ParamSpec>, VocabularyError> {
    params
        .iter()
        .map(|p| {
            let ty = type_from_name(&p.ty).ok_or_else(|| VocabularyError::UnknownType {
                action: owner.to_owned(),
                param: p.name.clone(),
                ty: p.ty.clone(),
            })?;
            Ok(ParamSpec {
                name: Box::leak(p.name.clone().into_boxed_str()),
                ty,
                default: p.default,
                output: p.output,
            })
        })
        .collect()
}

impl VocabularyFile {
    /// The file of a vocabulary (sorted, so that it diffs well).
    pub fn of(vocabulary: &Vocabulary) -> VocabularyFile {
        let mut actions: Vec<ActionDecl> = vocabulary
            .actions
            .keys()
            .map(|name| ActionDecl {
                name: name.clone(),
                params: vocabulary.schemas.get(name).map(|schema| decls_of(schema)),
            })
            .collect();
        actions.sort_by(|a, b| a.name.cmp(&b.name));
        let mut predicates: Vec<String> = vocabulary.predicates.keys().cloned().collect();
        predicates.sort();
        let predicate_args = vocabulary
            .predicate_args
            .iter()
            .map(|(name, args)| (name.clone(), decls_of(args)))
            .collect();
        let mut nodes: Vec<NodeDecl> = vocabulary
            .customs
            .iter()
            .map(|(kind, node)| {
                let (min, max) = node.arity();
                NodeDecl {
                    kind: kind.clone(),
                    min_children: min,
                    max_children: (max != usize::MAX).then_some(max),
                    params: node.params().map(decls_of),
                }
            })
            .collect();
        nodes.sort_by(|a, b| a.kind.cmp(&b.kind));
        let mut world_files = vocabulary.world_files.clone();
        world_files.sort();
        world_files.dedup();
        let mut world_actions = vocabulary.world_actions.clone();
        world_actions.sort();
        VocabularyFile {
            format: VOCABULARY_FORMAT.to_owned(),
            version: VOCABULARY_VERSION,
            actions,
            predicates,
            predicate_args,
            nodes,
            world_files,
            world_actions,
        }
    }

    /// Pretty JSON, ending with a newline.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// Reads a vocabulary file's text.
    pub fn from_json(text: &str) -> Result<VocabularyFile, VocabularyError> {
        // A byte-order mark is not content (editors count columns without it).
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let file: VocabularyFile =
            serde_json::from_str(text).map_err(|e| VocabularyError::Parse {
                line: e.line(),
                column: e.column(),
                message: e.to_string(),
            })?;
        if file.format != VOCABULARY_FORMAT {
            return Err(VocabularyError::Format(file.format));
        }
        if file.version > VOCABULARY_VERSION {
            return Err(VocabularyError::Newer {
                found: file.version,
            });
        }
        Ok(file)
    }

    /// The vocabulary the file describes: the same names and schemas the
    /// game registered. Predicates always answer `false` and custom nodes
    /// fail: it checks trees, it does not run them. Parameter names are
    /// leaked to get the `'static` names schemas use (a tool reads one
    /// vocabulary per run).
    pub fn to_vocabulary(&self) -> Result<Vocabulary, VocabularyError> {
        let mut v = Vocabulary::default();
        for a in &self.actions {
            let Some(params) = &a.params else {
                v.add_action(&a.name);
                continue;
            };
            let schema = schema_of(&a.name, params)?;
            v.add_action(&a.name);
            v.schemas.insert(a.name.clone(), schema);
        }
        for name in &self.predicates {
            v.add_predicate(name, |_| false);
        }
        for (name, args) in &self.predicate_args {
            let schema = schema_of(&format!("predicate {name}"), args)?;
            v.predicate_args.insert(name.clone(), schema);
        }
        for n in &self.nodes {
            let params = n
                .params
                .as_deref()
                .map(|p| schema_of(&format!("custom node {}", n.kind), p))
                .transpose()?;
            v.customs.insert(
                n.kind.clone(),
                Arc::new(DeclaredNode {
                    min: n.min_children,
                    max: n.max_children.unwrap_or(usize::MAX),
                    params,
                }),
            );
        }
        v.world_files = self.world_files.clone();
        v.world_actions = self.world_actions.clone();
        Ok(v)
    }
}
