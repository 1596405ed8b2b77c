//! Values, references and bindings: `"{key}"` references resolved to key
//! indices at compile time, behaviors' parameters bound by
//! `Use(..., with: {...})`, actions' parameters checked against the schema
//! their game registered.

use std::collections::{BTreeMap, HashMap};

use super::{BtError, BtProblem, Compiler};
use crate::program::Param;
use crate::registry::ParamSpec;
use crate::value::{ValueDef, ValueType};

/// The parameters of the behavior being emitted, as bound at its place.
pub(crate) type Scope = HashMap<String, Param>;

/// Where a behavior is placed: the file and name of the `Use` (for error
/// positions) and the behavior placed.
pub(crate) struct Placement<'a> {
    /// The file of the `Use`.
    pub(crate) file: &'a str,
    /// The `Use`'s name, when it has one.
    pub(crate) place: Option<&'a str>,
    /// The file the behavior is declared in.
    pub(crate) target_file: &'a str,
    /// The behavior.
    pub(crate) behavior: &'a str,
}

/// How named values miss the schema they are checked against (a
/// predicate's arguments, a custom node's parameters): a name it lacks,
/// one it needs (no default) not given, or one of another type.
pub(super) enum Misfit<'s> {
    /// A name the schema lacks, with `; did you mean ..?` or nothing.
    Unknown { name: &'s str, hint: String },
    /// A required one not given.
    Missing(&'s ParamSpec),
    /// One of another type than the schema's.
    Type {
        spec: &'s ParamSpec,
        given: ValueType,
    },
}

/// The first way `given` misses `schema` (names it lacks, in the order
/// given; then, in the schema's order, required ones left out and ones
/// of another type), if any.
pub(super) fn misfit<'s>(
    schema: &'s [ParamSpec],
    given: &'s [(Box<str>, Param)],
) -> Option<Misfit<'s>> {
    if let Some((name, _)) = given
        .iter()
        .find(|(k, _)| !schema.iter().any(|s| s.name == &**k))
    {
        let hint = super::errors::closest_name(name, schema.iter().map(|s| s.name));
        return Some(Misfit::Unknown { name, hint });
    }
    schema
        .iter()
        .find_map(|spec| match given.iter().find(|(k, _)| &**k == spec.name) {
            None => spec.default.is_none().then_some(Misfit::Missing(spec)),
            Some((_, p)) => {
                let fits = match p {
                    Param::Const(v) => spec.ty.fit(*v).is_some(),
                    Param::Key { ty, .. } => spec.ty.accepts_type(*ty),
                };
                (!fits).then(|| Misfit::Type {
                    spec,
                    given: p.value_type(),
                })
            }
        })
}

/// A schema as its errors list it: `key (String), scale (float)`.
pub(super) fn schema_list(schema: &[ParamSpec]) -> String {
    schema
        .iter()
        .map(|s| format!("{} ({})", s.name, s.ty.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

fn names<'a>(it: impl Iterator<Item = &'a str>) -> String {
    let v: Vec<&str> = it.collect();
    if v.is_empty() {
        "none".into()
    } else {
        v.join(", ")
    }
}

impl Compiler<'_> {
    /// A `"{name}"` reference: the innermost behavior's parameter of that
    /// name, else the blackboard key.
    pub(crate) fn resolve_ref(&self, file: &str, name: &str) -> Result<Param, BtError> {
        if let Some(p) = self.scopes.last().and_then(|s| s.get(name)) {
            return Ok(*p);
        }
        let key = self
            .p
            .bb_keys
            .iter()
            .position(|x| x == name)
            .ok_or_else(|| {
                self.err_at(
                    file,
                    &format!("{{{name}}}"),
                    BtProblem::UnknownKey(name.to_owned()),
                )
            })? as u16;
        Ok(Param::Key {
            key,
            ty: self.p.bb_types[key as usize],
        })
    }

    /// A value where a constant or a reference may stand (`what` names the
    /// place for messages).
    pub(crate) fn param(&self, file: &str, v: &ValueDef, what: &str) -> Result<Param, BtError> {
        match v {
            ValueDef::Value(v) => Ok(Param::Const(*v)),
            ValueDef::Ref(k) => self.resolve_ref(file, k),
            ValueDef::Type(t) => Err(self.err_at(
                file,
                t.name(),
                BtProblem::TypeNotValue {
                    what: what.to_owned(),
                    ty: *t,
                },
            )),
        }
    }

    /// A condition's key operand: a key's name, or `"{name}"` (a
    /// behavior's parameter, or a key).
    pub(crate) fn key_operand(&self, file: &str, k: &str) -> Result<Param, BtError> {
        match k.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(r) => self.resolve_ref(file, r),
            None => {
                let key = self.key_index(file, k)?;
                Ok(Param::Key {
                    key,
                    ty: self.p.bb_types[key as usize],
                })
            }
        }
    }

    /// The parameters of `behavior` (declared in `declared`, in
    /// `target_file`) bound at a place in `file` by `with`. Bindings
    /// resolve in the caller's scope. Placed as a stimulus (`detached`), a
    /// parameter without default binds to the key of its name. `place` is
    /// the name of the `Use` (for error positions).
    pub(crate) fn bind(
        &self,
        at: &Placement<'_>,
        declared: &BTreeMap<String, ValueDef>,
        with: &BTreeMap<String, ValueDef>,
        detached: bool,
    ) -> Result<Scope, BtError> {
        let &Placement {
            file,
            place,
            target_file,
            behavior,
        } = at;
        for name in with.keys() {
            if !declared.contains_key(name) {
                return Err(self.err_after(
                    file,
                    place.or(Some(behavior)),
                    name,
                    BtProblem::UnknownParameter {
                        behavior: behavior.to_owned(),
                        name: name.clone(),
                        known: names(declared.keys().map(String::as_str)),
                    },
                ));
            }
        }
        let mut scope = Scope::new();
        for (name, decl) in declared {
            let (ty, default) = match decl {
                ValueDef::Value(v) => (v.value_type(), Some(*v)),
                ValueDef::Type(t) => (*t, None),
                ValueDef::Ref(r) => {
                    return Err(self.err_at(
                        target_file,
                        &format!("{{{r}}}"),
                        BtProblem::RefAsDeclaration(name.clone()),
                    ));
                }
            };
            let bound = match (with.get(name), default) {
                (Some(v), _) => {
                    self.param(file, v, &format!("parameter {name:?} of {behavior}"))?
                }
                (None, Some(v)) => Param::Const(v),
                (None, None) if detached => self.key_operand(target_file, name)?,
                (None, None) => {
                    let problem = BtProblem::MissingBinding {
                        behavior: behavior.to_owned(),
                        name: name.clone(),
                        ty,
                    };
                    // At the `with` of the place it is used (where the
                    // binding belongs), else at the place itself.
                    return Err(self
                        .try_part(file, "with:key", problem)
                        .or_else(|p| self.try_part(file, "", p))
                        .unwrap_or_else(|p| match place {
                            Some(n) => self.err_at(file, n, p),
                            None => self.err_ref(file, behavior, p),
                        }));
                }
            };
            // Numbers bind to number parameters as written (a behavior's
            // `"speed": 1` takes 1.5, as it always did): where the value
            // goes (a key, an action's field) holds it or refuses it.
            if !ty.accepts_type(bound.value_type()) {
                let problem = BtProblem::BindingType {
                    behavior: behavior.to_owned(),
                    name: name.clone(),
                    expected: ty,
                    found: bound.value_type(),
                };
                return Err(self
                    .try_part(file, &format!("with/{name}:key"), problem)
                    .unwrap_or_else(|p| self.err_after(file, place.or(Some(behavior)), name, p)));
            }
            scope.insert(name.clone(), bound);
        }
        Ok(scope)
    }

    /// An action's parameters: with a registered schema, checked against it
    /// and laid out in its order (defaults filled in); without one, in file
    /// order.
    pub(crate) fn action_params(
        &self,
        file: &str,
        action: &str,
        given: &BTreeMap<String, ValueDef>,
        schema: Option<&[ParamSpec]>,
    ) -> Result<Vec<(Box<str>, Param)>, BtError> {
        let what = |name: &str| format!("parameter {name:?} of {action}");
        let Some(schema) = schema else {
            return given
                .iter()
                .map(|(k, v)| Ok((k.as_str().into(), self.param(file, v, &what(k))?)))
                .collect();
        };
        for name in given.keys() {
            if !schema.iter().any(|s| s.name == name) {
                return Err(self.err_part(
                    file,
                    &format!("params/{name}:key"),
                    name,
                    BtProblem::UnknownActionParam {
                        action: action.to_owned(),
                        name: name.clone(),
                        known: names(schema.iter().map(|s| s.name)),
                    },
                ));
            }
        }
        let mut out = Vec::with_capacity(schema.len());
        for spec in schema {
            let p = match (given.get(spec.name), spec.default) {
                (Some(v), _) => self.param(file, v, &what(spec.name))?,
                (None, Some(v)) if !spec.output => Param::Const(v),
                (None, _) => {
                    return Err(self.err_part(
                        file,
                        "action",
                        action,
                        BtProblem::MissingActionParam {
                            action: action.to_owned(),
                            name: spec.name.to_owned(),
                            ty: spec.ty,
                            output: spec.output,
                        },
                    ));
                }
            };
            // A constant is kept in the parameter's type when it fits it
            // (`3` for a float, `2.0` for an int); `2.5` for an int does
            // not load (ValueType::fit).
            let p = match p {
                Param::Const(v) if !spec.output => {
                    spec.ty.fit(v).map_or(Param::Const(v), Param::Const)
                }
                p => p,
            };
            let fits = if spec.output {
                // The key is written, so the result must fit it: an int
                // result fits an int or a float key, a float result only a
                // float key (an int key would truncate it).
                matches!(p, Param::Key { ty, .. } if ty == spec.ty || (spec.ty == ValueType::Int && ty == ValueType::Float))
            } else {
                match p {
                    Param::Const(v) => spec.ty.fit(v).is_some(),
                    Param::Key { ty, .. } => spec.ty.accepts_type(ty),
                }
            };
            if !fits {
                return Err(self.err_part(
                    file,
                    &format!("params/{}:key", spec.name),
                    spec.name,
                    BtProblem::ActionParamType {
                        action: action.to_owned(),
                        name: spec.name.to_owned(),
                        expected: spec.ty,
                        found: p.value_type(),
                        output: spec.output && !matches!(p, Param::Key { .. }),
                    },
                ));
            }
            out.push((spec.name.into(), p));
        }
        Ok(out)
    }
}
