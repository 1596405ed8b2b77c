//! The bookkeeping behind the summary: behavior labels from the tree,
//! behaviors entered, interruptions, stimuli.

#[allow(unused_imports, reason = "each file uses part of the shared names")]
use super::*;

/// Per-AI bookkeeping for labels and the summary.
#[derive(Component, Debug, Clone)]
pub struct Tracked {
    /// The running leaf (NONE: none yet).
    pub leaf: u32,
    /// Its behavior label (index into [`Behaviors::labels`]).
    pub label: u16,
    /// Its top-level behavior (index into [`Behaviors::labels`]).
    pub top: u16,
    pub(crate) rank: [u16; 4],
    pub(crate) stimulus: bool,
    /// The agent's tick count when its stimulus was (last) inserted.
    pub(crate) stimulus_at: u64,
    /// The last tick it ended with the stimulus in its tree.
    pub(crate) stimulus_seen: u64,
}

impl Default for Tracked {
    fn default() -> Self {
        Tracked {
            leaf: NONE,
            label: 0,
            top: 0,
            rank: [u16::MAX; 4],
            stimulus: false,
            stimulus_at: 0,
            stimulus_seen: 0,
        }
    }
}

/// Behavior labels of the tree's leaves, computed once per program: a
/// behavior is a child of a prioritized list (Halo's competitions), so a
/// leaf's label is the chain of those above it (`engage/fight`) and its
/// rank is their positions (lower ranks are higher priorities).
#[derive(Resource, Debug, Default)]
pub struct Behaviors {
    pub(crate) program: Option<Arc<Program>>,
    /// Distinct labels; 0 is "-" (nothing running).
    pub labels: Vec<String>,
    pub(crate) leaf_label: Vec<u16>,
    pub(crate) leaf_top: Vec<u16>,
    /// Per label: one of its parts is a behavior passengers never enter.
    pub(crate) flight: Vec<bool>,
    pub(crate) leaf_rank: Vec<[u16; 4]>,
    pub(crate) keys: Keys,
}

/// Blackboard slots and tag bits, looked up once.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Keys {
    pub(crate) grenade_near: u16,
    pub(crate) health_low: u16,
    pub(crate) scared: u16,
    pub(crate) leader_dead: u16,
    pub(crate) has_target: u16,
    pub(crate) target_visible: u16,
    pub(crate) target_in_range: u16,
    pub(crate) cover_available: u16,
    pub(crate) under_fire: u16,
    pub(crate) has_last_known: u16,
    pub(crate) player_in_vehicle: u16,
    pub(crate) vehicle_near: u16,
    pub(crate) ammo: u16,
    pub(crate) target: u16,
    pub(crate) last_known: u16,
    pub(crate) cover: u16,
    pub(crate) infantry: u64,
    pub(crate) driver: u64,
    pub(crate) passenger: u64,
    pub(crate) unaware: u64,
    pub(crate) alert: u64,
}

impl Behaviors {
    fn intern(&mut self, label: &str) -> u16 {
        match self.labels.iter().position(|l| l == label) {
            Some(i) => i as u16,
            None => {
                self.labels.push(label.to_owned());
                (self.labels.len() - 1) as u16
            }
        }
    }

    /// Prepares labels for `program` (once per program).
    pub(crate) fn prepare(&mut self, program: &Arc<Program>) -> Result<(), String> {
        if self
            .program
            .as_ref()
            .is_some_and(|p| Arc::ptr_eq(p, program))
        {
            return Ok(());
        }
        self.labels = vec!["-".to_owned()];
        let n = program.len();
        self.leaf_label = vec![0; n];
        self.leaf_top = vec![0; n];
        self.leaf_rank = vec![[u16::MAX; 4]; n];
        for leaf in program.all_nodes().filter(|n| n.is_leaf()) {
            let i = leaf.index();
            let mut chain: Vec<(String, u16)> = Vec::new();
            let mut j = leaf;
            loop {
                let Some(parent) = j.parent() else {
                    if j.is_detached() {
                        // A detached behavior (a stimulus): its rank comes
                        // from where it is inserted, at run time.
                        chain.push((j.name().trim_start_matches('~').to_owned(), 0));
                    }
                    break;
                };
                if parent.is_prioritized_list() {
                    let k = parent
                        .children()
                        .position(|c| c.index() == j.index())
                        .unwrap_or(0);
                    // An impulse is labelled with the behavior it runs.
                    let name = match j.impulse() {
                        Some(_) => j.children().next().map_or(j.name(), |c| c.name()),
                        None => j.name(),
                    };
                    chain.push((name.to_owned(), 2 * k as u16 + 1));
                }
                j = parent;
            }
            chain.reverse();
            if chain.is_empty() {
                continue;
            }
            let label: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
            let label = label.join("/");
            self.leaf_label[i as usize] = self.intern(&label);
            let top = chain[0].0.clone();
            self.leaf_top[i as usize] = self.intern(&top);
            for (d, (_, r)) in chain.iter().take(4).enumerate() {
                self.leaf_rank[i as usize][d] = *r;
            }
        }
        let key = |name: &str| {
            program
                .bb_key(name)
                .ok_or_else(|| format!("{TREE} declares no blackboard key {name:?}"))
        };
        let tag = |name: &str| {
            program
                .tag_bit(name)
                .ok_or_else(|| format!("{TREE} declares no tag {name:?}"))
        };
        self.keys = Keys {
            grenade_near: key("grenade_near")?,
            health_low: key("health_low")?,
            scared: key("scared")?,
            leader_dead: key("leader_dead")?,
            has_target: key("has_target")?,
            target_visible: key("target_visible")?,
            target_in_range: key("target_in_range")?,
            cover_available: key("cover_available")?,
            under_fire: key("under_fire")?,
            has_last_known: key("has_last_known")?,
            player_in_vehicle: key("player_in_vehicle")?,
            vehicle_near: key("vehicle_near")?,
            ammo: key("ammo")?,
            target: key("target")?,
            last_known: key("last_known")?,
            cover: key("cover")?,
            infantry: tag("infantry")?,
            driver: tag("driver")?,
            passenger: tag("passenger")?,
            unaware: tag("unaware")?,
            alert: tag("alert")?,
        };
        self.flight = self
            .labels
            .iter()
            .map(|l| l.split('/').any(|part| PASSENGER_NEVER.contains(&part)))
            .collect();
        self.program = Some(program.clone());
        Ok(())
    }

    /// The label of a label index.
    pub fn label(&self, i: u16) -> &str {
        self.labels.get(i as usize).map_or("-", String::as_str)
    }
}

/// What the run did (the headless summary).
#[derive(Resource, Debug, Default)]
pub struct Summary {
    /// Top-level behaviors entered, by label index.
    pub entered: HashMap<u16, u64>,
    /// Running actions stopped by the tree.
    pub interruptions: u64,
    /// ... of which by a higher-priority behavior taking over.
    pub higher_priority_interruptions: u64,
    /// (from label, to label) → count, for higher-priority interruptions.
    pub interruption_pairs: HashMap<(u16, u16), u64>,
    /// "Leader died → flee" stimuli inserted.
    pub stimuli_fired: u64,
    /// ... that ran out.
    pub stimuli_expired: u64,
    /// ... whose AI died first.
    pub stimuli_cut_short: u64,
    /// ... inserted again while running (the running one starts over).
    pub stimuli_refreshed: u64,
    /// Fewest and most ticks an expired stimulus competed in.
    pub stimulus_ticks: Option<(u64, u64)>,
    /// Impulses fired by AIs that died, per impulse.
    pub impulses_of_dead: Vec<u64>,
    /// AIs killed.
    pub killed: u64,
    /// Leaders killed.
    pub leaders_killed: u64,
    /// Ticks an AI spent as a passenger.
    pub passenger_ticks: u64,
    /// ... with its leader dead.
    pub passenger_ticks_leader_dead: u64,
    /// ... with a live "leader died" stimulus.
    pub passenger_ticks_stimulus: u64,
    /// Times a passenger entered a flight behavior (must stay 0).
    pub passenger_flight: u64,
    /// Vehicles entered by AIs.
    pub vehicles_entered: u64,
    /// Sum of the tree's decide time (ns) and agent ticks, for ns per
    /// agent-tick.
    pub decide_ns: u64,
    /// Agent ticks.
    pub agent_ticks: u64,
}

/// Labels, behaviors entered, interruptions, stimuli expiring.
pub(crate) fn track(
    behaviors: Res<Behaviors>,
    mut summary: ResMut<Summary>,
    mut ais: Query<(&BtAgent, &BtActions, &Blackboard, &mut Tracked)>,
) {
    let Some(labelled) = &behaviors.program else {
        return;
    };
    let k = behaviors.keys;
    let leader_dead_key = k.leader_dead;
    for (agent, actions, bb, mut tracked) in &mut ais {
        // Labels are for the program they were made from.
        let Some(program) = agent.program().filter(|p| Arc::ptr_eq(p, labelled)) else {
            continue;
        };
        let passenger = bb.tags() & k.passenger != 0;
        if passenger {
            summary.passenger_ticks += 1;
            if bb.get_index(leader_dead_key) == Some(Value::Bool(true)) {
                summary.passenger_ticks_leader_dead += 1;
            }
            if !agent.state().stimuli().is_empty() {
                summary.passenger_ticks_stimulus += 1;
            }
        }
        if !agent.state().stimuli().is_empty() {
            tracked.stimulus_seen = agent.state().ticks();
        } else if tracked.stimulus {
            tracked.stimulus = false;
            summary.stimuli_expired += 1;
            // The ticks it competed in.
            let lived = tracked.stimulus_seen - tracked.stimulus_at;
            let (lo, hi) = summary.stimulus_ticks.unwrap_or((lived, lived));
            summary.stimulus_ticks = Some((lo.min(lived), hi.max(lived)));
        }
        let leaf = agent.state().active_leaves(program).next().unwrap_or(NONE);
        if leaf == tracked.leaf {
            continue;
        }
        let (label, top, mut rank) = if leaf == NONE {
            (0, 0, [u16::MAX; 4])
        } else {
            let l = leaf as usize;
            (
                behaviors.leaf_label[l],
                behaviors.leaf_top[l],
                behaviors.leaf_rank[l],
            )
        };
        if leaf != NONE && leaf as usize >= program.main_len() {
            // A stimulus ranks just above the child at its priority.
            if let Some(s) = agent.state().stimulus_of(program, leaf) {
                // (Stimuli are inserted at the root here: rank among its
                // children.)
                rank = [s.priority().saturating_mul(2), u16::MAX, u16::MAX, u16::MAX];
            }
        }
        // A passenger entering anything with flight in it, at any depth.
        if passenger
            && behaviors
                .flight
                .get(label as usize)
                .copied()
                .unwrap_or(false)
        {
            summary.passenger_flight += 1;
        }
        let interrupted = actions.iter().any(|a| a.state == ActionState::Aborted);
        if interrupted && tracked.leaf != NONE {
            summary.interruptions += 1;
            if rank < tracked.rank {
                summary.higher_priority_interruptions += 1;
                *summary
                    .interruption_pairs
                    .entry((tracked.label, label))
                    .or_default() += 1;
            }
        }
        if top != tracked.top && top != 0 {
            *summary.entered.entry(top).or_default() += 1;
        }
        *tracked = Tracked {
            leaf,
            label,
            top,
            rank,
            ..*tracked
        };
    }
}

pub(crate) fn count_ticks(
    stats: Res<BtStats>,
    mut summary: ResMut<Summary>,
    mut clock: ResMut<Clock>,
) {
    clock.ticks += 1;
    summary.decide_ns += stats.decide_ns;
    summary.agent_ticks += u64::from(stats.ticked);
}

/// Counts as the summary prints them.
pub fn summary_json(world: &World) -> serde_json::Value {
    let tiers: serde_json::Map<String, serde_json::Value> = super::tiers::counts(world)
        .into_iter()
        .map(|(every, n)| (format!("every {every}"), n.into()))
        .collect();
    let s = world.resource::<Summary>();
    let b = world.resource::<Behaviors>();
    let entered: BTreeMap<&str, u64> = s.entered.iter().map(|(k, v)| (b.label(*k), *v)).collect();
    let mut pairs: Vec<(String, u64)> = s
        .interruption_pairs
        .iter()
        .map(|((from, to), n)| (format!("{} -> {}", b.label(*from), b.label(*to)), *n))
        .collect();
    pairs.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let pairs: serde_json::Map<String, serde_json::Value> =
        pairs.into_iter().map(|(k, v)| (k, v.into())).collect();
    let alive = world
        .try_query::<&Ai>()
        .map_or(0, |mut q| q.iter(world).count());
    let mut impulses = BTreeMap::new();
    if let Some(p) = &b.program {
        let mut q = world.try_query::<&BtAgent>();
        for imp in p.impulses() {
            let i = imp.index();
            let alive: u64 = q.as_mut().map_or(0, |q| {
                q.iter(world)
                    .map(|a| u64::from(a.state().impulse_counts().get(i).copied().unwrap_or(0)))
                    .sum()
            });
            let n = alive + s.impulses_of_dead.get(i).copied().unwrap_or(0);
            impulses.insert(imp.node().name().to_owned(), n);
        }
    }
    serde_json::json!({
        "ticks": world.resource::<Clock>().ticks,
        "agents_alive": alive,
        "killed": s.killed,
        "leaders_killed": s.leaders_killed,
        "player_deaths": world.resource::<Player>().deaths,
        "entered": entered,
        "interruptions": s.interruptions,
        "higher_priority_interruptions": s.higher_priority_interruptions,
        "interruption_pairs": pairs,
        "stimuli_fired": s.stimuli_fired,
        "stimuli_expired": s.stimuli_expired,
        "stimuli_cut_short": s.stimuli_cut_short,
        "stimuli_refreshed": s.stimuli_refreshed,
        "stimuli_running": world
            .try_query::<(&Tracked, &Ai)>()
            .map_or(0, |mut q| q.iter(world).filter(|(t, _)| t.stimulus).count()),
        "stimulus_ticks": s.stimulus_ticks.map(|(lo, hi)| [lo, hi]),
        "impulses_fired": impulses,
        "vehicles_entered": s.vehicles_entered,
        "passenger_ticks": s.passenger_ticks,
        "passenger_ticks_leader_dead": s.passenger_ticks_leader_dead,
        "passenger_ticks_stimulus": s.passenger_ticks_stimulus,
        "passenger_flight": s.passenger_flight,
        "ns_per_agent_tick": s.decide_ns.checked_div(s.agent_ticks).unwrap_or(0),
        "tiers": tiers,
    })
}
