//! Conditions: checks as written to compiled conditions, and bool guards
//! folded into single bit tests.

use super::{BtError, BtProblem, Compiler};
use crate::def::Check;
use crate::kind::Instant;
use crate::program::{Cond, Kind, NONE, Param, PredicateSlot, Program};
use crate::value::{Op, Value, ValueType};

/// Folds conditions on bool keys (below 64) into bit tests over the
/// blackboard's bool mask: `BbIs`, and `All` / `Any` / `Not` made only of
/// them. A condition's parts always come before it, so one pass in order
/// sees folded parts.
pub(super) fn fold_bits(p: &mut Program) {
    for i in 0..p.conds.len() {
        let folded = match p.conds[i] {
            // Folded only for keys with a default: an unset key's bit reads
            // as false, and an unset read must fail both ways.
            Cond::BbIs { key, value } if key < 64 && p.bb_defaults[key as usize].is_some() => {
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
        // Any of one bit is that bit as wanted (`Not` of a single bool):
        // a plain bit test, which an `All` around it can merge.
        if let Cond::AnyBits { mask, want } = p.conds[i]
            && mask.count_ones() == 1
        {
            p.conds[i] = Cond::Bits { mask, want };
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

pub(super) fn all_of(p: &mut Program, conds: Vec<u32>) -> u32 {
    if conds.len() == 1 {
        return conds[0];
    }
    let start = p.cond_lists.len() as u32;
    let len = conds.len() as u32;
    p.cond_lists.extend(conds);
    push(p, Cond::All { start, len })
}

/// An instant subtree (conditions only) as one condition, tags included.
pub(super) fn instant_cond(p: &mut Program, i: u32) -> u32 {
    let n = p.nodes[i as usize].clone();
    let kids: Vec<u32> = p.children_of(i).to_vec();
    // Read from the kind's row: an instant node folds as its row says.
    let body = match n.kind.info().instant {
        Instant::Own => {
            let Kind::Condition { cond } = n.kind else {
                unreachable!("only a Condition's row folds as its own condition")
            };
            cond
        }
        Instant::True => push(p, Cond::Const(true)),
        Instant::False => push(p, Cond::Const(false)),
        Instant::Not => {
            let inner = instant_cond(p, kids[0]);
            push(p, Cond::Not(inner))
        }
        Instant::All => {
            let conds = kids.iter().map(|&k| instant_cond(p, k)).collect();
            all_of(p, conds)
        }
        Instant::Never => unreachable!("only instant nodes are folded ({})", n.kind.name()),
        Instant::Any => {
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

impl Compiler<'_> {
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
        let cond = match check {
            Check::Is(k) | Check::IsNot(k) => {
                let want = matches!(check, Check::Is(_));
                match self.key_operand(file, k)? {
                    Param::Key { key, ty } => {
                        if ty != ValueType::Bool {
                            return Err(self.err_key_use(
                                file,
                                k,
                                BtProblem::KeyType {
                                    key: k.clone(),
                                    expected: ty.name(),
                                    found: "bool",
                                },
                            ));
                        }
                        Cond::BbIs { key, value: want }
                    }
                    // A behavior's parameter bound to a constant.
                    Param::Const(Value::Bool(b)) => Cond::Const(b == want),
                    Param::Const(v) => {
                        return Err(self.err_key_use(
                            file,
                            k,
                            BtProblem::KeyType {
                                key: k.clone(),
                                expected: v.type_name(),
                                found: "bool",
                            },
                        ));
                    }
                }
            }
            Check::Bb(k, op, v) => {
                let lhs = self.key_operand(file, k)?;
                let rhs = self.param(file, v, &format!("the comparison with {k}"))?;
                let (lt, rt) = (lhs.value_type(), rhs.value_type());
                if !lt.accepts_type(rt) {
                    return Err(self.err_key_use(
                        file,
                        k,
                        BtProblem::KeyType {
                            key: k.clone(),
                            expected: lt.name(),
                            found: rt.name(),
                        },
                    ));
                }
                if !lt.is_ordered() && !matches!(op, Op::Eq | Op::Ne) {
                    return Err(self.err_key_use(
                        file,
                        k,
                        BtProblem::Unordered {
                            key: k.clone(),
                            ty: lt,
                            op: *op,
                        },
                    ));
                }
                match (lhs, rhs) {
                    (Param::Key { key, .. }, Param::Const(value)) => Cond::Bb {
                        key,
                        op: *op,
                        value,
                    },
                    (Param::Key { key, .. }, Param::Key { key: other, .. }) => Cond::BbKey {
                        key,
                        op: *op,
                        other,
                    },
                    (Param::Const(value), Param::Key { key, .. }) => Cond::Bb {
                        key,
                        op: op.flipped(),
                        value,
                    },
                    (Param::Const(a), Param::Const(b)) => Cond::Const(op.eval(a, b)),
                }
            }
            Check::Predicate(name, args) => {
                let mut bound = Vec::with_capacity(args.len());
                for (k, v) in args {
                    let p = self.param(file, v, &format!("argument {k:?} of {name}"))?;
                    bound.push((k.as_str().into(), p));
                }
                if let Some(schema) = self.vocab.predicate_args.get(name) {
                    self.predicate_args_fit(file, name, &bound, schema)?;
                }
                let known = args
                    .is_empty()
                    .then(|| self.predicate_index.get(name))
                    .flatten();
                let idx = match known {
                    Some(&i) => i,
                    None => {
                        let f = self.vocab.predicates.get(name).cloned();
                        if f.is_none() && !self.vocab.permissive {
                            let (hint, known) =
                                super::errors::registered_near(name, self.vocab.predicates.keys());
                            let problem = BtProblem::UnknownPredicate {
                                name: name.clone(),
                                hint,
                                known,
                            };
                            return Err(self.err_at(file, name, problem));
                        }
                        self.p.predicates.push(PredicateSlot {
                            name: name.clone(),
                            args: bound.into_boxed_slice(),
                            f,
                        });
                        let i = self.p.predicates.len() as u32 - 1;
                        if args.is_empty() {
                            self.predicate_index.insert(name.clone(), i);
                        }
                        i
                    }
                };
                Cond::Predicate(idx)
            }
            Check::HasTag(t) => Cond::Tags(self.tag_mask(file, std::slice::from_ref(t))?),
            Check::World(name, op, value) => {
                let slot = self.global_slot(file, name);
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
}

impl Compiler<'_> {
    /// A predicate's call against the arguments it was registered with:
    /// none unknown (the nearest name said), each given, each of its type.
    fn predicate_args_fit(
        &self,
        file: &str,
        name: &str,
        bound: &[(Box<str>, crate::program::Param)],
        schema: &[crate::registry::ParamSpec],
    ) -> Result<(), BtError> {
        use super::params::Misfit;
        let Some(misfit) = super::params::misfit(schema, bound) else {
            return Ok(());
        };
        let known = super::params::schema_list(schema);
        let (at, problem) = match misfit {
            Misfit::Unknown { name: k, hint } => (
                k,
                format!("no argument {k:?}{hint} (its arguments: {known})"),
            ),
            Misfit::Missing(spec) => (
                name,
                format!(
                    "argument {:?} ({}) is not given (its arguments: {known})",
                    spec.name,
                    spec.ty.name()
                ),
            ),
            Misfit::Type { spec, given } => (
                spec.name,
                format!(
                    "argument {:?} is a {}, given a {}",
                    spec.name,
                    spec.ty.name(),
                    given.name()
                ),
            ),
        };
        Err(self.err_at(
            file,
            at,
            BtProblem::PredicateArgument {
                predicate: name.to_owned(),
                problem,
            },
        ))
    }
}
