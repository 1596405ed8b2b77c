//! An agent's tree state: node states, cursors, aux words and stimuli in
//! one allocation ([`StateMem`]), its snapshots for saves and tools.

use super::*;
use crate::program::{NONE, Program};

/// The tree state of one agent. Lives in [`BtAgent`](crate::BtAgent).
#[derive(Debug, Clone, Default)]
// In this order: the skip's reads first (a skipped tick reads a few of
// these and nothing else).
#[repr(C)]
pub struct AgentState {
    /// The per-node arrays in one allocation ([`StateMem`]): aux words
    /// (timers, counters, running children), impulse win counts (per
    /// [`Program::impulses`]), composites' cursors (per
    /// [`Node::cursor`](crate::Node::cursor)), node states (per node, in
    /// program order).
    pub(crate) mem: StateMem,
    /// Inputs seen by the last walk: the blackboard's and the world's
    /// generations, their low 32 bits (a walk is skipped only when both
    /// are equal; a false match needs 2^32 changes between two ticks).
    pub(crate) seen_inputs: (u32, u32),
    /// Active stimuli.
    pub(crate) stimuli: stimuli::Stimuli,
    /// Ticks so far.
    pub(crate) ticks: u64,
    pub(crate) seed: u64,
    /// Agent time in ms (sum of its tick periods).
    pub(crate) now_ms: u32,
    /// What the last tick was and what its walk leaves for the next tick
    /// ([`walked`] bits).
    pub(crate) walked: u8,
    /// The root's status after the whole tick (a repeating tree that
    /// finished is already running its next cycle).
    pub(crate) live: Status,
    /// The root's status after the last tick.
    pub(crate) status: Status,
    /// A redirect impulse ran its behavior at the native position in the
    /// last tick (the next walk checks for a behavior left running by an
    /// impulse that stopped).
    pub(crate) redirect_live: bool,
}

/// An agent's whole tree state as plain data, by node index (valid for the
/// program it was taken from: recordings keep the tree's content hash
/// beside it).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct StateSnapshot {
    /// Status and rule flags per node (packed bytes).
    pub nodes: Vec<u8>,
    /// Timers and counters.
    pub aux: Vec<u32>,
    /// Composites' cursors.
    pub cursors: Vec<u16>,
    /// Random state.
    pub rng: u64,
    /// Agent time in ms.
    pub now_ms: u32,
    /// Ticks so far.
    pub ticks: u64,
    /// Stimuli.
    pub stimuli: Vec<SnapshotStimulus>,
    /// Impulse win counts.
    pub impulse_fired: Vec<u32>,
    /// Root status after the last tick, and after the whole tick.
    pub status: (u8, u8),
    /// Redirect bookkeeping.
    pub redirect_live: bool,
    /// The seed.
    pub seed: u64,
}

/// A stimulus in a [`StateSnapshot`]. Saved as the array `[target, root,
/// priority, expires_ms, duration_ms]`, the form recordings have always
/// had.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "StimulusFields", into = "StimulusFields")]
pub struct SnapshotStimulus {
    /// The composite it competes in (node index).
    pub target: u32,
    /// The detached behavior's root node.
    pub root: u32,
    /// Position among the target's children (0 = highest priority).
    pub priority: u16,
    /// Agent time (ms) when it expires; `u32::MAX` for one inserted since
    /// the agent's last tick (its time starts at the next).
    pub expires_ms: u32,
    /// Its duration (ms).
    pub duration_ms: u32,
}

/// [`SnapshotStimulus`] as saved.
type StimulusFields = (u32, u32, u16, u32, u32);

impl From<StimulusFields> for SnapshotStimulus {
    fn from((target, root, priority, expires_ms, duration_ms): StimulusFields) -> Self {
        SnapshotStimulus {
            target,
            root,
            priority,
            expires_ms,
            duration_ms,
        }
    }
}

impl From<SnapshotStimulus> for StimulusFields {
    fn from(s: SnapshotStimulus) -> Self {
        (s.target, s.root, s.priority, s.expires_ms, s.duration_ms)
    }
}

impl AgentState {
    /// The random state (the seed's when the program draws no random
    /// numbers: it never moves).
    pub(crate) fn rng(&self) -> u64 {
        self.mem
            .rng()
            .unwrap_or(self.seed ^ crate::rng::SplitMix64::GAMMA)
    }

    /// The state as plain data (see [`StateSnapshot`]).
    pub fn snapshot(&self) -> StateSnapshot {
        StateSnapshot {
            nodes: self.mem.nodes().iter().map(|n| n.0).collect(),
            aux: self.mem.aux().to_vec(),
            cursors: self.mem.cursors().to_vec(),
            rng: self.rng(),
            now_ms: self.now_ms,
            ticks: self.ticks,
            stimuli: self
                .stimuli
                .iter()
                .map(|s| SnapshotStimulus {
                    target: s.target,
                    root: s.root,
                    priority: s.priority,
                    expires_ms: s.expires_ms,
                    duration_ms: s.duration_ms,
                })
                .collect(),
            impulse_fired: self.mem.impulses().to_vec(),
            status: (self.status as u8, self.live as u8),
            redirect_live: self.redirect_live,
            seed: self.seed,
        }
    }

    /// State from a snapshot of the same program; `None` when its sizes do
    /// not fit the program (another tree).
    pub fn from_snapshot(program: &Program, s: &StateSnapshot) -> Option<AgentState> {
        let blank = AgentState::new(program, s.seed);
        if s.nodes.len() != blank.mem.nodes().len()
            || s.aux.len() != blank.mem.aux().len()
            || s.cursors.len() != blank.mem.cursors().len()
            || s.impulse_fired.len() != blank.mem.impulses().len()
            || s.stimuli.iter().any(|st| {
                // A stimulus competes in a main-tree list with one of the
                // detached behaviors.
                st.target >= program.detached_start
                    || !program.nodes[st.target as usize]
                        .kind
                        .info()
                        .stimulus_target
                    || !program.detached.values().any(|&r| r == st.root)
            })
        {
            return None;
        }
        // Cursors within their children, remembered children real nodes.
        for n in &program.nodes {
            if n.cursor != NONE {
                let c = s.cursors[n.cursor as usize];
                if c != u16::MAX && usize::from(c) > n.child_count as usize {
                    return None;
                }
            }
            if n.aux != NONE && n.facts.aux == crate::kind::AuxInit::NoChild {
                let a = s.aux[n.aux as usize];
                if a != NONE && a as usize >= program.nodes.len() {
                    return None;
                }
            }
        }
        let status = |b: u8| NodeState((b & 7) << 4).status();
        let mut stimuli = stimuli::Stimuli::default();
        for st in &s.stimuli {
            stimuli.push(Stimulus {
                target: st.target,
                root: st.root,
                priority: st.priority,
                expires_ms: st.expires_ms,
                duration_ms: st.duration_ms,
            });
        }
        let mut mem = blank.mem;
        for (to, &b) in mem.nodes_mut().iter_mut().zip(&s.nodes) {
            *to = NodeState(b);
        }
        mem.aux_mut().copy_from_slice(&s.aux);
        mem.cursors_mut().copy_from_slice(&s.cursors);
        mem.impulses_mut().copy_from_slice(&s.impulse_fired);
        mem.set_rng(s.rng);
        Some(AgentState {
            mem,
            now_ms: s.now_ms,
            ticks: s.ticks,
            stimuli,
            redirect_live: s.redirect_live,
            status: status(s.status.0),
            seed: s.seed,
            seen_inputs: (u32::MAX, u32::MAX),
            walked: walked::FRESH,
            live: status(s.status.1),
        })
    }

    /// Fresh state for a program, seeded for reproducible random choices.
    pub fn new(program: &Program, seed: u64) -> Self {
        let mut mem = StateMem::new(
            program.aux_count as usize,
            program.impulses.len(),
            program.cursor_count as usize,
            program.nodes.len(),
            program.random,
            program.notes_unset,
        );
        mem.set_rng(seed ^ crate::rng::SplitMix64::GAMMA);
        for (s, n) in mem.nodes_mut().iter_mut().zip(&program.nodes) {
            s.add_flags(
                flag::PAUSED
                    | if n.does_complete {
                        flag::DOES_COMPLETE
                    } else {
                        0
                    },
            );
        }
        AgentState {
            mem,
            now_ms: 0,
            ticks: 0,
            // Allocated on the first insertion, not per agent up front.
            stimuli: stimuli::Stimuli::default(),
            redirect_live: false,
            status: Status::Idle,
            seed,
            seen_inputs: (u32::MAX, u32::MAX),
            walked: walked::FRESH,
            live: Status::Idle,
        }
    }

    /// Resets everything (statuses, flags, timers, stimuli) as at spawn.
    pub fn reset(&mut self, program: &Program, actions: &mut BtActions) {
        // Reports of the old activation are dropped (the fresh tree must
        // not take them); running actions are told to stop, in the next
        // tick's `Act` (aborts told already go).
        let aborted = actions.abort_all(self.has_untold_aborts());
        let now = self.now_ms;
        let ticks = self.ticks;
        *self = AgentState::new(program, self.seed);
        self.now_ms = now;
        self.ticks = ticks;
        if aborted {
            self.keep_aborted();
        }
    }

    /// Slots were aborted outside a tick: the next tick keeps them for its
    /// `Act` (see `walked::KEEP_ABORTED`).
    pub(crate) fn keep_aborted(&mut self) {
        self.walked |= super::walked::KEEP_ABORTED;
    }

    /// Slots aborted outside a tick are waiting for the next tick's `Act`
    /// (a second abort before it keeps them: the game was not told).
    pub(crate) fn has_untold_aborts(&self) -> bool {
        self.walked & super::walked::KEEP_ABORTED != 0
    }

    /// The aborts outside a tick were told (a finished tree walks no more:
    /// they are posted in the update that finds it finished).
    pub(crate) fn aborts_told(&mut self) {
        self.walked &= !super::walked::KEEP_ABORTED;
    }

    /// Bytes of tree state held for this agent (heap included).
    pub fn heap_bytes(&self) -> usize {
        self.mem.heap_bytes() + self.stimuli.heap_bytes()
    }

    /// Leaves running after the last tick, in tree order.
    pub fn active_leaves<'a>(&'a self, program: &'a Program) -> impl Iterator<Item = u32> + 'a {
        (0..program.nodes.len() as u32).filter(move |&i| {
            program.nodes[i as usize].is_leaf()
                && self.mem.node(i as usize).status() == Status::Running
                && self.mem.node(i as usize).bits() & flag::PAUSED == 0
        })
    }
}

/// The per-node arrays of an agent in one heap allocation of words:
/// `[node states (u8) | cursors (u16) | aux words | impulse counts]`, each
/// region aligned for its type, so that an agent's tree state is one
/// allocation and one pointer. Node states come first: the hottest
/// accesses (a node's state by index) need no offset.
///
/// Its offsets are packed into two words beside the allocation: 24 bytes in
/// every agent instead of 32 (a crowd's agents are read from memory every
/// tick; issue 29's 256 bytes per agent). Trees have at most
/// 20,000 nodes when compiled, so 15 bits hold each of the nodes, the
/// cursors' end, the aux words' start and the impulse counts.
#[derive(Debug, Clone, Default)]
pub(crate) struct StateMem {
    pub(crate) words: Box<[u32]>,
    /// Bits 0-14: the nodes (their states are bytes from 0; the cursors
    /// start on the next u16); bits 15-29: where the cursors end, in u16
    /// units (the aux words start on the next word); bit 30: the last two
    /// words of the allocation are the unset-read mask; bit 31: the two
    /// before them (or the last two) are the random state. Programs that
    /// draw no random numbers and read no key unset keep neither.
    shape: u32,
    /// Low 16 bits: where the aux words start, in words (the hot offset:
    /// timers and counters); high 16 bits: how many impulse counts follow
    /// the aux words (they end where the optional words start).
    places: u32,
}

impl StateMem {
    const UNSET: u32 = 1 << 30;
    const RNG: u32 = 1 << 31;
    /// The mask of the nodes' count, and of the cursors' end after a shift
    /// by [`Self::CUR_END`].
    const FIELD: u32 = (1 << 15) - 1;
    const CUR_END: u32 = 15;

    /// Zeroed arrays of these sizes (`rng`, `unset`: with the random state,
    /// with the unset-read mask).
    pub(crate) fn new(
        aux: usize,
        impulses: usize,
        cursors: usize,
        nodes: usize,
        rng: bool,
        unset: bool,
    ) -> StateMem {
        let cur_at = nodes.div_ceil(2);
        let cur_end = cur_at + cursors;
        let aux_at = cur_end.div_ceil(2);
        let imp_at = aux_at + aux;
        let extra = 2 * usize::from(rng) + 2 * usize::from(unset);
        // A compiled tree has at most 20,000 nodes (`BtProblem::TooLarge`):
        // its states and cursors end below 30,000 u16s.
        let field = |n: usize| {
            assert!(n <= Self::FIELD as usize, "a tree of at most 20,000 nodes");
            n as u32
        };
        StateMem {
            words: vec![0u32; imp_at + impulses + extra].into_boxed_slice(),
            shape: field(nodes)
                | (field(cur_end) << Self::CUR_END)
                | if rng { Self::RNG } else { 0 }
                | if unset { Self::UNSET } else { 0 },
            places: field(aux_at) | (field(impulses) << 16),
        }
    }

    /// How many nodes.
    #[inline(always)]
    fn n_nodes(&self) -> usize {
        (self.shape & Self::FIELD) as usize
    }

    /// Where the cursors end, in u16 units.
    #[inline(always)]
    fn cur_end(&self) -> usize {
        ((self.shape >> Self::CUR_END) & Self::FIELD) as usize
    }

    /// Where the aux words start, in words.
    #[inline(always)]
    fn aux_at(&self) -> usize {
        (self.places & 0xffff) as usize
    }

    /// Where the impulse counts start, in words.
    #[inline(always)]
    fn imp_at(&self) -> usize {
        self.imp_end() - (self.places >> 16) as usize
    }

    /// Bytes allocated.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.words.len() * 4
    }

    /// The allocation as words (the decision table writes whole arrays).
    #[inline(always)]
    pub(crate) fn words(&self) -> &[u32] {
        &self.words
    }

    /// The allocation as words.
    #[inline(always)]
    pub(crate) fn words_mut(&mut self) -> &mut [u32] {
        &mut self.words
    }

    /// Where the cursors start, in u16 units.
    #[inline(always)]
    pub(crate) fn cur_at(&self) -> usize {
        self.n_nodes().div_ceil(2)
    }

    #[inline(always)]
    pub(crate) fn bytes(&self) -> &[NodeState] {
        bytemuck::cast_slice::<u32, NodeState>(&self.words)
    }

    #[inline(always)]
    pub(crate) fn bytes_mut(&mut self) -> &mut [NodeState] {
        bytemuck::cast_slice_mut::<u32, NodeState>(&mut self.words)
    }

    /// Every node's state.
    #[inline(always)]
    pub(crate) fn nodes(&self) -> &[NodeState] {
        &self.bytes()[..self.n_nodes()]
    }

    /// Every node's state.
    #[inline(always)]
    pub(crate) fn nodes_mut(&mut self) -> &mut [NodeState] {
        let n = self.n_nodes();
        &mut self.bytes_mut()[..n]
    }

    /// Node `i`'s state (`i` a node of the program the state was made
    /// for).
    #[inline(always)]
    pub(crate) fn node(&self, i: usize) -> NodeState {
        self.bytes()[i]
    }

    /// Node `i`'s state.
    #[inline(always)]
    pub(crate) fn node_mut(&mut self, i: usize) -> &mut NodeState {
        &mut self.bytes_mut()[i]
    }

    #[inline(always)]
    pub(crate) fn aux(&self) -> &[u32] {
        &self.words[self.aux_at()..self.imp_at()]
    }

    #[inline(always)]
    pub(crate) fn aux_mut(&mut self) -> &mut [u32] {
        let (a, b) = (self.aux_at(), self.imp_at());
        &mut self.words[a..b]
    }

    /// Aux word `a`.
    #[inline(always)]
    pub(crate) fn aux_word(&self, a: usize) -> u32 {
        self.words[self.aux_at() + a]
    }

    /// Aux word `a`.
    #[inline(always)]
    pub(crate) fn aux_word_mut(&mut self, a: usize) -> &mut u32 {
        let at = self.aux_at();
        &mut self.words[at + a]
    }

    /// Where the impulse counts end (the optional words follow).
    #[inline(always)]
    pub(crate) fn imp_end(&self) -> usize {
        self.words.len()
            - 2 * usize::from(self.shape & Self::RNG != 0)
            - 2 * usize::from(self.shape & Self::UNSET != 0)
    }

    #[inline(always)]
    pub(crate) fn impulses(&self) -> &[u32] {
        &self.words[self.imp_at()..self.imp_end()]
    }

    #[inline(always)]
    pub(crate) fn impulses_mut(&mut self) -> &mut [u32] {
        let (a, b) = (self.imp_at(), self.imp_end());
        &mut self.words[a..b]
    }

    /// The random state, if kept.
    pub(crate) fn rng(&self) -> Option<u64> {
        (self.shape & Self::RNG != 0).then(|| {
            let at = self.imp_end();
            u64::from(self.words[at]) | u64::from(self.words[at + 1]) << 32
        })
    }

    /// Sets the random state (nothing if not kept).
    pub(crate) fn set_rng(&mut self, rng: u64) {
        if self.shape & Self::RNG != 0 {
            let at = self.imp_end();
            self.words[at] = rng as u32;
            self.words[at + 1] = (rng >> 32) as u32;
        }
    }

    /// Keys read unset so far (0 if not kept).
    pub(crate) fn unset(&self) -> u64 {
        if self.shape & Self::UNSET != 0 {
            let at = self.words.len() - 2;
            u64::from(self.words[at]) | u64::from(self.words[at + 1]) << 32
        } else {
            0
        }
    }

    /// Notes keys read unset (a program that keeps no mask reads none).
    #[cold]
    pub(crate) fn add_unset(&mut self, keys: u64) {
        debug_assert!(self.shape & Self::UNSET != 0, "no unset-read mask");
        if self.shape & Self::UNSET != 0 {
            let keys = self.unset() | keys;
            let at = self.words.len() - 2;
            self.words[at] = keys as u32;
            self.words[at + 1] = (keys >> 32) as u32;
        }
    }

    #[inline(always)]
    pub(crate) fn cursors(&self) -> &[u16] {
        let (a, b) = (self.cur_at(), self.cur_end());
        &bytemuck::cast_slice::<u32, u16>(&self.words)[a..b]
    }

    #[inline(always)]
    pub(crate) fn cursors_mut(&mut self) -> &mut [u16] {
        let (a, b) = (self.cur_at(), self.cur_end());
        &mut bytemuck::cast_slice_mut::<u32, u16>(&mut self.words)[a..b]
    }

    /// Cursor `c`.
    #[inline(always)]
    pub(crate) fn cursor(&self, c: usize) -> u16 {
        bytemuck::cast_slice::<u32, u16>(&self.words)[self.cur_at() + c]
    }

    /// Cursor `c`.
    #[inline(always)]
    pub(crate) fn cursor_mut(&mut self, c: usize) -> &mut u16 {
        let at = self.cur_at();
        &mut bytemuck::cast_slice_mut::<u32, u16>(&mut self.words)[at + c]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Recordings keep their form: a snapshot's stimulus is the array it
    /// always was, and reads back as the named fields.
    #[test]
    fn a_snapshot_stimulus_is_saved_as_the_array_recordings_have() {
        let s = SnapshotStimulus {
            target: 1,
            root: 2,
            priority: 3,
            expires_ms: 4,
            duration_ms: 5,
        };
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, "[1,2,3,4,5]");
        assert_eq!(serde_json::from_str::<SnapshotStimulus>(&json).unwrap(), s);
    }
}
