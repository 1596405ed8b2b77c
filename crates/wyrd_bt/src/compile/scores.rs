//! Lowering a `Utility`: its rules, and each child's score with its
//! considerations, into the program's tables.

use super::{BtError, BtProblem, Compiler, resolve};
use crate::def::{ConsiderDef, Curve, NodeDef, ScoreDef, ScoreInput, Ties, UtilityDef};
use crate::program::{Consideration, Kind, Param, ScoreInfo, ScoreSource, UtilityInfo};
use crate::value::{Value, ValueType};

/// A child's score: its own `score`, or for a `Use` without one, its
/// behavior's root's (a behavior written with its score in mind).
fn score_of(c: &Compiler<'_>, file: &str, child: &NodeDef) -> Option<ScoreDef> {
    if let Some(s) = child.common().score {
        return Some(s.clone());
    }
    let NodeDef::Use(u) = child else {
        return None;
    };
    let target = u
        .file
        .as_ref()
        .map_or_else(|| file.to_owned(), |f| resolve(file, f));
    c.find_behavior(&target, &u.behavior)?
        .common()
        .score
        .cloned()
}

/// A number of a `Utility` or of a score: finite, and `>= 0` when
/// `non_negative`.
fn number(
    c: &Compiler<'_>,
    file: &str,
    part: &str,
    what: &'static str,
    value: f32,
    non_negative: bool,
) -> Result<f32, BtError> {
    if value.is_finite() && (!non_negative || value >= 0.0) {
        return Ok(value);
    }
    let range = if non_negative { " >= 0" } else { "" };
    Err(c.err_part(
        file,
        part,
        part,
        BtProblem::BadNumber { what, value, range },
    ))
}

impl<'a> Compiler<'a> {
    /// The slot of world value `name` among the program's globals (added
    /// on first use, with where it is written for the bind-time report).
    pub(crate) fn global_slot(&mut self, file: &str, name: &str) -> u32 {
        if let Some(i) = self.p.globals.iter().position(|g| g.name == name) {
            return i as u32;
        }
        let e = self.err_at(file, name, BtProblem::UnknownKey(String::new()));
        self.p.globals.push(crate::program::GlobalRef {
            name: name.to_owned(),
            written: None,
            file: file.to_owned(),
            line: e.line,
            column: e.column,
        });
        self.p.globals.len() as u32 - 1
    }

    /// Lowers a `Utility` node: its rules and its children's scores.
    pub(crate) fn utility(
        &mut self,
        file: &str,
        def: &NodeDef,
        d: &UtilityDef,
    ) -> Result<Kind, BtError> {
        let margin = number(self, file, "margin", "margin", d.margin, true)?;
        let commit_ms = self.ms(file, def, d.commit)?;
        let scores = self.p.scores.len() as u32;
        for child in &d.children {
            let score = score_of(self, file, child);
            // Errors in a score point into its child.
            let prev = self.enter_node(child);
            let info = self.score(file, score.as_ref());
            self.leave_node(prev);
            self.p.scores.push(info?);
        }
        self.p.utilities.push(UtilityInfo {
            margin,
            combine: d.combine,
            scores,
        });
        Ok(Kind::Utility {
            utility: self.p.utilities.len() as u32 - 1,
            commit_ms,
            random: d.ties == Ties::Random,
        })
    }

    /// One child's score (`None`: a constant 1, StateTree's default
    /// weight without considerations).
    fn score(&mut self, file: &str, score: Option<&ScoreDef>) -> Result<ScoreInfo, BtError> {
        let Some(s) = score else {
            return Ok(ScoreInfo {
                weight: 1.0,
                first: self.p.considerations.len() as u32,
                len: 0,
            });
        };
        let weight = number(self, file, "score", "score weight", s.weight, true)?;
        let first = self.p.considerations.len() as u32;
        for c in &s.consider {
            let compiled = self.consideration(file, c)?;
            self.p.considerations.push(compiled);
        }
        Ok(ScoreInfo {
            weight,
            first,
            len: s.consider.len() as u32,
        })
    }

    fn consideration(&mut self, file: &str, c: &ConsiderDef) -> Result<Consideration, BtError> {
        let (lo, hi) = c.range;
        if !lo.is_finite() || !hi.is_finite() || lo == hi {
            return Err(self.err_part(file, "score", "range", BtProblem::ScoreRange { lo, hi }));
        }
        number(self, file, "score", "consideration weight", c.weight, true)?;
        match c.curve {
            Curve::Linear => {}
            Curve::Power(k) => {
                number(self, file, "score", "Power exponent", k, false)?;
            }
            Curve::Step(t) => {
                number(self, file, "score", "Step threshold", t, false)?;
            }
            Curve::Logistic {
                steepness,
                midpoint,
            } => {
                number(self, file, "score", "Logistic steepness", steepness, false)?;
                number(self, file, "score", "Logistic midpoint", midpoint, false)?;
            }
        }
        let source = match &c.input {
            ScoreInput::Bb(k) => self.score_key(file, k)?,
            ScoreInput::World(name) => ScoreSource::Global(self.global_slot(file, name)),
            ScoreInput::Check(check) => ScoreSource::Cond(self.check(file, check)?),
        };
        Ok(Consideration {
            source,
            lo,
            hi,
            curve: c.curve,
            invert: c.invert,
            weight: c.weight,
        })
    }

    /// A consideration's key (or parameter): a number or a bool.
    fn score_key(&mut self, file: &str, k: &str) -> Result<ScoreSource, BtError> {
        let bad = |this: &Self, found: &'static str| {
            let problem = BtProblem::ScoreInputType {
                key: k.to_owned(),
                found,
            };
            this.err_part(file, "score", k, problem)
        };
        match self.key_operand(file, k)? {
            Param::Key { key, ty } => match ty {
                ValueType::Int | ValueType::Float | ValueType::Bool => Ok(ScoreSource::Key(key)),
                other => Err(bad(self, other.name())),
            },
            Param::Const(v) => match score_number(v) {
                Some(x) => Ok(ScoreSource::Const(x)),
                None => Err(bad(self, v.type_name())),
            },
        }
    }
}

/// A value as a consideration reads it: numbers as they are, bools as 0
/// or 1; other types are not numbers.
pub(crate) fn score_number(v: Value) -> Option<f32> {
    match v {
        Value::Int(i) => Some(i as f32),
        Value::Float(f) => Some(f as f32),
        Value::Bool(b) => Some(if b { 1.0 } else { 0.0 }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::compile::BtProblem;
    use crate::{Vocabulary, compile_str};

    fn compile(root: &str) -> Result<crate::Program, crate::BtError> {
        let text = format!(
            "(blackboard: {{\"health\": 100, \"alert\": false, \"name\": \"x\"}}, root: {root})"
        );
        compile_str("u.bt.ron", &text, &Vocabulary::permissive())
    }

    #[test]
    fn a_score_on_a_string_key_is_an_error_at_the_score() {
        let e = compile(
            "Utility(children: [\n  Action(action: \"A\", score: (consider: [(input: Bb(\"name\"))])),\n])",
        )
        .unwrap_err();
        assert!(
            matches!(e.problem, BtProblem::ScoreInputType { ref key, found: "String" } if key == "name"),
            "{e}"
        );
        assert_eq!(e.line, 2, "{e}");
    }

    #[test]
    fn a_range_that_maps_nothing_and_a_negative_margin_are_errors() {
        let e = compile(
            "Utility(children: [Action(action: \"A\", score: (consider: [(input: Bb(\"health\"), range: (5, 5))]))])",
        )
        .unwrap_err();
        assert!(matches!(e.problem, BtProblem::ScoreRange { .. }), "{e}");
        let e = compile("Utility(margin: -1.0, children: [Action(action: \"A\")])").unwrap_err();
        assert!(
            matches!(e.problem, BtProblem::BadNumber { what: "margin", .. }),
            "{e}"
        );
    }

    #[test]
    fn a_score_outside_a_utility_is_an_error() {
        let e = compile("Sequence(children: [Action(action: \"A\", score: (weight: 2.0))])")
            .unwrap_err();
        assert!(
            matches!(e.problem, BtProblem::ScoreOutsideUtility(ref p) if p == "Sequence"),
            "{e}"
        );
    }
}
