//! The tick's shortcuts: a quiet tick skips its walk, a tick whose only
//! news is the running action's report resumes where the action is (the
//! decision table of fresh walks is in `fresh.rs`).

use super::*;
use crate::blackboard::Blackboard;
use crate::program::{Kind, NONE, Program};

/// Whether a tick may resume at the running action that reported instead
/// of walking down from the root, and which action: the inputs did not
/// change since the last walk, which was settled (see
/// [`walked::UNSETTLED`]), and the only news is the report of the one
/// running action. A walk from the root would then ask every guard and
/// relevancy on the way down again with the same inputs and get the same
/// answers (the program is skippable: nothing depends on time), try the
/// same higher priorities and see them fail the same way (a settled walk
/// is a fixed point), and reach the action with the same state; from there
/// each parent continues its loop with its child's result
/// ([`Interp::bubble`]). The two leave every node the same but for the
/// paused flag of finished nodes the walk would pass by, which stays as
/// the last walk left it (as after a skipped walk).
/// (Only asked in resumable programs, when [`quiet_since_walk`] holds.)
#[inline]
pub(crate) fn resume_point(
    program: &Program,
    state: &AgentState,
    actions: &BtActions,
) -> Option<u32> {
    let mut done = NONE;
    for a in &actions.slots {
        match a.state {
            ActionState::Succeeded | ActionState::Failed if done == NONE => done = a.leaf(),
            ActionState::Aborted => {}
            // Another report, or a running action beside it.
            _ => return None,
        }
    }
    (done != NONE
        && (done as usize) < program.nodes.len()
        && matches!(program.nodes[done as usize].kind, Kind::Action { .. })
        && state.mem.node(done as usize).status() == Status::Running)
        .then_some(done)
}

/// The premise of both shortcuts: nothing the tree reads changed since its
/// last walk, which was settled (inputs, world values, stimuli; the tree's
/// decisions do not depend on time), and the root runs.
#[inline(always)]
pub(crate) fn quiet_since_walk(
    program: &Program,
    state: &AgentState,
    blackboard: &Blackboard,
    env: &TickEnv<'_>,
) -> bool {
    program.skippable
        && !env.always_walk
        && state.walked & (walked::UNSETTLED | walked::KEEP_ABORTED) == 0
        && state.live == Status::Running
        && !state.redirect_live
        && state.stimuli.is_empty()
        && state.seen_inputs == inputs_key(blackboard.generation(), env.globals_generation)
        && state.mem.nodes().len() == program.nodes.len()
}

/// The event-driven skip, when [`quiet_since_walk`] holds: without an action
/// report either, the walk would repeat the last one, so the tick only
/// advances time and passes the action slots on (started ones now run,
/// aborted ones go). Returns whether the tick was decided so.
#[inline(always)]
pub(crate) fn skip_walk(state: &mut AgentState, actions: &mut BtActions, dt_ms: u32) -> bool {
    // A report: the tree walks to take it.
    if actions.settle(true, false) {
        return false;
    }
    state.now_ms = state.now_ms.wrapping_add(dt_ms);
    state.ticks += 1;
    // Nothing unsettled: a skip needs a settled walk (`quiet_since_walk`).
    state.walked = walked::SKIPPED;
    // The walk it stands for would have left the root running (a tick
    // after a finished cycle reports Running, not the cycle's end).
    state.status = Status::Running;
    true
}

/// Bits of `AgentState::walked`.
pub(crate) mod walked {
    /// No tick since the state was made (new, reset by a restart, taken
    /// from a snapshot or a save): `AgentState::last_tick` is `None`.
    pub(crate) const FRESH: u8 = 1;
    /// A node stopped running in the last walk (failed, was halted, was
    /// masked; or, in programs that are not resumable, finished at all):
    /// the next tick walks, even with unchanged inputs. Skipping a walk
    /// assumes walking again would change nothing, and that holds only
    /// for a settled walk: after a branch stopped, a prioritized list (or
    /// a reactive node) tries it again in the next walk, fresh, which may
    /// start its action again (BT.CPP's reactive nodes re-tick finished
    /// actions; Halo's prioritized list retries relevant higher
    /// priorities every tick).
    pub(crate) const UNSETTLED: u8 = 2;
    /// The last tick skipped its walk (see `skip_walk`).
    pub(crate) const SKIPPED: u8 = 4;
    /// The last tick resumed at an action that reported (see
    /// `resume_point`) instead of walking from the root.
    pub(crate) const RESUMED: u8 = 8;
    /// Slots were aborted outside a tick (the tree restarted, or the agent
    /// was bound to another tree or restored): the next tick walks and
    /// keeps them, so that the action systems are told in its `Act`, as
    /// of an abort in a walk. The walk clears the bit.
    pub(crate) const KEEP_ABORTED: u8 = 16;
}

/// What a walk remembers of its inputs: the low 32 bits of the
/// blackboard's and the world's generations (see `AgentState::seen_inputs`).
#[inline(always)]
pub(crate) fn inputs_key(blackboard: u64, world: u64) -> (u32, u32) {
    (blackboard as u32, world as u32)
}

/// Whether a commitment a Utility kept at the last walk ends by this tick
/// (agent time `now_ms` after it advanced, durations counted in ticks of
/// `count_us`, as `Interp::elapsed` counts them): the walk must happen, as
/// the decision may go to another option now. Ended commitments a walk saw
/// are marked ([`COMMIT_OVER`](super::utility::COMMIT_OVER)) and wake nothing.
#[inline]
pub(crate) fn commitment_ended(
    program: &Program,
    state: &AgentState,
    now_ms: u32,
    count_us: u32,
) -> bool {
    let dt = u64::from(count_us.max(1));
    let ticks_of = |ms: u32| (u64::from(ms) * 1_000_000 + dt * 501) / (dt * 1000);
    program.commits.iter().any(|&(u, commit_ms)| {
        let start = state.mem.aux_word(program.nodes[u as usize].aux as usize);
        start != super::utility::COMMIT_OVER
            && state.mem.node(u as usize).status() == Status::Running
            && ticks_of(now_ms.wrapping_sub(start)) >= ticks_of(commit_ms)
    })
}
