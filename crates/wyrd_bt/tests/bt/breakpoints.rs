//! Breakpoints (issue 27): node and action events, conditions in the
//! tree's syntax, for one agent or any; in the sim (what `wyrd sim --break`
//! runs) and in an app, where a hit pauses the trees at the end of the tick.

use bevy::prelude::*;
use wyrd_bt::prelude::*;
use wyrd_bt::sim::{Outcome, Sim};
use wyrd_bt::{
    BreakOn, BreakpointDef, Breakpoints, BreakpointsDef, BtBreakpointHit, BtBreakpoints,
    BtBreakpointsPlugin, BtSettings, Vocabulary, compile_str,
};

const TREE: &str = r#"(
    blackboard: {"target_visible": false, "ammo": 10},
    root: PrioritizedList(name: "root", children: [
        GuardSequence(name: "fight", children: [
            Condition(check: Is("target_visible")),
            Action(name: "shoot", action: "Shoot"),
        ]),
        Action(name: "patrol", action: "Patrol"),
    ]),
)"#;

fn program() -> wyrd_bt::Program {
    compile_str("guard.bt.ron", TREE, &Vocabulary::permissive()).unwrap()
}

fn parse(text: &str) -> BreakpointsDef {
    BreakpointsDef::parse("guard.breakpoints.ron", text).unwrap()
}

/// Runs ticks 1..=n, setting values before some ticks; the hits by tick.
fn hits(
    p: &wyrd_bt::Program,
    breaks: &str,
    n: u64,
    before: impl Fn(u64, &mut Sim<'_>),
) -> Vec<(u64, String, String)> {
    let b = Breakpoints::resolve(&parse(breaks), p, "guard.breakpoints.ron").unwrap();
    let mut sim = Sim::new(p, 1).with_repeat(true).with_breakpoints(b);
    let mut out = Vec::new();
    for t in 1..=n {
        before(t, &mut sim);
        let r = sim.step();
        if let Some(h) = sim.last_break() {
            out.push((r.tick, h.name.clone(), h.why.clone()));
        }
    }
    out
}

#[test]
fn an_action_aborted_by_a_higher_priority_hits_in_that_tick() {
    let p = program();
    let got = hits(
        &p,
        r#"(breakpoints: [(action: "Patrol", on: Aborted)])"#,
        8,
        |t, sim| {
            if t == 5 {
                sim.set("target_visible", true).unwrap();
            }
        },
    );
    assert_eq!(
        got,
        [(
            5,
            "action Patrol was aborted".to_owned(),
            "root/patrol was aborted".to_owned()
        )]
    );
}

#[test]
fn a_node_becoming_running_and_finishing_hit_once_each() {
    let p = program();
    let breaks = r#"(breakpoints: [
        (node: "root/fight", on: Running),
        (name: "shot", node: "root/fight/shoot", on: Success),
    ])"#;
    let b = Breakpoints::resolve(&parse(breaks), &p, "guard.breakpoints.ron").unwrap();
    let mut sim = Sim::new(&p, 1).with_repeat(true).with_breakpoints(b);
    let mut got = Vec::new();
    for t in 1..=10u64 {
        if t == 3 {
            sim.set("target_visible", true).unwrap();
        }
        if t == 6 {
            sim.finish("root/fight/shoot", Outcome::Success).unwrap();
        }
        sim.step();
        if let Some(h) = sim.last_break() {
            got.push((t, h.name.clone()));
        }
    }
    // Running at 3 (not again while it stays running); the shot's success
    // is taken at 6, and the guard sequence starts over in the same tick
    // (a repeating root), which is not "becoming running" again: it was.
    assert_eq!(
        got,
        [
            (3, "root/fight became running".to_owned()),
            (6, "shot".to_owned())
        ]
    );
}

#[test]
fn a_condition_alone_hits_when_it_turns_true_not_while_it_stays() {
    let p = program();
    let got = hits(
        &p,
        r#"(breakpoints: [(name: "low ammo", when: Bb("ammo", Lt, 3))])"#,
        10,
        |t, sim| match t {
            4 => sim.set("ammo", 2).unwrap(),
            6 => sim.set("ammo", 1).unwrap(),
            7 => sim.set("ammo", 9).unwrap(),
            9 => sim.set("ammo", 0).unwrap(),
            _ => {}
        },
    );
    let ticks: Vec<u64> = got.iter().map(|(t, ..)| *t).collect();
    assert_eq!(ticks, [4, 9], "{got:?}");
    assert_eq!(got[0].2, "low ammo became true");
}

#[test]
fn an_event_with_a_condition_hits_only_while_the_condition_holds() {
    let p = program();
    // Patrol is aborted twice (ticks 3 and 7); only the second time is the
    // ammo low.
    let got = hits(
        &p,
        r#"(breakpoints: [(action: "Patrol", on: Aborted, when: Bb("ammo", Le, 5))])"#,
        9,
        |t, sim| match t {
            3 | 7 => sim.set("target_visible", true).unwrap(),
            5 => {
                sim.set("target_visible", false).unwrap();
                sim.set("ammo", 4).unwrap();
            }
            _ => {}
        },
    );
    let ticks: Vec<u64> = got.iter().map(|(t, ..)| *t).collect();
    assert_eq!(ticks, [7], "{got:?}");
}

#[test]
fn a_breakpoint_the_tree_cannot_have_is_an_error_naming_it() {
    let p = program();
    let def = parse(
        r#"(breakpoints: [
        (node: "root/fight/shoot", on: Aborted),
        (node: "root/fihgt", on: Running),
        (when: Predicate("can_see", {})),
        (action: "Reload"),
        (when: Is("ammo_low")),
    ])"#,
    );
    let errors = Breakpoints::resolve(&def, &p, "guard.breakpoints.ron").unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 4, "{text:#?}");
    assert!(
        text[0].starts_with("guard.breakpoints.ron: breakpoint 2 ")
            && text[0].contains("no node \"root/fihgt\""),
        "{text:#?}"
    );
    assert!(text[1].contains("predicates"), "{text:#?}");
    assert!(text[2].contains("no leaf of the tree runs the action \"Reload\""));
    assert!(text[3].contains("no blackboard key \"ammo_low\""));
    // A misspelt node or key says the nearest one.
    assert!(
        text[0].contains("did you mean \"root/fight\"?"),
        "{text:#?}"
    );
    let def = parse(r#"(breakpoints: [(when: Is("target_visibel"))])"#);
    let errors = Breakpoints::resolve(&def, &p, "guard.breakpoints.ron").unwrap_err();
    assert!(
        errors[0]
            .to_string()
            .contains("did you mean \"target_visible\"?"),
        "{errors:#?}"
    );
    // A syntax error has its line and column.
    let e = BreakpointsDef::parse("b.ron", "(breakpoints: [(node: 3)])").unwrap_err();
    assert!(e.to_string().starts_with("b.ron:1:"), "{e}");
}

/// A breakpoint's condition follows the tree's typing rules: a key is
/// compared with a value of its type (a stranger's `Bb("fatigue", Gt, true)` passed `wyrd check` and ran,
/// where the same condition in the tree is an error).
#[test]
fn a_breakpoint_condition_of_the_wrong_type_is_an_error() {
    let p = program();
    let def = parse(
        r#"(breakpoints: [
        (when: Bb("ammo", Gt, true)),
        (when: Is("ammo")),
        (when: Bb("ammo", Lt, 3)),
        (when: Bb("ammo", Ne, "{ammo}")),
    ])"#,
    );
    let errors = Breakpoints::resolve(&def, &p, "guard.breakpoints.ron").unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(text.len(), 2, "{text:#?}");
    assert!(
        text[0].contains("breakpoint 1 ")
            && text[0].contains("\"ammo\" is an int, compared with a bool"),
        "{text:#?}"
    );
    assert!(
        text[1].contains("breakpoint 2 ")
            && text[1].contains("\"ammo\" is an int, compared with a bool"),
        "{text:#?}"
    );
}

#[test]
fn the_default_event_is_running_and_names_say_what_they_watch() {
    let d = BreakpointDef {
        node: Some("root/patrol".into()),
        ..Default::default()
    };
    assert_eq!(d.display_name(), "root/patrol became running");
    let d = BreakpointDef {
        action: Some("Shoot".into()),
        on: Some(BreakOn::Failure),
        ..Default::default()
    };
    assert_eq!(d.display_name(), "action Shoot failed");
}

fn app(dir: &std::path::Path) -> App {
    wyrd_test_support::TestApp::in_folder(dir, 30.0)
        .plugins((BtPlugin::default(), BtBreakpointsPlugin::default()))
        .collect::<BtBreakpointHit>()
        .with(|app| {
            app.register_bt_action("Shoot").register_bt_action("Patrol");
        })
        .build()
}

/// In an app: a breakpoints file beside the tree, loaded as an asset; a
/// hit for the named agent pauses the trees at the end of that tick, says
/// which agent and why, and the other agent of the tree is not watched.
#[test]
fn a_hit_in_an_app_pauses_the_trees_at_the_end_of_the_tick() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("guard.bt.ron"), TREE).unwrap();
    std::fs::write(
        dir.path().join("guard.breakpoints.ron"),
        r#"(breakpoints: [(action: "Patrol", on: Aborted, agent: "guard 2")])"#,
    )
    .unwrap();
    let mut app = app(dir.path());
    let tree: Handle<wyrd_bt::BtAsset> = app.world().resource::<AssetServer>().load("guard.bt.ron");
    let file: Handle<wyrd_bt::BtBreakpointsFile> = app
        .world()
        .resource::<AssetServer>()
        .load("guard.breakpoints.ron");
    let spawn = |app: &mut App, name: &str| {
        app.world_mut()
            .spawn((
                Name::new(name.to_owned()),
                BehaviorTree::new(tree.clone()),
                Blackboard::default(),
            ))
            .id()
    };
    let one = spawn(&mut app, "guard 1");
    let two = spawn(&mut app, "guard 2");
    wyrd_test_support::run_until(
        &mut app,
        "both agents ticking and the breakpoints loaded",
        wyrd_test_support::LOAD_UPDATES,
        |w| {
            w.resource::<BtBreakpoints>().get("guard.bt.ron").is_some()
                && [one, two]
                    .iter()
                    .all(|e| w.get::<BtAgent>(*e).is_some_and(|a| a.state().ticks() > 1))
        },
    );
    let _keep = file;
    // The first guard sees its target: no hit (the breakpoint is guard 2's).
    app.world_mut()
        .get_mut::<Blackboard>(one)
        .unwrap()
        .set("target_visible", true)
        .unwrap();
    wyrd_test_support::step(&mut app, 3);
    assert!(!app.world().resource::<BtSettings>().paused);
    // The second one does: its patrol is aborted, and the trees pause.
    app.world_mut()
        .get_mut::<Blackboard>(two)
        .unwrap()
        .set("target_visible", true)
        .unwrap();
    wyrd_test_support::step(&mut app, 1);
    let hit_tick = app.world().get::<BtAgent>(two).unwrap().state().ticks();
    assert!(app.world().resource::<BtSettings>().paused);
    let last = app
        .world()
        .resource::<BtBreakpoints>()
        .last_hit
        .clone()
        .unwrap();
    assert_eq!((last.entity, last.tick), (two, hit_tick));
    assert_eq!(last.tree, "guard.bt.ron");
    assert_eq!(last.hit.why, "root/patrol was aborted");
    let sent = wyrd_test_support::take_collected::<BtBreakpointHit>(app.world_mut());
    assert_eq!(sent, [last]);
    // Paused: no tree ticks while the game's updates go on; a step ticks one.
    wyrd_test_support::step(&mut app, 5);
    assert_eq!(
        app.world().get::<BtAgent>(two).unwrap().state().ticks(),
        hit_tick
    );
    app.world_mut().resource_mut::<BtSettings>().steps = 1;
    wyrd_test_support::step(&mut app, 3);
    assert_eq!(
        app.world().get::<BtAgent>(two).unwrap().state().ticks(),
        hit_tick + 1
    );
}

/// Breakpoints set in the inspector are written back to the file beside
/// the tree: `to_ron` reads back to the same breakpoints, every field and
/// every kind of condition (constants, key references, types, strings
/// with quotes, predicate arguments, nested checks), and the repository's
/// own file survives the round trip.
#[test]
fn breakpoints_written_as_a_file_read_back_the_same() {
    let written = r#"(
    breakpoints: [
        (name: "say \"hi\"", node: "root/fight", on: Aborted, agent: "squad 0 grunt 2"),
        (action: "Shoot", on: Success),
        (when: All([Is("a"), IsNot("b"), Bb("ammo", Lt, 10), Bb("ammo", Ge, "{max_ammo}")])),
        (when: Any([HasTag("driver"), Not(World("QST_DST_TOWER_5", Ge, 5)), Predicate("within", {"of": "{target}", "meters": 8.5})])),
        (when: Bb("name", Eq, Str("a, b")), on: Running),
        (when: Bb("spot", Eq, (1.5, -2.0))),
    ],
)"#;
    let def = BreakpointsDef::parse("t.breakpoints.ron", written).unwrap();
    assert_eq!(def.breakpoints.len(), 6);
    let text = def.to_ron();
    let again =
        BreakpointsDef::parse("t.breakpoints.ron", &text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(again, def, "{text}");
    assert!(
        text.contains(r#"(action: "Shoot", on: Success),"#),
        "one line per breakpoint: {text}"
    );
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../assets/squad_ai/combat.breakpoints.ron"
    );
    let repo = BreakpointsDef::parse("combat", &std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(
        BreakpointsDef::parse("combat", &repo.to_ron()).unwrap(),
        repo
    );
}

/// A stranger's breakpoints file: a misspelt event read "Unexpected
/// variant named `Abortd` in enum `BreakOn`" (the parser's type); an
/// unknown field named the parser's struct. Both in the file's words.
#[test]
fn a_misspelt_event_or_field_is_said_in_the_files_words() {
    let e = BreakpointsDef::parse(
        "g.breakpoints.ron",
        "(breakpoints: [(node: \"root/flee\", on: Abortd)])",
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`Abortd`; did you mean \"Aborted\"?") && !e.contains("BreakOn"),
        "{e}"
    );
    let e = BreakpointsDef::parse("g.breakpoints.ron", "(breakpoints: [(nod: \"root\")])")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown field `nod` in a breakpoint; did you mean \"node\"?"),
        "{e}"
    );
}
