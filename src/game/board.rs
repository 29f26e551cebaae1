//! The battlefield: the scenario's grid as hexes or squares with obstacles
//! and rough ground, a token per combatant in its side's colour with its
//! name and the bars its ruleset tracks, the camera, and what hovering shows
//! (path and cost, reachable cells, threatened cells, a target's odds).

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::text::{LineBreak, TextBackgroundColor, TextBounds};
use bevy_egui::input::EguiWantsInput;
use fray_core::grid::{Cell, Grid, GridKind};
use fray_core::movement::{self, Provokes};
use fray_core::threat::Threatener;
use fray_core::view::{RulesView, TokenView};
use leafwing_input_manager::prelude::*;

use super::Screen;
use super::input::GameAction;
use super::session::{SPEEDS, Session};

/// Circumradius of a hex, half the side of a square, in world units.
pub(super) const R: f32 = 30.0;

/// A token's ring, as a fraction of [`R`].
pub(super) const RING: f32 = 0.72;
/// Where a token's name hangs over its centre.
pub(super) const NAME_AT: f32 = R * 0.74;

/// How far under a token's centre its `bars` bars end: its states hang
/// there.
pub(super) fn under_bars(bars: usize) -> f32 {
    R * 0.78 + bars as f32 * 5.0 + 1.0
}

/// Side colours, in the scenario's order of sides.
pub const SIDE_COLOURS: [(f32, f32, f32); 4] = [
    (0.25, 0.55, 0.95),
    (0.90, 0.30, 0.25),
    (0.35, 0.80, 0.40),
    (0.85, 0.70, 0.20),
];

pub fn side_colour(side: usize) -> Color {
    let (r, g, b) = SIDE_COLOURS[side % SIDE_COLOURS.len()];
    Color::srgb(r, g, b)
}

/// Where cells sit in the world.
#[derive(Resource, Clone)]
pub struct Layout {
    pub grid: Grid,
}

impl Layout {
    /// The centre of `c`: pointy-top hexes with odd rows shifted right, or squares; row 0 at the top.
    pub fn centre(&self, c: Cell) -> Vec2 {
        match self.grid.kind() {
            GridKind::Hex => {
                let w = 3f32.sqrt() * R;
                let shift = if c.y.rem_euclid(2) == 1 { 0.5 } else { 0.0 };
                Vec2::new(w * (c.x as f32 + shift), -1.5 * R * c.y as f32)
            }
            GridKind::Square => Vec2::new(2.0 * R * c.x as f32, -2.0 * R * c.y as f32),
        }
    }

    /// The cell under a world position, if it is on the board.
    pub fn cell_at(&self, p: Vec2) -> Option<Cell> {
        let mut best = None;
        let mut best_d = f32::MAX;
        for y in 0..self.grid.height() as i32 {
            for x in 0..self.grid.width() as i32 {
                let c = Cell::new(x, y);
                let d = self.centre(c).distance_squared(p);
                if d < best_d {
                    best_d = d;
                    best = Some(c);
                }
            }
        }
        best.filter(|_| best_d <= R * R * 1.1)
    }

    /// The corners of `c`'s outline, shrunk by `inset`.
    pub fn outline(&self, c: Cell, inset: f32) -> Vec<Vec2> {
        let o = self.centre(c);
        match self.grid.kind() {
            GridKind::Hex => (0..=6)
                .map(|i| {
                    let a = std::f32::consts::FRAC_PI_3 * i as f32 + std::f32::consts::FRAC_PI_6;
                    o + Vec2::new(a.cos(), a.sin()) * (R - inset)
                })
                .collect(),
            GridKind::Square => {
                let h = R - inset;
                vec![
                    o + Vec2::new(-h, -h),
                    o + Vec2::new(h, -h),
                    o + Vec2::new(h, h),
                    o + Vec2::new(-h, h),
                    o + Vec2::new(-h, -h),
                ]
            }
        }
    }

    pub fn bounds(&self) -> Rect {
        let a = self.centre(Cell::new(0, 0));
        let b = self.centre(Cell::new(
            self.grid.width() as i32 - 1,
            self.grid.height() as i32 - 1,
        ));
        Rect::from_corners(a, b).inflate(R * 1.5)
    }
}

/// Everything the board spawned; cleared when the board is rebuilt or the menu returns.
#[derive(Component)]
pub struct BoardPart;

fn clear_board(mut commands: Commands, parts: Query<Entity, With<BoardPart>>) {
    for e in &parts {
        commands.entity(e).despawn();
    }
}

/// A combatant's token; `of` is the combatant in the battle's world.
#[derive(Component)]
pub struct Token {
    pub of: Entity,
    pub(super) pos: Vec2,
    /// How many bars hang under its disc.
    pub(super) bars: usize,
    /// The cell it was last seen in, and the cells still to walk through.
    cell: Cell,
    path: std::collections::VecDeque<Cell>,
}

#[derive(Component)]
struct TokenDisc;

#[derive(Component)]
pub(super) struct TokenLabel;

/// A token's states as one short line within its cell, so that it never
/// runs into the neighbour's name below: the first state's name (its words
/// before any colon, cut at [`STATE_CHARS`]) and how many more (the unit
/// sheet and the tracker give them all, in full).
fn state_lines(states: &[String]) -> String {
    let Some(first) = states.first() else {
        return String::new();
    };
    // The state's name, without its details ("haymaker: -5 DCV").
    let first = first.split(':').next().unwrap_or_default().trim();
    let mut line: String = if first.chars().count() > STATE_CHARS {
        // Two dots, not an ellipsis: the board's font has no "…".
        let cut: String = first.chars().take(STATE_CHARS - 2).collect();
        format!("{}..", cut.trim_end())
    } else {
        first.to_string()
    };
    if states.len() > 1 {
        line.push_str(&format!(" +{}", states.len() - 1));
    }
    line
}

/// The most characters of a state shown under a token.
const STATE_CHARS: usize = 12;

/// The ruleset's short states under a token ("alert", "blows 2/1", "dying").
#[derive(Component)]
pub(super) struct TokenStates;

/// The letters on a token's disc ([`short_names`]).
#[derive(Component)]
pub(super) struct TokenInitials;

#[derive(Component)]
struct BarFill {
    index: usize,
}

#[derive(Component)]
struct Floating {
    ttl: f32,
    /// The combatant whose number it is.
    on: String,
    /// Damage taken, or healing (negative).
    amount: i32,
    /// How far above its token's centre it has risen: it follows the token
    /// still walking to where the blow found it.
    above: f32,
}

/// How long a number floats, in seconds.
const FLOAT_SECS: f32 = 1.6;
/// How fast a number rises, in world units a second: it stays over its own
/// token, short of the cell above (60 units off), where a neighbour's
/// number could be taken for it.
const FLOAT_RISE: f32 = 10.0;
/// The ground a floating number is drawn on.
const FLOAT_GROUND: Color = Color::srgba(0.05, 0.05, 0.07, 0.85);
/// The height of a floating number's line, in world units.
const FLOAT_LINE: f32 = 20.0;

/// A strike shown as a line from attacker to target for a moment.
#[derive(Component)]
struct Flash {
    from: String,
    to: String,
    ttl: f32,
}

/// The tokens as the ruleset describes them, read once per frame.
#[derive(Resource, Default)]
pub struct Views(pub Vec<TokenView>);

fn refresh_views(session: Option<NonSend<Session>>, mut views: ResMut<Views>) {
    views.0 = match session {
        Some(s) => (s.view.tokens)(s.battle.world()),
        None => Vec::new(),
    };
}

/// What the pointer is over.
#[derive(Resource, Default, Debug, Clone)]
pub struct Hover {
    pub cell: Option<Cell>,
    /// The combatant (battle world) under the pointer.
    pub token: Option<Entity>,
    pub world_pos: Vec2,
    /// Whether the pointer is over a panel rather than the board.
    pub over_ui: bool,
    /// The path to the hovered cell in words: length, cost, threats entered.
    pub path_info: Option<String>,
    /// The cell a hovered choice names ("1-hex step to (2, 3)").
    pub choice_cell: Option<Cell>,
}

#[derive(Resource)]
struct Palette {
    disc: Handle<Mesh>,
    ring: Handle<Mesh>,
    sides: Vec<Handle<ColorMaterial>>,
    faded: Vec<Handle<ColorMaterial>>,
    white: Handle<ColorMaterial>,
    gold: Handle<ColorMaterial>,
}

fn spawn_board(
    mut commands: Commands,
    session: Option<NonSend<Session>>,
    mut meshes: ResMut<Assets<Mesh>>,
    mut materials: ResMut<Assets<ColorMaterial>>,
    camera: Option<Single<(&mut Transform, &mut Projection), With<Camera2d>>>,
    windows: Query<&Window>,
) {
    let Some(s) = session else { return };
    let grid = s.battle.world().resource::<Grid>().clone();
    let layout = Layout { grid: grid.clone() };
    let tile = match grid.kind() {
        GridKind::Hex => meshes.add(RegularPolygon::new(R - 1.5, 6)),
        GridKind::Square => meshes.add(Rectangle::new(2.0 * R - 3.0, 2.0 * R - 3.0)),
    };
    let open = materials.add(Color::srgb(0.20, 0.23, 0.20));
    let open_alt = materials.add(Color::srgb(0.22, 0.25, 0.21));
    let rough = materials.add(Color::srgb(0.33, 0.29, 0.18));
    let blocked = materials.add(Color::srgb(0.07, 0.07, 0.08));
    for y in 0..grid.height() as i32 {
        for x in 0..grid.width() as i32 {
            let c = Cell::new(x, y);
            let m = if grid.is_obstacle(c) {
                blocked.clone()
            } else if grid.is_difficult(c) {
                rough.clone()
            } else if (x + y) % 2 == 0 {
                open.clone()
            } else {
                open_alt.clone()
            };
            commands.spawn((
                BoardPart,
                Mesh2d(tile.clone()),
                MeshMaterial2d(m),
                Transform::from_translation(layout.centre(c).extend(0.0)),
            ));
        }
    }
    let sides = s.sides().0.len().max(1);
    let palette = Palette {
        disc: meshes.add(Circle::new(R * 0.62)),
        ring: meshes.add(Circle::new(R * RING)),
        sides: (0..sides).map(|i| materials.add(side_colour(i))).collect(),
        faded: (0..sides)
            .map(|i| materials.add(side_colour(i).with_alpha(0.35)))
            .collect(),
        white: materials.add(Color::srgb(0.95, 0.95, 0.95)),
        gold: materials.add(Color::srgb(1.0, 0.85, 0.2)),
    };
    let tokens = (s.view.tokens)(s.battle.world());
    let names: Vec<&str> = tokens.iter().map(|t| t.name.as_str()).collect();
    for (t, short) in tokens.iter().zip(short_names(&names)) {
        spawn_token(&mut commands, &palette, &layout, t, short);
    }
    // Frame the board roughly now, exactly once the panels are laid out.
    if let Some(mut cam) = camera {
        let (w, h) = windows
            .iter()
            .next()
            .map_or((1280.0, 720.0), |w| (w.width(), w.height()));
        let guess = Rect::new(270.0, 30.0, (w - 380.0).max(300.0), (h - 160.0).max(200.0));
        frame(&mut cam, layout.bounds(), guess, Vec2::new(w, h));
    }
    commands.insert_resource(Refit(true));
    commands.insert_resource(palette);
    commands.insert_resource(layout);
    commands.insert_resource(Hover::default());
}

/// The letters on each token's disc, told apart: a name's first two; where
/// another begins alike, its first and its number ("W12") or last letter
/// ("Gb"); failing that, its first and its place among those alike.
fn short_names(names: &[&str]) -> Vec<String> {
    let first_two = |n: &str| n.chars().take(2).collect::<String>();
    let first_last = |n: &str| {
        let first: String = n.chars().take(1).collect();
        let digits: String = n.chars().rev().take_while(char::is_ascii_digit).collect();
        match digits.len() {
            0 => {
                first
                    + &n.chars()
                        .skip(1)
                        .last()
                        .map(String::from)
                        .unwrap_or_default()
            }
            _ => first + &digits.chars().rev().collect::<String>(),
        }
    };
    let unique =
        |shorts: &[String], i: usize| shorts.iter().filter(|s| **s == shorts[i]).count() == 1;
    let mut shorts: Vec<String> = names.iter().map(|n| first_two(n)).collect();
    let clashing: Vec<usize> = (0..names.len()).filter(|&i| !unique(&shorts, i)).collect();
    for &i in &clashing {
        shorts[i] = first_last(names[i]);
    }
    let still: Vec<usize> = (0..names.len()).filter(|&i| !unique(&shorts, i)).collect();
    for (k, &i) in still.iter().enumerate() {
        let first: String = names[i].chars().take(1).collect();
        shorts[i] = format!("{first}{}", k + 1);
    }
    shorts
}

fn spawn_token(
    commands: &mut Commands,
    palette: &Palette,
    layout: &Layout,
    t: &TokenView,
    initials: String,
) {
    let pos = layout.centre(t.cell);
    commands
        .spawn((
            BoardPart,
            Token {
                of: t.entity,
                pos,
                bars: t.bars.len(),
                cell: t.cell,
                path: Default::default(),
            },
            Transform::from_translation(pos.extend(5.0)),
            Visibility::default(),
        ))
        .with_children(|p| {
            p.spawn((
                Mesh2d(palette.ring.clone()),
                MeshMaterial2d(palette.white.clone()),
                Transform::from_xyz(0.0, 0.0, 0.0),
            ));
            p.spawn((
                TokenDisc,
                Mesh2d(palette.disc.clone()),
                MeshMaterial2d(palette.sides[t.side % palette.sides.len()].clone()),
                Transform::from_xyz(0.0, 0.0, 0.1),
            ));
            p.spawn((
                TokenInitials,
                Text2d::new(initials),
                TextFont::from_font_size(15.0),
                TextColor(Color::WHITE),
                Transform::from_xyz(0.0, 0.0, 0.3),
            ));
            p.spawn((
                TokenLabel,
                Text2d::new(t.name.clone()),
                TextFont::from_font_size(11.0),
                TextColor(Color::srgb(0.95, 0.95, 0.9)),
                Anchor::BOTTOM_CENTER,
                Transform::from_xyz(0.0, NAME_AT, 0.4),
            ));
            p.spawn((
                TokenStates,
                Text2d::new(state_lines(&t.states)),
                // Wrapped within the token's cell, centred under it.
                TextLayout::new(Justify::Center, LineBreak::WordBoundary),
                TextBounds::new_horizontal(R * 2.1),
                TextFont::from_font_size(9.0),
                TextColor(Color::srgb(0.85, 0.85, 0.8)),
                Anchor::TOP_CENTER,
                Transform::from_xyz(0.0, -under_bars(t.bars.len()), 0.4),
            ));
            for (i, _) in t.bars.iter().enumerate() {
                let y = -R * 0.78 - i as f32 * 5.0;
                p.spawn((
                    Sprite::from_color(Color::srgb(0.1, 0.1, 0.1), Vec2::new(R * 1.4, 4.0)),
                    Transform::from_xyz(0.0, y, 0.2),
                ));
                p.spawn((
                    BarFill { index: i },
                    Sprite::from_color(bar_colour(i), Vec2::new(R * 1.4, 4.0)),
                    Anchor::CENTER_LEFT,
                    Transform::from_xyz(-R * 0.7, y, 0.3),
                ));
            }
        });
}

fn bar_colour(i: usize) -> Color {
    [
        Color::srgb(0.95, 0.8, 0.2),
        Color::srgb(0.85, 0.15, 0.15),
        Color::srgb(0.3, 0.7, 0.95),
        Color::srgb(0.6, 0.9, 0.5),
    ][i % 4]
}

/// Move tokens along toward their cells, fill their bars, fade the fallen.
fn sync_tokens(
    session: Option<NonSend<Session>>,
    layout: Option<Res<Layout>>,
    palette: Option<Res<Palette>>,
    time: Res<Time>,
    mut tokens: Query<(&mut Token, &mut Transform, &mut Visibility, &Children)>,
    mut discs: Query<&mut MeshMaterial2d<ColorMaterial>, With<TokenDisc>>,
    mut bars: Query<(&BarFill, &mut Transform), Without<Token>>,
    mut state_texts: Query<&mut Text2d, With<TokenStates>>,
    views: Res<Views>,
    hover: Option<Res<Hover>>,
) {
    let (Some(s), Some(layout), Some(palette)) = (session, layout, palette) else {
        return;
    };
    let views = &views.0;
    let instant = SPEEDS[s.speed].is_none();
    for (mut token, mut tf, mut vis, children) in &mut tokens {
        let Some(v) = views.iter().find(|v| v.entity == token.of) else {
            continue;
        };
        // A token walks cell by cell along the grid's shortest path to where it now stands.
        if v.cell != token.cell {
            let from = token.path.back().copied().unwrap_or(token.cell);
            let steps = layout
                .grid
                .path_toward(from, v.cell, 0, |_| false)
                .map(|(p, _)| p)
                .unwrap_or_else(|| vec![v.cell]);
            token.path.extend(steps);
            token.cell = v.cell;
        }
        if instant {
            token.path.clear();
            token.pos = layout.centre(v.cell);
        }
        let mut budget = time.delta_secs() * R * 2.0 * 8.0;
        while budget > 0.0 {
            let Some(&next) = token.path.front() else {
                break;
            };
            let target = layout.centre(next);
            let d = target - token.pos;
            if d.length() <= budget {
                token.pos = target;
                budget -= d.length();
                token.path.pop_front();
            } else {
                token.pos += d.normalize() * budget;
                budget = 0.0;
            }
        }
        // The selected and the hovered token are drawn over their neighbours.
        let hovered = hover.as_ref().and_then(|h| h.token);
        let raised = s.selected == Some(token.of) || hovered == Some(token.of);
        tf.translation = token.pos.extend(if raised { 7.0 } else { 5.0 });
        *vis = if v.gone {
            Visibility::Hidden
        } else {
            Visibility::Inherited
        };
        for child in children.iter() {
            if let Ok(mut m) = discs.get_mut(child) {
                let set = if v.out {
                    &palette.faded
                } else {
                    &palette.sides
                };
                m.0 = set[v.side % set.len()].clone();
            }
            if let Ok(mut text) = state_texts.get_mut(child) {
                let words = state_lines(&v.states);
                if text.0 != words {
                    text.0 = words;
                }
            }
            if let Ok((bar, mut btf)) = bars.get_mut(child)
                && let Some(b) = v.bars.get(bar.index)
            {
                let f = if b.max > 0 {
                    (b.current.max(0) as f32 / b.max as f32).min(1.0)
                } else {
                    0.0
                };
                btf.scale.x = f.max(0.001);
            }
        }
    }
    let _ = &palette.gold;
}

/// Floating numbers for damage, and a flash line from attacker to target, as
/// new log entries arrive.
fn announce(
    mut commands: Commands,
    session: Option<NonSendMut<Session>>,
    layout: Option<Res<Layout>>,
    tokens: Query<&Token>,
    mut floating: Query<(&mut Floating, &mut Text2d, &mut TextColor, &Transform)>,
    views: Res<Views>,
) {
    let (Some(mut s), Some(layout)) = (session, layout) else {
        return;
    };
    let total = s.log().entries().len();
    if s.seen >= total {
        return;
    }
    let views = &views.0;
    let place = |name: &str| {
        let v = views.iter().find(|v| v.name == name)?;
        let now = tokens.iter().find(|t| t.of == v.entity).map(|t| t.pos);
        Some(now.unwrap_or_else(|| layout.centre(v.cell)))
    };
    // Only the latest events get a flash: a long jump (skipping a round) would be a tangle.
    let recent = total.saturating_sub(12).max(s.seen);
    let new = &s.log().entries()[s.seen..total];
    for e in &new[recent - s.seen..] {
        if let (Some(actor), Some(target)) = (e.actor.as_deref(), e.target.as_deref()) {
            commands.spawn((
                BoardPart,
                Flash {
                    from: actor.to_string(),
                    to: target.to_string(),
                    ttl: 0.6,
                },
            ));
        }
    }
    // Numbers spawned here, by token and height: the commands wait for the
    // frame's end, so the query does not see them yet.
    let mut spawned: Vec<(String, f32)> = Vec::new();
    for (name, amount) in amounts(new) {
        if let Some(p) = place(&name) {
            let float = Float {
                on: name,
                amount,
                p,
            };
            float_amount(&mut commands, &mut floating, &mut spawned, float);
        }
    }
    s.seen = total;
}

/// A number to float up from the token of `on`, at `p`.
struct Float {
    on: String,
    amount: i32,
    p: Vec2,
}

/// A number floating up from a combatant. A number of the same kind that
/// began rising from it within the last 0.6 s (played fast, hits come
/// several a second) takes this one in; otherwise it starts a line above
/// the highest still rising from that token.
fn float_amount(
    commands: &mut Commands,
    floating: &mut Query<(&mut Floating, &mut Text2d, &mut TextColor, &Transform)>,
    spawned: &mut Vec<(String, f32)>,
    Float { on, amount, p }: Float,
) {
    let mut y = p.y + R * 0.6;
    for (mut f, mut text, mut colour, at) in floating.iter_mut().filter(|(f, ..)| f.on == on) {
        if (f.amount < 0) == (amount < 0) && f.ttl > FLOAT_SECS - 0.6 {
            f.amount += amount;
            (text.0, colour.0) = amount_words(f.amount);
            return;
        }
        y = y.max(at.translation.y + FLOAT_LINE);
    }
    for (_, above) in spawned.iter().filter(|(n, _)| *n == on) {
        y = y.max(above + FLOAT_LINE);
    }
    spawned.push((on.clone(), y));
    let (words, colour) = amount_words(amount);
    commands.spawn((
        BoardPart,
        Text2d::new(words),
        TextFont::from_font_size(20.0),
        TextColor(colour),
        // On a dark ground, read over the name it rises past.
        TextBackgroundColor(FLOAT_GROUND),
        // Over its own token, where no neighbour's could be mistaken for it.
        Transform::from_xyz(p.x, y, 20.0),
        Floating {
            ttl: FLOAT_SECS,
            on,
            amount,
            above: y - p.y,
        },
    ));
}

/// Damage in red, healing (a negative amount) in green.
fn amount_words(amount: i32) -> (String, Color) {
    if amount < 0 {
        (format!("+{}", -amount), Color::srgb(0.4, 0.95, 0.45))
    } else {
        (format!("-{amount}"), Color::srgb(1.0, 0.35, 0.3))
    }
}

/// What the entries did to each combatant, damage and healing apart, in the
/// order each first appears: several hits arriving at once (a round played
/// to its end) show as one number a token rather than a pile. An amount is
/// the target's where the entry names one (a healer's spell on an ally, a
/// blow under `crucible`), else the actor's (who took it).
fn amounts(entries: &[fray_core::log::LogEntry]) -> Vec<(String, i32)> {
    let mut out: Vec<(String, i32)> = Vec::new();
    for e in entries {
        let whom = e.target.as_deref().or(e.actor.as_deref());
        let (Some(amount), Some(actor)) = (e.amount, whom) else {
            continue;
        };
        match out
            .iter_mut()
            .find(|(name, sum)| name == actor && (*sum < 0) == (amount < 0))
        {
            Some((_, sum)) => *sum += amount,
            None => out.push((actor.to_string(), amount)),
        }
    }
    out
}

fn draw_flashes(
    mut commands: Commands,
    mut gizmos: Gizmos,
    time: Res<Time>,
    mut flashes: Query<(Entity, &mut Flash)>,
    tokens: Query<&Token>,
    session: Option<NonSend<Session>>,
) {
    let Some(s) = session else { return };
    let world = s.battle.world();
    let pos = |name: &str| {
        tokens
            .iter()
            .find(|t| {
                world
                    .get::<fray_core::model::Combatant>(t.of)
                    .is_some_and(|c| c.name == name)
            })
            .map(|t| t.pos)
    };
    for (e, mut f) in &mut flashes {
        f.ttl -= time.delta_secs();
        if let (Some(a), Some(b)) = (pos(&f.from), pos(&f.to)) {
            let alpha = (f.ttl / 0.6).clamp(0.0, 1.0);
            gizmos.line_2d(a, b, Color::srgba(1.0, 0.9, 0.4, alpha));
        }
        if f.ttl <= 0.0 {
            commands.entity(e).despawn();
        }
    }
}

/// Each token's trace (a planned or revealed path the ruleset shows), as a
/// dashed line of its side's colour from where it stands.
fn draw_traces(mut gizmos: Gizmos, views: Res<Views>, layout: Option<Res<Layout>>) {
    let Some(layout) = layout else { return };
    for v in views.0.iter().filter(|v| !v.trace.is_empty() && !v.gone) {
        let colour = side_colour(v.side).with_alpha(0.85);
        let mut from = layout.centre(v.cell);
        for &c in &v.trace {
            let to = layout.centre(c);
            // Dashes: the first two thirds of each step.
            gizmos.line_2d(from, from + (to - from) * 0.66, colour);
            from = to;
        }
        gizmos.circle_2d(from, 6.0, colour);
    }
}

fn float_up(
    mut commands: Commands,
    time: Res<Time>,
    views: Res<Views>,
    tokens: Query<&Token>,
    mut q: Query<(
        Entity,
        &mut Floating,
        &mut Transform,
        &mut TextColor,
        &mut TextBackgroundColor,
    )>,
) {
    let pos = |name: &str| {
        let v = views.0.iter().find(|v| v.name == name)?;
        tokens.iter().find(|t| t.of == v.entity).map(|t| t.pos)
    };
    for (e, mut f, mut tf, mut colour, mut ground) in &mut q {
        f.ttl -= time.delta_secs();
        f.above += time.delta_secs() * FLOAT_RISE;
        match pos(&f.on) {
            Some(p) => tf.translation = Vec3::new(p.x, p.y + f.above, 20.0),
            None => tf.translation.y += time.delta_secs() * FLOAT_RISE,
        }
        let left = (f.ttl / FLOAT_SECS).clamp(0.0, 1.0);
        colour.0 = colour.0.with_alpha(left);
        ground.0 = FLOAT_GROUND.with_alpha(FLOAT_GROUND.alpha() * left);
        if f.ttl <= 0.0 {
            commands.entity(e).despawn();
        }
    }
}

/// Asks for the board to be fitted to the space the panels leave: at the
/// start of a battle or its replay, at a hotseat hand-off, when the window
/// is resized, and on the Fit key.
#[derive(Resource, Default)]
pub struct Refit(pub bool);

/// Show `board` (world units) whole, centred in `area` (window pixels) of a
/// window of `size`.
fn frame(camera: &mut (Mut<Transform>, Mut<Projection>), board: Rect, area: Rect, size: Vec2) {
    let (tf, proj) = camera;
    let Projection::Orthographic(o) = &mut **proj else {
        return;
    };
    let scale = (board.width() / area.width().max(120.0))
        .max(board.height() / area.height().max(120.0))
        * 1.06;
    o.scale = scale.clamp(0.2, 8.0);
    // The camera's centre shows at the window's centre: shift it so the
    // board's centre shows at the area's.
    let off = area.center() - size / 2.0;
    let centre = board.center() + Vec2::new(-off.x, off.y) * o.scale;
    tf.translation = centre.extend(tf.translation.z);
}

/// Fit the board when asked (see [`Refit`]).
fn fit_board(
    mut refit: ResMut<Refit>,
    area: Res<super::panels::BoardArea>,
    layout: Option<Res<Layout>>,
    session: Option<NonSend<Session>>,
    mut handed: Local<Option<usize>>,
    windows: Query<&Window>,
    mut resized: MessageReader<bevy::window::WindowResized>,
    actions: Single<&ActionState<GameAction>>,
    mut camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
) {
    let handoff = session.and_then(|s| s.handoff);
    if handoff.is_some() && handoff != *handed {
        refit.0 = true;
    }
    *handed = handoff;
    if resized.read().count() > 0 || actions.just_pressed(&GameAction::Fit) {
        refit.0 = true;
    }
    let (Some(layout), Some(area), Some(window)) = (layout, area.0, windows.iter().next()) else {
        return;
    };
    if refit.0 {
        let size = Vec2::new(window.width(), window.height());
        let (tf, proj) = &mut *camera;
        frame(
            &mut (tf.reborrow(), proj.reborrow()),
            layout.bounds(),
            area,
            size,
        );
        refit.0 = false;
    }
}

/// Pan with keys or by dragging, zoom with the wheel or keys.
fn camera_control(
    actions: Single<&ActionState<GameAction>>,
    mut camera: Single<(&mut Transform, &mut Projection), With<Camera2d>>,
    hover: Option<Res<Hover>>,
    time: Res<Time>,
) {
    let (ref mut tf, ref mut proj) = *camera;
    let Projection::Orthographic(o) = &mut **proj else {
        return;
    };
    let mut pan = Vec2::ZERO;
    if actions.pressed(&GameAction::PanUp) {
        pan.y += 1.0;
    }
    if actions.pressed(&GameAction::PanDown) {
        pan.y -= 1.0;
    }
    if actions.pressed(&GameAction::PanLeft) {
        pan.x -= 1.0;
    }
    if actions.pressed(&GameAction::PanRight) {
        pan.x += 1.0;
    }
    tf.translation += (pan * 500.0 * o.scale * time.delta_secs()).extend(0.0);
    let over_ui = hover.is_some_and(|h| h.over_ui);
    if actions.pressed(&GameAction::Drag) && !over_ui {
        let m = actions.axis_pair(&GameAction::PointerMotion);
        tf.translation += Vec3::new(-m.x, m.y, 0.0) * o.scale;
    }
    let mut zoom = 0.0;
    if !over_ui {
        zoom += actions.value(&GameAction::Zoom).clamp(-3.0, 3.0) * 0.1;
    }
    if actions.pressed(&GameAction::ZoomIn) {
        zoom += 1.5 * time.delta_secs();
    }
    if actions.pressed(&GameAction::ZoomOut) {
        zoom -= 1.5 * time.delta_secs();
    }
    o.scale = (o.scale * (1.0 - zoom)).clamp(0.2, 8.0);
}

/// Which cell and token the pointer is over.
fn track_hover(
    windows: Query<&Window>,
    camera: Single<(&Camera, &GlobalTransform), With<Camera2d>>,
    layout: Option<Res<Layout>>,
    hover: Option<ResMut<Hover>>,
    wants: Option<Res<EguiWantsInput>>,
    rects: Option<Res<super::panels::PanelRects>>,
    tokens: Query<&Token>,
) {
    let (Some(layout), Some(mut hover)) = (layout, hover) else {
        return;
    };
    let (cam, cam_tf) = *camera;
    let cursor = windows.iter().next().and_then(|w| w.cursor_position());
    let over_panel =
        cursor.is_some_and(|c| rects.is_some_and(|r| r.0.iter().any(|r| r.contains(c))));
    hover.over_ui =
        over_panel || wants.is_some_and(|w| w.is_pointer_over_area() || w.is_using_pointer());
    let p = cursor.and_then(|c| cam.viewport_to_world_2d(cam_tf, c).ok());
    let Some(p) = p.filter(|_| !hover.over_ui) else {
        hover.cell = None;
        hover.token = None;
        return;
    };
    hover.world_pos = p;
    hover.cell = layout.cell_at(p);
    hover.token = tokens
        .iter()
        .find(|t| t.pos.distance(p) < R * 0.7)
        .map(|t| t.of);
}

/// Outline what hovering and selection mean: the selected unit's reachable
/// cells, the path to the hovered cell, the cells enemies threaten.
/// The log entry picked in the log or on the timeline, found on the board:
/// a ring round who did it, another round whom it befell, an arrow between.
fn picked_on_board(
    mut gizmos: Gizmos,
    session: Option<NonSend<Session>>,
    tokens: Query<&Token>,
    views: Res<Views>,
) {
    let Some(s) = session else { return };
    let Some(e) = s.picked_entry.and_then(|i| s.log().entries().get(i)) else {
        return;
    };
    let at = |name: &Option<String>| {
        let v = views.0.iter().find(|v| Some(&v.name) == name.as_ref())?;
        tokens
            .iter()
            .find(|t| t.of == v.entity && !v.gone)
            .map(|t| t.pos)
    };
    let colour = Color::srgb(1.0, 0.45, 0.95);
    let (from, to) = (at(&e.actor), at(&e.target));
    for p in [from, to].into_iter().flatten() {
        gizmos.circle_2d(p, R * 0.86, colour);
        gizmos.circle_2d(p, R * 0.9, colour);
    }
    if let (Some(a), Some(b)) = (from, to)
        && a != b
    {
        let d = (b - a).normalize_or_zero() * R * 0.9;
        gizmos.arrow_2d(a + d, b - d, colour);
    }
}

fn highlights(
    mut gizmos: Gizmos,
    session: Option<NonSend<Session>>,
    layout: Option<Res<Layout>>,
    hover: Option<ResMut<Hover>>,
    views: Res<Views>,
) {
    let (Some(s), Some(layout), Some(mut hover)) = (session, layout, hover) else {
        return;
    };
    hover.path_info = None;
    let views = &views.0;
    let deciding = s.human_decision().map(|d| d.actor);
    let focus = deciding.or(s.selected);
    let Some(me) = focus.and_then(|f| views.iter().find(|v| v.entity == f)) else {
        if let Some(c) = hover.cell {
            gizmos.linestrip_2d(layout.outline(c, 2.0), Color::srgba(1.0, 1.0, 1.0, 0.5));
        }
        return;
    };
    let grid = &layout.grid;
    let blocked: Vec<Cell> = views
        .iter()
        .filter(|v| v.entity != me.entity && !v.gone && !v.states.iter().any(|x| x == "dead"))
        .map(|v| v.cell)
        .collect();
    // Threatened cells: within the reach of an enemy still standing.
    let threats: Vec<Threatener> = views
        .iter()
        .filter(|v| v.side != me.side && !v.out && !v.gone && v.threat_reach > 0)
        .map(|v| Threatener {
            entity: v.entity,
            cell: v.cell,
            reach: v.threat_reach,
        })
        .collect();
    for t in &threats {
        for c in t.cells(grid) {
            gizmos.linestrip_2d(layout.outline(c, 6.0), Color::srgba(1.0, 0.3, 0.25, 0.6));
        }
    }
    // A question that moves no one (abort? parry?) shows no way to walk.
    if s.human_decision().is_some_and(|d| !d.any_cell) {
        gizmos.linestrip_2d(layout.outline(me.cell, 1.0), Color::srgb(1.0, 0.9, 0.3));
        return;
    }
    // Reachable cells with the movement left now.
    let reach = grid.reachable(me.cell, me.speed, |c| blocked.contains(&c));
    for (c, _) in &reach {
        gizmos.linestrip_2d(layout.outline(*c, 3.0), Color::srgba(0.4, 0.9, 0.5, 0.55));
    }
    gizmos.linestrip_2d(layout.outline(me.cell, 1.0), Color::srgb(1.0, 0.9, 0.3));
    if let Some(c) = hover.choice_cell {
        let cyan = Color::srgb(0.3, 0.9, 1.0);
        gizmos.linestrip_2d(layout.outline(c, 2.0), cyan);
        gizmos.line_2d(layout.centre(me.cell), layout.centre(c), cyan);
    }
    let Some(c) = hover.cell else { return };
    gizmos.linestrip_2d(layout.outline(c, 2.0), Color::WHITE);
    let goal_taken = blocked.contains(&c);
    let ends = (me.cell, c, u32::from(goal_taken));
    let Some((path, cost)) = way(grid, &s.view, ends, &blocked, &threats) else {
        hover.path_info = Some(format!("No way through to {c}."));
        return;
    };
    let mut pts = vec![layout.centre(me.cell)];
    pts.extend(path.iter().map(|p| layout.centre(*p)));
    gizmos.linestrip_2d(pts, Color::srgb(1.0, 0.95, 0.5));
    // Whom the move provokes, as the ruleset's moves do: each may react.
    let provoked = movement::provoked_along(grid, s.view.provokes, me.cell, &path, &threats);
    let entered: Vec<&str> = provoked
        .iter()
        .filter_map(|e| views.iter().find(|v| v.entity == *e))
        .map(|v| v.name.as_str())
        .collect();
    let mut info = format!(
        "Path to {c}: {} cells, movement cost {cost} of {} left",
        path.len(),
        me.speed
    );
    if cost > me.speed {
        info.push_str(" (too far to go now)");
    }
    if !entered.is_empty() {
        let who = entered.join(", ");
        info.push_str(&match s.view.provokes {
            Provokes::Entering => format!("; enters the reach of {who}: it provokes them"),
            Provokes::Leaving => format!("; leaves the reach of {who}: it provokes them"),
            Provokes::TurningAway => {
                format!("; turns its back on {who} (ruling fleeing_attack)")
            }
            _ => format!("; moves on within the reach of {who}: it provokes them"),
        });
    }
    hover.path_info = Some(info);
}

/// Clicking a token selects it; while a person decides, clicking an enemy
/// picks the first legal choice aimed at it and clicking an open cell moves
/// toward it (when the decision allows a cell), or, past where a move
/// reaches, gives the first choice that names a cell and reaches it (a run).
fn click(
    actions: Single<&ActionState<GameAction>>,
    mouse: Res<ButtonInput<MouseButton>>,
    keys: Option<Res<super::input::KeyNames>>,
    session: Option<NonSendMut<Session>>,
    hover: Option<Res<Hover>>,
) {
    let (Some(mut s), Some(hover)) = (session, hover) else {
        return;
    };
    // A tap (down and up within one frame) leaves no held button for the
    // actions to see: it is read from the mouse itself.
    let tapped = keys.is_some_and(|k| k.taps.tapped(&mouse));
    let select = actions.just_pressed(&GameAction::Select) || tapped;
    if hover.over_ui || !select || s.handoff.is_some() {
        return;
    }
    let decision = s.human_decision().cloned();
    if let Some(d) = decision {
        // A click aims a choice at a foe; a friend's token opens its sheet
        // (an order at a friend, a heal or a follow, is chosen by its button).
        let foe = |t: &Entity| fray_core::model::enemies(s.battle.world(), d.actor, *t);
        if let Some(t) = hover.token.filter(|t| *t != d.actor && foe(t)) {
            let name = s
                .battle
                .world()
                .get::<fray_core::model::Combatant>(t)
                .map(|c| c.name.as_str().into());
            if let Some(choice) = d
                .choices
                .iter()
                .find(|c| c.refused.is_none() && c.order.target == name)
            {
                s.answer(d.id, choice.order.clone());
                return;
            }
        } else if hover.token.is_none()
            && let (Some(c), Some(template)) = (hover.cell, d.move_order.clone())
            && d.any_cell
        {
            let order = to_cell(s.battle.world(), &d, template.cell(c));
            s.answer(d.id, order);
            return;
        }
    }
    s.selected = hover.token.or(s.selected);
}

/// `plain`, a move to a clicked cell, if the rules take it; else the first
/// choice of `d` that names a cell, aimed at that cell instead, that they
/// take (a run where a move falls short); else `plain`, to be refused and
/// say why.
fn to_cell(
    world: &World,
    d: &fray_core::decision::Decision,
    plain: fray_core::decision::Order,
) -> fray_core::decision::Order {
    let Some(hooks) = world.get_resource::<fray_core::ai::AiHooks>() else {
        return plain;
    };
    if (hooks.legal)(world, d.actor, &plain) {
        return plain;
    }
    let cell = plain.cell;
    d.choices
        .iter()
        .filter(|c| c.refused.is_none() && c.order.cell.is_some())
        .filter(|c| c.order.action != plain.action)
        .map(|c| fray_core::decision::Order {
            cell,
            ..c.order.clone()
        })
        .find(|o| (hooks.legal)(world, d.actor, o))
        .unwrap_or(plain)
}

/// The systems that bring the board up to date with the battle each frame.
#[derive(SystemSet, Debug, Clone, PartialEq, Eq, Hash)]
pub struct Sync;

pub(super) fn plugin(app: &mut App) {
    app.init_resource::<Views>()
        .init_resource::<Refit>()
        .add_systems(OnEnter(Screen::Battle), (clear_board, spawn_board).chain())
        .add_systems(OnEnter(Screen::Menu), clear_board)
        .add_systems(
            Update,
            (
                track_hover,
                fit_board,
                camera_control,
                click,
                refresh_views,
                sync_tokens,
                announce,
                float_up,
                draw_flashes,
                highlights,
                picked_on_board,
            )
                .chain()
                .in_set(Sync)
                .after(super::session::Drive)
                .run_if(in_state(Screen::Battle).or_else(in_state(Screen::Result))),
        )
        .add_systems(
            Update,
            draw_traces
                .after(refresh_views)
                .run_if(in_state(Screen::Battle).or_else(in_state(Screen::Result))),
        );
}

/// The way the rules take a mover between `ends` (from, to, stopping
/// within): the one provoking fewest where the ruleset says so
/// ([`movement::wary_path`]), else the first shortest.
fn way(
    grid: &Grid,
    view: &RulesView,
    (from, to, within): (Cell, Cell, u32),
    blocked: &[Cell],
    threats: &[Threatener],
) -> Option<(Vec<Cell>, u32)> {
    let blocked = |x| blocked.contains(&x);
    if view.wary {
        movement::wary_path(grid, (from, to, within), blocked, view.provokes, threats)
    } else {
        grid.path_toward(from, to, within, blocked)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Amounts arriving together are summed by the one they touched, damage
    /// and healing apart: the target where the entry names one, else the
    /// actor.
    #[test]
    fn amounts_arriving_together_are_summed_by_whom_they_touched() {
        use fray_core::log::{BattleLog, Event, EventKind};
        let mut log = BattleLog::default();
        let hit = |who: &str, n: i32| Event::new(EventKind::Damage, "r", "").actor(who).amount(n);
        log.push(hit("Gash", 5));
        log.push(hit("Rot", 2));
        log.push(hit("Gash", 8));
        // A blow under crucible names only its target; a healer's spell
        // names the healer and the one healed.
        log.push(
            Event::new(EventKind::Damage, "r", "")
                .target("Rot")
                .amount(3),
        );
        log.push(
            Event::new(EventKind::Note, "r", "")
                .actor("Agna")
                .target("Gash")
                .amount(-4),
        );
        log.push(Event::new(EventKind::Note, "r", "").actor("Gash"));
        let got = amounts(log.entries());
        let want = [("Gash", 13), ("Rot", 5), ("Gash", -4)];
        let want: Vec<(String, i32)> = want.iter().map(|(n, a)| (n.to_string(), *a)).collect();
        assert_eq!(got, want);
    }

    /// Ruling running_rate (crucible): a cell clicked past where Aldo's
    /// move reaches (rate 4), within a run, is run to; one within it is
    /// moved to; one past a run too stays the move, to be refused.
    #[test]
    fn a_cell_clicked_past_a_move_takes_the_choice_that_reaches_it() {
        let text = r#"(
            name: "t", ruleset: "crucible", round_cap: 1,
            grid: (kind: Square, width: 30, height: 9),
            sides: [(name: "A", seat: Human), (name: "B", seat: Human)],
            options: {"surprise": "none"},
            combatants: [
                (name: "Aldo", side: "A", template: "fighter", at: (2, 4), weapons: ["longsword"]),
                (name: "Orc", side: "B", template: "orc", at: (27, 4)),
            ],
            dice: [2, 9],
        )"#;
        let mut battle = fray_ai::battle_from_text(text, 3).unwrap();
        let fray_core::battle::Progress::AwaitingHuman(ids) = battle.run() else {
            panic!("Aldo is asked");
        };
        let world = battle.world();
        let d = world
            .resource::<fray_core::decision::Decisions>()
            .get(ids[0])
            .unwrap()
            .clone();
        assert_eq!(d.actor_name, "Aldo");
        let to = |x, y| {
            let plain = d.move_order.clone().unwrap().cell(Cell::new(x, y));
            let o = to_cell(world, &d, plain);
            (o.action.to_string(), o.cell)
        };
        assert_eq!(to(5, 4), ("move".into(), Some(Cell::new(5, 4))));
        assert_eq!(to(10, 4), ("run".into(), Some(Cell::new(10, 4))));
        assert_eq!(to(14, 4), ("move".into(), Some(Cell::new(14, 4))));
    }

    #[test]
    fn tokens_alike_in_their_first_letters_are_told_apart() {
        assert_eq!(
            short_names(&["Orc 1", "Orc 12", "Brienne", "Grub", "Grusk", "Ana", "Anna"]),
            ["O1", "O12", "Br", "Gb", "Gk", "A1", "A2"]
        );
    }

    #[test]
    fn a_tokens_states_fit_one_short_line() {
        let states = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(state_lines(&[]), "");
        assert_eq!(state_lines(&states(&["dodging"])), "dodging");
        assert_eq!(
            state_lines(&states(&["unconscious", "haymaker: -5 DCV"])),
            "unconscious +1"
        );
        assert_eq!(
            state_lines(&states(&["haymaker: -5 DCV", "dodging"])),
            "haymaker +1"
        );
        assert_eq!(state_lines(&states(&["casting fire_bolt"])), "casting fi..");
    }

    #[test]
    fn every_cell_is_found_under_its_own_centre() {
        for kind in [GridKind::Hex, GridKind::Square] {
            let layout = Layout {
                grid: Grid::new(kind, 9, 7),
            };
            for y in 0..7 {
                for x in 0..9 {
                    let c = Cell::new(x, y);
                    assert_eq!(layout.cell_at(layout.centre(c)), Some(c), "{kind:?} {c}");
                    // A little off centre still picks the same cell.
                    assert_eq!(
                        layout.cell_at(layout.centre(c) + Vec2::new(R * 0.4, -R * 0.3)),
                        Some(c)
                    );
                }
            }
            assert_eq!(
                layout.cell_at(layout.centre(Cell::new(0, 0)) - Vec2::splat(R * 3.0)),
                None
            );
        }
    }

    #[test]
    fn odd_hex_rows_sit_half_a_hex_to_the_right() {
        let layout = Layout {
            grid: Grid::new(GridKind::Hex, 4, 4),
        };
        let (a, b) = (
            layout.centre(Cell::new(0, 0)),
            layout.centre(Cell::new(0, 1)),
        );
        assert!((b.x - a.x - 3f32.sqrt() * R / 2.0).abs() < 1e-3);
        assert!((a.y - b.y - 1.5 * R).abs() < 1e-3);
    }
}
