#![forbid(unsafe_code)]
//! Fray's core: everything a ruleset stands on, with no rendering.
//!
//! - [`grid`]: hex and square battlefields behind one set of verbs;
//! - [`ai`]: how a ruleset appraises orders for the basic AI;
//! - [`casting`]: a spell in progress, and the damage that spoils it;
//! - [`dice`]: notation, seeded dice, forced faces, recorded rolls;
//! - [`fork`]: a battle's state copied into another world, to play on apart;
//! - [`log`]: the battle log, its sentences and JSON lines;
//! - [`decision`]: decisions, orders and controllers;
//! - [`battle`]: the driver that steps the rules until a person must decide;
//! - [`data`] and [`scenario`]: RON files with `file:line:col` errors;
//! - [`model`]: the components every ruleset shares;
//! - [`movement`]: a walk cell by cell, what blocks it and what it provokes;
//! - [`occupancy`]: who stands where, the grid index spatial questions ask;
//! - [`morale`]: who stands with whom, the morale check and the rout;
//! - [`simultaneous`]: ties that act at one instant, their hits landing together;
//! - [`threat`]: threatened cells and the moves that enter or leave them;
//! - [`view`]: what a ruleset shows the window;
//! - [`watch`]: what a side learns of the others' orders once in the open.

pub mod ai;
pub mod battle;
pub mod casting;
pub mod data;
pub mod decision;
pub mod dice;
pub mod fork;
pub mod grid;
pub mod log;
pub mod model;
pub mod morale;
pub mod movement;
pub mod occupancy;
pub mod scenario;
pub mod simultaneous;
pub mod threat;
pub mod view;
pub mod watch;
