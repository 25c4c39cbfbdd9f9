//! Unit tests of the formula language: arithmetic, variables, errors with positions,
//! f-variable direction and the bounds on size and work.

use super::*;

fn ctx() -> ChallengeContext {
    ChallengeContext {
        variant: Variant::Suicide,
        rated: true,
        time: 5,
        inc: 2,
        rating: 1600,
        myrating: 1500,
        registered: true,
        my_color: None,
    }
}

fn eval_in(text: &str, c: &ChallengeContext) -> Option<i64> {
    let formula = Formula::parse(text, Slot::FORMULA).unwrap_or_else(|e| panic!("{text}: {e}"));
    let set = FormulaSet::default();
    let mut steps = MAX_STEPS;
    set.eval(formula.expr.as_ref()?, c, &mut steps)
}

fn eval(text: &str) -> i64 {
    eval_in(text, &ctx()).unwrap_or(i64::MIN)
}

fn error(text: &str, slot: Slot) -> FormulaError {
    match Formula::parse(text, slot) {
        Ok(_) => panic!("{text} should not parse"),
        Err(e) => e,
    }
}

#[test]
fn arithmetic_and_precedence() {
    assert_eq!(eval("1 + 2 * 3"), 7);
    assert_eq!(eval("(1 + 2) * 3"), 9);
    assert_eq!(eval("10 - 4 - 3"), 3, "left associative");
    assert_eq!(eval("20 / 2 / 5"), 2);
    assert_eq!(eval("-3 * -3"), 9);
    assert_eq!(eval("!0 + 1"), 2, "unary binds tightest");
    assert_eq!(eval("!(0 + 1)"), 0);
    assert_eq!(eval("1 + 2 < 4"), 1, "arithmetic before comparison");
    assert_eq!(eval("1 < 2 = 1"), 1, "relational before equality");
    assert_eq!(eval("1 = 1 != 0"), 1, "equality before inequality");
    assert_eq!(eval("2 = 2 <> 1"), 0);
    assert_eq!(eval("1 || 0 && 0"), 1, "and before or");
    assert_eq!(eval("0 && 1 || 1"), 1);
    assert_eq!(eval("1 and 0 or 1"), 1);
    assert_eq!(eval("1 & 1 | 0"), 1);
    assert_eq!(eval("3 =< 3"), 1);
    assert_eq!(eval("3 => 4"), 0);
    assert_eq!(eval("5 <= 4"), 0);
    assert_eq!(eval("5 >= 4"), 1);
    assert_eq!(eval("5 == 5"), 1);
    assert_eq!(eval("+5"), 5);
    assert_eq!(eval("2 minutes"), 120);
    assert_eq!(eval("1 + 2 minutes"), 121);
    assert_eq!(eval("7 # a comment\n + 1"), 8);
}

#[test]
fn variables() {
    assert_eq!(eval("rating"), 1600);
    assert_eq!(eval("myrating"), 1500);
    assert_eq!(eval("ratingdiff"), 100);
    assert_eq!(eval("rated && !unrated"), 1);
    assert_eq!(eval("time * 60 + inc"), 302);
    assert_eq!(eval("maxtime(40)"), 5 * 60 + 40 * 2);
    assert_eq!(eval("maxtime(40) <= 10 minutes"), 1);
    assert_eq!(eval("mymaxtime(0)"), 300);
    assert_eq!(eval("registered"), 1);
    assert_eq!(eval("suicide && !chazz && !duel && !drehs && !chad"), 1);
    assert_eq!(eval("blitz && !lightning && !standard && !untimed"), 1);
    assert_eq!(eval("nocolor && !white && !black"), 1);
    assert_eq!(eval("RATING > 1000"), 1, "names ignore case");
    let c = ChallengeContext {
        time: 0,
        inc: 0,
        my_color: Some(Color::Black),
        variant: Variant::Chad,
        ..ctx()
    };
    assert_eq!(eval_in("untimed && black && chad", &c), Some(1));
    assert_eq!(eval_in("lightning || blitz || standard", &c), Some(0));
    let c = ChallengeContext {
        time: 2,
        inc: 0,
        ..ctx()
    };
    assert_eq!(eval_in("lightning", &c), Some(1));
    let c = ChallengeContext {
        time: 15,
        inc: 0,
        ..ctx()
    };
    assert_eq!(eval_in("standard", &c), Some(1));
}

#[test]
fn hostile_arithmetic_saturates() {
    assert_eq!(eval("9223372036854775807 + 1"), i64::MAX);
    assert_eq!(eval("-9223372036854775807 - 5"), i64::MIN);
    assert_eq!(eval("9223372036854775807 * 9223372036854775807"), i64::MAX);
    assert_eq!(eval("5 / 0"), 5000, "division by zero divides by 0.001");
    assert_eq!(eval("(-9223372036854775807 - 1) / -1"), i64::MAX);
    assert_eq!(eval("maxtime(9223372036854775807)"), i64::MAX);
    assert_eq!(
        error("99999999999999999999", Slot::FORMULA),
        FormulaError {
            position: 1,
            message: "number too large".into()
        }
    );
}

#[test]
fn malformed_formulas_name_the_position() {
    let at = |text: &str| error(text, Slot::FORMULA).position;
    assert_eq!(at("rating >"), 9);
    assert_eq!(at("rating > > 3"), 10);
    assert_eq!(at("(rating > 3"), 12);
    assert_eq!(at("rating > 3)"), 11);
    assert_eq!(at("ratin > 3"), 1);
    assert_eq!(at("rating $ 3"), 8);
    assert_eq!(at("maxtime 3"), 9);
    assert_eq!(at("maxtime(3"), 10);
    assert_eq!(at("3 4"), 3);
    assert_eq!(at(")"), 1);
    assert_eq!(at("f10"), 1);
    assert_eq!(at("rating > 1500 && f0"), 18);
    let e = error("ratin > 3", Slot::FORMULA);
    assert_eq!(
        e.to_string(),
        "error at position 1: unknown variable `ratin`"
    );
    // Positions count characters, not bytes.
    assert_eq!(at("1 + é"), 5);
}

#[test]
fn empty_and_comment_only_formulas_accept_everything() {
    for text in ["", "   ", "# nothing here"] {
        let f = Formula::parse(text, Slot::FORMULA).unwrap_or_else(|e| panic!("{e}"));
        assert!(f.is_empty());
        let mut set = FormulaSet::default();
        set.put(Slot::FORMULA, Some(f));
        assert!(set.accepts(&ctx()));
    }
}

#[test]
fn hostile_sizes_are_refused() {
    let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
    assert!(error(&deep, Slot::FORMULA).message.contains("nested"));
    let nots = "!".repeat(200) + "1";
    assert!(error(&nots, Slot::FORMULA).message.contains("nested"));
    let long = "1+".repeat(600) + "1";
    assert_eq!(error(&long, Slot::FORMULA).position, MAX_LEN + 1);
    let many = "1+".repeat(MAX_LEN / 2 - 1) + "1";
    assert!(many.len() <= MAX_LEN);
    assert!(error(&many, Slot::FORMULA).message.contains("terms"));
    // Exactly at the nesting limit still parses.
    let ok = format!("{}1{}", "(".repeat(MAX_DEPTH), ")".repeat(MAX_DEPTH));
    assert!(Formula::parse(&ok, Slot::FORMULA).is_ok());
    // Junk of every kind is refused without panicking.
    for junk in [
        "\u{0}",
        "((((",
        "))))",
        "&&&&",
        "1 ++",
        "f",
        "maxtime()",
        "- -",
        "\"x\"",
    ] {
        assert!(Formula::parse(junk, Slot::FORMULA).is_err(), "{junk}");
    }
}

#[test]
fn f_variables_refer_only_downwards() {
    let f3 = Slot::f(3).unwrap_or(Slot::FORMULA);
    assert!(Formula::parse("f1 && f2", f3).is_ok());
    let e = error("f2 || f3", f3);
    assert_eq!(e.position, 7);
    assert_eq!(e.message, "f3 may only refer to f1..f2");
    assert_eq!(
        error("f5", f3).message,
        "f3 may only refer to f1..f2",
        "no upward reference, so no cycle"
    );
    let f1 = Slot::f(1).unwrap_or(Slot::FORMULA);
    assert_eq!(
        error("f1", f1).message,
        "f1 may not refer to any f-variable"
    );
    assert!(Formula::parse("f9 && f1", Slot::FORMULA).is_ok());
    assert!(Slot::f(0).is_none() && Slot::f(10).is_none());
}

#[test]
fn f_variables_are_evaluated_where_used() {
    let (mut set, errors) = FormulaSet::from_texts(
        "f1 && !f3",
        &[
            "rating > 1400".into(),
            "ratingdiff".into(),
            "f2 > 400".into(),
        ],
    );
    assert!(errors.is_empty());
    assert!(set.accepts(&ctx()));
    let strong = ChallengeContext {
        rating: 2000,
        ..ctx()
    };
    assert!(!set.accepts(&strong), "ratingdiff 500 > 400");
    let weak = ChallengeContext {
        rating: 1300,
        ..ctx()
    };
    assert!(!set.accepts(&weak));
    // Changing f2 changes what f3 means.
    set.put(
        Slot::f(2).unwrap_or(Slot::FORMULA),
        Formula::parse("0", Slot::f(2).unwrap_or(Slot::FORMULA)).ok(),
    );
    assert!(set.accepts(&strong));
    // An unset f-variable is true.
    let (set, _) = FormulaSet::from_texts("f7", &[]);
    assert!(set.accepts(&ctx()));
    assert_eq!(set.text(Slot::FORMULA), "f7");
    assert_eq!(set.f_texts().len(), 9);
}

#[test]
fn stored_texts_that_no_longer_parse_are_reported() {
    let (set, errors) = FormulaSet::from_texts("rating >", &["f2".into()]);
    assert_eq!(errors.len(), 2);
    assert!(!set.has_formula());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    /// Formula-looking text: tokens of the language glued in any order.
    fn formula_like() -> impl Strategy<Value = String> {
        let token = prop_oneof![
            Just("rating".to_string()),
            Just("f1".to_string()),
            Just("f2".to_string()),
            Just("maxtime(".to_string()),
            Just("minutes".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just("!".to_string()),
            Just("-".to_string()),
            Just("&&".to_string()),
            Just("||".to_string()),
            Just("<=".to_string()),
            Just("/".to_string()),
            Just("*".to_string()),
            Just("0".to_string()),
            Just("9223372036854775807".to_string()),
            "[0-9]{1,4}",
        ];
        proptest::collection::vec(token, 0..60).prop_map(|t| t.join(" "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any text either parses or is refused with a position inside it (or just past
        /// its end); nothing panics, and evaluating what parses terminates.
        #[test]
        fn hostile_text_never_panics(text in ".{0,300}", glued in formula_like()) {
            for text in [&text, &glued] {
                match Formula::parse(text, Slot::f(3).unwrap_or(Slot::FORMULA)) {
                    Ok(formula) => {
                        let mut set = FormulaSet::default();
                        set.put(Slot::f(1).unwrap_or(Slot::FORMULA), Formula::parse("rating * rating", Slot::f(1).unwrap_or(Slot::FORMULA)).ok());
                        set.put(Slot::FORMULA, Some(formula));
                        let _ = set.judge(&ctx());
                    }
                    Err(e) => {
                        prop_assert!(e.position >= 1);
                        prop_assert!(e.position <= text.chars().count().max(MAX_LEN) + 1);
                    }
                }
            }
        }
    }
}

#[test]
fn exponential_f_chains_run_out_of_steps() {
    let mut f = vec!["rating + rating".to_string()];
    for n in 2..=9 {
        let prev = n - 1;
        f.push(format!("f{prev} + f{prev} + f{prev} + f{prev}"));
    }
    let (set, errors) = FormulaSet::from_texts("f9 + f9 + f9 + f9 > 0", &f);
    assert!(errors.is_empty(), "{errors:?}");
    assert_eq!(set.judge(&ctx()), Verdict::TooComplex);
    assert!(!set.accepts(&ctx()));
    // A modest chain is fine.
    let (set, _) = FormulaSet::from_texts("f3 > 0", &f);
    assert_eq!(set.judge(&ctx()), Verdict::Accept);
}
