//! The data model (issue 14): every value kind through declaration, bind,
//! conditions, parameter reads, output ports and subtree bindings, and every
//! error with its position.

use bevy::math::{Vec2, Vec3};
use bevy::prelude::Entity;
use wyrd_bt::sim::Sim;
use wyrd_bt::{
    ActionState, BtAction, BtError, BtProblem, Out, Program, Sym, Value, ValueType, Vocabulary,
    bt_action, compile_str,
};

fn compile(text: &str) -> Result<Program, BtError> {
    compile_str("t.bt.ron", text, &Vocabulary::permissive())
}

fn program(text: &str) -> Program {
    compile(text).unwrap_or_else(|e| panic!("{e}"))
}

fn error(text: &str, vocab: &Vocabulary) -> BtError {
    match compile_str("t.bt.ron", text, vocab) {
        Ok(_) => panic!("compiled, expected an error"),
        Err(e) => e,
    }
}

fn entity(i: u32) -> Entity {
    Entity::from_raw_u32(i).unwrap()
}

/// Where a needle first appears in the text (1-based line, column).
fn at(text: &str, needle: &str) -> (usize, usize) {
    let i = text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
    let before = &text[..i];
    let line = before.matches('\n').count() + 1;
    let col = before.rfind('\n').map_or(i, |nl| i - nl - 1) + 1;
    (line, col)
}

const KINDS: &str = r#"(
    blackboard: {
        "alive": true, "ammo": 3, "range": 8.5,
        "target": Entity, "spot": (1.0, 2.0), "goal": Vec3(0.0, 0.0, 1.0),
        "quest": "destroy_5_towers", "other": Entity,
    },
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "same", children: [
            Condition(check: Bb("target", Eq, "{other}")),
            Action(name: "same_act", action: "Same"),
        ]),
        GuardSequence(name: "quest", children: [
            Condition(check: Bb("quest", Eq, "kill_3_guards")),
            Action(name: "guards", action: "Guards"),
        ]),
        GuardSequence(name: "spot", children: [
            Condition(check: Bb("spot", Eq, (3.0, 4.0))),
            Action(name: "at_spot", action: "AtSpot"),
        ]),
        Action(name: "go", action: "MoveTo", params: {
            "goal": "{goal}", "target": "{target}", "speed": 3.5,
            "quest": "{quest}", "spot": "{spot}", "ammo": "{ammo}", "alive": "{alive}",
        }),
    ]),
)"#;

#[test]
fn every_value_kind_is_declared_bound_compared_and_read() {
    let p = program(KINDS);
    let types: Vec<(String, ValueType)> = p
        .blackboard_keys()
        .iter()
        .cloned()
        .zip(p.blackboard_types().iter().copied())
        .collect();
    for (k, t) in [
        ("alive", ValueType::Bool),
        ("ammo", ValueType::Int),
        ("range", ValueType::Float),
        ("target", ValueType::Entity),
        ("spot", ValueType::Vec2),
        ("goal", ValueType::Vec3),
        ("quest", ValueType::Str),
    ] {
        assert!(types.contains(&(k.to_owned(), t)), "{k}: {types:?}");
    }
    let mut sim = Sim::new(&p, 1);
    // `target` and `other` are unset: the comparison does not hold.
    assert_eq!(sim.step().active, ["root/go"]);
    assert!(sim.blackboard.get("target").is_none());
    // The running action reads every kind through its parameters.
    let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
    let info = p.action_of(slot.node).unwrap();
    let bb = &sim.blackboard;
    assert_eq!(info.read::<Vec3>("goal", bb), Ok(Vec3::new(0.0, 0.0, 1.0)));
    assert_eq!(info.read::<Vec2>("spot", bb), Ok(Vec2::new(1.0, 2.0)));
    assert_eq!(info.read::<f32>("speed", bb), Ok(3.5));
    assert_eq!(info.read::<i64>("ammo", bb), Ok(3));
    assert_eq!(info.read::<bool>("alive", bb), Ok(true));
    assert_eq!(
        info.read::<Sym>("quest", bb).map(Sym::as_str),
        Ok("destroy_5_towers")
    );
    assert!(matches!(
        info.read::<Entity>("target", bb),
        Err(wyrd_bt::ParamError::Unset { key, .. }) if key == "target"
    ));
    assert!(matches!(
        info.read::<Vec3>("speed", bb),
        Err(wyrd_bt::ParamError::WrongType {
            found: ValueType::Float,
            wanted: ValueType::Vec3,
            ..
        })
    ));
    // By position, past the last parameter.
    assert!(matches!(
        info.read_at::<f32>(info.params().len(), bb),
        Err(wyrd_bt::ParamError::Missing { name, .. }) if name == format!("#{}", info.params().len())
    ));
    // Equal entities (key against key) take over.
    sim.set("target", entity(7)).unwrap();
    sim.set("other", entity(8)).unwrap();
    assert_eq!(sim.step().active, ["root/go"]);
    sim.set("other", entity(7)).unwrap();
    assert_eq!(sim.step().active, ["root/same/same_act"]);
    // Strings compare as interned ids; vectors exactly.
    sim.set("other", entity(9)).unwrap();
    sim.set("quest", "kill_3_guards").unwrap();
    assert_eq!(sim.step().active, ["root/quest/guards"]);
    sim.set("quest", "none").unwrap();
    sim.set("spot", Vec2::new(3.0, 4.0)).unwrap();
    assert_eq!(sim.step().active, ["root/spot/at_spot"]);
    // Writes of the wrong kind are refused with the key named.
    let e = sim.set("goal", entity(1)).unwrap_err().to_string();
    assert!(e.contains("\"goal\"") && e.contains("Vec3"), "{e}");
    let e = sim.set("target", Vec2::ZERO).unwrap_err().to_string();
    assert!(e.contains("\"target\"") && e.contains("Entity"), "{e}");
}

#[test]
fn a_condition_on_an_unset_key_fails_and_names_the_key() {
    let p = program(
        r#"(
        blackboard: {"target": Entity, "seen": Bool},
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "attack", children: [Condition(check: Bb("target", Ne, Entity(0))), Action(action: "Shoot")]),
            GuardSequence(name: "look", children: [Condition(check: Is("seen")), Action(action: "Look")]),
            GuardSequence(name: "wander", children: [Condition(check: IsNot("seen")), Action(action: "Wander")]),
            Action(name: "idle", action: "Idle"),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    // Unset: neither `Is` nor `IsNot` nor `Ne` holds.
    assert_eq!(sim.step().active, ["root/idle"]);
    let unset = sim.state.unset_reads();
    let named: Vec<&str> = (0..p.blackboard_keys().len())
        .filter(|k| unset & (1 << k) != 0)
        .map(|k| p.blackboard_keys()[k].as_str())
        .collect();
    assert_eq!(named, ["seen", "target"], "both unset keys are noted");
    sim.set("target", entity(3)).unwrap();
    assert_eq!(sim.step().active, ["root/attack/Shoot"]);
}

#[test]
fn scripts_and_files_write_every_kind() {
    let script = wyrd_bt::sim::Script::parse(
        r#"(events: [
            (tick: 1, set: ("target", Entity(4))),
            (tick: 1, set: ("spot", (1.5, -2.0))),
            (tick: 1, set: ("goal", Vec3(1, 2, 3))),
            (tick: 1, set: ("quest", "x")),
        ])"#,
    )
    .unwrap();
    let p = program(KINDS);
    assert!(script.check(&p).is_empty(), "{:?}", script.check(&p));
    let bad =
        wyrd_bt::sim::Script::parse(r#"(events: [(tick: 1, set: ("goal", Entity(4)))])"#).unwrap();
    let problems = bad.check(&p);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].to_string().contains("holds a Vec3"),
        "{}",
        problems[0]
    );
    assert!(
        wyrd_bt::sim::Script::parse(r#"(events: [(tick: 1, set: ("x", (1.0, 2.0, 3.0, 4.0)))])"#)
            .is_err()
    );
}

const ATTACK: &str = r#"(
    blackboard: {"enemy": Entity, "boss": Entity, "near": false},
    behaviors: [
        GuardSequence(name: "attack", parameters: {"target": Entity, "range": 12.0, "close": false}, children: [
            Condition(check: Is("{close}")),
            Action(action: "Shoot", params: {"at": "{target}", "range": "{range}"}),
        ]),
    ],
    root: PrioritizedList(name: "root", children: [
        Use(name: "boss_fight", behavior: "attack", with: {"target": "{boss}", "range": 30.0, "close": "{near}"}),
        Use(name: "fight", behavior: "attack", with: {"target": "{enemy}", "close": true}),
    ]),
)"#;

#[test]
fn a_subtree_used_twice_reads_each_place_bindings() {
    let p = program(ATTACK);
    let mut sim = Sim::new(&p, 0);
    sim.set("enemy", entity(1)).unwrap();
    sim.set("boss", entity(2)).unwrap();
    // `close` is bound to a key at the first place, a constant at the second.
    assert_eq!(sim.step().active, ["root/fight/Shoot"]);
    let read = |sim: &Sim| {
        let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
        let info = p.action_of(slot.node).unwrap();
        (
            info.read::<Entity>("at", &sim.blackboard).unwrap(),
            info.read::<f32>("range", &sim.blackboard).unwrap(),
        )
    };
    assert_eq!(read(&sim), (entity(1), 12.0), "the default range");
    sim.set("near", true).unwrap();
    let r = sim.step();
    assert_eq!(r.active, ["root/boss_fight/Shoot"]);
    assert_eq!(read(&sim), (entity(2), 30.0));
    // The reference reads the key live.
    sim.set("boss", entity(5)).unwrap();
    sim.step();
    assert_eq!(read(&sim).0, entity(5));
}

#[test]
fn binding_errors_are_named_where_the_behavior_is_used() {
    let vocab = Vocabulary::permissive();
    let missing = ATTACK.replace(r#""target": "{enemy}", "close": true"#, r#""close": true"#);
    let e = error(&missing, &vocab);
    assert!(
        matches!(&e.problem, BtProblem::MissingBinding { name, ty: ValueType::Entity, .. } if name == "target"),
        "{e}"
    );
    let line = missing
        .lines()
        .position(|l| l.contains("name: \"fight\""))
        .unwrap()
        + 1;
    assert_eq!(e.line, line, "{e}");

    let wrong = ATTACK.replace(r#""range": 30.0"#, r#""range": "{boss}""#);
    let e = error(&wrong, &vocab);
    assert!(
        matches!(&e.problem, BtProblem::BindingType { name, expected: ValueType::Float, found: ValueType::Entity, .. } if name == "range"),
        "{e}"
    );
    assert_eq!((e.line, e.column), at(&wrong, "range\": \"{boss}"), "{e}");

    let unknown = ATTACK.replace(r#""close": true"#, r#""closer": true"#);
    let e = error(&unknown, &vocab);
    assert!(
        e.to_string()
            .contains("no parameter \"closer\" (its parameters: close, range, target)"),
        "{e}"
    );
    assert_eq!((e.line, e.column), at(&unknown, "closer"));

    let key = ATTACK.replace(r#""{enemy}""#, r#""{enmy}""#);
    let e = error(&key, &vocab);
    assert!(
        matches!(&e.problem, BtProblem::UnknownKey(k) if k == "enmy"),
        "{e}"
    );
    assert_eq!((e.line, e.column), at(&key, "{enmy}"));

    let on_node = ATTACK.replace(
        r#"PrioritizedList(name: "root","#,
        r#"PrioritizedList(name: "root", parameters: {"x": 1},"#,
    );
    let e = error(&on_node, &vocab);
    assert!(matches!(e.problem, BtProblem::ParametersOnNode), "{e}");
}

#[test]
fn impulses_bind_parameters_and_redirects_refuse_bindings() {
    let text = r#"(
        blackboard: {"driver": Entity, "call": false},
        behaviors: [
            Sequence(name: "enter", parameters: {"vehicle": Entity}, children: [
                Action(action: "Board", params: {"which": "{vehicle}"}),
            ]),
        ],
        root: PrioritizedList(name: "root", children: [
            Impulse(name: "called", behavior: "enter", when: [Is("call")], with: {"vehicle": "{driver}"}),
            Action(name: "idle", action: "Idle"),
        ]),
    )"#;
    let p = program(text);
    let mut sim = Sim::new(&p, 0);
    sim.set("driver", entity(9)).unwrap();
    sim.set("call", true).unwrap();
    let r = sim.step();
    assert_eq!(r.active, ["root/called/enter/Board"]);
    let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
    assert_eq!(
        p.action_of(slot.node)
            .unwrap()
            .read::<Entity>("which", &sim.blackboard),
        Ok(entity(9))
    );
    let redirect = text
        .replace("when: [Is(\"call\")],", "mode: Redirect, when: [Is(\"call\")],")
        .replace(
            r#"Action(name: "idle", action: "Idle"),"#,
            r#"Use(behavior: "enter", with: {"vehicle": "{driver}"}), Action(name: "idle", action: "Idle"),"#,
        );
    let e = error(&redirect, &Vocabulary::permissive());
    assert!(matches!(e.problem, BtProblem::RedirectWith(_)), "{e}");
}

#[test]
fn comparisons_between_keys_and_ordering_rules() {
    let p = program(
        r#"(
        blackboard: {"ammo": 2, "max_ammo": 10, "reload_at": 3.0},
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "reload", children: [Condition(check: Bb("ammo", Lt, "{reload_at}")), Action(action: "Reload")]),
            GuardSequence(name: "full", children: [Condition(check: Bb("ammo", Ge, "{max_ammo}")), Action(action: "Boast")]),
            Action(name: "fight", action: "Fight"),
        ]),
    )"#,
    );
    let mut sim = Sim::new(&p, 0);
    assert_eq!(sim.step().active, ["root/reload/Reload"]);
    sim.set("ammo", 10).unwrap();
    assert_eq!(sim.step().active, ["root/full/Boast"]);
    sim.set("max_ammo", 11).unwrap();
    assert_eq!(sim.step().active, ["root/fight"]);

    let text = r#"(blackboard: {"t": Entity}, root: Condition(check: Bb("t", Lt, Entity(1))))"#;
    let e = error(text, &Vocabulary::permissive());
    assert!(
        e.to_string().contains("compare it with Eq or Ne, not Lt"),
        "{e}"
    );
    assert_eq!((e.line, e.column), at(text, "Bb(\"t\""));
    let text = r#"(blackboard: {"t": Entity, "n": 1}, root: Condition(check: Bb("t", Eq, "{n}")))"#;
    let e = error(text, &Vocabulary::permissive());
    assert!(
        e.to_string().contains("is an Entity, compared with an int"),
        "{e}"
    );
    let text = r#"(blackboard: {"t": "{n}"}, root: Succeed())"#;
    let e = error(text, &Vocabulary::permissive());
    assert!(matches!(e.problem, BtProblem::RefAsDeclaration(_)), "{e}");
}

#[test]
fn predicates_take_arguments_resolved_to_keys() {
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    vocab.add_action("Idle");
    vocab.add_predicate_with("within", |_, args| {
        let (Some(of), Some(m)) = (args.get::<Vec2>("of"), args.get::<f32>("meters")) else {
            return false;
        };
        of.length() <= m
    });
    let text = r#"(
        blackboard: {"enemy_at": (0.0, 0.0)},
        root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "near", children: [
                Condition(check: Predicate("within", {"of": "{enemy_at}", "meters": 8.0})),
                Action(action: "Shoot"),
            ]),
            Action(name: "idle", action: "Idle"),
        ]),
    )"#;
    let p = compile_str("t.bt.ron", text, &vocab).unwrap();
    let mut sim = Sim::new(&p, 0);
    sim.set("enemy_at", Vec2::new(3.0, 4.0)).unwrap();
    assert_eq!(sim.step().active, ["root/near/Shoot"]);
    sim.set("enemy_at", Vec2::new(30.0, 4.0)).unwrap();
    assert_eq!(sim.step().active, ["root/idle"]);
    let e = error(&text.replace("{enemy_at}", "{enemy}"), &vocab);
    assert!(
        matches!(&e.problem, BtProblem::UnknownKey(k) if k == "enemy"),
        "{e}"
    );
}

/// A stranger's guard (issue 24's checks): `Predicate("near", {"point":
/// .., "metres": 8.0})` for a predicate reading `"meters"` loaded and
/// checked `ok`; the predicate read nothing and never held, silently. A
/// predicate registered with its arguments has every call checked: an
/// unknown name (with the nearest), a missing one, one of another type;
/// the vocabulary file carries them, so `wyrd check` says the same.
#[test]
fn a_predicates_declared_arguments_are_checked_where_it_is_called() {
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    vocab.add_predicate_args(
        "within",
        &[("of", ValueType::Vec2), ("meters", ValueType::Float)],
        |_, args| {
            let (Some(of), Some(m)) = (args.get::<Vec2>("of"), args.get::<f32>("meters")) else {
                return false;
            };
            of.length() <= m
        },
    );
    let tree = |args: &str| {
        format!(
            r#"(
        blackboard: {{"enemy_at": (0.0, 0.0), "label": "x"}},
        root: Sequence(name: "root", children: [
            Condition(check: Predicate("within", {args})),
            Action(action: "Shoot"),
        ]),
    )"#
        )
    };
    // As written: fine (an int constant fits a float).
    compile_str(
        "t.bt.ron",
        &tree(r#"{"of": "{enemy_at}", "meters": 8}"#),
        &vocab,
    )
    .unwrap();
    let file = wyrd_bt::VocabularyFile::of(&vocab);
    let from_file = wyrd_bt::VocabularyFile::from_json(&file.to_json())
        .unwrap()
        .to_vocabulary()
        .unwrap();
    for (args, says) in [
        (
            r#"{"of": "{enemy_at}", "metres": 8.0}"#,
            r#"predicate "within": no argument "metres"; did you mean "meters"? (its arguments: of (Vec2), meters (float))"#,
        ),
        (
            r#"{"of": "{enemy_at}"}"#,
            r#"predicate "within": argument "meters" (float) is not given"#,
        ),
        (
            r#"{"of": "{label}", "meters": 8.0}"#,
            r#"predicate "within": argument "of" is a Vec2, given a String"#,
        ),
    ] {
        for v in [&vocab, &from_file] {
            let e = error(&tree(args), v);
            assert!(e.to_string().contains(says), "{args}: {e}");
            assert_eq!(e.line, 4, "{args}: at the call: {e}");
        }
    }
}

bt_action! {
    /// Moves to a point.bt_action! {
    /// Moves to a point.
    pub struct MoveTo {
        /// Where to.
        pub goal: Vec3,
        /// How fast.
        pub speed: f32 = 3.5,
    }
    /// Finds a target and writes it.
    pub struct FindTarget {
        /// How far to look.
        pub range: f32 = 10.0,
        /// Where the target goes.
        pub found: Out<Entity>,
    }
}

fn typed_vocab() -> Vocabulary {
    let mut v = Vocabulary::default();
    v.add_action_type::<MoveTo>();
    v.add_action_type::<FindTarget>();
    v
}

const TYPED: &str = r#"(
    blackboard: {"cover": Vec3(1.0, 0.0, 2.0), "target": Entity},
    root: Sequence(name: "root", children: [
        Action(name: "find", action: "FindTarget", params: {"found": "{target}"}),
        Action(name: "go", action: "MoveTo", params: {"goal": "{cover}"}),
    ]),
)"#;

#[test]
fn typed_actions_read_fields_and_write_output_ports() {
    assert_eq!(MoveTo::NAME, "MoveTo");
    assert_eq!(MoveTo::ID, wyrd_bt::ActionId::of("MoveTo"));
    let p = compile_str("t.bt.ron", TYPED, &typed_vocab()).unwrap();
    let mut sim = Sim::new(&p, 0);
    sim.step();
    let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
    assert_eq!(slot.id, FindTarget::ID);
    let info = p.action_of(slot.node).unwrap();
    let find = FindTarget::read(info, &sim.blackboard).unwrap();
    assert_eq!(find.range, 10.0, "the schema's default");
    // The action writes its result through the port; the tree reads it.
    sim.blackboard.write(find.found.port, entity(42)).unwrap();
    let e = sim
        .blackboard
        .write(find.found.port, Vec2::ONE)
        .unwrap_err();
    assert!(e.to_string().contains("\"target\""), "{e}");
    sim.finish("root/find", wyrd_bt::sim::Outcome::Success)
        .unwrap();
    sim.step();
    assert_eq!(
        sim.blackboard.get("target"),
        Some(Value::Entity(entity(42)))
    );
    let slot = *sim
        .actions
        .iter()
        .find(|a| a.state == ActionState::Running || a.state == ActionState::Started)
        .unwrap();
    let go = MoveTo::read(p.action_of(slot.node).unwrap(), &sim.blackboard).unwrap();
    assert_eq!(
        go,
        MoveTo {
            goal: Vec3::new(1.0, 0.0, 2.0),
            speed: 3.5
        }
    );
}

#[test]
fn typed_action_errors_name_the_parameter_and_its_place() {
    let v = typed_vocab();
    let cases: [(&str, &str, &str, &str); 5] = [
        (
            r#""goal": "{cover}""#,
            r#""goal": "{cover}", "sped": 2.0"#,
            "sped",
            "MoveTo has no parameter \"sped\"; did you mean \"speed\"? (its parameters: goal, speed)",
        ),
        (
            r#"params: {"goal": "{cover}"}"#,
            r#"params: {}"#,
            "MoveTo\"",
            "MoveTo needs parameter \"goal\" (a Vec3)",
        ),
        (
            r#""goal": "{cover}""#,
            r#""goal": "{target}""#,
            "goal",
            "parameter \"goal\" of MoveTo is a Vec3, given an Entity",
        ),
        (
            r#""found": "{target}""#,
            r#""found": Entity(3)"#,
            "found",
            "an output needs a \"{key}\"",
        ),
        (
            r#"action: "MoveTo""#,
            r#"action: "MoveToo""#,
            "MoveToo",
            "unknown action \"MoveToo\"; did you mean \"MoveTo\"? (known: FindTarget, MoveTo)",
        ),
    ];
    for (from, to, needle, says) in cases {
        let text = TYPED.replace(from, to);
        let e = error(&text, &v);
        assert!(e.to_string().contains(says), "{to}: {e}");
        assert_eq!((e.line, e.column), at(&text, needle), "{to}: {e}");
    }
}

/// Every kind, through every stage: declared on the blackboard, bound to a
/// behavior's parameter by `Use(..., with:)`, compared in a condition, read
/// as an action's parameter, and written back through an output port.
#[test]
fn every_kind_through_binding_condition_parameter_and_port() {
    let kinds: [(&str, &str, Value, Value); 7] = [
        ("Bool", "true", Value::Bool(true), Value::Bool(false)),
        ("Int", "7", Value::Int(7), Value::Int(8)),
        ("Float", "2.5", Value::Float(2.5), Value::Float(3.5)),
        (
            "Entity",
            "Entity(4)",
            Value::Entity(entity(4)),
            Value::Entity(entity(5)),
        ),
        (
            "Vec2",
            "(1.0, 2.0)",
            Value::Vec2(Vec2::new(1.0, 2.0)),
            Value::Vec2(Vec2::ONE),
        ),
        (
            "Vec3",
            "Vec3(1.0, 2.0, 3.0)",
            Value::Vec3(Vec3::new(1.0, 2.0, 3.0)),
            Value::Vec3(Vec3::ONE),
        ),
        (
            "String",
            "\"quest_a\"",
            Value::from("quest_a"),
            Value::from("quest_b"),
        ),
    ];
    for (ty, literal, value, other) in kinds {
        let text = format!(
            r#"(
            blackboard: {{"k": {ty}, "o": {ty}}},
            behaviors: [
                GuardSequence(name: "b", parameters: {{"p": {ty}}}, children: [
                    Condition(check: Bb("{{p}}", Eq, {literal})),
                    Action(action: "A", params: {{"in": "{{p}}", "out": "{{o}}"}}),
                ]),
            ],
            root: PrioritizedList(name: "root", children: [
                Use(name: "use", behavior: "b", with: {{"p": "{{k}}"}}),
                Action(name: "idle", action: "Idle"),
            ]),
        )"#
        );
        let p = compile(&text).unwrap_or_else(|e| panic!("{ty}: {e}"));
        assert_eq!(
            p.blackboard_types()[0],
            ValueType::from_name(ty).unwrap(),
            "{ty}"
        );
        let mut sim = Sim::new(&p, 0);
        assert_eq!(sim.step().active, ["root/idle"], "{ty}: k unset");
        sim.set("k", other).unwrap();
        assert_eq!(sim.step().active, ["root/idle"], "{ty}: k differs");
        sim.set("k", value).unwrap();
        assert_eq!(sim.step().active, ["root/use/A"], "{ty}: k equals");
        let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
        let info = p.action_of(slot.node).unwrap();
        assert_eq!(info.read::<Value>("in", &sim.blackboard), Ok(value), "{ty}");
        let port = info.port("out").unwrap();
        assert_eq!(port.value_type(), ValueType::from_name(ty).unwrap());
        sim.blackboard.write(port, value).unwrap();
        assert_eq!(
            sim.blackboard.get("o"),
            Some(value),
            "{ty}: written through the port"
        );
        // A value of another kind is refused at the port, the key named.
        let wrong = if ty == "Bool" {
            Value::Int(1)
        } else {
            Value::Bool(true)
        };
        let e = sim.blackboard.write(port, wrong).unwrap_err().to_string();
        assert!(e.contains("\"o\""), "{ty}: {e}");
    }
}

/// What a node checks, as text (the inspector's guard line).
#[test]
fn nodes_tell_what_they_check() {
    let p = program(
        r#"(blackboard: {"go": true, "n": 1}, root: PrioritizedList(name: "root", children: [
            GuardSequence(name: "fight", children: [Condition(check: Is("go")), Condition(check: Bb("n", Gt, 0)), Action(action: "A")]),
            Guard(name: "g", when: [IsNot("go")], child: Action(action: "B")),
        ]))"#,
    );
    assert_eq!(p.at("root/fight").unwrap().check_text(), "?go & ?n>0");
    assert_eq!(p.at("root/g").unwrap().check_text(), "?!go");
    assert_eq!(p.at("root/fight/A").unwrap().check_text(), "");
}

bt_action! {
    /// Measures a distance and writes it.
    pub struct Measure {
        /// Where the distance goes.
        pub out: Out<f32>,
    }
    /// Counts something and writes the count.
    pub struct Count {
        /// Where the count goes.
        pub out: Out<i64>,
    }
}

/// An output port writes its key: a float result does not fit an int key
/// (it would be truncated behind the designer's back), an int result fits
/// a float key. A regression test: the port check once took any number key.
#[test]
fn an_output_port_takes_a_key_its_result_fits() {
    let mut v = Vocabulary::default();
    v.add_action_type::<Measure>();
    v.add_action_type::<Count>();
    let tree = |action: &str, key: &str| {
        format!(
            r#"(
    blackboard: {{"{key}": {ty}}},
    root: Action(name: "a", action: "{action}", params: {{"out": "{{{key}}}"}}),
)"#,
            ty = if key == "n" { "Int" } else { "Float" }
        )
    };
    for (action, key) in [("Measure", "d"), ("Count", "n"), ("Count", "d")] {
        compile_str("t.bt.ron", &tree(action, key), &v)
            .unwrap_or_else(|e| panic!("{action} into {key}: {e}"));
    }
    let text = tree("Measure", "n");
    let e = error(&text, &v);
    assert!(
        matches!(
            &e.problem,
            BtProblem::ActionParamType {
                expected: ValueType::Float,
                found: ValueType::Int,
                output: false,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!((e.line, e.column), at(&text, "out"), "{e}");
}

/// Action ids are 32-bit hashes of the names (a slot is 16 bytes): two
/// names of one tree that hash alike are refused where the second is
/// written, not confused at run time. "Act82168" and "Act914900" have the
/// same 32-bit FNV-1a.
#[test]
fn two_actions_with_one_id_are_a_compile_error() {
    assert_eq!(
        wyrd_bt::ActionId::of("Act82168"),
        wyrd_bt::ActionId::of("Act914900")
    );
    let text = r#"(
    root: Sequence(children: [
        Action(action: "Act82168"),
        Action(action: "Act914900"),
    ]),
)"#;
    let e = error(text, &Vocabulary::permissive());
    let msg = e.to_string();
    assert!(
        msg.contains("\"Act914900\" and \"Act82168\" have the same ActionId"),
        "{msg}"
    );
    assert_eq!((e.line, e.column), at(text, "Act914900"));
}

/// A number keeps its key's type, and one the key cannot hold is refused,
/// as BehaviorTree.CPP refuses a conversion between ports that loses
/// precision or range (`safe_any.hpp`, `convertNumber`: "Floating point
/// truncated"). A stranger's game found an int key taking 2.7 (through
/// `set` and through an `Out<i64>` port) and holding a float from then on:
/// `AddBlackboard` made it 3.7, and a typed `i64` read 3.
#[test]
fn an_int_key_holds_ints_and_refuses_a_fraction() {
    let mut v = Vocabulary::default();
    v.add_action_type::<Count>();
    let p = compile_str(
        "t.bt.ron",
        r#"(
    blackboard: {"count": 0, "speed": 1.5},
    root: Sequence(name: "root", children: [
        Action(name: "count", action: "Count", params: {"out": "{count}"}),
        AddBlackboard(key: "count", by: 1),
    ]),
)"#,
        &v,
    )
    .unwrap();
    let mut sim = Sim::new(&p, 0);
    let bb = &mut sim.blackboard;
    bb.set("count", 2.0).unwrap();
    assert_eq!(
        bb.get("count"),
        Some(Value::Int(2)),
        "2.0 fits: kept an int"
    );
    let e = bb.set("count", 2.7).unwrap_err();
    assert_eq!(
        e.to_string(),
        "blackboard key \"count\" holds an int: 2.7 is not one, so it was not written"
    );
    assert_eq!(bb.get("count"), Some(Value::Int(2)));
    let e = bb.set("count", 2.7f32).unwrap_err();
    assert!(
        e.to_string().contains(": 2.7 is not one"),
        "an f32 as written: {e}"
    );
    bb.set("speed", 3).unwrap();
    assert_eq!(bb.get("speed"), Some(Value::Float(3.0)), "kept a float");
    let e = bb.set("count", true).unwrap_err();
    assert_eq!(
        e.to_string(),
        "blackboard key \"count\" holds an int: a bool was not written to it"
    );
    sim.step();
    let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
    let count = Count::read(p.action_of(slot.node).unwrap(), &sim.blackboard).unwrap();
    assert!(
        sim.blackboard.write(count.out.port, 2.7).is_err(),
        "through the port too"
    );
    sim.blackboard.write(count.out.port, 6.0).unwrap();
    sim.finish("root/count", wyrd_bt::sim::Outcome::Success)
        .unwrap();
    sim.step();
    assert_eq!(
        sim.blackboard.get("count"),
        Some(Value::Int(7)),
        "6 + 1, an int"
    );
}

bt_action! {
    /// Numbers of each width a field may have.
    pub struct Widths {
        /// An `i64`.
        pub i: i64,
        /// A `u32`.
        pub u: u32,
        /// An `i32`.
        pub s: i32,
        /// An `f32`.
        pub f: f32,
    }
}

/// A number reaches a field only if the field holds it unchanged: a
/// constant with a fraction for an int field does not load, and a number
/// out of a field's range fails the read, naming the parameter and the
/// value. Before, 2.9 loaded and read as 2, -5 read as a `u32` 0, and
/// 3000000000 as an `i32` -1294967296.
#[test]
fn a_number_reaches_a_field_unchanged_or_not_at_all() {
    let mut v = Vocabulary::default();
    v.add_action_type::<Widths>();
    let tree = |params: &str| {
        format!(
            r#"(
    blackboard: {{"n": 0.0}},
    root: Action(name: "w", action: "Widths", params: {{{params}}}),
)"#
        )
    };
    let text = tree(r#""i": 2.9, "u": 1, "s": 1, "f": 1"#);
    let e = error(&text, &v);
    assert!(
        matches!(
            &e.problem,
            BtProblem::ActionParamType {
                expected: ValueType::Int,
                found: ValueType::Float,
                ..
            }
        ),
        "{e}"
    );
    let (line, quote) = at(&text, "\"i\"");
    assert_eq!((e.line, e.column), (line, quote + 1), "at the name: {e}");
    let read = |params: &str, n: f64| {
        let p = compile_str("t.bt.ron", &tree(params), &v).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Sim::new(&p, 0);
        sim.blackboard.set("n", n).unwrap();
        sim.step();
        let slot = *sim.actions.iter().find(|a| a.is_running()).unwrap();
        Widths::read(p.action_of(slot.node).unwrap(), &sim.blackboard)
    };
    assert_eq!(
        read(r#""i": 2.0, "u": 7, "s": -7, "f": 3"#, 0.0).unwrap(),
        Widths {
            i: 2,
            u: 7,
            s: -7,
            f: 3.0
        }
    );
    let cases = [
        (
            r#""i": 1, "u": -5, "s": 1, "f": 1"#,
            "Widths: parameter \"u\" is -5: the field's type, u32, cannot hold it",
        ),
        (
            r#""i": 1, "u": 1, "s": 3000000000, "f": 1"#,
            "Widths: parameter \"s\" is 3000000000: the field's type, i32, cannot hold it",
        ),
        (
            r#""i": "{n}", "u": 1, "s": 1, "f": 1"#,
            "Widths: parameter \"i\" is 2.5: the field's type, i64, cannot hold it",
        ),
    ];
    for (params, says) in cases {
        let e = read(params, 2.5).unwrap_err();
        assert_eq!(e.to_string(), says, "{params}");
    }
}

/// The review of the number rule: before its tree binds, a blackboard
/// keeps a number as given (a key's type is then the first value's guess,
/// and the tree's declaration decides when it binds); `SetBlackboard` of a
/// number the key cannot hold does not load, or, read from another key,
/// fails the node instead of succeeding without writing.
#[test]
fn numbers_before_binding_and_through_set_blackboard() {
    let mut bb = wyrd_bt::Blackboard::new().with("speed", 3);
    bb.set("speed", 3.5).unwrap();
    assert_eq!(
        bb.get("speed"),
        Some(Value::Float(3.5)),
        "kept until it binds"
    );
    let e = compile(r#"(blackboard: {"count": 0}, root: SetBlackboard(key: "count", value: 2.5))"#)
        .unwrap_err();
    assert!(e.to_string().contains("count"), "{e}");
    let p = program(
        r#"(blackboard: {"count": 0, "ratio": 2.5}, root: SetBlackboard(key: "count", value: "{ratio}"))"#,
    );
    let mut sim = Sim::new(&p, 0).with_repeat(false);
    assert_eq!(sim.step().status, wyrd_bt::Status::Failure, "not written");
    assert_eq!(sim.blackboard.get("count"), Some(Value::Int(0)));
    let p2 = program(
        r#"(blackboard: {"count": 0, "ratio": 4.0}, root: SetBlackboard(key: "count", value: "{ratio}"))"#,
    );
    let mut sim = Sim::new(&p2, 0).with_repeat(false);
    assert_eq!(sim.step().status, wyrd_bt::Status::Success);
    assert_eq!(sim.blackboard.get("count"), Some(Value::Int(4)), "4.0 fits");
    // As AddBlackboard adds 2.0 to an int key (it refused it).
    let p3 = program(r#"(blackboard: {"count": 1}, root: AddBlackboard(key: "count", by: 2.0))"#);
    let mut sim = Sim::new(&p3, 0).with_repeat(false);
    sim.step();
    assert_eq!(sim.blackboard.get("count"), Some(Value::Int(3)));
}

/// A number bound to a behavior's parameter binds as written (a behavior
/// declared `"n": 1` takes 1.5, as it always did) and is held or refused
/// where the behavior uses it: written to an int key, 2.5 does not load,
/// 2.0 is written as 2 (the review of the number rule).
#[test]
fn a_bound_number_is_held_or_refused_where_it_is_used() {
    let tree = |range: &str| {
        format!(
            r#"(
    behaviors: [
        Sequence(name: "wait", parameters: {{"n": Int}}, children: [SetBlackboard(key: "count", value: "{{n}}")]),
    ],
    blackboard: {{"count": 0}},
    root: Use(name: "w", behavior: "wait", with: {{"n": {range}}}),
)"#
        )
    };
    let e = compile(&tree("2.5")).unwrap_err();
    assert!(e.to_string().contains("count"), "{e}");
    let p = program(&tree("2.0"));
    let mut sim = Sim::new(&p, 0).with_repeat(false);
    sim.step();
    assert_eq!(sim.blackboard.get("count"), Some(Value::Int(2)));
}
