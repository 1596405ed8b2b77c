//! The agent components: [`BehaviorTree`] (which tree, how it runs) and
//! [`BtAgent`] (its tree state, problems, recorder).

use std::collections::HashMap;
use std::sync::Arc;

use bevy::asset::Handle;
use bevy::asset::{AsAssetId, AssetId};
use bevy::ecs::prelude::*;
use bevy::log::{error, warn};
use bevy::reflect::Reflect;
use bevy::reflect::std_traits::ReflectDefault;

use crate::asset::BtAsset;
use crate::blackboard::Blackboard;
use crate::clock::AgentClock;
use crate::persist::{RestoreReport, SavedTree};
use crate::problem::AgentProblem;
use crate::program::Program;
use crate::recorder::{Recorder, Recording};
use crate::resources::BtSettings;
use crate::runtime::{
    ActionState, AgentState, BtActions, Status, StimulusError, TickEnv, TickTrace,
    tick_agent_traced,
};
use crate::value::Value;

/// What happens when the root finishes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
pub enum RunMode {
    /// Start again as soon as the root finishes: a new activation of the
    /// root begins in the same tick it finished (the tick reports the
    /// finished cycle's status; no idle tick between cycles). For AI.
    #[default]
    Repeat,
    /// Stay finished until [`BtAgent::restart`] (evaluations, rule sessions).
    Once,
}

/// Runs a behavior tree on this entity.
///
/// A change to it (another tree, a rate, a mode) takes effect at the
/// agent's next tick: the tree tick sees it through Bevy's change
/// detection, as `Changed<BehaviorTree>` does. A change made with
/// `bypass_change_detection` may go unseen: another tree is not bound, and
/// a rate or `RunMode::Once` given to an agent that had neither is not
/// used (one that had a rate or ran once reads them every tick, and sees
/// such a change).
#[derive(Component, Debug, Clone, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Component, Debug)]
#[require(BtAgent, Blackboard, BtActions)]
pub struct BehaviorTree {
    /// The tree.
    pub handle: Handle<BtAsset>,
    /// Ticks per second for this agent (`None`: every fixed step of the
    /// schedule, Bevy's `Time<Fixed>`: 64 Hz unless the game sets it).
    /// Lower it for distant agents (for crowds, [`BtTier`](crate::BtTier)
    /// spreads the agents over the steps and keeps a budget; with a tier,
    /// this rate is not used).
    pub rate_hz: Option<f32>,
    /// Repeat or run once.
    pub mode: RunMode,
    /// Seed of the agent's random choices (same seed, same inputs: same run).
    pub seed: u64,
}

/// Lets `AssetChanged<BehaviorTree>` find agents whose tree asset was
/// (re)loaded.
impl AsAssetId for BehaviorTree {
    type Asset = BtAsset;

    fn as_asset_id(&self) -> AssetId<BtAsset> {
        self.handle.id()
    }
}

impl BehaviorTree {
    /// Runs `handle` at the plugin's rate, repeating.
    pub fn new(handle: Handle<BtAsset>) -> Self {
        BehaviorTree {
            handle,
            rate_hz: None,
            mode: RunMode::Repeat,
            seed: 0,
        }
    }

    /// Ticks this agent `hz` times per second. It cannot tick faster than
    /// the plugin's schedule: a rate at or above it ticks every update
    /// (as does 0, a negative rate or NaN).
    pub fn with_rate(mut self, hz: f32) -> Self {
        self.rate_hz = Some(hz);
        self
    }

    /// Runs once instead of repeating.
    pub fn once(mut self) -> Self {
        self.mode = RunMode::Once;
        self
    }

    /// Seeds the agent's random choices.
    pub fn with_seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
}

/// The tree state of an agent (added with [`BehaviorTree`]).
#[derive(Component, Debug, Default, Reflect)]
// The reflected type path from before the plugin file was split (scenes
// and remote clients name types by it).
#[type_path = "wyrd_bt::plugin"]
#[reflect(Component, Default, Debug, from_reflect = false)]
// In this order: what every tick reads first (the tree state, the program,
// the clock), then the rest; 104 bytes.
#[repr(C)]
pub struct BtAgent {
    /// Node statuses, rule flags, timers, stimuli.
    #[reflect(ignore)]
    pub(crate) state: AgentState,
    // The program and the packed tree state are the interpreter's: tools
    // read them through `BtAgent::state` and `Program`'s views.
    #[reflect(ignore)]
    pub(crate) program: Option<Arc<Program>>,
    /// The agent's clock (agent time in ms is derived from it) and its
    /// rate's accumulator.
    pub(crate) clock: AgentClock,
    /// Restarts taken in this tick (a byte: the limit is a handful).
    pub(crate) restarts_this_tick: u8,
    /// Its tree has a rate of its own or runs once (`BehaviorTree::rate_hz`,
    /// `BehaviorTree::mode`), as of the tree's last change: the tick reads
    /// the `BehaviorTree` then. An agent that ticks every update and
    /// repeats, as a crowd's do, is ticked without reading it (one stream
    /// of 48 bytes per agent less in a crowd's tick, about 1.3 ns per
    /// agent on the reference load).
    #[reflect(ignore)]
    pub(crate) paced: bool,
    pub(crate) finished: bool,
    pub(crate) restart: bool,
    /// What only some agents have (a trace, a recorder, breakpoints,
    /// problems, a restore report), boxed together: most agents have none
    /// of it, and a crowd's agents are read from memory every tick (with
    /// them inline the component took three cache lines, now two).
    #[reflect(ignore)]
    pub(crate) extras: Option<Box<AgentExtras>>,
    /// The tiers' step of the agent's last tick while it had a
    /// [`BtTier`](crate::BtTier) (here, not on the tier: a new tier
    /// inserted, or the tier removed, still counts the steps since); 0:
    /// none (the tiers' steps start at 1). Not an `Option`: 8 bytes less
    /// in every agent.
    pub(crate) tier_step: u64,
}

/// The rarely used part of a [`BtAgent`] (see `BtAgent::extras`).
#[derive(Debug, Default)]
pub(crate) struct AgentExtras {
    /// What the last tick did, when tracing is on ([`BtAgent::set_tracing`]).
    pub(crate) trace: Option<Box<TickTrace>>,
    /// The flight recorder, when this agent records.
    pub(crate) recorder: Option<Box<Recorder>>,
    /// Breakpoints that apply to this agent (see `BtBreakpoints`).
    pub(crate) breaks: Option<Box<crate::breakpoints::AgentBreaks>>,
    /// Asked to start recording this many ticks at the next tick.
    pub(crate) record_request: Option<u32>,
    /// The flight recorder was started because a breakpoint watches this
    /// agent (stopped again when none does).
    pub(crate) recording_for_breaks: bool,
    /// Unset keys already reported (see `AgentState::unset_reads`).
    pub(crate) unset_reported: u64,
    /// What went wrong (each once), for the inspector and tests.
    pub(crate) problems: Vec<AgentProblem>,
    /// What the last restore of a saved state kept and did not.
    pub(crate) restored: Option<Box<RestoreReport>>,
    /// The program (its address) `breaks` was chosen for: 0 before.
    pub(crate) breaks_bound_to: usize,
}

impl BtAgent {
    /// The rarely used part, if the agent has any of it.
    #[inline]
    pub(crate) fn extras(&self) -> Option<&AgentExtras> {
        self.extras.as_deref()
    }

    /// The rarely used part, made when first written.
    pub(crate) fn extras_mut(&mut self) -> &mut AgentExtras {
        self.extras.get_or_insert_default()
    }

    /// A recording belongs to one program: on another (a reload, a
    /// restore) it starts over, as long as it was.
    pub(crate) fn record_again(&mut self) {
        if let Some(r) = self.extras.as_deref_mut().and_then(|x| x.recorder.take()) {
            self.record(r.capacity());
        }
    }

    /// The flight recorder, while recording.
    #[inline]
    pub(crate) fn recorder_mut(&mut self) -> Option<&mut Recorder> {
        self.extras.as_deref_mut()?.recorder.as_deref_mut()
    }

    /// The breakpoints that apply to this agent.
    #[inline]
    pub(crate) fn breaks_mut(&mut self) -> Option<&mut crate::breakpoints::AgentBreaks> {
        self.extras.as_deref_mut()?.breaks.as_deref_mut()
    }

    /// What went wrong with this agent (binding, restoring, reading an
    /// unset key, an action's parameters), each once, oldest first. A
    /// problem stays after its cause is mended (a key set later), as a
    /// record of what happened; a tree that loads at last clears its
    /// `TreeNotLoaded`, and a saved reference whose target spawns later
    /// its `UnresolvedEntity`.
    pub fn problems(&self) -> &[AgentProblem] {
        self.extras().map_or(&[], |x| x.problems.as_slice())
    }

    /// Forgets the problems `stale` picks (a tree that loads at last).
    pub(crate) fn forget_problems(&mut self, stale: impl Fn(&AgentProblem) -> bool) {
        if let Some(x) = self.extras.as_deref_mut() {
            x.problems.retain(|p| !stale(p));
        }
    }

    /// Adds a problem unless the agent has it already; `true` when it is
    /// new (log it then). For plugins that restore agents.
    pub fn add_problem(&mut self, problem: AgentProblem) -> bool {
        if self.problems().contains(&problem) {
            return false;
        }
        self.extras_mut().problems.push(problem);
        true
    }

    /// Forgets a problem that no longer holds (a saved entity reference
    /// resolved at last); whether the agent had it.
    pub fn remove_problem(&mut self, problem: &AgentProblem) -> bool {
        let before = self.problems().len();
        self.forget_problems(|p| p == problem);
        self.problems().len() != before
    }

    /// What the last restore of a saved state ([`RestoreTree`](crate::RestoreTree)) kept and
    /// could not keep; `None` if the agent was not restored. (A restore
    /// that keeps less than everything is not a problem: an edited tree
    /// keeps what it can.)
    pub fn restore_report(&self) -> Option<&RestoreReport> {
        self.extras()?.restored.as_deref()
    }

    /// The tree file the agent runs (`""` before its tree is bound).
    pub fn tree_source(&self) -> &str {
        self.program.as_ref().map_or("", |p| p.source.as_str())
    }

    /// The leaf data (name, parameters) of a running action.
    #[inline]
    pub fn action_info(&self, action: &crate::ActiveAction) -> Option<&crate::ActionInfo> {
        self.program.as_ref()?.action_of(action.node)
    }

    /// A running action's parameters as its [`BtAction`](crate::BtAction)
    /// type, read by position (the tree was checked against the schema
    /// when it loaded).
    pub fn read_action<A: crate::BtAction>(
        &self,
        action: &crate::ActiveAction,
        blackboard: &Blackboard,
    ) -> Result<A, crate::ParamError> {
        let info = self
            .action_info(action)
            .ok_or_else(|| crate::ParamError::Missing {
                action: A::NAME.to_owned(),
                name: "(no program)".into(),
            })?;
        A::read(info, blackboard)
    }

    /// The agent's tree state: node statuses and rule flags, timers,
    /// stimuli (read it with [`AgentState`]'s and the
    /// [`Program`]'s views).
    #[inline]
    pub fn state(&self) -> &AgentState {
        &self.state
    }

    /// Records what each tick does (nodes ticked, actions started /
    /// finished / aborted) for [`BtAgent::trace`]. Off by default: an agent
    /// that is not traced pays nothing. The inspector turns it on for the
    /// agent it shows.
    pub fn set_tracing(&mut self, on: bool) {
        // The flight recorder and breakpoints read the trace: it stays
        // while recording or with breakpoints.
        let x = self.extras();
        let on = on || x.is_some_and(|x| x.recorder.is_some() || x.breaks.is_some());
        match (on, self.trace().is_some()) {
            (true, false) => self.extras_mut().trace = Some(Box::default()),
            (false, true) => self.extras_mut().trace = None,
            _ => {}
        }
    }

    /// What the last tick did, if tracing is on.
    pub fn trace(&self) -> Option<&TickTrace> {
        self.extras()?.trace.as_deref()
    }

    /// Starts the flight recorder at the next tick, keeping the last
    /// `ticks` ticks (from the agent's state now: see [`Recorder`]), at
    /// most [`MAX_RECORDED_TICKS`](crate::MAX_RECORDED_TICKS) (its room is
    /// taken at once: 4 billion ticks asked over the remote protocol took
    /// a terabyte and the game died). Tracing is on while it records.
    pub fn record(&mut self, ticks: usize) {
        let ticks = ticks.clamp(1, crate::MAX_RECORDED_TICKS);
        self.extras_mut().record_request = Some(ticks as u32);
    }

    /// The agent's tree state keyed by node paths, to save with the game
    /// (restore it with [`RestoreTree`](crate::RestoreTree)); `None` before the tree is bound.
    pub fn save_state(&self, blackboard: &Blackboard, actions: &BtActions) -> Option<SavedTree> {
        let p = self.program.as_ref()?;
        Some(self.state.save(p, actions, blackboard, self.clock.us()))
    }

    /// Stops and drops the flight recorder. An agent a breakpoint watches
    /// starts its lead-up recording again at its next tick (the
    /// debugger's own: a hit shows the ticks before it).
    pub fn stop_recording(&mut self) {
        self.stop_lead_up();
        if let Some(x) = self.extras.as_deref_mut()
            && let Some(b) = &x.breaks
            && b.lead_up > 0
        {
            x.record_request = Some(u32::try_from(b.lead_up).unwrap_or(u32::MAX));
            x.recording_for_breaks = true;
        }
    }

    /// Whether a breakpoint watches this agent and keeps a lead-up
    /// recording of it (started again after [`BtAgent::stop_recording`]).
    pub fn breakpoints_watch(&self) -> bool {
        self.extras()
            .and_then(|x| x.breaks.as_deref())
            .is_some_and(|b| b.lead_up > 0)
    }

    /// Stops the recording the breakpoints started, for an agent no
    /// breakpoint watches any more.
    pub(crate) fn stop_lead_up(&mut self) {
        if let Some(x) = self.extras.as_deref_mut() {
            x.recorder = None;
            x.record_request = None;
            x.recording_for_breaks = false;
        }
    }

    /// The flight recorder, while recording.
    pub fn recorder(&self) -> Option<&Recorder> {
        self.extras()?.recorder.as_deref()
    }

    /// What the recorder holds, as a file's data
    /// ([`Recording`], replayed with `wyrd sim --replay`).
    pub fn recording(&self) -> Option<Recording> {
        Some(self.recorder()?.recording(self.program.as_ref()?))
    }

    /// The program the agent runs, once loaded.
    pub fn program(&self) -> Option<&Arc<Program>> {
        self.program.as_ref()
    }

    /// The root's status after the last tick.
    pub fn status(&self) -> Status {
        self.state.status
    }

    /// Whether a [`RunMode::Once`] tree has finished.
    pub fn is_finished(&self) -> bool {
        self.finished
    }

    /// Asks for a clean restart (all nodes reset, actions aborted) on the
    /// next tick. Bounded: more than [`BtPlugin::max_restarts_per_tick`](crate::BtPlugin::max_restarts_per_tick) in
    /// one tick is reported as an error.
    pub fn restart(&mut self) {
        self.restart = true;
    }

    /// Inserts a named behavior at the composite `at` (a path) for
    /// `seconds`. See [`AgentState::insert_stimulus`].
    pub fn insert_stimulus(
        &mut self,
        at: &str,
        behavior: &str,
        priority: u16,
        seconds: f32,
    ) -> Result<(), StimulusError> {
        let Some(p) = &self.program else {
            return Err(StimulusError::NotBound);
        };
        self.state
            .insert_stimulus(p, at, behavior, priority, seconds)?;
        let recorder = self
            .extras
            .as_deref_mut()
            .and_then(|x| x.recorder.as_deref_mut());
        if let (Some(rec), Some(&root)) = (recorder, p.detached.get(behavior)) {
            rec.note_stimulus(&self.state, root);
        }
        Ok(())
    }

    /// Paths of the leaves running after the last tick.
    pub fn active_paths(&self) -> Vec<String> {
        match &self.program {
            Some(p) => self
                .state
                .active_leaves(p)
                .map(|i| self.state.display_path(p, i))
                .collect(),
            None => Vec::new(),
        }
    }
}

/// What every agent's update reads besides its own components, set up
/// once per update.
pub(crate) struct TickContext<'a> {
    pub(crate) settings: &'a BtSettings,
    /// The world values each program reads.
    pub(crate) world_values: &'a HashMap<AssetId<BtAsset>, Vec<Option<Value>>>,
    pub(crate) globals_generation: u64,
    /// The update's time step, s.
    pub(crate) dt: f32,
    /// The same in µs, rounded once.
    pub(crate) update_step_us: u64,
    /// The tick tiers' plan of this step.
    pub(crate) tiers: &'a crate::tier::BtTiers,
}

/// What an agent's tick reads besides its components: `step_us`, what
/// its clock advanced by; `tiered`, whether a tier made it due; `repeat`,
/// its tree's mode. The tree is read only for a program that reads world
/// values.
#[inline]
fn tick_env<'a>(
    program: &Program,
    tree: &BehaviorTree,
    cx: &TickContext<'a>,
    step_us: u64,
    tiered: bool,
    repeat: bool,
) -> TickEnv<'a> {
    TickEnv {
        stub: None,
        globals: if program.globals.is_empty() {
            &[]
        } else {
            cx.world_values
                .get(&tree.handle.id())
                .map_or(&[], Vec::as_slice)
        },
        globals_generation: cx.globals_generation,
        repeat,
        always_walk: false,
        // A tiered agent counts durations in the schedule's steps: a
        // tick that advances by many still sees a duration end at the
        // first of its ticks after it passed.
        dt_us: if tiered { cx.update_step_us } else { step_us }.min(u64::from(u32::MAX)) as u32,
    }
}

/// What an update did to an agent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Updated {
    /// Its tree ticked: its slots are this tick's.
    Ticked,
    /// Its tree is finished and did not tick, but aborts made outside a
    /// tick (a restart, another tree, a restore) go to the game now.
    Told,
    /// Nothing: its slots are as the game last saw them.
    Idle,
}

impl BtAgent {
    /// The steps since the agent's last tick under a tier (1 for its first
    /// one), if it has not ticked in `step` yet (a woken agent may also be
    /// due); records the tick. `tiered`: it has a tier now; without one,
    /// the steps are taken once, for the first tick after the tier went.
    #[inline]
    pub(crate) fn take_tier_steps(&mut self, step: u64, tiered: bool) -> Option<u64> {
        let steps = match self.tier_step {
            0 if tiered => 1,
            0 => return None,
            last if last == step => return None,
            last => step.saturating_sub(last).max(1),
        };
        self.tier_step = if tiered { step } else { 0 };
        Some(steps)
    }

    /// One update of the agent: a restart it was asked for, its rate, its
    /// tick (recorded when it records), keys it read unset. Returns what it
    /// did. `tier_step_us`: a tiered agent due in this step, and its step
    /// (the tier decides, not the tree's rate).
    pub(crate) fn update(
        &mut self,
        tree: &BehaviorTree,
        bb: &mut Blackboard,
        actions: &mut BtActions,
        cx: &TickContext<'_>,
        tier_step_us: Option<u64>,
    ) -> Updated {
        // Taken out and put back, not cloned: an `Arc` clone per agent and
        // tick is an atomic write to one cache line shared by every thread.
        let Some(program) = self.program.take() else {
            return Updated::Idle;
        };
        let ticked = if self.is_plain(cx.settings) {
            self.update_plain(&program, tree, bb, actions, cx, tier_step_us)
        } else {
            self.update_with(&program, tree, bb, actions, cx, tier_step_us)
        };
        self.program = Some(program);
        ticked
    }

    /// Nothing but its tick to do: no restart asked, not finished, nothing
    /// recorded, traced or watched by breakpoints (a crowd's agents, every
    /// tick).
    #[inline]
    fn is_plain(&self, settings: &BtSettings) -> bool {
        !self.restart
            && !self.finished
            && !self.paced
            && self.extras.is_none()
            && settings.record_all.is_none()
    }

    /// [`BtAgent::update_with`] of a plain agent (see `is_plain`): the same
    /// tick without the checks for what it does not have.
    #[inline(always)]
    fn update_plain(
        &mut self,
        program: &Program,
        tree: &BehaviorTree,
        bb: &mut Blackboard,
        actions: &mut BtActions,
        cx: &TickContext<'_>,
        tier_step_us: Option<u64>,
    ) -> Updated {
        // Not paced: no rate of its own, and it repeats.
        let Some((step_us, step_ms)) = self.take_step(None, cx, tier_step_us) else {
            return Updated::Idle;
        };
        let env = tick_env(program, tree, cx, step_us, tier_step_us.is_some(), true);
        let status = tick_agent_traced(program, &mut self.state, bb, actions, step_ms, env, None);
        self.end_tick(program, false, status);
        Updated::Ticked
    }

    /// The step (µs) the agent's clock advances by in this update, and the
    /// agent time (ms) it advanced, if the agent is due: by its tier
    /// (`tier_step_us`) or its tree's rate.
    #[inline(always)]
    fn take_step(
        &mut self,
        rate_hz: Option<f32>,
        cx: &TickContext<'_>,
        tier_step_us: Option<u64>,
    ) -> Option<(u64, u32)> {
        let step_us = match tier_step_us {
            Some(step) => step,
            None => self.clock.due(rate_hz, cx.dt, cx.update_step_us)?,
        };
        self.restarts_this_tick = 0;
        Some((step_us, self.clock.advance(step_us)))
    }

    /// After a tick: keys it read unset are said (once each), and a tree
    /// that runs once (`once`) is finished when its root is.
    #[inline(always)]
    fn end_tick(&mut self, program: &Program, once: bool, status: Status) {
        if self.state.unset_reads() != 0 {
            self.report_unset_reads(program);
        }
        if once && status != Status::Running {
            self.finished = true;
        }
    }

    fn update_with(
        &mut self,
        program: &Program,
        tree: &BehaviorTree,
        bb: &mut Blackboard,
        actions: &mut BtActions,
        cx: &TickContext<'_>,
        tier_step_us: Option<u64>,
    ) -> Updated {
        self.take_restart(program, actions, cx.settings.max_restarts_per_tick);
        if self.finished {
            // A finished tree walks no more: its aborts are told in this
            // update (those made outside a tick) or were told in the last
            // (its last walk's), and then go.
            if self.state.has_untold_aborts() {
                self.state.aborts_told();
                return Updated::Told;
            }
            if actions
                .slots
                .iter()
                .any(|a| a.state == ActionState::Aborted)
            {
                actions.slots.retain(|a| a.state != ActionState::Aborted);
            }
            return Updated::Idle;
        }
        let Some((step_us, step_ms)) = self.take_step(tree.rate_hz, cx, tier_step_us) else {
            return Updated::Idle;
        };
        // What the clock advanced, as recordings keep it.
        let advance_us = step_us.min(u64::from(u32::MAX)) as u32;
        let repeat = tree.mode == RunMode::Repeat;
        let env = tick_env(program, tree, cx, step_us, tier_step_us.is_some(), repeat);
        self.start_recording(program, tree, bb, actions, &env, cx.settings, step_us);
        let state = &mut self.state;
        let mut extras = self.extras.as_deref_mut();
        if let Some(x) = extras.as_deref_mut() {
            if let Some(rec) = x.recorder.as_deref_mut() {
                rec.before_tick(
                    program,
                    state.ticks() + 1,
                    (advance_us, env.dt_us),
                    bb,
                    actions,
                    env.globals,
                );
            }
            if let Some(b) = x.breaks.as_deref_mut() {
                b.before_tick(state);
            }
        }
        let globals = env.globals;
        let trace = extras.as_deref_mut().and_then(|x| x.trace.as_deref_mut());
        let status = tick_agent_traced(program, state, bb, actions, step_ms, env, trace);
        if let Some(x) = extras
            && let Some(trace) = x.trace.as_deref()
        {
            if let Some(rec) = x.recorder.as_deref_mut() {
                rec.after_tick(program, state, bb, trace, status);
            }
            if let Some(b) = x.breaks.as_deref_mut() {
                b.after_tick(program, state, bb, globals, trace);
            }
        }
        self.end_tick(program, !repeat, status);
        Updated::Ticked
    }

    /// A restart asked for (`BtAgent::restart`) starts the tree afresh,
    /// at most `max` times in one tick (a game that restarts an agent from
    /// the agent's own reaction would loop).
    fn take_restart(&mut self, program: &Program, actions: &mut BtActions, max: u32) {
        if !self.restart {
            return;
        }
        self.restart = false;
        // The count is a `u8`: a limit above it is the most it counts.
        let max = max.min(u32::from(u8::MAX));
        if u32::from(self.restarts_this_tick) >= max {
            error!(
                "{}: restarted more than {max} times in one tick; not restarting again this tick",
                program.source
            );
            return;
        }
        self.restarts_this_tick += 1;
        if let Some(rec) = self.recorder_mut() {
            rec.note_restart();
        }
        self.state.reset(program, actions);
        self.finished = false;
    }

    /// The flight recorder starts (when asked, or for every agent with
    /// `BtSettings::record_all`) from the agent as it is now.
    #[allow(clippy::too_many_arguments, reason = "the tick's inputs")]
    fn start_recording(
        &mut self,
        program: &Program,
        tree: &BehaviorTree,
        bb: &Blackboard,
        actions: &BtActions,
        env: &TickEnv<'_>,
        settings: &BtSettings,
        step_us: u64,
    ) {
        // Read, and written only when there is one.
        let request = self
            .extras
            .as_deref_mut()
            .and_then(|x| x.record_request.take());
        let Some(n) = request.map(|n| n as usize).or(settings.record_all) else {
            return;
        };
        let n = n.clamp(1, crate::MAX_RECORDED_TICKS);
        if request.is_none() && self.recorder().is_some() {
            return;
        }
        let recorder = Box::new(Recorder::new(
            program,
            &self.state,
            bb,
            actions,
            env.globals,
            n,
            tree.mode == RunMode::Repeat,
            self.clock.us() - step_us,
        ));
        let x = self.extras_mut();
        x.recorder = Some(recorder);
        if x.trace.is_none() {
            // Sized up front: a recording agent allocates nothing per tick
            // (a tick ticks each node about once, loops aside).
            x.trace = Some(Box::new(TickTrace {
                ticked: Vec::with_capacity(program.len() * 4),
                actions: Vec::with_capacity(program.action_capacity() * 4),
                ..TickTrace::default()
            }));
        }
    }

    /// A condition read a key the game has not set: said once per key.
    fn report_unset_reads(&mut self, program: &Program) {
        let reported = self.extras().map_or(0, |x| x.unset_reported);
        let new_keys = self.state.unset_reads() & !reported;
        if new_keys == 0 {
            return;
        }
        self.extras_mut().unset_reported |= new_keys;
        for k in (0..64).filter(|k| new_keys & (1u64 << k) != 0) {
            let key = program.blackboard_keys().get(k).map_or("?", String::as_str);
            let problem = AgentProblem::UnsetKey {
                tree: program.source().to_owned(),
                key: key.to_owned(),
            };
            warn!("{problem}");
            self.add_problem(problem);
        }
    }
}
