//! Trainz session-rule semantics: PAUSED, COMPLETE, WAS_COMPLETE,
//! DOES_COMPLETE and the parent styles.

use wyrd_bt::sim::Sim;
use wyrd_bt::{Program, Status, Vocabulary, compile_str};

fn program(text: &str) -> Program {
    compile_str("rules.bt.ron", text, &Vocabulary::permissive()).unwrap_or_else(|e| panic!("{e}"))
}

fn flags(sim: &Sim, path: &str) -> String {
    sim.flags_of(path)
        .unwrap_or_else(|| panic!("no node {path}"))
}

const ORDERED: &str = r#"(
    blackboard: {"at_a": false, "boarded": false, "at_b": false},
    root: Ordered(name: "session", children: [
        Rule(name: "drive_to_a", check: Is("at_a")),
        Rule(name: "wait_passengers", check: Is("boarded")),
        Rule(name: "drive_to_b", check: Is("at_b")),
    ]),
)"#;

#[test]
fn everything_starts_paused_and_the_top_level_unpauses_when_the_session_starts() {
    let p = program(ORDERED);
    let sim = Sim::new(&p, 0);
    for path in ["session", "session/drive_to_a", "session/drive_to_b"] {
        assert_eq!(flags(&sim, path), "PD", "{path} before the session starts");
    }
    let mut sim = sim;
    sim.step();
    assert_eq!(flags(&sim, "session"), "D", "top level unpaused");
    assert_eq!(
        flags(&sim, "session/drive_to_a"),
        "D",
        "first child unpaused"
    );
    assert_eq!(
        flags(&sim, "session/wait_passengers"),
        "PD",
        "later children wait"
    );
}

#[test]
fn ordered_pauses_completed_children_and_completes_after_the_last() {
    let p = program(ORDERED);
    let mut sim = Sim::new(&p, 0);
    sim.step();
    sim.set("at_a", true).unwrap();
    sim.step();
    // drive_to_a completed, which touched the parent: in the same tick it
    // moved on, pausing the completed child and unpausing the next.
    assert_eq!(flags(&sim, "session/drive_to_a"), "PCWD");
    assert_eq!(flags(&sim, "session/wait_passengers"), "D");
    // A paused rule never changes its own state: at_a going false does not
    // clear drive_to_a's COMPLETE.
    sim.set("at_a", false).unwrap();
    sim.step();
    assert_eq!(flags(&sim, "session/drive_to_a"), "PCWD");
    // Touches cascade within one tick.
    sim.set("boarded", true).unwrap();
    sim.set("at_b", true).unwrap();
    let r = sim.step();
    assert_eq!(r.status, Status::Success);
    assert_eq!(flags(&sim, "session"), "CWD");
    assert_eq!(
        flags(&sim, "session/drive_to_b"),
        "PCWD",
        "children paused on completion"
    );
}

#[test]
fn simultaneous_completes_only_when_all_children_were_complete_and_a_rule_can_lose_complete() {
    let p = program(
        r#"(
        blackboard: {"parcel_1": false, "parcel_2": false, "under_limit": true},
        root: Simultaneous(name: "deliveries", children: [
            Rule(name: "deliver_1", check: Is("parcel_1")),
            Rule(name: "deliver_2", check: Is("parcel_2")),
            Rule(name: "speed_limit_held", check: Is("under_limit")),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    sim.step();
    assert_eq!(
        flags(&sim, "deliveries/deliver_1"),
        "D",
        "all unpaused at once"
    );
    assert_eq!(flags(&sim, "deliveries/deliver_2"), "D");
    assert_eq!(flags(&sim, "deliveries/speed_limit_held"), "CWD");
    // The driver speeds: the condition rule loses COMPLETE, keeps WAS_COMPLETE.
    sim.set("under_limit", false).unwrap();
    sim.step();
    assert_eq!(flags(&sim, "deliveries/speed_limit_held"), "WD");
    sim.set("parcel_2", true).unwrap();
    assert_eq!(
        sim.step().status,
        Status::Running,
        "parcel 1 not delivered yet"
    );
    assert_eq!(flags(&sim, "deliveries"), "D");
    sim.set("parcel_1", true).unwrap();
    assert_eq!(
        sim.step().status,
        Status::Success,
        "all were complete at some point"
    );
    assert_eq!(flags(&sim, "deliveries"), "CWD");
    assert_eq!(
        flags(&sim, "deliveries/deliver_1"),
        "PCWD",
        "paused after completion"
    );
    assert_eq!(flags(&sim, "deliveries/speed_limit_held"), "PWD");
}

#[test]
fn select_one_runs_a_single_child_if_else() {
    let p = program(
        r#"(
        blackboard: {"took_freight": false, "freight_done": false, "passengers_done": false},
        root: SelectOne(name: "choice", children: [
            GuardSequence(name: "freight", children: [Condition(check: Is("took_freight")), Rule(check: Is("freight_done"))]),
            Rule(name: "passengers", check: Is("passengers_done")),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    sim.step();
    assert_eq!(
        flags(&sim, "choice/freight"),
        "PD",
        "the if-branch is not taken"
    );
    assert_eq!(
        flags(&sim, "choice/passengers"),
        "D",
        "the else-branch runs"
    );
    // Changing the choice now does not switch branches.
    sim.set("took_freight", true).unwrap();
    sim.step();
    assert_eq!(flags(&sim, "choice/freight"), "PD");
    sim.set("passengers_done", true).unwrap();
    assert_eq!(sim.step().status, Status::Success);
    assert_eq!(flags(&sim, "choice/passengers"), "PCWD");
}

#[test]
fn does_complete_is_static_per_node() {
    let p = program(
        r#"(
        blackboard: {"x": false},
        root: Simultaneous(name: "top", children: [
            Rule(name: "finite", check: Is("x")),
            Repeat(name: "forever", child: Action(action: "Patrol")),
            SequentialLooping(name: "loop", children: [Action(action: "A")]),
            Repeat(name: "thrice", count: 3, child: Action(action: "B")),
        ]),
    )"#,
    );
    let sim = Sim::new(&p, 0);
    assert!(flags(&sim, "top/finite").contains('D'));
    assert!(!flags(&sim, "top/forever").contains('D'));
    assert!(!flags(&sim, "top/loop").contains('D'));
    assert!(flags(&sim, "top/thrice").contains('D'));
    assert!(
        !flags(&sim, "top").contains('D'),
        "a simultaneous parent of a never-ending child never completes"
    );
}

#[test]
fn a_parallel_does_complete_when_enough_children_do() {
    let p = program(
        r#"(
        blackboard: {"x": false},
        root: Parallel(name: "top", success: One, children: [
            Rule(name: "finite", check: Is("x")),
            Repeat(name: "forever", child: Action(action: "Patrol")),
            Parallel(name: "all", children: [
                Rule(name: "finite", check: Is("x")),
                Repeat(name: "forever", child: Action(action: "Patrol")),
            ]),
        ]),
    )"#,
    );
    let sim = Sim::new(&p, 0);
    assert!(flags(&sim, "top").contains('D'), "one child is enough");
    assert!(
        !flags(&sim, "top/all").contains('D'),
        "all children must, and one never does"
    );
}

#[test]
fn a_threshold_rule_acts_only_after_the_polled_count() {
    let p = program(
        r#"(
        blackboard: {"speeding": false},
        root: Ordered(name: "session", children: [
            Threshold(name: "speeding_fine", check: Is("speeding"), count: 5),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    sim.set("speeding", true).unwrap();
    for _ in 0..2 {
        sim.step();
    }
    // A brief slowdown does not reset the count (the seed's advice).
    sim.set("speeding", false).unwrap();
    sim.step();
    sim.set("speeding", true).unwrap();
    sim.step();
    sim.step();
    assert_eq!(flags(&sim, "session/speeding_fine"), "D", "4 polls so far");
    assert_eq!(sim.step().status, Status::Success);
    assert_eq!(flags(&sim, "session/speeding_fine"), "PCWD");
}

#[test]
fn a_restart_resets_state_cleanly() {
    let p = program(ORDERED);
    let mut sim = Sim::new(&p, 0);
    sim.set("at_a", true).unwrap();
    sim.step();
    assert!(flags(&sim, "session/drive_to_a").contains('W'));
    sim.state.reset(&p, &mut sim.actions);
    assert_eq!(flags(&sim, "session/drive_to_a"), "PD");
}
