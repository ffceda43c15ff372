//! Prints the bytecode of every non-literal attribute of the first ad of a file:
//! `show_programs FILE`.

use classad::ad::read_ads;
use classad::compile::compile_ad;
use classad_vm::{Attr, SlotTable};
use std::sync::Arc;

fn main() {
    let path = std::env::args().nth(1).expect("usage: show_programs FILE");
    let text = std::fs::read_to_string(&path).expect("read");
    let ads = read_ads(&text, &path).expect("parse");
    let ad = Arc::new(ads[0].clone());
    let mut slots = SlotTable::new();
    let c = compile_ad(&ad, &mut slots);
    for (name, _) in ad.iter() {
        let slot = slots.get(name).expect("interned");
        if let Attr::Code(p) = c.vm.get(slot) {
            println!("== {name}\n{p}");
        }
    }
}
