//! `SetBlackboard` and `UnsetBlackboard` (BehaviorTree.CPP 4.x's nodes of
//! the same names): a tree writes or clears a key, typed like every other
//! write; mistakes are compile errors with their place. The BT.CPP-cited
//! cases are in the conformance suite (`std_set_blackboard_*`,
//! `std_unset_blackboard_*`).

use wyrd_bt::sim::Sim;
use wyrd_bt::{Status, Value, Vocabulary, compile_str};

fn compile(text: &str) -> Result<wyrd_bt::Program, wyrd_bt::BtError> {
    compile_str("writes.bt.ron", text, &Vocabulary::permissive())
}

#[test]
fn a_value_of_another_type_than_the_keys_is_a_compile_error_at_the_key() {
    let e = compile(
        r#"(
    blackboard: {"ammo": 3},
    root: Sequence(children: [
        SetBlackboard(key: "ammo", value: "five"),
    ]),
)"#,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("ammo"), "{text}");
    assert!(text.contains("cannot write a String"), "{text}");
    // At the value, the part that is wrong.
    assert_eq!((e.line, e.column), (4, 44), "{text}");
}

#[test]
fn a_copy_from_a_key_of_another_type_is_a_compile_error() {
    let e = compile(
        r#"(
    blackboard: {"ammo": 3, "name": "grunt"},
    root: SetBlackboard(key: "ammo", value: "{name}"),
)"#,
    )
    .unwrap_err();
    assert!(e.to_string().contains("ammo"), "{e}");
}

#[test]
fn an_undeclared_key_is_a_compile_error() {
    for root in [
        r#"SetBlackboard(key: "nope", value: 1)"#,
        r#"UnsetBlackboard(key: "nope")"#,
    ] {
        let e = compile(&format!("(blackboard: {{\"a\": 1}}, root: {root})")).unwrap_err();
        assert!(e.to_string().contains("nope"), "{root}: {e}");
    }
}

#[test]
fn a_behavior_parameter_bound_to_a_key_is_written_through() {
    let p = compile(
        r#"(
    blackboard: {"alarm": false},
    behaviors: [
        SetBlackboard(name: "raise", parameters: {"flag": Bool}, key: "{flag}", value: true),
    ],
    root: Sequence(name: "root", children: [
        Use(behavior: "raise", with: {"flag": "{alarm}"}),
        Forever(),
    ]),
)"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(&p, 0);
    sim.step();
    assert_eq!(sim.blackboard.get("alarm"), Some(Value::Bool(true)));
}

#[test]
fn copying_an_unset_key_fails_and_writes_nothing() {
    let p = compile(
        r#"(
    blackboard: {"target": Entity, "last": Entity},
    root: SetBlackboard(name: "root", key: "last", value: "{target}"),
)"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(&p, 0).with_repeat(false);
    assert_eq!(sim.step().status, Status::Failure);
    assert_eq!(sim.blackboard.get("last"), None);
}

#[test]
fn unset_clears_and_set_writes_again() {
    let p = compile(
        r#"(
    blackboard: {"n": 1},
    root: Sequence(name: "root", children: [
        UnsetBlackboard(key: "n"),
        Condition(name: "gone", check: Not(Bb("n", Eq, 1))),
        SetBlackboard(key: "n", value: 7),
    ]),
)"#,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(&p, 0).with_repeat(false);
    assert_eq!(sim.step().status, Status::Success);
    assert_eq!(sim.blackboard.get("n"), Some(Value::Int(7)));
}

/// A custom leaf that writes the blackboard and succeeds in the tick it
/// is ticked is BehaviorTree.CPP's `SyncActionNode` with an output port.
/// Source: BT.CPP 4.x tutorial 2 ("Blackboard and ports",
/// `examples/t02_basic_ports.cpp`): `ThinkWhatToSay`, a `SyncActionNode`,
/// sets its output `text` and returns SUCCESS; `SaySomething` after it in
/// the same `Sequence` reads it in the same tick. Here the sequence of two
/// writes and the check of what they wrote completes in tick 1, where an
/// `Action` would wait for the game's systems.
#[test]
fn a_custom_leaf_writes_an_output_the_next_sibling_reads_in_the_same_tick() {
    use wyrd_bt::{CustomCtx, CustomNode};
    /// Writes `goal` = `base` + `by` (a parameter) and succeeds.
    struct AddTo;
    impl CustomNode for AddTo {
        fn arity(&self) -> (usize, usize) {
            (0, 0)
        }
        fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
            let by = match ctx.param("by") {
                Some(Value::Int(n)) => n,
                _ => return Status::Failure,
            };
            let base = match ctx.blackboard().get("goal") {
                Some(Value::Int(n)) => n,
                _ => 0,
            };
            match ctx.set("goal", base + by) {
                Ok(()) => Status::Success,
                Err(_) => Status::Failure,
            }
        }
    }
    let mut vocab = Vocabulary::permissive();
    vocab.add_custom("AddTo", AddTo);
    let program = compile_str(
        "sync.bt.ron",
        r#"(
    blackboard: {"goal": 0},
    root: Sequence(name: "root", children: [
        Custom(name: "think", kind: "AddTo", params: {"by": 40}),
        Custom(name: "again", kind: "AddTo", params: {"by": 2}),
        Condition(name: "said", check: Bb("goal", Eq, 42)),
    ]),
)"#,
        &vocab,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // A custom leaf given a child is named by its kind (a stranger read
    // "a Custom needs exactly 0 children" with two kinds in the tree).
    let e = compile_str(
        "sync.bt.ron",
        r#"(root: Custom(name: "think", kind: "AddTo", children: [Wait(seconds: 1.0)]))"#,
        &vocab,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("a Custom AddTo needs exactly 0 children, it has 1"),
        "{e}"
    );
    let mut sim = Sim::new(&program, 1).with_repeat(false);
    let first = sim.step();
    assert_eq!(first.status, Status::Success, "{first:?}");
    assert_eq!(sim.status_of("root/said"), Some(Status::Success));
    assert!(
        sim.blackboard_lines()
            .iter()
            .any(|(k, v)| k == "goal" && v == "42"),
        "{:?}",
        sim.blackboard_lines()
    );
}

/// `AddBlackboard` adds to Int and Float keys only, an amount of the
/// key's type: anything else is a compile error at the part that is
/// wrong.
#[test]
fn add_blackboard_takes_number_keys_and_amounts_of_their_type() {
    let e = compile(
        r#"(
    blackboard: {"alert": false},
    root: AddBlackboard(key: "alert", by: 1),
)"#,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("\"alert\" is a bool"), "{text}");
    assert!(text.contains("int and float keys only"), "{text}");
    let e = compile(
        r#"(
    blackboard: {"n": 0},
    root: AddBlackboard(key: "n", by: 0.5),
)"#,
    )
    .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("cannot add a float"), "{text}");
    assert_eq!(e.line, 3, "{text}");
    let e = compile(
        r#"(
    blackboard: {"n": 0},
    root: AddBlackboard(key: "m", by: 1),
)"#,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("unknown blackboard key \"m\""),
        "{e}"
    );
    // An Int at its end stays there (no panic, no wrap to the most
    // negative), as world counters saturate.
    let program = compile(
        r#"(
    blackboard: {"n": 9223372036854775807},
    root: AddBlackboard(key: "n", by: 1),
)"#,
    )
    .unwrap();
    let mut sim = Sim::new(&program, 1).with_repeat(false);
    assert_eq!(sim.step().status, Status::Success);
    assert!(
        sim.blackboard_lines()
            .iter()
            .any(|(k, v)| k == "n" && v == &i64::MAX.to_string()),
        "{:?}",
        sim.blackboard_lines()
    );
}

/// A running custom leaf (BT.CPP's `StatefulActionNode` written as the
/// game's own node) is a running leaf wherever the tools list them: a new
/// user's `WaitBlackboardTime` ran for ten ticks while `active_paths()`
/// said `[]`, and `wyrd graph` drew it as a composite. A custom node with
/// children is not a leaf.
#[test]
fn a_running_custom_leaf_is_listed_among_the_running_leaves() {
    use wyrd_bt::{CustomCtx, CustomNode};
    struct WaitForever;
    impl CustomNode for WaitForever {
        fn arity(&self) -> (usize, usize) {
            (0, 0)
        }
        fn tick(&self, _: &mut CustomCtx<'_, '_>) -> Status {
            Status::Running
        }
    }
    struct Through;
    impl CustomNode for Through {
        fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
            ctx.tick_child(0)
        }
    }
    let mut vocab = Vocabulary::permissive();
    vocab.add_custom("WaitForever", WaitForever);
    vocab.add_custom("Through", Through);
    let program = compile_str(
        "wait.bt.ron",
        r#"(root: Custom(name: "root", kind: "Through", children: [
            Custom(name: "wait", kind: "WaitForever"),
        ]))"#,
        &vocab,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(&program, 1).with_repeat(false);
    let first = sim.step();
    assert_eq!(first.status, Status::Running);
    assert_eq!(first.active, vec!["root/wait".to_owned()]);
    let leaves: Vec<bool> = program.nodes().map(|n| n.is_leaf()).collect();
    assert_eq!(leaves, vec![false, true]);
}

/// A custom node that declares its parameters (`CustomNode::params`) has
/// each use checked when the tree loads, as an action's or a predicate's
/// (a new user's misspelt parameter of a custom leaf loaded, and the node
/// read nothing): a name it does not take (with the nearest), one it needs
/// and was not given, one of another type; a parameter left out takes its
/// default. A `"{key}"` in a custom node's parameters is refused: they are
/// constants.
#[test]
fn a_custom_nodes_declared_parameters_are_checked_where_it_is_used() {
    use wyrd_bt::{CustomCtx, CustomNode, ParamSpec, ValueType};
    struct WaitFor;
    impl CustomNode for WaitFor {
        fn arity(&self) -> (usize, usize) {
            (0, 0)
        }
        fn params(&self) -> Option<&[ParamSpec]> {
            const PARAMS: &[ParamSpec] = &[
                ParamSpec::required("key", ValueType::Str),
                ParamSpec::optional("scale", ValueType::Float, Value::Float(1.0)),
            ];
            Some(PARAMS)
        }
        fn tick(&self, ctx: &mut CustomCtx<'_, '_>) -> Status {
            match ctx.param("scale") {
                Some(Value::Float(1.0)) => Status::Success,
                _ => Status::Failure,
            }
        }
    }
    let mut vocab = Vocabulary::permissive();
    vocab.add_custom("WaitFor", WaitFor);
    let compile = |params: &str| {
        compile_str(
            "t.bt.ron",
            &format!(
                r#"(blackboard: {{"t": 2.0}}, root: Custom(name: "root", kind: "WaitFor", params: {{{params}}}))"#
            ),
            &vocab,
        )
    };
    let program = compile(r#""key": "t""#).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(&program, 1).with_repeat(false);
    assert_eq!(sim.step().status, Status::Success, "the default scale");
    for (params, says) in [
        (
            r#""kee": "t""#,
            r#"WaitFor has no parameter "kee"; did you mean "key"? (its parameters: key (String), scale (float))"#,
        ),
        (
            r#""scale": 2.0"#,
            r#"WaitFor needs its parameter "key" (String)"#,
        ),
        (
            r#""key": 3"#,
            r#"WaitFor's parameter "key" is a String, given an int"#,
        ),
        (
            r#""key": "{t}""#,
            r#""{t}" refers to a key; a value is needed here"#,
        ),
    ] {
        let e = compile(params).unwrap_err().to_string();
        assert!(e.contains(says), "{params}: {e}");
    }
    // Through the vocabulary file, as `wyrd check --vocabulary` reads it.
    let file = wyrd_bt::VocabularyFile::of(&vocab).to_json();
    assert!(file.contains("\"scale\""), "{file}");
    let read = wyrd_bt::VocabularyFile::from_json(&file)
        .unwrap()
        .to_vocabulary()
        .unwrap();
    let e = compile_str(
        "t.bt.ron",
        r#"(root: Custom(name: "root", kind: "WaitFor", params: {"kee": "t"}))"#,
        &read,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(r#"no parameter "kee"; did you mean "key"?"#),
        "{e}"
    );
    // A node that declares nothing takes anything, as before.
    struct Any;
    impl CustomNode for Any {
        fn arity(&self) -> (usize, usize) {
            (0, 0)
        }
        fn tick(&self, _: &mut CustomCtx<'_, '_>) -> Status {
            Status::Success
        }
    }
    vocab.add_custom("Any", Any);
    compile_str(
        "t.bt.ron",
        r#"(root: Custom(name: "root", kind: "Any", params: {"whatever": 1}))"#,
        &vocab,
    )
    .unwrap_or_else(|e| panic!("{e}"));
}
