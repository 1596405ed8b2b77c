//! Read-only views of a compiled tree and of an agent's tree state.
//!
//! The inspector, the `wyrd` command and games read trees through these
//! views; the representation behind them ([`Program`]'s flat arrays,
//! [`AgentState`]'s packed bytes) is the compiler's and the interpreter's
//! business and changes freely between versions.
//!
//! ```
//! # use wyrd_bt::{compile_str, Vocabulary};
//! let mut vocab = Vocabulary::default();
//! vocab.add_action("Patrol");
//! let text = r#"(root: Selector(name: "root", children: [
//!     Action(name: "patrol", action: "Patrol"),
//! ]))"#;
//! let program = compile_str("guard.bt.ron", text, &vocab).unwrap();
//! let root = program.root();
//! assert_eq!(root.kind_name(), "Selector");
//! let leaf = root.children().next().unwrap();
//! assert_eq!((leaf.path(), leaf.label().as_str()), ("root/patrol", "Action Patrol"));
//! ```
//!
//! The representation is not reachable from outside the crate:
//!
//! ```compile_fail
//! let program = wyrd_bt::Program::default();
//! let _ = program.nodes.len(); // error: field `nodes` is private
//! ```

use std::fmt;

use crate::kind::{Kind, KindInfo};
use crate::program::{ActionInfo, ImpulseInfo, NONE, Program};
use crate::runtime::{AgentState, NodeState, Status, Stimulus, TickKind};
pub use crate::status::RuleFlags;

/// One node of a compiled tree.
#[derive(Clone, Copy)]
pub struct NodeView<'a> {
    program: &'a Program,
    index: u32,
}

impl fmt::Debug for NodeView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NodeView")
            .field("index", &self.index)
            .field("path", &self.path())
            .field("kind", &self.kind_name())
            .finish()
    }
}

impl<'a> NodeView<'a> {
    fn kind(&self) -> Kind {
        self.program.nodes[self.index as usize].kind
    }

    /// The node's index: depth-first order, `0` is the root. Trace events,
    /// running actions and [`AgentState::node`] use it.
    pub fn index(&self) -> u32 {
        self.index
    }

    /// Its path of names from the root (`root/engage/fight`). Nodes of
    /// detached behaviors (stimuli) start with `~`.
    pub fn path(&self) -> &'a str {
        &self.program.paths[self.index as usize]
    }

    /// The last segment of its path.
    pub fn name(&self) -> &'a str {
        self.program.name(self.index)
    }

    /// The kind as written in tree files (`Selector`, `Action`, ...).
    pub fn kind_name(&self) -> &'static str {
        self.kind().name()
    }

    /// The facts about its kind (family, rule, equivalents).
    pub fn kind_info(&self) -> KindInfo {
        self.kind().info()
    }

    /// The kind, and for an action the action's name (`Action Shoot`),
    /// for a custom node its kind (`Custom NextPost`).
    pub fn label(&self) -> String {
        match (self.action(), self.custom_kind()) {
            (Some(a), _) => format!("Action {}", a.name()),
            (None, Some(kind)) => format!("Custom {kind}"),
            (None, None) => self.kind_name().to_owned(),
        }
    }

    /// For a custom node, the kind the game registered
    /// (`Custom(kind: "NextPost")`: `NextPost`).
    pub fn custom_kind(&self) -> Option<&'a str> {
        match self.kind() {
            crate::program::Kind::Custom { custom } => self
                .program
                .customs
                .get(custom as usize)
                .map(|c| c.kind.as_str()),
            _ => None,
        }
    }

    /// Whether it is a leaf (action, condition, rule, timer, or a custom
    /// node without children).
    pub fn is_leaf(&self) -> bool {
        self.program.nodes[self.index as usize].is_leaf()
    }

    /// Whether it belongs to a detached behavior (a stimulus's), outside
    /// the main tree.
    pub fn is_detached(&self) -> bool {
        self.index >= self.program.detached_start
    }

    /// Its depth (the root and detached behaviors' roots are 0).
    pub fn depth(&self) -> usize {
        self.program.nodes[self.index as usize].depth as usize
    }

    /// Its parent, `None` for the root and detached behaviors' roots.
    pub fn parent(&self) -> Option<NodeView<'a>> {
        let p = self.program.nodes[self.index as usize].parent;
        (p != NONE).then(|| self.program.view(p))
    }

    /// Its children, in order.
    pub fn children(&self) -> impl ExactSizeIterator<Item = NodeView<'a>> + 'a {
        let program = self.program;
        program
            .children_of(self.index)
            .iter()
            .map(move |&c| program.view(c))
    }

    /// How many children it has.
    pub fn child_count(&self) -> usize {
        self.program.nodes[self.index as usize].child_count as usize
    }

    /// Whether `node` is this node or one of its descendants.
    pub fn contains(&self, node: u32) -> bool {
        self.index <= node && node < self.program.nodes[self.index as usize].end
    }

    /// The action of an action leaf (name, id, parameters).
    pub fn action(&self) -> Option<&'a ActionInfo> {
        self.program.action_of(self.index)
    }

    /// The impulse of an impulse node.
    pub fn impulse(&self) -> Option<ImpulseView<'a>> {
        match self.kind() {
            Kind::Impulse { impulse } => Some(ImpulseView {
                program: self.program,
                index: impulse as usize,
            }),
            _ => None,
        }
    }

    /// Whether it is a Halo prioritized list (the composite that interrupts
    /// lower-priority children).
    pub fn is_prioritized_list(&self) -> bool {
        matches!(self.kind(), Kind::PrioritizedList)
    }

    /// What the edge to its `k`-th child means, for kinds whose children
    /// have roles: `= value` / `default` for a `Switch`'s cases, `if` /
    /// `then` / `else` and `while` / `do` / `else`.
    pub fn child_role(&self, k: usize) -> Option<String> {
        match self.kind() {
            Kind::Switch { cases, .. } => {
                let n = self.child_count().saturating_sub(1);
                Some(if k < n {
                    format!("= {}", self.program.switch_cases[cases as usize + k])
                } else {
                    "default".into()
                })
            }
            Kind::IfThenElse => ["if", "then", "else"].get(k).map(|s| (*s).into()),
            Kind::WhileDoElse => ["while", "do", "else"].get(k).map(|s| (*s).into()),
            _ => None,
        }
    }

    /// What the node checks, as text: a condition's or rule's check, a
    /// guard's or impulse's `when`, and for a sequence its leading
    /// conditions (its guard); empty when it checks nothing.
    pub fn check_text(&self) -> String {
        let own = self
            .program
            .check_texts
            .get(self.index as usize)
            .cloned()
            .unwrap_or_default();
        let n = &self.program.nodes[self.index as usize];
        if !own.is_empty() || n.guard_len == 0 {
            return own;
        }
        self.children()
            .take(n.guard_len as usize)
            .map(|c| c.check_text())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join(" & ")
    }

    /// The node's own fields that differ from their defaults, in the
    /// file's words (`seconds=1.5`, `count=3`, `success=Count(2)`); empty
    /// for none. What a drawing of the tree shows beside the kind.
    pub fn settings(&self) -> String {
        use crate::program::Kind as K;
        let seconds = |ms: u32| format!("seconds={}", f64::from(ms) / 1000.0);
        let policy = |n: u16| match n {
            0 => "All".to_owned(),
            1 => "One".to_owned(),
            n => format!("Count({n})"),
        };
        let parts: Vec<String> = match self.kind() {
            K::Parallel { success, failure } => [
                (success != 0).then(|| format!("success={}", policy(success))),
                (failure != 1).then(|| format!("failure={}", policy(failure))),
            ]
            .into_iter()
            .flatten()
            .collect(),
            K::ParallelAll { max_failures } if max_failures != 1 => {
                vec![format!("max_failures={max_failures}")]
            }
            K::Repeat { count } | K::Threshold { count, .. } if count > 0 => {
                vec![format!("count={count}")]
            }
            K::RetryUntilSuccessful { attempts } if attempts > 0 => {
                vec![format!("attempts={attempts}")]
            }
            K::RunOnce { then_skip: false } => vec!["then_skip=false".to_owned()],
            K::Guard { skip: true, .. } => vec!["skip=true".to_owned()],
            K::Delay { ms }
            | K::Cooldown { ms }
            | K::MinDuration { ms }
            | K::Timeout { ms }
            | K::Wait { ms } => vec![seconds(ms)],
            K::Utility { commit_ms, .. } if commit_ms > 0 => {
                vec![format!("commit={}", f64::from(commit_ms) / 1000.0)]
            }
            _ => Vec::new(),
        };
        parts.join(" ")
    }

    /// Whether the node can ever complete (its static DOES_COMPLETE flag).
    pub fn does_complete(&self) -> bool {
        self.program.nodes[self.index as usize].does_complete
    }

    /// Whether an agent with these tag bits runs the node: `false` when the
    /// node's tag mask leaves it out (see [`Program::tag_bit`]).
    pub fn runs_with_tags(&self, tags: u64) -> bool {
        let n = &self.program.nodes[self.index as usize];
        tags & n.tags_all == n.tags_all
            && (n.tags_any == 0 || tags & n.tags_any != 0)
            && tags & n.tags_not == 0
    }
}

/// One impulse of a compiled tree.
#[derive(Clone, Copy)]
pub struct ImpulseView<'a> {
    program: &'a Program,
    index: usize,
}

impl fmt::Debug for ImpulseView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ImpulseView")
            .field("node", &self.node().path())
            .field("behavior", &self.behavior())
            .finish()
    }
}

impl<'a> ImpulseView<'a> {
    fn info(&self) -> &'a ImpulseInfo {
        &self.program.impulses[self.index]
    }

    /// Its position in [`Program::impulses`] (and in
    /// [`AgentState::impulse_counts`]).
    pub fn index(&self) -> usize {
        self.index
    }

    /// The impulse node.
    pub fn node(&self) -> NodeView<'a> {
        self.program.view(self.info().node)
    }

    /// The behavior it runs.
    pub fn behavior(&self) -> &'a str {
        &self.info().behavior
    }

    /// For a redirect: the behavior's native node it runs at.
    pub fn redirect_to(&self) -> Option<NodeView<'a>> {
        let r = self.info().redirect_to;
        (r != NONE).then(|| self.program.view(r))
    }
}

impl Program {
    /// The file it came from.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The root node.
    pub fn root(&self) -> NodeView<'_> {
        self.view(0)
    }

    /// A node by index. Panics when `node` is not below [`Program::len`].
    pub fn view(&self, node: u32) -> NodeView<'_> {
        assert!(
            (node as usize) < self.nodes.len(),
            "node {node} of a {}-node program",
            self.nodes.len()
        );
        NodeView {
            program: self,
            index: node,
        }
    }

    /// A node by index, `None` when out of range.
    pub fn get(&self, node: u32) -> Option<NodeView<'_>> {
        ((node as usize) < self.nodes.len()).then(|| self.view(node))
    }

    /// A node by path.
    pub fn at(&self, path: &str) -> Option<NodeView<'_>> {
        self.node(path).map(|i| self.view(i))
    }

    /// Every node of the main tree in depth-first order (detached behaviors
    /// excluded: see [`Program::all_nodes`]).
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = NodeView<'_>> {
        (0..self.detached_start).map(|i| self.view(i))
    }

    /// Every node, the detached behaviors' after the main tree's.
    pub fn all_nodes(&self) -> impl ExactSizeIterator<Item = NodeView<'_>> {
        (0..self.nodes.len() as u32).map(|i| self.view(i))
    }

    /// The number of nodes, detached behaviors included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the program has no nodes (only `Program::default()`).
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The path of a node (empty for a node not in this program).
    pub fn path(&self, node: u32) -> &str {
        // Empty for a node not in this program: a slot aborted when its
        // agent was bound to another tree has `node == u16::MAX`.
        self.paths.get(node as usize).map_or("", String::as_str)
    }

    /// The action leaves, in node order (detached behaviors' included).
    pub fn actions(&self) -> &[ActionInfo] {
        &self.actions
    }

    /// The impulses, in node order.
    pub fn impulses(&self) -> impl ExactSizeIterator<Item = ImpulseView<'_>> {
        (0..self.impulses.len()).map(|index| ImpulseView {
            program: self,
            index,
        })
    }

    /// The blackboard keys the tree declares, in index order.
    pub fn blackboard_keys(&self) -> &[String] {
        &self.bb_keys
    }

    /// The declared defaults of [`Program::blackboard_keys`] (`None`: a key
    /// declared with a type only, unset until the game sets it).
    pub fn blackboard_defaults(&self) -> &[Option<crate::Value>] {
        &self.bb_defaults
    }

    /// The declared types of [`Program::blackboard_keys`].
    pub fn blackboard_types(&self) -> &[crate::ValueType] {
        &self.bb_types
    }

    /// The tag names, in bit order.
    pub fn tag_names(&self) -> &[String] {
        &self.tag_names
    }

    /// The world values the tree reads, with where it reads each first.
    pub fn globals(&self) -> &[crate::GlobalRef] {
        &self.globals
    }

    /// A hash of the texts of the files the program was compiled from.
    pub fn content_hash(&self) -> u64 {
        self.content_hash
    }

    /// Whether an agent whose inputs did not change may skip its walk (no
    /// timers, counters, repeats or custom nodes; a Utility's commitment
    /// wakes it when it ends).
    pub fn is_skippable(&self) -> bool {
        self.skippable
    }

    /// Entries of the program's decision table for fresh walks (0: it has
    /// none): trees whose decisions are tests of at most 11 bool keys
    /// (folded guards; no tags, timers, randomness or world values) keep,
    /// from when they compile, the outcome of a walk that starts with
    /// nothing running for every combination of those keys, and such
    /// walks are then a look-up (see [`tick_agent`](crate::tick_agent)).
    pub fn decision_table_entries(&self) -> usize {
        self.fresh.as_ref().map_or(0, |t| t.len())
    }
}

/// What a node with a timer or counter is in the middle of, for display.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A cooldown still blocking, this long (ms).
    Cooldown {
        /// Milliseconds left.
        left_ms: u32,
    },
    /// A repeat's finished runs (`count` 0: forever).
    Repeat {
        /// Runs done.
        done: u32,
        /// Runs wanted, 0 for forever.
        count: u32,
    },
    /// A retry's failed attempts (`attempts` 0: forever).
    Retry {
        /// Attempts failed.
        failed: u32,
        /// Attempts allowed, 0 for forever.
        attempts: u32,
    },
    /// A run-once node that has run.
    RanOnce,
}

impl fmt::Display for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Progress::Cooldown { left_ms } => {
                write!(f, "cooldown {:.1} s", left_ms as f32 / 1000.0)
            }
            Progress::Repeat { done, count: 0 } => write!(f, "repeat {done}"),
            Progress::Repeat { done, count } => write!(f, "repeat {done}/{count}"),
            Progress::Retry {
                failed,
                attempts: 0,
            } => write!(f, "failed {failed}"),
            Progress::Retry { failed, attempts } => write!(f, "failed {failed}/{attempts}"),
            Progress::RanOnce => f.write_str("ran once"),
        }
    }
}

impl AgentState {
    /// A node's status and rule flags after the last tick (default for an
    /// index out of range).
    pub fn node(&self, node: u32) -> NodeState {
        self.mem
            .nodes()
            .get(node as usize)
            .copied()
            .unwrap_or_default()
    }

    /// Every node's state, in program order.
    pub fn node_states(&self) -> &[NodeState] {
        self.mem.nodes()
    }

    /// The root's status after the last tick.
    pub fn status(&self) -> Status {
        self.status
    }

    /// Ticks so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Agent time in ms (the sum of its tick periods).
    #[inline]
    pub fn now_ms(&self) -> u32 {
        self.now_ms
    }

    /// How the last tick went: a walk from the root, a walk resumed at
    /// the action that reported, or a skipped walk (`None` before the
    /// first tick, and after a restart or a restore until the next). Resumed and skipped ticks have the outcome of a walk
    /// with less work (see [`tick_agent`](crate::tick_agent)); count them
    /// after each tick to see how often each shortcut is taken.
    pub fn last_tick(&self) -> Option<TickKind> {
        use crate::runtime::walked;
        let kind = if self.walked & walked::SKIPPED != 0 {
            TickKind::Skipped
        } else if self.walked & walked::RESUMED != 0 {
            TickKind::Resumed
        } else {
            TickKind::Walked
        };
        (self.walked & walked::FRESH == 0).then_some(kind)
    }

    /// The stimuli competing now.
    pub fn stimuli(&self) -> &[Stimulus] {
        &self.stimuli
    }

    /// Keys a condition read before the game set them: bit `k` for key `k`
    /// (the first 64 keys of the tree; a later key is not noted). Such a
    /// condition does not hold.
    pub fn unset_reads(&self) -> u64 {
        self.mem.unset()
    }

    /// How often each impulse won, in [`Program::impulses`] order.
    pub fn impulse_counts(&self) -> &[u32] {
        self.mem.impulses()
    }

    /// Whether the node is running and its parent runs it (not paused, and
    /// every ancestor running): the live path of the tree.
    pub fn is_live(&self, program: &Program, node: u32) -> bool {
        let s = self.node(node);
        if s.status() != Status::Running || s.flags().contains(RuleFlags::PAUSED) {
            return false;
        }
        program
            .get(node)
            .and_then(|n| n.parent())
            .is_none_or(|p| self.node(p.index()).status() == Status::Running)
    }

    /// What a timer or counter node is in the middle of, if anything.
    pub fn progress(&self, program: &Program, node: u32) -> Option<Progress> {
        let n = program.nodes.get(node as usize)?;
        if matches!(n.kind, Kind::Impulse { .. }) || n.aux == NONE {
            return None;
        }
        let aux = self.mem.aux().get(n.aux as usize).copied().unwrap_or(0);
        match n.kind {
            Kind::Cooldown { ms } => {
                // `aux` is 1 + the time it last finished (0: never).
                let left = if aux == 0 {
                    0
                } else {
                    (aux - 1 + ms).saturating_sub(self.now_ms)
                };
                (left > 0).then_some(Progress::Cooldown { left_ms: left })
            }
            Kind::Repeat { count } => Some(Progress::Repeat { done: aux, count }),
            Kind::RetryUntilSuccessful { attempts } => Some(Progress::Retry {
                failed: aux,
                attempts,
            }),
            Kind::RunOnce { .. } => (aux != 0).then_some(Progress::RanOnce),
            _ => None,
        }
    }

    /// The stimulus whose behavior `node` belongs to, if any.
    pub fn stimulus_of(&self, program: &Program, node: u32) -> Option<&Stimulus> {
        if node < program.detached_start {
            return None;
        }
        self.stimuli
            .iter()
            .find(|s| program.view(s.root).contains(node))
    }
}
