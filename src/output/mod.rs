//! Everything the tool prints, in one layer above the deciders, monitors and explorer
//! (none of them imports it): witnesses as text and JSON ([`witness`]), the documented
//! `--json` objects as serde structs ([`json`]), Graphviz ([`dot`]), the monitors'
//! outcomes with their evidence ([`monitor`]), the explorer's reports ([`explore`]) and
//! herd7's format ([`herd`]).

pub mod dot;
pub mod explore;
pub mod herd;
pub mod json;
pub mod monitor;
pub mod sample;
pub mod witness;
