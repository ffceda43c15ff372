//! Counts, over all job-machine pairs of two ad files, how often each side's
//! Requirements leaves the machine for the reference evaluator:
//! `fallbacks JOBS MACHINES`.

use classad::ad::read_ads;
use classad::compile::host::VmHost;
use classad::matching::CompiledPool;
use classad_vm::{Halt, Machine, Sides};
use std::sync::Arc;

fn main() {
    let mut args = std::env::args().skip(1);
    let (jp, mp) = (args.next().expect("JOBS"), args.next().expect("MACHINES"));
    let load = |p: &str| -> Vec<_> {
        let text = std::fs::read_to_string(p).expect("read");
        read_ads(&text, p)
            .expect("parse")
            .into_iter()
            .map(Arc::new)
            .collect()
    };
    let pool = CompiledPool::new(&load(&jp), &load(&mp));
    let req = pool.slots.get("Requirements").expect("slot");
    let mut vm = Machine::new();
    let (mut job_ref, mut machine_ref, mut pairs) = (0, 0, 0);
    for j in &pool.jobs {
        for m in &pool.machines {
            pairs += 1;
            let sides = Sides::new(&j.vm, Some(&m.vm));
            if matches!(
                vm.eval_attr(1, req, 2, sides, &mut VmHost),
                Err(Halt::NeedReference)
            ) {
                machine_ref += 1;
            }
            if matches!(
                vm.eval_attr(0, req, 2, sides, &mut VmHost),
                Err(Halt::NeedReference)
            ) {
                job_ref += 1;
            }
        }
    }
    println!("{pairs} pairs: machine Requirements on the reference {machine_ref}, job Requirements {job_ref}");
}
