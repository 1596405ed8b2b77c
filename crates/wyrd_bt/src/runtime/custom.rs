//! Game-registered composites and decorators: the interpreter as the host
//! of a custom node's context ([`CustomCtx`](crate::CustomCtx)).

use super::{Interp, Status};
use crate::blackboard::Blackboard;
use crate::custom::{CustomCtx, CustomHost};
use crate::program::Kind;
use crate::value::Value;

impl CustomHost for Interp<'_> {
    fn child_count(&self, node: u32) -> usize {
        self.p.nodes[node as usize].child_count as usize
    }

    fn tick_child(&mut self, node: u32, k: usize) -> Status {
        let c = self.p.children_of(node)[k];
        self.tick_node(c)
    }

    fn halt_child(&mut self, node: u32, k: usize) {
        let c = self.p.children_of(node)[k];
        self.halt(c);
    }

    fn relevant(&mut self, node: u32, k: usize) -> bool {
        let c = self.p.children_of(node)[k];
        Interp::relevant(self, c)
    }

    fn cursor(&mut self, node: u32) -> &mut u16 {
        let c = self.p.nodes[node as usize].cursor as usize;
        self.st.mem.cursor_mut(c)
    }

    fn aux(&mut self, node: u32) -> &mut u32 {
        let a = self.p.nodes[node as usize].aux as usize;
        self.st.mem.aux_word_mut(a)
    }

    fn param(&self, node: u32, name: &str) -> Option<Value> {
        let Kind::Custom { custom } = self.p.nodes[node as usize].kind else {
            return None;
        };
        self.p.customs[custom as usize]
            .params
            .iter()
            .find(|(k, _)| &**k == name)
            .map(|(_, v)| *v)
    }

    fn now_ms(&self) -> u32 {
        self.st.now_ms
    }

    fn random(&mut self) -> u64 {
        self.next_random()
    }

    fn blackboard(&self) -> &Blackboard {
        &*self.bb
    }

    fn blackboard_mut(&mut self) -> &mut Blackboard {
        &mut *self.bb
    }
}

impl Interp<'_> {
    pub(super) fn tick_custom(&mut self, i: u32, kind: Kind) -> Status {
        let Kind::Custom { custom } = kind else {
            unreachable!("{} is not a custom node", kind.name());
        };
        let node = self.p.customs[custom as usize].node.clone();
        let mut ctx = CustomCtx {
            host: self,
            node: i,
        };
        node.tick(&mut ctx)
    }
}
