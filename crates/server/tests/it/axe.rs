//! axe-core in the browser tests: [`assert_no_serious_violations`] runs Deque's accessibility
//! rules on the page a [`Browser`] shows and fails, listing the findings, when any has the
//! impact `critical` or `serious` (the ones the "no critical or serious finding"
//! means; `moderate` and `minor` are left to judgement).
//!
//! axe-core comes from npm, pinned in `tests/browser/package.json` (its lock beside it);
//! `scripts/test.sh` runs `npm ci` there. The script is injected through WebDriver's script
//! execution, which the page's Content Security Policy (`script-src 'self'`) does not cover,
//! so the pages need no test hook and no policy exception.

use super::webdriver::Browser;
use serde_json::{json, Value};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::OnceLock;

/// The impacts that fail a page.
const FAILING: [&str; 2] = ["critical", "serious"];

/// At most this many elements are listed per rule: the first few say what is wrong.
const NODES_SHOWN: usize = 8;

/// Where `npm ci` in `tests/browser` puts axe-core.
fn axe_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/browser/node_modules/axe-core/axe.min.js")
}

/// axe-core's source, read once per test binary (half a megabyte).
fn axe_source() -> &'static str {
    static SOURCE: OnceLock<String> = OnceLock::new();
    SOURCE.get_or_init(|| {
        let path = axe_path();
        std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "cannot read {}: {e} (run `npm ci` in tests/browser; scripts/test.sh does)",
                path.display()
            )
        })
    })
}

/// Runs axe on the whole document; resolves to the failing violations, each with its
/// first elements. WebDriver waits for the promise a script returns.
const RUN: &str = "const failing = arguments[0]; const shown = arguments[1];
    return window.axe.run(document, { resultTypes: ['violations'] }).then((r) =>
      r.violations.filter((v) => failing.includes(v.impact)).map((v) => ({
        id: v.id, impact: v.impact, help: v.help, url: v.helpUrl, count: v.nodes.length,
        nodes: v.nodes.slice(0, shown).map((n) => ({
          target: n.target.join(' '), html: n.html.slice(0, 240), summary: n.failureSummary,
        })),
      })));";

/// Fails with the findings when axe-core reports any violation of impact critical or
/// serious on the page `browser` shows; `page` names it in the message. The caller waits
/// for the page to show what it should be checked with (its data loaded).
pub(crate) async fn assert_no_serious_violations(browser: &mut Browser, page: &str) {
    let loaded = browser
        .js("return typeof window.axe === 'object'", json!([]))
        .await;
    if loaded != json!(true) {
        // A function body that defines `window.axe` (axe's UMD wrapper does when it finds no
        // module system) and reports that it did.
        let script = format!("{}\nreturn typeof window.axe === 'object';", axe_source());
        let injected = browser.js(&script, json!([])).await;
        assert_eq!(injected, json!(true), "axe-core did not load on {page}");
    }
    let found = browser.js(RUN, json!([FAILING, NODES_SHOWN])).await;
    let violations = found.as_array().cloned().unwrap_or_default();
    assert!(
        violations.is_empty(),
        "axe-core: {} critical or serious finding(s) on {page}:\n{}",
        violations.len(),
        describe(&violations)
    );
}

/// One paragraph per rule: its id, impact and help, then the elements.
fn describe(violations: &[Value]) -> String {
    let mut out = String::new();
    for v in violations {
        let _ = writeln!(
            out,
            "- {} ({}, {} element(s)): {} <{}>",
            v["id"].as_str().unwrap_or_default(),
            v["impact"].as_str().unwrap_or_default(),
            v["count"],
            v["help"].as_str().unwrap_or_default(),
            v["url"].as_str().unwrap_or_default(),
        );
        for n in v["nodes"].as_array().into_iter().flatten() {
            let summary = n["summary"].as_str().unwrap_or_default().replace('\n', " ");
            let _ = writeln!(
                out,
                "    {}\n      {}\n      {}",
                n["target"].as_str().unwrap_or_default(),
                n["html"].as_str().unwrap_or_default(),
                summary
            );
        }
    }
    out
}
