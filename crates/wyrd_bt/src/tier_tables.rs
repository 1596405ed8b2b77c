//! The tick's view of the tier groups' tables ([`Slotted`]): one query per
//! group with a table of its own, so a step iterates the due groups'
//! agents only.
//!
//! A Bevy system names its queries' types; a query per group would be 31
//! query parameters. [`TierTables`] is one parameter that declares the
//! access of "every slotted agent" and hands out, one at a time, a query
//! narrowed to one group's marker.
//!
//! The one place in Wyrd with `unsafe`: a system parameter made by hand,
//! as Bevy's own `Query` parameter is, because the queries are built at
//! run time (`QueryBuilder`) while Bevy's safe query parameters are typed.
//! What makes it sound is written at each block.
#![allow(
    unsafe_code,
    reason = "a hand-made system parameter, as Bevy's `Query`"
)]

use bevy::ecs::change_detection::Tick;
use bevy::ecs::entity::Entity;
use bevy::ecs::prelude::{Query, QueryBuilder, QueryState, With, World};
use bevy::ecs::query::FilteredAccessSet;
use bevy::ecs::system::{SystemChangeTick, SystemMeta, SystemParam, SystemParamValidationError};
use bevy::ecs::world::unsafe_world_cell::UnsafeWorldCell;

use crate::agent::{BehaviorTree, BtAgent};
use crate::blackboard::Blackboard;
use crate::runtime::BtActions;
use crate::tier::{BtTier, SLOTS, Slotted};

/// What the tick reads and writes of an agent.
pub(crate) type TickData = (
    Entity,
    &'static BehaviorTree,
    &'static mut BtAgent,
    &'static mut Blackboard,
    &'static mut BtActions,
    Option<&'static BtTier>,
);

/// The agents in the tier groups' own tables.
pub(crate) type SlottedQuery<'w, 's> = Query<'w, 's, TickData, SlottedFilter>;

/// Tiered agents with a group table's markers (`With<BtTier>`: markers
/// left on an agent whose tier went never make it tick twice).
type SlottedFilter = (With<BtTier>, With<Slotted>);

/// [`TierTables`]' queries: every slotted agent (whose access the system
/// declares), and one per entry of [`SLOTS`].
pub(crate) struct TierTablesState {
    all: QueryState<TickData, SlottedFilter>,
    slots: Vec<QueryState<TickData, SlottedFilter>>,
}

/// The agents in the tier groups' own tables: all of them, or one group's.
pub(crate) struct TierTables<'w, 's> {
    world: UnsafeWorldCell<'w>,
    state: &'s mut TierTablesState,
    ticks: SystemChangeTick,
}

impl TierTables<'_, '_> {
    /// Every slotted agent.
    pub(crate) fn all(&mut self) -> SlottedQuery<'_, '_> {
        self.state
            .all
            .update_archetypes_unsafe_world_cell(self.world);
        // SAFETY: the system declared this query's access (`init_access`),
        // and `&mut self` keeps any other query of this parameter from
        // living at the same time.
        unsafe {
            self.state.all.query_unchecked_manual_with_ticks(
                self.world,
                self.ticks.last_run(),
                self.ticks.this_run(),
            )
        }
    }

    /// The agents of the group whose table is at `slot` in [`SLOTS`]
    /// ([`BtTiers::due_slots`](crate::tier::BtTiers::due_slots)).
    pub(crate) fn group(&mut self, slot: usize) -> Option<SlottedQuery<'_, '_>> {
        let state = self.state.slots.get_mut(slot)?;
        // Only the queries used (a game without tiers updates none).
        state.update_archetypes_unsafe_world_cell(self.world);
        // SAFETY: a group's query reads and writes what `all` does, of
        // fewer agents (one more `With` filter); `&mut self` keeps any
        // other query of this parameter from living at the same time.
        Some(unsafe {
            state.query_unchecked_manual_with_ticks(
                self.world,
                self.ticks.last_run(),
                self.ticks.this_run(),
            )
        })
    }
}

// SAFETY: the access of every query handed out is declared: `all`'s
// (`init_access`), which covers each group's query (the same data, a
// narrower filter); each query's archetype cache is updated before the
// query is made (`all`, `group`).
unsafe impl SystemParam for TierTables<'_, '_> {
    type State = TierTablesState;
    type Item<'w, 's> = TierTables<'w, 's>;

    fn init_state(world: &mut World) -> Self::State {
        let all = QueryState::new(world);
        let slots = SLOTS
            .iter()
            .map(|slot| {
                let marker = (slot.register)(world);
                QueryBuilder::<TickData, SlottedFilter>::new(world)
                    .with_id(marker)
                    .build()
            })
            .collect();
        TierTablesState { all, slots }
    }

    fn init_access(
        state: &Self::State,
        system_meta: &mut SystemMeta,
        component_access_set: &mut FilteredAccessSet,
        world: &mut World,
    ) {
        state.all.init_access(
            Some(system_meta.name()),
            component_access_set,
            world.as_unsafe_world_cell_readonly(),
        );
    }

    unsafe fn get_param<'w, 's>(
        state: &'s mut Self::State,
        system_meta: &SystemMeta,
        world: UnsafeWorldCell<'w>,
        change_tick: Tick,
    ) -> Result<Self::Item<'w, 's>, SystemParamValidationError> {
        // SAFETY: `SystemChangeTick` reads no world data.
        let ticks =
            unsafe { SystemChangeTick::get_param(&mut (), system_meta, world, change_tick) }?;
        Ok(TierTables {
            world,
            state,
            ticks,
        })
    }
}
