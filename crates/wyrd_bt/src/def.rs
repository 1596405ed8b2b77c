//! The `*.bt.ron` file format, as parsed (before compiling).
//!
//! See the crate documentation for a worked example.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::value::{Op, Value, ValueDef};

/// A whole tree file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TreeDef {
    /// Tag names, in bit order (at most 64). Nodes require them with
    /// `tags` / `any_tags` / `not_tags`; agents set them on their blackboard.
    #[serde(default)]
    pub tags: Vec<String>,
    /// Blackboard keys with their defaults (`{"health": 100, "alert":
    /// false, "cover": (0.0, 0.0)}`) or their types when they have no value
    /// until the game sets one (`{"target": Entity}`).
    #[serde(default)]
    pub blackboard: BTreeMap<String, ValueDef>,
    /// Named behaviors: used with `Use(behavior: ..)` anywhere (a DAG),
    /// referenced by impulses, and inserted as stimuli by game code.
    #[serde(default)]
    pub behaviors: Vec<NodeDef>,
    /// The root node.
    pub root: NodeDef,
}

/// One condition, as written in the file.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
pub enum Check {
    /// A bool blackboard key is true: `Is("grenade_near")`.
    Is(String),
    /// A bool blackboard key is false: `IsNot("in_vehicle")`.
    IsNot(String),
    /// Compares a blackboard key with a constant or another key:
    /// `Bb("ammo", Gt, 3)`, `Bb("ammo", Lt, "{max_ammo}")`.
    Bb(String, Op, ValueDef),
    /// A registered Rust predicate: `Predicate("can_see_player")`, or with
    /// arguments: `Predicate("within", {"of": "{target}", "meters": 8.0})`.
    Predicate(String, #[serde(default)] BTreeMap<String, ValueDef>),
    /// The agent has a tag: `HasTag("driver")`.
    HasTag(String),
    /// A world value (a flag or counter of the world state, or any value
    /// the game publishes in `BtGlobals`) compared with a value:
    /// `World("QST_DST_TOWER_5", Ge, 5)`, `World("NPC_DRONE_SPK_01", Eq, false)`.
    World(String, Op, Value),
    /// All hold.
    All(Vec<Check>),
    /// At least one holds.
    Any(Vec<Check>),
    /// Does not hold.
    Not(Box<Check>),
}

impl Check {
    /// Reads a condition written as in a tree file (`Is("tired")`,
    /// `All([Is("carrying"), Bb("fatigue", Gt, 8.0)])`): what tools take
    /// from a user, e.g. a breakpoint's `when` over the remote protocol.
    pub fn parse(text: &str) -> Result<Check, String> {
        ron::Options::default()
            .with_default_extension(
                ron::extensions::Extensions::UNWRAP_VARIANT_NEWTYPES
                    | ron::extensions::Extensions::IMPLICIT_SOME,
            )
            .from_str(text)
            .map_err(|e| format!("{}:{}: {}", e.span.start.line, e.span.start.col, e.code))
    }
}

macro_rules! node_struct {
    (@kids $s:ident children) => { &$s.children };
    (@kids $s:ident child) => { std::slice::from_ref(&*$s.child) };
    (@kids $s:ident) => { &[] };
    (@field children) => { Some("children: [..]") };
    (@field child) => { Some("child: Node(..)") };
    (@field) => { None };
    ($(#[$m:meta])* $name:ident $(<$kids:ident>)? { $($(#[$fm:meta])* $field:ident : $ty:ty),* $(,)? }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            /// The node's name: its segment of the node path.
            #[serde(default)]
            pub name: Option<String>,
            /// Tags the agent must all have for the node to be considered.
            #[serde(default)]
            pub tags: Vec<String>,
            /// The agent must have at least one of these tags.
            #[serde(default)]
            pub any_tags: Vec<String>,
            /// The agent must have none of these tags.
            #[serde(default)]
            pub not_tags: Vec<String>,
            /// For a named behavior: the parameters it takes, with a default
            /// (`{"range": 12.0}`) or a type (`{"target": Entity}`); `Use`
            /// binds them with `with`, and the behavior refers to them as
            /// `"{range}"`.
            #[serde(default)]
            pub parameters: BTreeMap<String, ValueDef>,
            /// Under a `Utility`: how this child scores (default: its
            /// weight 1, no considerations: a constant 1).
            #[serde(default)]
            pub score: Option<ScoreDef>,
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl NodeFields for $name {
            const CHILD_FIELD: Option<&'static str> = node_struct!(@field $($kids)?);

            fn common(&self) -> Common<'_> {
                Common {
                    name: self.name.as_deref(),
                    tags: &self.tags,
                    any_tags: &self.any_tags,
                    not_tags: &self.not_tags,
                    parameters: &self.parameters,
                    score: self.score.as_ref(),
                }
            }

            fn children(&self) -> &[NodeDef] {
                node_struct!(@kids self $($kids)?)
            }
        }
    };
}

/// What every node's fields struct answers: its common fields, and its
/// children (`<children>` after the struct's name: its `children` list;
/// `<child>`: its one `child`; neither: a leaf).
trait NodeFields {
    /// Where its children go, as an error message shows it (`None`: a
    /// leaf).
    const CHILD_FIELD: Option<&'static str>;
    fn common(&self) -> Common<'_>;
    fn children(&self) -> &[NodeDef];
}

node_struct!(
    /// A composite with children.
    CompositeDef<children> {
        /// Children, highest priority / first first.
        #[serde(default)]
        children: Vec<NodeDef>,
    }
);

node_struct!(
    /// Probabilistic choice among relevant children.
    ProbabilisticDef<children> {
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Weights, one per child (default: all equal).
        #[serde(default)]
        weights: Vec<f32>,
    }
);

node_struct!(
    /// Picks among relevant children, never the same one twice.
    OneOffDef<children> {
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Random pick (true) or first in priority order (false, default).
        #[serde(default)]
        random: bool,
    }
);

node_struct!(
    /// Select one child (Trainz "controlled selection of a single child").
    SelectOneDef<children> {
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Random pick among relevant children (default: the first relevant,
        /// i.e. if / else-if / else).
        #[serde(default)]
        random: bool,
    }
);

node_struct!(
    /// Utility selection: the relevant child with the highest score runs
    /// (each child's `score`); a running child is kept until another beats
    /// it by more than `margin`, and not before `commit` seconds.
    UtilityDef<children> {
        /// Children, each with its `score`.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// How much a challenger must beat the running child's score by
        /// to replace it (default 0.1; 0: any higher score).
        #[serde(default = "default_margin")]
        margin: f32,
        /// Seconds a child runs before another may replace it (default 0).
        #[serde(default)]
        commit: f32,
        /// How a child's considerations make its score (default `Product`).
        #[serde(default)]
        combine: Combine,
        /// Who wins between equal scores (default `Random`: the agent's
        /// seeded random numbers).
        #[serde(default)]
        ties: Ties,
    }
);

fn default_margin() -> f32 {
    0.1
}

/// How a `Utility` child scores: its considerations, combined by the
/// `Utility`'s `combine`, times `weight` (StateTree: the weight scales the
/// combined score and the result is not normalized).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoreDef {
    /// Multiplies the combined score (default 1). Without considerations
    /// the score is the weight.
    #[serde(default = "unit")]
    pub weight: f32,
    /// The considerations, each a value in 0..=1.
    #[serde(default)]
    pub consider: Vec<ConsiderDef>,
}

fn unit() -> f32 {
    1.0
}

fn unit_range() -> (f32, f32) {
    (0.0, 1.0)
}

/// One consideration: an input mapped into 0..=1 by its `range`, shaped
/// by its `curve`: `(input: Bb("health"), range: (0, 100), curve:
/// Power(2.0), invert: true)`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsiderDef {
    /// What it reads.
    pub input: ScoreInput,
    /// The input values mapped to 0 and 1 (clamped outside; default
    /// `(0, 1)`; `(100, 0)` maps the other way).
    #[serde(default = "unit_range")]
    pub range: (f32, f32),
    /// The response curve over the mapped input (default `Linear`).
    #[serde(default)]
    pub curve: Curve,
    /// Use `1 - curve` (a consideration that falls as its input rises).
    #[serde(default)]
    pub invert: bool,
    /// Its weight in a `Sum` (default 1; ignored by the other combines).
    #[serde(default = "unit")]
    pub weight: f32,
}

/// What a consideration reads.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub enum ScoreInput {
    /// A number (or bool: 0 / 1) on the blackboard, or a behavior
    /// parameter: `Bb("health")`, `Bb("{range}")`. Unset: 0.
    Bb(String),
    /// A world value (a flag or counter, or one the game publishes):
    /// `World("AIS_KILLED")`. Unknown: 0.
    World(String),
    /// A condition: 1 when it holds, else 0: `Check(Predicate("can_see",
    /// {}))`.
    Check(Check),
}

/// A response curve over a mapped input `x` in 0..=1 (the result is
/// clamped to 0..=1).
#[derive(Debug, Clone, Copy, PartialEq, Deserialize, Default)]
pub enum Curve {
    /// `x`.
    #[default]
    Linear,
    /// `x^k`: `Power(2.0)` is quadratic (slow then fast), `Power(0.5)`
    /// fast then slow.
    Power(f32),
    /// `1 / (1 + e^(-steepness·(x - midpoint)))`: an S around `midpoint`.
    Logistic {
        /// How sharp the S is (10: from 0.01 to 0.99 over about 0.9 of x).
        steepness: f32,
        /// Where it crosses 0.5.
        midpoint: f32,
    },
    /// 1 from `x >= threshold` on, else 0.
    Step(f32),
}

/// How a `Utility` child's considerations combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum Combine {
    /// Their product, each factor compensated for their number (Dave
    /// Mark's and Mike Lewis's make-up: `s + (1 - s)·(1 - 1/n)·s`), so
    /// many factors do not drag every score to 0; one 0 still vetoes.
    #[default]
    Product,
    /// Their weighted average (each consideration's `weight`).
    Sum,
    /// The lowest (StateTree's AND).
    Min,
    /// The highest (StateTree's OR).
    Max,
}

/// Who wins between children of equal score.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum Ties {
    /// A draw from the agent's seeded random numbers (deterministic per
    /// agent; drawn only when there is a tie).
    #[default]
    Random,
    /// The first in the list (StateTree's rule).
    First,
}

/// When a parallel node finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum Policy {
    /// When every child has.
    #[default]
    All,
    /// As soon as one child has.
    One,
    /// When this many children have.
    Count(u16),
}

node_struct!(
    /// Runs all children at once.
    ParallelDef<children> {
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Succeeds when this many children succeeded (default: all).
        #[serde(default)]
        success: Policy,
        /// Fails when this many children failed (default: one).
        #[serde(default = "policy_one")]
        failure: Policy,
    }
);

node_struct!(
    /// Runs all children to the end.
    ParallelAllDef<children> {
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Fails when at least this many children failed (default 1);
        /// `None`-like large values never fail.
        #[serde(default = "one")]
        max_failures: u32,
    }
);

fn one() -> u32 {
    1
}

fn policy_one() -> Policy {
    Policy::One
}

node_struct!(
    /// A decorator around one child.
    DecoratorDef<child> {
        /// The child.
        child: Box<NodeDef>,
    }
);

node_struct!(
    /// Repeats its child.
    RepeatDef<child> {
        /// The child.
        child: Box<NodeDef>,
        /// How many successes before succeeding (default: forever).
        #[serde(default)]
        count: Option<u32>,
    }
);

node_struct!(
    /// A decorator with a duration in seconds.
    TimedDef<child> {
        /// The child.
        child: Box<NodeDef>,
        /// Seconds.
        seconds: f32,
    }
);

node_struct!(
    /// Runs its child only while the conditions hold; aborts it when they
    /// stop holding.
    GuardDef<child> {
        /// The child.
        child: Box<NodeDef>,
        /// All must hold.
        when: Vec<Check>,
        /// When they do not hold: `Skipped` (true: parents carry on as if
        /// the node were not there, BehaviorTree.CPP's `_while`) or
        /// `Failure` (false, the default).
        #[serde(default)]
        skip: bool,
    }
);

node_struct!(
    /// Retries a failing child.
    RetryDef<child> {
        /// The child.
        child: Box<NodeDef>,
        /// Most runs of the child (default: forever).
        #[serde(default)]
        attempts: Option<u32>,
    }
);

node_struct!(
    /// Runs its child once per agent.
    RunOnceDef<child> {
        /// The child.
        child: Box<NodeDef>,
        /// After the first run: `Skipped` (true, default: parents carry on
        /// as if the node were not there) or the first run's result (false).
        #[serde(default = "yes")]
        then_skip: bool,
    }
);

fn yes() -> bool {
    true
}

node_struct!(
    /// Chooses a child by a blackboard value.
    SwitchDef<children> {
        /// The blackboard key.
        key: String,
        /// Case values, one per child but the last (the default).
        cases: Vec<Value>,
        /// Children: one per case, then the default.
        #[serde(default)]
        children: Vec<NodeDef>,
    }
);

node_struct!(
    /// A game action leaf.
    ActionDef {
        /// The registered action name.
        action: String,
        /// Parameters the action system reads: constants, or `"{key}"`
        /// for a blackboard key (read when the action reads it; written
        /// when the parameter is an output).
        #[serde(default)]
        params: BTreeMap<String, ValueDef>,
    }
);

node_struct!(
    /// A condition leaf (instant success / failure), or a rule leaf (waits
    /// for the condition; complete while it holds).
    ConditionDef {
        /// The condition.
        check: Check,
    }
);

node_struct!(
    /// Seed node: succeeds if every listed world flag has its value:
    /// `CheckWorldStateFlags(flags: [("NPC_DRONE_SPK_01", false)])`.
    CheckFlagsDef {
        /// Flag names and expected values.
        flags: Vec<(String, bool)>,
    }
);

node_struct!(
    /// Seed node: succeeds if every listed world counter compares true:
    /// `CheckWorldStateCounters(counters: [("QST_DST_TOWER_5", Ge, 5)])`.
    CheckCountersDef {
        /// Counter names, operators, values.
        counters: Vec<(String, Op, i64)>,
    }
);

node_struct!(
    /// Counts ticks while a condition holds; completes at the threshold
    /// (the Trainz polling advice).
    ThresholdDef {
        /// The polled condition.
        check: Check,
        /// Ticks needed.
        count: u32,
    }
);

node_struct!(
    /// Writes a blackboard key and succeeds (BehaviorTree.CPP's
    /// `SetBlackboard`): `SetBlackboard(key: "ammo", value: 3)`, or a copy
    /// of another key: `value: "{max_ammo}"`. The value has the key's
    /// declared type.
    SetBlackboardDef {
        /// The key written (BT.CPP's `output_key`).
        key: String,
        /// A constant, or `"{other}"` to copy another key.
        value: ValueDef,
    }
);

node_struct!(
    /// Adds to a number key and succeeds (BehaviorTree.CPP's `Script` with
    /// `key += by`): `AddBlackboard(key: "attempts", by: 1)`, or `by:
    /// "{other}"` to add another key. An Int key adds Ints (a fraction
    /// would be lost), a Float key Ints or Floats; a negative `by`
    /// subtracts.
    AddBlackboardDef {
        /// The number key added to.
        key: String,
        /// A constant, or `"{other}"` to add another key.
        by: ValueDef,
    }
);

node_struct!(
    /// Clears a blackboard key and succeeds (BehaviorTree.CPP's
    /// `UnsetBlackboard`): `UnsetBlackboard(key: "target")`.
    UnsetBlackboardDef {
        /// The key cleared.
        key: String,
    }
);

node_struct!(
    /// Waits a duration, then succeeds.
    WaitDef {
        /// Seconds.
        seconds: f32,
    }
);

node_struct!(
    /// A leaf that succeeds, fails, or runs forever.
    LeafDef {}
);

node_struct!(
    /// A named behavior placed here.
    UseDef {
        /// The behavior's name.
        behavior: String,
        /// Another tree file to take it from, relative to this file's
        /// folder (`../common/flee.bt.ron`); default: this file.
        #[serde(default)]
        file: Option<String>,
        /// Bindings of the behavior's parameters: a constant or a
        /// `"{key}"` of this place (`{"target": "{enemy}", "range": 12.0}`).
        #[serde(default)]
        with: BTreeMap<String, ValueDef>,
    }
);

/// How an impulse runs its behavior when it wins.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Default)]
pub enum ImpulseMode {
    /// Run the behavior here, in the impulse's place.
    #[default]
    InPlace,
    /// Jump to the behavior's own position in the tree.
    Redirect,
}

node_struct!(
    /// A reference to a behavior with its own relevancy.
    ImpulseDef {
        /// The named behavior it references.
        behavior: String,
        /// The impulse's relevancy: all must hold. An impulse whose
        /// conditions never hold is a legal hook.
        #[serde(default)]
        when: Vec<Check>,
        /// In place (default) or redirect.
        #[serde(default)]
        mode: ImpulseMode,
        /// In place: bindings of the behavior's parameters, as `Use`'s
        /// `with`.
        #[serde(default)]
        with: BTreeMap<String, ValueDef>,
    }
);

node_struct!(
    /// A game-registered composite or decorator.
    CustomDef<children> {
        /// The registered kind.
        kind: String,
        /// Children.
        #[serde(default)]
        children: Vec<NodeDef>,
        /// Parameters.
        #[serde(default)]
        params: BTreeMap<String, Value>,
    }
);

/// Defines [`NodeDef`] from its list of variants (below): each is a kind as
/// written in files and its fields struct, so the name a file gives, the
/// common fields and the children of every variant come from one line.
macro_rules! node_defs {
    ($($(#[$m:meta])* $variant:ident($ty:ty),)*) => {
        /// A node in the file. Composites and decorators have children;
        /// leaves do not.
        #[derive(Debug, Clone, Deserialize)]
        #[allow(missing_docs)]
        pub enum NodeDef {
            $($(#[$m])* $variant($ty),)*
        }

        impl NodeDef {
            /// The kind's name as written in files.
            pub fn kind_name(&self) -> &'static str {
                match self {
                    $(NodeDef::$variant(_) => stringify!($variant),)*
                }
            }

            /// Name and tag requirements.
            pub fn common(&self) -> Common<'_> {
                match self {
                    $(NodeDef::$variant(d) => d.common(),)*
                }
            }

            /// Children in file order (a decorator's one child; none for
            /// leaves).
            pub fn children(&self) -> &[NodeDef] {
                match self {
                    $(NodeDef::$variant(d) => d.children(),)*
                }
            }

            /// Every kind a file can name, in this list's order.
            pub(crate) const KINDS: &'static [&'static str] = &[$(stringify!($variant)),*];

            /// The field a kind's children go in (`children: [..]`,
            /// `child: Node(..)`), as an error shows it; `None` for a
            /// leaf or a name no kind has.
            pub(crate) fn child_field_of(kind: &str) -> Option<&'static str> {
                match kind {
                    $(stringify!($variant) => <$ty as NodeFields>::CHILD_FIELD,)*
                    _ => None,
                }
            }

            /// The kinds whose fields struct has this name (`ConditionDef`:
            /// `Condition`, `Rule`): serde's errors name the struct.
            pub(crate) fn kinds_with_fields(fields: &str) -> Vec<&'static str> {
                let mut kinds = Vec::new();
                $(if stringify!($ty) == fields {
                    kinds.push(stringify!($variant));
                })*
                kinds
            }
        }
    };
}

node_defs! {
    // Standard composites.
    Sequence(CompositeDef),
    SequenceWithMemory(CompositeDef),
    ReactiveSequence(CompositeDef),
    GuardSequence(CompositeDef),
    #[serde(alias = "Fallback")]
    Selector(CompositeDef),
    ReactiveFallback(CompositeDef),
    Parallel(ParallelDef),
    ParallelAll(ParallelAllDef),
    IfThenElse(CompositeDef),
    WhileDoElse(CompositeDef),
    Switch(SwitchDef),
    Utility(UtilityDef),
    // Halo 2 decision schemes.
    PrioritizedList(CompositeDef),
    Sequential(CompositeDef),
    SequentialLooping(CompositeDef),
    Probabilistic(ProbabilisticDef),
    OneOff(OneOffDef),
    // Trainz parent styles.
    Ordered(CompositeDef),
    Simultaneous(CompositeDef),
    SelectOne(SelectOneDef),
    // Decorators.
    Invert(DecoratorDef),
    ForceSuccess(DecoratorDef),
    ForceFailure(DecoratorDef),
    Repeat(RepeatDef),
    RetryUntilSuccessful(RetryDef),
    KeepRunningUntilFailure(DecoratorDef),
    RunOnce(RunOnceDef),
    Delay(TimedDef),
    Cooldown(TimedDef),
    MinDuration(TimedDef),
    Timeout(TimedDef),
    Guard(GuardDef),
    // Leaves.
    Action(ActionDef),
    Condition(ConditionDef),
    CheckWorldStateFlags(CheckFlagsDef),
    CheckWorldStateCounters(CheckCountersDef),
    Rule(ConditionDef),
    Threshold(ThresholdDef),
    Wait(WaitDef),
    SetBlackboard(SetBlackboardDef),
    AddBlackboard(AddBlackboardDef),
    UnsetBlackboard(UnsetBlackboardDef),
    Succeed(LeafDef),
    Fail(LeafDef),
    Forever(LeafDef),
    // References.
    Use(UseDef),
    Impulse(ImpulseDef),
    Custom(CustomDef),
}

/// The fields every node has.
pub struct Common<'a> {
    /// Name.
    pub name: Option<&'a str>,
    /// All-of tags.
    pub tags: &'a [String],
    /// Any-of tags.
    pub any_tags: &'a [String],
    /// None-of tags.
    pub not_tags: &'a [String],
    /// A named behavior's parameters.
    pub parameters: &'a BTreeMap<String, ValueDef>,
    /// Its score under a `Utility`.
    pub score: Option<&'a ScoreDef>,
}
