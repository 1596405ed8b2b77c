//! Node kinds of the compiled program and the one table of facts about
//! each: its family (which interpreter file ticks it), how many children it
//! takes, what per-agent state it needs and how that state starts, whether
//! it reads time, and its rule in one line with its BehaviorTree.CPP and
//! Unreal equivalents (the crate docs' node table is generated from it).

/// Defines [`Kind`] from the table (`table.rs`): each row names a kind,
/// its payload fields with their types and the placeholder value of
/// [`Kind::ALL`], and its [`KindInfo`]. The enum, `Kind::info` and
/// `Kind::ALL` all come from the one list, so a kind is one row: it cannot
/// be in the enum without a row, or in the table without its place in
/// `ALL`.
macro_rules! kind_table {
    ($(
        $(#[$meta:meta])*
        $name:ident $({ $($field:ident : $ty:ty = $placeholder:expr),* $(,)? })? => $row:expr;
    )*) => {
        /// What a node does. Payload indexes point into the
        /// [`Program`](crate::Program)'s tables.
        #[derive(Debug, Clone, Copy, PartialEq)]
        #[allow(missing_docs)]
        pub(crate) enum Kind {
            $($(#[$meta])* $name $({ $($field: $ty),* })?,)*
        }

        impl Kind {
            /// The facts about this kind: its row of the table.
            pub const fn info(&self) -> KindInfo {
                match self {
                    $(Kind::$name $({ $($field: _),* })? => $row,)*
                }
            }

            /// One of each kind, in table order (payloads are
            /// placeholders): for docs and tools that list kinds.
            pub const ALL: &'static [Kind] = &[$(Kind::$name $({ $($field: $placeholder),* })?,)*];
        }
    };
}

/// Which part of the interpreter ticks a kind (one file each under
/// `runtime/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    /// `runtime/composites.rs`: sequences, selector, parallel, if / while /
    /// switch.
    Standard,
    /// `runtime/utility.rs`: utility selection.
    Utility,
    /// `runtime/halo.rs`: Halo 2 decision schemes and impulses.
    Halo,
    /// `runtime/trainz.rs`: Trainz parent styles.
    Trainz,
    /// `runtime/decorators.rs`.
    Decorator,
    /// `runtime/leaves.rs`: actions, conditions, rules, timers.
    Leaf,
    /// `runtime/custom.rs`: game-registered nodes.
    Custom,
}

/// How a node's aux word (timer, counter, remembered child) starts when the
/// node is entered afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AuxInit {
    /// The node has no aux word.
    None,
    /// Zero.
    Zero,
    /// "No child" ([`NONE`](crate::NONE)).
    NoChild,
    /// The agent's time (a timer starts).
    Now,
    /// Kept across activations (one-off memories, cooldowns, run-once).
    Keep,
}

/// How a node's cursor starts when the node is entered afresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CursorInit {
    /// The node has no cursor.
    None,
    /// The first child.
    Zero,
    /// "Not chosen yet" (`u16::MAX`).
    Unchosen,
    /// Kept across activations (`SequenceWithMemory` retries the child
    /// that failed).
    Keep,
}

/// The facts about one kind.
#[derive(Debug, Clone, Copy)]
pub struct KindInfo {
    /// The kind as written in tree files.
    pub name: &'static str,
    /// The interpreter family that ticks it.
    pub family: Family,
    /// Fewest children (leaves: 0).
    pub min_children: usize,
    /// Most children (`usize::MAX`: any number).
    pub max_children: usize,
    /// Its aux word.
    pub(crate) aux: AuxInit,
    /// Its cursor.
    pub(crate) cursor: CursorInit,
    /// It reads time or counts ticks, so a walk with unchanged inputs may
    /// still change something (the agent cannot skip the walk).
    pub timed: bool,
    /// Whether, and how, it reads as one condition when it is made of
    /// conditions only (instant: finishes in the tick it starts, no
    /// effects, usable as a guard).
    pub(crate) instant: Instant,
    /// When it can ever complete (Trainz DOES_COMPLETE).
    pub(crate) done: Done,
    /// Whether it draws from the agent's random numbers.
    pub(crate) random: Random,
    /// Whether the tick's resume shortcut can continue it from a finished
    /// child (`bubble` in `runtime/mod.rs` has its continuation).
    pub(crate) resume: Resume,
    /// How a child's result that a game report decides ends it, for the
    /// report's order (`Interp::report_ending`).
    pub(crate) report: ReportEnd,
    /// Its leading instant children are guards: re-checked every tick, a
    /// broken one stops it (and they are its relevancy).
    pub leading_guards: bool,
    /// Its children run at the same time: their actions count together for
    /// the agent's action slots, and their statuses start over when it
    /// starts afresh.
    pub concurrent: bool,
    /// A stimulus can be inserted into it (a competition of children by
    /// priority).
    pub stimulus_target: bool,
    /// What makes it relevant to a parent that picks by relevancy (a
    /// prioritized list, an impulse's competition).
    pub(crate) relevance: Relevance,
    /// Its rule, one line (the crate docs' node table).
    pub rule: &'static str,
    /// BehaviorTree.CPP 4.x equivalent (`-`: none); a port's field here
    /// in parentheses, `(num_cycles: count)` (read by the errors' hints).
    pub bt_cpp: &'static str,
    /// Unreal Engine behavior tree equivalent (`-`: none).
    pub unreal: &'static str,
    /// A node of this kind as written in a tree file, its children as
    /// `{a}` and `{b}` (the row tests build a tree of each kind from it).
    pub example: &'static str,
}

/// How a kind made of conditions only reads as one condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Instant {
    /// Never instant (it has effects, time or memory).
    Never,
    /// Its own condition (a `Condition` leaf).
    Own,
    /// Always true (`Succeed`).
    True,
    /// Always false (`Fail`).
    False,
    /// The opposite of its child, when the child is instant.
    Not,
    /// All children hold, when all are instant.
    All,
    /// Some child holds, when all are instant.
    Any,
}

/// When a kind can ever complete, from what its children can.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Done {
    /// Always can.
    Always,
    /// Never does.
    Never,
    /// When every child can.
    AllChildren,
    /// When some child can.
    AnyChild,
    /// When some child after the first can (the branches of if / while).
    LaterChild,
    /// When as many children can as its `success` threshold needs.
    SuccessCount,
    /// When its count is finite and its child can.
    RepeatCount,
    /// When it has a child of its own (not a redirect) that can.
    OwnChild,
}

/// Whether a kind draws random numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Random {
    /// Never.
    Never,
    /// Always (custom nodes may).
    Always,
    /// When its `random` option is set.
    WhenAsked,
}

/// Whether the resume shortcut can continue a kind from a finished child.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resume {
    /// No: a tree with it always walks from the root.
    No,
    /// Yes.
    Yes,
    /// When the node is instant.
    IfInstant,
}

/// How a node ends when a child of it ends with a game report, for the
/// report's order (a report ends a node before it asks its guards or
/// priorities again: `Interp::report_ending`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReportEnd {
    /// Not followed (the report meets whatever the node asks first).
    No,
    /// Goes on down its children: a failure ends it, and so does a last
    /// child's result or conditions after the child.
    Sequence,
    /// Like `Sequence`, but it asks the children before first (which may
    /// start something): conditions after the child do not end it.
    ReactiveSequence,
    /// A success ends it, and so does a last child's result or conditions
    /// after the child.
    Selector,
    /// Like `Selector`, but it tries higher priorities first: conditions
    /// after the child do not end it.
    Fallback,
    /// Ends with its child's result, turned (`Some`: always this result;
    /// `None`: the child's, inverted when `invert`).
    Through {
        /// The result it ends with whatever the child's (`None`: the
        /// child's).
        always: Option<bool>,
        /// The child's result inverted.
        invert: bool,
    },
}

impl ReportEnd {
    /// Whether a running child that ends with `r` (`None`: a result
    /// conditions decide) ends the node; `last`: it is its last child.
    pub(crate) fn ends(self, r: Option<bool>, last: bool) -> bool {
        match self {
            ReportEnd::No => false,
            ReportEnd::Sequence | ReportEnd::ReactiveSequence => r == Some(false) || last,
            ReportEnd::Selector | ReportEnd::Fallback => r == Some(true) || last,
            ReportEnd::Through { .. } => true,
        }
    }
}

/// What makes a node relevant (its parent may start it) besides its tags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Relevance {
    /// Its guard condition (its leading guards, or its own condition):
    /// relevant when it holds, or when it has none.
    Guard,
    /// Its timer: relevant unless it ran less than its `ms` ago
    /// (`Cooldown`: a cooling node is not tried, so a lower priority runs).
    Timer,
}

/// Most children a `Utility` scores (its scores live on the stack while
/// it decides: no allocation; tried options are bits of a `u64`).
pub const MAX_OPTIONS: usize = 64;

#[cfg(test)]
mod row_tests;
mod table;

pub(crate) use table::Kind;

/// The facts of every node kind, in table order (for docs and tools that
/// list kinds).
pub fn kinds() -> impl ExactSizeIterator<Item = KindInfo> {
    Kind::ALL.iter().map(Kind::info)
}

/// The node table of the crate docs, as markdown (kind, rule, BT.CPP,
/// Unreal), generated from [`kinds`]. A test keeps the docs equal to
/// it.
pub fn node_table() -> String {
    let mut s =
        String::from("| kind | rule | BehaviorTree.CPP 4.x | Unreal |\n|---|---|---|---|\n");
    for k in Kind::ALL {
        let i = k.info();
        s.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            i.name, i.rule, i.bt_cpp, i.unreal
        ));
    }
    s
}

/// What the compiler knows of a node's children when it decides the node's
/// own facts.
pub(crate) struct ChildFacts {
    /// Number of children.
    pub count: usize,
    /// There are children, all instant (conditions only).
    pub all_instant: bool,
    /// Every child can complete.
    pub all_done: bool,
    /// Some child can complete.
    pub any_done: bool,
    /// How many children can complete.
    pub done: usize,
    /// Some child after the first can complete (branches of if / while).
    pub later_done: bool,
    /// A redirect impulse (no child of its own).
    pub redirect: bool,
}

impl Kind {
    /// The duration of a kind that has one (its `ms`), else 0: a payload
    /// read, for rows whose rule reads it (`Relevance::Timer`).
    pub(crate) const fn duration_ms(&self) -> u32 {
        match *self {
            Kind::Delay { ms }
            | Kind::Cooldown { ms }
            | Kind::MinDuration { ms }
            | Kind::Timeout { ms }
            | Kind::Wait { ms } => ms,
            _ => 0,
        }
    }
}

impl Kind {
    /// Whether a node of this kind is instant (conditions only: finishes in
    /// the tick it starts, no effects, usable as a guard) and whether it
    /// can ever complete (Trainz DOES_COMPLETE).
    pub(crate) fn completes(&self, f: &ChildFacts) -> (bool, bool) {
        let row = self.info();
        let instant = match row.instant {
            Instant::Never => false,
            Instant::Own | Instant::True | Instant::False => true,
            Instant::Not | Instant::All | Instant::Any => f.all_instant,
        };
        let done = match row.done {
            Done::Always => true,
            Done::Never => false,
            Done::AllChildren => f.all_done,
            Done::AnyChild => f.any_done,
            Done::LaterChild => f.later_done,
            Done::SuccessCount => f.done >= self.success_needed(f.count),
            Done::RepeatCount => matches!(self, Kind::Repeat { count } if *count > 0) && f.all_done,
            Done::OwnChild => !f.redirect && f.all_done && f.count > 0,
        };
        (instant, done)
    }

    /// How many children must succeed for a `Parallel` to (0 in the file:
    /// all of them).
    fn success_needed(&self, children: usize) -> usize {
        match *self {
            Kind::Parallel { success, .. } if success > 0 => success as usize,
            _ => children,
        }
    }
}
