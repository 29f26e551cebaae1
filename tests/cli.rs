//! The command line as a user meets it: output, exit codes, messages.

use std::process::{Command, Output};

fn fray(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("fray runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `fray ARGS`, with `--save FILE` when `save` names one; it must succeed.
/// Its output.
fn ran(args: &[&str], save: Option<&std::path::Path>) -> String {
    let mut args = args.to_vec();
    let file = save.map(|f| f.to_str().expect("a temporary path is text"));
    if let Some(f) = file {
        args.extend(["--save", f]);
    }
    let o = fray(&args);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    stdout(&o)
}

const SKIRMISH: &str = "assets/scenarios/skirmish_4v4.ron";
const PHASES: &str = "assets/scenarios/phases_reach.ron";
const DETAILED: &str = "assets/scenarios/ds_melee.ron";

#[test]
fn run_prints_a_whole_battle_every_line_citing_its_rule() {
    let o = fray(&["run", SKIRMISH, "--seed", "7"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines.len() > 30, "{text}");
    for line in &lines[1..lines.len() - 1] {
        assert!(
            line.ends_with(')') && (line.contains("(004 §") || line.contains("ruling ")),
            "line without a rule: {line}"
        );
    }
    assert!(lines.last().unwrap().starts_with("Result: "), "{text}");
}

#[test]
fn the_same_seed_gives_the_same_log_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("fray-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (a, b, c, d, e, f, g) = (
        dir.join("a.jsonl"),
        dir.join("b.jsonl"),
        dir.join("c.jsonl"),
        dir.join("d.jsonl"),
        dir.join("e.jsonl"),
        dir.join("f.jsonl"),
        dir.join("g.jsonl"),
    );
    for (file, seed, scenario) in [
        (&a, "7", SKIRMISH),
        (&b, "7", SKIRMISH),
        (&c, "8", SKIRMISH),
        (&d, "5", PHASES),
        (&e, "5", PHASES),
        (&f, "9", DETAILED),
        (&g, "9", DETAILED),
    ] {
        let o = fray(&[
            "run",
            scenario,
            "--seed",
            seed,
            "--quiet",
            "--log",
            file.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    }
    let (a, b, c) = (
        std::fs::read(a).unwrap(),
        std::fs::read(b).unwrap(),
        std::fs::read(c).unwrap(),
    );
    let (d, e) = (std::fs::read(d).unwrap(), std::fs::read(e).unwrap());
    assert!(!d.is_empty());
    assert_eq!(d, e, "the phases ruleset's log differs between runs");
    let (f, g) = (std::fs::read(f).unwrap(), std::fs::read(g).unwrap());
    assert!(!f.is_empty());
    assert_eq!(
        f, g,
        "the detailed_sequence ruleset's log differs between runs"
    );
    assert!(!a.is_empty());
    assert_eq!(a, b);
    assert_ne!(a, c);
    let first: serde_json::Value =
        serde_json::from_slice(a.split(|&x| x == b'\n').next().unwrap()).unwrap();
    for key in [
        "seq", "round", "time", "actor", "event", "rule", "rolls", "text",
    ] {
        assert!(first.get(key).is_some(), "JSON line lacks {key}");
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn forced_dice_from_the_command_line_come_first() {
    let o = fray(&["run", "assets/scenarios/duel.ron", "--dice", "12,3"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("Brienne rolls base initiative 12 − 0 (Agility) = 12."),
        "{text}"
    );
    assert!(
        text.contains("Grusk rolls base initiative 3 − 1 (Agility) = 2."),
        "{text}"
    );
}

#[test]
fn check_points_at_the_line_and_column_of_a_typo() {
    let o = fray(&["check", "tests/broken/typo.ron"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(err.contains("tests/broken/typo.ron:8:35:"), "{err}");
    assert!(err.contains("templat"), "{err}");
}

#[test]
fn check_of_a_ruleset_cut_short_reads_it_as_a_ruleset() {
    let dir = std::env::temp_dir().join(format!("fray-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for id in [
        "declared",
        "phases",
        "detailed_sequence",
        "segments",
        "crucible",
    ] {
        let text = std::fs::read_to_string(format!("assets/rulesets/{id}.ron")).unwrap();
        let cut = dir.join(format!("{id}.ron"));
        std::fs::write(&cut, &text[..text.find("    name:").unwrap()]).unwrap();
        let o = fray(&["check", cut.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{id}");
        let err = stderr(&o);
        assert!(err.contains(&format!("{id}.ron:")), "{id}: {err}");
        assert!(!err.contains("Scenario"), "{id}: {err}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_accepts_every_shipped_file() {
    let mut files = Vec::new();
    for folder in ["assets/rulesets", "assets/scenarios"] {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
        for entry in std::fs::read_dir(dir).unwrap() {
            let name = entry.unwrap().file_name();
            files.push(format!("{folder}/{}", name.to_string_lossy()));
        }
    }
    let args: Vec<&str> = std::iter::once("check")
        .chain(files.iter().map(String::as_str))
        .collect();
    let o = fray(&args);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn unknown_rulesets_templates_and_bad_dice_are_bad_input() {
    let o = fray(&["run", "tests/broken/unknown_ruleset.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "tests/broken/unknown_ruleset.ron:3:14: unknown ruleset \"chess\" (rulesets: crucible, declared, detailed_sequence, phases, segments)"
        ),
        "{}",
        stderr(&o)
    );
    let o = fray(&["check", "tests/broken/unknown_template.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("unknown_template.ron:8:45: \"Bors\" uses template \"dragon\""),
        "{}",
        stderr(&o)
    );
    let o = fray(&["check", "tests/broken/bad_dice.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("bad_dice.ron:9:"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad dice notation \"1x12\" at character 2: expected 'd'"),
        "{}",
        stderr(&o)
    );
    let o = fray(&["rules", "chess"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn bad_flags_and_bad_forced_dice_are_bad_input() {
    let o = fray(&["run", SKIRMISH, "--sed", "7"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--sed"), "{}", stderr(&o));
    let o = fray(&["run", SKIRMISH, "--dice", "8,x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("die #2 \"x\" is not a positive whole number"),
        "{}",
        stderr(&o)
    );
    let o = fray(&["run", SKIRMISH, "--dice", "13"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("forced die #1 is 13, which is not a face of a d12"),
        "{}",
        stderr(&o)
    );
    let o = fray(&["run", "no/such/file.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no/such/file.ron:1:1: cannot read the file"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn rules_lists_the_phases_of_a_round_and_every_ruling() {
    let o = fray(&["rules"]);
    assert!(stdout(&o).contains("declared"));
    let o = fray(&["rules", "declared"]);
    assert_eq!(o.status.code(), Some(0));
    let text = stdout(&o);
    for phase in [
        "Surprise",
        "Base initiative",
        "Declare actions",
        "Resolve",
        "Morale",
        "Ending combat",
    ] {
        assert!(text.contains(phase), "no phase {phase}");
    }
    let data = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/assets/rulesets/declared.ron"
    ))
    .unwrap();
    let ids: Vec<&str> = data
        .match_indices("(id: \"")
        .map(|(i, _)| &data[i + 6..])
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    assert!(ids.len() >= 20);
    for id in ids {
        assert!(text.contains(id), "ruling {id} not listed");
    }
}

/// Run fray with `input` on its standard input.
fn fray_with_input(args: &[&str], input: &str) -> Output {
    fray_with_bytes(args, input.as_bytes())
}

fn fray_with_bytes(args: &[impl AsRef<std::ffi::OsStr>], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_fray"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // One who stops reading early (a refused input) closes the pipe.
    let _ = child.stdin.take().unwrap().write_all(input);
    child.wait_with_output().unwrap()
}

#[test]
fn a_human_seat_plays_in_the_terminal() {
    // Hand-offs and choices: always the first legal choice.
    let o = fray_with_input(
        &["run", "assets/scenarios/duel.ron", "--human", "Wardens"],
        &"\n1\n".repeat(200),
    );
    let out = stdout(&o);
    assert!(
        out.contains("Brienne: declare an action for round 1"),
        "{out}"
    );
    assert!(out.contains("Result: "), "{out}{}", stderr(&o));
    // Hotseat: secret declarations are handed off between the two people.
    let o = fray_with_input(
        &[
            "run",
            "assets/scenarios/duel.ron",
            "--human",
            "Wardens",
            "--human",
            "Raiders",
        ],
        &"\n1\n".repeat(400),
    );
    let out = stdout(&o);
    assert!(out.contains("— Pass to Wardens — press Enter —"), "{out}");
    assert!(out.contains("— Pass to Raiders — press Enter —"), "{out}");
    assert!(out.contains("Grusk writes down an action."), "{out}");
    assert!(out.contains("Result: "), "{out}{}", stderr(&o));
    let o = fray(&["run", "assets/scenarios/duel.ron", "--human", "Nobody"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("--human \"Nobody\": the scenario's sides are \"Wardens\", \"Raiders\""),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_secret_order_refused_is_not_shown_to_the_other_side() {
    // Hotseat: Brienne's written full defense toward an obstacle is
    // refused. The log, which both people read, says only that it was
    // refused; she alone is told why, as she is asked again.
    let o = fray_with_input(
        &[
            "run",
            "assets/scenarios/duel.ron",
            "--seed",
            "1",
            "--human",
            "Wardens",
            "--human",
            "Raiders",
        ],
        "\n7 3,0\n\n6\n",
    );
    let out = stdout(&o);
    let refused = "[round 1, declaration] Brienne's written order is refused, and it is asked again. (004 §Step 3)";
    let told = out
        .find("Refused: (3, 0) is an obstacle")
        .expect("she is told why");
    assert!(out.find(refused).is_some_and(|at| at < told), "{out}");
    assert!(!out.contains("full_defense"), "{out}");
}

#[test]
fn a_battle_stopped_for_want_of_input_keeps_its_log_so_far() {
    // `--log FILE` holds what happened up to the question nobody answered.
    let dir = std::env::temp_dir().join(format!("fray-cli-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("stopped.jsonl");
    let o = fray_with_input(
        &[
            "run",
            "assets/scenarios/duel.ron",
            "--human",
            "Wardens",
            "--log",
            log.to_str().unwrap(),
        ],
        "",
    );
    assert_ne!(o.status.code(), Some(0));
    assert!(stderr(&o).contains("no more input"), "{}", stderr(&o));
    let kept = std::fs::read_to_string(&log).unwrap();
    assert!(kept.contains("Round 1 begins."), "{kept}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_person_at_the_terminal_aims_a_choice_at_another_cell() {
    // phases, ruling withdraw: a withdrawal goes anywhere within combat
    // movement; the choice offers one hex, and "10 0,5" takes it to another.
    let o = fray_with_input(
        &[
            "run",
            "assets/scenarios/phases_duel.ron",
            "--human",
            "Guild",
        ],
        "99 0,5\n10 0,5\n",
    );
    let out = stdout(&o);
    // A number no choice has is refused, saying what may be typed.
    assert!(
        out.contains("Please type a number from 1 to 15, or a cell x,y, or the number of a choice that names a cell and another cell after it."),
        "{out}"
    );
    assert!(
        out.contains("(or a choice and another cell for it: 4 x,y)"),
        "{out}"
    );
    assert!(
        out.contains("Vance withdraws (a full-phase action) from (1, 3) to (0, 5) (2 hexes)."),
        "{out}"
    );
}

#[test]
fn a_person_at_the_terminal_types_a_cell_to_move_there() {
    let o = fray_with_input(
        &[
            "run",
            "assets/scenarios/halvaine.ron",
            "--seed",
            "3",
            "--human",
            "Party",
        ],
        &format!("2,6\n{}", "1\n".repeat(200)),
    );
    let out = stdout(&o);
    assert!(out.contains("or type a cell x,y to move there"), "{out}");
    assert!(
        out.contains("Halvaine declares: move toward (2, 6). (001 §2)"),
        "{out}"
    );
    assert!(
        out.contains("Halvaine moves from (2, 4) to (2, 6) (2 cells)."),
        "{out}"
    );
}

#[test]
fn a_closed_pipe_ends_quietly_and_lost_output_is_not_success() {
    for args in [
        &["run", "assets/scenarios/skirmish_4v4.ron", "--all-ai"][..],
        &[
            "check",
            "assets/scenarios/duel.ron",
            "assets/scenarios/ghoul.ron",
        ],
        &["rules"],
        &["rules", "declared"],
        &["sim", "assets/scenarios/duel.ron", "--battles", "3"],
        &[
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "3",
            "--json",
        ],
    ] {
        // The reader is gone before the first line is written.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let o = Command::new(env!("CARGO_BIN_EXE_fray"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(writer)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(141), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o), "", "{args:?}");
    }
    for args in [
        &["run", "assets/scenarios/duel.ron", "--all-ai"][..],
        &["sim", "assets/scenarios/duel.ron", "--battles", "3"],
        &[
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "3",
            "--json",
        ],
    ] {
        let full = std::fs::File::create("/dev/full").unwrap();
        let o = Command::new(env!("CARGO_BIN_EXE_fray"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("fray: cannot write the output: No space left on device"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn impossible_dice_and_unwritable_logs_are_refused_up_front() {
    let o = fray(&["run", "assets/scenarios/phases_reach.ron", "--dice", "13"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "", "refused before any round is played");
    assert!(
        stderr(&o).contains("--dice: no die of the phases ruleset shows 13 (its largest is a d6)"),
        "{}",
        stderr(&o)
    );

    let o = fray(&[
        "run",
        "assets/scenarios/duel.ron",
        "--log",
        "/nonexistent/folder/log.jsonl",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("--log /nonexistent/folder/log.jsonl: "),
        "{}",
        stderr(&o)
    );
}

#[test]
fn check_refuses_what_run_would_refuse_or_misplay() {
    let cases = [
        (
            "arrival_never",
            "11:65: \"Vex\" arrives in round 4294967295, but rounds run from 1 to the round cap of 50",
        ),
        (
            "arrival_on_a_taken_cell",
            "11:56: \"Vex\" would arrive at (6, 3), where \"Grusk\" starts: give each newcomer a cell nobody starts on or arrives at",
        ),
        ("endless_round_cap", "11:5: the round cap must be 1 to 1000"),
        ("set_twice", "8:99: \"strength\" is listed twice"),
        (
            "huge_stat",
            "8:82: \"Brienne\"'s strength must be within ±10000",
        ),
        (
            "impossible_face",
            "11:5: no die of this ruleset shows 101 (its largest is a d100)",
        ),
        (
            "face_zero",
            "11:5: no die shows 0 (a die's faces begin at 1)",
        ),
        (
            "order_at_nobody",
            "11:77: \"Brienne\"'s scripted order aims at \"Gorm\", who is not in the scenario",
        ),
        (
            "order_in_round_0",
            "11:40: \"Brienne\"'s scripted order is for round 0, but rounds run from 1 to the round cap of 50",
        ),
        (
            "hold_past_the_round",
            "11:70: hold until segment 11: an action can be held up to segment 10 (001 §3)",
        ),
        (
            "second_order_off_the_grid",
            "13:35: \"Brienne\"'s scripted order names (9, 9), outside the grid",
        ),
        (
            "then_off_the_grid",
            "11:40: \"Aelis\"'s scripted order names (99, -99), outside the grid",
        ),
        (
            "group_of_unlike_monsters",
            "10:103: \"Grusk\" shares initiative group \"pack\" with \"Gob\", but not its stat block: monsters share a roll only with identical ones (004 §Step 2)",
        ),
        (
            "negative_armour",
            "9:16: \"Grusk\" has Armour -3: it is 0 or more",
        ),
        (
            "order_at_a_friend",
            "12:77: \"Brienne\"'s scripted attack is aimed at \"Osric\", of its own side",
        ),
        (
            "order_off_the_grid",
            "11:40: \"Brienne\"'s scripted order names (9, 9), outside the grid",
        ),
        (
            "order_with_a_weapon_not_carried",
            "15:87: \"Brienne\"'s scripted attack is with \"warhammer\", which \"Brienne\" does not carry (it carries: longsword)",
        ),
        (
            "order_with_an_unknown_weapon",
            "13:85: \"Vance\"'s scripted strike is with \"halberd\", which is no weapon of the phases ruleset (weapons: club, fists, pistol, staff, stretching_punch, sword)",
        ),
        (
            "order_with_a_weapon_nobody_carries",
            "16:89: \"Aldo\"'s scripted drop+attack is with \"flail\", which nobody in the scenario carries",
        ),
    ];
    let o = fray(&["check", "tests/broken/weapon_twice.ron"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("tests/broken/weapon_twice.ron:77:10: \"longsword\" is listed twice"),
        "{}",
        stderr(&o)
    );
    for (file, message) in cases {
        let path = format!("tests/broken/{file}.ron");
        let o = fray(&["check", &path]);
        assert_eq!(o.status.code(), Some(2), "{path}");
        assert!(
            stderr(&o).contains(&format!("{path}:{message}")),
            "{path}: {}",
            stderr(&o)
        );
        let o = fray(&["run", &path, "--all-ai"]);
        assert_eq!(o.status.code(), Some(2), "{path}: run refuses it too");
        assert_eq!(stdout(&o), "", "{path}: before any round");
    }
}

#[test]
fn check_names_a_scripted_order_the_battle_refuses_where_it_is_written() {
    // The battle plays on, the AI deciding in the refused order's place;
    // check, playing it once at its seed, names the order and why.
    let path = "tests/broken/scripted_cure_on_a_foe.ron";
    let o = fray(&["check", path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "{path}:16:52: \"Tessa\"'s scripted cast is refused when the battle is played at seed 3: cure_light_wounds is for an ally"
        )),
        "{}",
        stderr(&o)
    );
    let o = fray(&["run", path]);
    assert_eq!(o.status.code(), Some(0));
    // Her order was written in secret: the log does not say what it was.
    assert!(stdout(&o).contains("Tessa's written order is refused, and it is asked again."));
}

/// A copy of the shipped data file `data` with the number `key: value` on
/// the first line that holds `line_of` written as each of `spoilt`: both
/// `fray check` on the file and `fray run` on the shipped `scenario` beside
/// it refuse it, at the first `at` of that line, with `message`.
fn spoilt_data_is_refused(
    data: &str,
    scenario: &str,
    (line_of, at): (&str, &str),
    (key, value): (&str, &str),
    spoilt: &[&str],
    message: &str,
) {
    let root = env!("CARGO_MANIFEST_DIR");
    // One folder per file and number spoilt: tests run in parallel.
    let dir = std::env::temp_dir().join(format!(
        "fray-spoilt-{}-{}-{key}",
        std::process::id(),
        data.trim_end_matches(".ron")
    ));
    std::fs::create_dir_all(dir.join("rulesets")).unwrap();
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    let shipped = std::fs::read_to_string(format!("{root}/assets/rulesets/{data}")).unwrap();
    let number = format!("{key}: {value}");
    let (n, line) = shipped
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains(line_of) && l.contains(&number))
        .unwrap_or_else(|| panic!("{data} has no line with {line_of:?} and {number:?}"));
    let col = line.find(at).unwrap() + 1;
    let played = dir.join("scenarios").join(scenario);
    std::fs::copy(format!("{root}/assets/scenarios/{scenario}"), &played).unwrap();
    let file = dir.join("rulesets").join(data);
    for bad in spoilt {
        let bad_line = line.replacen(&number, &format!("{key}: {bad}"), 1);
        std::fs::write(&file, shipped.replacen(line, &bad_line, 1)).unwrap();
        let want = format!("{}:{}:{col}: {message}", file.display(), n + 1);
        let o = fray(&["check", file.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(2), "{key}: {bad}");
        assert!(stderr(&o).contains(&want), "{key}: {bad}: {}", stderr(&o));
        let o = fray(&["run", played.to_str().unwrap(), "--all-ai"]);
        assert_eq!(o.status.code(), Some(2), "{key}: {bad}: run refuses it too");
        assert_eq!(stdout(&o), "", "{key}: {bad}: before any round");
        assert!(stderr(&o).contains(&want), "{key}: {bad}: {}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_weapon_multiplier_below_one_is_refused_where_it_is_written() {
    spoilt_data_is_refused(
        "declared.ron",
        "duel.ron",
        ("\"spear\": (", "\"spear\""),
        ("critical", "3"),
        &["0", "-2"],
        "weapon \"spear\" needs a critical multiplier of 2, 3 or 4",
    );
    spoilt_data_is_refused(
        "segments.ron",
        "missile_duel.ron",
        ("set_spear_multiplier:", "set_spear_multiplier:"),
        ("set_spear_multiplier", "2"),
        &["0", "-2"],
        "the multiplier must be at least 1",
    );
}

#[test]
fn negative_stress_or_armour_is_refused_in_the_data_file() {
    spoilt_data_is_refused(
        "declared.ron",
        "duel.ron",
        ("\"knight\": (", "\"knight\""),
        ("armour", "2"),
        &["-1"],
        "template \"knight\" has Armour -1: it is 0 or more",
    );
    spoilt_data_is_refused(
        "declared.ron",
        "duel.ron",
        ("\"knight\": (", "\"knight\""),
        ("stress", "24"),
        &["-5"],
        "template \"knight\" has Stress -5: it is 0 or more",
    );
}

#[test]
fn a_turn_of_other_than_1_to_12_phases_is_refused_where_it_is_written() {
    spoilt_data_is_refused(
        "phases.ron",
        "phases_duel.ron",
        ("phases_per_turn:", "phases_per_turn:"),
        ("phases_per_turn", "4"),
        &["0", "13", "1000"],
        "a turn has 1 to 12 phases (one per second of the 12-second turn at most)",
    );
    spoilt_data_is_refused(
        "phases.ron",
        "phases_duel.ron",
        ("seconds_per_phase:", "seconds_per_phase:"),
        ("seconds_per_phase", "3"),
        &["0"],
        "a phase lasts at least 1 second",
    );
}

#[test]
fn a_stat_block_beyond_the_bound_of_a_stat_is_refused_in_the_data_file() {
    spoilt_data_is_refused(
        "declared.ron",
        "duel.ron",
        ("\"knight\": (", "strength:"),
        ("strength", "15"),
        &["10001", "2147483647"],
        "template \"knight\"'s strength must be within ±10000",
    );
    spoilt_data_is_refused(
        "phases.ron",
        "phases_duel.ron",
        ("\"swordsman\": (", "\"acrobatics\""),
        ("\"acrobatics\"", "12"),
        &["-10001"],
        "template \"swordsman\"'s acrobatics must be within ±10000",
    );
}

/// `scenario` with `set: {stats}` added to every combatant.
fn with_stats(scenario: &str, stats: &str) -> String {
    let mut out = String::new();
    let mut rest = scenario;
    while let Some(i) = rest.find(", at: (") {
        let end = i + rest[i..].find(')').unwrap() + 1;
        out.push_str(&rest[..end]);
        out.push_str(&format!(", set: {{{stats}}}"));
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

/// A battle that played to its end, no number it printed near where an
/// `i32` wraps: within the billion a pool of points stops at.
fn played_sanely(o: &Output, what: &str) {
    assert_eq!(o.status.code(), Some(0), "{what}: {}", stderr(o));
    let text = stdout(o);
    assert!(
        text.lines()
            .next_back()
            .is_some_and(|l| l.starts_with("Result: ")),
        "{what}: {text}"
    );
    let numbers = text
        .split(|c: char| !c.is_ascii_digit() && c != '-')
        .filter_map(|w| w.trim_start_matches('-').parse::<u64>().ok());
    for n in numbers {
        assert!(n <= 1_000_000_000, "{what} printed {n}");
    }
}

#[test]
fn stats_at_their_bound_and_blows_past_death_play_without_wrapping() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = std::env::temp_dir().join(format!("fray-bound-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("scenarios")).unwrap();
    // Every combatant with pools, bonuses and penalties at ±10000, the most
    // a scenario may set.
    let cases = [
        (
            "duel.ron",
            r#""stress": 10000, "strength": 10000, "strength_mod": 10000, "attack": 10000, "heal": 10000, "agility_mod": -10000, "defense_bonus": -10000, "armour": 0"#,
        ),
        (
            "phases_duel.ron",
            r#""stun": 10000, "body": 10000, "con": 10000, "rec": 10000, "cv": 10000, "lightning_reflexes": 10000, "pd": -10000"#,
        ),
        (
            "ds_duel.ron",
            r#""en": 10000, "bd": 10000, "st": 10000, "dx": 10000, "el": 10000, "recovery": 10000"#,
        ),
        (
            "missile_duel.ron",
            r#""hp": 10000, "damage_bonus": 10000, "missile_bonus": 10000, "thac0": -10000, "ac": -10000"#,
        ),
        (
            "crucible_4v4.ron",
            r#""hp": 10000, "damage_bonus": 10000, "thac0": -10000, "ac": -10000, "dex_initiative": 10000, "strength_allowance": 10000"#,
        ),
    ];
    for (scenario, stats) in cases {
        let text = std::fs::read_to_string(format!("{root}/assets/scenarios/{scenario}")).unwrap();
        let file = dir.join("scenarios").join(scenario);
        std::fs::write(&file, with_stats(&text, stats)).unwrap();
        let o = fray(&["run", file.to_str().unwrap(), "--all-ai", "--seed", "3"]);
        played_sanely(&o, scenario);
    }
    // 003 §II F: blows struck at the same instant all land, even on one the
    // first of them felled. Two wolves of ten thousand attacks, with claws
    // that do a million, strike together: far more than an i32 holds.
    std::fs::create_dir_all(dir.join("rulesets")).unwrap();
    let data = std::fs::read_to_string(format!("{root}/assets/rulesets/crucible.ron")).unwrap();
    let claws = "\"claws\": (damage: \"1d4\"";
    assert!(data.contains(claws));
    std::fs::write(
        dir.join("rulesets").join("crucible.ron"),
        data.replacen(claws, "\"claws\": (damage: \"1d4+1000000\"", 1),
    )
    .unwrap();
    let wolf = r#"template: "wolf", set: {"attacks": 10000, "thac0": -10000}"#;
    let file = dir.join("scenarios").join("overkill.ron");
    std::fs::write(
        &file,
        format!(
            r#"(
    name: "Overkill", ruleset: "crucible",
    grid: (kind: Square, width: 6, height: 6),
    sides: [(name: "Pack"), (name: "Camp")],
    combatants: [
        (name: "Fang", side: "Pack", {wolf}, at: (1, 1)),
        (name: "Grey", side: "Pack", {wolf}, at: (3, 1)),
        (name: "Bram", side: "Camp", template: "brawler", at: (2, 1)),
    ],
)"#
        ),
    )
    .unwrap();
    let o = fray(&["run", file.to_str().unwrap(), "--all-ai"]);
    played_sanely(&o, "overkill.ron");
    assert!(
        stdout(&o).contains("(-1000000000 of 10 hit points left)"),
        "{}",
        stdout(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rules_phases_maps_every_paragraph_and_row_of_the_table() {
    let o = fray(&["rules", "phases"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "002 §Time",
        "002 §Abort Consequences",
        "002 §1-Hex Step",
        "Move By an opponent",
        "not offered yet: The text gives no damage or penalties for it.",
        "order `withdraw`",
        "Yes (acrobatics check negates)",
        "ruling ready_trigger",
    ] {
        assert!(
            text.contains(needle),
            "`fray rules phases` lacks {needle:?}"
        );
    }
}

#[test]
fn a_phases_stat_that_does_not_exist_is_bad_input() {
    let o = fray(&["check", "tests/broken/phases_unknown_stat.ron"]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("tests/broken/phases_unknown_stat.ron:9:")
            && err.contains("\"ocv\" is not a stat of the phases ruleset"),
        "{err}"
    );
}

#[test]
fn rules_detailed_sequence_maps_paragraphs_rulings_and_tables() {
    let o = fray(&["rules", "detailed_sequence"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = stdout(&o);
    for needle in [
        "000 §1.1.3",
        "000 §3.2.2",
        "ruling parry_strain",
        "Double ones (D20, ruling fumble):",
        "the attacker's weapon slips from its grip",
        "mail       AC  6, second modifier 1, critical on 10",
        "battleaxe  Heavy Melee: to hit 15, damage 2d8, breakage 1",
    ] {
        assert!(
            text.contains(needle),
            "`fray rules detailed_sequence` lacks {needle:?}"
        );
    }
}

/// The lines of a battle a person played that are the battle's, not the
/// prompts and choices it showed (a prompt ends without a new line, so the
/// battle's next line follows it on the same line).
fn battle_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter_map(|l| {
            let at = l.find("[round ").or_else(|| l.find("Result: "))?;
            Some(&l[at..])
        })
        .collect()
}

#[test]
fn a_battle_stopped_and_loaded_again_and_again_keeps_its_scenario_file() {
    // Each stop saves; each load goes on; the file still names the
    // scenario it was played from, however often it is saved again.
    let dir = std::env::temp_dir().join(format!("fray-resave-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("b.ron");
    let s = save.to_str().unwrap();
    let duel = "assets/scenarios/duel.ron";
    let o = fray_with_input(
        &[
            "run", duel, "--seed", "3", "--human", "Wardens", "--save", s,
        ],
        "1\n",
    );
    assert!(stderr(&o).contains("no more input"), "{}", stderr(&o));
    for _ in 0..3 {
        let o = fray_with_input(&["run", "--load", s], "1\n");
        assert!(stderr(&o).contains("no more input"), "{}", stderr(&o));
        let text = std::fs::read_to_string(&save).unwrap();
        assert!(
            text.contains(&format!("scenario_file: \"{duel}\"")),
            "{text}"
        );
    }
    let o = fray(&["replay", s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_answer_that_is_not_text_or_too_long_is_refused_and_asked_again() {
    let dir = std::env::temp_dir().join(format!("fray-answers-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let args = |name: &str| {
        [
            "run",
            "assets/scenarios/duel.ron",
            "--human",
            "Wardens",
            "--log",
        ]
        .map(String::from)
        .into_iter()
        .chain([log(name)])
        .collect::<Vec<_>>()
    };
    let answers = "1\n".repeat(200);
    let plain = fray_with_bytes(&args("plain.jsonl"), answers.as_bytes());
    let mut odd = vec![0xff, 0xfe, b'\n'];
    odd.extend("9".repeat(5000).bytes());
    odd.push(b'\n');
    // Not text and too long: none of it is a second answer.
    odd.push(0xff);
    odd.extend("x".repeat(4095).bytes());
    odd.extend(b"19\n");
    // Text, cut in the middle of a character by the longest answer: too
    // long, once.
    odd.extend("a".repeat(4095).bytes());
    odd.extend("é tail\n".bytes());
    odd.extend(answers.bytes());
    let refused = fray_with_bytes(&args("refused.jsonl"), &odd);
    assert_eq!(
        refused.status.code(),
        plain.status.code(),
        "{}",
        stderr(&refused)
    );
    let out = stdout(&refused);
    assert_eq!(
        out.matches("That answer is not text (UTF-8)").count(),
        1,
        "{out}"
    );
    assert_eq!(
        out.matches("That answer is more than 4096 characters")
            .count(),
        3,
        "{out}"
    );
    let read = |name: &str| std::fs::read_to_string(log(name)).unwrap();
    assert_eq!(
        read("refused.jsonl"),
        read("plain.jsonl"),
        "the battle goes on as if they were not typed"
    );
    // Its log, written as the battle went, is the log of its save replayed.
    let saved = log("refused.ron");
    let mut with_save = args("again.jsonl");
    with_save.extend(["--save".to_string(), saved.clone()]);
    fray_with_bytes(&with_save, &odd);
    let o = fray(&["replay", &saved, "--log", &log("replayed.jsonl")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(read("replayed.jsonl"), read("plain.jsonl"));
    // A reader gone before the first line: the log so far is written.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let o = Command::new(env!("CARGO_BIN_EXE_fray"))
        .args(args("closed.jsonl"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::null())
        .stdout(writer)
        .output()
        .unwrap();
    let closed = read("closed.jsonl");
    assert!(!closed.is_empty(), "{}", stderr(&o));
    assert!(read("plain.jsonl").starts_with(&closed));
    // A line without end is not read to its last byte.
    let o = fray_with_input(
        &["run", "assets/scenarios/duel.ron", "--human", "Wardens"],
        &"1".repeat(1 << 21),
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("an answer of more than 1048576 characters without a line's end"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_output_file_may_not_be_the_file_being_read() {
    let dir = std::env::temp_dir().join(format!("fray-overwrite-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scenario = dir.join("duel.ron");
    std::fs::copy("assets/scenarios/duel.ron", &scenario).unwrap();
    let before = std::fs::read_to_string(&scenario).unwrap();
    let sc = scenario.to_str().unwrap();
    for flag in ["--log", "--save"] {
        let o = fray(&["run", sc, "--quiet", flag, sc]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert!(
            stderr(&o).contains(&format!("{flag} {sc}: that is the file being read")),
            "{}",
            stderr(&o)
        );
        assert_eq!(std::fs::read_to_string(&scenario).unwrap(), before);
    }
    // Saving a loaded battle back to its own file goes on with it.
    let save = dir.join("b.ron");
    let s = save.to_str().unwrap();
    let o = fray(&["run", sc, "--quiet", "--save", s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = fray(&["replay", s, "--log", s]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = fray(&["run", "--load", s, "--quiet", "--save", s]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_battle_quit_midway_and_loaded_ends_as_the_one_never_stopped() {
    let dir = std::env::temp_dir().join(format!("fray-save-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (whole, loaded, replayed, save) = (
        dir.join("whole.jsonl"),
        dir.join("loaded.jsonl"),
        dir.join("replayed.jsonl"),
        dir.join("b.ron"),
    );
    let duel = "assets/scenarios/duel.ron";
    let always_the_first = "1\n".repeat(200);
    let (w, s, l, r) = (
        whole.to_str().unwrap(),
        save.to_str().unwrap(),
        loaded.to_str().unwrap(),
        replayed.to_str().unwrap(),
    );
    let args = ["run", duel, "--seed", "3", "--human", "Wardens"];
    let o = fray_with_input(&[&args[..], &["--log", w]].concat(), &always_the_first);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let whole_text = stdout(&o);
    // Two orders, then the input ends: the person has gone.
    let o = fray_with_input(&[&args[..], &["--save", s]].concat(), "1\n1\n");
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let o = fray_with_input(&["run", "--load", s, "--log", l], &always_the_first);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(battle_lines(&stdout(&o)), battle_lines(&whole_text));
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&loaded).unwrap()
    );
    // The loaded battle was saved to its end: replay prints it again.
    let o = fray(&["replay", s, "--log", r]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(battle_lines(&stdout(&o)), battle_lines(&whole_text));
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&replayed).unwrap()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_damaged_battle_file_is_refused_where_it_is_wrong_and_left_as_it_was() {
    let dir = std::env::temp_dir().join(format!("fray-bad-save-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("b.ron");
    let s = save.to_str().unwrap();
    let o = fray(&[
        "run",
        "assets/scenarios/duel.ron",
        "--seed",
        "3",
        "--save",
        s,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let good = std::fs::read_to_string(&save).unwrap();
    for (damage, expected) in [
        (
            good.replacen("fray_battle: 1", "fray_battle: 9", 1),
            "this Fray reads version 1",
        ),
        (good[..good.len() / 2].to_string(), "b.ron:"),
        (
            good.replacen("ruleset_data: \"", "ruleset_data: \"00", 1),
            "other declared ruleset data",
        ),
        (
            good.replacen("target: \"Grusk\"", "target: \"Nobody\"", 1),
            "b.ron:40:9: order 1: the rules now refuse it: there is no combatant named \"Nobody\"",
        ),
        (
            good.replacen("seats: [", "seats: [\n        Ai,", 1),
            "b.ron:13:5: 3 seats for a scenario of 2 sides: one a side",
        ),
        (
            good.replacen("ruleset: \"declared\"", "ruleset: \"phases\"", 1),
            "b.ron:9:5: the file names ruleset \"phases\", but the scenario it holds is played under \"declared\"",
        ),
    ] {
        std::fs::write(&save, &damage).unwrap();
        let all_ai = ["run", "--load", s, "--all-ai"];
        for args in [
            &["run", "--load", s][..],
            &all_ai,
            &["replay", s],
            &["check", s],
        ] {
            let o = fray(args);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
            assert!(stderr(&o).contains(expected), "{args:?}: {}", stderr(&o));
            assert_eq!(std::fs::read_to_string(&save).unwrap(), damage);
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scenario_given_as_a_saved_battle_is_named_for_what_it_is() {
    let s = "assets/scenarios/duel.ron";
    for args in [&["replay", s][..], &["run", "--load", s]] {
        let o = fray(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(
            stderr(&o).contains(
                "assets/scenarios/duel.ron: a scenario, not a saved battle: `fray run assets/scenarios/duel.ron`"
            ),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}

#[test]
fn a_swapped_batch_plays_each_level_as_each_side() {
    let sim = |args: &[&str]| {
        let mut all = vec![
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "30",
            "--json",
        ];
        all.extend_from_slice(args);
        let o = fray(&all);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        serde_json::from_str::<serde_json::Value>(&stdout(&o)).unwrap()
    };
    let wins = |report: &serde_json::Value, side: &str| report["wins"][side].as_u64().unwrap();
    // The two seatings, each played on its own.
    let first = sim(&["--ai", "Raiders=greedy"]);
    let second = sim(&["--ai", "Wardens=greedy"]);
    let both = sim(&["--ai", "Raiders=greedy", "--swap"]);
    let batches = both["batches"].as_array().unwrap();
    assert_eq!(batches[0]["wins"], first["wins"]);
    assert_eq!(batches[1]["wins"], second["wins"]);
    let levels = both["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    assert_eq!(
        (&levels[0]["ai"], &levels[1]["ai"]),
        (&"basic".into(), &"greedy".into())
    );
    let basic = wins(&first, "Wardens") + wins(&second, "Raiders");
    assert_eq!(levels[0]["wins"], basic);
    assert_eq!(levels[0]["as"]["Wardens"], wins(&first, "Wardens"));
    assert_eq!(levels[0]["as"]["Raiders"], wins(&second, "Raiders"));
    assert_eq!(
        levels[1]["wins"],
        wins(&first, "Raiders") + wins(&second, "Wardens")
    );
    assert_eq!(levels[0]["battles"], 60);
    // Only two sides at two levels can swap.
    let o = fray(&[
        "sim",
        "assets/scenarios/duel.ron",
        "--battles",
        "2",
        "--swap",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--swap: both sides play basic"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_batch_shared_over_threads_ends_as_on_one_thread() {
    // Each battle is its seed's alone: 1 or 3 threads, the same tally. Not
    // on a terminal, no progress bar is drawn.
    let tally = |threads: &str| {
        let o = fray(&[
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "40",
            "--json",
            "--threads",
            threads,
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stderr(&o), "");
        let mut report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(report["threads"], threads.parse::<u32>().unwrap());
        let fields = report.as_object_mut().unwrap();
        for timing in [
            "seconds",
            "battles_per_second",
            "ai_decision_ms",
            "resident_kib",
            "threads",
        ] {
            fields.remove(timing);
        }
        for seat in fields["seats"].as_array_mut().unwrap() {
            seat.as_object_mut().unwrap().remove("ai_decision_ms");
        }
        report
    };
    let one = tally("1");
    assert_eq!(one["battles"], 40);
    assert_eq!(tally("3"), one);
    let o = fray(&["sim", "assets/scenarios/duel.ron", "--threads", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--threads"), "{}", stderr(&o));
}

#[test]
fn each_side_gets_the_ai_level_asked_for_and_the_sim_report_names_it() {
    let duel = "assets/scenarios/duel.ron";
    let o = fray(&[
        "sim",
        duel,
        "--battles",
        "3",
        "--json",
        "--threads",
        "1",
        "--ai",
        "Wardens=search",
        "--ai",
        "Raiders=random",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let report: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let seats = report["seats"].as_array().unwrap();
    assert_eq!(seats[0]["side"], "Wardens");
    assert_eq!(seats[0]["ai"], "search");
    assert_eq!(seats[1]["ai"], "random");
    assert!(seats[0]["ai_decision_ms"]["decisions"].as_u64().unwrap() > 0);
    // `--ai LEVEL` seats every side not named, whether it comes before or
    // after `--ai SIDE=LEVEL`; the text report names each seat's AI.
    for (ai, wardens) in [
        (&["--ai", "random"][..], "random"),
        (&["--ai", "Wardens=greedy", "--ai", "random"][..], "greedy"),
    ] {
        let mut args = vec!["sim", duel, "--battles", "1", "--threads", "1"];
        args.extend_from_slice(ai);
        let o = fray(&args);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let seat = format!("Wardens ({wardens})");
        assert!(stdout(&o).contains(&seat), "{}", stdout(&o));
        assert!(stdout(&o).contains("Raiders (random)"), "{}", stdout(&o));
    }
    // A side or a level that does not exist is bad input.
    let o = fray(&["sim", duel, "--ai", "Nobody=search"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .contains("--ai Nobody=search: the scenario's sides are \"Wardens\", \"Raiders\""),
        "{}",
        stderr(&o)
    );
    let o = fray(&["run", duel, "--ai", "Wardens=clever"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("no AI level \"clever\""),
        "{}",
        stderr(&o)
    );
    // A side given two levels is bad input, and so is every side.
    for (first, second, what) in [
        ("Raiders=search", "Raiders=basic", "side \"Raiders\""),
        ("search", "basic", "every side"),
    ] {
        let o = fray(&["run", duel, "--ai", first, "--ai", second]);
        assert_eq!(o.status.code(), Some(2));
        let said = format!("--ai: {what} is given two levels, search and basic");
        assert!(stderr(&o).contains(&said), "{}", stderr(&o));
    }
}

#[test]
fn a_battle_against_the_search_ai_plays_the_same_twice_and_is_saved_with_its_level() {
    let dir = std::env::temp_dir().join(format!("fray-search-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("duel.battle");
    let run = |level: &str, save: bool| {
        let ai = format!("Raiders={level}");
        let args = [
            "run",
            "assets/scenarios/ds_duel.ron",
            "--seed",
            "5",
            "--ai",
            &ai,
        ];
        ran(&args, save.then_some(file.as_path()))
    };
    let searched = run("search", true);
    assert_eq!(run("search", false), searched);
    assert_ne!(run("random", false), searched);
    let saved = std::fs::read_to_string(&file).unwrap();
    let levels = saved.split_whitespace().collect::<String>();
    assert!(levels.contains("ai:[Basic,Search,]"), "{saved}");
    // The saved battle replays as it was played (its heading aside).
    let o = fray(&["replay", file.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let body = |text: &str| text.lines().skip(1).collect::<Vec<_>>().join("\n");
    assert_eq!(body(&stdout(&o)), body(&searched));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_search_budget_is_the_players_to_set_kept_in_the_save_and_checked() {
    let dir = std::env::temp_dir().join(format!("fray-search-work-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("duel.battle");
    let run = |work: &str, save: bool| {
        let args = [
            "run",
            "assets/scenarios/duel.ron",
            "--seed",
            "3",
            "--ai",
            "Raiders=search",
            "--search-work",
            work,
        ];
        ran(&args, save.then_some(file.as_path()))
    };
    let quick = run("300", true);
    assert_eq!(run("300", false), quick);
    let saved = std::fs::read_to_string(&file).unwrap();
    assert!(
        saved
            .split_whitespace()
            .collect::<String>()
            .contains("search_work:300,"),
        "{saved}"
    );
    // The standard budget writes nothing of it.
    let args = [
        "run",
        "assets/scenarios/duel.ron",
        "--quiet",
        "--ai",
        "search",
    ];
    ran(&args, Some(&file));
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("search_work")
    );
    // `sim` names the budget with the level.
    let report = ran(
        &[
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "2",
            "--ai",
            "Raiders=search",
            "--search-work",
            "300",
        ],
        None,
    );
    assert!(report.contains("Raiders (search 300)"), "{report}");
    for bad in ["0", "2000000", "lots"] {
        let o = fray(&[
            "sim",
            "assets/scenarios/duel.ron",
            "--battles",
            "2",
            "--search-work",
            bad,
        ]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains("--search-work"), "{}", stderr(&o));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_person_a_script_hands_over_to_is_offered_the_choices() {
    // A side seated `Script` with `after_script: Person`: once its orders
    // run out, the person at the terminal is shown what the rules allow.
    let dir = std::env::temp_dir().join(format!("fray-after-script-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("handover.ron");
    std::fs::write(
        &path,
        r#"(
    name: "Hand-over", ruleset: "phases", round_cap: 1,
    grid: (kind: Hex, width: 12, height: 12),
    sides: [(name: "A", seat: Script, after_script: Person), (name: "B", seat: Ai)],
    combatants: [
        (name: "Ash", side: "A", template: "bravo", at: (3, 3), set: {"cv": 6}),
        (name: "Bo", side: "B", template: "bravo", at: (7, 3)),
    ],
    orders: [(round: 1, order: (actor: "Ash", action: "ready"))],
)"#,
    )
    .unwrap();
    let o = fray_with_input(&["run", path.to_str().unwrap()], "7\n");
    let out = stdout(&o);
    let handed = out
        .find("a person decides what it does not cover")
        .expect("the script hands over");
    assert!(out[handed..].contains("   7. End the turn"), "{out}");
    assert!(out[handed..].contains("Choose 1-7"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn who_sits_at_the_table_does_not_reorder_a_tie() {
    // crucible 003 §II F: the tie at initiative 6 lists its members, and
    // acts, in listing order whether the Party answers at the terminal
    // (after the AI's answers) or is played by the AI.
    let tie = "[round 1, initiative 6] Wren, Dorn, Skarg, Vrek act at the same instant";
    let args = [
        "run",
        "assets/scenarios/crucible_disrupted.ron",
        "--seed",
        "11",
    ];
    let ai = stdout(&fray(&[&args[..], &["--all-ai"]].concat()));
    assert!(ai.contains(tie), "{ai}");
    let seated = fray_with_input(&[&args[..], &["--human", "Party"]].concat(), "23\n11\n23\n");
    let out = stdout(&seated);
    assert!(out.contains(tie), "{out}");
}

#[test]
fn a_cell_typed_by_hand_is_warned_of_before_it_is_taken() {
    // crucible 003 §Attacks Of Opportunity: "the DM should announce" what a
    // move will draw. Garth's typed move round Snag is warned of and waits;
    // the same answer again goes ahead and draws the attack.
    let dir = std::env::temp_dir().join(format!("fray-warn-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("past_snag.ron");
    std::fs::write(
        &file,
        r#"(name: "Past Snag", ruleset: "crucible", grid: (kind: Square, width: 12, height: 8),
            seed: 1, round_cap: 1,
            sides: [(name: "Wardens", seat: Human), (name: "Goblins", seat: Ai)],
            combatants: [
                (name: "Garth", side: "Wardens", template: "fighter", at: (5, 3), weapons: ["longsword"]),
                (name: "Snag", side: "Goblins", template: "goblin", at: (5, 4)),
            ],
            options: {"surprise": "none"})"#,
    )
    .unwrap();
    let path = file.to_str().unwrap();
    // Typed again with other spacing, it is the same order.
    let o = fray_with_input(&["run", path, "--dice", "2,9"], "5,5\n5, 5\n");
    let out = stdout(&o);
    let _ = std::fs::remove_dir_all(&dir);
    let warned = "WARNING: draws an attack of opportunity from Snag. Type 5,5 again to go ahead";
    let warned_at = out.find(warned).unwrap_or_else(|| panic!("{out}"));
    let struck_at = out
        .find("Snag takes an attack of opportunity at Garth")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(warned_at < struck_at, "{out}");
    // Said just above the question, not above its list of choices.
    let after = &out[warned_at..];
    assert!(
        after
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("Choose")),
        "{out}"
    );
}

#[test]
fn a_segments_script_may_order_the_surprise_segments_as_round_zero() {
    // 001 §1: the surprise segments come before round 1; under segments a
    // scripted order for round 0 is theirs. Other rulesets refuse round 0
    // (tests/broken/order_in_round_0.ron).
    let dir = std::env::temp_dir().join(format!("fray-round0-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string("tests/broken/hold_past_the_round.ron")
        .unwrap()
        .replace(
            r#"(round: 1, order: (actor: "Brom", action: "hold", with: "11"))"#,
            r#"(round: 0, order: (actor: "Brom", action: "move", cell: (2, 4)))"#,
        );
    let path = dir.join("round0.ron");
    std::fs::write(&path, text).unwrap();
    let o = fray(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_battle_with_many_refused_answers_saves_a_file_that_loads() {
    // Each refused answer is asked again, and kept in the save: replayed,
    // the file's own refusals are not taken for a controller that stalls.
    let dir = std::env::temp_dir().join(format!("fray-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("refused.ron");
    let save = save.to_str().unwrap();
    let input = "7 1,99\n".repeat(70) + &"1\n".repeat(200);
    let args = [
        "run",
        "assets/scenarios/duel.ron",
        "--human",
        "Wardens",
        "--quiet",
        "--save",
        save,
    ];
    let o = fray_with_input(&args, &input);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = fray(&["check", save]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn outputs_never_write_over_what_is_read_or_each_other() {
    let dir = std::env::temp_dir().join(format!("fray-outputs-{}", std::process::id()));
    for d in ["scenarios", "rulesets"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let file = |p: &str| dir.join(p).to_str().unwrap().to_string();
    std::fs::copy("assets/scenarios/duel.ron", file("scenarios/duel.ron")).unwrap();
    std::fs::copy(
        "assets/rulesets/declared.ron",
        file("rulesets/declared.ron"),
    )
    .unwrap();
    let ruleset = std::fs::read_to_string(file("rulesets/declared.ron")).unwrap();
    // The ruleset read from beside the scenario.
    let o = fray(&[
        "run",
        &file("scenarios/duel.ron"),
        "--all-ai",
        "--log",
        &file("rulesets/declared.ron"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("that is the file being read"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(file("rulesets/declared.ron")).unwrap(),
        ruleset
    );
    // The log and the save in one file, however spelt.
    let (same, also) = (file("same.out"), file("rulesets/../same.out"));
    let o = fray(&[
        "run",
        &file("scenarios/duel.ron"),
        "--all-ai",
        "--log",
        &same,
        "--save",
        &also,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("--log and --save both name"),
        "{}",
        stderr(&o)
    );
    // A battle loaded writes over neither the scenario it names nor the
    // ruleset beside it.
    let saved = file("saved.ron");
    let o = fray(&[
        "run",
        &file("scenarios/duel.ron"),
        "--all-ai",
        "--quiet",
        "--save",
        &saved,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for over in [file("rulesets/declared.ron"), file("scenarios/duel.ron")] {
        let o = fray(&["run", "--load", &saved, "--quiet", "--log", &over]);
        assert_eq!(o.status.code(), Some(2), "{over}");
        assert!(
            stderr(&o).contains("that is the file being read"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(
        std::fs::read_to_string(file("rulesets/declared.ron")).unwrap(),
        ruleset
    );
    // A save to a folder is refused before the battle, leaving nothing.
    let o = fray(&[
        "run",
        &file("scenarios/duel.ron"),
        "--all-ai",
        "--save",
        &file("rulesets"),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stdout(&o), "");
    assert!(stderr(&o).contains("that is a folder"), "{}", stderr(&o));
    assert!(!std::path::Path::new(&file("rulesets.tmp")).exists());
    // A battle that cannot go on writes over no save or log.
    let (save, log) = (file("good.ron"), file("good.jsonl"));
    let o = fray(&[
        "run",
        "assets/scenarios/duel.ron",
        "--all-ai",
        "--save",
        &save,
        "--log",
        &log,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (saved, logged) = (std::fs::read(&save).unwrap(), std::fs::read(&log).unwrap());
    let o = fray(&[
        "run",
        "assets/scenarios/ghoul.ron",
        "--all-ai",
        "--dice",
        "13",
        "--save",
        &save,
        "--log",
        &log,
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("which is not a face of a d12"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read(&save).unwrap(), saved);
    assert_eq!(std::fs::read(&log).unwrap(), logged);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_plays_forced_dice_to_find_a_face_its_die_cannot_show() {
    // The third die, as scripted, is a d12; run would fail there, partway
    // through. The seats stay scripted, so check names the same roll.
    let path = "tests/broken/forced_face_its_die_cannot_show.ron";
    let o = fray(&["check", path]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(&format!(
            "{path}:25:5: forced die #3 is 80, which is not a face of a d12 (rolled for Ghoul's base initiative)"
        )),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_save_whose_order_was_edited_names_that_order() {
    let dir = std::env::temp_dir().join(format!("fray-edited-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let save = dir.join("s.ron");
    let save = save.to_str().unwrap();
    let o = fray(&[
        "run",
        "assets/scenarios/skirmish_4v4.ron",
        "--all-ai",
        "--quiet",
        "--save",
        save,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let text = std::fs::read_to_string(save).unwrap();
    std::fs::write(
        save,
        text.replacen("decision: 1,", "decision: 99999999,", 1),
    )
    .unwrap();
    let o = fray(&["check", save]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("order 1 (Brienne's \"intimidate\") answers decision 99999999, which the battle never asked"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_refuses_a_ruleset_filed_under_another_rulesets_name() {
    // Beside scenarios, rulesets/declared.ron is read for every declared
    // scenario: a phases ruleset there would be read in its place.
    let dir = std::env::temp_dir().join(format!("fray-misfiled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("declared.ron");
    std::fs::copy("assets/rulesets/phases.ron", &path).unwrap();
    let o = fray(&["check", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("this is the phases ruleset, but a file named declared.ron is read as the declared ruleset by the scenarios beside it: name it phases.ron"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_scripted_battle_replays_as_it_was_printed() {
    // The scripts of `ghoul` and `ds_chase` run out midway, and the log says
    // so: `fray replay` of the battle's file prints and logs the same.
    let dir = std::env::temp_dir().join(format!("fray-scripted-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let at = |name: &str| dir.join(name).to_str().unwrap().to_string();
    for scenario in ["ghoul", "ds_chase"] {
        let path = format!("assets/scenarios/{scenario}.ron");
        let (saved, ran, replayed) = (at("b.ron"), at("ran.jsonl"), at("replayed.jsonl"));
        let run = fray(&["run", &path, "--save", &saved, "--log", &ran]);
        assert!(
            stdout(&run).contains("The script has no order for"),
            "{scenario}"
        );
        let replay = fray(&["replay", &saved, "--log", &replayed]);
        assert_eq!(replay.status.code(), Some(0), "{}", stderr(&replay));
        let after_heading = |o: &Output| stdout(o).split_once('\n').unwrap().1.to_string();
        assert_eq!(after_heading(&replay), after_heading(&run), "{scenario}");
        let read = |f: &str| std::fs::read_to_string(f).unwrap();
        assert_eq!(read(&replayed), read(&ran), "{scenario}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn replay_writes_its_log_over_nothing_it_reads_and_refuses_an_entry_out_of_range() {
    // The battle's scenario and the ruleset beside it are read by a replay
    // too: a log aimed at either is refused, and they are left as they
    // were. An --until outside the log's entries is refused as well.
    let dir = std::env::temp_dir().join(format!("fray-replay-over-{}", std::process::id()));
    for sub in ["scenarios", "rulesets"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let here = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for f in ["scenarios/duel.ron", "rulesets/declared.ron"] {
        std::fs::copy(here.join("assets").join(f), dir.join(f)).unwrap();
    }
    let in_dir = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_fray"))
            .args(args)
            .current_dir(&dir)
            .output()
            .expect("fray runs")
    };
    let o = in_dir(&["run", "scenarios/duel.ron", "--quiet", "--save", "b.ron"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ruleset = std::fs::read(dir.join("rulesets/declared.ron")).unwrap();
    for over in ["rulesets/declared.ron", "scenarios/duel.ron"] {
        let o = in_dir(&["replay", "b.ron", "--log", over]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("that is the file being read"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(
        std::fs::read(dir.join("rulesets/declared.ron")).unwrap(),
        ruleset
    );
    for until in ["0", "999999"] {
        let o = in_dir(&["replay", "b.ron", "--until", until]);
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("runs from entry 1 to entry"),
            "{}",
            stderr(&o)
        );
    }
    let o = in_dir(&["replay", "b.ron", "--until", "3"]);
    assert!(
        stdout(&o).contains("Stopped at entry 3, as --until asked."),
        "{}",
        stdout(&o)
    );
    // The last entry itself is within the log: the battle is printed whole.
    let whole = in_dir(&["replay", "b.ron"]);
    let last = stdout(&whole)
        .lines()
        .filter(|l| !l.starts_with("Result"))
        .count()
        - 1;
    let o = in_dir(&["replay", "b.ron", "--until", &last.to_string()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), stdout(&whole));
    std::fs::remove_dir_all(&dir).unwrap();
}
