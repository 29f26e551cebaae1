//! The round drawn as time: a scale in the ruleset's own units (initiative
//! counts, phases, segments, options one by one, the fractions of a trace),
//! one lane per combatant, each event a mark at its moment; interrupts
//! branch off the action they cut into, spells span the time they take (and
//! end where they were spoiled), readied and held actions wait until they
//! fire or lapse. Past rounds scroll back; hovering a mark shows its event,
//! clicking picks it in the log.

use bevy_egui::egui;
use fray_core::log::{EventKind, LogEntry, Tone};
use fray_core::view::{Clock, Periods};

use super::session::Session;

/// Width of one event's slot.
const SLOT: f32 = 13.0;
/// Height of a lane.
const LANE: f32 = 11.0;
/// Height of the scale's labels over the lanes.
const SCALE: f32 = 14.0;
/// Height of the strip under the labels where marks that concern nobody
/// in particular are drawn, clear of the labels and the lanes.
const NOTES: f32 = 8.0;
/// Width of the lane names.
const GUTTER: f32 = 86.0;
/// Height of the drawn area; more lanes scroll.
const HEIGHT: f32 = 116.0;
/// The most quiet steps drawn one by one between two marks.
const QUIET_TICKS: u64 = 9;

/// The round laid out: columns along the scale, lanes down it, and what
/// is drawn where.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Picture {
    pub columns: Vec<Column>,
    /// Lane names and their sides, in listing order.
    pub lanes: Vec<(String, usize)>,
    pub glyphs: Vec<Glyph>,
    pub spans: Vec<Span>,
}

/// A step of the scale: a moment where something happened, or a quiet one.
#[derive(Debug, PartialEq)]
pub(super) struct Column {
    pub label: String,
    /// The period of the round it falls in ("phase 1 · 0–3 s"), when the
    /// ruleset divides rounds into periods.
    pub period: Option<String>,
    pub quiet: bool,
    /// Its events' slots, left to right.
    pub slots: usize,
}

/// How a mark is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Something a combatant does: a dot.
    Action,
    /// An interrupt: a diamond, with a branch from what it cut into.
    Interrupt,
    /// Harm taken: a cross.
    Harm,
    /// Something that concerns nobody in particular: a tick on the scale.
    Note,
}

/// One event on the picture.
#[derive(Debug, PartialEq)]
pub(super) struct Glyph {
    pub column: usize,
    pub slot: usize,
    /// Its lane; none for a note on the scale.
    pub lane: Option<usize>,
    /// The lane of whom it is aimed at, when another's.
    pub aim: Option<usize>,
    pub shape: Shape,
    /// The glyph it branches from, for an interrupt.
    pub from: Option<usize>,
    /// The entry's place in the whole log.
    pub entry: usize,
}

/// What a span shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SpanKind {
    /// A spell being cast.
    Spell,
    /// An action readied, held or delayed, waiting.
    Waiting,
}

/// Time a combatant spends on one thing, from one glyph to another; `None`
/// at either end runs off that edge of the round.
#[derive(Debug, PartialEq)]
pub(super) struct Span {
    pub lane: usize,
    pub kind: SpanKind,
    pub from: Option<usize>,
    pub to: Option<usize>,
    /// Spoiled before it went off.
    pub spoiled: bool,
}

/// Lay out the round's `entries` (with their places in the whole log), the
/// combatants named in `listing` order with their sides.
pub(super) fn picture(
    entries: &[(usize, &LogEntry)],
    listing: &[(String, usize)],
    clock: Option<Clock>,
) -> Picture {
    let mut marks: Vec<(String, Vec<(usize, &LogEntry)>)> = Vec::new();
    for &(i, e) in entries {
        match marks.last_mut() {
            Some((t, list)) if *t == e.time => list.push((i, e)),
            _ => marks.push((e.time.clone(), vec![(i, e)])),
        }
    }
    let names: Vec<&str> = marks
        .iter()
        .flat_map(|(_, l)| l.iter())
        .flat_map(|(_, e)| [e.actor.as_deref(), e.target.as_deref()])
        .flatten()
        .collect();
    let mut lanes: Vec<(String, usize)> = listing
        .iter()
        .filter(|(n, _)| names.contains(&n.as_str()))
        .cloned()
        .collect();
    for n in names {
        if !lanes.iter().any(|(l, _)| l == n) {
            lanes.push((n.to_string(), 0));
        }
    }
    let lane = |name: Option<&str>| name.and_then(|n| lanes.iter().position(|(l, _)| l == n));
    let mut pic = Picture::default();
    // The glyphs' entries, in the glyphs' order (the axis's, not the log's).
    let mut in_order: Vec<&LogEntry> = Vec::new();
    for tick in axis(&marks, clock) {
        match tick {
            Tick::Quiet(label) => pic.columns.push(Column {
                label,
                period: None,
                quiet: true,
                slots: 1,
            }),
            Tick::Mark(m) => {
                let (time, list) = &marks[m];
                let column = pic.columns.len();
                pic.columns.push(Column {
                    label: short(time, clock),
                    period: None,
                    quiet: false,
                    slots: list.len(),
                });
                for (slot, &(entry, e)) in list.iter().enumerate() {
                    let glyph = glyph(e, column, slot, entry, &lane, &pic.glyphs);
                    pic.glyphs.push(glyph);
                    in_order.push(e);
                }
            }
        }
    }
    pic.spans = spans(&pic.glyphs, &in_order);
    pic.lanes = lanes;
    pic
}

/// The glyph of entry `e`: in the lane of whom it befalls, aimed at its
/// target; an interrupt branches from the last mark in its target's lane.
fn glyph(
    e: &LogEntry,
    column: usize,
    slot: usize,
    entry: usize,
    lane: &impl Fn(Option<&str>) -> Option<usize>,
    before: &[Glyph],
) -> Glyph {
    let (actor, target) = (lane(e.actor.as_deref()), lane(e.target.as_deref()));
    // What concerns nobody's lane in particular ("the blows land
    // together") is a note on the scale, not harm to anyone.
    let shape = if actor.or(target).is_none() {
        Shape::Note
    } else if e.event.cuts_in() {
        Shape::Interrupt
    } else if e.event.tone() == Tone::Harm {
        Shape::Harm
    } else {
        Shape::Action
    };
    let own = match shape {
        Shape::Harm => target.or(actor),
        _ => actor.or(target),
    };
    let aim = target.filter(|t| Some(*t) != own && shape != Shape::Harm);
    let from = (shape == Shape::Interrupt)
        .then(|| {
            before
                .iter()
                .rposition(|g| g.lane.is_some() && g.lane == target)
                .or(before.iter().rposition(|g| g.lane.is_some()))
        })
        .flatten();
    Glyph {
        column,
        slot,
        lane: own,
        aim,
        shape,
        from,
        entry,
    }
}

/// Spells from their beginning to where they go off or are spoiled, and
/// waiting actions to the waiter's next mark; `entries[i]` is glyph i's.
fn spans(glyphs: &[Glyph], entries: &[&LogEntry]) -> Vec<Span> {
    let mut out: Vec<Span> = Vec::new();
    for (i, (g, e)) in glyphs.iter().zip(entries).enumerate() {
        let Some(lane) = g.lane else { continue };
        let open = out
            .iter()
            .position(|s| s.lane == lane && s.to.is_none() && s.kind == SpanKind::Spell);
        let ends_spell = matches!(e.event, EventKind::Cast | EventKind::Spoiled);
        if let (Some(k), true) = (open, ends_spell) {
            out[k].to = Some(i);
            out[k].spoiled = e.event == EventKind::Spoiled;
        } else if e.event == EventKind::Cast && e.text.contains(", begun ") {
            // A spell begun in an earlier round goes off in this one.
            out.push(Span {
                lane,
                kind: SpanKind::Spell,
                from: None,
                to: Some(i),
                spoiled: false,
            });
        }
        if let Some(w) = out
            .iter()
            .position(|s| s.lane == lane && s.to.is_none() && s.kind == SpanKind::Waiting)
            && !matches!(g.shape, Shape::Harm | Shape::Note)
            && e.event != EventKind::EndTurn
        {
            out[w].to = Some(i);
        }
        if begins_spell(e) || e.event.waits() {
            let kind = if e.event.waits() {
                SpanKind::Waiting
            } else {
                SpanKind::Spell
            };
            out.push(Span {
                lane,
                kind,
                from: Some(i),
                to: None,
                spoiled: false,
            });
        }
    }
    out
}

/// Gather the columns into the ruleset's periods, drawn over them: a
/// column whose time mark begins "phase 2" falls in "phase 2 · 3–6 s" and
/// keeps only the rest of its mark ("7 Dario"); "movement, step 1" falls
/// in "movement" as "step 1". The timed periods still to come this round
/// follow, empty, so the picture shows how much of the round is left.
pub(super) fn in_periods(pic: &mut Picture, periods: Option<Periods>) {
    let Some(periods) = periods else { return };
    let mut last = None;
    for c in pic.columns.iter_mut().filter(|c| !c.quiet) {
        let (head, rest) = c.label.split_once(", ").unwrap_or((&c.label, ""));
        let period = match periods {
            Periods::Named => head.to_string(),
            Periods::Timed { name, seconds, .. } => match reading(head) {
                Some((n, i)) if n == name && i >= 1 => {
                    last = Some(i);
                    timed_period(name, seconds, i)
                }
                _ => continue,
            },
        };
        c.label = rest.to_string();
        c.period = Some(period);
    }
    let ends_in_one = pic.columns.last().is_some_and(|c| c.period.is_some());
    if let (
        Periods::Timed {
            name,
            seconds,
            count,
        },
        Some(i),
        true,
    ) = (periods, last, ends_in_one)
    {
        for next in i + 1..=i64::from(count) {
            pic.columns.push(Column {
                label: String::new(),
                period: Some(timed_period(name, seconds, next)),
                quiet: true,
                slots: 1,
            });
        }
    }
}

/// Period `i` of `seconds` each, with its span: "phase 2 · 3–6 s".
fn timed_period(name: &str, seconds: u32, i: i64) -> String {
    let s = i64::from(seconds);
    format!("{name} {i} · {}–{} s", (i - 1) * s, i * s)
}

/// A spell begun now, to go off later (rules/001, rules/003).
fn begins_spell(e: &LogEntry) -> bool {
    e.event == EventKind::BeginCast
}

/// A column's label: the clock's reading alone ("6" for "segment 6"), or
/// the time mark, shortened.
fn short(time: &str, clock: Option<Clock>) -> String {
    if let (Some(c), Some((name, n))) = (clock, reading(time))
        && name == c.name
    {
        return n.to_string();
    }
    let t = time.trim();
    if t.chars().count() > 18 {
        format!("{}…", t.chars().take(17).collect::<String>())
    } else {
        t.to_string()
    }
}

/// One step of the axis.
enum Tick {
    /// A step of the clock when nothing happened.
    Quiet(String),
    /// The `i`th time mark of the round.
    Mark(usize),
}

/// The axis under `marks`. With the ruleset's `clock`, every step of it,
/// quiet ones faint, the marks off the clock before and after. Without,
/// between two marks of the same clock ("initiative 13", "initiative 10")
/// the steps where nothing happened (at most [`QUIET_TICKS`] of them; a
/// longer wait is one "…").
fn axis<T>(marks: &[(String, T)], clock: Option<Clock>) -> Vec<Tick> {
    let name = clock.map(|c| c.name);
    let on_clock: Vec<(usize, i64)> = marks
        .iter()
        .enumerate()
        .filter_map(|(i, (t, _))| {
            let (p, n) = reading(t)?;
            (Some(p) == name).then_some((i, n))
        })
        .collect();
    match clock {
        Some(c) if !on_clock.is_empty() => full_clock(marks.len(), &on_clock, c),
        _ => between_marks(marks),
    }
}

/// Every step of `clock` (widened to the readings seen), each with its
/// marks; the marks off the clock before the first reading come first, the
/// rest last.
fn full_clock(marks: usize, on_clock: &[(usize, i64)], clock: Clock) -> Vec<Tick> {
    let first_mark = on_clock[0].0;
    let rising = clock.first <= clock.last;
    let (lo, hi) = on_clock.iter().fold(
        (clock.first.min(clock.last), clock.first.max(clock.last)),
        |(lo, hi), &(_, n)| (lo.min(n), hi.max(n)),
    );
    let steps: Vec<i64> = if rising {
        (lo..=hi).collect()
    } else {
        (lo..=hi).rev().collect()
    };
    let off = |i: &usize| !on_clock.iter().any(|(j, _)| j == i);
    let mut ticks: Vec<Tick> = (0..first_mark).filter(off).map(Tick::Mark).collect();
    for n in steps {
        let at: Vec<usize> = on_clock
            .iter()
            .filter(|(_, m)| *m == n)
            .map(|(i, _)| *i)
            .collect();
        if at.is_empty() {
            ticks.push(Tick::Quiet(n.to_string()));
        }
        ticks.extend(at.into_iter().map(Tick::Mark));
    }
    ticks.extend((first_mark..marks).filter(off).map(Tick::Mark));
    ticks
}

/// The marks in order, with the quiet steps between two of one clock.
fn between_marks<T>(marks: &[(String, T)]) -> Vec<Tick> {
    let mut ticks = Vec::new();
    let mut last: Option<(&str, i64)> = None;
    for (i, (time, _)) in marks.iter().enumerate() {
        let here = reading(time);
        if let (Some((p, a)), Some((q, b))) = (last, here)
            && p == q
        {
            let gap = (b - a).unsigned_abs().saturating_sub(1);
            let step = if b > a { 1 } else { -1 };
            if gap > QUIET_TICKS {
                ticks.push(Tick::Quiet("…".into()));
            } else {
                for k in 1..=gap as i64 {
                    ticks.push(Tick::Quiet((a + step * k).to_string()));
                }
            }
        }
        ticks.push(Tick::Mark(i));
        last = here.or(last);
    }
    ticks
}

/// A time mark read as a clock and its reading: "segment 6" is
/// ("segment", 6), "initiative -4" is ("initiative", -4).
fn reading(time: &str) -> Option<(&str, i64)> {
    let (prefix, n) = time.trim().rsplit_once(' ')?;
    Some((prefix, n.parse().ok()?))
}

/// The round shown: the current one, or a past one the player scrolled
/// back to (kept in egui's memory).
fn shown_round(ui: &egui::Ui, now: u32) -> u32 {
    let id = egui::Id::new("timeline_round");
    ui.data(|d| d.get_temp::<u32>(id))
        .filter(|r| *r < now)
        .unwrap_or(now)
}

/// The timeline: which round, then its picture.
pub(super) fn timeline(ui: &mut egui::Ui, s: &Session, now: u32, picked: &mut Option<usize>) {
    let round = shown_round(ui, now);
    let id = egui::Id::new("timeline_round");
    let unit = super::panels::capitalised(s.view.round_unit);
    let mut go = None;
    ui.horizontal(|ui| {
        if ui
            .add_enabled(round > 1, egui::Button::new("◀").small())
            .on_hover_text(format!("The {} before", s.view.round_unit))
            .clicked()
        {
            go = Some(round - 1);
        }
        ui.label(egui::RichText::new(format!("{unit} {round}")).strong());
        if ui
            .add_enabled(round < now, egui::Button::new("▶").small())
            .on_hover_text(format!("The {} after", s.view.round_unit))
            .clicked()
        {
            go = Some(round + 1);
        }
        if round < now && ui.small_button("Now").clicked() {
            go = Some(now);
        }
        legend(ui, (s.view.clock)(s.battle.world()));
    });
    if let Some(r) = go {
        ui.data_mut(|d| d.insert_temp(id, r));
    }
    let entries: Vec<(usize, &LogEntry)> = s
        .log()
        .entries()
        .iter()
        .enumerate()
        .filter(|(_, e)| e.round == round && e.round > 0)
        .collect();
    let listing: Vec<(String, usize)> = (s.view.tokens)(s.battle.world())
        .into_iter()
        .map(|t| (t.name, t.side))
        .collect();
    let mut pic = picture(&entries, &listing, (s.view.clock)(s.battle.world()));
    in_periods(&mut pic, (s.view.periods)(s.battle.world()));
    // Solid bars, always shown, so lanes below the area's edge are seen
    // to be there.
    ui.spacing_mut().scroll = egui::style::ScrollStyle::solid();
    egui::ScrollArea::both()
        .id_salt(("timeline", round))
        .max_height(HEIGHT)
        .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
        .stick_to_right(true)
        .show(ui, |ui| draw(ui, s, &pic, round == now, picked));
}

/// What the marks mean, each drawn as on the picture, and the scale's unit.
fn legend(ui: &mut egui::Ui, clock: Option<Clock>) {
    let font = egui::FontId::proportional(10.0);
    let words = egui::Color32::from_gray(150);
    let items: [(&str, Option<Shape>, Option<SpanKind>); 5] = [
        ("action", Some(Shape::Action), None),
        ("interrupt", Some(Shape::Interrupt), None),
        ("harm", Some(Shape::Harm), None),
        ("spell", None, Some(SpanKind::Spell)),
        ("waiting", None, Some(SpanKind::Waiting)),
    ];
    let (rect, _) = ui.allocate_exact_size(egui::vec2(390.0, 14.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    let mut x = rect.left() + 6.0;
    let y = rect.center().y;
    for (word, shape, span) in items {
        let p = egui::pos2(x, y);
        if let Some(shape) = shape {
            let colour = match shape {
                Shape::Harm => egui::Color32::from_rgb(240, 140, 120),
                _ => egui::Color32::from_rgb(235, 225, 170),
            };
            paint_shape(&painter, p, shape, colour);
            x += 8.0;
        }
        if let Some(kind) = span {
            paint_bar(&painter, x - 4.0, x + 14.0, y, kind, false);
            x += 18.0;
        }
        let r = painter.text(
            egui::pos2(x, y),
            egui::Align2::LEFT_CENTER,
            word,
            font.clone(),
            words,
        );
        x = r.right() + 12.0;
    }
    if let Some(c) = clock {
        let text = format!("scale: {}s", c.name);
        painter.text(
            egui::pos2(x, y),
            egui::Align2::LEFT_CENTER,
            text,
            font,
            words,
        );
    }
}

/// Where the picture's parts fall on screen.
struct Geometry {
    origin: egui::Pos2,
    /// Each column's left edge and width.
    columns: Vec<(f32, f32)>,
    /// The scale's height: one row of labels, or two with periods, and
    /// the strip of notes under them.
    scale: f32,
}

impl Geometry {
    fn of(ui: &egui::Ui, pic: &Picture, origin: egui::Pos2) -> Self {
        let font = egui::FontId::proportional(10.0);
        let width = |text: &str| {
            ui.painter()
                .layout_no_wrap(text.to_string(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        };
        let mut widths: Vec<f32> = pic
            .columns
            .iter()
            .map(|c| {
                (c.slots as f32 * SLOT)
                    .max(width(&c.label) + 6.0)
                    .max(SLOT + 4.0)
            })
            .collect();
        // A period is at least as wide as its name: its last column widens.
        for run in periods(pic) {
            let have: f32 = widths[run.clone()].iter().sum();
            let need = width(pic.columns[run.start].period.as_deref().unwrap_or("")) + 8.0;
            widths[run.end - 1] += (need - have).max(0.0);
        }
        let mut x = GUTTER;
        let columns = widths
            .into_iter()
            .map(|w| {
                x += w;
                (x - w, w)
            })
            .collect();
        let scale = if pic.columns.iter().any(|c| c.period.is_some()) {
            SCALE + NOTES + 11.0
        } else {
            SCALE + NOTES
        };
        Self {
            origin,
            columns,
            scale,
        }
    }

    fn width(&self) -> f32 {
        self.columns.last().map_or(GUTTER, |(x, w)| x + w) + 12.0
    }

    fn glyph(&self, pic: &Picture, g: &Glyph) -> egui::Pos2 {
        let (x, w) = self.columns[g.column];
        let slots = pic.columns[g.column].slots as f32;
        let left = x + (w - slots * SLOT) / 2.0;
        let y = match g.lane {
            Some(l) => self.scale + LANE * (l as f32 + 0.5),
            None => self.scale - NOTES / 2.0,
        };
        self.origin + egui::vec2(left + SLOT * (g.slot as f32 + 0.5), y)
    }

    fn lane_y(&self, lane: usize) -> f32 {
        self.origin.y + self.scale + LANE * (lane as f32 + 0.5)
    }
}

/// Paint the picture, and answer hovers and clicks on its marks.
fn draw(ui: &mut egui::Ui, s: &Session, pic: &Picture, now: bool, picked: &mut Option<usize>) {
    let origin = ui.cursor().min;
    let geo = Geometry::of(ui, pic, origin);
    let height = geo.scale + LANE * pic.lanes.len().max(1) as f32 + 2.0;
    let (rect, response) =
        ui.allocate_exact_size(egui::vec2(geo.width(), height), egui::Sense::click());
    let painter = ui.painter_at(rect);
    paint_scale(&painter, pic, &geo, rect);
    for span in &pic.spans {
        paint_span(&painter, pic, &geo, span, rect);
    }
    for g in &pic.glyphs {
        paint_glyph(&painter, pic, &geo, g, s, *picked == Some(g.entry));
    }
    if let (true, Some(last)) = (now, pic.glyphs.last()) {
        let (x, w) = geo.columns[last.column];
        let x = origin.x + x + w;
        painter.vline(
            x,
            rect.y_range(),
            (1.5, egui::Color32::from_rgb(140, 240, 140)),
        );
    }
    paint_names(ui, &painter, pic, &geo);
    let Some(pos) = response.hover_pos() else {
        return;
    };
    let near = pic
        .glyphs
        .iter()
        .map(|g| (g, geo.glyph(pic, g).distance(pos)))
        .filter(|(_, d)| *d < 8.0)
        .min_by(|a, b| a.1.total_cmp(&b.1));
    if let Some((g, _)) = near {
        let e = &s.log().entries()[g.entry];
        let clicked = response.clicked();
        let label = s.rules.label(e.event).map(|l| format!(" · {l}"));
        response.on_hover_ui_at_pointer(|ui| {
            let when = format!("{}{}", e.time, label.unwrap_or_default());
            ui.label(egui::RichText::new(when).weak());
            ui.label(&e.text);
            ui.label(egui::RichText::new(&e.rule).weak());
        });
        if clicked {
            *picked = Some(g.entry);
        }
    }
}

/// The scale: each column's label, faint for a quiet step, with a rule
/// down the lanes; the lanes' own faint lines.
fn paint_scale(painter: &egui::Painter, pic: &Picture, geo: &Geometry, rect: egui::Rect) {
    let font = egui::FontId::proportional(10.0);
    let row = geo.scale - SCALE - NOTES;
    for run in periods(pic) {
        let left = geo.origin.x + geo.columns[run.start].0;
        let (x, w) = geo.columns[run.end - 1];
        let right = geo.origin.x + x + w;
        painter.text(
            egui::pos2((left + right) / 2.0, geo.origin.y + 1.0),
            egui::Align2::CENTER_TOP,
            pic.columns[run.start].period.as_deref().unwrap_or(""),
            font.clone(),
            egui::Color32::from_rgb(200, 215, 240),
        );
        painter.hline(
            (left + 2.0)..=(right - 2.0),
            geo.origin.y + row - 1.0,
            (1.0, egui::Color32::from_gray(90)),
        );
        painter.vline(left, rect.y_range(), (1.5, egui::Color32::from_gray(120)));
    }
    for (c, &(x, w)) in pic.columns.iter().zip(&geo.columns) {
        let left = geo.origin.x + x;
        let colour = if c.quiet {
            egui::Color32::from_gray(110)
        } else {
            egui::Color32::from_rgb(150, 190, 240)
        };
        painter.text(
            egui::pos2(left + w / 2.0, geo.origin.y + row + 1.0),
            egui::Align2::CENTER_TOP,
            &c.label,
            font.clone(),
            colour,
        );
        // Under the period's name, not through it.
        let rule = egui::Color32::from_gray(if c.quiet { 45 } else { 70 });
        painter.vline(left, (geo.origin.y + row)..=rect.bottom(), (1.0, rule));
    }
    for l in 0..pic.lanes.len() {
        let y = geo.lane_y(l);
        painter.hline(rect.x_range(), y, (1.0, egui::Color32::from_gray(40)));
    }
}

/// The runs of columns that fall in one period.
fn periods(pic: &Picture) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (i, c) in pic.columns.iter().enumerate() {
        let Some(p) = &c.period else { continue };
        match runs.last_mut() {
            Some(r) if r.end == i && pic.columns[r.start].period.as_ref() == Some(p) => r.end += 1,
            _ => runs.push(i..i + 1),
        }
    }
    runs
}

/// A spell as a bar along its lane, a wait as a dashed line.
fn paint_span(
    painter: &egui::Painter,
    pic: &Picture,
    geo: &Geometry,
    span: &Span,
    rect: egui::Rect,
) {
    let y = geo.lane_y(span.lane);
    let at = |g: Option<usize>, edge: f32| g.map_or(edge, |i| geo.glyph(pic, &pic.glyphs[i]).x);
    // One still under way runs to the round's last step so far, and a
    // point there says it goes on.
    let so_far = pic.glyphs.last().map_or(rect.right(), |g| {
        let (x, w) = geo.columns[g.column];
        geo.origin.x + x + w
    });
    let (a, b) = (at(span.from, geo.origin.x + GUTTER), at(span.to, so_far));
    paint_bar(painter, a, b, y, span.kind, span.spoiled);
    if span.to.is_none() && span.kind == SpanKind::Spell {
        let colour = egui::Color32::from_rgba_unmultiplied(190, 140, 255, 200);
        painter.add(egui::Shape::convex_polygon(
            vec![
                egui::pos2(b, y - 5.0),
                egui::pos2(b + 6.0, y),
                egui::pos2(b, y + 5.0),
            ],
            colour,
            egui::Stroke::NONE,
        ));
    }
}

/// A spell's bar (red once spoiled) or a wait's dashes, from `a` to `b`.
fn paint_bar(painter: &egui::Painter, a: f32, b: f32, y: f32, kind: SpanKind, spoiled: bool) {
    match kind {
        SpanKind::Spell => {
            let colour = if spoiled {
                egui::Color32::from_rgba_unmultiplied(240, 110, 110, 90)
            } else {
                egui::Color32::from_rgba_unmultiplied(190, 140, 255, 110)
            };
            let bar = egui::Rect::from_min_max(egui::pos2(a, y - 3.0), egui::pos2(b, y + 3.0));
            painter.rect_filled(bar, 2.0, colour);
        }
        SpanKind::Waiting => {
            let stroke = egui::Stroke::new(1.0, egui::Color32::from_rgb(235, 225, 170));
            painter.extend(egui::Shape::dashed_line(
                &[egui::pos2(a, y), egui::pos2(b, y)],
                stroke,
                3.0,
                3.0,
            ));
        }
    }
}

/// One mark: its shape in its lane's colour of event, a line to whom it is
/// aimed at, and an interrupt's branch from what it cut into.
fn paint_glyph(
    painter: &egui::Painter,
    pic: &Picture,
    geo: &Geometry,
    g: &Glyph,
    s: &Session,
    picked: bool,
) {
    let p = geo.glyph(pic, g);
    let e = &s.log().entries()[g.entry];
    let colour = super::panels::entry_colour(e);
    let interrupt = egui::Color32::from_rgb(255, 170, 60);
    if let Some(t) = g.aim {
        let to = egui::pos2(p.x, geo.lane_y(t));
        painter.line_segment([p, to], (1.0, colour.gamma_multiply(0.6)));
        painter.circle_filled(to, 1.8, colour.gamma_multiply(0.8));
    }
    if let Some(f) = g.from {
        let q = geo.glyph(pic, &pic.glyphs[f]);
        let bend = egui::pos2(q.x, p.y);
        painter.line(vec![q, bend, p], (1.5, interrupt));
    }
    let colour = if g.shape == Shape::Interrupt {
        interrupt
    } else {
        colour
    };
    paint_shape(painter, p, g.shape, colour);
    if picked {
        painter.circle_stroke(p, 6.5, (1.5, egui::Color32::WHITE));
    }
}

/// A mark's shape at `p`.
fn paint_shape(painter: &egui::Painter, p: egui::Pos2, shape: Shape, colour: egui::Color32) {
    match shape {
        Shape::Action => {
            painter.circle_filled(p, 3.5, colour);
        }
        Shape::Interrupt => {
            let d = 4.5;
            let points = vec![
                p + egui::vec2(0.0, -d),
                p + egui::vec2(d, 0.0),
                p + egui::vec2(0.0, d),
                p + egui::vec2(-d, 0.0),
            ];
            painter.add(egui::Shape::convex_polygon(
                points,
                colour,
                egui::Stroke::NONE,
            ));
        }
        Shape::Harm => {
            let d = 3.5;
            let stroke = (2.0, colour);
            painter.line_segment([p + egui::vec2(-d, -d), p + egui::vec2(d, d)], stroke);
            painter.line_segment([p + egui::vec2(-d, d), p + egui::vec2(d, -d)], stroke);
        }
        Shape::Note => {
            painter.vline(p.x, (p.y - 3.0)..=(p.y + 2.0), (1.0, colour));
        }
    }
}

/// The lane names, kept at the left edge of what is in view as the
/// picture scrolls, in their sides' colours.
fn paint_names(ui: &egui::Ui, painter: &egui::Painter, pic: &Picture, geo: &Geometry) {
    let left = ui.clip_rect().left().max(geo.origin.x);
    let font = egui::FontId::proportional(10.5);
    let top = geo.origin.y;
    let gutter = egui::Rect::from_min_max(
        egui::pos2(left, top),
        egui::pos2(
            left + GUTTER - 4.0,
            top + geo.scale + LANE * pic.lanes.len() as f32,
        ),
    );
    painter.rect_filled(gutter, 0.0, ui.visuals().panel_fill);
    for (l, (name, side)) in pic.lanes.iter().enumerate() {
        let colour = super::panels::colour32(super::board::side_colour(*side));
        let shown: String = if name.chars().count() > 13 {
            format!("{}…", name.chars().take(12).collect::<String>())
        } else {
            name.clone()
        };
        painter.text(
            egui::pos2(left + 2.0, geo.lane_y(l)),
            egui::Align2::LEFT_CENTER,
            shown,
            font.clone(),
            colour,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(time: &str, event: EventKind, actor: &str, target: &str, text: &str) -> LogEntry {
        let name = |n: &str| (!n.is_empty()).then(|| n.to_string());
        LogEntry {
            seq: 0,
            round: 1,
            time: time.into(),
            actor: name(actor),
            event,
            rule: String::new(),
            rolls: Vec::new(),
            check: None,
            target: name(target),
            amount: None,
            text: text.into(),
        }
    }

    const SEGMENTS: Clock = Clock {
        name: "segment",
        first: 1,
        last: 10,
    };

    fn listing() -> Vec<(String, usize)> {
        ["Hal", "Brom", "Gash"]
            .iter()
            .enumerate()
            .map(|(i, n)| (n.to_string(), usize::from(i == 2)))
            .collect()
    }

    #[test]
    fn a_spell_spans_the_segments_it_takes_and_ends_where_it_is_spoiled() {
        // rules/001: Hal begins a two-segment fire bolt in segment 3; Gash
        // strikes him in segment 4, spoiling it. The scale runs 1 to 10.
        let log = [
            entry(
                "declaration",
                EventKind::Declare,
                "Hal",
                "",
                "Hal declares.",
            ),
            entry(
                "segment 3",
                EventKind::BeginCast,
                "Hal",
                "Gash",
                "Hal begins casting fire_bolt at Gash.",
            ),
            entry(
                "segment 4",
                EventKind::Attack,
                "Gash",
                "Hal",
                "Gash attacks Hal.",
            ),
            entry(
                "segment 4",
                EventKind::Damage,
                "Gash",
                "Hal",
                "Hal takes 3.",
            ),
            entry(
                "segment 4",
                EventKind::Spoiled,
                "Hal",
                "",
                "Hal's spell is spoiled.",
            ),
        ];
        let entries: Vec<(usize, &LogEntry)> = log.iter().enumerate().collect();
        let pic = picture(&entries, &listing(), Some(SEGMENTS));
        let labels: Vec<&str> = pic.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "declaration",
                "1",
                "2",
                "3",
                "4",
                "5",
                "6",
                "7",
                "8",
                "9",
                "10"
            ]
        );
        assert_eq!(pic.columns[4].slots, 3);
        assert_eq!(pic.lanes, [("Hal".to_string(), 0), ("Gash".to_string(), 1)]);
        // The attack is Gash's, aimed at Hal; the damage is drawn on Hal.
        assert_eq!((pic.glyphs[2].lane, pic.glyphs[2].aim), (Some(1), Some(0)));
        assert_eq!(
            (pic.glyphs[3].lane, pic.glyphs[3].shape),
            (Some(0), Shape::Harm)
        );
        assert_eq!(
            pic.spans,
            [Span {
                lane: 0,
                kind: SpanKind::Spell,
                from: Some(1),
                to: Some(4),
                spoiled: true
            }]
        );
    }

    #[test]
    fn an_interrupt_branches_from_the_action_it_cuts_into_and_a_wait_lasts_until_it_fires() {
        // rules/004: Brom waits; Gash attacks Hal and Hal ripostes at the
        // same moment; then Brom acts.
        let log = [
            entry("initiative 12", EventKind::Wait, "Brom", "", "Brom waits."),
            entry(
                "initiative 10",
                EventKind::Attack,
                "Gash",
                "Hal",
                "Gash attacks Hal.",
            ),
            entry(
                "initiative 10",
                EventKind::Riposte,
                "Hal",
                "Gash",
                "Hal ripostes.",
            ),
            entry(
                "initiative 8",
                EventKind::Attack,
                "Brom",
                "Gash",
                "Brom attacks Gash.",
            ),
        ];
        let entries: Vec<(usize, &LogEntry)> = log.iter().enumerate().collect();
        let pic = picture(&entries, &listing(), None);
        let labels: Vec<&str> = pic.columns.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(
            labels,
            ["initiative 12", "11", "initiative 10", "9", "initiative 8"]
        );
        assert_eq!(pic.glyphs[2].shape, Shape::Interrupt);
        assert_eq!(pic.glyphs[2].from, Some(1));
        assert_eq!(
            pic.spans,
            [Span {
                lane: 1,
                kind: SpanKind::Waiting,
                from: Some(0),
                to: Some(3),
                spoiled: false
            }]
        );
    }

    /// Gather `log` into periods `by`: each column's label and period, and
    /// the runs of columns in one period, are as `columns` and `runs` say.
    fn assert_periods(
        log: &[LogEntry],
        by: Periods,
        columns: &[(&str, Option<&str>)],
        runs: &[std::ops::Range<usize>],
    ) {
        let entries: Vec<(usize, &LogEntry)> = log.iter().enumerate().collect();
        let mut pic = picture(&entries, &listing(), None);
        in_periods(&mut pic, Some(by));
        let got: Vec<(&str, Option<&str>)> = pic
            .columns
            .iter()
            .map(|c| (c.label.as_str(), c.period.as_deref()))
            .collect();
        assert_eq!(got, columns);
        assert_eq!(periods(&pic), runs);
    }

    #[test]
    fn the_phases_of_a_turn_gather_their_actions_under_their_seconds() {
        // rules/002 §Time: four 3-second phases make a 12-second turn; in
        // phase 1 Dario acts at 7 and Rocco at 5, then phase 2 begins.
        let log = [
            entry("phase 1", EventKind::Phase, "", "", "Phase 1 begins."),
            entry(
                "phase 1, 7 Dario",
                EventKind::Attack,
                "Dario",
                "Rocco",
                "Dario attacks.",
            ),
            entry(
                "phase 1, 5 Rocco",
                EventKind::Move,
                "Rocco",
                "",
                "Rocco moves.",
            ),
            entry("phase 2", EventKind::Phase, "", "", "Phase 2 begins."),
            entry(
                "Post-Turn",
                EventKind::Recovery,
                "Rocco",
                "",
                "Rocco recovers.",
            ),
        ];
        let timed = Periods::Timed {
            name: "phase",
            seconds: 3,
            count: 4,
        };
        assert_periods(
            &log,
            timed,
            &[
                ("", Some("phase 1 · 0–3 s")),
                ("7 Dario", Some("phase 1 · 0–3 s")),
                ("5 Rocco", Some("phase 1 · 0–3 s")),
                ("", Some("phase 2 · 3–6 s")),
                ("Post-Turn", None),
            ],
            &[0..3, 3..4],
        );
        // In phase 2, phases 3 and 4 are still to come: drawn empty.
        assert_periods(
            &log[..4],
            timed,
            &[
                ("", Some("phase 1 · 0–3 s")),
                ("7 Dario", Some("phase 1 · 0–3 s")),
                ("5 Rocco", Some("phase 1 · 0–3 s")),
                ("", Some("phase 2 · 3–6 s")),
                ("", Some("phase 3 · 6–9 s")),
                ("", Some("phase 4 · 9–12 s")),
            ],
            &[0..3, 3..4, 4..5, 5..6],
        );
    }

    #[test]
    fn the_movement_phase_gathers_its_fractions_under_its_name() {
        // rules/000 §3: the traces advance fraction by fraction.
        let log = [
            entry("combat, Hal", EventKind::Pass, "Hal", "", "Hal passes."),
            entry("noncombat", EventKind::Note, "", "", "Revealed."),
            entry("movement", EventKind::Traces, "", "", "Traces revealed."),
            entry("movement, step 1", EventKind::Stop, "Hal", "", "Hal stops."),
            entry(
                "movement, step 2",
                EventKind::Stop,
                "Brom",
                "",
                "Brom stops.",
            ),
        ];
        assert_periods(
            &log,
            Periods::Named,
            &[
                ("Hal", Some("combat")),
                ("", Some("noncombat")),
                ("", Some("movement")),
                ("step 1", Some("movement")),
                ("step 2", Some("movement")),
            ],
            &[0..1, 1..2, 2..5],
        );
    }
}
