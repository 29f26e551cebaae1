//! A decision's choices as the battle screen lays them out: choices alike
//! but for whom or where they aim ("Attack … with the longsword") share one
//! row, each button naming its target or cell; the rest stand alone. A
//! long list (a `segments` declaration against six gnolls) reads as a few
//! rows rather than thirty buttons.

use fray_core::decision::{Choice, Decision};

/// One row of choices: `template` is what its choices have in common, with
/// `…` where they differ; a choice alone has none.
#[derive(Debug, PartialEq)]
pub struct Row {
    pub template: Option<String>,
    /// Each choice's place in the decision's list, and its button's text.
    pub members: Vec<(usize, String)>,
}

/// What sets `c` apart from choices alike: its target's name or its cell,
/// as its label writes them (the last place it stands as a word of its
/// own), and the label with that replaced by `…`.
fn aim(c: &Choice) -> Option<(String, String)> {
    let target = c.order.target.as_deref().map(str::to_string);
    let cell = c.order.cell.map(|x| x.to_string());
    [target, cell].into_iter().flatten().find_map(|v| {
        let at = whole_word(&c.label, &v)?;
        let template = format!("{}…{}", &c.label[..at], &c.label[at + v.len()..]);
        Some((template, v))
    })
}

/// Where `word` last stands in `text` with no letter or digit joined to it.
fn whole_word(text: &str, word: &str) -> Option<usize> {
    let joined = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
    text.rmatch_indices(word).map(|(i, _)| i).find(|&i| {
        !joined(text[..i].chars().next_back()) && !joined(text[i + word.len()..].chars().next())
    })
}

/// The rows of `d`, in the order of their first legal choice (rows of
/// refused choices only come last), so the first legal choice stays first.
pub fn rows(d: &Decision) -> Vec<Row> {
    let mut rows: Vec<(Option<String>, Vec<usize>)> = Vec::new();
    for (i, c) in d.choices.iter().enumerate() {
        let key = aim(c).map(|(t, _)| (c.order.action.clone(), t));
        let found = key.as_ref().and_then(|k| {
            rows.iter()
                .position(|(t, m)| t.as_ref() == Some(&k.1) && d.choices[m[0]].order.action == k.0)
        });
        match found {
            Some(r) => rows[r].1.push(i),
            None => rows.push((key.map(|k| k.1), vec![i])),
        }
    }
    let first_legal = |m: &[usize]| {
        m.iter()
            .position(|&i| d.choices[i].refused.is_none())
            .map_or(usize::MAX, |p| m[p])
    };
    rows.sort_by_key(|(_, m)| (first_legal(m), m[0]));
    rows.into_iter()
        .map(|(template, members)| {
            let alone = members.len() == 1;
            Row {
                template: template.filter(|_| !alone),
                members: members
                    .into_iter()
                    .map(|i| {
                        let c = &d.choices[i];
                        let text = match aim(c) {
                            Some((_, v)) if !alone => v,
                            _ => c.label.clone(),
                        };
                        (i, text)
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The legal choices in the order the screen numbers them: the order the
/// number keys follow.
pub fn numbered(d: &Decision) -> Vec<usize> {
    rows(d)
        .into_iter()
        .flat_map(|r| r.members.into_iter().map(|(i, _)| i))
        .filter(|&i| d.choices[i].refused.is_none())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use fray_core::decision::Order;
    use fray_core::grid::Cell;

    fn decision(choices: Vec<Choice>) -> Decision {
        Decision {
            id: 1,
            side: 0,
            actor: bevy::prelude::Entity::PLACEHOLDER,
            actor_name: "Sir Aran".into(),
            prompt: String::new(),
            rule: "001 §2".into(),
            choices,
            secret: true,
            any_cell: true,
            move_order: None,
            offer: None,
        }
    }

    fn attack(on: &str) -> Choice {
        Choice::legal(
            Order::new("Sir Aran", "attack")
                .target(on)
                .with("longsword"),
            format!("Attack {on} with the longsword"),
        )
    }

    fn toward(x: i32, y: i32) -> Choice {
        Choice::legal(
            Order::new("Sir Aran", "move").cell(Cell { x, y }),
            format!("Move toward ({x}, {y})"),
        )
    }

    #[test]
    fn choices_alike_but_for_their_aim_share_a_row_named_by_target_or_cell() {
        let d = decision(vec![
            attack("Gnoll 1"),
            toward(9, 2),
            attack("Gnoll 2"),
            toward(9, 4),
            Choice::legal(Order::new("Sir Aran", "wait"), "Wait"),
        ]);
        let rows = rows(&d);
        assert_eq!(
            rows,
            vec![
                Row {
                    template: Some("Attack … with the longsword".into()),
                    members: vec![(0, "Gnoll 1".into()), (2, "Gnoll 2".into())],
                },
                Row {
                    template: Some("Move toward …".into()),
                    members: vec![(1, "(9, 2)".into()), (3, "(9, 4)".into())],
                },
                Row {
                    template: None,
                    members: vec![(4, "Wait".into())],
                },
            ]
        );
        assert_eq!(numbered(&d), vec![0, 2, 1, 3, 4]);
    }

    #[test]
    fn a_choice_alone_keeps_its_whole_label_and_refused_rows_come_last() {
        let mut refused = attack("Brand");
        refused.refused = Some("Brand is 7 cells away".into());
        let d = decision(vec![
            refused,
            Choice::legal(Order::new("Sir Aran", "wait"), "Wait"),
            attack("Gnoll 1"),
        ]);
        let rows = rows(&d);
        assert_eq!(rows[0].members, vec![(1, "Wait".into())]);
        assert_eq!(
            rows[1].template.as_deref(),
            Some("Attack … with the longsword")
        );
        assert_eq!(
            rows[1].members,
            vec![(0, "Brand".into()), (2, "Gnoll 1".into())]
        );
        // The first legal choice is still the first numbered, and the
        // refused one is not numbered.
        assert_eq!(numbered(&d), vec![1, 2]);
    }

    #[test]
    fn the_aim_is_the_target_s_name_as_a_word_of_its_own() {
        // "Run at Run": the foe's name, not the verb; "Ann" is not in "Anna".
        let run = |on: &str| {
            Choice::legal(
                Order::new("Sir Aran", "trace").target(on),
                format!("Run at {on}, stopping within reach"),
            )
        };
        assert_eq!(
            aim(&run("Run")),
            Some(("Run at …, stopping within reach".into(), "Run".into()))
        );
        let anna = Choice::legal(
            Order::new("Sir Aran", "attack").target("Ann"),
            "Attack Ann, beside Anna",
        );
        assert_eq!(aim(&anna).unwrap().0, "Attack …, beside Anna");
    }
}
