//! Conditions on bool keys are folded into bit tests at compile time; they
//! must answer exactly as the checks read, for every assignment of the keys
//! (and with a non-bool key mixed in, which is not folded).

use wyrd_bt::sim::Sim;
use wyrd_bt::{Check, Status, Value, Vocabulary, compile_str};

const KEYS: [&str; 4] = ["a", "b", "c", "d"];

/// The checks' meaning, written out directly.
fn truth(check: &Check, bools: &[bool; 4], n: i64) -> bool {
    let get = |k: &str| bools[KEYS.iter().position(|x| *x == k).unwrap()];
    match check {
        Check::Is(k) => get(k),
        Check::IsNot(k) => !get(k),
        Check::Bb(_, op, wyrd_bt::ValueDef::Value(v)) => op.eval(Value::Int(n), *v),
        Check::All(list) => list.iter().all(|c| truth(c, bools, n)),
        Check::Any(list) => list.iter().any(|c| truth(c, bools, n)),
        Check::Not(c) => !truth(c, bools, n),
        other => panic!("not used here: {other:?}"),
    }
}

const CHECKS: [&str; 14] = [
    r#"Is("a")"#,
    r#"IsNot("a")"#,
    r#"Not(Is("a"))"#,
    r#"All([Is("a"), Is("b")])"#,
    r#"All([Is("a"), IsNot("b"), Is("c")])"#,
    r#"All([Is("a"), Not(Is("a"))])"#,
    r#"Any([Is("a"), Is("b")])"#,
    r#"Any([Is("a"), Not(Is("a"))])"#,
    r#"Any([IsNot("a"), Is("b"), IsNot("d")])"#,
    r#"Not(All([Is("a"), Is("b")]))"#,
    r#"Not(Any([Is("a"), IsNot("c")]))"#,
    r#"Any([All([Is("a"), Is("b")]), All([Is("c"), Is("d")])])"#,
    r#"All([Any([Is("a"), Is("b")]), Not(Any([Is("c"), Is("d")]))])"#,
    r#"Any([All([Is("a"), Bb("n", Gt, 2)]), Not(Is("d"))])"#,
];

#[test]
fn folded_conditions_answer_as_written_for_every_assignment() {
    for text in CHECKS {
        let check: Check = ron::from_str(text).unwrap();
        let tree = format!(
            r#"(
            blackboard: {{"a": false, "b": false, "c": false, "d": false, "n": 0}},
            root: Condition(name: "c", check: {text}),
        )"#
        );
        let program = compile_str("conditions.bt.ron", &tree, &Vocabulary::permissive())
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        for bits in 0..16u8 {
            for n in [0i64, 5] {
                let bools = [0, 1, 2, 3].map(|i| bits & (1 << i) != 0);
                let mut sim = Sim::new(&program, 0).with_repeat(false);
                for (k, v) in KEYS.iter().zip(bools) {
                    sim.set(k, v).unwrap();
                }
                sim.set("n", n).unwrap();
                let status = sim.step().status;
                let want = if truth(&check, &bools, n) {
                    Status::Success
                } else {
                    Status::Failure
                };
                assert_eq!(status, want, "{text} with {bools:?}, n = {n}");
            }
        }
    }
}
