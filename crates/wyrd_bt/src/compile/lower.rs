//! Lowering: a file node (`def`) to its compiled kind and payload (the
//! program's tables). The kind's facts (arity, state, skippability, ...)
//! come from its row in `kind.rs`; this file only builds payloads.

use std::sync::Arc;

use super::{BtError, BtProblem, Compiler};
use crate::def::{Check, ImpulseMode, NodeDef, Policy};
use crate::kind::Kind;
use crate::program::ActionId;
use crate::program::{ActionInfo, CustomInfo, ImpulseInfo, NONE};
use crate::value::{Value, ValueType};

/// The key a `SetBlackboard` / `UnsetBlackboard` writes: a declared key,
/// or a behavior parameter bound to one (a constant cannot be written).
fn written_key(c: &Compiler<'_>, file: &str, name: &str) -> Result<u16, BtError> {
    // Not a declared key: said at the node's `key` (the same word may be
    // declared elsewhere in the file), a parameter with its spelling.
    if !name.starts_with('{') && !c.p.bb_keys.iter().any(|k| k == name) {
        let problem = if c.resolve_ref(file, name).is_ok() {
            BtProblem::ParameterAsKey(name.to_owned())
        } else {
            BtProblem::UnknownKey(name.to_owned())
        };
        return Err(c.err_part(file, "key", name, problem));
    }
    match c.key_operand(file, name)? {
        crate::program::Param::Key { key, .. } => Ok(key),
        crate::program::Param::Const(_) => {
            Err(c.err_part(file, "key", name, BtProblem::UnknownKey(name.to_owned())))
        }
    }
}

/// Lowers a file node to its compiled kind (payloads only: arity, state
/// slots and skippability follow from [`Kind::info`]). `in_place` is set to
/// the behavior an in-place impulse runs (the compiler emits it as the
/// impulse's child).
pub(crate) fn lower(
    c: &mut Compiler<'_>,
    def: &NodeDef,
    file: &str,
    idx: u32,
    in_place: &mut Option<crate::compile::InPlace>,
) -> Result<Kind, BtError> {
    let arity = |this: &Compiler<'_>, min: usize, max: usize| this.check_arity(file, def, min, max);
    let policy = |this: &Compiler<'_>, p: Policy| -> Result<u16, BtError> {
        let n = def.children().len();
        match p {
            Policy::All => Ok(0),
            Policy::One => Ok(1),
            Policy::Count(c) if (c as usize) <= n && c > 0 => Ok(c),
            Policy::Count(c) => Err(this.err_node(
                file,
                def,
                BtProblem::BadPolicy {
                    policy: c,
                    children: n,
                },
            )),
        }
    };
    let zero =
        |this: &Compiler<'_>, kind: &'static str, field: &'static str, hint: &'static str| {
            this.err_node(file, def, BtProblem::ZeroCount { kind, field, hint })
        };
    const NEVER_RUNS: &str = "would never run its child (leave the field out to repeat forever)";
    let in_place_impulse = in_place;
    Ok(match def {
        NodeDef::Sequence(_) => Kind::Sequence,
        NodeDef::SequenceWithMemory(_) => Kind::SequenceWithMemory,
        NodeDef::ReactiveSequence(_) => Kind::ReactiveSequence,
        NodeDef::GuardSequence(_) => Kind::GuardSequence,
        NodeDef::Selector(_) => Kind::Selector,
        NodeDef::ReactiveFallback(_) => Kind::ReactiveFallback,
        NodeDef::IfThenElse(_) => Kind::IfThenElse,
        NodeDef::WhileDoElse(_) => Kind::WhileDoElse,
        NodeDef::Switch(d) => {
            let key = match c.key_operand(file, &d.key)? {
                crate::program::Param::Key { key, .. } => key,
                crate::program::Param::Const(_) => {
                    return Err(c.err_key_use(file, &d.key, BtProblem::UnknownKey(d.key.clone())));
                }
            };
            let declared = c.p.bb_types[key as usize];
            for v in &d.cases {
                if !declared.accepts(v) {
                    return Err(c.err_key_use(
                        file,
                        &d.key,
                        BtProblem::KeyType {
                            key: d.key.clone(),
                            expected: declared.name(),
                            found: v.type_name(),
                        },
                    ));
                }
            }
            if d.children.len() != d.cases.len() + 1 {
                return Err(c.err_node(
                    file,
                    def,
                    BtProblem::SwitchArity {
                        cases: d.cases.len(),
                        children: d.children.len(),
                    },
                ));
            }
            let cases = c.p.switch_cases.len() as u32;
            c.p.switch_cases.extend(&d.cases);
            Kind::Switch { key, cases }
        }
        NodeDef::Utility(d) => c.utility(file, def, d)?,
        NodeDef::PrioritizedList(_) => Kind::PrioritizedList,
        NodeDef::Sequential(_) => Kind::Sequential,
        NodeDef::SequentialLooping(_) => Kind::SequentialLooping,
        NodeDef::Ordered(_) => Kind::Ordered,
        NodeDef::Simultaneous(_) => Kind::Simultaneous,
        NodeDef::Parallel(d) => {
            arity(c, 1, usize::MAX)?;
            Kind::Parallel {
                success: policy(c, d.success)?,
                failure: policy(c, d.failure)?,
            }
        }
        NodeDef::ParallelAll(d) => {
            if d.max_failures == 0 {
                let hint = "would fail even when no child fails";
                return Err(zero(c, "ParallelAll", "max_failures", hint));
            }
            Kind::ParallelAll {
                max_failures: d.max_failures,
            }
        }
        NodeDef::Probabilistic(d) => {
            arity(c, 1, usize::MAX)?;
            let weights = if d.weights.is_empty() {
                NONE
            } else {
                if d.weights.len() != d.children.len()
                    || d.weights.iter().any(|w| !w.is_finite() || *w < 0.0)
                {
                    return Err(c.err_node(
                        file,
                        def,
                        BtProblem::BadWeights {
                            weights: d.weights.len(),
                            children: d.children.len(),
                        },
                    ));
                }
                let start = c.p.weights.len() as u32;
                c.p.weights.extend(&d.weights);
                start
            };
            Kind::Probabilistic { weights }
        }
        NodeDef::OneOff(d) => Kind::OneOff { random: d.random },
        NodeDef::SelectOne(d) => Kind::SelectOne { random: d.random },
        NodeDef::Invert(_) => Kind::Invert,
        NodeDef::ForceSuccess(_) => Kind::ForceSuccess,
        NodeDef::ForceFailure(_) => Kind::ForceFailure,
        NodeDef::Repeat(d) => Kind::Repeat {
            count: match d.count {
                Some(0) => return Err(zero(c, "Repeat", "count", NEVER_RUNS)),
                Some(n) => n,
                None => 0,
            },
        },
        NodeDef::RetryUntilSuccessful(d) => Kind::RetryUntilSuccessful {
            attempts: match d.attempts {
                Some(0) => return Err(zero(c, "RetryUntilSuccessful", "attempts", NEVER_RUNS)),
                Some(n) => n,
                None => 0,
            },
        },
        NodeDef::KeepRunningUntilFailure(_) => Kind::KeepRunningUntilFailure,
        NodeDef::RunOnce(d) => Kind::RunOnce {
            then_skip: d.then_skip,
        },
        NodeDef::Delay(d) => Kind::Delay {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Cooldown(d) => Kind::Cooldown {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::MinDuration(d) => Kind::MinDuration {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Timeout(d) => Kind::Timeout {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::Guard(d) => Kind::Guard {
            cond: c.checks(file, &d.when)?,
            skip: d.skip,
        },

        NodeDef::Action(d) => {
            let id = match c.vocab.actions.get(&d.action) {
                Some(id) => *id,
                None if c.vocab.permissive => ActionId::of(&d.action),
                None => {
                    let (hint, known) =
                        super::errors::registered_near(&d.action, c.vocab.actions.keys());
                    return Err(c.err_part(
                        file,
                        "action",
                        &d.action,
                        BtProblem::UnknownAction {
                            name: d.action.clone(),
                            hint,
                            known,
                        },
                    ));
                }
            };
            if let Some(other) =
                c.p.actions
                    .iter()
                    .find(|a| a.id == id && *a.name != *d.action)
            {
                return Err(c.err_at(
                    file,
                    &d.action,
                    BtProblem::ActionIdClash {
                        name: d.action.clone(),
                        other: other.name.to_string(),
                    },
                ));
            }
            let schema = c.vocab.schemas.get(&d.action).map(Vec::as_slice);
            let params = c.action_params(file, &d.action, &d.params, schema)?;
            // The world values it writes, named by its parameters: checked
            // as those a `World(..)` condition reads (the program's
            // globals, reported where they are written when undeclared).
            let writes_world = c.vocab.world_actions.contains(&d.action);
            if writes_world {
                for (name, p) in &params {
                    let crate::program::Param::Const(v) = p else {
                        return Err(c.err_at(
                            file,
                            name,
                            BtProblem::WorldActionKey {
                                action: d.action.clone(),
                                name: name.to_string(),
                            },
                        ));
                    };
                    let slot = c.global_slot(file, name) as usize;
                    let g = &mut c.p.globals[slot];
                    g.written.get_or_insert(*v);
                }
            }
            let name: Arc<str> = Arc::from(d.action.as_str());
            let reads_keys = params
                .iter()
                .any(|(_, p)| matches!(p, crate::program::Param::Key { .. }));
            // The keys the action's inputs read, when its schema tells its
            // inputs from its outputs (in the schema's order).
            let needs: Box<[u16]> = schema.map_or_else(Box::default, |schema| {
                params
                    .iter()
                    .zip(schema)
                    .filter(|(_, spec)| !spec.output)
                    .filter_map(|((_, p), _)| match p {
                        crate::program::Param::Key { key, .. } => Some(*key),
                        crate::program::Param::Const(_) => None,
                    })
                    .collect()
            });
            c.p.actions.push(ActionInfo {
                id,
                name,
                params,
                node: idx,
                reads_keys,
                schema_order: schema.is_some(),
                needs,
                writes_world,
            });
            Kind::Action {
                action: c.p.actions.len() as u32 - 1,
            }
        }
        NodeDef::Condition(d) => Kind::Condition {
            cond: c.check(file, &d.check)?,
        },
        NodeDef::CheckWorldStateFlags(d) => {
            let checks: Vec<Check> = d
                .flags
                .iter()
                .map(|(f, v)| Check::World(f.clone(), crate::value::Op::Eq, Value::Bool(*v)))
                .collect();
            Kind::Condition {
                cond: c.check(file, &Check::All(checks))?,
            }
        }
        NodeDef::CheckWorldStateCounters(d) => {
            let checks: Vec<Check> = d
                .counters
                .iter()
                .map(|(c, op, v)| Check::World(c.clone(), *op, Value::Int(*v)))
                .collect();
            Kind::Condition {
                cond: c.check(file, &Check::All(checks))?,
            }
        }
        NodeDef::Rule(d) => Kind::Rule {
            cond: c.check(file, &d.check)?,
        },
        NodeDef::Threshold(d) if d.count == 0 => {
            let hint = "would succeed without polling its condition once";
            return Err(zero(c, "Threshold", "count", hint));
        }
        NodeDef::Threshold(d) => Kind::Threshold {
            cond: c.check(file, &d.check)?,
            count: d.count,
        },
        NodeDef::Wait(d) => Kind::Wait {
            ms: c.ms(file, def, d.seconds)?,
        },
        NodeDef::SetBlackboard(d) => {
            let key = written_key(c, file, &d.key)?;
            let value = c.param(file, &d.value, &format!("the value written to {}", d.key))?;
            let declared = c.p.bb_types[key as usize];
            // A constant is kept in the key's type; one that does not fit
            // it (2.5 for an int key) does not load.
            let value = match value {
                crate::program::Param::Const(v) => {
                    declared.fit(v).map_or(value, crate::program::Param::Const)
                }
                key_ref => key_ref,
            };
            let fits = match value {
                crate::program::Param::Const(v) => declared.fit(v).is_some(),
                crate::program::Param::Key { ty, .. } => declared.accepts_type(ty),
            };
            if !fits {
                return Err(c.err_part(
                    file,
                    "value",
                    &d.key,
                    BtProblem::WriteType {
                        key: d.key.clone(),
                        expected: declared.name(),
                        found: value.value_type().name(),
                    },
                ));
            }
            c.p.writes.push(crate::program::BbWrite { key, value });
            Kind::SetBlackboard {
                write: c.p.writes.len() as u32 - 1,
            }
        }
        NodeDef::AddBlackboard(d) => {
            let key = written_key(c, file, &d.key)?;
            let by = c.param(file, &d.by, &format!("the amount added to {}", d.key))?;
            let declared = c.p.bb_types[key as usize];
            let number = matches!(declared, ValueType::Int | ValueType::Float);
            // An int key adds ints (a fraction would be lost; a constant
            // 2.0 is 2, as a key takes it); a float key adds either.
            let by = match (declared, by) {
                (ValueType::Int, crate::program::Param::Const(v)) => ValueType::Int
                    .fit(v)
                    .map_or(by, crate::program::Param::Const),
                _ => by,
            };
            let fits = match declared {
                ValueType::Int => by.value_type() == ValueType::Int,
                _ => matches!(by.value_type(), ValueType::Int | ValueType::Float),
            };
            if !number || !fits {
                return Err(c.err_part(
                    file,
                    if number { "by" } else { "key" },
                    &d.key,
                    BtProblem::AddType {
                        key: d.key.clone(),
                        declared: declared.name(),
                        found: by.value_type().name(),
                    },
                ));
            }
            c.p.writes.push(crate::program::BbWrite { key, value: by });
            Kind::AddBlackboard {
                write: c.p.writes.len() as u32 - 1,
            }
        }
        NodeDef::UnsetBlackboard(d) => Kind::UnsetBlackboard {
            key: written_key(c, file, &d.key)?,
        },
        NodeDef::Succeed(_) => Kind::Succeed,
        NodeDef::Fail(_) => Kind::Fail,
        NodeDef::Forever(_) => Kind::Forever,
        NodeDef::Impulse(d) => {
            if c.find_behavior(file, &d.behavior).is_none() {
                return Err(c.err_ref(
                    file,
                    &d.behavior,
                    BtProblem::UnknownBehavior(d.behavior.clone()),
                ));
            }
            let when = c.checks(file, &d.when)?;
            c.p.impulses.push(ImpulseInfo {
                node: idx,
                behavior: d.behavior.clone(),
                when,
                redirect_to: NONE,
            });
            let impulse = c.p.impulses.len() as u32 - 1;
            match d.mode {
                ImpulseMode::InPlace => {
                    *in_place_impulse = Some(crate::compile::InPlace {
                        file: file.to_owned(),
                        behavior: d.behavior.clone(),
                        with: d.with.clone(),
                    });
                }
                ImpulseMode::Redirect if !d.with.is_empty() => {
                    return Err(c.err_ref(
                        file,
                        &d.behavior,
                        BtProblem::RedirectWith(d.behavior.clone()),
                    ));
                }
                ImpulseMode::Redirect => {
                    c.redirects.push(crate::compile::Redirect {
                        impulse,
                        file: file.to_owned(),
                        behavior: d.behavior.clone(),
                        from: file.to_owned(),
                    });
                }
            }
            Kind::Impulse { impulse }
        }
        NodeDef::Custom(d) => {
            let Some(node) = c.vocab.customs.get(&d.kind).cloned() else {
                let (hint, known) = super::errors::registered_near(&d.kind, c.vocab.customs.keys());
                let problem = BtProblem::UnknownCustom {
                    kind: d.kind.clone(),
                    hint,
                    known,
                };
                return Err(c.err_at(file, &d.kind, problem));
            };
            let (min, max) = node.arity();
            arity(c, min, max)?;
            let params = custom_params(c, file, &d.kind, &d.params, node.params())?;
            c.p.customs.push(CustomInfo {
                kind: d.kind.clone(),
                node,
                params,
            });
            Kind::Custom {
                custom: c.p.customs.len() as u32 - 1,
            }
        }
        NodeDef::Use(_) => unreachable!("handled above"),
    })
}

/// A custom node's parameters as it reads them: checked against what it
/// declares (`schema`, `None`: anything), its defaults filled in, numbers
/// as the declared type holds them (2 for a float: 2.0).
fn custom_params(
    c: &Compiler<'_>,
    file: &str,
    kind: &str,
    given: &std::collections::BTreeMap<String, crate::Value>,
    schema: Option<&[crate::ParamSpec]>,
) -> Result<Vec<(Box<str>, crate::Value)>, BtError> {
    use super::params::Misfit;
    let mut params: Vec<(Box<str>, crate::Value)> =
        given.iter().map(|(k, v)| (k.as_str().into(), *v)).collect();
    let Some(schema) = schema else {
        return Ok(params);
    };
    let consts: Vec<(Box<str>, crate::program::Param)> = params
        .iter()
        .map(|(k, v)| (k.clone(), crate::program::Param::Const(*v)))
        .collect();
    if let Some(misfit) = super::params::misfit(schema, &consts) {
        let known = super::params::schema_list(schema);
        let (at, problem) = match misfit {
            Misfit::Unknown { name, hint } => (
                name,
                format!("{kind} has no parameter {name:?}{hint} (its parameters: {known})"),
            ),
            Misfit::Missing(spec) => (
                kind,
                format!(
                    "{kind} needs its parameter {:?} ({}) (its parameters: {known})",
                    spec.name,
                    spec.ty.name()
                ),
            ),
            Misfit::Type { spec, given } => (
                spec.name,
                format!(
                    "{kind}'s parameter {:?} is {}, given {}",
                    spec.name,
                    crate::value::with_article(spec.ty.name()),
                    crate::value::with_article(given.name())
                ),
            ),
        };
        let problem = BtProblem::CustomParam {
            kind: kind.to_owned(),
            problem,
        };
        return Err(c.err_at(file, at, problem));
    }
    for spec in schema {
        match params.iter_mut().find(|(k, _)| &**k == spec.name) {
            Some((_, v)) => *v = spec.ty.fit(*v).unwrap_or(*v),
            None => params.extend(spec.default.map(|d| (spec.name.into(), d))),
        }
    }
    Ok(params)
}
