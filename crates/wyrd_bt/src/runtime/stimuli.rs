//! Stimuli: behaviors inserted into one agent's tree for a while.

use super::{AgentState, Interp};
use crate::program::Program;

/// A behavior inserted into one agent's tree for a while.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stimulus {
    /// The composite it competes in.
    pub(crate) target: u32,
    /// The detached behavior's root node.
    pub(crate) root: u32,
    /// Position among the target's children (0 = highest priority).
    pub(crate) priority: u16,
    /// Agent time (ms) when it expires ([`PENDING`] until the agent's
    /// next tick starts its time).
    pub(crate) expires_ms: u32,
    /// Its duration (ms): it competes in round(duration·hz) ticks.
    pub(crate) duration_ms: u32,
}

/// The expiry of a stimulus inserted since its agent's last tick: its time
/// starts in the agent's next tick, which takes it as inserted one step
/// before (see [`AgentState::stamp_stimuli`]). A tiered agent's clock
/// stands still between its ticks, so stamping it at the insertion would
/// start its time at the last tick, up to a period early.
pub(crate) const PENDING: u32 = u32::MAX;

/// An agent's active stimuli: nothing but a null pointer until the first
/// is inserted (most agents never have one), then room for
/// [`MAX_STIMULI`] allocated once.
#[derive(Debug, Clone, Default)]
#[allow(
    clippy::box_collection,
    reason = "one pointer (8 bytes) in every agent instead of a Vec's 24; the extra indirection is only paid by agents with stimuli"
)]
pub(crate) struct Stimuli(Option<Box<Vec<Stimulus>>>);

impl Stimuli {
    /// Adds one (allocates the room on the first).
    pub(crate) fn push(&mut self, s: Stimulus) {
        self.0
            .get_or_insert_with(|| Box::new(Vec::with_capacity(MAX_STIMULI)))
            .push(s);
    }

    /// Removes the `k`-th (the last takes its place).
    pub(crate) fn swap_remove(&mut self, k: usize) -> Stimulus {
        match &mut self.0 {
            Some(v) => v.swap_remove(k),
            None => panic!("no stimulus {k}"),
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.as_ref().map_or(0, |v| {
            std::mem::size_of::<Vec<Stimulus>>() + v.capacity() * std::mem::size_of::<Stimulus>()
        })
    }
}

impl std::ops::Deref for Stimuli {
    type Target = [Stimulus];
    #[inline]
    fn deref(&self) -> &[Stimulus] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl std::ops::DerefMut for Stimuli {
    #[inline]
    fn deref_mut(&mut self) -> &mut [Stimulus] {
        match &mut self.0 {
            Some(v) => v.as_mut_slice(),
            None => &mut [],
        }
    }
}

impl Stimulus {
    /// The composite it competes in.
    pub fn target(&self) -> u32 {
        self.target
    }

    /// The detached behavior's root node.
    pub fn root(&self) -> u32 {
        self.root
    }

    /// Its position among the target's children (0 = highest priority).
    pub fn priority(&self) -> u16 {
        self.priority
    }

    /// Agent time (ms) when it expires; `None` until the agent's next tick
    /// starts its time (it was inserted since the last one).
    pub fn expires_ms(&self) -> Option<u32> {
        (self.expires_ms != PENDING).then_some(self.expires_ms)
    }

    /// Its duration (ms).
    pub fn duration_ms(&self) -> u32 {
        self.duration_ms
    }
}

/// Why a stimulus could not be inserted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StimulusError {
    /// No node has that path.
    #[error("no node has the path {0:?}")]
    UnknownTarget(String),
    /// Stimuli compete in prioritized lists and selectors.
    #[error("{0:?} is not a PrioritizedList or Selector")]
    NotACompetition(String),
    /// The tree declares no such behavior.
    #[error("the tree declares no behavior {0:?}")]
    UnknownBehavior(String),
    /// Too many at once.
    #[error("at most {0} stimuli at once")]
    Full(usize),
    /// No program bound yet.
    #[error("the agent's tree is not loaded yet")]
    NotBound,
    /// A duration that is not a number of seconds above 0 (it would never
    /// run, or never end).
    #[error("a stimulus lasts a number of seconds above 0, not {0}")]
    BadDuration(String),
}

/// Most stimuli one agent holds at once.
pub const MAX_STIMULI: usize = 8;

impl AgentState {
    /// Inserts a named behavior as a child of the composite at `at`, at
    /// `priority` (0 = before the first child), for `seconds`. Inserting a
    /// behavior that is already active renews it.
    pub fn insert_stimulus(
        &mut self,
        program: &Program,
        at: &str,
        behavior: &str,
        priority: u16,
        seconds: f32,
    ) -> Result<(), StimulusError> {
        if !(seconds.is_finite() && seconds > 0.0) {
            return Err(StimulusError::BadDuration(seconds.to_string()));
        }
        if self.mem.nodes().len() != program.nodes.len() {
            return Err(StimulusError::NotBound);
        }
        let target = program
            .node(at)
            .ok_or_else(|| StimulusError::UnknownTarget(at.to_owned()))?;
        if !program.nodes[target as usize].kind.info().stimulus_target {
            return Err(StimulusError::NotACompetition(at.to_owned()));
        }
        let root = *program
            .detached
            .get(behavior)
            .ok_or_else(|| StimulusError::UnknownBehavior(behavior.to_owned()))?;
        let duration_ms = (seconds.max(0.0) * 1000.0).round() as u32;
        self.insert_stimulus_at(program, target, root, priority, duration_ms)
    }

    /// [`AgentState::insert_stimulus`] by node indices (recordings replay
    /// them so).
    pub(crate) fn insert_stimulus_at(
        &mut self,
        program: &Program,
        target: u32,
        root: u32,
        priority: u16,
        duration_ms: u32,
    ) -> Result<(), StimulusError> {
        if self.mem.nodes().len() != program.nodes.len() {
            return Err(StimulusError::NotBound);
        }
        let expires_ms = PENDING;
        if let Some(s) = self.stimuli.iter_mut().find(|s| s.root == root) {
            s.target = target;
            s.priority = priority;
            s.expires_ms = expires_ms;
            s.duration_ms = duration_ms;
            return Ok(());
        }
        if self.stimuli.len() >= MAX_STIMULI {
            return Err(StimulusError::Full(MAX_STIMULI));
        }
        self.stimuli.push(Stimulus {
            target,
            root,
            priority,
            expires_ms,
            duration_ms,
        });
        Ok(())
    }

    /// Time left of the stimulus whose behavior root is `root`, in seconds
    /// (all of it until the agent's next tick starts its time).
    pub fn stimulus_time_left(&self, root: u32) -> Option<f32> {
        self.stimuli.iter().find(|s| s.root == root).map(|s| {
            let left = if s.expires_ms == PENDING {
                s.duration_ms
            } else {
                s.expires_ms.saturating_sub(self.now_ms)
            };
            left as f32 / 1000.0
        })
    }

    /// Starts the time of the stimuli inserted since the last tick, in a
    /// tick that advanced the clock to `now_ms`: each counts as inserted
    /// `back_ms` before (one step of the schedule; for an agent ticking
    /// every step, the time of its last tick, where it was inserted).
    pub(crate) fn stamp_stimuli(&mut self, back_ms: u32) {
        let inserted = self.now_ms.wrapping_sub(back_ms);
        for s in self.stimuli.iter_mut() {
            if s.expires_ms == PENDING {
                // Never the marker itself (a clock about to wrap).
                s.expires_ms = inserted.wrapping_add(s.duration_ms).min(PENDING - 1);
            }
        }
    }

    /// The path of a node as shown to users: stimulus behaviors appear under
    /// the node they were inserted at.
    pub fn display_path(&self, program: &Program, node: u32) -> String {
        let path = &program.paths[node as usize];
        if node >= program.detached_start
            && let Some(s) = self
                .stimuli
                .iter()
                .find(|s| s.root <= node && node < program.nodes[s.root as usize].end)
        {
            return format!(
                "{}/{}",
                program.paths[s.target as usize],
                path.trim_start_matches('~')
            );
        }
        path.clone()
    }
}

impl Interp<'_> {
    /// Expired stimuli leave the tree (their behavior is stopped). A
    /// stimulus of S seconds competes in the round(S·hz) ticks after its
    /// insertion (halves up).
    #[inline]
    pub(super) fn expire_stimuli(&mut self) {
        let mut k = 0;
        while k < self.st.stimuli.len() {
            let s = self.st.stimuli[k];
            let inserted = s.expires_ms.wrapping_sub(s.duration_ms);
            let age = self.st.now_ms.wrapping_sub(inserted);
            if self.ticks_of(age) > self.ticks_of(s.duration_ms) {
                self.halt(s.root);
                self.st.stimuli.swap_remove(k);
            } else {
                k += 1;
            }
        }
    }

    /// Children of a competition node, with stimuli merged in by priority.
    #[inline]
    pub(super) fn dyn_count(&self, i: u32) -> usize {
        let base = self.p.nodes[i as usize].child_count as usize;
        if self.st.stimuli.is_empty() {
            return base;
        }
        base + self.st.stimuli.iter().filter(|s| s.target == i).count()
    }

    #[inline]
    pub(super) fn dyn_child(&self, i: u32, k: usize) -> u32 {
        if self.st.stimuli.is_empty() {
            return self.p.children[self.p.nodes[i as usize].first_child as usize + k];
        }
        self.dyn_child_with_stimuli(i, k)
    }

    #[cold]
    pub(super) fn dyn_child_with_stimuli(&self, i: u32, k: usize) -> u32 {
        let kids = self.p.children_of(i);
        let mut pos = 0;
        for s in 0..=kids.len() {
            for st in self.st.stimuli.iter().filter(|x| x.target == i) {
                if (st.priority as usize).min(kids.len()) == s {
                    if pos == k {
                        return st.root;
                    }
                    pos += 1;
                }
            }
            if s < kids.len() {
                if pos == k {
                    return kids[s];
                }
                pos += 1;
            }
        }
        kids[kids.len() - 1]
    }
}
