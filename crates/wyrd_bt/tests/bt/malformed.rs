//! A corpus of malformed trees: each gives its own clear error, with file,
//! line and column, and never a panic.

use std::path::Path;

use wyrd_bt::{BtError, BtProblem, Vocabulary, compile, load_tree_files};

fn load(name: &str) -> Result<wyrd_bt::Program, BtError> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    let files = load_tree_files(name, &mut |p| {
        std::fs::read(dir.join(p)).map_err(|e| e.to_string())
    })?;
    compile(name, &files, &vocab)
}

fn expect(name: &str, line: usize, check: impl Fn(&BtProblem) -> bool, words: &str) {
    let err = load(name).expect_err(name);
    assert!(check(&err.problem), "{name}: unexpected problem: {err}");
    assert_eq!(err.line, line, "{name}: {err}");
    assert!(err.column >= 1);
    let text = err.to_string();
    assert!(text.starts_with(&format!("{}:{line}:", err.file)), "{text}");
    assert!(text.contains(words), "{name}: {text:?} lacks {words:?}");
}

#[test]
fn each_malformed_tree_has_its_own_error() {
    expect(
        "unknown_kind.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownNodeKind { found, .. } if found == "Dance"),
        "unknown node kind \"Dance\"",
    );
    // A BehaviorTree.CPP user's names: the error says which kind it is
    // here, from the node table's BT.CPP column.
    expect(
        "bt_cpp_name.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownNodeKind { found, .. } if found == "Inverter"),
        "BehaviorTree.CPP's Inverter is `Invert` here",
    );
    expect(
        "children_on_leaf.bt.ron",
        3,
        |p| matches!(p, BtProblem::ChildrenOnLeaf { .. }),
        "Action is a leaf and cannot have children",
    );
    expect(
        "unknown_action.bt.ron",
        4,
        |p| matches!(p, BtProblem::UnknownAction { name, .. } if name == "Teleport"),
        "register_bt_action",
    );
    expect(
        "unknown_predicate.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownPredicate { .. }),
        "can_fly",
    );
    expect(
        "unknown_key.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownKey(k) if k == "ammunition"),
        "ammunition",
    );
    // A BT.CPP user's robot (issue 24): a behavior's output parameter
    // written as a plain key was an unknown key, placed at the parameter's
    // declaration (where the word first appears), not at the node.
    expect(
        "parameter_as_key.bt.ron",
        6,
        |p| matches!(p, BtProblem::ParameterAsKey(k) if k == "out"),
        "write \"{out}\"",
    );
    expect(
        "key_type.bt.ron",
        3,
        |p| matches!(p, BtProblem::KeyType { .. }),
        "is an int",
    );
    expect(
        "unknown_tag.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownTag(t) if t == "pilot"),
        "pilot",
    );
    expect(
        "missing_behavior.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnknownBehavior(b) if b == "flee"),
        "unknown behavior \"flee\"",
    );
    expect(
        "cycle.bt.ron",
        4,
        |p| matches!(p, BtProblem::Cycle(c) if c == "a -> b -> a"),
        "cyclic reference: a -> b -> a",
    );
    expect(
        "missing_file.bt.ron",
        3,
        |p| matches!(p, BtProblem::Io { file, .. } if file == "nowhere.bt.ron"),
        "nowhere.bt.ron",
    );
    expect(
        "duplicate_path.bt.ron",
        4,
        |p| matches!(p, BtProblem::DuplicatePath(d) if d == "root/shoot"),
        "duplicate path \"root/shoot\"",
    );
    expect(
        "duplicate_behavior.bt.ron",
        4,
        |p| matches!(p, BtProblem::DuplicateBehavior(_)),
        "declared twice",
    );
    expect(
        "unnamed_behavior.bt.ron",
        3,
        |p| matches!(p, BtProblem::UnnamedBehavior),
        "needs a name",
    );
    expect(
        "empty_composite.bt.ron",
        2,
        |p| matches!(p, BtProblem::Arity { found: 0, .. }),
        "needs at least 1 child, it has 0",
    );
    expect(
        "bad_weights.bt.ron",
        2,
        |p| {
            matches!(
                p,
                BtProblem::BadWeights {
                    weights: 1,
                    children: 2
                }
            )
        },
        "1 weights for 2 children",
    );
    expect(
        "bad_duration.bt.ron",
        2,
        |p| matches!(p, BtProblem::BadDuration(_)),
        "-1",
    );
    expect(
        "redirect_without_position.bt.ron",
        4,
        |p| matches!(p, BtProblem::NoNativePosition(_)),
        "not placed in the tree",
    );
    expect(
        "syntax.bt.ron",
        2,
        |p| matches!(p, BtProblem::Syntax(_)),
        "",
    );
    expect(
        "bad_policy.bt.ron",
        2,
        |p| {
            matches!(
                p,
                BtProblem::BadPolicy {
                    policy: 3,
                    children: 1
                }
            )
        },
        "Count(3) needs 3 of its 1 children",
    );
    // Issue 12, 8.: `Count(0)` is not "more than the children".
    expect(
        "policy_zero.bt.ron",
        2,
        |p| matches!(p, BtProblem::BadPolicy { policy: 0, .. }),
        "Count(0) needs 0 of its 1 children: use Count(1..=1), One or All",
    );
    // Issue 12, 8.: `Repeat(count: 0)` was silently "forever".
    expect(
        "repeat_zero.bt.ron",
        2,
        |p| matches!(p, BtProblem::ZeroCount { kind: "Repeat", .. }),
        "Repeat(count: 0) would never run its child",
    );
    // Issue 12, 3.(c): a behavior placed twice made a redirect silently jump
    // to the first placement.
    expect(
        "redirect_placed_twice.bt.ron",
        4,
        |p| matches!(p, BtProblem::PlacedTwice { count: 2, .. }),
        "placed 2 times (root/first, root/second)",
    );
    // Issue 12, 3.(b): a redirect below the impulse's own branch ran
    // nothing at all; one into the impulse's own behavior would run itself.
    expect(
        "redirect_into_itself.bt.ron",
        5,
        |p| matches!(p, BtProblem::RedirectIntoItself { .. }),
        "contains the impulse",
    );
    // Found by an independent review: a decorator given `children` was "a
    // leaf"; a wrong type was reported at the key's declaration.
    expect(
        "decorator_children.bt.ron",
        3,
        |p| matches!(p, BtProblem::WrongChildField { .. }),
        "`children` is not a field of this node: it takes `child: Node(..)`",
    );
    expect(
        "key_type_at_use.bt.ron",
        5,
        |p| matches!(p, BtProblem::KeyType { .. }),
        "blackboard key \"hp\" is an int, compared with a bool",
    );
    expect(
        "threshold_zero.bt.ron",
        3,
        |p| {
            matches!(
                p,
                BtProblem::ZeroCount {
                    kind: "Threshold",
                    ..
                }
            )
        },
        "Threshold(count: 0) would succeed without polling its condition once",
    );
    expect(
        "switch_arity.bt.ron",
        3,
        |p| {
            matches!(
                p,
                BtProblem::SwitchArity {
                    cases: 2,
                    children: 1
                }
            )
        },
        "one child per case, then the default",
    );
    expect(
        "unknown_custom.bt.ron",
        2,
        |p| matches!(p, BtProblem::UnknownCustom { .. }),
        "Majority",
    );
}

#[test]
fn every_file_in_the_corpus_is_checked() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        assert!(load(&name).is_err(), "{name} loaded");
        n += 1;
    }
    assert_eq!(n, 30);
}

#[test]
fn random_bytes_never_panic() {
    let mut state = 0x1234_5678u64;
    for len in 0..300 {
        let bytes: Vec<u8> = (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                b"(){}[],:\"SequenceActionroot 01a"[(state % 31) as usize]
            })
            .collect();
        let _ = wyrd_bt::parse_tree("fuzz.bt.ron", &bytes);
    }
}

/// Each file of the corpus has one error: `compile_all` (what `wyrd
/// check` runs) reports that one and no other. A second would be one
/// that only the failed node's absence caused.
#[test]
fn compile_all_reports_each_corpus_error_alone() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    let mut compiled = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        // Files that do not parse stop at the parser's error.
        let Ok(files) = load_tree_files(&name, &mut |p| {
            std::fs::read(dir.join(p)).map_err(|e| e.to_string())
        }) else {
            continue;
        };
        let first = compile(&name, &files, &vocab).expect_err(&name);
        let all = wyrd_bt::compile_all(&name, &files, &vocab).expect_err(&name);
        assert_eq!(all, vec![first], "{name}");
        compiled += 1;
    }
    assert!(compiled >= 20, "{compiled}");
}

/// A tree with four faulty nodes: every one is reported, once each (a
/// behavior used twice fails once), in file order, and the siblings after
/// a failed node are still compiled.
#[test]
fn compile_all_reports_every_faulty_node_in_file_order() {
    let text = r#"(
    blackboard: { "alarm": false, "ammo": 10 },
    behaviors: [
        Sequence(name: "investigate", children: [
            Action(action: "GoTo", params: { "where": "{spot}" }),
            Wait(seconds: 2.0),
        ]),
    ],
    root: ReactiveFallback(children: [
        Sequence(children: [
            Condition(check: Is("alarm")),
            Use(behavior: "investigate"),
        ]),
        Sequence(children: [
            Condition(check: Bb("amo", Lt, 5)),
            Action(action: "Reload"),
        ]),
        Use(behavior: "investgate"),
        Wait(seconds: -1.0),
        Use(behavior: "investigate"),
    ]),
)"#;
    let files = load_tree_files("guard.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
    let vocab = Vocabulary::permissive();
    let all = wyrd_bt::compile_all("guard.bt.ron", &files, &vocab).unwrap_err();
    let places: Vec<(usize, usize)> = all.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(places, [(5, 56), (15, 34), (18, 13), (19, 9)], "{all:#?}");
    assert!(matches!(&all[2].problem, BtProblem::UnknownBehavior(b) if b == "investgate"));
    assert!(matches!(all[3].problem, BtProblem::BadDuration(_)));
    // `compile` stops at the first it finds.
    assert_eq!(compile("guard.bt.ron", &files, &vocab).unwrap_err(), all[0]);
}

/// Every tree of the repository that compiles compiles the same with
/// `compile_all`.
#[test]
fn compile_all_agrees_with_compile_on_good_trees() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut trees = Vec::new();
    let mut stack = vec![root.join("assets"), root.join("crates/wyrd_bt/tests/trees")];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.to_string_lossy().ends_with(".bt.ron") {
                trees.push(path);
            }
        }
    }
    let vocab = Vocabulary::permissive();
    let mut good = 0;
    for tree in &trees {
        let dir = tree.parent().unwrap();
        let name = tree.file_name().unwrap().to_string_lossy().into_owned();
        let Ok(files) = load_tree_files(&name, &mut |p| {
            std::fs::read(dir.join(p)).map_err(|e| e.to_string())
        }) else {
            continue;
        };
        let one = compile(&name, &files, &vocab);
        let all = wyrd_bt::compile_all(&name, &files, &vocab);
        match (one, all) {
            (Ok(a), Ok(b)) => {
                assert_eq!(a.content_hash(), b.content_hash(), "{}", tree.display());
                let paths = |p: &wyrd_bt::Program| -> Vec<String> {
                    (0..p.len() as u32).map(|n| p.path(n).to_owned()).collect()
                };
                assert_eq!(paths(&a), paths(&b), "{}", tree.display());
                good += 1;
            }
            (Err(e), Err(all)) => assert_eq!(all.first(), Some(&e), "{}", tree.display()),
            (one, all) => panic!(
                "{}: {:?} against {:?}",
                tree.display(),
                one.err(),
                all.err()
            ),
        }
    }
    assert!(good >= 5, "{good} of {}", trees.len());
}

/// squad_ai's tree with up to six of its lines broken at once (a key, a
/// behavior or a duration made wrong), 300 draws: `compile_all` never
/// panics on what failed nodes leave behind, reports only broken lines,
/// and reports every broken line.
#[test]
fn compile_all_on_many_broken_lines_reports_exactly_those() {
    let vocab = Vocabulary::permissive();
    let edits = [
        ("Is(\"", "Is(\"no_such_"),
        ("Bb(\"", "Bb(\"no_such_"),
        ("Use(behavior: \"", "Use(behavior: \"no_such_"),
        ("seconds: ", "seconds: -"),
    ];
    for (broken, edited) in broken_drafts(&edits, 1) {
        let files = squad_ai_files(&edited);
        let errors = wyrd_bt::compile_all("combat.bt.ron", &files, &vocab).unwrap_err();
        let mut reported: Vec<usize> = errors.iter().map(|e| e.line - 1).collect();
        reported.dedup();
        assert_eq!(reported, broken, "{errors:#?}");
    }
}

/// squad_ai's asset folder.
fn squad_ai() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/squad_ai")
}

/// squad_ai's combat tree as `edited`, with the files it uses.
fn squad_ai_files(edited: &str) -> std::collections::HashMap<String, wyrd_bt::ParsedFile> {
    let root = squad_ai();
    load_tree_files("combat.bt.ron", &mut |p| {
        if p == "combat.bt.ron" {
            Ok(edited.as_bytes().to_vec())
        } else {
            std::fs::read(root.join(p)).map_err(|e| e.to_string())
        }
    })
    .unwrap()
}

/// 300 copies of squad_ai's tree, each with one to six of its lines
/// broken by the first of `edits` (text to find, its replacement) that
/// the line holds: the broken line numbers (0-based, in order) and the
/// text.
fn broken_drafts(edits: &[(&str, &str)], seed: u64) -> Vec<(Vec<usize>, String)> {
    let text = std::fs::read_to_string(squad_ai().join("combat.bt.ron")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let breaks = |line: &str| {
        edits
            .iter()
            .find(|(from, _)| line.contains(from))
            .map(|(from, to)| line.replacen(from, to, 1))
    };
    let candidates: Vec<usize> = (0..lines.len())
        .filter(|&i| breaks(lines[i]).is_some())
        .collect();
    assert!(candidates.len() > 20, "{}", candidates.len());
    let mut rng = wyrd_bt::SplitMix64::new(seed);
    (0..300)
        .map(|_| {
            let mut broken: Vec<usize> = (0..1 + rng.below(6))
                .map(|_| candidates[rng.below(candidates.len() as u64) as usize])
                .collect();
            broken.sort_unstable();
            broken.dedup();
            let mut edited: Vec<String> = lines.iter().map(|l| (*l).to_owned()).collect();
            for &i in &broken {
                edited[i] = breaks(lines[i]).unwrap_or_default();
            }
            (broken, edited.join("\n"))
        })
        .collect()
}

/// The same unknown key written in two nodes: the error of the node that
/// failed points at that node, not at the first place the text appears
/// (here a stimulus behavior above the root, compiled after it).
#[test]
fn an_error_points_at_its_own_node_when_the_text_is_also_elsewhere() {
    let text = r#"(
    blackboard: { "alarm": false },
    behaviors: [
        Sequence(name: "on_noise", children: [
            Condition(check: Is("alrm")),
            Action(action: "Look"),
        ]),
    ],
    root: Sequence(children: [
        Condition(check: Is("alrm")),
        Action(action: "Patrol"),
    ]),
)"#;
    let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
    let vocab = Vocabulary::permissive();
    let e = compile("t.bt.ron", &files, &vocab).unwrap_err();
    assert_eq!((e.line, e.column), (10, 30), "{e}");
    let all = wyrd_bt::compile_all("t.bt.ron", &files, &vocab).unwrap_err();
    let places: Vec<(usize, usize)> = all.iter().map(|e| (e.line, e.column)).collect();
    assert_eq!(places, [(5, 34), (10, 30)], "{all:#?}");
}

/// Each corpus file the parser refuses has one error: `parse_tree_all`
/// reports it alone (reading the refused node as `Fail()` adds none).
#[test]
fn parse_tree_all_reports_each_corpus_syntax_error_alone() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/malformed");
    let mut refused = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&path).unwrap();
        let Err(first) = wyrd_bt::parse_tree(&name, &bytes) else {
            continue;
        };
        let all = wyrd_bt::parse_tree_all(&name, &bytes).unwrap_err();
        assert_eq!(all, vec![first], "{name}");
        refused += 1;
    }
    assert!(refused >= 4, "{refused}");
}

/// squad_ai's tree with up to six nodes misspelt at once (a kind the
/// format does not have, a field the kind does not have), 300 draws:
/// `parse_tree_all` reports exactly the misspelt lines, but those inside
/// a misspelt node (it is read as `Fail()` with its children).
#[test]
fn parse_tree_all_on_many_misspelt_nodes_reports_exactly_those() {
    let text = std::fs::read_to_string(squad_ai().join("combat.bt.ron")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // A node's lines: to the line its brackets close on.
    let last_line = |i: usize| {
        let mut depth = 0i32;
        for (j, line) in lines.iter().enumerate().skip(i) {
            depth += line.matches(['(', '[']).count() as i32;
            depth -= line.matches([')', ']']).count() as i32;
            if depth <= 0 {
                return j;
            }
        }
        lines.len()
    };
    let edits = [
        ("Condition(", "Conditon("),
        ("Action(action:", "Action(acton:"),
        ("Sequence(", "Sequnce("),
        ("GuardSequence(name", "GuardSequence(nme"),
        ("Cooldown(", "CoolDown("),
    ];
    for (broken, edited) in broken_drafts(&edits, 2) {
        let errors = wyrd_bt::parse_tree_all("combat.bt.ron", edited.as_bytes()).unwrap_err();
        let reported: Vec<usize> = errors.iter().map(|e| e.line - 1).collect();
        let expected: Vec<usize> = broken
            .iter()
            .copied()
            .filter(|&i| !broken.iter().any(|&o| o < i && i <= last_line(o)))
            .collect();
        assert_eq!(reported, expected, "{errors:#?}");
    }
}

/// A misspelt kind says the nearest one; a name far from every kind
/// does not guess.
#[test]
fn a_misspelt_kind_says_the_nearest_one() {
    let e = wyrd_bt::parse_tree("t.bt.ron", b"(root: Sequnce(children: []))").unwrap_err();
    assert!(
        e.to_string()
            .contains(r#"unknown node kind "Sequnce"; did you mean "Sequence"?"#),
        "{e}"
    );
    let e = wyrd_bt::parse_tree("t.bt.ron", b"(root: GuardSequnce(children: []))").unwrap_err();
    assert!(
        e.to_string().contains(r#"did you mean "GuardSequence"?"#),
        "{e}"
    );
    let e = wyrd_bt::parse_tree("t.bt.ron", b"(root: Dance(children: []))").unwrap_err();
    assert!(!e.to_string().contains("did you mean"), "{e}");
}

/// A BehaviorTree.CPP user's names say what they are here, from the node
/// table's BT.CPP column: a kind that two of ours cover names both (a
/// `Script` was sent to `AddBlackboard` alone, while its common use,
/// `key := value`, is `SetBlackboard`), `SubTree` is `Use`, `Precondition`
/// (checked once) is `IfThenElse`, not `Guard` (checked every tick), and a
/// port of the equivalent kind names its field (`num_cycles` of `Repeat`
/// is `count`, `msec` of `Timeout` is `seconds`).
#[test]
fn a_bt_cpp_name_or_port_says_what_it_is_here() {
    let says = |text: &str| {
        wyrd_bt::parse_tree("t.bt.ron", text.as_bytes())
            .unwrap_err()
            .to_string()
    };
    for (tree, hint) in [
        (
            r#"(root: Script(code: "a := 1"))"#,
            "BehaviorTree.CPP's Script is `SetBlackboard` or `AddBlackboard` here",
        ),
        (
            r#"(root: SubTree(behavior: "x"))"#,
            "BehaviorTree.CPP's SubTree is `Use` here",
        ),
        (
            r#"(root: Precondition(child: Succeed()))"#,
            "BehaviorTree.CPP's Precondition is `IfThenElse` here",
        ),
        (
            r#"(root: Repeat(num_cycles: 3, child: Succeed()))"#,
            "BehaviorTree.CPP's num_cycles is `count` here",
        ),
        (
            r#"(root: Timeout(msec: 100, child: Succeed()))"#,
            "BehaviorTree.CPP's msec is `seconds` here",
        ),
    ] {
        let e = says(tree);
        assert!(e.contains(hint), "{tree}: {e}");
    }
    // A key where a node's own field takes a constant (an Unreal user's
    // Wait Blackboard Time) says so, not a bare "Expected float".
    let e = says(r#"(root: Wait(seconds: "{search_time}"))"#);
    assert!(e.contains("Expected float: a node's own fields"), "{e}");
    assert!(e.contains("are constants, not keys"), "{e}");
    // A missing field points at the node it is missing from, not at the
    // node's closing bracket (where ron noticed it), even in a node of the
    // same kind as one inside it.
    let text = "(root: Sequence(children: [\n    Timeout(name: \"outer\", child: Timeout(seconds: 1.0, child: Succeed())),\n]))";
    let e = wyrd_bt::parse_tree("t.bt.ron", text.as_bytes()).unwrap_err();
    assert!(
        e.to_string().contains("missing field named `seconds`"),
        "{e}"
    );
    assert_eq!((e.line, e.column), (2, 5), "{e}");
    let e = says(r#"(root: Repeat(times: 3, child: Succeed()))"#);
    assert!(!e.contains("BehaviorTree.CPP"), "{e}");
}

/// A misspelt action, predicate or custom node kind says the registered
/// name nearest it, as a misspelt kind, key or behavior does (a new user's
/// `Predicate("can_se")` said only "register it", while the game had
/// registered "can_see"); a name far from every registered one does not
/// guess.
#[test]
fn a_misspelt_action_predicate_or_custom_kind_says_the_nearest_registered_one() {
    struct Majority;
    impl wyrd_bt::CustomNode for Majority {
        fn tick(&self, _: &mut wyrd_bt::CustomCtx<'_, '_>) -> wyrd_bt::Status {
            wyrd_bt::Status::Success
        }
    }
    let mut vocab = Vocabulary::default();
    vocab.add_action("Shoot");
    vocab.add_action("Reload");
    vocab.add_predicate("can_see", |_| true);
    vocab.add_custom("Majority", Majority);
    let error = |root: &str| {
        let text = format!("(root: {root})");
        let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
        compile("t.bt.ron", &files, &vocab).unwrap_err().to_string()
    };
    let e = error(r#"Action(action: "Shoto")"#);
    assert!(
        e.contains(r#"unknown action "Shoto"; did you mean "Shoot"?"#),
        "{e}"
    );
    assert!(e.contains("known: Reload, Shoot"), "{e}");
    let e = error(r#"Condition(check: Predicate("can_se"))"#);
    assert!(
        e.contains(r#"unknown predicate "can_se"; did you mean "can_see"?"#),
        "{e}"
    );
    assert!(e.contains("known: can_see"), "{e}");
    let e = error(r#"Custom(kind: "Majorty", children: [Succeed()])"#);
    assert!(
        e.contains(r#"unknown custom node kind "Majorty"; did you mean "Majority"?"#),
        "{e}"
    );
    let e = error(r#"Condition(check: Predicate("teleported"))"#);
    assert!(!e.contains("did you mean"), "{e}");
}

/// Characters outside ASCII anywhere in a tree (a no-break space pasted
/// from a web page, an accent, an emoji, Notepad's byte-order mark, a
/// zero-width space): parsing, compiling and placing every error with its
/// caret never panics. One such character crashed every tree command
/// (the outline sliced it in half).
#[test]
fn characters_outside_ascii_anywhere_never_panic() {
    let text = std::fs::read_to_string(squad_ai().join("combat.bt.ron")).unwrap();
    let vocab = Vocabulary::permissive();
    let chars = ['\u{a0}', 'é', '…', '🐉', '\u{feff}', '\u{200b}', '”'];
    let places: Vec<usize> = text.char_indices().map(|(i, _)| i).collect();
    let mut rng = wyrd_bt::SplitMix64::new(7);
    for _ in 0..400 {
        let mut edited = text.clone();
        for _ in 0..1 + rng.below(3) {
            let at = places[rng.below(places.len() as u64) as usize].min(edited.len());
            if edited.is_char_boundary(at) {
                edited.insert(at, chars[rng.below(chars.len() as u64) as usize]);
            }
        }
        let parsed = wyrd_bt::parse_tree_all("combat.bt.ron", edited.as_bytes());
        let Ok(_) = parsed else {
            for e in parsed.unwrap_err() {
                let _ = e.with_source(&edited);
            }
            continue;
        };
        let files = squad_ai_files(&edited);
        if let Err(errors) = wyrd_bt::compile_all("combat.bt.ron", &files, &vocab) {
            for e in errors {
                let _ = e.explain(&files);
            }
        }
    }
}

/// A `Use` chain hundreds long overflowed the game loader's stack (an
/// abort, not an error), and behaviors placed in each other twice at every
/// level doubled the tree per level (sixteen levels did not load in a
/// minute): both are compile errors at the node where the limit is met.
#[test]
fn a_use_chain_too_deep_and_a_tree_too_large_are_errors() {
    let compile = |text: &str| {
        let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
        compile("t.bt.ron", &files, &Vocabulary::permissive())
    };
    let chain: String = (0..600)
        .map(|i| {
            format!(
                "Sequence(name: \"b{i}\", children: [Use(name: \"u\", behavior: \"b{}\")]),\n",
                i + 1
            )
        })
        .collect();
    let text = format!(
        "(behaviors: [\n{chain}Action(name: \"b600\", action: \"X\"),\n], root: Use(behavior: \"b0\"))"
    );
    let e = compile(&text).unwrap_err();
    assert!(matches!(e.problem, BtProblem::TooDeep(_)), "{e}");
    assert!(e.line > 1, "{e}");
    // Said once (every behavior of the chain met the limit again: 500
    // errors for one chain).
    let files = load_tree_files("t.bt.ron", &mut |_| Ok(text.as_bytes().to_vec())).unwrap();
    let all = wyrd_bt::compile_all("t.bt.ron", &files, &Vocabulary::permissive()).unwrap_err();
    assert_eq!(all.len(), 1, "{all:?}");
    let doubling: String = (0..22)
        .map(|i| {
            format!(
                "Sequence(name: \"b{i}\", children: [Use(name: \"l\", behavior: \"b{n}\"), Use(name: \"r\", behavior: \"b{n}\")]),\n",
                n = i + 1
            )
        })
        .collect();
    let text = format!(
        "(behaviors: [\n{doubling}Action(name: \"b22\", action: \"X\"),\n], root: Use(behavior: \"b0\"))"
    );
    let e = compile(&text).unwrap_err();
    assert!(matches!(e.problem, BtProblem::TooLarge(_)), "{e}");
}

/// Columns count characters, as editors (and ron) do: an error after an
/// accent on its line pointed one column too far per accent byte, and
/// editors landed elsewhere.
#[test]
fn columns_count_characters() {
    let text = "(root: Sequence(name: \"défense\", children: [Condition(check: Is(\"nokey\"))]))";
    let e = wyrd_bt::compile_str("t.bt.ron", text, &Vocabulary::permissive()).unwrap_err();
    let expected = text[..text.find("nokey").unwrap()].chars().count() + 1;
    assert_eq!((e.line, e.column), (1, expected), "{e}");
    let shown = e.with_source(text);
    let caret = shown.lines().last().unwrap();
    assert_eq!(caret.chars().count() - "  | ".len(), expected, "{shown}");
}

/// An unknown behavior with no near name says which behaviors there are,
/// and in which file (a stranger's `unknown behavior "sleep"` said
/// nothing more).
#[test]
fn an_unknown_behavior_lists_the_behaviors_there_are() {
    let common = r#"(behaviors: [Action(name: "flee", action: "Run")], root: Succeed())"#;
    let text = r#"(
    behaviors: [Action(name: "patrol", action: "Walk")],
    root: Sequence(children: [Use(behavior: "patrol"), Use(behavior: "ambush", file: "common.bt.ron")]),
)"#;
    let files = load_tree_files("guard.bt.ron", &mut |p| {
        Ok(if p == "common.bt.ron" { common } else { text }
            .as_bytes()
            .to_vec())
    })
    .unwrap();
    let err = compile("guard.bt.ron", &files, &Vocabulary::permissive()).unwrap_err();
    assert!(matches!(&err.problem, BtProblem::UnknownBehavior(b) if b == "ambush"));
    assert_eq!(
        err.hint(&files),
        " (behaviors: flee in common.bt.ron, patrol)"
    );
}

/// A used file that cannot be read is reported at the `Use` that names
/// it, whatever folders its path goes through (only its last part was
/// looked for in the text: `../common/flee.bt.ron` was reported at 1:1).
#[test]
fn a_missing_used_file_in_another_folder_is_reported_at_its_use() {
    let text = "(root: Sequence(children: [\n    Use(behavior: \"flee\", file: \"../common/flee.bt.ron\"),\n]))";
    let err = load_tree_files("trees/guard.bt.ron", &mut |p| {
        if p == "trees/guard.bt.ron" {
            Ok(text.as_bytes().to_vec())
        } else {
            Err("not found".to_owned())
        }
    })
    .unwrap_err();
    assert_eq!(
        (err.file.as_str(), err.line, err.column),
        ("trees/guard.bt.ron", 2, 34)
    );
    assert!(matches!(&err.problem, BtProblem::Io { file, .. } if file == "common/flee.bt.ron"));
}
