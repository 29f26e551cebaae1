//! The battle screen's panels (bevy_egui): controls, the initiative tracker
//! in the ruleset's own terms, the round's timeline, the combat log with
//! each entry's roll breakdown, the unit sheet, the pending decision, the
//! hotseat hand-off and the in-battle menu.

use bevy::prelude::*;
use bevy_egui::{EguiContexts, EguiPrimaryContextPass, egui};
use fray_ai::LoadedRules;
use fray_core::decision::{Decision, Decisions, Order};
use fray_core::log::{LogEntry, Tone};
use fray_core::view::RowState;
use leafwing_input_manager::prelude::*;

use super::Screen;
use super::board::{Hover, side_colour};
use super::input::GameAction;
use super::session::{SPEEDS, Session, Written};

/// Screen rectangles the panels took last frame, so the board ignores the
/// pointer over them.
#[derive(Resource, Default)]
pub struct PanelRects(pub Vec<Rect>);

/// The window's space the panels left for the board last frame, in
/// logical pixels (`None` before the battle screen is first laid out).
#[derive(Resource, Default)]
pub struct BoardArea(pub Option<Rect>);

/// Whether the in-battle menu is open.
#[derive(Resource, Default)]
struct BattleMenu(bool);

pub(super) fn colour32(c: Color) -> egui::Color32 {
    let s = c.to_srgba();
    egui::Color32::from_rgb(
        (s.red * 255.0) as u8,
        (s.green * 255.0) as u8,
        (s.blue * 255.0) as u8,
    )
}

fn speed_label(i: usize) -> String {
    match SPEEDS[i] {
        Some(x) => format!("{x} steps/s"),
        None => "until a decision".into(),
    }
}

/// Keyboard controls, through the same actions the bindings file names.
fn keys(
    actions: Single<&ActionState<GameAction>>,
    session: Option<NonSendMut<Session>>,
    mut menu: ResMut<BattleMenu>,
) {
    let Some(mut s) = session else { return };
    if actions.just_pressed(&GameAction::Menu) {
        menu.0 = !menu.0;
    }
    if actions.just_pressed(&GameAction::Confirm)
        && let Some(side) = s.handoff.take()
    {
        s.shown_side = Some(side);
        return;
    }
    if actions.just_pressed(&GameAction::Pause) {
        s.pause_or_play();
    }
    if actions.just_pressed(&GameAction::Step) {
        s.step_once();
    }
    if actions.just_pressed(&GameAction::Back) {
        rewound(&mut s, Session::back_one_step);
    }
    if actions.just_pressed(&GameAction::Save) {
        saved(&mut s);
    }
    if actions.just_pressed(&GameAction::Undo) {
        taken_back(&mut s);
    }
    if actions.just_pressed(&GameAction::NextRound) {
        s.skip_to_round = Some((s.view.round)(s.battle.world()));
    }
    if actions.just_pressed(&GameAction::Faster) {
        s.speed = (s.speed + 1).min(SPEEDS.len() - 1);
    }
    if actions.just_pressed(&GameAction::Slower) {
        s.speed = s.speed.saturating_sub(1);
    }
    if s.handoff.is_none()
        && let Some(d) = s.human_decision().cloned()
    {
        for (i, a) in GameAction::CHOOSE.iter().enumerate() {
            if actions.just_pressed(a)
                && let Some(&c) = super::rows::numbered(&d).get(i)
            {
                s.answer(d.id, d.choices[c].order.clone());
                break;
            }
        }
    }
}

/// Save the battle, saying where (or why not) in the top bar. Behind a
/// hand-off nothing secret shows: only the file's name.
fn saved(s: &mut Session) {
    if let Err(why) = s.save() {
        s.notice = Some(format!("Not saved: {why}"));
    }
}

/// Take back one's last order, saying why not when it cannot.
fn taken_back(s: &mut Session) {
    if let Err(why) = s.take_back() {
        s.notice = Some(format!("Cannot take back: {why}"));
    }
}

/// Rewind as `how` says, saying why not when it cannot.
fn rewound(s: &mut Session, how: impl FnOnce(&mut Session) -> Result<(), String>) {
    if let Err(why) = how(s) {
        s.notice = Some(format!("Cannot rewind: {why}"));
    }
}

/// Decide whether a secret decision must be handed to its side first.
fn hand_off(session: Option<NonSendMut<Session>>) {
    let Some(mut s) = session else { return };
    let secret_open = s.battle.world().resource::<Decisions>().writing_in_secret();
    if !secret_open {
        s.shown_side = None;
        s.written.clear();
    }
    if s.people() < 2 || s.handoff.is_some() {
        return;
    }
    if let Some(d) = s.human_decision()
        && d.secret
        && s.shown_side != Some(d.side)
    {
        let side = d.side;
        s.handoff = Some(side);
    }
}

pub(super) fn entry_colour(e: &LogEntry) -> egui::Color32 {
    match e.event.tone() {
        Tone::Harm => egui::Color32::from_rgb(240, 140, 120),
        Tone::Blow => egui::Color32::from_rgb(235, 225, 170),
        Tone::Time => egui::Color32::from_rgb(150, 190, 240),
        Tone::Refused => egui::Color32::from_rgb(255, 110, 110),
        Tone::End => egui::Color32::from_rgb(140, 240, 140),
        Tone::Plain => egui::Color32::from_gray(210),
    }
}

fn breakdown(ui: &mut egui::Ui, e: &LogEntry, rules: &LoadedRules) {
    ui.label(egui::RichText::new(&e.text).strong());
    // Each line wraps within the panel: a roll of many dice is long.
    let line = |ui: &mut egui::Ui, what: &str, text: String| {
        ui.add(egui::Label::new(format!("{what}: {text}")).wrap());
    };
    line(ui, "When", format!("round {}, {}", e.round, e.time));
    ui.add(
        egui::Label::new(
            egui::RichText::new(format!("Rule: {}", e.rule))
                .color(egui::Color32::from_rgb(160, 200, 255)),
        )
        .wrap(),
    );
    for r in &e.rolls {
        let faces: Vec<String> = r.faces.iter().map(u32::to_string).collect();
        let modifier = if r.modifier != 0 {
            format!(" {:+}", r.modifier)
        } else {
            String::new()
        };
        let forced = if r.forced { " (forced)" } else { "" };
        let text = format!(
            "{} for {}: faces [{}]{modifier} = {}{forced}",
            r.notation,
            r.purpose,
            faces.join(", "),
            r.total,
        );
        line(ui, "Roll", text);
    }
    if let Some(c) = &e.check {
        for m in &c.modifiers {
            line(ui, "Modifier", format!("{} {:+}", m.name, m.value));
        }
        let result = if c.success { "success" } else { "failure" };
        let text = format!("{} against {} {}: {result}", c.total, c.against, c.target);
        line(ui, "Total", text);
    }
    ui.separator();
    // What the rule cited says, and what Fray made of it.
    for (heading, words) in rules.explain(&e.rule) {
        ui.label(
            egui::RichText::new(heading)
                .strong()
                .color(egui::Color32::from_rgb(160, 200, 255)),
        );
        ui.add(egui::Label::new(egui::RichText::new(words).small()).wrap());
    }
}

fn choice_button(
    ui: &mut egui::Ui,
    index: Option<usize>,
    label: &str,
    refused: Option<&str>,
    preview: Option<&str>,
) -> egui::Response {
    // The tenth choice's key is 0, after 9 on the keyboard; the next ten
    // are the same keys with Shift.
    let text = match index {
        Some(i) if i < 20 => {
            let shift = if i >= 10 { "Shift+" } else { "" };
            format!("{shift}{}. {label}", (i + 1) % 10)
        }
        _ => label.to_string(),
    };
    let mut r = ui.add_enabled(refused.is_none(), egui::Button::new(text));
    if let Some(why) = refused {
        r = r.on_disabled_hover_text(format!("Not allowed: {why}"));
    }
    if let Some(p) = preview {
        r = r.on_hover_text(p);
    }
    r
}

/// What the player asked of the panels this frame, applied once all are drawn.
#[derive(Default)]
struct Asked {
    pause_toggle: bool,
    step: bool,
    back: bool,
    save: bool,
    rewind_to: Option<u64>,
    take_over: bool,
    take_back: bool,
    skip: bool,
    menu: bool,
    help: bool,
    answer: Option<(u64, Order)>,
    /// The cell of the choice under the pointer, to show on the board.
    choice_cell: Option<fray_core::grid::Cell>,
}

/// The battle screen: controls on top, the tracker and unit sheet on the
/// left, the log on the right, the timeline and the decision at the bottom;
/// over them the hotseat hand-off and the in-battle menu.
fn battle_ui(
    mut contexts: EguiContexts,
    session: Option<NonSendMut<Session>>,
    mut rects: ResMut<PanelRects>,
    mut area: ResMut<BoardArea>,
    mut menu: ResMut<BattleMenu>,
    mut help: ResMut<super::help::HelpOpen>,
    mut hover: Option<ResMut<Hover>>,
    mut next: ResMut<NextState<Screen>>,
    mut exit: MessageWriter<AppExit>,
) -> Result {
    let ctx = contexts.ctx_mut()?;
    let Some(mut s) = session else { return Ok(()) };
    rects.0.clear();
    let mut root = egui::Ui::new(
        ctx.clone(),
        "battle".into(),
        egui::UiBuilder::new()
            .layer_id(egui::LayerId::background())
            .max_rect(ctx.viewport_rect()),
    );
    let to_rect = |r: egui::Rect| Rect::new(r.min.x, r.min.y, r.max.x, r.max.y);
    let mut asked = Asked::default();
    let mut speed = s.speed;
    let mut picked = s.picked_entry;
    let round = {
        let s: &Session = &s;
        let round = (s.view.round)(s.battle.world());
        let top = egui::Panel::top("controls").show(&mut root, |ui| {
            controls(ui, s, round, &mut speed, &mut asked)
        });
        rects.0.push(to_rect(top.response.rect));
        let left = egui::Panel::left("tracker")
            .exact_size(270.0)
            .resizable(false)
            .show(&mut root, |ui| tracker_panel(ui, s));
        rects.0.push(to_rect(left.response.rect));
        let right = egui::Panel::right("log")
            .exact_size(380.0)
            .resizable(false)
            .show(&mut root, |ui| {
                log_panel(ui, s.log().entries(), &s.rules, &mut picked, &mut asked)
            });
        rects.0.push(to_rect(right.response.rect));
        let seen = hover.as_deref();
        let bottom = egui::Panel::bottom("decision")
            .exact_size(250.0)
            .resizable(false)
            .show(&mut root, |ui| {
                super::timeline::timeline(ui, s, round, &mut picked);
                ui.separator();
                decision_panel(ui, s, seen, &mut asked);
            });
        rects.0.push(to_rect(bottom.response.rect));
        area.0 = Some(to_rect(root.available_rect_before_wrap()));
        round
    };
    if let Some(side) = s.handoff {
        handoff(ctx, &mut s, side);
    }
    menu.0 |= asked.menu;
    help.0 ^= asked.help;
    if menu.0 {
        battle_menu(ctx, &mut s, &mut menu, &mut next, &mut exit);
    }
    s.picked_entry = picked;
    if asked.pause_toggle {
        s.pause_or_play();
    }
    if asked.step {
        s.step_once();
    }
    if asked.skip {
        s.skip_to_round = Some(round);
    }
    if asked.back {
        rewound(&mut s, Session::back_one_step);
    }
    if let Some(seq) = asked.rewind_to {
        rewound(&mut s, |s| s.rewind_to_entry(seq));
    }
    if asked.save {
        saved(&mut s);
    }
    if asked.take_over {
        rewound(&mut s, Session::take_over);
    }
    if asked.take_back {
        taken_back(&mut s);
    }
    s.speed = speed;
    if let Some(h) = hover.as_mut() {
        h.choice_cell = asked.choice_cell;
    }
    if let Some((id, order)) = asked.answer {
        s.answer(id, order);
    }
    Ok(())
}

/// The top bar: the battle's name, play, pause, step, next round, speed, menu.
fn controls(ui: &mut egui::Ui, s: &Session, round: u32, speed: &mut usize, asked: &mut Asked) {
    ui.horizontal(|ui| {
        ui.label(egui::RichText::new(&s.scenario.scenario.name).strong());
        ui.label(format!(
            "· {} · seed {} · {} {round}",
            s.scenario.scenario.ruleset, s.setup.seed, s.view.round_unit
        ));
        ui.separator();
        if ui
            .button(if s.paused { "Play" } else { "Pause" })
            .on_hover_text("P")
            .clicked()
        {
            asked.pause_toggle = true;
        }
        if ui
            .button("⏮ Back")
            .on_hover_text("Rewind one rules step (,)")
            .clicked()
        {
            asked.back = true;
        }
        if ui
            .button("Step")
            .on_hover_text("One rules step (.)")
            .clicked()
        {
            asked.step = true;
        }
        if ui
            .button(format!("Next {}", s.view.round_unit))
            .on_hover_text("N")
            .clicked()
        {
            asked.skip = true;
        }
        egui::ComboBox::from_id_salt("speed")
            .selected_text(speed_label(*speed))
            .show_ui(ui, |ui| {
                for i in 0..SPEEDS.len() {
                    ui.selectable_value(speed, i, speed_label(i));
                }
            });
        let watching = s.people() == 0;
        ui.label(if watching {
            "watch mode: the AI plays every side"
        } else {
            ""
        });
        if s.has_future()
            && ui
                .button("Take over")
                .on_hover_text(
                    "Play on from this moment as a new branch: the orders after it are forgotten and every side decides anew",
                )
                .clicked()
        {
            asked.take_over = true;
        }
        if ui.button("Save").on_hover_text("Ctrl+S").clicked() {
            asked.save = true;
        }
        if ui.button("Menu").on_hover_text("Escape").clicked() {
            asked.menu = true;
        }
        if ui
            .button("Help")
            .on_hover_text("Controls and legend (F1)")
            .clicked()
        {
            asked.help = true;
        }
        if let Some(n) = &s.notice {
            ui.label(egui::RichText::new(n).small());
        }
    });
}

/// The initiative tracker in the ruleset's own terms, then the unit sheet.
fn tracker_panel(ui: &mut egui::Ui, s: &Session) {
    let world = s.battle.world();
    let tracker = (s.view.tracker)(world);
    ui.heading("Initiative");
    ui.label(&tracker.heading);
    egui::ScrollArea::vertical()
        .id_salt("tracker_rows")
        .max_height(300.0)
        .show(ui, |ui| {
            for row in &tracker.rows {
                let (mark, colour) = match row.state {
                    RowState::Done => ("done", egui::Color32::from_gray(140)),
                    RowState::Now => ("NOW", egui::Color32::from_rgb(255, 230, 120)),
                    RowState::Coming => ("next", egui::Color32::from_gray(220)),
                };
                let together = if row.names.len() > 1 {
                    " (simultaneous)"
                } else {
                    ""
                };
                ui.colored_label(
                    colour,
                    format!("{mark} {}: {}{together}", row.mark, row.names.join(" + ")),
                );
                if !row.note.is_empty() {
                    ui.label(
                        egui::RichText::new(format!("    {}", row.note))
                            .small()
                            .color(egui::Color32::from_gray(170)),
                    );
                }
            }
            // One's own secret orders, to oneself alone (in hotseat, once
            // the side has taken the screen), in place of "hidden".
            let mine: Vec<&Written> = s
                .written
                .iter()
                .filter(|w| s.people() < 2 || s.shown_side == Some(w.side))
                .collect();
            for line in &tracker.waiting {
                if !mine
                    .iter()
                    .any(|w| line.starts_with(&format!("{}:", w.actor)))
                {
                    ui.colored_label(egui::Color32::from_rgb(200, 170, 255), line);
                }
            }
            for w in mine {
                ui.colored_label(
                    egui::Color32::from_rgb(160, 220, 160),
                    format!("{}: you wrote down {}", w.actor, w.words),
                );
            }
        });
    ui.separator();
    ui.heading("Unit");
    match s.selected {
        Some(e) => {
            egui::Grid::new("sheet")
                .num_columns(2)
                .striped(true)
                .show(ui, |ui| {
                    for (k, v) in (s.view.sheet)(world, e) {
                        ui.label(k);
                        ui.label(v);
                        ui.end_row();
                    }
                    // Every state, where the board shows the first two.
                    let token = (s.view.tokens)(world).into_iter().find(|t| t.entity == e);
                    if let Some(t) = token.filter(|t| !t.states.is_empty()) {
                        ui.label("States");
                        ui.label(t.states.join(", "));
                        ui.end_row();
                    }
                });
        }
        None => {
            ui.label("Click a token to see its sheet.");
        }
    }
    thinking(ui, s);
}

/// On request, what each searching AI weighed for its last decision: the
/// orders it played out, each with the share of the battle its side held at
/// the end of them (the order given first).
fn thinking(ui: &mut egui::Ui, s: &Session) {
    let sides = &s.scenario.scenario.sides;
    let searching: Vec<usize> = (0..sides.len())
        .filter(|&i| s.setup.ai.get(i) == Some(&fray_ai::AiLevel::Search))
        .collect();
    if searching.is_empty() {
        return;
    }
    ui.separator();
    let id = ui.id().with("show_thinking");
    let mut on = ui.data_mut(|d| *d.get_persisted_mut_or_default::<bool>(id));
    ui.checkbox(&mut on, "Show the AI's thinking")
        .on_hover_text("The orders the searching AI played out for its last decision, each with the share of the battle its side held after them, over the futures it played, and which was the basic AI's own choice: the search gives another only when its futures come out surely ahead.");
    ui.data_mut(|d| d.insert_persisted(id, on));
    if !on {
        return;
    }
    // What it weighed for an order still secret would show the order: a
    // person playing sees it once the orders are revealed.
    if s.people() > 0 && s.battle.world().resource::<Decisions>().writing_in_secret() {
        ui.label("Hidden while orders are written in secret: shown once they are revealed.");
        return;
    }
    egui::ScrollArea::vertical()
        .id_salt("thinking")
        .max_height(150.0)
        .show(ui, |ui| {
            for i in searching {
                let thoughts = s.battle.thoughts(i);
                ui.label(egui::RichText::new(format!("{} (search)", sides[i].name)).strong());
                if thoughts.is_empty() {
                    ui.label("    nothing weighed yet");
                }
                for (n, thought) in thoughts.iter().enumerate() {
                    ui.label(thought_words(n == 0, thought));
                }
            }
        });
}

/// One order the search weighed, in words: whether it was chosen, its side's
/// share of the battle after it, over how many futures, and whether it was
/// the basic AI's own choice.
fn thought_words(chosen: bool, t: &fray_core::decision::Thought) -> String {
    format!(
        "{} {:>3.0}% over {} {}{}",
        if chosen { "chose" } else { "     " },
        t.share * 100.0,
        fray_core::model::count_of(t.futures, "future"),
        order_words(&t.order),
        if t.plain {
            " (the basic AI's choice)"
        } else {
            ""
        }
    )
}

/// `word` with a capital first letter.
pub(super) fn capitalised(word: &str) -> String {
    let mut chars = word.chars();
    chars
        .next()
        .map_or(String::new(), |c| c.to_uppercase().chain(chars).collect())
}

/// An order in a few words: "Grusk: attack Brienne with warhammer".
fn order_words(o: &fray_core::decision::Order) -> String {
    let mut words = format!("{}: {}", o.actor, o.action.replace('_', " "));
    if let Some(t) = &o.target {
        words.push_str(&format!(" {t}"));
    }
    if let Some(w) = &o.with {
        words.push_str(&format!(" with {}", w.replace('_', " ")));
    }
    if let Some(c) = o.cell {
        words.push_str(&format!(" to ({}, {})", c.x, c.y));
    }
    if let Some(c) = o.then {
        words.push_str(&format!(", then to ({}, {})", c.x, c.y));
    }
    words
}

/// The combat log, one row per entry, and the picked entry's breakdown.
fn log_panel(
    ui: &mut egui::Ui,
    entries: &[LogEntry],
    rules: &LoadedRules,
    picked: &mut Option<usize>,
    asked: &mut Asked,
) {
    ui.heading("Combat log");
    ui.label(egui::RichText::new("Click an entry for its rolls and rule.").small());
    // Only the rows in view are laid out: the log grows long.
    let row_height = 17.0;
    egui::ScrollArea::vertical()
        .id_salt("log_rows")
        .max_height(ui.available_height() * 0.62)
        .auto_shrink([false, false])
        .stick_to_bottom(true)
        .show_rows(ui, row_height, entries.len(), |ui, range| {
            for i in range {
                let e = &entries[i];
                let when = if e.round > 0 {
                    format!("[{}·{}] ", e.round, e.time)
                } else {
                    String::new()
                };
                // The rule comes before the sentence, so a long sentence
                // cut at the panel's edge never hides it.
                let background = if *picked == Some(i) {
                    egui::Color32::from_rgb(50, 60, 90)
                } else {
                    egui::Color32::TRANSPARENT
                };
                let mut job = egui::text::LayoutJob::default();
                let mut part = |text: &str, colour: egui::Color32| {
                    let format = egui::TextFormat {
                        font_id: egui::FontId::proportional(12.0),
                        color: colour,
                        background,
                        ..Default::default()
                    };
                    job.append(text, 0.0, format);
                };
                part(&when, entry_colour(e));
                part(
                    &format!("{} · ", e.rule),
                    egui::Color32::from_rgb(150, 160, 190),
                );
                part(&e.text, entry_colour(e));
                let r = ui.add(egui::Label::new(job).truncate().sense(egui::Sense::click()));
                if r.clicked() {
                    *picked = Some(i);
                }
            }
        });
    ui.separator();
    match picked.and_then(|i| entries.get(i)) {
        Some(e) => {
            if ui
                .button("⏮ Rewind to here")
                .on_hover_text(
                    "The battle as it stood when this entry was written; play on to see it again",
                )
                .clicked()
            {
                asked.rewind_to = Some(e.seq);
            }
            egui::ScrollArea::vertical()
                .id_salt("breakdown")
                .show(ui, |ui| breakdown(ui, e, rules));
        }
        None => {
            ui.label("No entry picked.");
        }
    }
}

/// The decision a person must make now, with its choices; or what the
/// rules are doing while nobody is asked.
fn decision_panel(ui: &mut egui::Ui, s: &Session, hover: Option<&Hover>, asked: &mut Asked) {
    let world = s.battle.world();
    let hovered_target = hover.and_then(|h| h.token);
    let decision = if s.handoff.is_some() {
        None
    } else {
        s.human_decision()
    };
    let Some(d) = decision else {
        let text = match &s.progress {
            Some(fray_core::battle::Progress::Failed(why)) => {
                format!("The battle cannot go on: {why}")
            }
            _ if s.paused => "Paused. Step (.) or Play (P).".to_string(),
            _ => "The rules are running.".to_string(),
        };
        ui.label(text);
        take_back_row(ui, s, asked);
        if let (Some(t), Some(sel)) = (hovered_target, s.selected)
            && foes(world, sel, t)
            && let Some(p) = (s.view.preview)(world, sel, t)
        {
            ui.label(p);
        }
        return;
    };
    let side = s.sides().name(fray_core::model::Side(d.side)).to_string();
    // Wrapped, so a long prompt does not widen the panel past the board.
    ui.horizontal_wrapped(|ui| {
        ui.colored_label(colour32(side_colour(d.side)), format!("[{side}]"));
        ui.label(egui::RichText::new(&d.prompt).strong());
        ui.label(egui::RichText::new(format!("({})", d.rule)).small());
    });
    if let Some(r) = &s.battle.last_refusal
        && r.decision == d.id
    {
        ui.colored_label(
            egui::Color32::from_rgb(255, 120, 120),
            format!("Refused: {}", r.reason),
        );
    }
    take_back_row(ui, s, asked);
    let foe = |n: &str| {
        let mut q = world.iter_entities().filter(|e| {
            e.get::<fray_core::model::Combatant>()
                .is_some_and(|c| c.name == n)
        });
        q.next().is_some_and(|e| foes(world, d.actor, e.id()))
    };
    ui.label(egui::RichText::new(how_to_answer(d, foe)).small());
    // What the pointer rests on, on one line kept for it whether or not
    // there is anything, so the choices never move under the cursor.
    let odds = hovered_target
        .filter(|t| foes(world, d.actor, *t))
        .and_then(|t| (s.view.preview)(world, d.actor, t))
        .map(|p| p.lines().collect::<Vec<_>>().join(" · "));
    let (text, colour) = match (odds, hover.and_then(|h| h.path_info.clone())) {
        (Some(p), _) => (p, egui::Color32::from_rgb(250, 200, 150)),
        (None, Some(info)) => (info, egui::Color32::from_rgb(250, 240, 150)),
        (None, None) => (String::new(), egui::Color32::TRANSPARENT),
    };
    ui.add(egui::Label::new(egui::RichText::new(format!("{text} ")).color(colour)).truncate());
    choices(ui, s, d, asked);
}

/// One's last order, with a button to take it back while nothing has been
/// rolled or revealed since.
fn take_back_row(ui: &mut egui::Ui, s: &Session, asked: &mut Asked) {
    let Some(t) = s.can_take_back() else { return };
    ui.horizontal_wrapped(|ui| {
        ui.label(egui::RichText::new(format!("Your last order: {}.", t.label)).small());
        if ui
            .small_button("Take back (U)")
            .on_hover_text("Ask this question again: nothing has been rolled or revealed since (U)")
            .clicked()
        {
            asked.take_back = true;
        }
    });
}

/// Whether `a` and `b` fight on different sides: only a foe gets the odds of
/// an attack on it.
fn foes(world: &World, a: Entity, b: Entity) -> bool {
    let side = |e| world.get::<fray_core::model::Side>(e).copied();
    a != b && side(a).is_some() && side(b).is_some() && side(a) != side(b)
}

/// The lines of an attack preview (one a weapon, `weapon: …`) for an order
/// made `with` a weapon, a spell or an item: that weapon's line alone, and
/// none for a spell or an item, whose odds are not a weapon's.
fn odds_with(odds: &str, with: Option<&str>) -> Option<String> {
    let Some(w) = with else {
        return Some(odds.to_string());
    };
    let prefix = format!("{w}: ");
    odds.lines()
        .find(|l| l.starts_with(&prefix))
        .map(str::to_string)
}

/// A decision's choices, the legal ones numbered, each previewed on hover:
/// choices alike but for their aim share a row (`rows::rows`).
fn choices(ui: &mut egui::Ui, s: &Session, d: &Decision, asked: &mut Asked) {
    let numbered = super::rows::numbered(d);
    // A solid bar, always shown, so choices below the panel's edge are seen
    // to be there.
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::vertical()
        .id_salt("choices")
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
        .show(ui, |ui| {
            // A row of choices alike on a line of its own; choices alone
            // side by side between them.
            let rows = super::rows::rows(d);
            for line in rows.chunk_by(|a, b| a.template.is_none() && b.template.is_none()) {
                ui.horizontal_wrapped(|ui| {
                    for row in line {
                        if let Some(t) = &row.template {
                            ui.label(egui::RichText::new(format!("{t}:")).weak());
                        }
                        for (i, text) in &row.members {
                            let index = numbered.iter().position(|n| n == i);
                            choice(ui, s, d, (&d.choices[*i], index, text), asked);
                        }
                    }
                });
            }
        });
}

/// One choice's button, with the odds of an attack it makes on hover and
/// the cell it goes to outlined on the board.
fn choice(
    ui: &mut egui::Ui,
    s: &Session,
    d: &Decision,
    (c, index, text): (&fray_core::decision::Choice, Option<usize>, &str),
    asked: &mut Asked,
) {
    let world = s.battle.world();
    let preview = c.order.target.as_ref().and_then(|t| {
        let target = world_entity(world, t)?;
        foes(world, d.actor, target).then_some(())?;
        let odds = (s.view.preview)(world, d.actor, target)?;
        odds_with(&odds, c.order.with.as_deref())
    });
    let r = choice_button(ui, index, text, c.refused.as_deref(), preview.as_deref());
    let r = if text == c.label {
        r
    } else {
        r.on_hover_text(&c.label)
    };
    if r.clicked() {
        asked.answer = Some((d.id, c.order.clone()));
    }
    if r.hovered() && c.order.cell.is_some() {
        asked.choice_cell = c.order.cell;
    }
}

/// Hotseat hand-off: hide everything else until the right person confirms.
fn handoff(ctx: &egui::Context, s: &mut Session, side: usize) {
    let name = s.sides().name(fray_core::model::Side(side)).to_string();
    egui::Area::new("handoff_shade".into())
        .fixed_pos(egui::pos2(0.0, 0.0))
        .order(egui::Order::Foreground)
        .show(ctx, |ui| {
            let rect = ctx.viewport_rect();
            ui.painter()
                .rect_filled(rect, 0.0, egui::Color32::from_rgb(12, 12, 16));
            ui.allocate_rect(rect, egui::Sense::click());
        });
    let mut confirm = false;
    egui::Window::new("Hand-off")
        .order(egui::Order::Tooltip)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .title_bar(false)
        .show(ctx, |ui| {
            ui.heading(format!("Pass to {name} — press Space"));
            ui.label("The other side's choices stay hidden until all are revealed together.");
            if ui
                .button(format!("I am {name}: show my decision"))
                .clicked()
            {
                confirm = true;
            }
        });
    if confirm {
        s.handoff = None;
        s.shown_side = Some(side);
    }
}

/// The in-battle menu: resume, restart, main menu, quit.
fn battle_menu(
    ctx: &egui::Context,
    s: &mut Session,
    menu: &mut BattleMenu,
    next: &mut NextState<Screen>,
    exit: &mut MessageWriter<AppExit>,
) {
    egui::Window::new("Paused")
        .order(egui::Order::Foreground)
        .anchor(egui::Align2::CENTER_CENTER, [0.0, 0.0])
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            if ui.button("Resume").clicked() {
                menu.0 = false;
            }
            if ui.button("Save (Ctrl+S)").clicked() {
                menu.0 = false;
                saved(s);
            }
            if ui.button("Restart this battle").clicked() {
                menu.0 = false;
                let setup = s.setup.clone();
                if let Ok(fresh) = Session::start(setup) {
                    *s = fresh;
                    next.set(Screen::Battle);
                }
            }
            if ui.button("Main menu").clicked() {
                menu.0 = false;
                next.set(Screen::Menu);
            }
            if ui.button("Quit").clicked() {
                exit.write(AppExit::Success);
            }
        });
}

fn world_entity(world: &World, name: &str) -> Option<Entity> {
    let view = world.get_resource::<fray_core::view::RulesView>()?;
    (view.tokens)(world)
        .into_iter()
        .find(|t| t.name == name)
        .map(|t| t.entity)
}

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<PanelRects>()
        .init_resource::<BoardArea>()
        .init_resource::<BattleMenu>()
        // The board is fitted once the battle screen's panels are laid
        // out, not to the space another screen left it.
        .add_systems(OnEnter(Screen::Battle), |mut area: ResMut<BoardArea>| {
            area.0 = None;
        })
        .add_systems(
            Update,
            // After the driver (and so after the autoplay's key presses,
            // which come before it): a press is read in the frame it is made.
            (keys, hand_off)
                .chain()
                .after(super::session::Drive)
                .run_if(in_state(Screen::Battle)),
        )
        .add_systems(
            EguiPrimaryContextPass,
            battle_ui.run_if(in_state(Screen::Battle)),
        );
}

/// How the decision `d` may be answered: a choice, its number, and, where
/// they apply, a click on a cell, or on a foe where some legal choice aims
/// at one (`foe`, by name).
fn how_to_answer(d: &fray_core::decision::Decision, foe: impl Fn(&str) -> bool) -> String {
    let mut ways = vec!["click a choice", "press its number"];
    if d.choices
        .iter()
        .any(|c| c.refused.is_none() && c.order.target.as_deref().is_some_and(&foe))
    {
        ways.push("click a foe to aim at it");
    }
    if d.any_cell && d.move_order.is_some() {
        ways.push("click a cell to move there");
    }
    let last = ways.pop().unwrap_or_default();
    let text = if ways.is_empty() {
        last.to_string()
    } else {
        format!("{}, or {last}", ways.join(", "))
    };
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect::<String>() + ".")
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::odds_with;

    #[test]
    fn a_choice_shows_the_odds_of_its_own_weapon_and_none_for_a_spell() {
        let odds =
            "mace: 60% to hit (Defense 12), 2–7 damage\nsling: 45% to hit (Defense 12), 1–4 damage";
        assert_eq!(odds_with(odds, None).as_deref(), Some(odds));
        assert_eq!(
            odds_with(odds, Some("sling")).as_deref(),
            Some("sling: 45% to hit (Defense 12), 1–4 damage")
        );
        assert_eq!(odds_with(odds, Some("firebolt")), None);
    }
}
