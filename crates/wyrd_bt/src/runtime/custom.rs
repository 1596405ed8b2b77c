//! Game-registered composites and decorators.

use super::{Interp, Status};
use crate::blackboard::Blackboard;
use crate::program::Kind;

/// Context handed to [`CustomNode::tick`](crate::CustomNode::tick).
pub struct CustomCtx<'i, 'a> {
    interp: &'i mut Interp<'a>,
    node: u32,
}

impl CustomCtx<'_, '_> {
    /// Number of children.
    pub fn child_count(&self) -> usize {
        self.interp.p.nodes[self.node as usize].child_count as usize
    }

    /// Ticks child `k` (unpausing it).
    pub fn tick_child(&mut self, k: usize) -> Status {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.tick_node(c)
    }

    /// Stops child `k` if it runs.
    pub fn halt_child(&mut self, k: usize) {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.halt(c);
    }

    /// Whether child `k` is relevant now (tags and guards).
    pub fn relevant(&mut self, k: usize) -> bool {
        let c = self.interp.p.children_of(self.node)[k];
        self.interp.relevant(c)
    }

    /// The node's cursor (reset to 0 when it starts).
    pub fn cursor(&mut self) -> &mut u16 {
        let c = self.interp.p.nodes[self.node as usize].cursor as usize;
        self.interp.st.mem.cursor_mut(c)
    }

    /// The node's aux word (reset to 0 when it starts).
    pub fn aux(&mut self) -> &mut u32 {
        let a = self.interp.p.nodes[self.node as usize].aux as usize;
        self.interp.st.mem.aux_word_mut(a)
    }

    /// A parameter from the tree file.
    pub fn param(&self, name: &str) -> Option<crate::value::Value> {
        let Kind::Custom { custom } = self.interp.p.nodes[self.node as usize].kind else {
            return None;
        };
        self.interp.p.customs[custom as usize]
            .params
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| *v)
    }

    /// Agent time in ms.
    pub fn now_ms(&self) -> u32 {
        self.interp.st.now_ms
    }

    /// A random number from the agent's seeded generator.
    pub fn random(&mut self) -> u64 {
        self.interp.next_random()
    }

    /// The agent's blackboard.
    pub fn blackboard(&self) -> &Blackboard {
        &*self.interp.bb
    }
}

impl Interp<'_> {
    pub(super) fn tick_custom(&mut self, i: u32, kind: Kind) -> Status {
        let Kind::Custom { custom } = kind else {
            unreachable!("{} is not a custom node", kind.name());
        };
        let node = self.p.customs[custom as usize].node.clone();
        let mut ctx = CustomCtx {
            interp: self,
            node: i,
        };
        node.tick(&mut ctx)
    }
}
