//! Names and states on the board that never overlap: each frame the labels
//! are placed one by one — the hovered token's first, then the selected
//! one's, then the rest from the top of the board down. A name goes over
//! its token, or under it when a neighbour is in the way; a label that
//! would cover a token or a label already placed wherever it goes is
//! hidden until the pointer rests on its token (the disc's initials still
//! name it).
//!
//! Labels grow with the board when zoomed in, and stay readable when the
//! board is zoomed out to fit: never smaller on screen than
//! [`SMALLEST_NAME`] and [`SMALLEST_STATES`] pixels. A disc's letters,
//! which cannot grow past their disc, are left off below
//! [`SMALLEST_INITIALS`] pixels.

use bevy::prelude::*;
use bevy::sprite::Anchor;
use bevy::text::{FontSize, TextFont, TextLayoutInfo};

use super::Screen;
use super::board::{
    Hover, NAME_AT, R, RING, Token, TokenInitials, TokenLabel, TokenStates, under_bars,
};
use super::session::Session;

/// The smallest a name is drawn on screen, in pixels.
const SMALLEST_NAME: f32 = 12.0;
/// The smallest a token's states are drawn on screen, in pixels.
const SMALLEST_STATES: f32 = 10.0;
/// The smallest the letters on a disc can be read on screen, in pixels:
/// smaller, they are left off, and the disc is plain (its name shows over
/// it, or when the pointer rests on it).
const SMALLEST_INITIALS: f32 = 8.0;

/// A label under a token: its text's laid-out size and where it hangs.
type LabelParts<'a> = (
    &'a TextLayoutInfo,
    &'a TextFont,
    &'a mut Transform,
    &'a mut Anchor,
    &'a mut Visibility,
    Has<TokenStates>,
);

/// The part of the board a token covers: its ring and the bars under it.
fn body(t: &Token) -> Rect {
    let top = R * RING;
    let bottom = under_bars(t.bars) + 1.0;
    Rect::new(
        t.pos.x - top,
        t.pos.y - bottom,
        t.pos.x + top,
        t.pos.y + top,
    )
}

/// Where a label may hang: the point on its token it hangs from, and
/// which point of the label is there.
#[derive(Clone, Copy)]
struct Spot {
    at: Vec2,
    anchor: Anchor,
}

/// Where a token's label may go, best first: a name over the disc, else
/// under the bars; the states under the bars, below the name if it is there.
fn spots(t: &Token, is_states: bool, name_under: Option<f32>) -> Vec<Spot> {
    let under = -under_bars(t.bars);
    let below = |drop: f32| Spot {
        at: Vec2::new(0.0, under - drop),
        anchor: Anchor::TOP_CENTER,
    };
    if is_states {
        return vec![below(name_under.unwrap_or(0.0))];
    }
    let over = Spot {
        at: Vec2::new(0.0, NAME_AT),
        anchor: Anchor::BOTTOM_CENTER,
    };
    vec![over, below(0.0)]
}

/// Where a label of `size` lies on the board at `spot`.
fn label_rect(t: &Token, size: Vec2, spot: Spot) -> Rect {
    Rect::from_center_size(t.pos + spot.at - spot.anchor.0 * size, size)
}

fn overlaps(a: Rect, b: Rect) -> bool {
    !a.intersect(b).is_empty()
}

/// The first spot where a label of `size` covers no other token and no
/// label already placed (any spot will do when it must show).
fn first_free(
    t: &Token,
    size: Vec2,
    spots: &[Spot],
    bodies: &[(Entity, Rect)],
    placed: &[Rect],
    must_show: bool,
) -> Option<(Spot, Rect)> {
    let free = |r: Rect| {
        !bodies.iter().any(|(e, b)| *e != t.of && overlaps(r, *b))
            && !placed.iter().any(|p| overlaps(r, *p))
    };
    let mut tried = spots.iter().map(|s| (*s, label_rect(t, size, *s)));
    let first = tried.clone().next();
    tried
        .find(|(_, r)| free(*r))
        .or(first.filter(|_| must_show))
}

/// Show each label where it fits, hide the rest.
fn declutter(
    session: Option<NonSend<Session>>,
    hover: Option<Res<Hover>>,
    tokens: Query<(&Token, &Visibility, &Children)>,
    camera: Single<&Projection, With<Camera2d>>,
    mut labels: Query<LabelParts, (Or<(With<TokenLabel>, With<TokenStates>)>, Without<Token>)>,
) {
    let Some(s) = session else { return };
    // World units per pixel.
    let per_pixel = match *camera {
        Projection::Orthographic(o) => o.scale,
        _ => 1.0,
    };
    let hovered = hover.and_then(|h| h.token);
    let mut order: Vec<_> = tokens
        .iter()
        .filter(|(_, v, _)| **v != Visibility::Hidden)
        .collect();
    // First the hovered, then the selected, then from the top down, left to right.
    let rank = |t: &Token| (Some(t.of) != hovered, Some(t.of) != s.selected);
    order.sort_by(|(a, ..), (b, ..)| {
        rank(a)
            .cmp(&rank(b))
            .then(b.pos.y.total_cmp(&a.pos.y))
            .then(a.pos.x.total_cmp(&b.pos.x))
    });
    let bodies: Vec<(Entity, Rect)> = order.iter().map(|(t, ..)| (t.of, body(t))).collect();
    let mut placed: Vec<Rect> = Vec::new();
    // How far a name hung under its token pushes its states down.
    let mut names_under: Vec<(Entity, f32)> = Vec::new();
    // Names first, for every token; then the states.
    for states_pass in [false, true] {
        for (i, (t, _, children)) in order.iter().enumerate() {
            let must_show = i == 0 && Some(t.of) == hovered.or(s.selected);
            for child in children.iter() {
                let Ok((info, font, mut local, mut anchor, mut vis, is_states)) =
                    labels.get_mut(child)
                else {
                    continue;
                };
                let FontSize::Px(px) = font.font_size else {
                    continue;
                };
                if is_states != states_pass || info.size.min_element() <= 0.0 {
                    continue;
                }
                let smallest = if is_states {
                    SMALLEST_STATES
                } else {
                    SMALLEST_NAME
                };
                let grow = (per_pixel * smallest / px).max(1.0);
                if (local.scale.x - grow).abs() > 0.01 {
                    local.scale = Vec3::new(grow, grow, 1.0);
                }
                let size = info.size / info.scale_factor.max(f32::EPSILON) * grow;
                let under = names_under
                    .iter()
                    .find(|(e, _)| *e == t.of)
                    .map(|(_, h)| *h);
                let spots = spots(t, is_states, under);
                let Some((spot, r)) = first_free(t, size, &spots, &bodies, &placed, must_show)
                else {
                    vis.set_if_neq(Visibility::Hidden);
                    continue;
                };
                placed.push(r);
                if !is_states && spot.anchor == Anchor::TOP_CENTER {
                    names_under.push((t.of, size.y));
                }
                local.translation.x = spot.at.x;
                local.translation.y = spot.at.y;
                anchor.set_if_neq(spot.anchor);
                vis.set_if_neq(Visibility::Inherited);
            }
        }
    }
}

/// Show a disc's letters only when the board is near enough to read them;
/// they cannot grow past their disc as the names do.
fn initials_fit(
    camera: Single<&Projection, With<Camera2d>>,
    mut initials: Query<(&TextFont, &mut Visibility), With<TokenInitials>>,
) {
    let per_pixel = match *camera {
        Projection::Orthographic(o) => o.scale,
        _ => 1.0,
    };
    for (font, mut vis) in &mut initials {
        let FontSize::Px(px) = font.font_size else {
            continue;
        };
        let shown = if px / per_pixel.max(f32::EPSILON) >= SMALLEST_INITIALS {
            Visibility::Inherited
        } else {
            Visibility::Hidden
        };
        vis.set_if_neq(shown);
    }
}

pub(super) fn plugin(app: &mut App) {
    app.add_systems(
        Update,
        (declutter, initials_fit)
            .after(super::board::Sync)
            .run_if(in_state(Screen::Battle).or_else(in_state(Screen::Result))),
    );
}
