//! Cycles of a constraint graph as a person checks them: edges labelled processor or
//! location, each between two events, shortened to a *nice* cycle (Qadeer §6,
//! Theorem 6.1) — no two edges of one processor, none two of one location — and
//! re-checked against the relations' definitions, not the graph they came from.

use super::graph::{Label, Which};
use super::run::{Kind, ValueRun};

/// One edge of a printed cycle.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub label: Label,
}

/// The relations of a constraint graph, from their definitions: each event's rank in
/// the write order of its location (0 for the initial value).
pub struct Relations<'a> {
    run: &'a ValueRun,
    which: Which,
    /// Per event: the rank of the write it is (writes, rmws).
    write_rank: Vec<usize>,
}

impl<'a> Relations<'a> {
    pub fn new(run: &'a ValueRun, co: &[Vec<usize>], which: Which) -> Self {
        let mut write_rank = vec![0; run.events.len()];
        for ws in co {
            for (k, &w) in ws.iter().enumerate() {
                write_rank[w] = k + 1;
            }
        }
        Relations {
            run,
            which,
            write_rank,
        }
    }

    /// The rank of the write an event reads (0: the initial value).
    fn read_rank(&self, r: usize) -> usize {
        self.run.events[r].rf.map_or(0, |w| self.write_rank[w])
    }

    /// Whether ⟨a, b⟩ is in the processor relation of a's thread: M (SC), ppo (TSO),
    /// po-loc (uniproc).
    pub fn processor(&self, a: usize, b: usize) -> bool {
        let (ea, eb) = (&self.run.events[a], &self.run.events[b]);
        if ea.thread != eb.thread || a >= b {
            return false;
        }
        match self.which {
            Which::Sc => true,
            Which::TsoGlobal => !(ea.kind == Kind::Write && eb.kind == Kind::Read),
            Which::TsoUniproc => ea.loc.is_some() && ea.loc == eb.loc,
        }
    }

    /// Whether ⟨a, b⟩ is in the location relation of their location: Ω^e (SC), and
    /// under TSO the reachability of rf(e) ∪ co ∪ fr. An rmw counts as both a read (of
    /// its source's rank) and a write (of its own).
    pub fn location(&self, a: usize, b: usize) -> bool {
        let (ea, eb) = (&self.run.events[a], &self.run.events[b]);
        if a == b || ea.loc.is_none() || ea.loc != eb.loc {
            return false;
        }
        // The lowest rank a leaves from: as a reader its source's, as a write its own
        // (an rmw is both, and may read a write ordered after its own).
        let mut from = usize::MAX;
        if ea.kind.reads() {
            from = self.read_rank(a);
        }
        if ea.kind.writes() {
            from = from.min(self.write_rank[a]);
        }
        // Into a write: anything of a lower rank (co, fr).
        if eb.kind.writes() && from < self.write_rank[b] {
            return true;
        }
        // Into a read: only through its reads-from edge (external only, TSO global).
        if eb.kind.reads() {
            let Some(w) = eb.rf else {
                return false;
            };
            let edge = !(self.which == Which::TsoGlobal && self.run.events[w].thread == eb.thread);
            return edge && (w == a || from < self.write_rank[w]);
        }
        false
    }

    fn holds(&self, e: &Edge) -> bool {
        match e.label {
            Label::Processor(t) => {
                self.run.events[e.from].thread == t && self.processor(e.from, e.to)
            }
            Label::Location(x) => {
                self.run.events[e.from].loc == Some(x) && self.location(e.from, e.to)
            }
        }
    }

    fn label_of(&self, a: usize, b: usize) -> Option<Label> {
        if self.processor(a, b) {
            Some(Label::Processor(self.run.events[a].thread))
        } else if self.location(a, b) {
            Some(Label::Location(self.run.events[a].loc.unwrap()))
        } else {
            None
        }
    }

    /// Shortens a cycle (its vertices in order): consecutive edges of one processor
    /// or one location merged (both relations are transitive), then, while two edges
    /// share a processor or a location, the shortcut of Theorem 6.1's proof. Returns
    /// the edges, or None if a step of the given cycle is no edge.
    pub fn shorten(&self, cycle: &[usize]) -> Option<Vec<Edge>> {
        let mut v: Vec<usize> = cycle.to_vec();
        loop {
            let l = v.len();
            let edges: Vec<Edge> = (0..l)
                .map(|i| {
                    let (a, b) = (v[i], v[(i + 1) % l]);
                    self.label_of(a, b).map(|label| Edge {
                        from: a,
                        to: b,
                        label,
                    })
                })
                .collect::<Option<_>>()?;
            if l <= 2 {
                return Some(edges);
            }
            // Two edges a < b with the same label: a shortcut drops the vertices between.
            let mut next = None;
            'find: for a in 0..l {
                for b in a + 1..l {
                    if edges[a].label != edges[b].label {
                        continue;
                    }
                    // Keep v[b+1..] ++ v[..=a] with edge v[a] → v[b+1], or
                    // v[a+1..=b] with edge v[b] → v[a+1]; or (location, Lemma 5.1)
                    // v[b..] ++ v[..=a] with v[a] → v[b].
                    let tries = [(a, (b + 1) % l), (b, (a + 1) % l), (a, b)];
                    for (from, to) in tries {
                        let kept = (from + l - to) % l + 1;
                        if kept < l && self.label_of(v[from], v[to]).is_some() {
                            next = Some(rotate_keep(&v, to, from));
                            break 'find;
                        }
                    }
                }
            }
            match next {
                Some(w) => v = w,
                None => return Some(edges),
            }
        }
    }

    /// Re-checks a printed cycle: it closes, its vertices are distinct, and every edge
    /// is in the relation its label names.
    pub fn recheck(&self, edges: &[Edge]) -> Result<(), super::Rejected> {
        if edges.is_empty() {
            return Err(super::Rejected::EmptyCycle);
        }
        let mut seen = std::collections::HashSet::new();
        for (i, e) in edges.iter().enumerate() {
            let next = &edges[(i + 1) % edges.len()];
            if e.to != next.from {
                return Err(super::Rejected::NotClosed {
                    edge: i + 1,
                    end: e.to,
                    next: next.from,
                });
            }
            if !seen.insert(e.from) {
                return Err(super::Rejected::VisitedTwice { event: e.from });
            }
            if !self.holds(e) {
                return Err(super::Rejected::NotInRelation {
                    edge: i + 1,
                    from: e.from,
                    to: e.to,
                });
            }
        }
        Ok(())
    }
}

/// The cyclic slice of `v` from index `from` around to index `to` (inclusive).
fn rotate_keep(v: &[usize], from: usize, to: usize) -> Vec<usize> {
    let l = v.len();
    let mut out = Vec::new();
    let mut i = from;
    loop {
        out.push(v[i]);
        if i == to {
            break;
        }
        i = (i + 1) % l;
    }
    out
}

/// Whether no two edges share a processor or a location (Qadeer's nice cycles).
pub fn is_nice(edges: &[Edge]) -> bool {
    let mut seen = std::collections::HashSet::new();
    edges.iter().all(|e| seen.insert(e.label))
}
